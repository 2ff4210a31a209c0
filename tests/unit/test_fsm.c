/*
 * The worker lifecycle and the respawn backoff, driven directly: every
 * row of the table in sup_fsm.c, and the timing rules with a fake clock.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sup_fsm.h"

static void
step(struct cfsm *f, enum cevent ev, enum cstate want, unsigned want_act)
{
	unsigned	act = sup_fsm(f, ev);

	if (f->state != want || act != want_act) {
		print_error("%s: got %s/0x%x, want %s/0x%x\n",
		    sup_cevent_name(ev), sup_cstate_name(f->state), act,
		    sup_cstate_name(want), want_act);
		fail();
	}
}

static void
test_life(void **state)
{
	struct cfsm	f = { CS_IDLE };

	step(&f, CE_START, CS_IDLE, CA_SCHEDULE);
	step(&f, CE_SPAWN_DUE, CS_STARTING, CA_SPAWN);
	step(&f, CE_HELLO, CS_RUNNING, 0);
	step(&f, CE_HELLO, CS_RUNNING, 0);
	step(&f, CE_EXIT, CS_IDLE, CA_COUNT_FAIL | CA_SCHEDULE);
	step(&f, CE_SPAWN_DUE, CS_STARTING, CA_SPAWN);
	/* A hang or a bad message: killed, counted once, then respawned. */
	step(&f, CE_HANG, CS_STOPPING, CA_KILL | CA_COUNT_FAIL);
	step(&f, CE_HANG, CS_STOPPING, 0);
	step(&f, CE_EXIT, CS_IDLE, CA_SCHEDULE);
	step(&f, CE_SPAWN_DUE, CS_STARTING, CA_SPAWN);
	step(&f, CE_HELLO, CS_RUNNING, 0);
	step(&f, CE_BAD_MSG, CS_STOPPING, CA_KILL | CA_COUNT_FAIL);
	step(&f, CE_EXIT, CS_IDLE, CA_SCHEDULE);
}

/* A fork or socketpair that failed is a death at once: backoff, respawn. */
static void
test_spawn_failed(void **state)
{
	struct cfsm	f = { CS_IDLE };

	step(&f, CE_SPAWN_DUE, CS_STARTING, CA_SPAWN);
	step(&f, CE_SPAWN_FAILED, CS_IDLE, CA_COUNT_FAIL | CA_SCHEDULE);
	step(&f, CE_SPAWN_DUE, CS_STARTING, CA_SPAWN);
	/* Only a spawn that was asked for can fail. */
	step(&f, CE_HELLO, CS_RUNNING, 0);
	step(&f, CE_SPAWN_FAILED, CS_RUNNING, 0);
}

static void
test_setup_failure_parks(void **state)
{
	struct cfsm	f = { CS_STARTING };

	step(&f, CE_EXIT_SETUP, CS_FAILED, CA_PARK);
	/* Nothing but a config change or a removal moves it. */
	step(&f, CE_SPAWN_DUE, CS_FAILED, 0);
	step(&f, CE_EXIT, CS_FAILED, 0);
	step(&f, CE_START, CS_FAILED, 0);
	step(&f, CE_RESTART, CS_IDLE, CA_RESET_FAILS | CA_SCHEDULE);
	f.state = CS_FAILED;
	step(&f, CE_STOP, CS_DEAD, CA_FREE);
}

static void
test_stop_and_restart(void **state)
{
	struct cfsm	f = { CS_RUNNING };

	/* A changed config: TERM, then a fresh start without backoff. */
	step(&f, CE_RESTART, CS_STOPPING, CA_TERM | CA_RESET_FAILS);
	step(&f, CE_GRACE_OVER, CS_STOPPING, CA_KILL);
	step(&f, CE_EXIT, CS_IDLE, CA_SCHEDULE);
	/* Removal: TERM, then freed; a restart cannot bring it back. */
	f.state = CS_STARTING;
	step(&f, CE_STOP, CS_REMOVING, CA_TERM);
	assert_true(sup_fsm_stopping(&f));
	step(&f, CE_RESTART, CS_REMOVING, 0);
	step(&f, CE_GRACE_OVER, CS_REMOVING, CA_KILL);
	step(&f, CE_EXIT_SETUP, CS_DEAD, CA_FREE);
	step(&f, CE_SPAWN_DUE, CS_DEAD, 0);
	/* Removal while waiting for a respawn. */
	f.state = CS_IDLE;
	step(&f, CE_STOP, CS_DEAD, CA_FREE);
	/* Removal while stopping for a restart. */
	f.state = CS_RUNNING;
	step(&f, CE_RESTART, CS_STOPPING, CA_TERM | CA_RESET_FAILS);
	step(&f, CE_STOP, CS_REMOVING, 0);
	step(&f, CE_EXIT, CS_DEAD, CA_FREE);
	/* A restart of an idle worker reschedules it afresh. */
	f.state = CS_IDLE;
	step(&f, CE_RESTART, CS_IDLE, CA_RESET_FAILS | CA_SCHEDULE);
}

static void
test_backoff(void **state)
{
	assert_int_equal(sup_backoff_ms(0), 0);
	assert_int_equal(sup_backoff_ms(1), 1000);
	assert_int_equal(sup_backoff_ms(2), 2000);
	assert_int_equal(sup_backoff_ms(3), 4000);
	assert_int_equal(sup_backoff_ms(6), 32000);
	assert_int_equal(sup_backoff_ms(7), 60000);
	assert_int_equal(sup_backoff_ms(1000), 60000);
}

static void
test_spawn_gap(void **state)
{
	/* First start: at once. */
	assert_int_equal(sup_spawn_delay(5000, 0, 0), 0);
	/* A config restart 300 ms after a spawn waits out the second. */
	assert_int_equal(sup_spawn_delay(10300, 10000, 0), 700);
	assert_int_equal(sup_spawn_delay(12000, 10000, 0), 0);
	/* A crash right after a spawn: the backoff, at least a second. */
	assert_int_equal(sup_spawn_delay(10010, 10000, 1), 1000);
	assert_int_equal(sup_spawn_delay(10010, 10000, 3), 4000);
	/* Long after: the backoff alone. */
	assert_int_equal(sup_spawn_delay(99000, 10000, 2), 2000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_life),
		cmocka_unit_test(test_spawn_failed),
		cmocka_unit_test(test_setup_failure_parks),
		cmocka_unit_test(test_stop_and_restart),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_spawn_gap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
