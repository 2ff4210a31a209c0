/*
 * The adaptive window (sup_depth.c) against simulated endpoints on a fake
 * clock: one whose latency stays flat, one whose latency rises with what
 * it is sent, and the answers that cut the window (429, 5xx, timeouts).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sup_depth.h"

#define T0	1000000000ULL	/* ms: any start will do */
#define CAP	64

/* The window learnt, outside any probe of the floor. */
static unsigned
learnt(const struct depth *d)
{
	return depth_window(d, UINT64_MAX);
}

/* An endpoint's latency with k requests out. */
typedef uint64_t (*latency_fn)(unsigned k);

static uint64_t
flat(unsigned k)
{
	(void)k;
	return 100;
}

/* 100 ms up to 16 out; beyond, each request more waits 20 ms more. */
static uint64_t
knee16(unsigned k)
{
	return k <= 16 ? 100 : 100 + 20 * (uint64_t)(k - 16);
}

/*
 * Keep the window full for rounds round trips: every round, as many
 * requests as the window allows go out together and come back ok after
 * the latency the endpoint has at that load.  Returns the clock.
 */
static uint64_t
run(struct depth *d, unsigned cls, latency_fn lat, unsigned rounds,
    uint64_t now, unsigned *lo, unsigned *hi)
{
	for (unsigned r = 0; r < rounds; r++) {
		unsigned k = depth_window(d, now);
		uint64_t ms = lat(k);

		now += ms;
		for (unsigned i = 0; i < k; i++)
			depth_answer(d, cls, OUTCOME_OK, ms, 0, k - i, 0, now);
		if (lo != NULL && depth_window(d, now) < *lo)
			*lo = depth_window(d, now);
		if (hi != NULL && depth_window(d, now) > *hi)
			*hi = depth_window(d, now);
	}
	return now;
}

/*
 * A daemon whose store takes 16 answers a round trip: what comes beyond
 * waits in its queue, which grows by the excess every round and drains
 * by the room left.  The endpoint itself stays flat.
 */
static uint64_t
run_store(struct depth *d, unsigned rounds, uint64_t now, unsigned *lo,
    unsigned *hi, uint64_t *worst)
{
	double	queue = 0;	/* answers waiting */

	for (unsigned r = 0; r < rounds; r++) {
		unsigned k = depth_window(d, now);

		now += 100;
		queue += (double)k - 16;
		if (queue < 0)
			queue = 0;
		/* Each waits for the queue ahead, 100 ms / 16 an answer. */
		uint64_t wait = (uint64_t)(queue * 100 / 16);
		for (unsigned i = 0; i < k; i++)
			depth_answer(d, 0, OUTCOME_OK, 100, wait, k - i, 0, now);
		if (r < 50)
			continue;	/* settling */
		if (learnt(d) < *lo)
			*lo = learnt(d);
		if (learnt(d) > *hi)
			*hi = learnt(d);
		if (wait > *worst)
			*worst = wait;
	}
	return now;
}

static void
test_start(void **state)
{
	struct depth	d;

	(void)state;
	depth_init(&d, CAP, T0);
	assert_int_equal(learnt(&d), DEPTH_INITIAL);
	depth_init(&d, 2, T0);
	assert_int_equal(learnt(&d), 2);
	/* A cap of 0 is taken as 1. */
	depth_init(&d, 0, T0);
	assert_int_equal(learnt(&d), 1);
	assert_int_equal(depth_floor(&d, 0), 0);
	assert_int_equal(depth_latency(&d, 0), 0);
}

/* Flat latency: slow start reaches the cap in a few round trips. */
static void
test_flat_grows_to_cap(void **state)
{
	struct depth	d;
	uint64_t	now;
	unsigned	lo = CAP, hi = 0;

	(void)state;
	depth_init(&d, CAP, T0);
	now = run(&d, 0, flat, 10, T0, NULL, NULL);
	assert_int_equal(learnt(&d), CAP);
	assert_int_equal(depth_floor(&d, 0), 100);
	/* And stays there, but for probes of the floor (half, 2 RTT). */
	now = run(&d, 0, flat, 1000, now, &lo, &hi);
	assert_int_equal(learnt(&d), CAP);
	assert_int_equal(d.cuts, 0);
	assert_int_equal(lo, CAP / 2);
	assert_int_equal(hi, CAP);
	/* A lower cap (a reload) takes at once. */
	depth_set_cap(&d, 7);
	assert_int_equal(learnt(&d), 7);
	(void)run(&d, 0, flat, 10, now, NULL, NULL);
	assert_int_equal(learnt(&d), 7);
}

/* An endpoint not kept busy is not credited with more. */
static void
test_idle_does_not_grow(void **state)
{
	struct depth	d;
	uint64_t	now = T0;

	(void)state;
	depth_init(&d, CAP, T0);
	for (int i = 0; i < 1000; i++) {
		now += 100;
		depth_answer(&d, 0, OUTCOME_OK, 100, 0, 1, 0, now);
	}
	assert_int_equal(learnt(&d), DEPTH_INITIAL);
}

/*
 * Latency rising with load: the window settles around the knee, neither
 * at the cap nor at 1, and stays there.
 */
static void
test_converges_at_knee(void **state)
{
	struct depth	d;
	unsigned	lo = CAP, hi = 0;
	uint64_t	now;

	(void)state;
	depth_init(&d, CAP, T0);
	now = run(&d, 0, knee16, 200, T0, NULL, NULL);
	(void)run(&d, 0, knee16, 2000, now, &lo, &hi);
	print_message("knee 16: window %u..%u over the last 2000 rounds\n",
	    lo, hi);
	assert_true(lo >= 8);
	assert_true(hi <= 24);
	assert_true(d.cuts > 0);
}

/*
 * Slow answers while little of the window is out are not the window's
 * doing (a stall on this side, another tenant): no cut; the same with
 * the window in use is congestion.
 */
static void
test_slow_while_unused(void **state)
{
	struct depth	d;
	uint64_t	now;

	(void)state;
	depth_init(&d, CAP, T0);
	now = run(&d, 0, flat, 10, T0, NULL, NULL);
	assert_int_equal(learnt(&d), CAP);
	for (int i = 0; i < 20; i++) {
		now += 100;
		depth_answer(&d, 0, OUTCOME_OK, 600, 0, CAP / 4, 0, now);
	}
	assert_int_equal(learnt(&d), CAP);
	assert_int_equal(d.cuts, 0);
	now += 100;
	depth_answer(&d, 0, OUTCOME_OK, 600, 0, CAP, 0, now);
	assert_int_equal(d.cuts, 1);
	assert_int_equal(learnt(&d), CAP / 2);
}

/* Classes keep their own floors: a slower kind is not congestion. */
static void
test_classes(void **state)
{
	struct depth	d;
	uint64_t	now = T0;

	(void)state;
	depth_init(&d, CAP, T0);
	for (int r = 0; r < 50; r++) {
		unsigned k = learnt(&d);

		now += 200;
		for (unsigned i = 0; i < k; i++)
			depth_answer(&d, i % 2, OUTCOME_OK, i % 2 ? 200 : 100, 0,
			    k - i, 0, now);
	}
	assert_int_equal(learnt(&d), CAP);
	assert_int_equal(depth_floor(&d, 0), 100);
	assert_int_equal(depth_floor(&d, 1), 200);
	assert_int_equal(d.cuts, 0);
}

/*
 * Failures halve the window, one cut per round trip however many
 * answers of the window say so, never below 1.
 */
/*
 * The endpoint is fast and flat but the daemon's store is the bottleneck:
 * the window settles near what the store takes, the wait stays short,
 * rather than filling the cap and queueing in the daemon.  A short wait
 * takes one off a round trip, a long one a quarter.
 */
static void
test_daemon_behind(void **state)
{
	struct depth	d;
	unsigned	lo = CAP, hi = 0;
	uint64_t	worst = 0, now;

	(void)state;
	depth_init(&d, CAP, T0);
	now = run_store(&d, 2000, T0, &lo, &hi, &worst);
	assert_true(hi <= 20);
	assert_true(lo >= 12);
	assert_true(worst < DEPTH_BEHIND_MS);
	assert_true(d.cuts > 0);
	assert_true(depth_wait(&d) < 2 * DEPTH_BEHIND_MS);

	/* Grown to 40 with no wait. */
	depth_init(&d, CAP, now);
	for (int i = 0; learnt(&d) < 40; i++)
		depth_answer(&d, 0, OUTCOME_OK, 100, 0, learnt(&d), 0,
		    now += 1);
	/* A wait, with the window not in use: no cut. */
	for (int i = 0; i < 100; i++)
		depth_answer(&d, 0, OUTCOME_OK, 100, 10 * DEPTH_BEHIND_MS, 1,
		    0, now += 10);
	assert_int_equal(learnt(&d), 40);
	assert_int_equal(d.cuts, 0);
	/* A short one with it in use: one less a round trip (100 ms). */
	depth_init(&d, CAP, now);
	d.window = 40;
	for (int i = 0; i < 20; i++)		/* the wait, learnt */
		depth_answer(&d, 0, OUTCOME_OK, 100, DEPTH_WAIT_MS * 2, 1, 0,
		    now += 1);
	assert_int_equal(learnt(&d), 40);
	now += 100;
	for (int i = 0; i < 10; i++)
		depth_answer(&d, 0, OUTCOME_OK, 100, DEPTH_WAIT_MS * 2, 40, 0,
		    now += 10);
	assert_int_equal(learnt(&d), 39);
	for (int i = 0; i < 10; i++)
		depth_answer(&d, 0, OUTCOME_OK, 100, DEPTH_WAIT_MS * 2, 40, 0,
		    now += 10);
	assert_int_equal(learnt(&d), 38);
	/* A long one: 3/4. */
	for (int i = 0; i < 10; i++)
		depth_answer(&d, 0, OUTCOME_OK, 100, DEPTH_BEHIND_MS * 10, 40,
		    0, now += 10);
	assert_int_equal(learnt(&d), 28);
}

static void
test_failures_cut(void **state)
{
	enum outcome	fail[] = { OUTCOME_HTTP_5XX, OUTCOME_TIMEOUT,
	    OUTCOME_TRANSPORT };

	(void)state;
	for (size_t f = 0; f < sizeof(fail) / sizeof(fail[0]); f++) {
		struct depth	d;
		uint64_t	now;

		depth_init(&d, CAP, T0);
		now = run(&d, 0, flat, 10, T0, NULL, NULL);
		assert_int_equal(learnt(&d), CAP);
		/* A whole window fails at one instant: one cut. */
		for (int i = 0; i < CAP; i++)
			depth_answer(&d, 0, fail[f], 10000, 0, CAP, 0, now);
		assert_int_equal(learnt(&d), CAP / 2);
		/* One round trip later, the next cut. */
		now += 100;
		depth_answer(&d, 0, fail[f], 10000, 0, CAP, 0, now);
		assert_int_equal(learnt(&d), CAP / 4);
		/* Failing for ever: 1, never 0. */
		for (int i = 0; i < 100; i++) {
			now += 100;
			depth_answer(&d, 0, fail[f], 10000, 0, 1, 0, now);
		}
		assert_int_equal(learnt(&d), 1);
		/* Then good again: additive growth, +1 per round trip. */
		now = run(&d, 0, flat, 10, now, NULL, NULL);
		assert_true(learnt(&d) >= 4 && learnt(&d) <= 11);
	}
}

/* Answers about the request, not the load, change nothing. */
static void
test_neutral(void **state)
{
	enum outcome	o[] = { OUTCOME_ABSENT, OUTCOME_RPC_ERROR,
	    OUTCOME_HTTP_4XX, OUTCOME_MALFORMED, OUTCOME_TOO_LARGE };
	struct depth	d;
	uint64_t	now = T0;

	(void)state;
	depth_init(&d, CAP, T0);
	for (size_t i = 0; i < sizeof(o) / sizeof(o[0]); i++) {
		now += 100;
		depth_answer(&d, 0, o[i], 5000, 0, DEPTH_INITIAL, 0, now);
	}
	assert_int_equal(learnt(&d), DEPTH_INITIAL);
	assert_int_equal(d.cuts, 0);
}

/* 429: halved, and no growth until Retry-After (or DEPTH_HOLD_MS). */
static void
test_rate_limited(void **state)
{
	struct depth	d;
	uint64_t	now;

	(void)state;
	depth_init(&d, CAP, T0);
	now = run(&d, 0, flat, 10, T0, NULL, NULL);
	depth_answer(&d, 0, OUTCOME_RATE_LIMITED, 50, 0, CAP, 5000, now);
	assert_int_equal(learnt(&d), CAP / 2);
	/* Good answers within the 5 s asked: held. */
	now = run(&d, 0, flat, 40, now, NULL, NULL);
	assert_int_equal(learnt(&d), CAP / 2);
	/* After it: growing again. */
	(void)run(&d, 0, flat, 20, now, NULL, NULL);
	assert_true(learnt(&d) > CAP / 2);

	/* Without Retry-After: held DEPTH_HOLD_MS. */
	depth_init(&d, CAP, T0);
	now = run(&d, 0, flat, 10, T0, NULL, NULL);
	depth_answer(&d, 0, OUTCOME_RATE_LIMITED, 50, 0, CAP, 0, now);
	assert_int_equal(learnt(&d), CAP / 2);
	now = run(&d, 0, flat, DEPTH_HOLD_MS / 100 - 1, now, NULL, NULL);
	assert_int_equal(learnt(&d), CAP / 2);
	(void)run(&d, 0, flat, 6, now, NULL, NULL);
	assert_true(learnt(&d) > CAP / 2);

	/* A Retry-After of eleven days holds DEPTH_HOLD_MAX_MS, no more. */
	depth_init(&d, CAP, T0);
	now = run(&d, 0, flat, 10, T0, NULL, NULL);
	depth_answer(&d, 0, OUTCOME_RATE_LIMITED, 50, 0, CAP, 1000000000, now);
	assert_int_equal(learnt(&d), CAP / 2);
	now = run(&d, 0, flat, DEPTH_HOLD_MAX_MS / 100 - 1, now, NULL, NULL);
	assert_int_equal(learnt(&d), CAP / 2);
	(void)run(&d, 0, flat, 6, now, NULL, NULL);
	assert_true(learnt(&d) > CAP / 2);
}

/* A clock that steps back stands still: no cut twice at once. */
static void
test_clock_back(void **state)
{
	struct depth	d;
	uint64_t	now;

	(void)state;
	depth_init(&d, CAP, T0);
	now = run(&d, 0, flat, 10, T0, NULL, NULL);
	depth_answer(&d, 0, OUTCOME_TIMEOUT, 10000, 0, CAP, 0, now);
	assert_int_equal(learnt(&d), CAP / 2);
	depth_answer(&d, 0, OUTCOME_TIMEOUT, 10000, 0, CAP, 0, now - 60000);
	assert_int_equal(learnt(&d), CAP / 2);
}

/* A floor measured long ago is forgotten: a slower route is not
 * congestion for ever. */
static void
test_floor_ages(void **state)
{
	struct depth	d;
	uint64_t	now;

	(void)state;
	depth_init(&d, CAP, T0);
	now = run(&d, 0, flat, 10, T0, NULL, NULL);
	assert_int_equal(depth_floor(&d, 0), 100);
	/* The route now takes 300 ms at any load. */
	for (int i = 0; i < 2 * DEPTH_FLOOR_MS / 300 + 2; i++) {
		now += 300;
		depth_answer(&d, 0, OUTCOME_OK, 300, 0, learnt(&d), 0, now);
	}
	assert_int_equal(depth_floor(&d, 0), 300);
	assert_true(learnt(&d) >= 1);
	for (int r = 0; r < 200; r++) {
		unsigned k = learnt(&d);

		now += 300;
		for (unsigned i = 0; i < k; i++)
			depth_answer(&d, 0, OUTCOME_OK, 300, 0, k - i, 0, now);
	}
	assert_int_equal(learnt(&d), CAP);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start),
		cmocka_unit_test(test_flat_grows_to_cap),
		cmocka_unit_test(test_idle_does_not_grow),
		cmocka_unit_test(test_converges_at_knee),
		cmocka_unit_test(test_slow_while_unused),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_daemon_behind),
		cmocka_unit_test(test_failures_cut),
		cmocka_unit_test(test_neutral),
		cmocka_unit_test(test_rate_limited),
		cmocka_unit_test(test_clock_back),
		cmocka_unit_test(test_floor_ages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
