/*
 * hashrate: the "work over span" estimator of hashrate.h on hand-made
 * windows (the earliest block left out, miners adding up to the network,
 * no span, inconsistent input) and its text for people.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hashrate.h"

static void
dec(struct u512 *a, const char *s)
{
	assert_int_equal(u512_from_dec(a, s), 0);
}

/* Ten blocks of difficulty 1000, one every 2 s: 9 * 1000 / 18 s. */
static void
test_network(void **state)
{
	struct u512	 w, first;
	double		 h;

	(void)state;
	dec(&w, "10000");
	dec(&first, "1000");
	assert_int_equal(hashrate_estimate(&w, &first, 1000000, 1018000, &h), 0);
	assert_true(h == 500.0);
	/* Without leaving the first out: the whole work over the span. */
	assert_int_equal(hashrate_estimate(&w, NULL, 1000000, 1018000, &h), 0);
	assert_true(h > 555.55 && h < 555.56);
}

/* Miners add up: a has the first block and 5 more, b 4, of 1000 each. */
static void
test_miners_add_up(void **state)
{
	struct u512	 wa, wb, wn, first;
	double		 ha, hb, hn;

	(void)state;
	dec(&wa, "6000");
	dec(&wb, "4000");
	dec(&wn, "10000");
	dec(&first, "1000");
	assert_int_equal(hashrate_estimate(&wa, &first, 0, 18000, &ha), 0);
	assert_int_equal(hashrate_estimate(&wb, NULL, 0, 18000, &hb), 0);
	assert_int_equal(hashrate_estimate(&wn, &first, 0, 18000, &hn), 0);
	assert_true(ha + hb == hn);
	assert_true(ha / hn > 0.5555 && ha / hn < 0.5556);
}

/* Difficulties near 2^512 still give a finite double. */
static void
test_large(void **state)
{
	struct u512	 w;
	double		 h;

	(void)state;
	dec(&w, "1340780792994259709957402499820584612747936582059239337772"
	    "35614437217640300735469768018742981669034276900318581864860"
	    "50853753882811946569946433649006084095");
	assert_int_equal(hashrate_estimate(&w, NULL, 0, 1000, &h), 0);
	assert_true(h > 1.34e154 && h < 1.35e154);
}

/* One block, a clock that stood still or went back, first > work. */
static void
test_undefined(void **state)
{
	struct u512	 w, first;
	double		 h = 42;

	(void)state;
	dec(&w, "1000");
	dec(&first, "1001");
	assert_int_equal(hashrate_estimate(&w, NULL, 5000, 5000, &h), -1);
	assert_int_equal(hashrate_estimate(&w, NULL, 5000, 4000, &h), -1);
	assert_int_equal(hashrate_estimate(&w, &first, 0, 4000, &h), -1);
	assert_true(h == 42);
}

static void
test_fmt(void **state)
{
	char	 out[HASHRATE_LEN];

	(void)state;
	hashrate_fmt(0, out, sizeof(out));
	assert_string_equal(out, "0.00 H/s");
	hashrate_fmt(999, out, sizeof(out));
	assert_string_equal(out, "999 H/s");
	hashrate_fmt(999.6, out, sizeof(out));
	assert_string_equal(out, "1.00 kH/s");
	hashrate_fmt(91625968981.3, out, sizeof(out));
	assert_string_equal(out, "91.6 GH/s");
	hashrate_fmt(1.234e12, out, sizeof(out));
	assert_string_equal(out, "1.23 TH/s");
	hashrate_fmt(5e27, out, sizeof(out));
	assert_string_equal(out, "5000 YH/s");
	hashrate_fmt_short(1.234e12, out, sizeof(out));
	assert_string_equal(out, "1.23T");
	hashrate_fmt_short(12, out, sizeof(out));
	assert_string_equal(out, "12.0");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_network),
		cmocka_unit_test(test_miners_add_up),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_undefined),
		cmocka_unit_test(test_fmt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
