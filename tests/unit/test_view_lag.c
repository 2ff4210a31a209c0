/*
 * src/view_status.c's view_lag_judge: when an endpoint is behind or stuck,
 * at 12 s blocks and at 300 ms ones, the clock passed in.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "view.h"

#define S	1000
#define NOW	(1000000LL * S)

/* The chain at best, an endpoint at ep, its last new head head_ago ms
 * ago, the chain past it passed_ago ms ago (-1: not stored). */
static enum view_lag
judge(int64_t bt, int64_t best, int64_t ep, int64_t head_ago,
    int64_t passed_ago, int64_t *blocks, int64_t *since)
{
	struct view_chain	ch = { .has_best = 1, .best_number = best };
	struct view_head	h = {
		.has_best = 1, .best_number = ep,
		.has_head_at = 1, .head_at = NOW - head_ago,
		.has_passed = passed_ago >= 0, .passed_at = NOW - passed_ago,
	};

	return view_lag_judge(&ch, -1, bt, &h, NOW, blocks, since);
}

static void
test_unknown(void **state)
{
	struct view_chain	ch = { .has_best = 1, .best_number = 10 };
	struct view_head	h = { 0 };
	int64_t			b, t;

	(void)state;
	assert_int_equal(view_lag_judge(&ch, -1, 12 * S, &h, NOW, &b, &t),
	    VIEW_LAG_UNKNOWN);
	ch.has_best = 0;
	h.has_best = 1;
	assert_int_equal(view_lag_judge(&ch, -1, 12 * S, &h, NOW, &b, &t),
	    VIEW_LAG_UNKNOWN);
	assert_null(view_lag_name(VIEW_LAG_UNKNOWN));
	assert_string_equal(view_lag_name(VIEW_LAG_STUCK), "stuck");
}

/* Quantus: 12 s blocks. */
static void
test_behind_12s(void **state)
{
	int64_t	b, t;

	(void)state;
	/* At the best, or above it (the store's best lags): ok. */
	assert_int_equal(judge(12 * S, 100, 100, 0, -1, &b, &t), VIEW_LAG_OK);
	assert_int_equal(judge(12 * S, 100, 101, 0, -1, &b, &t), VIEW_LAG_OK);
	/* 25 blocks behind, passed 5 min ago, its heads fresh: behind. */
	assert_int_equal(judge(12 * S, 100, 75, S, 300 * S, &b, &t),
	    VIEW_LAG_BEHIND);
	assert_int_equal(b, 25);
	assert_int_equal(t, NOW - 300 * S);
	/* 3 blocks, for exactly 3 block times: behind; a moment less: no. */
	assert_int_equal(judge(12 * S, 100, 97, S, 36 * S, &b, &t),
	    VIEW_LAG_BEHIND);
	assert_int_equal(judge(12 * S, 100, 97, S, 36 * S - 1, &b, &t),
	    VIEW_LAG_OK);
	/* 2 blocks for an hour, fresh heads: not behind. */
	assert_int_equal(judge(12 * S, 100, 98, S, 3600 * S, &b, &t),
	    VIEW_LAG_OK);
	assert_int_equal(b, 2);
	/* A burst: 10 blocks in 20 s. */
	assert_int_equal(judge(12 * S, 100, 90, S, 20 * S, &b, &t),
	    VIEW_LAG_OK);
	/* The block above not stored: a block time a block. */
	assert_int_equal(judge(12 * S, 100, 90, S, -1, &b, &t),
	    VIEW_LAG_BEHIND);
	assert_int_equal(t, NOW - 120 * S);
	assert_int_equal(judge(12 * S, 100, 98, S, -1, &b, &t), VIEW_LAG_OK);
}

static void
test_stuck_12s(void **state)
{
	int64_t	b, t;

	(void)state;
	/* No new head for 5 block times, the chain past it: stuck. */
	assert_int_equal(judge(12 * S, 100, 95, 60 * S, 50 * S, &b, &t),
	    VIEW_LAG_STUCK);
	assert_int_equal(t, NOW - 60 * S);
	assert_int_equal(b, 5);
	/* Stuck is said over behind. */
	assert_int_equal(judge(12 * S, 100, 75, 600 * S, 590 * S, &b, &t),
	    VIEW_LAG_STUCK);
	/* 59 s: not yet, and not behind (1 block). */
	assert_int_equal(judge(12 * S, 100, 99, 59 * S, 50 * S, &b, &t),
	    VIEW_LAG_OK);
	/* A long block: no head from anyone, the endpoint at the best. */
	assert_int_equal(judge(12 * S, 100, 100, 120 * S, -1, &b, &t),
	    VIEW_LAG_OK);
	/* The chain went past it just now (its next head may be on the
	 * way): not stuck yet. */
	assert_int_equal(judge(12 * S, 100, 99, 120 * S, 4 * S, &b, &t),
	    VIEW_LAG_OK);
	assert_int_equal(judge(12 * S, 100, 99, 120 * S, 5 * S, &b, &t),
	    VIEW_LAG_STUCK);
}

/* A devnet's 300 ms blocks: the 5 s floor holds. */
static void
test_fast_blocks(void **state)
{
	int64_t	b, t;

	(void)state;
	/* 10 blocks in 3 s, a poll or two late: not behind. */
	assert_int_equal(judge(300, 1000, 990, 200, 3 * S, &b, &t),
	    VIEW_LAG_OK);
	/* 17 blocks for 5 s: behind. */
	assert_int_equal(judge(300, 1000, 983, 200, 5 * S, &b, &t),
	    VIEW_LAG_BEHIND);
	/* No head for 4 s (over 5 block times): under the floor. */
	assert_int_equal(judge(300, 1000, 987, 4 * S, 4 * S, &b, &t),
	    VIEW_LAG_OK);
	assert_int_equal(judge(300, 1000, 984, 5 * S, 5 * S, &b, &t),
	    VIEW_LAG_STUCK);
}

/*
 * The store's best above every endpoint's recorded head (their heads
 * came as claims and connected later: the record is late): nobody is
 * behind the best, only behind the highest of them.  Seen in CI with
 * every endpoint slowed to 3 s at 300 ms blocks: "3 of 3 behind".
 */
static void
test_highest(void **state)
{
	struct view_chain	ch = { .has_best = 1, .best_number = 418 };
	struct view_head	h = {
		.has_best = 1, .best_number = 258,
		.has_head_at = 1, .head_at = NOW - 60 * S,
		.has_passed = 1, .passed_at = NOW - 48 * S,
	};
	int64_t			b, t;

	(void)state;
	/* Against the best alone: stuck, 160 blocks below it. */
	assert_int_equal(view_lag_judge(&ch, -1, 300, &h, NOW, &b, &t),
	    VIEW_LAG_STUCK);
	/* The highest endpoint is this one: ok. */
	assert_int_equal(view_lag_judge(&ch, 258, 300, &h, NOW, &b, &t),
	    VIEW_LAG_OK);
	assert_int_equal(b, 0);
	/* Another endpoint at #300: 42 behind it, not 160. */
	h.head_at = NOW - S;
	assert_int_equal(view_lag_judge(&ch, 300, 300, &h, NOW, &b, &t),
	    VIEW_LAG_BEHIND);
	assert_int_equal(b, 42);
	/* An endpoint's head above the best does not raise the bar. */
	assert_int_equal(view_lag_judge(&ch, 500, 300, &h, NOW, &b, &t),
	    VIEW_LAG_BEHIND);
	assert_int_equal(b, 160);
}

/* The words for how an endpoint keeps up, with its age in whole seconds. */
static void
test_lag_text(void **state)
{
	char	out[160];

	(void)state;
	view_lag_text(VIEW_LAG_BEHIND, 25, 3009, 1000, 3762, out, sizeof(out));
	assert_string_equal(out, "behind: 25 blocks below the best for 2 s");
	view_lag_text(VIEW_LAG_STUCK, 25, 3034, 0, 120000, out, sizeof(out));
	assert_string_equal(out, "stuck at #3034: no new head for 2 min while "
	    "the chain went on");
	view_lag_text(VIEW_LAG_OK, 0, 3034, 0, 120000, out, sizeof(out));
	assert_string_equal(out, "keeps up");
	view_lag_text(VIEW_LAG_UNKNOWN, 0, 0, 0, 120000, out, sizeof(out));
	assert_string_equal(out, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lag_text),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_behind_12s),
		cmocka_unit_test(test_stuck_12s),
		cmocka_unit_test(test_fast_blocks),
		cmocka_unit_test(test_highest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
