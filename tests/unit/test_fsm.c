/*
 * The child lifecycle and its respawn backoff, driven directly: every row
 * of the table in sup_fsm.c, every other pair void, and the rules on fails
 * and spawn times with a fake clock.  Links sup_fsm.c alone.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sup_fsm.h"

#define NSTATES	(CS_DEAD + 1)
#define NEVENTS	(CE_GRACE_OVER + 1)

/* An hour into the fake clock, so that 0 is never a spawn time. */
#define T0	3600000

static void
step(struct cfsm *f, enum cevent ev, uint64_t now, enum cstate want,
    unsigned want_act)
{
	enum cstate	from = f->state;
	unsigned	act = sup_fsm(f, ev, now);

	if (f->state != want || act != want_act) {
		print_error("%s + %s: got %s/0x%x, want %s/0x%x\n",
		    sup_cstate_name(from), sup_cevent_name(ev),
		    sup_cstate_name(f->state), act, sup_cstate_name(want),
		    want_act);
		fail();
	}
}

/*
 * The table in sup_fsm.c, STARTING+ and event pairs written out.  What a
 * row does to fails and last_spawn is checked by the tests below it.
 */
static const struct row {
	enum cstate	from;
	enum cevent	ev;
	enum cstate	to;
	unsigned	act;
} table[] = {
	{ CS_IDLE, CE_START, CS_IDLE, CA_SCHEDULE },
	{ CS_IDLE, CE_SPAWN_DUE, CS_STARTING, CA_SPAWN },
	{ CS_IDLE, CE_RESTART, CS_IDLE, CA_SCHEDULE },
	{ CS_IDLE, CE_STOP, CS_DEAD, CA_FREE },
	{ CS_STARTING, CE_HELLO, CS_RUNNING, 0 },
	{ CS_STARTING, CE_SPAWN_FAILED, CS_IDLE, CA_SCHEDULE },
	{ CS_STARTING, CE_HANG, CS_STOPPING, CA_KILL },
	{ CS_RUNNING, CE_HANG, CS_STOPPING, CA_KILL },
	{ CS_STARTING, CE_BAD_MSG, CS_STOPPING, CA_KILL },
	{ CS_RUNNING, CE_BAD_MSG, CS_STOPPING, CA_KILL },
	{ CS_STARTING, CE_EXIT, CS_IDLE, CA_SCHEDULE },
	{ CS_RUNNING, CE_EXIT, CS_IDLE, CA_SCHEDULE },
	{ CS_STARTING, CE_EXIT_SETUP, CS_FAILED, CA_PARK },
	{ CS_RUNNING, CE_EXIT_SETUP, CS_FAILED, CA_PARK },
	{ CS_STARTING, CE_STOP, CS_REMOVING, CA_TERM },
	{ CS_RUNNING, CE_STOP, CS_REMOVING, CA_TERM },
	{ CS_STARTING, CE_RESTART, CS_STOPPING, CA_TERM },
	{ CS_RUNNING, CE_RESTART, CS_STOPPING, CA_TERM },
	{ CS_STOPPING, CE_EXIT, CS_IDLE, CA_SCHEDULE },
	{ CS_STOPPING, CE_EXIT_SETUP, CS_IDLE, CA_SCHEDULE },
	{ CS_STOPPING, CE_GRACE_OVER, CS_STOPPING, CA_KILL },
	{ CS_STOPPING, CE_STOP, CS_REMOVING, 0 },
	{ CS_STOPPING, CE_RESTART, CS_STOPPING, 0 },
	{ CS_REMOVING, CE_EXIT, CS_DEAD, CA_FREE },
	{ CS_REMOVING, CE_EXIT_SETUP, CS_DEAD, CA_FREE },
	{ CS_REMOVING, CE_GRACE_OVER, CS_REMOVING, CA_KILL },
	{ CS_FAILED, CE_RESTART, CS_IDLE, CA_SCHEDULE },
	{ CS_FAILED, CE_STOP, CS_DEAD, CA_FREE },
};

static const struct row *
table_find(enum cstate s, enum cevent ev)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].from == s && table[i].ev == ev)
			return &table[i];
	return NULL;
}

/* Every state with every event: the table's row, or nothing at all. */
static void
test_table(void **state)
{
	for (int s = 0; s < NSTATES; s++)
		for (int ev = 0; ev < NEVENTS; ev++) {
			const struct row	*r = table_find(s, ev);
			struct cfsm		 f = { s, T0, 2, 5 };

			if (r != NULL)
				step(&f, ev, T0 + 10, r->to, r->act);
			else {
				step(&f, ev, T0 + 10, s, 0);
				assert_int_equal(f.last_spawn, T0);
				assert_int_equal(f.fails, 2);
				assert_int_equal(f.restarts, 5);
			}
		}
}

/* A zeroed struct is a child in IDLE that never ran. */
static void
test_life(void **state)
{
	struct cfsm	f = { 0 };
	uint64_t	t = T0;

	step(&f, CE_START, t, CS_IDLE, CA_SCHEDULE);
	assert_int_equal(sup_fsm_delay(&f, t), 0);
	step(&f, CE_SPAWN_DUE, t, CS_STARTING, CA_SPAWN);
	assert_int_equal(f.last_spawn, t);
	step(&f, CE_HELLO, t += 100, CS_RUNNING, 0);
	step(&f, CE_HELLO, t, CS_RUNNING, 0);
	step(&f, CE_EXIT, t += 5000, CS_IDLE, CA_SCHEDULE);
	assert_int_equal(f.fails, 1);
	assert_int_equal(f.restarts, 1);
	step(&f, CE_SPAWN_DUE, t += 1000, CS_STARTING, CA_SPAWN);
	/* A hang or a bad message: killed, counted once, then respawned. */
	step(&f, CE_HANG, t += 100, CS_STOPPING, CA_KILL);
	step(&f, CE_HANG, t, CS_STOPPING, 0);
	step(&f, CE_EXIT, t += 10, CS_IDLE, CA_SCHEDULE);
	assert_int_equal(f.fails, 2);
	step(&f, CE_SPAWN_DUE, t += 2000, CS_STARTING, CA_SPAWN);
	step(&f, CE_HELLO, t, CS_RUNNING, 0);
	step(&f, CE_BAD_MSG, t += 100, CS_STOPPING, CA_KILL);
	assert_true(sup_fsm_stopping(&f));
	step(&f, CE_EXIT, t, CS_IDLE, CA_SCHEDULE);
	assert_false(sup_fsm_stopping(&f));
	assert_int_equal(f.fails, 3);
	assert_int_equal(f.restarts, 3);
}

/* A fork or socketpair that failed is a death at once: backoff, respawn. */
static void
test_spawn_failed(void **state)
{
	struct cfsm	f = { 0 };
	uint64_t	t = T0;

	step(&f, CE_SPAWN_DUE, t, CS_STARTING, CA_SPAWN);
	step(&f, CE_SPAWN_FAILED, t, CS_IDLE, CA_SCHEDULE);
	assert_int_equal(f.fails, 1);
	assert_int_equal(f.restarts, 1);
	assert_int_equal(sup_fsm_delay(&f, t), 1000);
	step(&f, CE_SPAWN_DUE, t += 1000, CS_STARTING, CA_SPAWN);
	step(&f, CE_SPAWN_FAILED, t, CS_IDLE, CA_SCHEDULE);
	assert_int_equal(sup_fsm_delay(&f, t), 2000);
	/* Only a spawn that was asked for can fail. */
	step(&f, CE_SPAWN_DUE, t += 2000, CS_STARTING, CA_SPAWN);
	step(&f, CE_HELLO, t, CS_RUNNING, 0);
	step(&f, CE_SPAWN_FAILED, t, CS_RUNNING, 0);
	assert_int_equal(f.fails, 2);
}

static void
test_setup_failure_parks(void **state)
{
	struct cfsm	f = { CS_STARTING, T0, 1, 1 };

	step(&f, CE_EXIT_SETUP, T0 + 10, CS_FAILED, CA_PARK);
	/* Not a death to count: it would fail again. */
	assert_int_equal(f.restarts, 1);
	/* Nothing but a config change or a removal moves it. */
	step(&f, CE_SPAWN_DUE, T0 + 20, CS_FAILED, 0);
	step(&f, CE_EXIT, T0 + 20, CS_FAILED, 0);
	step(&f, CE_START, T0 + 20, CS_FAILED, 0);
	step(&f, CE_RESTART, T0 + 20, CS_IDLE, CA_SCHEDULE);
	assert_int_equal(f.fails, 0);
	step(&f, CE_SPAWN_DUE, T0 + 2000, CS_STARTING, CA_SPAWN);
	step(&f, CE_EXIT_SETUP, T0 + 2010, CS_FAILED, CA_PARK);
	step(&f, CE_STOP, T0 + 2020, CS_DEAD, CA_FREE);
}

static void
test_stop_and_restart(void **state)
{
	struct cfsm	f = { CS_RUNNING, T0, 3, 3 };

	/* A changed config: TERM, then a fresh start without backoff. */
	step(&f, CE_RESTART, T0 + 100000, CS_STOPPING, CA_TERM);
	assert_int_equal(f.fails, 0);
	step(&f, CE_GRACE_OVER, T0 + 110000, CS_STOPPING, CA_KILL);
	step(&f, CE_EXIT, T0 + 110000, CS_IDLE, CA_SCHEDULE);
	assert_int_equal(f.restarts, 3);
	assert_int_equal(sup_fsm_delay(&f, T0 + 110000), 0);
	/* A restart while it stops for a hang: its backoff starts afresh. */
	f = (struct cfsm){ CS_RUNNING, T0, 3, 3 };
	step(&f, CE_HANG, T0 + 10, CS_STOPPING, CA_KILL);
	assert_int_equal(f.fails, 4);
	step(&f, CE_RESTART, T0 + 20, CS_STOPPING, 0);
	assert_int_equal(f.fails, 0);
	step(&f, CE_EXIT, T0 + 30, CS_IDLE, CA_SCHEDULE);
	/* Removal: TERM, then freed; a restart cannot bring it back. */
	f = (struct cfsm){ CS_STARTING, T0, 0, 0 };
	step(&f, CE_STOP, T0, CS_REMOVING, CA_TERM);
	assert_true(sup_fsm_stopping(&f));
	step(&f, CE_RESTART, T0, CS_REMOVING, 0);
	step(&f, CE_GRACE_OVER, T0, CS_REMOVING, CA_KILL);
	step(&f, CE_EXIT_SETUP, T0, CS_DEAD, CA_FREE);
	step(&f, CE_SPAWN_DUE, T0, CS_DEAD, 0);
	/* Removal while waiting for a respawn. */
	f = (struct cfsm){ CS_IDLE, T0, 2, 2 };
	step(&f, CE_STOP, T0, CS_DEAD, CA_FREE);
	/* Removal while stopping for a restart. */
	f = (struct cfsm){ CS_RUNNING, T0, 0, 0 };
	step(&f, CE_RESTART, T0, CS_STOPPING, CA_TERM);
	step(&f, CE_STOP, T0, CS_REMOVING, 0);
	step(&f, CE_EXIT, T0, CS_DEAD, CA_FREE);
	/* A restart of an idle one reschedules it afresh. */
	f = (struct cfsm){ CS_IDLE, T0, 4, 4 };
	step(&f, CE_RESTART, T0 + 10, CS_IDLE, CA_SCHEDULE);
	assert_int_equal(f.fails, 0);
	assert_int_equal(sup_fsm_delay(&f, T0 + 10), 990);
}

/*
 * FAILS_RESET_MS: one that lived that long is respawned after the first
 * backoff, one that died sooner after twice the last.
 */
static void
test_fails_reset(void **state)
{
	struct cfsm	f = { 0 };
	uint64_t	t = T0;

	/* Three quick deaths: 1, 2, 4 s. */
	for (unsigned i = 1; i <= 3; i++) {
		step(&f, CE_SPAWN_DUE, t, CS_STARTING, CA_SPAWN);
		step(&f, CE_EXIT, t += 500, CS_IDLE, CA_SCHEDULE);
		assert_int_equal(f.fails, i);
		assert_int_equal(sup_fsm_delay(&f, t), 1000U << (i - 1));
		t += 1000U << (i - 1);
	}
	/* Lived a millisecond short of the rule: the backoff doubles. */
	step(&f, CE_SPAWN_DUE, t, CS_STARTING, CA_SPAWN);
	step(&f, CE_HELLO, t, CS_RUNNING, 0);
	step(&f, CE_EXIT, t += FAILS_RESET_MS - 1, CS_IDLE, CA_SCHEDULE);
	assert_int_equal(f.fails, 4);
	assert_int_equal(sup_fsm_delay(&f, t), 8000);
	/* Lived FAILS_RESET_MS: the first backoff again. */
	step(&f, CE_SPAWN_DUE, t += 8000, CS_STARTING, CA_SPAWN);
	step(&f, CE_HELLO, t, CS_RUNNING, 0);
	step(&f, CE_EXIT, t += FAILS_RESET_MS, CS_IDLE, CA_SCHEDULE);
	assert_int_equal(f.fails, 1);
	assert_int_equal(f.restarts, 5);
	assert_int_equal(sup_fsm_delay(&f, t), 1000);
	/* The same for a hang: killed, counted as the first. */
	f = (struct cfsm){ CS_RUNNING, T0, 6, 6 };
	step(&f, CE_HANG, T0 + FAILS_RESET_MS + 30000, CS_STOPPING, CA_KILL);
	assert_int_equal(f.fails, 1);
	step(&f, CE_EXIT, T0 + FAILS_RESET_MS + 30010, CS_IDLE, CA_SCHEDULE);
	assert_int_equal(f.fails, 1);
	assert_int_equal(sup_fsm_delay(&f, T0 + FAILS_RESET_MS + 30010),
	    1000);
	/* A clock that stepped back: it lived no time, the backoff grows. */
	f = (struct cfsm){ CS_RUNNING, T0, 2, 2 };
	step(&f, CE_EXIT, T0 - 1000, CS_IDLE, CA_SCHEDULE);
	assert_int_equal(f.fails, 3);
	assert_int_equal(sup_fsm_delay(&f, T0 - 1000), 4000);
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

/* Never two spawns of one child within SPAWN_MIN_GAP_MS. */
static void
test_spawn_gap(void **state)
{
	struct cfsm	f = { 0 };

	/* First start: at once. */
	assert_int_equal(sup_fsm_delay(&f, 5000), 0);
	/* A config restart 300 ms after a spawn waits out the second. */
	f = (struct cfsm){ CS_RUNNING, 10000, 0, 0 };
	step(&f, CE_RESTART, 10200, CS_STOPPING, CA_TERM);
	step(&f, CE_EXIT, 10300, CS_IDLE, CA_SCHEDULE);
	assert_int_equal(sup_fsm_delay(&f, 10300), 700);
	assert_int_equal(sup_fsm_delay(&f, 11000), 0);
	assert_int_equal(sup_fsm_delay(&f, 12000), 0);
	/* A crash right after a spawn: the backoff, at least a second. */
	f = (struct cfsm){ CS_IDLE, 10000, 1, 1 };
	assert_int_equal(sup_fsm_delay(&f, 10010), 1000);
	f.fails = 3;
	assert_int_equal(sup_fsm_delay(&f, 10010), 4000);
	/* Long after: the backoff alone. */
	f.fails = 2;
	assert_int_equal(sup_fsm_delay(&f, 99000), 2000);
	/* A clock that stepped back waits the whole gap, no more. */
	f.fails = 0;
	assert_int_equal(sup_fsm_delay(&f, 9000), 1000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_life),
		cmocka_unit_test(test_spawn_failed),
		cmocka_unit_test(test_setup_failure_parks),
		cmocka_unit_test(test_stop_and_restart),
		cmocka_unit_test(test_fails_reset),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_spawn_gap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
