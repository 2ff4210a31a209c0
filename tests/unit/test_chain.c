/*
 * Following a chain on crafted branches, in an in-memory store: the
 * canonical chain is the best head's ancestry, a reorg walks back to the
 * common ancestor and moves the standings (blocks and work) with it, in
 * both directions; a reorg whose branch lacks a block waits for it and
 * then happens whole; blocks deeper than finality are final; a hole
 * becomes catch-up work.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "sup_chain.h"
#include "sup_queue.h"
#include "sup_store.h"

static struct chain	*ch;
static sqlite3		*ro;	/* a second connection, as the CLI would */

/* Block n of branch b: its hash names both, its parent is (b, n - 1). */
static void
mkhash(uint8_t h[32], int branch, int64_t n)
{
	memset(h, 0, 32);
	h[0] = (uint8_t)branch;
	memcpy(h + 8, &n, sizeof(n));
}

static void
mkheader(struct proto_header *h, int branch, int64_t n, int parent_branch,
    int miner)
{
	memset(h, 0, sizeof(*h));
	mkhash(h->hash, branch, n);
	if (n > 0)
		mkhash(h->parent, parent_branch, n - 1);
	h->number = (uint64_t)n;
	h->has_miner = miner != 0;
	memset(h->miner, miner, 32);
}

static void
head(int branch, int64_t n, int parent_branch, int miner)
{
	struct proto_head	hd;

	memset(&hd, 0, sizeof(hd));
	hd.kind = HEAD_NEW;
	hd.seen_ms = 1000 + (uint64_t)n;
	mkheader(&hd.h, branch, n, parent_branch, miner);
	sup_chain_head(ch, 0, &hd);
}

/* A header fetched as catch-up work. */
static void
fetched(int branch, int64_t n, int parent_branch, int miner)
{
	struct proto_header	h;

	mkheader(&h, branch, n, parent_branch, miner);
	sup_chain_fetched(ch, 0, &h);
}

static int64_t
q(const char *sql)
{
	sqlite3_stmt	*st;
	int64_t		 v = -1;

	store_flush();
	assert_int_equal(sqlite3_prepare_v2(ro, sql, -1, &st, NULL),
	    SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int
canonical_branch(int64_t n)
{
	char	sql[128];

	snprintf(sql, sizeof(sql), "SELECT instr(x'01020304', substr(hash, 1, 1)) "
	    "FROM blocks WHERE number = %lld AND canonical = 1", (long long)n);
	return (int)q(sql);
}

static int64_t
miner_blocks(int miner, const char *col)
{
	char	sql[160];

	snprintf(sql, sizeof(sql), "SELECT %s FROM standings WHERE "
	    "substr(miner, 1, 1) = x'%02x'", col, miner);
	return q(sql);
}

static void
work(int branch, int64_t n, uint64_t diff)
{
	uint8_t	h[32], d[64];

	mkhash(h, branch, n);
	memset(d, 0, sizeof(d));
	memcpy(d, &diff, sizeof(diff));
	sup_chain_state(ch, h, d, 1700000000000LL + n);
}

static int
setup(void **state)
{
	struct conf	*conf = conf_load_string("t", "[chain t]\n"
	    "endpoint = e http://127.0.0.1:1 ws://127.0.0.1:1\n");

	assert_int_equal(conf->n_errors, 0);
	assert_int_equal(store_open("file:chaintest?mode=memory&cache=shared",
	    0, ev_default_loop(0)), 0);
	store_set_precommit(sup_chains_flush);
	assert_int_equal(sqlite3_open_v2("file:chaintest?mode=memory&"
	    "cache=shared", &ro, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL),
	    SQLITE_OK);
	sup_chains_load(conf);
	queue_init();
	ch = sup_chain_find("t");
	assert_non_null(ch);
	conf_free(conf);
	return 0;
}

static int
teardown(void **state)
{
	sqlite3_close(ro);
	store_close();
	sup_chains_free();
	return 0;
}

static void
test_reorg_and_back(void **state)
{
	/* Branch 1: blocks 0..10, miners 1 and 2 alternating. */
	head(1, 0, 0, 0);
	for (int64_t n = 1; n <= 10; n++)
		head(1, n, 1, n % 2 ? 1 : 2);
	for (int64_t n = 1; n <= 10; n++)
		work(1, n, 100);
	assert_int_equal(q("SELECT count(*) FROM blocks WHERE canonical = 1"),
	    11);
	assert_int_equal(miner_blocks(1, "blocks"), 5);
	assert_int_equal(miner_blocks(2, "blocks"), 5);
	assert_int_equal(q("SELECT sum(CAST(work AS INTEGER)) FROM "
	    "standings"), 1000);

	/* Branch 2 forks after block 7 and grows to 11, all by miner 3. */
	for (int64_t n = 8; n <= 11; n++)
		head(2, n, n == 8 ? 1 : 2, 3);
	for (int64_t n = 8; n <= 11; n++)
		work(2, n, 1000);
	for (int64_t n = 0; n <= 7; n++)
		assert_int_equal(canonical_branch(n), n == 0 ? 1 : 1);
	for (int64_t n = 8; n <= 11; n++)
		assert_int_equal(canonical_branch(n), 2);
	assert_int_equal(q("SELECT count(*) FROM blocks WHERE canonical = 1"),
	    12);
	/* Blocks 8, 9, 10 (miners 2, 1, 2) left; 4 of miner 3 came. */
	assert_int_equal(miner_blocks(1, "blocks"), 4);
	assert_int_equal(miner_blocks(2, "blocks"), 3);
	assert_int_equal(miner_blocks(3, "blocks"), 4);
	assert_int_equal(q("SELECT work FROM standings WHERE "
	    "substr(miner, 1, 1) = x'03'"), 4000);
	assert_int_equal(q("SELECT work FROM standings WHERE "
	    "substr(miner, 1, 1) = x'02'"), 300);
	assert_int_equal(q("SELECT depth FROM reorgs"), 3);
	assert_int_equal(q("SELECT ancestor_number FROM reorgs"), 7);

	/* Branch 1 comes back, longer: 11 and 12 by miner 4. */
	head(1, 11, 1, 4);
	assert_int_equal(canonical_branch(11), 2);	/* not longer yet */
	head(1, 12, 1, 4);
	for (int64_t n = 8; n <= 12; n++)
		assert_int_equal(canonical_branch(n), 1);
	assert_int_equal(miner_blocks(3, "blocks"), 0);
	assert_int_equal(q("SELECT work FROM standings WHERE "
	    "substr(miner, 1, 1) = x'03'"), 0);
	assert_int_equal(miner_blocks(4, "blocks"), 2);
	assert_int_equal(miner_blocks(2, "blocks"), 5);
	assert_int_equal(q("SELECT count(*) FROM reorgs"), 2);
	assert_int_equal(q("SELECT max(depth) FROM reorgs"), 4);
	assert_int_equal(q("SELECT last_number FROM standings WHERE "
	    "substr(miner, 1, 1) = x'01'"), 9);
}

static void
test_finality(void **state)
{
	/* Branch 1 up to 130: blocks up to 30 are final (depth 100). */
	for (int64_t n = 13; n <= 130; n++)
		head(1, n, 1, 5);
	assert_int_equal(q("SELECT final_number FROM chains"), 30);
	assert_int_equal(q("SELECT max(number) FROM blocks WHERE final = 1"),
	    30);
	assert_int_equal(q("SELECT count(*) FROM blocks WHERE final = 1 AND "
	    "canonical = 0"), 0);
	assert_int_equal(q("SELECT sum(final_blocks) FROM standings"), 31);
}

/*
 * A best head whose branch lacks a block at a height the chain has: the
 * switch waits for that block, then happens whole.
 */
static void
test_deferred_reorg(void **state)
{
	head(4, 131, 4, 7);
	assert_int_equal(q("SELECT best_number FROM chains"), 130);
	assert_int_equal(canonical_branch(130), 1);
	assert_int_equal(q("SELECT count(*) FROM blocks WHERE number = 131 "
	    "AND canonical = 1"), 0);
	assert_int_equal(q("SELECT count(*) FROM queue WHERE kind = 'parent' "
	    "AND block_number = 130"), 1);
	assert_int_equal(q("SELECT count(*) FROM reorgs"), 2);

	fetched(4, 130, 1, 7);
	assert_int_equal(q("SELECT best_number FROM chains"), 131);
	assert_int_equal(canonical_branch(130), 4);
	assert_int_equal(canonical_branch(131), 4);
	assert_int_equal(canonical_branch(129), 1);
	assert_int_equal(miner_blocks(7, "blocks"), 2);
	assert_int_equal(q("SELECT count(*) FROM reorgs"), 3);
	assert_int_equal(q("SELECT depth FROM reorgs ORDER BY id DESC"), 1);
	assert_int_equal(q("SELECT ancestor_number FROM reorgs ORDER BY id "
	    "DESC"), 129);
}

static void
test_hole(void **state)
{
	uint8_t	parent[32];

	/* Block 200 arrives, its parent unknown: 132..198 by number, 199 by
	 * hash (131 is branch 4's). */
	head(1, 200, 1, 6);
	mkhash(parent, 1, 199);
	assert_int_equal(canonical_branch(200), 1);
	assert_int_equal(q("SELECT count(*) FROM queue WHERE kind = 'parent' "
	    "AND block_number = 199"), 1);
	assert_int_equal(q("SELECT min(range_from) FROM queue WHERE "
	    "kind = 'headers'"), 132);
	assert_int_equal(q("SELECT max(range_to) FROM queue WHERE "
	    "kind = 'headers'"), 198);
	assert_int_equal(q("SELECT sum(range_to - range_from + 1) FROM queue "
	    "WHERE kind = 'headers'"), 67);
	/* The same hole again adds nothing. */
	head(1, 200, 1, 6);
	assert_int_equal(q("SELECT count(*) FROM queue WHERE kind IN "
	    "('parent', 'headers') AND coalesce(block_number, range_to) > 131"),
	    2);
	(void)parent;
}

/*
 * `synchronous` changes on the open store, a batch open or not (a reload
 * applies it between transactions), and reads back as set.
 */
static void
test_synchronous(void **state)
{
	store_write();
	assert_int_equal(store_synchronous(1), 2);
	assert_int_equal(store_synchronous(0), 1);
	assert_int_equal(store_synchronous(1), 2);
	store_write();
	store_flush();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reorg_and_back),
		cmocka_unit_test(test_finality),
		cmocka_unit_test(test_deferred_reorg),
		cmocka_unit_test(test_hole),
		cmocka_unit_test(test_synchronous),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
