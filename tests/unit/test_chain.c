/*
 * Following a chain on crafted branches, in an in-memory store: the
 * canonical chain is the best head's ancestry, a reorg walks back to the
 * common ancestor and moves the standings (blocks and work) with it, in
 * both directions; a reorg whose branch lacks a block waits for it and
 * then happens whole; blocks deeper than finality are final; a hole
 * becomes catch-up work, a window of ranges at a time.  Heads are claims
 * until they connect: a forged far head, an ancestry that never resolves,
 * a number that is not its parent's + 1, a branch below finality and a
 * finalized head off the chain are each judged a lie, at a bounded cost.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "sup_chain.h"
#include "sup_cross.h"
#include "sup_queue.h"
#include "sup_store.h"
#include "sup_window.h"
#include "util.h"

/* The verdicts the chain's calls returned since the last drain. */
static struct chain_verdicts	tv;

static struct chain	*ch;
static struct chain	*cu, *chh, *cs;	/* quantus, quantus, substrate */
static struct chain	*cr;		/* quantus, its first head reorged */
static struct chain	*c2, *cl, *cd;	/* two endpoints each: first heads */
static struct chain	*clate;		/* two endpoints: a parent comes late */
static struct chain	*cn;		/* substrate, for unsealed blocks */
static struct chain	*csy, *c1, *cf, *cg, *cpair; /* far heads */
static struct chain	*cseal;		/* quantus: seals checked */
static struct chain	*ccross;	/* two endpoints: difficulties disputed */
static struct chain	*cthree;	/* three: a third read decides */
static struct chain	*ctime;		/* two, at 12 s: timestamps judged */
static struct chain	*crule;		/* two, at 12 s: the retarget rule */
static struct chain	*cdoubt;	/* quantus: every seal fails */
static struct chain	*croom;		/* one endpoint: claims evicted for room */
static sqlite3		*ro;	/* a second connection, as the CLI would */
/*
 * The tests' clock (wall ms): the chain's policy reads no clock of its
 * own, so time passes only when a test moves this.
 */
static uint64_t		 clk = UINT64_C(1767225600000);	/* 2026-01-01 */

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
	sup_chain_head(ch, 0, &hd, clk, &tv);
}

/* A header fetched as catch-up work. */
static void
fetched(int branch, int64_t n, int parent_branch, int miner)
{
	struct proto_header	h;

	mkheader(&h, branch, n, parent_branch, miner);
	sup_chain_fetched(ch, 0, &h, clk, &tv);
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
	sup_chain_state(ch, 0, h, d, 1700000000000LL + n * 1000, clk, &tv);
}

static int
setup(void **state)
{
	struct conf	*conf = conf_load_string("t", "[chain t]\n"
	    "endpoint = e http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "[chain u]\nblock_time = 1s\nbackfill_from = 900\n"
	    "endpoint = eu http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "[chain h]\nblock_time = 1s\n"
	    "endpoint = eh http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "[chain s]\nformat = substrate\nblock_time = 1s\n"
	    "endpoint = es http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "[chain r]\nblock_time = 1s\n"
	    "endpoint = er http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "[chain two]\nblock_time = 1s\n"
	    "endpoint = t1 http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "endpoint = t2 http://127.0.0.1:2 ws://127.0.0.1:2\n"
	    "[chain lone]\nblock_time = 1s\n"
	    "endpoint = l1 http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "endpoint = l2 http://127.0.0.1:2 ws://127.0.0.1:2\n"
	    "[chain dis]\nblock_time = 1s\n"
	    "endpoint = d1 http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "endpoint = d2 http://127.0.0.1:2 ws://127.0.0.1:2\n"
	    "[chain late]\nblock_time = 1s\n"
	    "endpoint = la1 http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "endpoint = la2 http://127.0.0.1:2 ws://127.0.0.1:2\n"
	    "[chain n]\nformat = substrate\nblock_time = 1s\n"
	    "endpoint = en http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "[chain sync]\nblock_time = 1s\nbackfill_from = 450\n"
	    "endpoint = s1 http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "endpoint = s2 http://127.0.0.1:2 ws://127.0.0.1:2\n"
	    "endpoint = s3 http://127.0.0.1:3 ws://127.0.0.1:3\n"
	    "[chain one]\nblock_time = 1s\nbackfill_from = 450\n"
	    "endpoint = o1 http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "[chain liar]\nblock_time = 1s\nbackfill_from = 450\n"
	    "endpoint = f1 http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "[chain gaps]\nblock_time = 1s\nbackfill_from = 450\n"
	    "endpoint = g1 http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "endpoint = g2 http://127.0.0.1:2 ws://127.0.0.1:2\n"
	    "endpoint = g3 http://127.0.0.1:3 ws://127.0.0.1:3\n"
	    "[chain seal]\nblock_time = 1s\n"
	    "endpoint = se http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "[chain cross]\nblock_time = 1s\n"
	    "endpoint = x1 http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "endpoint = x2 http://127.0.0.1:2 ws://127.0.0.1:2\n"
	    "[chain rule]\nblock_time = 12s\ndifficulty_floor = 40\n"
	    "endpoint = ru1 http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "endpoint = ru2 http://127.0.0.1:2 ws://127.0.0.1:2\n"
	    "[chain time]\nblock_time = 12s\n"
	    "endpoint = tm1 http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "endpoint = tm2 http://127.0.0.1:2 ws://127.0.0.1:2\n"
	    "[chain three]\nblock_time = 1s\n"
	    "endpoint = y1 http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "endpoint = y2 http://127.0.0.1:2 ws://127.0.0.1:2\n"
	    "endpoint = y3 http://127.0.0.1:3 ws://127.0.0.1:3\n"
	    "[chain doubt]\nblock_time = 1s\n"
	    "endpoint = de http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "[chain decide]\nblock_time = 1s\n"
	    "endpoint = z1 http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "endpoint = z2 http://127.0.0.1:2 ws://127.0.0.1:2\n"
	    "[chain room]\nblock_time = 1s\nbackfill_from = 450\n"
	    "endpoint = ro http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "[chain pair]\nblock_time = 1s\nbackfill_from = 450\n"
	    "endpoint = p1 http://127.0.0.1:1 ws://127.0.0.1:1\n"
	    "endpoint = p2 http://127.0.0.1:2 ws://127.0.0.1:2\n"
	    "endpoint = p3 http://127.0.0.1:3 ws://127.0.0.1:3\n");

	for (size_t e = 0; e < conf->n_errors; e++)
		fprintf(stderr, "%s\n", conf->errors[e]);
	assert_int_equal(conf->n_errors, 0);
	assert_int_equal(store_open("file:chaintest?mode=memory&cache=shared",
	    0, ev_default_loop(0)), 0);
	store_set_precommit(sup_chains_flush);
	assert_int_equal(sqlite3_open_v2("file:chaintest?mode=memory&"
	    "cache=shared", &ro, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL),
	    SQLITE_OK);
	sup_chains_load(conf, clk);
	queue_init();
	ch = sup_chain_find("t");
	cu = sup_chain_find("u");
	chh = sup_chain_find("h");
	cs = sup_chain_find("s");
	cr = sup_chain_find("r");
	assert_non_null(cr);
	c2 = sup_chain_find("two");
	cl = sup_chain_find("lone");
	cd = sup_chain_find("dis");
	clate = sup_chain_find("late");
	assert_non_null(clate);
	assert_non_null(cd);
	assert_non_null(c2);
	assert_non_null(cl);
	cn = sup_chain_find("n");
	assert_non_null(cn);
	csy = sup_chain_find("sync");
	c1 = sup_chain_find("one");
	cf = sup_chain_find("liar");
	cg = sup_chain_find("gaps");
	cpair = sup_chain_find("pair");
	assert_non_null(cpair);
	croom = sup_chain_find("room");
	assert_non_null(croom);
	cseal = sup_chain_find("seal");
	assert_non_null(cseal);
	crule = sup_chain_find("rule");
	assert_non_null(crule);
	ctime = sup_chain_find("time");
	assert_non_null(ctime);
	cthree = sup_chain_find("three");
	assert_non_null(cthree);
	ccross = sup_chain_find("cross");
	assert_non_null(ccross);
	cdoubt = sup_chain_find("doubt");
	assert_non_null(cdoubt);
	assert_non_null(cf);
	assert_non_null(cg);
	assert_non_null(csy);
	assert_non_null(c1);
	assert_non_null(ch);
	assert_non_null(cu);
	assert_non_null(chh);
	assert_non_null(cs);
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
	/*
	 * Branch 1: blocks 0..10, miners 1 and 2 alternating, difficulty
	 * 100 at each: each block's work is its parent's, block 1's the
	 * genesis's.
	 */
	head(1, 0, 0, 0);
	for (int64_t n = 1; n <= 10; n++)
		head(1, n, 1, n % 2 ? 1 : 2);
	for (int64_t n = 0; n <= 10; n++)
		work(1, n, 100);
	assert_int_equal(q("SELECT count(*) FROM blocks WHERE canonical = 1"),
	    11);
	/* The genesis, minerless, is not counted, not even as unsealed. */
	assert_int_equal(q("SELECT count(*) FROM standings WHERE "
	    "miner = x''"), 0);
	assert_int_equal(q("SELECT sum(blocks) FROM standings"), 10);
	assert_int_equal(miner_blocks(1, "blocks"), 5);
	assert_int_equal(miner_blocks(2, "blocks"), 5);
	assert_int_equal(q("SELECT sum(CAST(work AS INTEGER)) FROM "
	    "standings"), 1000);

	/*
	 * Branch 2 forks after block 7 and grows to 11, all by miner 3,
	 * difficulty 1000 at each.  Its first block met #7's (100); above
	 * it, B9..B11 (3000) weigh against A9..A10 (200).
	 */
	for (int64_t n = 8; n <= 11; n++)
		head(2, n, n == 8 ? 1 : 2, 3);
	assert_int_equal(canonical_branch(11), -1);	/* work not known */
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
	    "substr(miner, 1, 1) = x'03'"), 3100);
	assert_int_equal(q("SELECT work FROM standings WHERE "
	    "substr(miner, 1, 1) = x'02'"), 300);
	assert_int_equal(q("SELECT work FROM standings WHERE "
	    "substr(miner, 1, 1) = x'01'"), 400);
	assert_int_equal(q("SELECT depth FROM reorgs"), 3);
	assert_int_equal(q("SELECT ancestor_number FROM reorgs"), 7);

	/*
	 * Branch 1 comes back, heavier, by miner 4: 11 (work 100) leaves
	 * it lighter; the difficulty at 11 is 3000, so 12 makes it 3300.
	 */
	head(1, 11, 1, 4);
	assert_int_equal(canonical_branch(11), 2);	/* 300 < 3000 */
	work(1, 11, 3000);
	assert_int_equal(canonical_branch(11), 2);
	head(1, 12, 1, 4);				/* 3300 > 3000 */
	work(1, 12, 2000);
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
	/* Blocks 1 to 30: the genesis is final, and no one's. */
	assert_int_equal(q("SELECT sum(final_blocks) FROM standings"), 30);
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
	/* Linked; the switch waits for the work of both branches. */
	assert_int_equal(q("SELECT best_number FROM chains"), 130);
	work(1, 130, 100);
	work(4, 130, 100);
	work(4, 131, 100);
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

/* ---- claims, bounds, fork choice: chains u (quantus), h, s ---- */

static char		 reason[160];

static struct store_stmt s_ep_add = { "INSERT INTO endpoints (id, chain_id, "
    "name, rpc_url, ws_url, position) VALUES (?, ?, ?, 'http://x', "
    "'ws://x', 0)", NULL, NULL };

/* Verdicts of kind k against endpoint ep since the last drain. */
static int
verdicts(int64_t ep, enum chain_verdict_kind k)
{
	int	n = 0;

	for (size_t i = 0; i < tv.n; i++)
		if (tv.v[i].endpoint_id == ep && tv.v[i].kind == k) {
			n++;
			snprintf(reason, sizeof(reason), "%s", tv.v[i].reason);
		}
	tv.n = 0;
	return n;
}

static void
drain(void)
{
	tv.n = 0;
}

/* Every chain's clock, as the daemon's main loop runs it. */
static void
chains_tick(uint64_t now)
{
	struct chain *const	*all;
	size_t			 n;

	all = sup_chains_all(&n);
	for (size_t i = 0; i < n; i++)
		sup_chain_tick(all[i], now, &tv);
}

static int64_t __attribute__((format(printf, 1, 2)))
qf(const char *fmt, ...)
{
	char	sql[512];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	return q(sql);
}

/* A head from endpoint ep, mined by miner. */
static void
hdm(struct chain *c, int64_t ep, int branch, int64_t n, int parent_branch,
    int miner)
{
	struct proto_head	h;

	memset(&h, 0, sizeof(h));
	h.kind = HEAD_NEW;
	h.seen_ms = clk;
	mkheader(&h.h, branch, n, parent_branch, miner);
	sup_chain_head(c, ep, &h, clk, &tv);
}

static void
hd(struct chain *c, int64_t ep, int branch, int64_t n, int parent_branch)
{
	hdm(c, ep, branch, n, parent_branch, 9);
}

static void
fx(struct chain *c, int64_t ep, int branch, int64_t n, int parent_branch)
{
	struct proto_header	h;

	mkheader(&h, branch, n, parent_branch, 9);
	sup_chain_fetched(c, ep, &h, clk, &tv);
}

static void
fwork(struct chain *c, int branch, int64_t n, uint64_t diff)
{
	uint8_t	h[32], d[64];

	mkhash(h, branch, n);
	memset(d, 0, sizeof(d));
	memcpy(d, &diff, sizeof(diff));
	sup_chain_state(c, 0, h, d, 1700000000000LL + n * 1000, clk, &tv);
}

/* Is the canonical set of c one chain, from its lowest block to best? */
static void
assert_chain(struct chain *c)
{
	assert_int_equal(qf("SELECT count(*) FROM blocks b WHERE chain_id = "
	    "%lld AND canonical = 1 AND number > (SELECT min(number) FROM "
	    "blocks WHERE chain_id = b.chain_id AND canonical = 1) AND NOT "
	    "EXISTS (SELECT 1 FROM blocks p WHERE p.chain_id = b.chain_id AND "
	    "p.hash = b.parent AND p.canonical = 1 AND p.number = b.number - 1)",
	    (long long)c->id), 0);
	assert_int_equal(qf("SELECT max(number) FROM blocks WHERE chain_id = "
	    "%lld AND canonical = 1", (long long)c->id), c->best_number);
}

/*
 * Answer c's pending parent items as an endpoint holding branch would:
 * block n's parent is (branch, n - 1), or (base, fork) just above the
 * fork.  Checks the canonical set after each.  Returns how many.
 */
static int
serve_parents(struct chain *c, int64_t ep, int branch, int64_t fork,
    int base, int max)
{
	int	served = 0;

	while (served < max) {
		int64_t	id, n;

		id = qf("SELECT id FROM queue WHERE chain_id = %lld AND kind = "
		    "'parent' AND state = 'pending' ORDER BY id", (long long)c->id);
		if (id < 0)
			break;
		n = qf("SELECT block_number FROM queue WHERE id = %lld",
		    (long long)id);
		assert_int_equal(qf("SELECT substr(block_hash, 1, 1) = x'%02x' "
		    "FROM queue WHERE id = %lld", branch, (long long)id), 1);
		queue_lease(id, ep, clk + 1000);	/* as asked */
		fx(c, ep, branch, n, n - 1 == fork ? base : branch);
		queue_done(id);
		assert_chain(c);
		served++;
	}
	return served;
}

/* Answer c's header ranges, top first as the queue orders them. */
static int64_t
serve_ranges(struct chain *c, int64_t ep, int branch)
{
	int64_t	served = 0;

	for (;;) {
		int64_t	id, from, to;

		id = qf("SELECT id FROM queue WHERE chain_id = %lld AND kind = "
		    "'headers' ORDER BY range_to DESC", (long long)c->id);
		if (id < 0)
			break;
		from = qf("SELECT range_from FROM queue WHERE id = %lld",
		    (long long)id);
		to = qf("SELECT range_to FROM queue WHERE id = %lld",
		    (long long)id);
		queue_lease(id, ep, clk + 1000);
		for (int64_t n = from; n <= to; n++, served++)
			fx(c, ep, branch, n, branch);
		queue_done(id);		/* after, as the scheduler settles */
	}
	return served;
}

/*
 * A head whose parent is not stored is a claim: held, its parent fetched
 * by hash, the gap below by ranges; it becomes best once its ancestry
 * links, the whole gap with it.
 */
static void
test_hole(void **state)
{
	/* Block 200 arrives, its parent (5, 199) unknown; 131 is branch 4's. */
	head(5, 200, 5, 6);
	assert_int_equal(q("SELECT best_number FROM chains WHERE name = 't'"),
	    131);
	assert_int_equal(q("SELECT count(*) FROM blocks WHERE number = 200"),
	    0);
	assert_int_equal(q("SELECT count(*) FROM queue WHERE kind = 'parent' "
	    "AND block_number = 199"), 1);
	chains_tick(clk);
	assert_int_equal(q("SELECT min(range_from) FROM queue WHERE "
	    "kind = 'headers'"), 132);
	assert_int_equal(q("SELECT max(range_to) FROM queue WHERE "
	    "kind = 'headers'"), 199);
	assert_int_equal(q("SELECT sum(range_to - range_from + 1) FROM queue "
	    "WHERE kind = 'headers'"), 68);
	/* The same head again, and the clock again, add nothing. */
	head(5, 200, 5, 6);
	chains_tick(clk);
	assert_int_equal(q("SELECT count(*) FROM queue WHERE kind IN "
	    "('parent', 'headers') AND coalesce(block_number, range_to) > 131"),
	    2);
	/* The ranges come, then the parent: one chain, no reorg. */
	fetched(5, 132, 4, 6);
	for (int64_t n = 133; n <= 199; n++)
		fetched(5, n, 5, 6);
	assert_int_equal(q("SELECT best_number FROM chains WHERE name = 't'"),
	    200);
	assert_int_equal(canonical_branch(200), 0);	/* 5: not 1 to 4 */
	assert_int_equal(q("SELECT count(*) FROM blocks WHERE canonical = 1 "
	    "AND number BETWEEN 131 AND 200"), 70);
	assert_int_equal(q("SELECT count(*) FROM reorgs"), 3);
	assert_chain(ch);
	drain();
}

/*
 * The first head on an empty store is the best (nothing to link to); the
 * chain below comes in a window of ranges.  A forged head far ahead is
 * held, nothing fetched below it, and judged a lie when it never connects.
 */
static void
test_far_head(void **state)
{
	uint64_t	now;

	store_run(store_bind(&s_ep_add, "iit", (int64_t)1, cu->id, "a1"));
	store_run(store_bind(&s_ep_add, "iit", (int64_t)2, cu->id, "a2"));
	hd(cu, 1, 1, 1000, 1);
	assert_int_equal(cu->best_number, 1000);
	chains_tick(clk);
	assert_int_equal(qf("SELECT sum(range_to - range_from + 1) FROM queue "
	    "WHERE chain_id = %lld AND kind = 'headers'", (long long)cu->id),
	    100);	/* backfill_from = 900 */
	assert_int_equal(serve_ranges(cu, 1, 1), 100);
	for (int64_t n = 1001; n <= 1010; n++) {
		hd(cu, 1, 1, n, 1);
		hd(cu, 2, 1, n, 1);
	}
	assert_chain(cu);
	assert_int_equal(qf("SELECT count(*) FROM blocks WHERE chain_id = %lld "
	    "AND canonical = 1", (long long)cu->id), 111);
	assert_int_equal(verdicts(2, CV_CONTRADICTED), 0);

	/*
	 * a2 forges a head a billion blocks ahead, parent unknown; then a
	 * real head, and another forged one: its claims are judged from the
	 * first.
	 */
	hd(cu, 2, 7, 1010 + 1000000000LL, 7);
	now = clk;
	chains_tick(now);
	chains_tick(now + 5000);
	hd(cu, 2, 1, 1010, 1);
	hd(cu, 2, 7, 1011 + 1000000000LL, 7);
	assert_int_equal(verdicts(2, CV_AGREES), 0);
	chains_tick(now + 5000);
	assert_int_equal(cu->best_number, 1010);
	assert_int_equal(qf("SELECT count(*) FROM queue WHERE chain_id = %lld "
	    "AND kind IN ('headers', 'parent')", (long long)cu->id), 0);
	assert_int_equal(qf("SELECT count(*) FROM blocks WHERE chain_id = %lld "
	    "AND number > 1010", (long long)cu->id), 0);
	assert_int_equal(verdicts(2, CV_CONTRADICTED), 0);
	chains_tick(now + 11000);
	assert_int_equal(verdicts(2, CV_CONTRADICTED), 1);
	assert_non_null(strstr(reason, "head #1000001011 0x07000000"));
	assert_non_null(strstr(reason, "never connected"));
	assert_int_equal(cu->n_claims, 0);
	assert_int_equal(cu->best_number, 1010);
}

/*
 * A head whose ancestry the liar invents without end: its parents are
 * fetched by hash a bounded number of steps, nothing is stored, and the
 * claim is judged a lie.
 */
static void
test_unresolvable_parent(void **state)
{
	hd(cu, 2, 8, 1110, 8);	/* within reach: best + 100 */
	assert_int_equal(cu->n_claims, 1);
	assert_int_equal(serve_parents(cu, 2, 8, -1, 8, 1000),
	    CHAIN_CLAIM_STEPS);
	assert_int_equal(qf("SELECT count(*) FROM queue WHERE chain_id = %lld "
	    "AND kind = 'parent'", (long long)cu->id), 0);
	assert_int_equal(qf("SELECT count(*) FROM blocks WHERE chain_id = %lld "
	    "AND substr(hash, 1, 1) = x'08'", (long long)cu->id), 0);
	assert_int_equal(verdicts(2, CV_CONTRADICTED), 0);
	chains_tick(clk + 11000);
	assert_int_equal(verdicts(2, CV_CONTRADICTED), 1);
	assert_non_null(strstr(reason, "head #1110 0x08000000"));
	assert_int_equal(cu->n_claims, 0);
	assert_int_equal(cu->best_number, 1010);
	/* The queue is left with nothing for it either. */
	chains_tick(clk);
	assert_int_equal(qf("SELECT count(*) FROM queue WHERE chain_id = %lld "
	    "AND kind IN ('headers', 'parent')", (long long)cu->id), 0);
}

/* A header whose number is not its parent's + 1 is never stored. */
static void
test_bad_number(void **state)
{
	struct proto_head	h;
	struct proto_header	p;

	/* A head on the best, fifty ahead. */
	memset(&h, 0, sizeof(h));
	h.kind = HEAD_NEW;
	h.seen_ms = clk;
	mkheader(&h.h, 3, 1061, 3, 9);
	mkhash(h.h.parent, 1, 1010);
	sup_chain_head(cu, 2, &h, clk, &tv);
	assert_int_equal(verdicts(2, CV_CONTRADICTED), 1);
	assert_string_equal(reason, "header #1061 0x03000000... is not its "
	    "parent's + 1 (#1010)");
	assert_int_equal(cu->best_number, 1010);
	assert_int_equal(qf("SELECT count(*) FROM blocks WHERE chain_id = %lld "
	    "AND number > 1010", (long long)cu->id), 0);

	/* A claim whose parent, fetched, has another number. */
	hd(cu, 2, 3, 1013, 3);
	mkheader(&p, 3, 1005, 1, 9);
	mkhash(p.hash, 3, 1012);	/* the hash asked for */
	sup_chain_fetched(cu, 2, &p, clk, &tv);
	assert_int_equal(verdicts(2, CV_CONTRADICTED), 1);
	assert_non_null(strstr(reason, "is not its parent's + 1 (#1005)"));
	assert_int_equal(cu->n_claims, 0);
	assert_int_equal(qf("SELECT count(*) FROM blocks WHERE chain_id = %lld "
	    "AND number > 1010", (long long)cu->id), 0);
	assert_int_equal(qf("SELECT count(*) FROM queue WHERE chain_id = %lld "
	    "AND kind = 'parent'", (long long)cu->id), 0);
}

/* A gap of 5000 blocks (after an outage): a window of 2000 at a time. */
static void
test_gap_windows(void **state)
{
	clk += 2000 * 1000;	/* 2000 s pass: the best is that old */
	hd(cu, 1, 1, 6010, 1);
	assert_int_equal(cu->n_claims, 1);
	chains_tick(clk);
	assert_int_equal(qf("SELECT max(range_to) FROM queue WHERE chain_id = "
	    "%lld AND kind = 'headers'", (long long)cu->id), 3010);
	assert_int_equal(qf("SELECT sum(range_to - range_from + 1) FROM queue "
	    "WHERE chain_id = %lld AND kind = 'headers'", (long long)cu->id),
	    CHAIN_WINDOW);
	chains_tick(clk);		/* nothing more */
	assert_int_equal(qf("SELECT sum(range_to - range_from + 1) FROM queue "
	    "WHERE chain_id = %lld AND kind = 'headers'", (long long)cu->id),
	    CHAIN_WINDOW);
	assert_int_equal(serve_ranges(cu, 1, 1), CHAIN_WINDOW);
	assert_int_equal(cu->best_number, 3010);
	assert_chain(cu);
	chains_tick(clk);
	assert_int_equal(qf("SELECT max(range_to) FROM queue WHERE chain_id = "
	    "%lld AND kind = 'headers'", (long long)cu->id), 5010);
	assert_int_equal(serve_ranges(cu, 1, 1), CHAIN_WINDOW);
	assert_int_equal(cu->best_number, 5010);
	chains_tick(clk);
	assert_int_equal(qf("SELECT max(range_to) FROM queue WHERE chain_id = "
	    "%lld AND kind = 'headers'", (long long)cu->id), 6009);
	/* The last range holds the claim's parent: it connects. */
	assert_int_equal(serve_ranges(cu, 1, 1), 999);
	assert_int_equal(cu->best_number, 6010);
	assert_int_equal(cu->n_claims, 0);
	assert_chain(cu);
	assert_int_equal(qf("SELECT count(*) FROM queue WHERE chain_id = %lld "
	    "AND kind IN ('headers', 'parent')", (long long)cu->id), 0);
	assert_int_equal(qf("SELECT count(*) FROM reorgs WHERE chain_id = "
	    "%lld", (long long)cu->id), 0);
	assert_int_equal(verdicts(1, CV_CONTRADICTED), 0);
}

/*
 * A branch 60 deep announced by its head: its parents fetched by hash,
 * the old branch canonical meanwhile, then one switch, one reorg row.
 */
static void
test_deep_reorg(void **state)
{
	hd(cu, 2, 2, 6011, 2);
	assert_int_equal(cu->best_number, 6010);
	assert_int_equal(serve_parents(cu, 2, 2, 5950, 1, 1000), 60);
	/* Linked: the work of neither branch is known; 2 s, then longer. */
	assert_int_equal(cu->best_number, 6010);
	assert_int_equal(qf("SELECT count(*) > 0 FROM queue WHERE chain_id = "
	    "%lld AND kind = 'state' AND 5951 BETWEEN range_from AND range_to",
	    (long long)cu->id), 1);
	assert_int_equal(qf("SELECT count(*) > 0 FROM queue WHERE chain_id = "
	    "%lld AND kind = 'state' AND 6011 BETWEEN range_from AND range_to",
	    (long long)cu->id), 1);
	chains_tick(clk + 1000);
	assert_int_equal(cu->best_number, 6010);
	chains_tick(clk + 2500);
	assert_int_equal(cu->best_number, 6011);
	assert_int_equal(qf("SELECT substr(hash, 1, 1) = x'02' FROM blocks "
	    "WHERE chain_id = %lld AND number = 6011 AND canonical = 1",
	    (long long)cu->id), 1);
	assert_int_equal(qf("SELECT count(*) FROM reorgs WHERE chain_id = "
	    "%lld", (long long)cu->id), 1);
	assert_int_equal(qf("SELECT depth FROM reorgs WHERE chain_id = %lld",
	    (long long)cu->id), 60);
	assert_int_equal(qf("SELECT ancestor_number FROM reorgs WHERE "
	    "chain_id = %lld", (long long)cu->id), 5950);
	assert_int_equal(qf("SELECT endpoint_id FROM reorgs WHERE chain_id = "
	    "%lld", (long long)cu->id), 2);
	assert_int_equal(qf("SELECT substr(new_tip, 1, 1) = x'02' AND "
	    "substr(old_tip, 1, 1) = x'01' FROM reorgs WHERE chain_id = %lld",
	    (long long)cu->id), 1);
	assert_int_equal(qf("SELECT count(*) FROM blocks WHERE chain_id = %lld "
	    "AND canonical = 1 AND number > 5950 AND substr(hash, 1, 1) != "
	    "x'02'", (long long)cu->id), 0);
	assert_chain(cu);
	assert_int_equal(cu->final_number, 6011 - CHAIN_FINALITY);
	assert_int_equal(verdicts(2, CV_CONTRADICTED), 0);
}

/* A branch that forks below finality is a lie, never applied. */
static void
test_below_finality(void **state)
{
	hd(cu, 1, 3, 6012, 3);
	assert_int_equal(serve_parents(cu, 1, 3, 5900, 1, 1000), 111);
	assert_int_equal(cu->best_number, 6011);
	assert_int_equal(verdicts(1, CV_CONTRADICTED), 1);
	assert_non_null(strstr(reason, "would replace final block"));
	assert_int_equal(qf("SELECT count(*) FROM reorgs WHERE chain_id = "
	    "%lld", (long long)cu->id), 1);
	assert_int_equal(qf("SELECT count(*) FROM blocks WHERE chain_id = %lld "
	    "AND canonical = 1 AND substr(hash, 1, 1) = x'03'",
	    (long long)cu->id), 0);
	assert_chain(cu);
}

/*
 * The first head on an empty store is the best over a gap, and nothing is
 * final until the gap links.  The chain reorganises that head away before
 * the gap is filled: the new branch links through the gap and becomes the
 * best, one reorg, never judged below finality (it was, when finality
 * moved by height over the unfilled gap: every later head was refused).
 */
static void
test_first_head_reorged(void **state)
{
	int64_t	id, from, to;

	hd(cr, 1, 1, 300, 1);
	assert_int_equal(cr->best_number, 300);
	assert_int_equal(cr->final_number, -1);
	/* Branch 2 after 297: its head is a claim, its parents come by hash. */
	hd(cr, 1, 2, 301, 2);
	assert_int_equal(serve_parents(cr, 1, 2, 297, 1, 3), 3);
	assert_int_equal(cr->best_number, 300);
	chains_tick(clk);
	/* The gap, from an endpoint on branch 2. */
	while ((id = qf("SELECT id FROM queue WHERE chain_id = %lld AND kind = "
	    "'headers' ORDER BY range_to DESC", (long long)cr->id)) >= 0) {
		from = qf("SELECT range_from FROM queue WHERE id = %lld",
		    (long long)id);
		to = qf("SELECT range_to FROM queue WHERE id = %lld",
		    (long long)id);
		queue_lease(id, 1, clk + 1000);
		for (int64_t n = from; n <= to; n++)
			fx(cr, 1, n <= 297 ? 1 : 2, n, n <= 298 ? 1 : 2);
		queue_done(id);
		assert_int_equal(cr->final_number == -1 ||
		    cr->final_number == cr->best_number - CHAIN_FINALITY, 1);
	}
	hd(cr, 1, 2, 302, 2);
	assert_int_equal(cr->best_number, 302);
	assert_int_equal(cr->final_number, 302 - CHAIN_FINALITY);
	assert_int_equal(verdicts(1, CV_CONTRADICTED), 0);
	assert_int_equal(qf("SELECT count(*) FROM blocks WHERE chain_id = %lld "
	    "AND canonical = 1", (long long)cr->id), 303);
	assert_int_equal(qf("SELECT count(*) FROM blocks WHERE chain_id = %lld "
	    "AND final = 1", (long long)cr->id), 303 - CHAIN_FINALITY);
	assert_int_equal(qf("SELECT count(*) FROM reorgs WHERE chain_id = %lld",
	    (long long)cr->id), 1);
	assert_chain(cr);
	drain();
}

/*
 * An empty store and two endpoints: nothing links a head, so the first
 * best is one two endpoints agree on.  A forged first head is held, not
 * believed; a lone endpoint is believed after 2 block times.
 */
static void
test_first_head_agreed(void **state)
{
	hd(c2, 1, 9, 1000000000, 9);		/* a forgery, first */
	hd(c2, 2, 1, 300, 1);
	chains_tick(clk + 5000);
	assert_int_equal(c2->have_best, 0);
	assert_int_equal(qf("SELECT count(*) FROM blocks WHERE chain_id = %lld",
	    (long long)c2->id), 0);
	/* Only each head's parent, by hash: no ranges below a forgery. */
	assert_int_equal(qf("SELECT count(*) FROM queue WHERE chain_id = %lld",
	    (long long)c2->id), 2);
	assert_int_equal(qf("SELECT count(*) FROM queue WHERE chain_id = %lld "
	    "AND kind = 'headers'", (long long)c2->id), 0);
	/* The liar tells the truth once: 301 is the child of 300. */
	hd(c2, 1, 1, 301, 1);
	assert_int_equal(c2->have_best, 1);
	assert_int_equal(c2->best_number, 301);
	assert_int_equal(c2->n_claims, 0);
	assert_int_equal(qf("SELECT count(*) FROM blocks WHERE chain_id = %lld "
	    "AND canonical = 1", (long long)c2->id), 2);
	assert_int_equal(qf("SELECT count(*) FROM blocks WHERE chain_id = %lld "
	    "AND number > 301", (long long)c2->id), 0);
	hd(c2, 2, 1, 302, 1);
	assert_int_equal(c2->best_number, 302);
	assert_chain(c2);
	/* Alone: believed after 2 block times (1 s blocks: 2 s). */
	hd(cl, 1, 1, 50, 1);
	chains_tick(clk + 1000);
	assert_int_equal(cl->have_best, 0);
	chains_tick(clk + 2500);
	assert_int_equal(cl->have_best, 1);
	assert_int_equal(cl->best_number, 50);
	drain();
	/*
	 * A liar that never tells the truth: after 10 s of disagreement the
	 * head whose ancestry resolved (its parent came by hash) is taken,
	 * and the forgery is then judged as any claim.
	 */
	hd(cd, 1, 9, 1000000000, 9);
	hd(cd, 2, 1, 300, 1);
	assert_int_equal(qf("SELECT count(*) FROM queue WHERE chain_id = %lld "
	    "AND kind = 'parent'", (long long)cd->id), 2);
	fx(cd, 2, 1, 299, 1);			/* 300's parent, by hash */
	chains_tick(clk + 9000);
	assert_int_equal(cd->have_best, 0);
	chains_tick(clk + 10500);
	assert_int_equal(cd->have_best, 1);
	assert_int_equal(cd->best_number, 300);
	assert_int_equal(qf("SELECT count(*) FROM blocks WHERE chain_id = %lld "
	    "AND canonical = 1", (long long)cd->id), 2);
	chains_tick(clk + 30000);
	assert_int_equal(verdicts(1, CV_CONTRADICTED), 1);
	assert_non_null(strstr(reason, "never connected"));
	assert_int_equal(cd->best_number, 300);
	assert_chain(cd);
	drain();
}

/*
 * A parent fetched by hash for a first head, coming back after its claim
 * was replaced (a liar's heads and real ones alternate, a loaded machine
 * answers late): nothing waits for it, so it is not the first best, and
 * the forgery held beside it is judged against the best two endpoints
 * agree on, far, never fetching ranges up to it.
 */
static void
test_first_parent_late(void **state)
{
	uint64_t	now;

	hd(clate, 2, 9, 1000000000, 9);		/* the forgery */
	hd(clate, 1, 1, 300, 1);
	hd(clate, 1, 1, 301, 1);		/* grows 1's claim */
	hd(clate, 1, 3, 302, 3);		/* replaces it: 299 unwanted */
	fx(clate, 1, 1, 299, 1);		/* 300's parent, late */
	assert_int_equal(clate->have_best, 0);
	assert_int_equal(qf("SELECT count(*) FROM blocks WHERE chain_id = %lld",
	    (long long)clate->id), 0);
	/* The liar tells the truth once: the first best is agreed. */
	hd(clate, 2, 3, 302, 3);
	assert_int_equal(clate->have_best, 1);
	assert_int_equal(clate->best_number, 302);
	hd(clate, 2, 9, 1000000000, 9);
	assert_int_equal(clate->n_claims, 1);
	assert_int_equal(clate->claims[0].far, 1);
	/* The best moves on; nothing is queued up to the forgery. */
	now = clk;
	for (int64_t n = 303; n <= 320; n++) {
		hd(clate, 1, 3, n, 3);
		chains_tick(now + (uint64_t)(n - 302) * 1000);
	}
	assert_int_equal(qf("SELECT count(*) FROM queue WHERE chain_id = %lld "
	    "AND kind = 'headers' AND range_to > 320", (long long)clate->id),
	    0);
	assert_int_equal(verdicts(2, CV_CONTRADICTED), 1);
	assert_non_null(strstr(reason, "never connected"));
	assert_chain(clate);
	drain();
}

/* Serve c's ranges and parents from ep, ticking, until nothing is due. */
static void
serve_all(struct chain *c, int64_t ep, uint64_t now)
{
	for (int i = 0; i < 20; i++) {
		int64_t id = qf("SELECT id FROM queue WHERE chain_id = %lld AND "
		    "kind = 'parent' AND state = 'pending' ORDER BY id",
		    (long long)c->id);

		if (id >= 0) {
			int64_t n = qf("SELECT block_number FROM queue WHERE "
			    "id = %lld", (long long)id);

			queue_lease(id, ep, clk + 1000);
			fx(c, ep, 1, n, 1);
			queue_done(id);
		}
		serve_ranges(c, ep, 1);
		chains_tick(now);
	}
}

/*
 * Started beside nodes still syncing: two agree on an old first best,
 * the third is far ahead.  Then the two catch up, a block apart, their
 * heads interleaving with the third's, so that no two claims ever hold
 * the same head when made.  The three agree on one branch: it is fetched
 * and becomes the best, and no endpoint is judged.
 */
static void
test_far_synced(void **state)
{
	uint64_t	now;

	store_run(store_bind(&s_ep_add, "iit", (int64_t)31, csy->id, "s1"));
	store_run(store_bind(&s_ep_add, "iit", (int64_t)32, csy->id, "s2"));
	store_run(store_bind(&s_ep_add, "iit", (int64_t)33, csy->id, "s3"));
	hd(csy, 32, 1, 500, 1);
	hd(csy, 33, 1, 500, 1);
	assert_int_equal(csy->best_number, 500);
	hd(csy, 31, 1, 3000, 1);			/* far: beyond #600 */
	assert_int_equal(csy->n_claims, 1);
	assert_int_equal(csy->claims[0].far, 1);
	for (int64_t n = 501; n <= 503; n++) {
		hd(csy, 32, 1, n, 1);
		hd(csy, 33, 1, n, 1);
	}
	hd(csy, 31, 1, 3001, 1);
	hd(csy, 31, 1, 3002, 1);
	/* Against it so far: the two, whose heads connect. */
	now = clk;
	chains_tick(now + 11000);
	assert_int_equal(verdicts(31, CV_CONTRADICTED), 1);
	assert_non_null(strstr(reason, "never connected"));
	hd(csy, 31, 1, 3003, 1);			/* a new claim of it */
	assert_int_equal(csy->claims[0].far, 1);
	/* 2 catches up: its first head is the child of 1's. */
	hd(csy, 32, 1, 3004, 1);
	hd(csy, 31, 1, 3004, 1);
	hd(csy, 31, 1, 3005, 1);
	/* 3 a block later: its head is 1's, and 2's child. */
	hd(csy, 33, 1, 3005, 1);
	hd(csy, 32, 1, 3005, 1);
	assert_int_equal(csy->n_claims, 3);
	for (size_t i = 0; i < csy->n_claims; i++)
		assert_int_equal(csy->claims[i].far, 0);
	assert_true(window_reach(csy, clk) >= 3004 + 100);
	chains_tick(clk);
	assert_true(qf("SELECT count(*) FROM queue WHERE chain_id = %lld AND "
	    "kind = 'headers' AND range_from > 503", (long long)csy->id) > 0);
	serve_all(csy, 32, clk);
	assert_int_equal(csy->best_number, 3005);
	assert_int_equal(csy->n_claims, 0);
	assert_int_equal(verdicts(31, CV_CONTRADICTED) +
	    verdicts(32, CV_CONTRADICTED) + verdicts(33, CV_CONTRADICTED), 0);
	assert_int_equal(qf("SELECT count(*) FROM blocks WHERE chain_id = %lld "
	    "AND canonical = 1 AND number > 500", (long long)csy->id), 2505);
	/* Their heads came as claims: on record once they connected. */
	assert_int_equal(q("SELECT count(*) FROM endpoints WHERE id IN "
	    "(31, 32, 33) AND best_number = 3005 AND best_at > 0"), 3);
	assert_chain(csy);
	drain();
}

/*
 * One endpoint, come back synced far ahead of the best it gave: nothing
 * contradicts its head, so when the claim's time is out the reach is
 * suspected, not the endpoint: its ancestry is fetched.
 */
static void
test_far_outlasted(void **state)
{
	uint64_t	now;

	store_run(store_bind(&s_ep_add, "iit", (int64_t)41, c1->id, "o1"));
	hd(c1, 41, 1, 500, 1);
	assert_int_equal(c1->best_number, 500);
	hd(c1, 41, 1, 501, 1);
	hd(c1, 41, 1, 4000, 1);
	hd(c1, 41, 1, 4001, 1);
	assert_int_equal(c1->claims[0].far, 1);
	now = clk;
	chains_tick(now + 5000);
	assert_int_equal(c1->claims[0].far, 1);
	assert_int_equal(qf("SELECT count(*) FROM queue WHERE chain_id = %lld "
	    "AND kind = 'headers' AND range_from > 501", (long long)c1->id), 0);
	chains_tick(now + 11000);
	assert_int_equal(verdicts(41, CV_CONTRADICTED), 0);
	assert_int_equal(c1->claims[0].far, 0);
	serve_all(c1, 41, now + 11000);
	assert_int_equal(c1->best_number, 4001);
	assert_int_equal(verdicts(41, CV_CONTRADICTED), 0);
	assert_chain(c1);
	drain();
}

/*
 * One endpoint, a far head believed by outlasting, whose ancestry then
 * never comes: judged a lie, and the reach it raised is the best's again.
 */
static void
test_far_unbelieved(void **state)
{
	uint64_t	now;
	int64_t		reach;

	store_run(store_bind(&s_ep_add, "iit", (int64_t)51, cf->id, "f1"));
	hd(cf, 51, 1, 500, 1);
	hd(cf, 51, 1, 501, 1);
	now = clk;
	reach = window_reach(cf, now);
	assert_true(reach < 5000);
	hd(cf, 51, 1, 5000, 1);
	assert_int_equal(cf->claims[0].far, 1);
	chains_tick(now + 11000);
	assert_int_equal(cf->claims[0].far, 0);
	assert_true(window_reach(cf, now + 11000) >= 5000);
	chains_tick(now + 22000);
	assert_int_equal(verdicts(51, CV_CONTRADICTED), 1);
	assert_int_equal(cf->n_claims, 0);
	assert_true(window_reach(cf, now + 22000) < 5000);
	drain();
}

/*
 * At wall ms at, endpoint ep's far claim is dropped as a lie: its verdict,
 * no claim left on c, and the reach back below far.
 */
static void
far_dropped(struct chain *c, int64_t ep, uint64_t at, int64_t far)
{
	chains_tick(at);
	assert_int_equal(verdicts(ep, CV_CONTRADICTED), 1);
	assert_non_null(strstr(reason, "never connected"));
	assert_int_equal(c->n_claims, 0);
	assert_true(window_reach(c, at) < far);
	drain();
}

/*
 * Two endpoints whose heads come above gaps (held, then connected by the
 * ranges) are evidence against a far head all the same: it is judged,
 * not believed for want of a head against it.
 */
static void
test_far_against_late(void **state)
{
	uint64_t	now;

	store_run(store_bind(&s_ep_add, "iit", (int64_t)61, cg->id, "g1"));
	store_run(store_bind(&s_ep_add, "iit", (int64_t)62, cg->id, "g2"));
	store_run(store_bind(&s_ep_add, "iit", (int64_t)63, cg->id, "g3"));
	hd(cg, 61, 1, 500, 1);
	hd(cg, 62, 1, 500, 1);
	assert_int_equal(cg->best_number, 500);
	hd(cg, 63, 1, 3000, 1);
	assert_int_equal(cg->claims[0].far, 1);
	hd(cg, 61, 1, 505, 1);
	hd(cg, 62, 1, 505, 1);
	assert_int_equal(cg->n_claims, 3);
	now = clk;
	chains_tick(now);
	serve_ranges(cg, 61, 1);
	assert_int_equal(cg->best_number, 505);
	assert_int_equal(cg->n_claims, 1);
	far_dropped(cg, 63, now + 11000, 3000);
}

/*
 * Two endpoints agree on a forged far head (its parent exists nowhere):
 * believed by their numbers, its ancestry asked for.  The best following
 * a third endpoint's heads closes the gap below it at the chain's pace,
 * which is no progress towards it: both are judged when its patience is
 * out, and the reach comes back.
 */
static void
test_far_pair_forged(void **state)
{
	uint64_t	now;

	for (int64_t ep = 71; ep <= 73; ep++)
		store_run(store_bind(&s_ep_add, "iit", ep, cpair->id,
		    ep == 71 ? "p1" : ep == 72 ? "p2" : "p3"));
	for (int64_t ep = 71; ep <= 73; ep++)
		hd(cpair, ep, 1, 500, 1);
	assert_int_equal(cpair->best_number, 500);
	now = clk;
	hd(cpair, 71, 7, 5000, 7);
	hd(cpair, 72, 7, 5000, 7);
	assert_int_equal(cpair->n_claims, 2);
	assert_int_equal(cpair->claims[0].believed, 1);
	assert_int_equal(cpair->claims[1].believed, 1);
	assert_true(window_reach(cpair, now) >= 5000);
	/* A block a second from p3, as the chain makes them. */
	for (int64_t k = 1; k <= 9; k++) {
		hd(cpair, 73, 1, 500 + k, 1);
		chains_tick(now + (uint64_t)k * 1000);
		assert_int_equal(cpair->best_number, 500 + k);
	}
	assert_int_equal(cpair->n_claims, 2);
	hd(cpair, 73, 1, 510, 1);
	assert_true(qf("SELECT count(*) FROM queue WHERE chain_id = %lld AND "
	    "kind = 'headers' AND range_from > 510", (long long)cpair->id) > 0);
	/* Both judged: p1's verdict, and no claim left. */
	far_dropped(cpair, 71, now + 11000, 5000);
	/* The window queued for the forgery is gone with it. */
	assert_int_equal(qf("SELECT count(*) FROM queue WHERE chain_id = %lld "
	    "AND kind = 'headers' AND range_from > 510",
	    (long long)cpair->id), 0);
}

/*
 * A claim evicted for room (the table holds CHAIN_CLAIMS_MAX) takes the
 * ranges queued for it along, as one dropped as a lie does.
 */
static void
test_claim_evicted(void **state)
{
	int64_t	ep;

	store_run(store_bind(&s_ep_add, "iit", (int64_t)220, croom->id, "r220"));
	hd(croom, 220, 1, 500, 1);
	assert_int_equal(croom->best_number, 500);
	/* #630 above a gap, 10 s later (not far): ranges up to it. */
	clk += 10000;
	hd(croom, 220, 1, 630, 1);
	chains_tick(clk);
	assert_int_equal(croom->n_claims, 1);
	assert_true(qf("SELECT count(*) FROM queue WHERE chain_id = %lld AND "
	    "kind = 'headers' AND range_from > 504", (long long)croom->id) > 0);
	/* Sixteen others' heads at #505, on branches of their own. */
	for (ep = 221; ep <= 220 + CHAIN_CLAIMS_MAX; ep++) {
		char	name[16];

		snprintf(name, sizeof(name), "r%lld", (long long)ep);
		clk++;
		store_run(store_bind(&s_ep_add, "iit", ep, croom->id, name));
		hd(croom, ep, (int)(ep - 218), 505, (int)(ep - 218));
	}
	chains_tick(clk);
	assert_int_equal(croom->n_claims, CHAIN_CLAIMS_MAX);
	for (size_t i = 0; i < croom->n_claims; i++)
		assert_int_not_equal(croom->claims[i].endpoint_id, 220);
	assert_int_equal(qf("SELECT count(*) FROM queue WHERE chain_id = %lld "
	    "AND kind = 'headers' AND range_from > 504",
	    (long long)croom->id), 0);
	drain();
}

/* Quantus: the heavier branch wins, shorter or not; ties keep the first. */
static void
test_heaviest(void **state)
{
	for (int64_t n = 0; n <= 10; n++)
		hd(chh, 1, 1, n, 1);
	for (int64_t n = 1; n <= 10; n++)
		fwork(chh, 1, n, 100);
	/* Branch 2 after 7: shorter, unknown work: not taken. */
	hd(chh, 1, 2, 8, 1);
	hd(chh, 1, 2, 9, 2);
	assert_int_equal(chh->best_number, 10);
	/* Its work known, 2000 against 300: it wins though shorter. */
	fwork(chh, 2, 8, 1000);
	fwork(chh, 2, 9, 1000);
	hd(chh, 1, 2, 9, 2);
	assert_int_equal(chh->best_number, 9);
	assert_chain(chh);
	assert_int_equal(qf("SELECT depth FROM reorgs WHERE chain_id = %lld",
	    (long long)chh->id), 3);
	/* Branch 1 grows by a light block: longer, lighter: not taken. */
	fx(chh, 1, 1, 11, 1);
	fwork(chh, 1, 11, 100);
	hd(chh, 1, 1, 11, 1);
	assert_int_equal(chh->best_number, 9);
	/* A tie (2000 each) keeps the first seen. */
	fx(chh, 1, 1, 12, 1);
	fwork(chh, 1, 12, 1600);
	hd(chh, 1, 1, 12, 1);
	assert_int_equal(chh->best_number, 9);
	fx(chh, 1, 1, 13, 1);
	fwork(chh, 1, 13, 1);
	hd(chh, 1, 1, 13, 1);
	assert_int_equal(chh->best_number, 13);
	assert_chain(chh);
	drain();
}

/*
 * Substrate: the longest branch wins; a finalized head counts only on the
 * canonical chain, one that contradicts it is reported.
 */
static void
test_substrate(void **state)
{
	struct proto_head	f;

	for (int64_t n = 0; n <= 10; n++)
		hd(cs, 1, 1, n, 1);
	memset(&f, 0, sizeof(f));
	f.kind = HEAD_FINALIZED;
	mkheader(&f.h, 1, 5, 1, 9);
	sup_chain_head(cs, 1, &f, clk, &tv);
	assert_int_equal(cs->final_number, 5);
	/* Off the chain: a block at 7 that is not ours. */
	mkheader(&f.h, 2, 7, 2, 9);
	sup_chain_head(cs, 2, &f, clk, &tv);
	assert_int_equal(verdicts(2, CV_CONTRADICTED), 1);
	assert_string_equal(reason, "finalized #7 0x02000000... is not on the "
	    "canonical chain");
	assert_int_equal(cs->final_number, 5);
	/* Above our best: it waits for its block. */
	mkheader(&f.h, 1, 12, 1, 9);
	sup_chain_head(cs, 1, &f, clk, &tv);
	assert_int_equal(cs->final_number, 5);
	hd(cs, 1, 1, 11, 1);
	hd(cs, 1, 1, 12, 1);
	assert_int_equal(cs->final_number, 12);
	/* Below what is final, a sibling is still a contradiction. */
	mkheader(&f.h, 4, 9, 1, 9);
	sup_chain_head(cs, 2, &f, clk, &tv);
	assert_int_equal(verdicts(2, CV_CONTRADICTED), 1);
	assert_int_equal(cs->final_number, 12);
	/* Longest: a branch after 12, one block longer, wins. */
	hd(cs, 1, 1, 13, 1);
	hd(cs, 2, 2, 13, 1);
	assert_int_equal(cs->best_number, 13);
	assert_int_equal(qf("SELECT substr(hash, 1, 1) = x'01' FROM blocks "
	    "WHERE chain_id = %lld AND number = 13 AND canonical = 1",
	    (long long)cs->id), 1);
	hd(cs, 2, 2, 14, 2);
	assert_int_equal(cs->best_number, 14);
	assert_int_equal(qf("SELECT depth FROM reorgs WHERE chain_id = %lld",
	    (long long)cs->id), 1);
	/* Below finality (12): a longer branch after 10 is a lie. */
	hd(cs, 2, 3, 11, 1);
	for (int64_t n = 12; n <= 16; n++)
		hd(cs, 2, 3, n, 3);
	assert_int_equal(cs->best_number, 14);
	assert_true(verdicts(2, CV_CONTRADICTED) >= 1);	/* #15, #16 */
	assert_non_null(strstr(reason, "would replace final block #12"));
	assert_chain(cs);
}

/*
 * Blocks without a miner count under x'' (shown apart as unsealed), the
 * genesis nowhere; a reorg takes an unsealed block out like any other.
 */
static void
test_unsealed(void **state)
{
	hdm(cn, 1, 1, 0, 1, 0);
	hdm(cn, 1, 1, 1, 1, 9);
	hdm(cn, 1, 1, 2, 1, 0);
	hdm(cn, 1, 1, 3, 1, 0);
	hdm(cn, 1, 1, 4, 1, 9);
	assert_int_equal(qf("SELECT blocks * 100 + first_number * 10 + "
	    "last_number FROM standings WHERE chain_id = %lld AND miner = x''",
	    (long long)cn->id), 223);
	assert_int_equal(qf("SELECT sum(blocks) FROM standings WHERE "
	    "chain_id = %lld", (long long)cn->id), 4);
	/* Longest: a branch after 2 takes 3 and 4 away. */
	for (int64_t n = 3; n <= 5; n++)
		hdm(cn, 1, 2, n, n == 3 ? 1 : 2, 8);
	assert_int_equal(cn->best_number, 5);
	assert_int_equal(qf("SELECT blocks * 100 + first_number * 10 + "
	    "last_number FROM standings WHERE chain_id = %lld AND miner = x''",
	    (long long)cn->id), 122);
	assert_int_equal(qf("SELECT sum(blocks) FROM standings WHERE "
	    "chain_id = %lld", (long long)cn->id), 5);
	assert_chain(cn);
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

/*
 * After a rollback each chain is read again from the store, by one rule
 * (chain_forget): what names rows is dropped or read again, the claims
 * and the verdicts stay.
 */
static void
test_reload(void **state)
{
	struct claim	*c;
	size_t		 n_claims;
	int64_t		 best = cu->best_number, final = cu->final_number;

	store_flush();
	cu->have_pending = 1;
	cu->have_cand = 1;
	cu->have_final_claim = 1;
	cu->queued_up = cu->best_number + 5;
	cu->queued_down = 3;
	cu->owed.from = cu->owed.to = cu->best_number;
	cu->best_number = best + 1000;		/* as if rolled back */
	n_claims = cu->n_claims;
	if (n_claims < CHAIN_CLAIMS_MAX) {
		c = &cu->claims[cu->n_claims++];
		memset(c, 0, sizeof(*c));
		c->endpoint_id = 77;
		c->h = calloc(1, sizeof(*c->h));
		c->n = 1;
		c->h[0].number = (uint64_t)best + 50;
	}
	sup_chains_reload(clk);
	assert_int_equal(cu->best_number, best);
	assert_int_equal(cu->final_number, final);
	assert_int_equal(cu->have_best, 1);
	assert_int_equal(cu->have_pending, 0);
	assert_int_equal(cu->have_cand, 0);
	assert_int_equal(cu->have_final_claim, 0);
	assert_int_equal(cu->queued_up, -1);
	assert_int_equal(cu->queued_down, -1);
	assert_int_equal(cu->owed.from, -1);
	assert_int_equal(cu->n_claims, n_claims + 1);
	assert_int_equal(qf("SELECT sum(blocks) FROM standings WHERE "
	    "chain_id = %lld", (long long)cu->id),
	    qf("SELECT count(*) FROM blocks WHERE chain_id = %lld AND "
	    "canonical = 1", (long long)cu->id));
	/* The claim goes as any claim would. */
	free(cu->claims[--cu->n_claims].h);
	memset(&cu->claims[cu->n_claims], 0, sizeof(cu->claims[0]));
}

/*
 * A head whose seal meets at most pow; a seal of the wrong shape when
 * shape is not QPOW_SEAL_OK (no bound then).
 */
static int64_t	seal_ep = 1;	/* hseal's endpoint */

static void
hseal(struct chain *c, int branch, int64_t n, int parent_branch,
    uint64_t pow, enum qpow_seal shape)
{
	struct proto_head	h;

	memset(&h, 0, sizeof(h));
	h.kind = HEAD_NEW;
	h.seen_ms = clk;
	mkheader(&h.h, branch, n, parent_branch, 9);
	h.h.seal = shape;
	if (n > 0 && shape == QPOW_SEAL_OK) {
		h.h.has_pow = 1;
		memcpy(h.h.pow_max, &pow, sizeof(pow));	/* little-endian */
	}
	sup_chain_head(c, seal_ep, &h, clk, &tv);
}

static void
hpow(struct chain *c, int branch, int64_t n, int parent_branch,
    uint64_t pow)
{
	hseal(c, branch, n, parent_branch, pow, QPOW_SEAL_OK);
}

static int64_t
proven_in(const char *chain, int branch, int64_t n)
{
	return qf("SELECT coalesce(proven, -1) FROM blocks b JOIN chains c ON"
	    " c.id = b.chain_id WHERE c.name = '%s' AND number = %lld AND"
	    " substr(hash, 1, 1) = x'%02x'", chain, (long long)n, branch);
}

static int64_t
proven(int branch, int64_t n)
{
	return proven_in("seal", branch, n);
}

/*
 * Seals (sup_seal.c): a block's seal is checked once its parent's
 * difficulty is stored, whichever comes first.  A seal below that
 * difficulty is recorded, not enforced (the difficulty may be the lie);
 * a branch holding a seal of the wrong shape is never taken.
 */
static void
test_seal(void **state)
{
	hpow(cseal, 1, 0, 0, 0);
	for (int64_t n = 1; n <= 5; n++)
		hpow(cseal, 1, n, 1, 100);
	assert_int_equal(proven(1, 3), -1);	/* no difficulty yet */
	for (int64_t n = 0; n <= 5; n++)
		fwork(cseal, 1, n, 50);
	for (int64_t n = 1; n <= 5; n++)
		assert_int_equal(proven(1, n), 1);
	assert_int_equal(cseal->best_number, 5);

	/* Below its parent's difficulty: failed when stored, still taken. */
	hpow(cseal, 1, 6, 1, 10);
	assert_int_equal(proven(1, 6), 0);
	assert_int_equal(cseal->best_number, 6);
	assert_int_equal(cseal->seals_failed, 1);
	/*
	 * Its parent's difficulty after it: failed then, in the write of
	 * its own state (a canonical block is written once for both).
	 */
	hpow(cseal, 1, 7, 1, 10);
	assert_int_equal(proven(1, 7), -1);
	fwork(cseal, 1, 6, 50);
	assert_int_equal(proven(1, 7), -1);
	fwork(cseal, 1, 7, 50);
	assert_int_equal(proven(1, 7), 0);
	assert_int_equal(cseal->seals_failed, 2);
	assert_int_equal(cseal->best_number, 7);

	/* The wrong shape: never taken, nor anything above it. */
	hseal(cseal, 2, 8, 1, 0, QPOW_SEAL_ENGINE);
	assert_int_equal(proven(2, 8), 0);
	assert_int_equal(qf("SELECT count(*) FROM blocks b JOIN chains c ON"
	    " c.id = b.chain_id WHERE c.name = 'seal' AND number = 8 AND"
	    " pow_max IS NULL"), 1);
	hpow(cseal, 2, 9, 2, 100);
	assert_int_equal(cseal->best_number, 7);
	/* An honest block 8 is taken as any. */
	hpow(cseal, 3, 8, 1, 100);
	assert_int_equal(cseal->best_number, 8);
}

/* ep's answer: the difficulty at block n of branch is diff. */
static void
xstate(struct chain *c, int64_t ep, int branch, int64_t n, uint64_t diff)
{
	uint8_t	h[32], d[64];

	mkhash(h, branch, n);
	memset(d, 0, sizeof(d));
	memcpy(d, &diff, sizeof(diff));
	sup_chain_state(c, ep, h, d, 1700000000000LL + n * 1000, clk, &tv);
}

static int64_t
xcol(const char *col, int branch, int64_t n)
{
	return qf("SELECT coalesce(%s, -1) FROM blocks WHERE chain_id = %lld"
	    " AND number = %lld AND substr(hash, 1, 1) = x'%02x'", col,
	    (long long)ccross->id, (long long)n, branch);
}

/* ep's state answer for c's #n (branch 1): difficulty diff, time ts. */
static void
astate(struct chain *c, int64_t ep, int64_t n, uint64_t diff, int64_t ts)
{
	uint8_t	h[32], d[64];

	mkhash(h, 1, n);
	memset(d, 0, sizeof(d));
	memcpy(d, &diff, sizeof(diff));
	sup_chain_state(c, ep, h, d, ts, clk, &tv);
}

/* c's reads of #number owed away from ep, as disputed queue items. */
static int64_t
cdisputes(const struct chain *c, int64_t number, int64_t ep)
{
	return qf("SELECT count(*) FROM queue WHERE chain_id = %lld AND"
	    " kind = 'state' AND range_from = %lld AND last_outcome ="
	    " 'disputed' AND last_endpoint_id = %lld", (long long)c->id,
	    (long long)number, (long long)ep);
}

#define disputes(n, ep)	cdisputes(ccross, (n), (ep))

static struct store_stmt s_ep_prune = { "UPDATE endpoints SET "
    "pruning_bound = nullif(?, -1), configured = ? WHERE id = ?", NULL, NULL };

/* Endpoint ep's pruning bound (-1: none) and whether it is configured. */
static void
ep_prune(int64_t ep, int64_t bound, int configured)
{
	assert_int_equal(store_run(store_bind(&s_ep_prune, "iii", bound,
	    (int64_t)configured, ep)), 1);
}

/*
 * Difficulty answers are claims (sup_cross.c): a seal that fails its
 * parent's difficulty has another endpoint asked; the answer the seals
 * meet is kept, the other answerer judged, and the work and standings
 * follow.  Two answers alike judge the seal's server.
 */
/*
 * Endpoints e1 and e2 of c in the store, and c's first best: #0 of
 * branch 1, a head both agree on; heads come from e1 after it.
 */
static void
two_agree(struct chain *c, int64_t e1, const char *n1, int64_t e2,
    const char *n2)
{
	store_run(store_bind(&s_ep_add, "iit", e1, c->id, n1));
	store_run(store_bind(&s_ep_add, "iit", e2, c->id, n2));
	drain();
	seal_ep = e2;
	hpow(c, 1, 0, 0, 0);
	seal_ep = e1;
	hpow(c, 1, 0, 0, 0);
	assert_int_equal(c->best_number, 0);
}

static void
test_cross(void **state)
{
	two_agree(ccross, 91, "x1", 92, "x2");
	for (int64_t n = 1; n <= 5; n++)
		hpow(ccross, 1, n, 1, 100);
	/*
	 * x2 inflates #0..#2 a hundredfold and #3 less, so that #4's seal
	 * meets it; x1 answers #4 and #5 truly.
	 */
	for (int64_t n = 0; n <= 2; n++)
		xstate(ccross, 92, 1, n, 5000);
	xstate(ccross, 92, 1, 3, 80);
	for (int64_t n = 4; n <= 5; n++)
		xstate(ccross, 91, 1, n, 50);
	for (int64_t n = 1; n <= 3; n++) {
		assert_int_equal(xcol("proven", 1, n), 0);
		assert_int_equal(xcol("cross_read", 1, n - 1), 0);
		assert_int_equal(disputes(n - 1, 92), 1);
	}
	assert_int_equal(xcol("cross_read", 1, 3), -1);
	assert_int_equal(xcol("state_endpoint_id", 1, 2), 92);
	assert_int_equal(qf("SELECT work FROM standings WHERE chain_id = %lld",
	    (long long)ccross->id), 3 * 5000 + 80 + 50);
	assert_int_equal(xcol("proven", 1, 4), 1);
	assert_int_equal(verdicts(92, CV_CONTRADICTED), 0);

	/* x2 again: not a second endpoint; still owed, once. */
	xstate(ccross, 92, 1, 0, 5000);
	assert_int_equal(disputes(0, 92), 1);
	assert_int_equal(xcol("cross_read", 1, 0), 0);
	/* x1: the seals meet its answers, not x2's. */
	for (int64_t n = 0; n <= 2; n++)
		xstate(ccross, 91, 1, n, 50);
	assert_int_equal(verdicts(92, CV_CONTRADICTED), 3);
	assert_non_null(strstr(reason, "difficulty at #2: answered 5000; x1"
	    " answers 50, which the seals of its children meet"));
	/*
	 * Found false, x2's every other difficulty is read again: #3's,
	 * which no seal refutes, is x1's once x1 answers otherwise.
	 */
	assert_int_equal(xcol("cross_read", 1, 3), 0);
	assert_int_equal(disputes(3, 92), 1);
	xstate(ccross, 91, 1, 3, 50);
	assert_int_equal(verdicts(92, CV_CONTRADICTED), 0);
	for (int64_t n = 0; n <= 3; n++) {
		assert_int_equal(xcol("cross_read", 1, n), 1);
		assert_int_equal(xcol("state_endpoint_id", 1, n), 91);
		assert_int_equal(xcol("proven", 1, n + 1), 1);
		assert_int_equal(xcol("work_f", 1, n + 1), 50);
	}
	assert_int_equal(qf("SELECT work FROM standings"
	    " WHERE chain_id = %lld", (long long)ccross->id), 250);
	assert_int_equal(ccross->best_number, 5);

	/*
	 * A seal below a true difficulty: taken while one endpoint said
	 * it; the second answer judges its server and takes it back.
	 */
	seal_ep = 1;
	hpow(ccross, 1, 6, 1, 10);
	assert_int_equal(ccross->best_number, 6);
	assert_int_equal(xcol("cross_read", 1, 5), 0);
	assert_int_equal(disputes(5, 91), 1);
	assert_int_equal(verdicts(1, CV_CONTRADICTED), 0);
	xstate(ccross, 92, 1, 5, 50);
	assert_int_equal(xcol("cross_read", 1, 5), 1);
	assert_int_equal(verdicts(1, CV_CONTRADICTED), 1);
	assert_non_null(strstr(reason, "which two endpoints answered"));
	assert_int_equal(ccross->best_number, 5);
	assert_int_equal(xcol("canonical", 1, 6), 0);
	assert_int_equal(qf("SELECT count(*) FROM reorgs WHERE chain_id = %lld"
	    " AND depth = 1 AND ancestor_number = 5", (long long)ccross->id),
	    1);
	/* Another child of #5 failing it: judged at once, never taken. */
	hpow(ccross, 2, 6, 1, 20);
	assert_int_equal(verdicts(1, CV_CONTRADICTED), 1);
	assert_int_equal(ccross->best_number, 5);
	/* An honest #6 is. */
	hpow(ccross, 3, 6, 1, 100);
	assert_int_equal(ccross->best_number, 6);
	assert_int_equal(verdicts(92, CV_CONTRADICTED) +
	    verdicts(91, CV_CONTRADICTED), 0);
	/* A new answer of x2, found false before: read again by another. */
	xstate(ccross, 92, 1, 6, 50);
	assert_int_equal(xcol("cross_read", 1, 6), 0);
	assert_int_equal(disputes(6, 92), 1);
	/*
	 * A second read nobody else can make is given up: x1 holds #6's
	 * state while its pruning bound is below; then it drops it, or
	 * leaves the configuration.  (The reads of #0..#3 x1 answered above
	 * outside the queue are still there: at bound 5 they go.)
	 */
	assert_int_equal(cross_unreadable(ccross), 0);
	ep_prune(91, 5, 1);
	assert_int_equal(cross_unreadable(ccross), 4);
	assert_int_equal(disputes(3, 92), 0);
	assert_int_equal(xcol("cross_read", 1, 3), 1);
	assert_int_equal(disputes(6, 92), 1);
	ep_prune(91, 6, 1);
	assert_int_equal(cross_unreadable(ccross), 1);
	assert_int_equal(disputes(6, 92), 0);
	assert_int_equal(xcol("cross_read", 1, 6), -1);
	assert_int_equal(xcol("state_endpoint_id", 1, 6), 92);
	ep_prune(91, -1, 1);
	xstate(ccross, 92, 1, 5, 50);
	queue_dispute(ccross->id, 5, 5, 92, 0, "a test");
	assert_int_equal(disputes(5, 92), 1);
	assert_int_equal(cross_unreadable(ccross), 0);
	ep_prune(91, -1, 0);
	assert_int_equal(cross_unreadable(ccross), 1);
	assert_int_equal(disputes(5, 92), 0);
	ep_prune(91, -1, 1);
	seal_ep = 1;
	drain();
}

/* Column col of c's block #n of branch br, -1 for NULL. */
static int64_t
bcol(const struct chain *c, const char *col, int br, int64_t n)
{
	return qf("SELECT coalesce(%s, -1) FROM blocks WHERE chain_id = %lld"
	    " AND number = %lld AND substr(hash, 1, 1) = x'%02x'", col,
	    (long long)c->id, (long long)n, br);
}

/* Is c's best block #n of branch br? */
static int
best_is(const struct chain *c, int br, int64_t n)
{
	uint8_t	h[32];

	mkhash(h, br, n);
	return c->best_number == n && memcmp(c->best_hash, h, 32) == 0;
}

/*
 * Branch br of c from parent branch pbr's #from - 1, all z1's: heads
 * #from..#from + 2, their state but the last's and that of the best
 * (pbr's #from + 1), then head #from + 3 and the last state: its work is
 * known, and heavier.
 */
static void
fork_by_z1(struct chain *c, int br, int64_t from, int pbr)
{
	hpow(c, br, from, pbr, 100);
	for (int64_t n = from + 1; n <= from + 2; n++)
		hpow(c, br, n, br, 100);
	for (int64_t n = from; n <= from + 1; n++)
		xstate(c, 195, br, n, 10);
	xstate(c, 195, pbr, from + 1, 10);
	hpow(c, br, from + 3, br, 100);
	xstate(c, 195, br, from + 2, 10);
}

/*
 * A fork choice weighs difficulties one endpoint answered: the heavier
 * branch waits while another endpoint reads those that decide it (both
 * sides above the ancestor, below the tips), and switches once they
 * agree; when nobody reads them within the wait, it switches on one
 * endpoint's word.
 */
static void
test_choice_unread(void **state)
{
	struct chain	*c = sup_chain_find("decide");

	(void)state;
	assert_non_null(c);
	c->usable = 2;		/* as the scheduler counts them */
	two_agree(c, 195, "z1", 196, "z2");
	for (int64_t n = 1; n <= 4; n++)
		hpow(c, 1, n, 1, 100);
	for (int64_t n = 0; n <= 4; n++)
		xstate(c, 195, 1, n, 10);
	assert_true(best_is(c, 1, 4));
	/*
	 * Branch 2 forks at #1: #2'..#6'.  Its state read by z1 up to #4',
	 * then #6' comes, and the work of its branch once #5' is read: heavier.
	 */
	for (int64_t n = 2; n <= 5; n++)
		hpow(c, 2, n, n == 2 ? 1 : 2, 100);
	for (int64_t n = 2; n <= 4; n++)
		xstate(c, 195, 2, n, 10);
	hpow(c, 2, 6, 2, 100);
	xstate(c, 195, 2, 5, 10);
	assert_true(best_is(c, 1, 4));
	/* The deciding ones are asked of z2: #2'..#5' and #2..#3 (one item
	 * a number, read on both branches). */
	for (int64_t n = 2; n <= 5; n++) {
		assert_int_equal(bcol(c, "cross_read", 2, n), 0);
		assert_int_equal(qf("SELECT count(*) FROM queue WHERE chain_id ="
		    " %lld AND range_from = %lld AND last_outcome = 'disputed'"
		    " AND last_endpoint_id = 195 AND last_error = 'it decides a"
		    " fork choice'", (long long)c->id, (long long)n), 1);
	}
	assert_int_equal(bcol(c, "cross_read", 1, 2), 0);
	assert_int_equal(bcol(c, "cross_read", 1, 3), 0);
	assert_int_equal(bcol(c, "cross_read", 1, 4), -1);	/* the tip's */
	assert_int_equal(bcol(c, "cross_read", 1, 1), -1);	/* ancestor's */
	assert_int_equal(bcol(c, "cross_read", 2, 6), -1);	/* the tip's */
	/* z2 agrees, one by one: the switch comes with the last. */
	xstate(c, 196, 1, 2, 10);
	xstate(c, 196, 1, 3, 10);
	for (int64_t n = 2; n <= 4; n++)
		xstate(c, 196, 2, n, 10);
	assert_true(best_is(c, 1, 4));
	xstate(c, 196, 2, 5, 10);
	assert_true(best_is(c, 2, 6));
	assert_int_equal(bcol(c, "cross_read", 2, 5), 1);

	/*
	 * Branch 3 forks at #4': #5''..#8'', z1's word alone, read by no
	 * second endpoint: the wait (two block times) over, it decides.
	 */
	fork_by_z1(c, 3, 5, 2);
	assert_true(best_is(c, 2, 6));
	assert_int_equal(bcol(c, "cross_read", 3, 7), 0);
	clk += 1999;
	chains_tick(clk);
	assert_true(best_is(c, 2, 6));
	clk += 2;
	chains_tick(clk);
	assert_true(best_is(c, 3, 8));
	/*
	 * With z2 not usable, nobody else can read them: branch 4, forking
	 * at #6'', switches on z1's word at once.
	 */
	c->usable = 1;
	fork_by_z1(c, 4, 7, 3);
	assert_true(best_is(c, 4, 10));
	assert_int_equal(bcol(c, "cross_read", 4, 9), -1);
	seal_ep = 1;
	drain();
}

/* Column col of c's block #n (one block at that height), -1 for NULL. */
static int64_t
ncol(const struct chain *c, const char *col, int64_t n)
{
	return qf("SELECT coalesce(%s, -1) FROM blocks WHERE chain_id = %lld"
	    " AND number = %lld", col, (long long)c->id, (long long)n);
}

#define ycol(col, n)	ncol(cthree, (col), (n))

/*
 * A block of a state answer drawn at random is read again elsewhere;
 * two answers the seals cannot tell apart have a third endpoint asked,
 * and two against one judge the one.  A second endpoint's read that
 * agrees settles it.
 */
static void
test_cross_third(void **state)
{
	uint8_t	h[32];

	for (int64_t ep = 95; ep <= 97; ep++)
		store_run(store_bind(&s_ep_add, "iit", ep, cthree->id,
		    ep == 95 ? "y1" : ep == 96 ? "y2" : "y3"));
	drain();
	seal_ep = 96;
	hpow(cthree, 1, 0, 0, 0);
	seal_ep = 95;
	hpow(cthree, 1, 0, 0, 0);
	for (int64_t n = 1; n <= 3; n++)
		hpow(cthree, 1, n, 1, 1000);
	assert_int_equal(cthree->best_number, 3);
	/* y1 answers #1 a hundredth of the truth: every seal meets it. */
	xstate(cthree, 95, 1, 0, 500);
	xstate(cthree, 95, 1, 1, 5);
	assert_int_equal(ycol("cross_read", 1), -1);
	mkhash(h, 1, 1);
	sup_chain_sample(cthree, 95, h, &tv);
	assert_int_equal(ycol("cross_read", 1), 0);
	assert_int_equal(qf("SELECT count(*) FROM queue WHERE chain_id = %lld"
	    " AND range_from = 1 AND range_to = 1 AND last_outcome ="
	    " 'disputed' AND last_endpoint_id = 95", (long long)cthree->id),
	    1);
	/* y2 answers otherwise; the seals meet both: y3 is asked. */
	xstate(cthree, 96, 1, 1, 500);
	assert_int_equal(ycol("cross_read", 1), 0);
	assert_int_equal(ycol("state_endpoint_id", 1), 95);
	assert_int_equal(qf("SELECT count(*) FROM queue WHERE chain_id = %lld"
	    " AND range_from = 1 AND range_to = 1 AND last_outcome ="
	    " 'disputed' AND last_endpoint_id = 96", (long long)cthree->id),
	    1);
	/* y1 or y2 again decide nothing. */
	xstate(cthree, 95, 1, 1, 5);
	xstate(cthree, 96, 1, 1, 500);
	assert_int_equal(ycol("cross_read", 1), 0);
	assert_int_equal(verdicts(95, CV_CONTRADICTED), 0);
	/* y3 sides with y2: y1 is judged, y3's answer stored. */
	xstate(cthree, 97, 1, 1, 500);
	assert_int_equal(verdicts(95, CV_CONTRADICTED), 1);
	assert_non_null(strstr(reason, "difficulty at #1: answered 5; y2 and"
	    " y3 answer 500"));
	assert_int_equal(ycol("cross_read", 1), 1);
	assert_int_equal(ycol("state_endpoint_id", 1), 97);
	assert_int_equal(ycol("work_f", 2), 500);
	assert_int_equal(qf("SELECT work FROM standings WHERE chain_id = %lld",
	    (long long)cthree->id), 500 + 500);
	/* Found false: y1's #0 is read again; y2 reading it the same ends it. */
	assert_int_equal(ycol("cross_read", 0), 0);
	xstate(cthree, 96, 1, 0, 500);
	assert_int_equal(ycol("cross_read", 0), 1);
	/* A second read that agrees, unasked, settles a block too. */
	xstate(cthree, 96, 1, 2, 700);
	xstate(cthree, 97, 1, 2, 700);
	assert_int_equal(ycol("cross_read", 2), 1);
	assert_int_equal(ycol("proven", 2), 1);
	assert_int_equal(ycol("work_f", 2), 500);
	assert_int_equal(verdicts(96, CV_CONTRADICTED) +
	    verdicts(97, CV_CONTRADICTED), 0);
	seal_ep = 1;
	drain();
}

/*
 * Every seal fails, whoever served it, for 10 block times: the rule is
 * in doubt, the chain is followed (seals of the wrong shape too), and the
 * store says why; one seal that passes ends the doubt.
 */
static void
test_seal_doubt(void **state)
{
	uint64_t	t0 = clk;

	hpow(cdoubt, 1, 0, 0, 0);
	fwork(cdoubt, 1, 0, 50);
	hseal(cdoubt, 1, 1, 1, 0, QPOW_SEAL_LENGTH);
	assert_int_equal(proven_in("doubt", 1, 1), 0);
	assert_int_equal(cdoubt->best_number, 0);
	assert_int_equal(qf("SELECT count(*) FROM chains WHERE name = 'doubt'"
	    " AND unproven_reason IS NULL"), 1);
	/* Not yet 10 block times: still refused. */
	clk = t0 + 9000;
	hseal(cdoubt, 1, 1, 1, 0, QPOW_SEAL_LENGTH);
	assert_int_equal(cdoubt->best_number, 0);
	/* Then followed, and said so. */
	clk = t0 + 10000;
	hseal(cdoubt, 1, 1, 1, 0, QPOW_SEAL_LENGTH);
	assert_int_equal(cdoubt->best_number, 1);
	fwork(cdoubt, 1, 1, 50);
	hseal(cdoubt, 1, 2, 1, 0, QPOW_SEAL_LENGTH);
	assert_int_equal(cdoubt->best_number, 2);
	assert_int_equal(qf("SELECT count(*) FROM chains WHERE name = 'doubt'"
	    " AND unproven_reason = 'every seal fails from #1' AND"
	    " unproven_since = %llu", (unsigned long long)t0), 1);
	/* A seal that passes: failures count again. */
	fwork(cdoubt, 1, 2, 50);
	hpow(cdoubt, 1, 3, 1, 100);
	assert_int_equal(proven_in("doubt", 1, 3), 1);
	assert_int_equal(qf("SELECT count(*) FROM chains WHERE name = 'doubt'"
	    " AND unproven_reason IS NULL"), 1);
	fwork(cdoubt, 1, 3, 50);
	hseal(cdoubt, 1, 4, 1, 0, QPOW_SEAL_LENGTH);
	assert_int_equal(cdoubt->best_number, 3);
	clk = t0;
}

#define tstate(ep, n, ts)	astate(ctime, (ep), (n), 50, (ts))
#define tdisputes(n, ep)	cdisputes(ctime, (n), (ep))
#define rstate(ep, n, d, ts)	astate(crule, (ep), (n), (d), (ts))
#define rdisputes(n, ep)	cdisputes(crule, (n), (ep))

#define tcol(col, n)		ncol(ctime, (col), (n))

/*
 * Timestamps are claims (sup_time.c): a block's time at least 100 ms
 * after its parent's, at 12 s blocks.  Both times one endpoint's: it is
 * judged; two endpoints': both blocks are read again, nobody judged.
 * Every endpoint breaking the rule puts the rule in doubt instead.
 */
static void
test_time(void **state)
{
	const int64_t	t0 = 1800000000000LL;
	uint64_t	c0 = clk;

	store_run(store_bind(&s_ep_add, "iit", (int64_t)81, ctime->id, "tm1"));
	store_run(store_bind(&s_ep_add, "iit", (int64_t)82, ctime->id, "tm2"));
	drain();
	/* The first best: a head both endpoints agree on. */
	seal_ep = 82;
	hpow(ctime, 1, 0, 0, 0);
	seal_ep = 81;
	for (int64_t n = 0; n <= 8; n++)
		hpow(ctime, 1, n, 1, 100);
	assert_int_equal(ctime->best_number, 8);
	tstate(81, 0, t0);
	tstate(81, 1, t0 + 12000);
	/* 50 ms after its parent, both t1's: judged, not stored. */
	tstate(81, 2, t0 + 12050);
	assert_int_equal(verdicts(81, CV_CONTRADICTED), 1);
	assert_non_null(strstr(reason, "the timestamp of #2 is 50 ms after "
	    "its parent's (at least 100), which it answered too"));
	assert_int_equal(tcol("timestamp", 2), -1);
	assert_int_equal(tcol("difficulty IS NOT NULL", 2), 0);
	assert_int_equal(tdisputes(2, 81), 1);
	/* Exactly the period: stored. */
	tstate(82, 2, t0 + 12100);
	assert_int_equal(tcol("timestamp", 2), t0 + 12100);
	/*
	 * tm1's #3 against tm2's #2: one of them lies; #3 is read again by
	 * another, #2's time, stored first, stays.
	 */
	tstate(81, 3, t0 + 12150);
	assert_int_equal(verdicts(81, CV_CONTRADICTED) +
	    verdicts(82, CV_CONTRADICTED), 0);
	assert_int_equal(tcol("timestamp", 3), -1);
	assert_int_equal(tdisputes(3, 81), 1);
	assert_int_equal(tdisputes(2, 82), 0);
	/* A second read of #2, whatever its time, keeps the stored one. */
	tstate(81, 2, t0 + 12010);
	assert_int_equal(tcol("timestamp", 2), t0 + 12100);
	assert_int_equal(verdicts(81, CV_CONTRADICTED), 0);
	/*
	 * A child's time first, then its parent's, too late for it, both
	 * tm1's: judged, the child's time dropped and read again.
	 */
	tstate(81, 8, t0 + 96000);
	assert_int_equal(tcol("timestamp", 8), t0 + 96000);
	tstate(81, 7, t0 + 95950);
	assert_int_equal(tcol("timestamp", 7), t0 + 95950);
	assert_int_equal(verdicts(81, CV_CONTRADICTED), 1);
	assert_non_null(strstr(reason, "the timestamp of #8 is 50 ms after "
	    "its parent's (at least 100), which it answered too"));
	assert_int_equal(tcol("timestamp", 8), -1);
	assert_int_equal(tdisputes(8, 81), 1);
	assert_int_equal(qf("SELECT count(*) FROM chains WHERE name = 'time'"
	    " AND rule_doubt IS NULL"), 1);
	/* t2 too, within the minute: the rule in doubt, taken, said. */
	tstate(82, 3, t0 + 24000);
	tstate(82, 4, t0 + 24001);
	assert_int_equal(verdicts(82, CV_CONTRADICTED), 0);
	assert_int_equal(tcol("timestamp", 4), t0 + 24001);
	assert_int_equal(qf("SELECT count(*) FROM chains WHERE name = 'time'"
	    " AND rule_doubt LIKE 'every endpoint''s timestamps break the"
	    " minimum period%%' AND rule_doubt_since = %llu",
	    (unsigned long long)clk), 1);
	/* A minute without a break: judged again. */
	clk += TIME_WINDOW_MS + 1;
	tstate(82, 5, t0 + 36000);
	assert_int_equal(qf("SELECT count(*) FROM chains WHERE name = 'time'"
	    " AND rule_doubt IS NULL"), 1);
	tstate(82, 6, t0 + 36001);
	assert_int_equal(verdicts(82, CV_CONTRADICTED), 1);
	assert_int_equal(tcol("timestamp", 6), -1);
	seal_ep = 1;
	clk = c0;
	drain();
}

/*
 * The retarget rule (sup_retarget.c): under a runtime whose rule is
 * known, each first difficulty is recomputed from its parent's and the
 * blocks' times; one that differs is read again by another endpoint,
 * nobody judged.  Every endpoint differing puts the rule in doubt; a
 * runtime without a known rule recomputes nothing, and says so.
 */
static void
test_retarget(void **state)
{
	const int64_t	t0 = 1800000000000LL;
	uint64_t	c0 = clk;

	store_run(store_bind(&s_ep_add, "iit", (int64_t)171, crule->id, "ru1"));
	store_run(store_bind(&s_ep_add, "iit", (int64_t)172, crule->id, "ru2"));
	drain();
	seal_ep = 172;
	hpow(crule, 1, 0, 0, 0);
	seal_ep = 171;
	for (int64_t n = 0; n <= 9; n++)
		hpow(crule, 1, n, 1, 1000000);
	/* No runtime yet: nothing recomputed. */
	rstate(171, 0, 4096, t0);
	rstate(171, 1, 9999, t0 + 12000);
	assert_int_equal(rdisputes(1, 171), 0);
	sup_chain_runtime(crule, "quantus-runtime", 145, NULL, 0, clk);
	assert_int_equal(qf("SELECT count(*) FROM chains WHERE name = 'rule'"
	    " AND retarget = 'recomputed by the rule of runtime"
	    " quantus-runtime 145 (block time 12000 ms, floor 40)'"), 1);
	/*
	 * 9999 after 12 s: unchanged (12 s is within 8 to 16 s).  4 s: up
	 * by 9999 / 2048 = 4.  A 24 s block: down by 4 (adj -2 of 4).
	 */
	rstate(171, 2, 9999, t0 + 24000);
	rstate(171, 3, 10003, t0 + 28000);
	rstate(172, 4, 9995, t0 + 52000);
	for (int64_t n = 2; n <= 4; n++)
		assert_int_equal(rdisputes(n, 171) + rdisputes(n, 172), 0);
	/* Another: read again by the other endpoint, nobody judged. */
	rstate(171, 5, 20000, t0 + 64000);
	assert_int_equal(rdisputes(5, 171), 1);
	assert_int_equal(qf("SELECT cross_read FROM blocks WHERE chain_id ="
	    " %lld AND number = 5", (long long)crule->id), 0);
	assert_int_equal(verdicts(171, CV_CONTRADICTED), 0);
	/* The floor: a child of 30 is 40, the configured least. */
	rstate(171, 6, 30, t0 + 900000);
	assert_int_equal(rdisputes(6, 171), 1);
	rstate(172, 7, 40, t0 + 912000);
	assert_int_equal(rdisputes(7, 172), 0);
	/* Both endpoints differ within the minute: the rule in doubt. */
	rstate(172, 8, 1, t0 + 924000);
	assert_int_equal(rdisputes(8, 172), 0);
	assert_int_equal(qf("SELECT count(*) FROM chains WHERE name = 'rule'"
	    " AND retarget LIKE 'not recomputed: every endpoint''s"
	    " difficulties differ from the retarget rule of runtime"
	    " quantus-runtime 145%%' AND rule_doubt IS NULL"), 1);
	/* A runtime whose rule is not known: said, nothing recomputed. */
	sup_chain_runtime(crule, "quantus-runtime", 153, NULL, 0, clk);
	assert_int_equal(qf("SELECT count(*) FROM chains WHERE name = 'rule'"
	    " AND retarget LIKE 'not recomputed: runtime quantus-runtime 153"
	    " has no retarget rule known here%%'"), 1);
	clk += TIME_WINDOW_MS + 1;
	rstate(171, 9, 777, t0 + 936000);
	assert_int_equal(rdisputes(9, 171), 0);
	seal_ep = 1;
	clk = c0;
	drain();
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
		cmocka_unit_test(test_far_head),
		cmocka_unit_test(test_unresolvable_parent),
		cmocka_unit_test(test_bad_number),
		cmocka_unit_test(test_gap_windows),
		cmocka_unit_test(test_deep_reorg),
		cmocka_unit_test(test_below_finality),
		cmocka_unit_test(test_first_head_reorged),
		cmocka_unit_test(test_first_head_agreed),
		cmocka_unit_test(test_first_parent_late),
		cmocka_unit_test(test_far_synced),
		cmocka_unit_test(test_far_outlasted),
		cmocka_unit_test(test_far_unbelieved),
		cmocka_unit_test(test_far_against_late),
		cmocka_unit_test(test_far_pair_forged),
		cmocka_unit_test(test_claim_evicted),
		cmocka_unit_test(test_heaviest),
		cmocka_unit_test(test_substrate),
		cmocka_unit_test(test_unsealed),
		cmocka_unit_test(test_seal),
		cmocka_unit_test(test_seal_doubt),
		cmocka_unit_test(test_cross),
		cmocka_unit_test(test_cross_third),
		cmocka_unit_test(test_choice_unread),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_retarget),
		cmocka_unit_test(test_reload),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
