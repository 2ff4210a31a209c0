/*
 * The backlog of worker messages that wait for a blocked store: order
 * kept across workers, a worker's messages dropped without losing the
 * others' order or the tail, and the caps that turn reading off and on.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sup_backlog.h"

static const int	a, b;	/* two owners */

static void
drain(void)
{
	struct backlog_msg	*m;

	while ((m = backlog_pop()) != NULL)
		free(m);
}

/* Pop one and check its owner and text. */
static void
expect(const void *owner, const char *text)
{
	struct backlog_msg	*m = backlog_pop();

	assert_non_null(m);
	assert_ptr_equal(m->owner, owner);
	assert_int_equal(m->len, strlen(text));
	assert_memory_equal(m->data, text, m->len);
	free(m);
}

static void
test_order(void **state)
{
	assert_true(backlog_empty());
	assert_null(backlog_pop());
	backlog_push(&a, "a1", 2);
	backlog_push(&b, "b1", 2);
	backlog_push(&a, "a2", 2);
	assert_int_equal(backlog_count(), 3);
	assert_int_equal(backlog_bytes(), 6);
	expect(&a, "a1");
	expect(&b, "b1");
	expect(&a, "a2");
	assert_true(backlog_empty());
	assert_int_equal(backlog_bytes(), 0);
}

static void
test_drop(void **state)
{
	backlog_push(&a, "a1", 2);
	backlog_push(&b, "b1", 2);
	backlog_push(&a, "a2", 2);
	backlog_push(&b, "b2", 2);
	backlog_push(&a, "a3", 2);
	backlog_drop(&a);
	assert_int_equal(backlog_count(), 2);
	assert_int_equal(backlog_bytes(), 4);
	/* The tail is still right: a push after a drop goes last. */
	backlog_push(&a, "a4", 2);
	expect(&b, "b1");
	expect(&b, "b2");
	expect(&a, "a4");
	assert_true(backlog_empty());
	/* Dropping everything, then pushing again. */
	backlog_push(&b, "b3", 2);
	backlog_drop(&b);
	assert_true(backlog_empty());
	backlog_push(&b, "b4", 2);
	expect(&b, "b4");
}

static void
test_caps(void **state)
{
	char	big[4096];
	size_t	n;

	memset(big, 'x', sizeof(big));
	/* By count: full at the cap, low again under half of it. */
	for (n = 0; n < BACKLOG_MAX_MSGS - 1; n++)
		backlog_push(&a, "m", 1);
	assert_false(backlog_full());
	backlog_push(&a, "m", 1);
	assert_true(backlog_full());
	assert_false(backlog_low());
	while (backlog_count() >= BACKLOG_MAX_MSGS / 2)
		free(backlog_pop());
	assert_false(backlog_full());
	assert_true(backlog_low());
	drain();
	/* By bytes. */
	for (n = 0; n + sizeof(big) <= BACKLOG_MAX_BYTES; n += sizeof(big))
		assert_false(backlog_full()), backlog_push(&b, big,
		    sizeof(big));
	assert_true(backlog_full());
	assert_int_equal(backlog_bytes(), n);
	drain();
	assert_true(backlog_low());
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_drop),
		cmocka_unit_test(test_caps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
