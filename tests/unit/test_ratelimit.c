/*
 * src/ratelimit.c: repeated log lines, one per interval, the rest counted.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ratelimit.h"

/* A flood: the first line goes out, the rest are counted with their span. */
static void
test_flood(void **state)
{
	struct ratelimit	r = RATELIMIT_INIT(1000);
	uint64_t		span;

	(void)state;
	assert_int_equal(ratelimit_pass(&r, 5000), 1);
	for (uint64_t t = 5000; t < 5010; t++)
		for (int i = 0; i < 100; i++)
			assert_int_equal(ratelimit_pass(&r, t), 0);
	assert_int_equal(ratelimit_due(&r), 6000);
	assert_int_equal(ratelimit_take(&r, &span), 1000);
	assert_int_equal(span, 9);
	/* Taken once: nothing left to tell. */
	assert_int_equal(ratelimit_take(&r, &span), 0);
	assert_int_equal(span, 0);
}

/* Lines an interval apart all go out; one inside the interval does not. */
static void
test_spaced(void **state)
{
	struct ratelimit	r = RATELIMIT_INIT(1000);

	(void)state;
	assert_int_equal(ratelimit_pass(&r, 0), 1);
	assert_int_equal(ratelimit_pass(&r, 1000), 1);
	assert_int_equal(ratelimit_pass(&r, 1999), 0);
	assert_int_equal(ratelimit_pass(&r, 2000), 1);
	assert_int_equal(ratelimit_take(&r, NULL), 1);
}

/* A clock that went back (a fake one, or a restart) does not mute it. */
static void
test_clock_back(void **state)
{
	struct ratelimit	r = RATELIMIT_INIT(1000);

	(void)state;
	assert_int_equal(ratelimit_pass(&r, 10000), 1);
	assert_int_equal(ratelimit_pass(&r, 10), 1);
	assert_int_equal(ratelimit_pass(&r, 20), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flood),
		cmocka_unit_test(test_spaced),
		cmocka_unit_test(test_clock_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
