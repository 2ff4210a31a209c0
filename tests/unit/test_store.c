/*
 * The store against a real SQLite file locked by a second connection, as
 * an operator's sqlite3 would: it blocks instead of dying, says why, skips
 * and reports writes made meanwhile (the rollback hook), and resumes by
 * itself once the lock is gone (the resume hook).  A store of schema
 * version 4, whose standings counted the genesis, is recounted when
 * migrated.  Checkpoints run in the store's own thread, not in a commit.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "schema.h"
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

/*
 * A commit that leaves more than the threshold in the WAL wakes the
 * checkpoint thread, which copies it into the database file: the file
 * grows by it with no other checkpoint run.
 */
static void
test_checkpoint(void **state)
{
	static struct store_stmt s = { "INSERT INTO pad VALUES "
	    "(zeroblob(3000))", NULL, NULL };
	struct stat	 sb;
	int		 waited = 0;

	assert_int_equal(store_checkpointed(NULL), 0);
	op_exec("CREATE TABLE pad (x BLOB)");
	assert_int_equal(stat(path, &sb), 0);
	assert_true(sb.st_size < 1024 * 1024);
	assert_true(store_ready());
	for (int i = 0; i < 2000; i++)
		store_run(store_bind(&s, ""));
	store_flush();
	while (store_checkpointed(NULL) < 2000 && waited++ < 6000)
		usleep(10000);
	assert_true(store_checkpointed(NULL) >= 2000);
	assert_int_equal(stat(path, &sb), 0);
	assert_true(sb.st_size > 2000 * 3000);
}

/* Rows of 3000 bytes, one page each, in one transaction. */
static void
pad_rows(int n)
{
	static struct store_stmt s = { "INSERT INTO pad VALUES "
	    "(zeroblob(3000))", NULL, NULL };

	assert_true(store_ready());
	for (int i = 0; i < n; i++)
		store_run(store_bind(&s, ""));
	store_flush();
}

/*
 * A commit that finds all but a few pages of the WAL copied by the thread
 * copies the rest itself (so that the WAL can start over while a
 * backfill keeps writing: the thread alone always trails).  A reader's
 * snapshot keeps this WAL from starting over by itself meanwhile.
 */
static void
test_wal_finish(void **state)
{
	long long	before = store_checkpointed(NULL), by_loop, loop_after;
	sqlite3_stmt	*st;
	int		 waited = 0;

	pad_rows(2000);
	assert_int_equal(sqlite3_exec(op, "BEGIN", NULL, NULL, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(op, "SELECT count(*) FROM pad",
	    -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	sqlite3_finalize(st);
	while (store_checkpointed(NULL) < before + 2000 && waited++ < 6000)
		usleep(10000);
	assert_true(store_checkpointed(NULL) >= before + 2000);
	(void)store_checkpointed(&by_loop);
	pad_rows(5);
	(void)store_checkpointed(&loop_after);
	assert_int_equal(loop_after, by_loop + 1);
	op_exec("COMMIT");
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

/* A text column of the store's one row that matches where. */
static char *
op_text(const char *sql)
{
	sqlite3_stmt	*st;
	char		*v = NULL;

	assert_int_equal(sqlite3_prepare_v2(op, sql, -1, &st, NULL),
	    SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

static void
assert_text(const char *sql, const char *want)
{
	char	*got = op_text(sql);

	if (want == NULL)
		assert_null(got);
	else {
		assert_non_null(got);
		assert_string_equal(got, want);
	}
	free(got);
}

/* The store is at this chainwatchd's schema version. */
static void
assert_current(void)
{
	char	v[24];

	snprintf(v, sizeof(v), "%zu", schema_version);
	assert_text("PRAGMA user_version", v);
}

/*
 * Version 4 counted a canonical genesis under x''; migration 5 counts it
 * nowhere: x'' keeps the later blocks without a miner, exactly, and a
 * chain whose only x'' block was its genesis has no x'' row left.  The
 * miners' rows are not touched.
 */
#define Z8	"0000000000000000"
#define Z31	Z8 Z8 Z8 "00000000000000"
#define Z32	Z8 Z8 Z8 Z8
#define Z55	Z32 Z8 Z8 "00000000000000"
#define Z63	Z32 Z31

/*
 * A store that an older daemon left at schema version v, with rows, in a
 * new temporary directory; then opened by the store module (which
 * migrates it) and by the operator's connection.
 */
static void
store_from_version(size_t v, const char *rows)
{
	sqlite3	*old;
	char	 sql[64];
	size_t	 i;

	snprintf(dir, sizeof(dir), "/tmp/cw-test-store.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/chainwatch.db", dir);
	assert_int_equal(sqlite3_open(path, &old), SQLITE_OK);
	for (i = 0; i < v; i++)
		assert_int_equal(sqlite3_exec(old, schema_migrations[i], NULL,
		    NULL, NULL), SQLITE_OK);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %zu", v);
	assert_int_equal(sqlite3_exec(old, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(old, rows, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(old);
	assert_int_equal(store_open(path, 0, ev_default_loop(0)), 0);
	assert_int_equal(sqlite3_open(path, &op), SQLITE_OK);
}

static void
test_migrate_genesis(void **state)
{
	/* Difficulties 5 (genesis), 7, 2^64 + 11 and 13: sums past 64 bits;
	 * migration 8 then credits each block with its parent's. */
	store_from_version(4,
	    "INSERT INTO chains (id, name, format, block_time,"
	    "  finality_depth) VALUES (1, 'p', 'quantus', 1000, 1),"
	    "  (2, 'q', 'quantus', 1000, 1);"
	    "INSERT INTO miners VALUES (x'" Z32 "', 'a');"
	    "INSERT INTO blocks (chain_id, hash, number, parent, miner,"
	    "  difficulty, canonical, final, first_seen) VALUES"
	    "  (1, x'00" Z31 "', 0, x'" Z32 "', NULL,"
	    "    x'05" Z63 "', 1, 1, 1),"
	    "  (1, x'01" Z31 "', 1, x'00" Z31 "',"
	    "    x'" Z32 "', x'07" Z63 "', 1, 1, 1),"
	    "  (1, x'02" Z31 "', 2, x'01" Z31 "', NULL,"
	    "    x'0b0000000000000001" Z55 "', 1, 1, 1),"
	    "  (1, x'03" Z31 "', 3, x'02" Z31 "', NULL,"
	    "    x'0d" Z63 "', 1, 0, 1),"
	    "  (2, x'10" Z31 "', 0, x'" Z32 "', NULL,"
	    "    x'05" Z63 "', 1, 0, 1);"
	    "INSERT INTO standings VALUES"
	    "  (1, x'', 3, 2, '18446744073709551645', 1.8e19,"
	    "    '18446744073709551632', 0, 3),"
	    "  (1, x'" Z32 "', 1, 1, '7', 7.0, '7', 1, 1),"
	    "  (2, x'', 1, 0, '5', 5.0, '0', 0, 0);");
	assert_current();
	assert_text("SELECT blocks || ' ' || final_blocks || ' ' || work ||"
	    " ' ' || final_work || ' ' || first_number || ' ' || last_number"
	    " FROM standings WHERE chain_id = 1 AND miner = x''",
	    "2 1 18446744073709551634 7 2 3");
	assert_text("SELECT work_f = CAST(work AS REAL) FROM standings"
	    " WHERE chain_id = 1 AND miner = x''", "1");
	assert_text("SELECT blocks || ' ' || work || ' ' || first_number"
	    " FROM standings WHERE chain_id = 1 AND miner = x'" Z32 "'",
	    "1 5 1");
	assert_text("SELECT count(*) FROM standings WHERE chain_id = 2",
	    "0");
	/* The views: miners only; the unsealed blocks apart. */
	assert_text("SELECT group_concat(miner) FROM standings_all", "a");
	assert_text("SELECT chain || ' ' || blocks FROM standings_unsealed",
	    "p 2");
	teardown(state);
}

/*
 * Migration 7 adds the seal's columns: blocks stored before keep their
 * rows, unchecked (NULL), and the columns refuse a bound of another
 * length or a verdict other than 0 and 1.
 */
static void
test_migrate_pow(void **state)
{
	store_from_version(6,
	    "INSERT INTO chains (id, name, format, block_time,"
	    "  finality_depth) VALUES (1, 'p', 'quantus', 1000, 1);"
	    "INSERT INTO blocks (chain_id, hash, number, parent, miner,"
	    "  difficulty, timestamp, canonical, final, first_seen) VALUES"
	    "  (1, x'01" Z31 "', 1, x'" Z32 "', x'" Z32 "',"
	    "    x'07" Z63 "', 1000, 1, 1, 1);");
	assert_current();
	assert_text("SELECT count(*) FROM blocks WHERE pow_max IS NULL AND"
	    " proven IS NULL", "1");
	teardown(state);

	/* The columns' checks, on a schema of its own in memory. */
	{
		sqlite3	*m;

		assert_int_equal(sqlite3_open(":memory:", &m), SQLITE_OK);
		for (size_t i = 0; i < schema_version; i++)
			assert_int_equal(sqlite3_exec(m, schema_migrations[i],
			    NULL, NULL, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_exec(m, "INSERT INTO chains (id, name,"
		    " format, block_time, finality_depth) VALUES (1, 'p',"
		    " 'quantus', 1000, 1); INSERT INTO blocks (chain_id, hash,"
		    " number, parent, first_seen) VALUES (1, x'01" Z31 "', 1,"
		    " x'" Z32 "', 1)", NULL, NULL, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_exec(m, "UPDATE blocks SET proven = 2",
		    NULL, NULL, NULL), SQLITE_CONSTRAINT);
		assert_int_equal(sqlite3_exec(m, "UPDATE blocks SET pow_max ="
		    " x'" Z31 "'", NULL, NULL, NULL), SQLITE_CONSTRAINT);
		assert_int_equal(sqlite3_exec(m, "UPDATE blocks SET proven = 1,"
		    " pow_max = x'07" Z63 "'", NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(m);
	}
}

/* Whether the plan of sql (EXPLAIN QUERY PLAN) says what. */
static int
plan_says(const char *sql, const char *what)
{
	sqlite3_stmt	*st;
	char		 q[1024];
	int		 found = 0;

	snprintf(q, sizeof(q), "EXPLAIN QUERY PLAN %s", sql);
	assert_int_equal(sqlite3_prepare_v2(op, q, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		if (strstr((const char *)sqlite3_column_text(st, 3), what))
			found = 1;
	sqlite3_finalize(st);
	return found;
}

/*
 * Migration 6 puts blocks_window in place of blocks_time; the blocks are
 * kept, and a window's standings (as src/view_standings.c reads them) and
 * its earliest block read that index alone, without ANALYZE.
 */
static void
test_migrate_window(void **state)
{
	store_from_version(5,
	    "INSERT INTO chains (id, name, format, block_time,"
	    "  finality_depth) VALUES (1, 'p', 'quantus', 1000, 1);"
	    "INSERT INTO blocks (chain_id, hash, number, parent, miner,"
	    "  difficulty, timestamp, canonical, final, first_seen) VALUES"
	    "  (1, x'01" Z31 "', 1, x'" Z32 "', x'" Z32 "',"
	    "    x'07" Z63 "', 1000, 1, 1, 1),"
	    "  (1, x'02" Z31 "', 2, x'01" Z31 "', x'" Z32 "',"
	    "    x'07" Z63 "', 2000, 1, 0, 1),"
	    "  (1, x'03" Z31 "', 2, x'01" Z31 "', x'" Z32 "',"
	    "    x'07" Z63 "', 2100, 0, 0, 1);");
	assert_current();
	assert_text("SELECT group_concat(name) FROM sqlite_schema WHERE"
	    " name IN ('blocks_time', 'blocks_window')", "blocks_window");
	assert_text("SELECT count(*) || ' ' || sum(canonical) FROM blocks",
	    "3 2");
	assert_text("SELECT count(*) FROM blocks INDEXED BY blocks_window"
	    " WHERE chain_id = 1 AND canonical = 1 AND timestamp >= 0", "2");
	assert_true(plan_says("SELECT coalesce(miner, x''), count(*),"
	    " sum(final), max(work), min(number), max(number)"
	    " FROM blocks WHERE chain_id = 1 AND canonical = 1 AND"
	    " +number > 0 AND timestamp >= 1500 GROUP BY 1",
	    "COVERING INDEX blocks_window"));
	assert_true(plan_says("SELECT timestamp, miner, work FROM blocks"
	    " WHERE chain_id = 1 AND canonical = 1 AND +number > 0 AND"
	    " miner IS NOT NULL AND timestamp IS NOT NULL"
	    " ORDER BY timestamp, number LIMIT 1",
	    "COVERING INDEX blocks_window"));
	assert_false(plan_says("SELECT timestamp, miner, work FROM blocks"
	    " WHERE chain_id = 1 AND canonical = 1 AND +number > 0 AND"
	    " miner IS NOT NULL AND timestamp IS NOT NULL"
	    " ORDER BY timestamp, number LIMIT 1", "TEMP B-TREE"));
	teardown(state);
}

/*
 * Migration 8 credits each block with the difficulty at its parent:
 * block 1 with the genesis's, a block whose parent's is not known with
 * nothing, a branch block with its own parent's; the standings are
 * counted again from the canonical blocks, exactly.
 */
static void
test_migrate_work(void **state)
{
	store_from_version(7,
	    "INSERT INTO chains (id, name, format, block_time,"
	    "  finality_depth) VALUES (1, 'p', 'quantus', 1000, 1);"
	    "INSERT INTO miners VALUES (x'" Z32 "', 'a'), (x'01" Z31 "', 'b');"
	    "INSERT INTO blocks (chain_id, hash, number, parent, miner,"
	    "  difficulty, difficulty_f, canonical, final, first_seen) VALUES"
	    "  (1, x'00" Z31 "', 0, x'" Z32 "', NULL, x'05" Z63 "', 5, 1, 1, 1),"
	    "  (1, x'01" Z31 "', 1, x'00" Z31 "', x'" Z32 "',"
	    "    x'0b0000000000000001" Z55 "', 1.8e19, 1, 1, 1),"
	    "  (1, x'02" Z31 "', 2, x'01" Z31 "', x'01" Z31 "', NULL, NULL,"
	    "    1, 0, 1),"
	    "  (1, x'03" Z31 "', 3, x'02" Z31 "', x'" Z32 "', x'0d" Z63 "',"
	    "    13, 1, 0, 1),"
	    "  (1, x'12" Z31 "', 2, x'01" Z31 "', x'" Z32 "', x'09" Z63 "',"
	    "    9, 0, 0, 1);"
	    "INSERT INTO standings VALUES"
	    "  (1, x'" Z32 "', 2, 1, '18446744073709551640', 1.8e19,"
	    "    '18446744073709551627', 1, 3),"
	    "  (1, x'01" Z31 "', 1, 0, '0', 0, '0', 2, 2);");
	assert_current();
	assert_text("SELECT group_concat(number || ':' || hex(substr(work, 1,"
	    " 9)) || ':' || coalesce(work_f, '-'), ' ') FROM"
	    " (SELECT * FROM blocks ORDER BY number, hash)",
	    "0::- 1:050000000000000000:5.0 2:0B0000000000000001:1.8e+19"
	    " 2:0B0000000000000001:1.8e+19 3::-");
	/* a: #1 (5) and #3 (unknown), #1 final; b: #2 (2^64 + 11). */
	assert_text("SELECT blocks || ' ' || final_blocks || ' ' || work ||"
	    " ' ' || final_work || ' ' || work_f || ' ' || first_number ||"
	    " ' ' || last_number FROM standings WHERE miner = x'" Z32 "'",
	    "2 1 5 5 5.0 1 3");
	assert_text("SELECT blocks || ' ' || work || ' ' || (work_f ="
	    " CAST(work AS REAL)) FROM standings WHERE miner = x'01" Z31 "'",
	    "1 18446744073709551627 1");
	assert_text("SELECT group_concat(miner || ' ' || work_f) FROM"
	    " standings_all", "a 5.0,b 1.84467440737096e+19");
	/* The column refuses a work of another length. */
	assert_int_equal(sqlite3_exec(op, "UPDATE blocks SET work = x'05'",
	    NULL, NULL, NULL), SQLITE_CONSTRAINT);
	teardown(state);
}

/*
 * Migration 9 counts each endpoint's blocks whose seal failed, from the
 * blocks it served first; an endpoint that served none has 0.
 */
static void
test_migrate_seals_failed(void **state)
{
	store_from_version(8,
	    "INSERT INTO chains (id, name, format, block_time,"
	    "  finality_depth) VALUES (1, 'p', 'quantus', 1000, 1);"
	    "INSERT INTO endpoints (id, chain_id, name, rpc_url, ws_url,"
	    "  position) VALUES (1, 1, 'a', 'http://a', 'ws://a', 0),"
	    "  (2, 1, 'b', 'http://b', 'ws://b', 1);"
	    "INSERT INTO blocks (chain_id, hash, number, parent, proven,"
	    "  canonical, final, first_seen, first_endpoint_id) VALUES"
	    "  (1, x'01" Z31 "', 1, x'" Z32 "', 0, 0, 0, 1, 1),"
	    "  (1, x'02" Z31 "', 1, x'" Z32 "', 0, 0, 0, 1, 1),"
	    "  (1, x'03" Z31 "', 1, x'" Z32 "', 1, 1, 0, 1, 1),"
	    "  (1, x'04" Z31 "', 2, x'03" Z31 "', NULL, 1, 0, 1, 2);");
	assert_current();
	assert_text("SELECT group_concat(name || ' ' || seals_failed, ', ')"
	    " FROM endpoints", "a 2, b 0");
	assert_text("SELECT count(*) FROM chains WHERE rule_doubt IS NULL",
	    "1");
	teardown(state);
}

/*
 * Version 10 keeps blocks in a table of rowids found by hash through an
 * index: every row and column comes through, a hash is still one block
 * a chain, and the views over blocks still read it.
 */
static void
test_migrate_rowid(void **state)
{
	store_from_version(9,
	    "INSERT INTO chains (id, name, format, block_time,"
	    "  finality_depth) VALUES (1, 'p', 'quantus', 1000, 1);"
	    "INSERT INTO miners (account, ss58) VALUES (x'" Z32 "', 'm');"
	    "INSERT INTO blocks (chain_id, hash, number, parent, miner,"
	    "  timestamp, proven, canonical, final, first_seen, work_f,"
	    "  cross_read) VALUES"
	    "  (1, x'03" Z31 "', 1, x'" Z32 "', x'" Z32 "', 5, 1, 1, 1, 7,"
	    "  2.5, 0),"
	    "  (1, x'02" Z31 "', 1, x'" Z32 "', NULL, 4, 0, 0, 0, 8, NULL,"
	    "  NULL),"
	    "  (1, x'04" Z31 "', 2, x'03" Z31 "', x'" Z32 "',"
	    "  (strftime('%s', 'now') - 60) * 1000, NULL, 1, 0, 9, 1.5, 1);");
	assert_current();
	assert_text("SELECT group_concat(hex(substr(hash, 1, 1)) || number ||"
	    " coalesce(timestamp > 0, '-') || coalesce(proven, '-') ||"
	    " canonical || final || first_seen || coalesce(work_f, '-') ||"
	    " coalesce(cross_read, '-'), ' ') FROM (SELECT * FROM blocks"
	    " ORDER BY hash)", "02110008-- 031111172.50 0421-1091.51");
	assert_text("SELECT count(*) FROM pragma_index_list('blocks') WHERE"
	    " name IN ('blocks_hash', 'blocks_canonical', 'blocks_number',"
	    " 'blocks_miner', 'blocks_window', 'blocks_unproven')", "6");
	assert_text("SELECT sql LIKE '%WITHOUT ROWID%' FROM sqlite_master"
	    " WHERE name = 'blocks'", "0");
	assert_text("SELECT blocks || ' ' || work_f FROM standings_24h",
	    "1 1.5");
	assert_int_equal(sqlite3_exec(op, "INSERT INTO blocks (chain_id, hash,"
	    " number, parent, first_seen) VALUES (1, x'02" Z31 "', 3, x'"
	    Z32 "', 1)", NULL, NULL, NULL), SQLITE_CONSTRAINT);
	teardown(state);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writes),
		cmocka_unit_test(test_checkpoint),
		cmocka_unit_test(test_wal_finish),
		cmocka_unit_test(test_locked),
		cmocka_unit_test(test_last_flush),
	};
	const struct CMUnitTest migrations[] = {
		cmocka_unit_test(test_migrate_genesis),
		cmocka_unit_test(test_migrate_window),
		cmocka_unit_test(test_migrate_pow),
		cmocka_unit_test(test_migrate_work),
		cmocka_unit_test(test_migrate_seals_failed),
		cmocka_unit_test(test_migrate_rowid),
	};
	int	rc;

	rc = cmocka_run_group_tests(tests, setup, teardown);
	return rc | cmocka_run_group_tests(migrations, NULL, NULL);
}
