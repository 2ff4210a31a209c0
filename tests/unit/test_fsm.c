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

#include "sup.h"

static void
step(struct wfsm *f, enum wevent ev, enum wstate want, unsigned want_act)
{
	unsigned	act = sup_fsm(f, ev);

	if (f->state != want || act != want_act) {
		print_error("%s: got %s/0x%x, want %s/0x%x\n",
		    sup_wevent_name(ev), sup_wstate_name(f->state), act,
		    sup_wstate_name(want), want_act);
		fail();
	}
}

static void
test_life(void **state)
{
	struct wfsm	f = { WS_IDLE, 0 };

	step(&f, WE_START, WS_IDLE, A_SCHEDULE);
	step(&f, WE_SPAWN_DUE, WS_STARTING, A_SPAWN);
	step(&f, WE_HELLO, WS_RUNNING, 0);
	step(&f, WE_HELLO, WS_RUNNING, 0);
	step(&f, WE_EXIT, WS_IDLE, A_COUNT_FAIL | A_SCHEDULE);
	step(&f, WE_SPAWN_DUE, WS_STARTING, A_SPAWN);
	/* A hang or a bad message: killed, counted once, then respawned. */
	step(&f, WE_HANG, WS_STOPPING, A_KILL | A_COUNT_FAIL);
	step(&f, WE_HANG, WS_STOPPING, 0);
	step(&f, WE_EXIT, WS_IDLE, A_SCHEDULE);
	step(&f, WE_SPAWN_DUE, WS_STARTING, A_SPAWN);
	step(&f, WE_HELLO, WS_RUNNING, 0);
	step(&f, WE_BAD_MSG, WS_STOPPING, A_KILL | A_COUNT_FAIL);
	step(&f, WE_EXIT, WS_IDLE, A_SCHEDULE);
	assert_int_equal(f.removing, 0);
}

static void
test_setup_failure_parks(void **state)
{
	struct wfsm	f = { WS_STARTING, 0 };

	step(&f, WE_EXIT_SETUP, WS_FAILED, A_PARK);
	/* Nothing but a config change or a removal moves it. */
	step(&f, WE_SPAWN_DUE, WS_FAILED, 0);
	step(&f, WE_EXIT, WS_FAILED, 0);
	step(&f, WE_START, WS_FAILED, 0);
	step(&f, WE_RESTART, WS_IDLE, A_RESET_FAILS | A_SCHEDULE);
	f.state = WS_FAILED;
	step(&f, WE_STOP, WS_DEAD, A_FREE);
}

static void
test_stop_and_restart(void **state)
{
	struct wfsm	f = { WS_RUNNING, 0 };

	/* A changed config: TERM, then a fresh start without backoff. */
	step(&f, WE_RESTART, WS_STOPPING, A_TERM | A_RESET_FAILS);
	step(&f, WE_GRACE_OVER, WS_STOPPING, A_KILL);
	step(&f, WE_EXIT, WS_IDLE, A_SCHEDULE);
	/* Removal: TERM, then freed. */
	f.state = WS_STARTING;
	step(&f, WE_STOP, WS_STOPPING, A_TERM);
	assert_int_equal(f.removing, 1);
	step(&f, WE_RESTART, WS_STOPPING, A_RESET_FAILS);
	step(&f, WE_EXIT_SETUP, WS_DEAD, A_FREE);
	step(&f, WE_SPAWN_DUE, WS_DEAD, 0);
	/* Removal while waiting for a respawn. */
	f.state = WS_IDLE;
	f.removing = 0;
	step(&f, WE_STOP, WS_DEAD, A_FREE);
	/* Removal while stopping for a restart. */
	f.state = WS_RUNNING;
	f.removing = 0;
	step(&f, WE_RESTART, WS_STOPPING, A_TERM | A_RESET_FAILS);
	step(&f, WE_STOP, WS_STOPPING, 0);
	step(&f, WE_EXIT, WS_DEAD, A_FREE);
	/* A restart of an idle worker reschedules it afresh. */
	f.state = WS_IDLE;
	f.removing = 0;
	step(&f, WE_RESTART, WS_IDLE, A_RESET_FAILS | A_SCHEDULE);
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
		cmocka_unit_test(test_setup_failure_parks),
		cmocka_unit_test(test_stop_and_restart),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_spawn_gap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
