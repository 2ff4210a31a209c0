/*
 * src/view_fmt.c: times for people, in the unit they are best read in.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "view.h"

static void
span_is(int64_t ms, const char *want)
{
	char	out[VIEW_AGE_LEN];

	view_span(ms, out, sizeof(out));
	assert_string_equal(out, want);
}

static void
test_span(void **state)
{
	(void)state;
	span_is(0, "0 s");
	span_is(500, "500 ms");		/* block_time = 500ms */
	span_is(1500, "1500 ms");
	span_is(2000, "2 s");
	span_is(9999, "9999 ms");
	span_is(10500, "10 s");
	span_is(119999, "119 s");
	span_is(120000, "2 min");
	span_is(2 * 3600 * 1000, "2 h");
	span_is(48LL * 3600 * 1000, "2 d");
	span_is(-500, "500 ms");
}

static void
test_ago(void **state)
{
	char	out[VIEW_AGE_LEN];

	(void)state;
	view_ago(12000, out, sizeof(out));
	assert_string_equal(out, "12 s ago");
	view_ago(-40000, out, sizeof(out));
	assert_string_equal(out, "40 s ahead");
	view_ago(300, out, sizeof(out));
	assert_string_equal(out, "300 ms ago");
	view_ago(1435, out, sizeof(out));
	assert_string_equal(out, "1 s ago");
	view_ago(-9999, out, sizeof(out));
	assert_string_equal(out, "9 s ahead");
	/* How long a state has lasted: an age without direction. */
	view_age(2762, out, sizeof(out));
	assert_string_equal(out, "2 s");
	view_age(-2762, out, sizeof(out));
	assert_string_equal(out, "2 s");
	view_age(500, out, sizeof(out));
	assert_string_equal(out, "500 ms");
	view_age(73500, out, sizeof(out));
	assert_string_equal(out, "73 s");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_span),
		cmocka_unit_test(test_ago),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
