/*
 * src/logflood.c: a flood of one template is held back after its burst
 * and told once its window is over; other templates, spaced lines and a
 * clock that steps back are not muted; a full table tells what it evicts.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "logflood.h"

#define FMT	"control socket: %u clients already; turned away pid %ld"

static struct logflood	f;

static int
setup(void **state)
{
	(void)state;
	memset(&f, 0, sizeof(f));
	return 0;
}

static int
pass(const char *fmt, const char *line, uint64_t now)
{
	struct logflood_report	ev;
	int			rc;

	rc = logflood_pass(&f, logflood_key(fmt, line, 1), 1, line, now, &ev);
	assert_int_equal(ev.n, 0);
	return rc;
}

/* 988 lines in 10 ms: the first 20 go out at once, 968 are told after. */
static void
test_flood(void **state)
{
	struct logflood_report	r;
	char			line[96];
	unsigned		out = 0;

	(void)state;
	for (int i = 0; i < 988; i++) {
		snprintf(line, sizeof(line), "turned away pid %d", 1000 + i);
		out += (unsigned)pass(FMT, line, 5000 + (uint64_t)i / 100);
		if (i < LOGFLOOD_BURST)
			assert_int_equal(out, (unsigned)i + 1);
	}
	assert_int_equal(out, LOGFLOOD_BURST);
	/* Not before its window is over, unless all is asked. */
	assert_int_equal(logflood_take(&f, 5999, 0, &r), 0);
	assert_int_equal(logflood_take(&f, 6000, 0, &r), 1);
	assert_int_equal(r.n, 968);
	assert_int_equal(r.level, 1);
	assert_int_equal(r.span_ms, 9);
	assert_string_equal(r.sample, "turned away pid 1019");
	assert_int_equal(logflood_take(&f, 6000, 0, &r), 0);
	/* The next window: lines go out again. */
	assert_int_equal(pass(FMT, "turned away pid 7", 6000), 1);
}

/* Lines of other templates, and "%s" lines that differ, pass. */
static void
test_templates(void **state)
{
	struct logflood_report	r;
	char			line[32];

	(void)state;
	for (int i = 0; i < LOGFLOOD_BURST; i++)
		assert_int_equal(pass(FMT, "x", 100), 1);
	assert_int_equal(pass(FMT, "x", 100), 0);
	assert_int_equal(pass("chain %s: new head", "y", 100), 1);
	assert_int_equal(pass(FMT, "x", 100), 0);
	/* The same level matters: a warning is not an info line. */
	assert_int_equal(logflood_pass(&f, logflood_key(FMT, "x", 2), 2, "x",
	    100, &r), 1);
	for (int i = 0; i < LOGFLOOD_SLOTS - 10; i++) {
		snprintf(line, sizeof(line), "reload error %d", i);
		assert_int_equal(pass("%s", line, 100), 1);
	}
	for (int i = 0; i < LOGFLOOD_BURST; i++)
		assert_int_equal(pass("%s", "same", 200), 1);
	assert_int_equal(pass("%s", "same", 200), 0);
	assert_int_equal(logflood_take(&f, 0, 1, &r), 1);
	assert_int_equal(r.n, 2);
	assert_int_equal(logflood_take(&f, 0, 1, &r), 1);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.sample, "same");
	assert_int_equal(logflood_take(&f, 0, 1, &r), 0);
}

/* A line a second apart, or less often, is never held. */
static void
test_spaced(void **state)
{
	(void)state;
	for (uint64_t t = 0; t < 100 * 1000; t += LOGFLOOD_WINDOW_MS / 20)
		assert_int_equal(pass(FMT, "x", 1000000 + t), 1);
}

/* A clock that steps back starts a new window rather than muting. */
static void
test_clock_back(void **state)
{
	(void)state;
	for (int i = 0; i < LOGFLOOD_BURST; i++)
		assert_int_equal(pass(FMT, "x", 50000), 1);
	assert_int_equal(pass(FMT, "x", 50000), 0);
	assert_int_equal(pass(FMT, "x", 40000), 1);
}

/* More templates than slots: the least recent goes, its count told. */
static void
test_evict(void **state)
{
	struct logflood_report	ev;
	char			fmt[LOGFLOOD_SLOTS][16];

	(void)state;
	for (int i = 0; i <= LOGFLOOD_BURST; i++)
		(void)pass(FMT, "x", 10);
	for (int i = 0; i < LOGFLOOD_SLOTS - 1; i++) {
		snprintf(fmt[i], sizeof(fmt[i]), "t%d %%d", i);
		assert_int_equal(pass(fmt[i], "y", 20 + (uint64_t)i), 1);
	}
	assert_int_equal(logflood_pass(&f, logflood_key("new %d", "z", 1), 1,
	    "z", 100, &ev), 1);
	assert_int_equal(ev.n, 1);
	assert_int_equal(ev.level, 1);
	assert_string_equal(ev.sample, "x");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_flood, setup),
		cmocka_unit_test_setup(test_templates, setup),
		cmocka_unit_test_setup(test_spaced, setup),
		cmocka_unit_test_setup(test_clock_back, setup),
		cmocka_unit_test_setup(test_evict, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
