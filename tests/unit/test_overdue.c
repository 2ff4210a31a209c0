/*
 * Overdue endpoints and slow chains on a fake clock (sup_overdue.c): who
 * is unresponsive, when, and when nobody is singled out because every
 * endpoint is as slow, or because the supervisor itself did not run.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sup_overdue.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#define S	1000ULL
#define T0	(1000 * S)	/* monotonic ms */

static void
test_bound(void **state)
{
	/* Never below 2 s; five times the chain's latency above that. */
	assert_int_equal(overdue_bound(0), 2 * S);
	assert_int_equal(overdue_bound(50), 2 * S);
	assert_int_equal(overdue_bound(400), 2 * S);
	assert_int_equal(overdue_bound(600), 3 * S);
	assert_int_equal(overdue_bound(3 * S), 15 * S);
	/* Measured latency first, hedge_after before there is any. */
	assert_int_equal(overdue_chain_bound(100, 1 * S), 2 * S);
	assert_int_equal(overdue_chain_bound(0, 1 * S), 5 * S);
	assert_int_equal(overdue_chain_bound(1200, 1 * S), 6 * S);
}

/*
 * A quiet chain: no kind asked for lately, but the endpoints' probes
 * answered, in 2, 3 and 900 ms (one of them slow), one never: the
 * median of those that did is the chain's speed.
 */
static void
test_answers_median(void **state)
{
	struct overdue_ep eps[4] = {
		{ 0, T0, 3 }, { 0, T0, 900 }, { T0, 0, 0 }, { 0, T0, 2 },
	};

	assert_int_equal(overdue_answers_median(eps, 0), 0);
	assert_int_equal(overdue_answers_median(&eps[2], 1), 0);
	assert_int_equal(overdue_answers_median(eps, 4), 3);
	assert_int_equal(overdue_answers_median(eps, 2), 3);
	/* Answers in no time are still measured: 1 ms, the bound's 2 s. */
	eps[0].answered_in = eps[1].answered_in = eps[3].answered_in = 0;
	assert_int_equal(overdue_answers_median(eps, 4), 1);
	assert_int_equal(overdue_chain_bound(overdue_answers_median(eps, 4),
	    1 * S), 2 * S);
	/* Every endpoint slow: the bound grows with them. */
	eps[0].answered_in = eps[1].answered_in = eps[3].answered_in = 3 * S;
	assert_int_equal(overdue_chain_bound(overdue_answers_median(eps, 4),
	    1 * S), 15 * S);
}

/*
 * A black-holed endpoint: its request out at T0, the others answer
 * requests sent every 300 ms in 20 ms.  Overdue just past the bound.
 */
static void
test_blackhole(void **state)
{
	struct overdue_ep	eps[3];
	uint64_t		bound = overdue_bound(20), age, now, watched;
	uint64_t		last = 0, seen = 0;

	memset(eps, 0, sizeof(eps));
	eps[0].waiting = T0;
	watched = T0 - 10 * S;
	for (now = T0; now <= T0 + 5 * S; now += 50) {
		watched = overdue_watched(watched, last, now);
		last = now;
		/* Every 300 ms the others answer what went out 20 ms ago. */
		if ((now - T0) % 300 == 0 && now >= T0 + 300)
		{
			eps[1].answered = eps[2].answered = now - 20;
			eps[1].answered_in = eps[2].answered_in = 20;
		}
		if (overdue_judge(eps, 3, 0, bound, watched, now, &age) ==
		    OV_OVERDUE) {
			seen = now;
			break;
		}
		assert_int_equal(overdue_judge(eps, 3, 1, bound, watched,
		    now, &age), OV_FINE);
	}
	/* The first check past 2 s of waiting. */
	assert_int_equal(seen, T0 + 2 * S + 50);
	assert_int_equal(age, 2 * S + 50);
	assert_false(overdue_slow(eps, 3, bound, watched, now, &age));
	/* Its answer ends the wait: nothing overdue any more. */
	eps[0].waiting = 0;
	eps[0].answered = T0;
	assert_int_equal(overdue_judge(eps, 3, 0, bound, watched, now, &age),
	    OV_FINE);
	assert_int_equal(age, 0);
}

/* One that never answered anything: its wait is its worker's start. */
static void
test_never_answered(void **state)
{
	struct overdue_ep	eps[2] = { { T0, 0, 0 }, { 0, T0 + S, 5 } };
	uint64_t		age;

	assert_int_equal(overdue_judge(eps, 2, 0, 2 * S, 0, T0 + 2 * S,
	    &age), OV_FINE);
	assert_int_equal(overdue_judge(eps, 2, 0, 2 * S, 0, T0 + 2 * S + 1,
	    &age), OV_OVERDUE);
	/* The other answered only what went out before: not evidence. */
	eps[1].answered = T0 - 1;
	assert_int_equal(overdue_judge(eps, 2, 0, 2 * S, 0, T0 + 9 * S,
	    &age), OV_SLOW);
	/* Nobody else at all: the chain is slow, not this endpoint. */
	assert_int_equal(overdue_judge(eps, 1, 0, 2 * S, 0, T0 + 9 * S,
	    &age), OV_SLOW);
	/* Out of range: nothing. */
	assert_int_equal(overdue_judge(eps, 2, 5, 2 * S, 0, T0 + 9 * S,
	    &age), OV_FINE);
}

/*
 * Every endpoint answers in 3 s, requests staggered: nobody is ever
 * singled out, whatever the bound, and the chain is slow by its latency.
 */
static void
test_all_slow(void **state)
{
	struct overdue_ep	eps[3];
	uint64_t		bound = 2 * S, age, now;
	char			why[64];
	int			slow_seen = 0;

	memset(eps, 0, sizeof(eps));
	for (now = T0; now < T0 + 60 * S; now += 50) {
		for (size_t i = 0; i < 3; i++) {
			/* Endpoint i sends every 3 s, offset by i s, and
			 * each answer comes 3 s after its request. */
			uint64_t phase = (now - T0 + i * S) % (3 * S);
			uint64_t sent = now - phase;

			eps[i].waiting = sent;
			if (sent >= T0 + 3 * S) {
				eps[i].answered = sent - 3 * S;
				eps[i].answered_in = 3 * S;
			}
			assert_int_not_equal(overdue_judge(eps, 3, i, bound, 0,
			    now, &age), OV_OVERDUE);
		}
		slow_seen |= overdue_chain_slow(eps, 3, bound, 0, now, 3 * S,
		    why, sizeof(why));
	}
	assert_true(slow_seen);
	/*
	 * Jitter: another answered in 3.005 s a request sent 10 ms after
	 * this one's, which has waited 3.02 s.  Not evidence.
	 */
	{
		struct overdue_ep j[2] = { { T0, 0, 0 },
		    { 0, T0 + 10, 3 * S + 5 } };

		assert_int_equal(overdue_judge(j, 2, 0, bound, 0,
		    T0 + 3 * S + 20, &age), OV_SLOW);
		/*
		 * Nor is one answered in half the wait: requests queued at
		 * a node all equally slow (3 s against 6 s).
		 */
		j[1].answered_in = 1510;
		assert_int_equal(overdue_judge(j, 2, 0, bound, 0,
		    T0 + 3 * S + 20, &age), OV_SLOW);
		/* A third of the wait or less is: 1 s against 3.02 s. */
		j[1].answered_in = 1000;
		assert_int_equal(overdue_judge(j, 2, 0, bound, 0,
		    T0 + 3 * S + 20, &age), OV_OVERDUE);
	}
	assert_true(overdue_chain_slow(eps, 3, bound, 0, now, 3 * S, why,
	    sizeof(why)));
	assert_string_equal(why, "answers take 3.0 s (median)");

	/* Everyone silent past the bound: slow, by the longest wait. */
	eps[0].waiting = T0;
	eps[1].waiting = T0 + S;
	eps[2].waiting = 0;
	eps[0].answered = eps[1].answered = eps[2].answered = T0 - S;
	assert_true(overdue_chain_slow(eps, 3, bound, 0, T0 + 7 * S, 100,
	    why, sizeof(why)));
	assert_string_equal(why, "every endpoint waited on for 7 s");
	/* A fast chain with nothing overdue is not slow. */
	memset(eps, 0, sizeof(eps));
	assert_false(overdue_chain_slow(eps, 3, bound, 0, T0, 100, why,
	    sizeof(why)));
	/* One unresponsive endpoint is not a slow chain. */
	eps[0].waiting = T0;
	eps[1].answered = T0 + S;
	assert_false(overdue_chain_slow(eps, 3, bound, 0, T0 + 3 * S, 100,
	    why, sizeof(why)));
}

/*
 * Every endpoint slowed to 3 s, one after another, 300 ms apart (a
 * network that degrades, or the test's faults switched on in turn).  d2
 * answered a request sent after d1's oldest in 10 ms, just before it
 * slowed too; since then it waits like d1.  Its quick answer is no
 * evidence against d1 once its own wait is past a third of d1's.
 */
static void
test_slowed_in_turn(void **state)
{
	struct overdue_ep	eps[2] = { { T0, 0, 0 },
				    { T0 + 300, T0 + 40, 10 } };
	uint64_t		age;

	/* At 2.5 s d2 has waited 2.2 s: both are slow, nobody singled out. */
	assert_int_equal(overdue_judge(eps, 2, 0, 2 * S, 0, T0 + 2500, &age),
	    OV_SLOW);
	assert_int_equal(age, 2500);
	assert_true(overdue_slow(eps, 2, 2 * S, 0, T0 + 2500, &age));
	/* Had d2 been answering all along, d1 would be overdue... */
	eps[1].waiting = 0;
	assert_int_equal(overdue_judge(eps, 2, 0, 2 * S, 0, T0 + 2500, &age),
	    OV_OVERDUE);
	/* ...and so if d2 waits, but no longer than a third of d1's wait. */
	eps[1].waiting = T0 + 2500 - 833;
	assert_int_equal(overdue_judge(eps, 2, 0, 2 * S, 0, T0 + 2500, &age),
	    OV_OVERDUE);
	eps[1].waiting = T0 + 2500 - 834;
	assert_int_equal(overdue_judge(eps, 2, 0, 2 * S, 0, T0 + 2500, &age),
	    OV_SLOW);
	/* A request that went out after now (the same tick) is no wait. */
	eps[1].waiting = T0 + 2501;
	assert_int_equal(overdue_judge(eps, 2, 0, 2 * S, 0, T0 + 2500, &age),
	    OV_OVERDUE);
}

/*
 * The supervisor did not run for 4 s (the machine starved): what waited
 * meanwhile counts only from when it watched again.
 */
static void
test_starved(void **state)
{
	struct overdue_ep	eps[2] = { { T0, 0, 0 }, { 0, T0 + 4 * S, 5 } };
	uint64_t		watched = T0 - 60 * S, age;

	watched = overdue_watched(watched, T0 - 50, T0);
	assert_int_equal(watched, T0 - 60 * S);
	/* The next check comes 4 s late. */
	watched = overdue_watched(watched, T0, T0 + 4 * S);
	assert_int_equal(watched, T0 + 4 * S);
	assert_int_equal(overdue_judge(eps, 2, 0, 2 * S, watched, T0 + 4 * S,
	    &age), OV_FINE);
	assert_int_equal(overdue_judge(eps, 2, 0, 2 * S, watched,
	    T0 + 6 * S, &age), OV_FINE);
	/* Watched 2 s past that, and still no answer: overdue, its age
	 * from its request. */
	assert_int_equal(overdue_judge(eps, 2, 0, 2 * S, watched,
	    T0 + 6 * S + 1, &age), OV_OVERDUE);
	assert_int_equal(age, 6 * S + 1);
	/* A clock that steps back, or the first check: watched from now. */
	assert_int_equal(overdue_watched(5, 0, T0), T0);
	assert_int_equal(overdue_watched(5, T0, T0 - 1), T0 - 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_answers_median),
		cmocka_unit_test(test_blackhole),
		cmocka_unit_test(test_never_answered),
		cmocka_unit_test(test_all_slow),
		cmocka_unit_test(test_slowed_in_turn),
		cmocka_unit_test(test_starved),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
