/*
 * src/buf.c, the growable buffer the devnode, the metrics server, the
 * worker's requests and the control-socket client build their text in.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"

static void
test_add(void **state)
{
	struct buf	 b = { 0 };
	char		 big[1000];

	(void)state;
	buf_adds(&b, "ab");
	buf_addc(&b, 'c');
	buf_add(&b, "d\0e", 3);
	assert_int_equal(b.len, 6);
	assert_memory_equal(b.p, "abcd\0e", 7);
	/* Longer than any first try, so that it is formatted twice. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	buf_reset(&b);
	assert_string_equal(b.p, "");
	buf_addf(&b, "%d:%s:%d", 1, big, 2);
	assert_int_equal(b.len, 2 + 999 + 2);
	assert_int_equal(b.p[b.len], '\0');
	assert_memory_equal(b.p + 1001, ":2", 2);
	buf_truncate(&b, 1);
	assert_string_equal(b.p, "1");
	buf_free(&b);
	assert_null(b.p);
}

/* What is written by hand after buf_reserve, then counted. */
static void
test_added(void **state)
{
	struct buf	 b = { 0 };

	(void)state;
	buf_reserve(&b, 3);
	assert_non_null(b.p);
	assert_string_equal(b.p, "");
	memcpy(b.p, "xyz", 3);
	buf_added(&b, 3);
	assert_string_equal(b.p, "xyz");
	buf_free(&b);
}

/* Never more than max bytes held, nor more than max + 1 allocated. */
static void
test_add_max(void **state)
{
	struct buf	 b = { 0 };
	char		 chunk[300];

	(void)state;
	memset(chunk, 'y', sizeof(chunk));
	assert_int_equal(buf_add_max(&b, chunk, 300, 1000), 0);
	assert_int_equal(buf_add_max(&b, chunk, 300, 1000), 0);
	assert_int_equal(buf_add_max(&b, chunk, 300, 1000), 0);
	assert_int_equal(buf_add_max(&b, chunk, 300, 1000), -1);
	assert_int_equal(b.len, 900);
	assert_int_equal(buf_add_max(&b, chunk, 100, 1000), 0);
	assert_int_equal(b.len, 1000);
	assert_true(b.cap <= 1001);
	assert_int_equal(b.p[1000], '\0');
	assert_int_equal(buf_add_max(&b, chunk, 1, 1000), -1);
	buf_free(&b);
}

static void
test_release(void **state)
{
	struct buf	 b = { 0 };
	size_t		 len = 99;
	char		*s;

	(void)state;
	s = buf_release(&b, &len);
	assert_string_equal(s, "");
	assert_int_equal(len, 0);
	free(s);
	buf_adds(&b, "kept");
	s = buf_release(&b, &len);
	assert_string_equal(s, "kept");
	assert_int_equal(len, 4);
	assert_null(b.p);
	assert_int_equal(b.len, 0);
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_added),
		cmocka_unit_test(test_add_max),
		cmocka_unit_test(test_release),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
