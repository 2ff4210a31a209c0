/*
 * wrk_sub's rules alone: the backoff stays within 0.5 s .. 30 s whatever
 * the random source says and starts over only after a subscription
 * that lived a stall period and delivered a head, the stall rule, and the
 * transition table.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "wrk_sub.h"

/* A fixed random source: the same sequence on every run. */
static uint32_t
fixed_random(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s;
}

static void
test_backoff_bounds(void **state)
{
	uint32_t	seed = 12345, d;
	const uint32_t	edges[] = { 0, 1, UINT32_MAX / 2, UINT32_MAX - 1,
	    UINT32_MAX };

	for (unsigned a = 0; a < 200; a++) {
		for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
			d = wrk_sub_backoff_ms(a, edges[i]);
			assert_in_range(d, WRK_SUB_BACKOFF_MIN_MS,
			    WRK_SUB_BACKOFF_MAX_MS);
		}
		for (int i = 0; i < 100; i++) {
			d = wrk_sub_backoff_ms(a, fixed_random(&seed));
			assert_in_range(d, WRK_SUB_BACKOFF_MIN_MS,
			    WRK_SUB_BACKOFF_MAX_MS);
		}
	}
	/* huge attempt counts must not overflow into short waits */
	assert_in_range(wrk_sub_backoff_ms(UINT32_MAX, 0), 15000, 30000);
}

static void
test_backoff_growth(void **state)
{
	/* [d/2, d] with d = 1 s x 2^attempt, floor 0.5 s, cap 30 s */
	assert_int_equal(wrk_sub_backoff_ms(0, 0), 500);
	assert_int_equal(wrk_sub_backoff_ms(0, UINT32_MAX), 1000);
	assert_int_equal(wrk_sub_backoff_ms(1, 0), 1000);
	assert_int_equal(wrk_sub_backoff_ms(1, UINT32_MAX), 2000);
	assert_int_equal(wrk_sub_backoff_ms(2, 0), 2000);
	assert_int_equal(wrk_sub_backoff_ms(3, UINT32_MAX), 8000);
	assert_int_equal(wrk_sub_backoff_ms(5, 0), 15000);
	assert_int_equal(wrk_sub_backoff_ms(5, UINT32_MAX), 30000);
	assert_int_equal(wrk_sub_backoff_ms(50, UINT32_MAX), 30000);
	for (unsigned a = 0; a < 10; a++)
		assert_true(wrk_sub_backoff_ms(a, 0) <=
		    wrk_sub_backoff_ms(a + 1, 0));
}

/* Jitter: a fixed source spreads the waits of one attempt. */
static void
test_backoff_jitter(void **state)
{
	uint32_t	seed = 1, lo = UINT32_MAX, hi = 0, d;

	for (int i = 0; i < 1000; i++) {
		d = wrk_sub_backoff_ms(4, fixed_random(&seed));
		if (d < lo)
			lo = d;
		if (d > hi)
			hi = d;
	}
	assert_true(lo >= 8000 && lo < 8400);
	assert_true(hi <= 16000 && hi > 15600);
}

/*
 * The backoff starts over after a subscription that lived a stall period
 * and delivered a head; one silent from the start, judged dead, backs off
 * further every time, as does one closed within a stall period.
 */
static void
test_backoff_over(void **state)
{
	/* live at 1 s, heads until 11 s, ended at 14 s (3 s stall period) */
	assert_true(wrk_sub_backoff_over(14000, 1000, 11000, 3000));
	/* heads late, then judged dead: starts over, as before */
	assert_true(wrk_sub_backoff_over(4200, 1000, 1100, 3000));
	/* silent from the start, judged dead after the stall period */
	assert_false(wrk_sub_backoff_over(4000, 1000, 1000, 3000));
	assert_false(wrk_sub_backoff_over(60000, 1000, 1000, 3000));
	/* one head, then closed within the stall period */
	assert_false(wrk_sub_backoff_over(3999, 1000, 1200, 3000));
	assert_true(wrk_sub_backoff_over(4000, 1000, 1200, 3000));
	/* never live (refused, failed to connect) */
	assert_false(wrk_sub_backoff_over(60000, 0, 50000, 3000));
	/* a clock that went back */
	assert_false(wrk_sub_backoff_over(500, 1000, 1200, 3000));
}

static void
test_stalled(void **state)
{
	/* silent long enough, HTTP ahead */
	assert_true(wrk_sub_stalled(10000, 0, 6000, 1, 10, 1, 11));
	/* silent long enough, HTTP not ahead: the chain stalled, not us */
	assert_false(wrk_sub_stalled(10000, 0, 6000, 1, 10, 1, 10));
	assert_false(wrk_sub_stalled(10000, 0, 6000, 1, 10, 1, 9));
	/* HTTP ahead but not silent long enough */
	assert_false(wrk_sub_stalled(5999, 0, 6000, 1, 10, 1, 11));
	assert_true(wrk_sub_stalled(6000, 0, 6000, 1, 10, 1, 11));
	/* nothing known from HTTP */
	assert_false(wrk_sub_stalled(100000, 0, 6000, 1, 10, 0, 0));
	/* no head ever came while HTTP knows one */
	assert_true(wrk_sub_stalled(100000, 0, 6000, 0, 0, 1, 0));
	/* a clock behind since_ms is not a stall */
	assert_false(wrk_sub_stalled(5, 10, 1, 1, 1, 1, 5));
}

/*
 * The check wakes at deadlines only: a subscription whose heads come in
 * time is never looked at between them.
 */
static void
test_next_check(void **state)
{
	/* live, last head at 10 s, 36 s limit: at 46 s */
	assert_int_equal(wrk_sub_next_check(WRK_SUB_LIVE, 12000, 10000,
	    36000, 0, 10000, 1000), 46000);
	/* past it (HTTP not ahead): every_ms from now */
	assert_int_equal(wrk_sub_next_check(WRK_SUB_LIVE, 46000, 10000,
	    36000, 0, 10000, 1000), 47000);
	assert_int_equal(wrk_sub_next_check(WRK_SUB_LIVE, 50000, 10000,
	    36000, 0, 10000, 1000), 51000);
	/* subscribing since 5 s, 10 s for the answer */
	assert_int_equal(wrk_sub_next_check(WRK_SUB_SUBSCRIBING, 6000, 0,
	    36000, 5000, 10000, 1000), 15000);
	assert_int_equal(wrk_sub_next_check(WRK_SUB_SUBSCRIBING, 15000, 0,
	    36000, 5000, 10000, 1000), 16000);
	/* nothing to judge in the other states */
	assert_int_equal(wrk_sub_next_check(WRK_SUB_CONNECTING, 6000, 0,
	    36000, 5000, 10000, 1000), 0);
	assert_int_equal(wrk_sub_next_check(WRK_SUB_BACKOFF, 6000, 0,
	    36000, 5000, 10000, 1000), 0);
}

static void
step_is(enum wrk_sub_state s, enum wrk_sub_event e, enum wrk_sub_state next,
    enum wrk_sub_action act)
{
	struct wrk_sub_step	st = wrk_sub_transition(s, e);

	assert_int_equal(st.next, next);
	assert_int_equal(st.action, act);
}

static void
test_transitions(void **state)
{
	step_is(WRK_SUB_CONNECTING, WRK_SUB_EV_OPEN, WRK_SUB_SUBSCRIBING,
	    WRK_SUB_DO_SUBSCRIBE);
	step_is(WRK_SUB_CONNECTING, WRK_SUB_EV_CLOSED, WRK_SUB_BACKOFF,
	    WRK_SUB_DO_RETRY);
	step_is(WRK_SUB_SUBSCRIBING, WRK_SUB_EV_SUBSCRIBED, WRK_SUB_LIVE,
	    WRK_SUB_DO_GO_LIVE);
	step_is(WRK_SUB_SUBSCRIBING, WRK_SUB_EV_FAILED, WRK_SUB_BACKOFF,
	    WRK_SUB_DO_RETRY);
	step_is(WRK_SUB_SUBSCRIBING, WRK_SUB_EV_CLOSED, WRK_SUB_BACKOFF,
	    WRK_SUB_DO_RETRY);
	step_is(WRK_SUB_LIVE, WRK_SUB_EV_CLOSED, WRK_SUB_BACKOFF,
	    WRK_SUB_DO_RETRY);
	step_is(WRK_SUB_LIVE, WRK_SUB_EV_STALLED, WRK_SUB_BACKOFF,
	    WRK_SUB_DO_RETRY);
	step_is(WRK_SUB_BACKOFF, WRK_SUB_EV_TIMER, WRK_SUB_CONNECTING,
	    WRK_SUB_DO_CONNECT);
	/* late or repeated events change nothing */
	step_is(WRK_SUB_BACKOFF, WRK_SUB_EV_CLOSED, WRK_SUB_BACKOFF,
	    WRK_SUB_DO_NOTHING);
	step_is(WRK_SUB_LIVE, WRK_SUB_EV_SUBSCRIBED, WRK_SUB_LIVE,
	    WRK_SUB_DO_NOTHING);
	step_is(WRK_SUB_CONNECTING, WRK_SUB_EV_STALLED, WRK_SUB_CONNECTING,
	    WRK_SUB_DO_NOTHING);
	step_is(WRK_SUB_LIVE, WRK_SUB_EV_TIMER, WRK_SUB_LIVE,
	    WRK_SUB_DO_NOTHING);

	for (int s = 0; s < WRK_SUB_NSTATES; s++)
		for (int e = 0; e < WRK_SUB_NEVENTS; e++) {
			struct wrk_sub_step st = wrk_sub_transition(
			    (enum wrk_sub_state)s, (enum wrk_sub_event)e);

			assert_in_range(st.next, 0, WRK_SUB_NSTATES - 1);
			if (s == WRK_SUB_STOPPED)
				step_is(WRK_SUB_STOPPED, (enum wrk_sub_event)e,
				    WRK_SUB_STOPPED, WRK_SUB_DO_NOTHING);
			else if (e == WRK_SUB_EV_STOP)
				step_is((enum wrk_sub_state)s, WRK_SUB_EV_STOP,
				    WRK_SUB_STOPPED, WRK_SUB_DO_STOP);
			/* only a connection's end or failure leads to backoff */
			if (st.next == WRK_SUB_BACKOFF && s != WRK_SUB_BACKOFF)
				assert_true(e == WRK_SUB_EV_CLOSED ||
				    e == WRK_SUB_EV_FAILED ||
				    e == WRK_SUB_EV_STALLED);
		}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backoff_bounds),
		cmocka_unit_test(test_backoff_growth),
		cmocka_unit_test(test_backoff_jitter),
		cmocka_unit_test(test_backoff_over),
		cmocka_unit_test(test_stalled),
		cmocka_unit_test(test_next_check),
		cmocka_unit_test(test_transitions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
