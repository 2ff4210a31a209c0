/*
 * src/util.c's mem_setup_children(): the environment chainwatchd gives
 * its workers and chainwatch-metrics, whose allocator then keeps no
 * per-thread cache of freed chunks, unless the user chose one.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util.h"

#define OFF	"glibc.malloc.tcache_count=0"

static void
test_unset(void **state)
{
	(void)state;
	assert_int_equal(unsetenv("GLIBC_TUNABLES"), 0);
	mem_setup_children();
	assert_non_null(getenv("GLIBC_TUNABLES"));
	assert_string_equal(getenv("GLIBC_TUNABLES"), OFF);
	/* Twice is once. */
	mem_setup_children();
	assert_string_equal(getenv("GLIBC_TUNABLES"), OFF);

	assert_int_equal(setenv("GLIBC_TUNABLES", "", 1), 0);
	mem_setup_children();
	assert_string_equal(getenv("GLIBC_TUNABLES"), OFF);
}

/* The user's other tunables are kept, and this one added after them. */
static void
test_others_kept(void **state)
{
	(void)state;
	assert_int_equal(setenv("GLIBC_TUNABLES",
	    "glibc.malloc.check=3:glibc.malloc.arena_max=2", 1), 0);
	mem_setup_children();
	assert_string_equal(getenv("GLIBC_TUNABLES"),
	    "glibc.malloc.check=3:glibc.malloc.arena_max=2:" OFF);
}

/* A tcache the user set is the user's. */
static void
test_users_tcache(void **state)
{
	(void)state;
	assert_int_equal(setenv("GLIBC_TUNABLES",
	    "glibc.malloc.tcache_count=3", 1), 0);
	mem_setup_children();
	assert_string_equal(getenv("GLIBC_TUNABLES"),
	    "glibc.malloc.tcache_count=3");
	assert_int_equal(setenv("GLIBC_TUNABLES",
	    "glibc.malloc.check=1:glibc.malloc.tcache_count=7", 1), 0);
	mem_setup_children();
	assert_string_equal(getenv("GLIBC_TUNABLES"),
	    "glibc.malloc.check=1:glibc.malloc.tcache_count=7");
}

/* A value that cannot take one more is left as it is, not cut. */
static void
test_too_long(void **state)
{
	char	long_[1200];

	(void)state;
	memset(long_, 'x', sizeof(long_) - 1);
	memcpy(long_, "glibc.malloc.check=", 19);
	long_[sizeof(long_) - 1] = '\0';
	assert_int_equal(setenv("GLIBC_TUNABLES", long_, 1), 0);
	mem_setup_children();
	assert_string_equal(getenv("GLIBC_TUNABLES"), long_);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unset),
		cmocka_unit_test(test_others_kept),
		cmocka_unit_test(test_users_tcache),
		cmocka_unit_test(test_too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
