/*
 * The store against a real SQLite file locked by a second connection, as
 * an operator's sqlite3 would: it blocks instead of dying, says why, skips
 * and reports writes made meanwhile (the rollback hook), and resumes by
 * itself once the lock is gone (the resume hook).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "sup_store.h"

static char		 dir[64], path[96];
static sqlite3		*op;		/* the operator's connection */
static struct ev_loop	*loop;
static int		 rollbacks, resumes;
static ev_timer		 deadline;

static void
on_rollback(void)
{
	rollbacks++;
}

static void
on_resume(void)
{
	resumes++;
	ev_break(loop, EVBREAK_ALL);
}

static void
deadline_cb(struct ev_loop *l, ev_timer *t, int revents)
{
	ev_break(l, EVBREAK_ALL);
}

/* Run the loop until the resume hook or seconds have passed. */
static void
run_for(double seconds)
{
	ev_timer_init(&deadline, deadline_cb, seconds, 0.);
	ev_timer_start(loop, &deadline);
	ev_run(loop, 0);
	ev_timer_stop(loop, &deadline);
}

static void
op_exec(const char *sql)
{
	assert_int_equal(sqlite3_exec(op, sql, NULL, NULL, NULL), SQLITE_OK);
}

static int64_t
op_count(void)
{
	sqlite3_stmt	*st;
	int64_t		 n;

	assert_int_equal(sqlite3_prepare_v2(op, "SELECT count(*) FROM chains",
	    -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void
insert_chain(const char *name)
{
	static struct store_stmt s = { "INSERT INTO chains (name, format, "
	    "block_time, backfill_from, finality_depth) VALUES (?, "
	    "'quantus', 1000, 0, 100)", NULL, NULL };

	store_run(store_bind(&s, "t", name));
}

static int
setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/cw-test-store.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/chainwatch.db", dir);
	loop = ev_default_loop(0);
	assert_int_equal(store_open(path, 0, loop), 0);
	store_set_hooks(on_rollback, on_resume);
	assert_int_equal(sqlite3_open(path, &op), SQLITE_OK);
	sqlite3_busy_timeout(op, 5000);
	return 0;
}

static int
teardown(void **state)
{
	char	f[128];

	sqlite3_close(op);
	store_close();
	for (const char *sfx = ""; sfx != NULL;
	    sfx = *sfx == '\0' ? "-wal" : strcmp(sfx, "-wal") == 0 ?
	    "-shm" : NULL) {
		snprintf(f, sizeof(f), "%s%s", path, sfx);
		(void)unlink(f);
	}
	(void)rmdir(dir);
	return 0;
}

static void
test_writes(void **state)
{
	const char	*why;

	assert_int_equal(store_blocked(&why, NULL), STORE_OK);
	assert_true(store_ready());
	insert_chain("one");
	store_flush();
	assert_int_equal(op_count(), 1);
	assert_int_equal(rollbacks, 0);
}

static void
test_locked(void **state)
{
	const char	*why;
	uint64_t	 since;

	op_exec("BEGIN IMMEDIATE");
	/* Blocked: no transaction, and why. */
	assert_false(store_ready());
	assert_int_equal(store_blocked(&why, &since), STORE_LOCKED);
	assert_non_null(strstr(why, "locked by another process"));
	assert_true(since > 0);
	assert_false(store_ready());

	/* Work that did not ask: skipped, and the owners told to reload. */
	rollbacks = resumes = 0;
	insert_chain("lost");
	run_for(0.01);
	assert_int_equal(rollbacks, 1);
	assert_int_equal(resumes, 0);

	/* Still held: the retries go on, nothing resumes. */
	run_for(0.3);
	assert_int_equal(resumes, 0);
	assert_int_equal(store_blocked(NULL, NULL), STORE_LOCKED);

	/* Gone: it resumes by itself, with the transaction open. */
	op_exec("COMMIT");
	run_for(10);
	assert_int_equal(resumes, 1);
	assert_int_equal(store_blocked(NULL, NULL), STORE_OK);
	assert_true(store_ready());
	insert_chain("two");
	store_flush();
	/* "lost" was reported lost, not written behind anyone's back. */
	assert_int_equal(op_count(), 2);
	assert_int_equal(rollbacks, 1);
}

/*
 * At exit: what the batch holds is committed; with the store blocked the
 * last flush returns at once with nothing written.
 */
static void
test_last_flush(void **state)
{
	assert_true(store_ready());
	insert_chain("three");
	store_flush_last(100);
	assert_int_equal(op_count(), 3);

	op_exec("BEGIN IMMEDIATE");
	assert_false(store_ready());
	insert_chain("never");
	store_flush_last(100);
	op_exec("COMMIT");
	assert_int_equal(op_count(), 3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writes),
		cmocka_unit_test(test_locked),
		cmocka_unit_test(test_last_flush),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
