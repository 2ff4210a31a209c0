/*
 * Which endpoint holds the subscription (sup_subs.c), on a fake clock:
 * the first usable one takes it, a failure or a breaker moves it on at
 * once, it comes back only after the stable period, and a silent holder
 * is stalled only when the chain has moved past it.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sup_subs.h"

#define S	30000ULL	/* the stable period used below */
#define T0	1000000ULL

static void
all_usable(struct subs_cand *c, size_t n, uint64_t since)
{
	memset(c, 0, n * sizeof(*c));
	for (size_t i = 0; i < n; i++) {
		c[i].usable = 1;
		c[i].usable_since = since;
	}
}

static void
test_stable_period(void **state)
{
	/* 30 s, or 10 block times when that is longer. */
	assert_int_equal(subs_stable_ms(300), 30000);
	assert_int_equal(subs_stable_ms(3000), 30000);
	assert_int_equal(subs_stable_ms(12000), 120000);
	assert_int_equal(subs_stable_ms(0), 30000);
}

static void
test_first_usable(void **state)
{
	struct subs_cand	c[3];

	all_usable(c, 3, T0);
	/* At start nobody holds it: the first in order takes it at once. */
	assert_int_equal(subs_choose(c, 3, -1, T0, S), 0);
	c[0].usable = 0;
	assert_int_equal(subs_choose(c, 3, -1, T0, S), 1);
	c[1].usable = 0;
	c[2].usable = 0;
	assert_int_equal(subs_choose(c, 3, -1, T0, S), -1);
	assert_int_equal(subs_choose(c, 0, -1, T0, S), -1);
}

static void
test_moves_on_failure_and_back(void **state)
{
	struct subs_cand	c[3];
	uint64_t		now = T0;
	int			h;

	all_usable(c, 3, T0 - 2 * S);
	h = subs_choose(c, 3, -1, now, S);
	assert_int_equal(h, 0);
	assert_true(subs_may_keep(&c[0], now, S));
	/* Its subscription fails: the next one takes it at once. */
	c[0].failed = now;
	assert_false(subs_may_keep(&c[0], now, S));
	assert_false(subs_may_keep(&c[0], now + S - 1, S));
	assert_true(subs_may_keep(&c[0], now + S, S));
	h = subs_choose(c, 3, h, now, S);
	assert_int_equal(h, 1);
	/* The first stays passed over for the stable period... */
	for (now = T0; now < T0 + S; now += 1000)
		assert_int_equal(subs_choose(c, 3, h, now, S), 1);
	/* ...and takes it back when it is over. */
	assert_int_equal(subs_choose(c, 3, h, T0 + S, S), 0);
}

static void
test_leaves_service(void **state)
{
	struct subs_cand	c[3];
	uint64_t		now = T0;
	int			h = 0;

	all_usable(c, 3, T0 - 2 * S);
	/* Breaker open, down, quarantined: not usable, moved on now. */
	c[0].usable = 0;
	h = subs_choose(c, 3, h, now, S);
	assert_int_equal(h, 1);
	/* The second fails too: the third. */
	c[1].failed = now + 10;
	h = subs_choose(c, 3, h, now + 10, S);
	assert_int_equal(h, 2);
	/* The first is back: only after being usable for the period. */
	c[0].usable = 1;
	c[0].usable_since = now + 5000;
	assert_int_equal(subs_choose(c, 3, h, now + 10 + S - 1, S), 2);
	/* The second's failure is over first: it takes it back... */
	h = subs_choose(c, 3, h, now + 10 + S, S);
	assert_int_equal(h, 1);
	assert_int_equal(subs_choose(c, 3, h, now + 5000 + S - 1, S), 1);
	/* ...until the first has been usable for the period. */
	assert_int_equal(subs_choose(c, 3, h, now + 5000 + S, S), 0);
}

static void
test_flapping_preferred(void **state)
{
	struct subs_cand	c[2];
	uint64_t		now = T0;
	int			h;

	all_usable(c, 2, T0 - 2 * S);
	c[0].usable = 0;
	h = subs_choose(c, 2, 0, now, S);
	assert_int_equal(h, 1);
	/* The preferred one comes and goes every 10 s: never taken back. */
	for (int i = 0; i < 20; i++) {
		now += 10000;
		c[0].usable = !c[0].usable;
		if (c[0].usable)
			c[0].usable_since = now;
		h = subs_choose(c, 2, h, now, S);
		assert_int_equal(h, 1);
	}
}

static void
test_all_failed(void **state)
{
	struct subs_cand	c[3];
	int			h;

	all_usable(c, 3, T0 - 2 * S);
	c[0].failed = T0 + 300;
	c[1].failed = T0 + 100;
	c[2].failed = T0 + 200;
	/* Everyone failed lately: the oldest failure is tried again. */
	h = subs_choose(c, 3, 0, T0 + 400, S);
	assert_int_equal(h, 1);
	/* A holder alone in the chain keeps it through its failures. */
	all_usable(c, 1, T0 - 2 * S);
	c[0].failed = T0;
	assert_int_equal(subs_choose(c, 1, 0, T0 + 1, S), 0);
}

static void
test_clock_steps_back(void **state)
{
	struct subs_cand	c[2];
	int			h;

	all_usable(c, 2, T0);
	c[0].failed = T0 + S;
	/* A clock before the failure: no time has passed since it. */
	h = subs_choose(c, 2, 1, T0, S);
	assert_int_equal(h, 1);
	assert_int_equal(subs_choose(c, 2, h, T0 + S + S - 1, S), 1);
	assert_int_equal(subs_choose(c, 2, h, T0 + S + S, S), 0);
}

static void
test_stalled(void **state)
{
	/* Silent, but the chain is not past it: a slow block, not a stall. */
	assert_false(subs_stalled(T0 + 10000, T0, 3000, 1, 50, 1, 50));
	/* Silent and the chain is past it: stalled after the limit only. */
	assert_false(subs_stalled(T0 + 2999, T0, 3000, 1, 50, 1, 51));
	assert_true(subs_stalled(T0 + 3000, T0, 3000, 1, 50, 1, 51));
	/* Never delivered a head while the chain has one. */
	assert_true(subs_stalled(T0 + 3000, T0, 3000, 0, 0, 1, 1));
	/* Nothing known of the chain: nothing to compare with. */
	assert_false(subs_stalled(T0 + 30000, T0, 3000, 0, 0, 0, 0));
	/* A clock that steps back. */
	assert_false(subs_stalled(T0 - 5000, T0, 3000, 1, 50, 1, 51));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stable_period),
		cmocka_unit_test(test_first_usable),
		cmocka_unit_test(test_moves_on_failure_and_back),
		cmocka_unit_test(test_leaves_service),
		cmocka_unit_test(test_flapping_preferred),
		cmocka_unit_test(test_all_failed),
		cmocka_unit_test(test_clock_steps_back),
		cmocka_unit_test(test_stalled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
