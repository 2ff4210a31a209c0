/*
 * --self-test: checks of the devnode's own pieces that need no network,
 * run by the integration tests (the devnode owns no unit test program):
 * the hand-written header JSON against header_to_json, local re-hashing,
 * parent links and seals of generated blocks (both formats, with reorgs,
 * splits and forgeries), the difficulty against QPoW's retarget rule,
 * the WebSocket handshake digest, the fault parser, the oversized stream.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "header.h"
#include "log.h"
#include "qpow.h"
#include "u512.h"
#include "util.h"

#include "dev.h"
#include "dev_http.h"
#include "wskey.h"

int	dev_selftest(void);

static int	failures;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		failures++;						\
		log_warnx("self-test: " __VA_ARGS__);			\
	}								\
} while (0)

/*
 * The self-test's chains: 3 miners, a genesis difficulty of 16 (cheap to
 * mine, and a random nonce fails it 15 times in 16), runtime version 7,
 * 1 s blocks, 200 of them behind.
 */
static void
test_params(enum chain_format fmt, const char seed[32],
    struct dev_chain_params *p, struct dev_chain_timing *tm)
{
	memset(p, 0, sizeof(*p));
	memset(tm, 0, sizeof(*tm));
	p->format = fmt;
	memcpy(p->seed, seed, 32);
	p->n_miners = 3;
	dev_chain_default_weights(p);
	p->difficulty0 = 16;
	p->min_difficulty = 1;
	p->spec_version0 = 7;
	tm->block_ms = 1000;
	tm->backlog = 200;
	tm->finality_lag = 10;
}

/* A chain of those parameters, generated up to its backlog, now. */
static struct dev_chain *
test_chain(const struct dev_chain_params *p, struct dev_chain_timing *tm)
{
	struct dev_chain	*c;
	atomic_int		 cancel;

	tm->start_ms = now_wall_ms();
	c = dev_chain_new(p, tm, NULL, "self-test");
	atomic_init(&cancel, 0);
	dev_chain_sync(c, &cancel, NULL);
	return c;
}

static void
check_block(struct dev_chain *c, const struct dev_blkref *ref)
{
	enum chain_format	 fmt = dev_chain_format(c);
	struct header		 h, back;
	struct buf		 b;
	struct dev_blkref	 pref, found;
	json_t			*j, *parsed;
	char			*ref_json, err[160];
	uint8_t			 hash[32], again[32], parent[32];

	dev_chain_header(c, ref, &h);
	buf_init(&b);
	dev_chain_header_json_of(fmt, &h, &b);
	j = header_to_json(fmt, &h);
	ref_json = j != NULL ? json_dumps(j, JSON_COMPACT) : NULL;
	buf_addc(&b, '\0');
	CHECK(ref_json != NULL && strcmp(ref_json, b.p) == 0,
	    "%s block %" PRIu64 "/%" PRIu64 ": header JSON differs:\n%s\n%s",
	    chain_format_name(fmt), ref->number, ref->branch, b.p,
	    ref_json != NULL ? ref_json : "(null)");
	/* What a client does: decode the JSON, hash it, compare. */
	parsed = json_loads(b.p, 0, NULL);
	CHECK(parsed != NULL && header_from_json(fmt, parsed, &back, err,
	    sizeof(err)) == 0, "block %" PRIu64 ": header_from_json: %s",
	    ref->number, err);
	header_hash(fmt, &back, again);
	dev_chain_hash(c, ref, hash);
	CHECK(memcmp(hash, again, 32) == 0, "%s block %" PRIu64 "/%" PRIu64
	    ": served hash is not the header's hash", chain_format_name(fmt),
	    ref->number, ref->branch);
	CHECK(dev_chain_lookup(c, dev_chain_head(c) < ref->number ?
	    ref->number : dev_chain_head(c), hash, &found) == 0 ||
	    ref->branch == 0, "block %" PRIu64 ": lookup by hash failed",
	    ref->number);
	if (ref->number > 0) {
		/* The parent: canonical, or the old branch's previous. */
		pref.number = ref->number - 1;
		pref.branch = ref->branch;
		if (ref->branch != 0) {
			uint64_t	r;
			unsigned	d;

			if (!dev_chain_reorg_window(c, pref.number, &r, &d) ||
			    r != ref->branch)
				pref.branch = 0;
		}
		dev_chain_hash(c, &pref, parent);
		CHECK(memcmp(parent, h.parent_hash, 32) == 0,
		    "block %" PRIu64 "/%" PRIu64 ": parent link broken",
		    ref->number, ref->branch);
		/* The seal as served meets the parent's served difficulty. */
		CHECK(fmt != FORMAT_QUANTUS || dev_chain_seal_meets(&back,
		    dev_chain_difficulty(c, &pref)), "block %" PRIu64 "/%"
		    PRIu64 ": seal fails difficulty %" PRIu64, ref->number,
		    ref->branch, dev_chain_difficulty(c, &pref));
	}
	CHECK(ref->number == 0 || header_miner(fmt, &h, again) == 1,
	    "block %" PRIu64 ": no miner", ref->number);
	json_decref(parsed);
	json_decref(j);
	free(ref_json);
	buf_free(&b);
}

/*
 * Walk a branch down from its top (ref) to the block below lo, by parent
 * hash, summing difficulty: its length, or 0 if it does not reach the
 * canonical block lo-1.
 */
static unsigned
branch_walk(struct dev_chain *c, uint64_t head, struct dev_blkref ref,
    uint64_t lo, unsigned __int128 *work)
{
	struct header		h;
	unsigned		len = 0;

	*work = 0;
	while (ref.number >= lo) {
		*work += dev_chain_difficulty(c, &ref);
		len++;
		dev_chain_header(c, &ref, &h);
		if (dev_chain_lookup(c, head, h.parent_hash, &ref) == -1)
			return 0;
	}
	return ref.number == lo - 1 && ref.branch == 0 ? len : 0;
}

/*
 * Reorg shapes: the branch shown first and the second, their lengths and
 * summed difficulty, and which one the fork choice keeps.
 */
static void
check_shape(enum chain_format fmt, enum dev_reorg_work work,
    enum dev_fork_choice choice)
{
	struct dev_chain_params	 p;
	struct dev_chain_timing	 tm;
	struct dev_chain	*c;
	struct dev_blkref	 first, second, best;
	unsigned __int128	 w1, w2;
	unsigned		 l1, l2, d;
	uint64_t		 R = 60, n, r, late = 150;
	const char		*what = dev_reorg_work_name(work);
	int			 shorter = work == REORG_SHORTER, second_wins;

	test_params(fmt, "self-test seed for reorg shapes.", &p, &tm);
	p.reorg_every = 30;
	p.reorg_min = 2;
	p.reorg_max = 6;
	p.reorg_work = work;
	p.fork_choice = choice;
	c = test_chain(&p, &tm);
	for (n = 0; n <= 200; n++) {
		first.number = n;
		first.branch = 0;
		check_block(c, &first);
		if (dev_chain_reorg_window(c, n, &r, &d)) {
			first.branch = r;
			check_block(c, &first);
		}
	}
	d = 0;
	for (n = R; n > R - 10 && dev_chain_reorg_window(c, n, &r, &d); n--)
		;
	/* The first branch: what a node at R (R+1 if shorter) shows. */
	CHECK(dev_chain_block_at(c, R + shorter, R + shorter, &first) == 0,
	    "%s: no best block at R", what);
	second_wins = first.branch != 0;
	/* The second: canonical if it won, else the losing branch. */
	second.number = R + (shorter ? 0 : 1);
	second.branch = second_wins ? 0 : R;
	d = R - n;
	l1 = branch_walk(c, late, first, n + 1, &w1);
	l2 = branch_walk(c, late, second, n + 1, &w2);
	CHECK(l1 > 0 && l2 > 0, "%s/%s: a branch does not reach its "
	    "ancestor (%u, %u)", what, dev_fork_choice_name(choice), l1, l2);
	switch (work) {
	case REORG_HEAVIER:
		CHECK(l2 == l1 + 1 && w2 > w1, "heavier: %u vs %u blocks",
		    l2, l1);
		CHECK(second_wins, "heavier: the second branch lost");
		break;
	case REORG_LIGHTER:
		CHECK(l2 == l1 + 1 && w2 < w1, "lighter: %u vs %u blocks, "
		    "not lighter", l2, l1);
		CHECK(second_wins == (choice == FORK_LONGEST),
		    "lighter/%s: the wrong branch won",
		    dev_fork_choice_name(choice));
		break;
	case REORG_SHORTER:
		CHECK(l2 + 1 == l1 && w2 > w1, "shorter: %u vs %u blocks, "
		    "not heavier", l2, l1);
		CHECK(second_wins == (choice == FORK_HEAVIEST),
		    "shorter/%s: the wrong branch won",
		    dev_fork_choice_name(choice));
		/* Switching to it, the head drops to its top. */
		CHECK(!second_wins || (dev_chain_tip(c, R + 2) == R &&
		    dev_chain_block_at(c, R + 2, R, &best) == 0 &&
		    best.branch == 0 && dev_chain_block_at(c, R + 2, R + 1,
		    &best) == -1), "shorter: no switch to its top at R+2");
		break;
	}
	/* Later, the winner is canonical and the chain goes on from it. */
	CHECK(dev_chain_block_at(c, late, second_wins ? second.number :
	    first.number, &best) == 0 && best.branch == 0,
	    "%s: the winner is not canonical", what);
	dev_chain_free(c);
}

/* A side block's seal against its parent's difficulty, found by hash. */
static void
check_side_seal(struct dev_chain *c, const struct dev_blkref *ref, int valid)
{
	struct dev_blkref	pref;
	struct header		h;

	dev_chain_header(c, ref, &h);
	if (dev_chain_side_lookup(c, h.parent_hash, &pref) == -1 &&
	    dev_chain_lookup(c, dev_chain_head(c), h.parent_hash, &pref) == -1) {
		CHECK(0, "side block %" PRIu64 ": parent unknown", ref->number);
		return;
	}
	CHECK(dev_chain_seal_meets(&h, dev_chain_difficulty(c, &pref)) ==
	    valid, "side block %" PRIu64 ": seal %s difficulty %" PRIu64,
	    ref->number, valid ? "fails" : "meets",
	    dev_chain_difficulty(c, &pref));
}

/*
 * Side blocks are mined too: a split's branch, a forgery on the best
 * block, and the bad_seal lie's, whose seal fails.
 */
static void
check_sides(struct dev_chain *c)
{
	struct dev_split_state	 st;
	struct dev_side_spec	 sp;
	struct dev_blkref	 ref, best;
	struct dev_view		 v;
	struct dev_fault_view	 fv;
	struct header		 h;
	uint8_t			 hash[32];
	uint64_t		 head = dev_chain_head(c), now = now_wall_ms();
	uint64_t		 k;

	dev_chain_split_start(c, head, now);
	dev_chain_split_tick(c, now + 20 * dev_chain_timing(c)->block_ms);
	dev_chain_split_get(c, &st);
	dev_chain_split_stop(c);
	CHECK(st.len >= 5, "split: %" PRIu64 " blocks", st.len);
	for (k = 0; k < st.len; k++) {
		ref.number = st.base + 1 + k;
		ref.branch = DEV_BRANCH_SIDE | (st.first + k);
		check_side_seal(c, &ref, 1);
	}
	CHECK(dev_chain_block_at(c, head, dev_chain_tip(c, head), &best) == 0,
	    "no best block");
	memset(&sp, 0, sizeof(sp));
	sp.number = best.number + 1;
	dev_chain_hash(c, &best, sp.parent);
	sp.salt = 0x5e1f7e57ull;
	sp.difficulty = sp.parent_difficulty = dev_chain_difficulty(c, &best);
	sp.ts_ms = dev_chain_timestamp(c, &best) + 1;
	CHECK(dev_chain_side_add(c, &sp, &ref) == 0, "forgery: not made");
	check_side_seal(c, &ref, 1);

	/* bad_seal: best+1 on the best block, a seal that fails. */
	memset(&v, 0, sizeof(v));
	v.chain = c;
	v.pos = v.head = head;
	dev_lie_make(&v, FAULT_BAD_SEAL, 0);
	memset(&fv, 0, sizeof(fv));
	fv.on = 1u << FAULT_BAD_SEAL;
	dev_lie_view(&fv, &v);
	if (!(v.lies & (1u << FAULT_BAD_SEAL))) {
		CHECK(0, "bad_seal: no forgery made");
		return;
	}
	dev_chain_header(c, &v.lie[FAULT_BAD_SEAL], &h);
	dev_chain_hash(c, &best, hash);
	CHECK(h.number == best.number + 1 && memcmp(h.parent_hash, hash,
	    32) == 0, "bad_seal: #%" PRIu64 " is not on the best block #%"
	    PRIu64, h.number, best.number);
	check_side_seal(c, &v.lie[FAULT_BAD_SEAL], 0);
}

static void
check_chain(enum chain_format fmt)
{
	struct dev_chain_params	 p;
	struct dev_chain_timing	 tm;
	struct dev_chain	*c;
	struct dev_blkref	 ref;
	uint64_t		 n, r, seen_orphans = 0;
	unsigned		 d;

	test_params(fmt, "self-test seed for the devnode..", &p, &tm);
	p.reorg_every = 20;
	p.reorg_min = 1;
	p.reorg_max = 5;
	p.n_spec = 1;
	p.spec[0].height = 33;
	p.spec[0].version = 8;
	c = test_chain(&p, &tm);
	CHECK(dev_chain_synced(c) && dev_chain_head(c) >= 200,
	    "%s chain: not synced to its backlog", chain_format_name(fmt));
	for (n = 0; n <= 200; n++) {
		ref.number = n;
		ref.branch = 0;
		check_block(c, &ref);
		if (dev_chain_reorg_window(c, n, &r, &d)) {
			ref.branch = r;
			check_block(c, &ref);
			seen_orphans++;
		}
	}
	CHECK(seen_orphans > 0, "no old-branch blocks");
	/* A view inside a reorg window shows the old branch as best. */
	CHECK(dev_chain_block_at(c, 40, 40, &ref) == 0 && ref.branch == 40,
	    "view at head 40: best block 40 is not on the old branch");
	CHECK(dev_chain_block_at(c, 41, 40, &ref) == 0 && ref.branch == 0,
	    "view at head 41: block 40 is not canonical");
	CHECK(dev_chain_spec_version(c, 32) == 7 &&
	    dev_chain_spec_version(c, 33) == 8, "spec versions");
	{
		struct header	h;

		ref.number = 33;
		ref.branch = 0;
		dev_chain_header(c, &ref, &h);
		CHECK(header_runtime_updated(&h), "block 33: no "
		    "RuntimeEnvironmentUpdated");
		ref.number = 34;
		dev_chain_header(c, &ref, &h);
		CHECK(!header_runtime_updated(&h), "block 34: "
		    "RuntimeEnvironmentUpdated");
		CHECK(fmt != FORMAT_QUANTUS || h.digest_len == 110,
		    "block 34: digest of %zu bytes, not 110", h.digest_len);
	}
	if (fmt == FORMAT_QUANTUS)
		check_sides(c);
	dev_chain_free(c);
}

/*
 * The difficulty is QPoW's rule over the served block times, and moves:
 * a chain at 2048 (a step is D/2048, so the least that can move) with 1 s
 * blocks, clamped at 1024.
 */
static void
check_retarget(void)
{
	struct dev_chain_params	 p;
	struct dev_chain_timing	 tm;
	struct dev_chain	*c;
	struct dev_blkref	 ref, pref;
	struct qpow_rule	 rule;
	struct u512		 d, want, got;
	uint64_t		 n, bt;
	unsigned		 moved = 0;

	test_params(FORMAT_QUANTUS, "self-test seed for the retarget.", &p,
	    &tm);
	p.difficulty0 = 2048;
	p.min_difficulty = 1024;
	tm.backlog = 40;
	c = test_chain(&p, &tm);
	qpow_rule_default(&rule, tm.block_ms);
	u512_from_u64(&rule.min, p.min_difficulty);
	for (n = 1; n <= tm.backlog; n++) {
		ref.number = n;
		pref.number = n - 1;
		ref.branch = pref.branch = 0;
		check_block(c, &ref);
		bt = n == 1 ? tm.block_ms : dev_chain_timestamp(c, &ref) -
		    dev_chain_timestamp(c, &pref);
		u512_from_u64(&d, dev_chain_difficulty(c, &pref));
		qpow_retarget(&rule, &d, bt, &want);
		u512_from_u64(&got, dev_chain_difficulty(c, &ref));
		CHECK(u512_cmp(&got, &want) == 0, "block %" PRIu64 ": "
		    "difficulty %" PRIu64 " is not the retarget of %" PRIu64
		    " after %" PRIu64 " ms", n, dev_chain_difficulty(c, &ref),
		    dev_chain_difficulty(c, &pref), bt);
		moved += u512_cmp(&got, &d) != 0;
	}
	CHECK(moved > 0, "the difficulty never moved in %" PRIu64 " blocks",
	    tm.backlog);
	dev_chain_free(c);
}

static void
check_faults(void)
{
	struct dev_fault_spec	s;
	char			err[160];

	CHECK(dev_fault_parse("slow:200@http%50", &s, err, sizeof(err)) == 0 &&
	    s.id == FAULT_SLOW && s.arg == 200 && s.targets == 1 &&
	    s.pct == 50, "parse slow:200@http%%50: %s", err);
	CHECK(dev_fault_parse("http_500", &s, err, sizeof(err)) == 0 &&
	    s.targets == 1, "http_500 targets http only");
	CHECK(dev_fault_parse("ws_drop", &s, err, sizeof(err)) == 0 &&
	    s.targets == 2, "ws_drop targets ws only");
	CHECK(dev_fault_parse("http_500@ws", &s, err, sizeof(err)) == -1,
	    "http_500@ws accepted");
	CHECK(dev_fault_parse("slow", &s, err, sizeof(err)) == -1,
	    "slow without MS accepted");
	CHECK(dev_fault_parse("nonsense", &s, err, sizeof(err)) == -1,
	    "unknown fault accepted");
	CHECK(dev_fault_parse("oversized", &s, err, sizeof(err)) == 0 &&
	    s.arg == 64, "oversized defaults to 64 MiB");
	/* The lies: defaults, bounds. */
	CHECK(dev_fault_parse("forge_head", &s, err, sizeof(err)) == 0 &&
	    s.arg == 1000000000 && s.targets == 3,
	    "forge_head defaults to 10^9 on both");
	CHECK(dev_fault_parse("forge_head:4294967296", &s, err,
	    sizeof(err)) == -1, "forge_head beyond u32 accepted");
	CHECK(dev_fault_parse("forge_chain", &s, err, sizeof(err)) == -1 &&
	    strstr(err, "forge_chain:K") != NULL,
	    "forge_chain without K: %s", err);
	CHECK(dev_fault_parse("forge_chain:0", &s, err, sizeof(err)) == -1,
	    "forge_chain:0 accepted");
	CHECK(dev_fault_parse("bad_number", &s, err, sizeof(err)) == 0 &&
	    s.arg == 50, "bad_number defaults to 50");
	CHECK(dev_fault_parse("bad_number:1", &s, err, sizeof(err)) == -1,
	    "bad_number:1 (an honest number) accepted");
	CHECK(dev_fault_parse("wrong_count:3", &s, err, sizeof(err)) == -1,
	    "wrong_count:3 accepted");
	CHECK(dev_fault_parse("split%50", &s, err, sizeof(err)) == -1,
	    "split%%50 accepted");
	CHECK(dev_fault_parse("bad_seal%50", &s, err, sizeof(err)) == 0 &&
	    s.id == FAULT_BAD_SEAL && s.targets == 3 && s.pct == 50,
	    "bad_seal%%50: %s", err);
	CHECK(dev_fault_parse("bad_seal:3", &s, err, sizeof(err)) == -1,
	    "bad_seal:3 accepted");
	CHECK(dev_fault_parse("difficulty_x100@ws", &s, err, sizeof(err)) == 0 &&
	    s.id == FAULT_DIFFICULTY_X100 && s.targets == 2,
	    "difficulty_x100@ws: %s", err);
	CHECK(dev_fault_parse("difficulty_div100", &s, err, sizeof(err)) == 0 &&
	    s.id == FAULT_DIFFICULTY_DIV100 && s.targets == 3,
	    "difficulty_div100: %s", err);
	CHECK(dev_fault_parse("timestamp_ahead", &s, err, sizeof(err)) == 0 &&
	    s.id == FAULT_TIMESTAMP_AHEAD && s.targets == 3,
	    "timestamp_ahead: %s", err);
	CHECK(dev_fault_parse("timestamp_early@http", &s, err,
	    sizeof(err)) == 0 && s.id == FAULT_TIMESTAMP_EARLY &&
	    s.targets == 1, "timestamp_early@http: %s", err);
}

static void
check_oversized(void)
{
	struct dev_oversized	*o;
	struct buf		 b;
	char			 chunk[777];
	size_t			 n;
	json_t			*j;

	o = dev_oversized_new("7", "{\"a\":1}", 7, 100000);
	buf_init(&b);
	while ((n = dev_oversized_read(o, chunk, sizeof(chunk))) > 0)
		buf_add(&b, chunk, n);
	CHECK(b.len == dev_oversized_total(o) && b.len >= 100000,
	    "oversized: %zu bytes", b.len);
	j = json_loadb(b.p, b.len, 0, NULL);
	CHECK(j != NULL && json_array_size(json_object_get(j, "result")) > 1000,
	    "oversized: not valid JSON");
	json_decref(j);
	buf_free(&b);
	dev_oversized_free(o);
}

int
dev_selftest(void)
{
	char	accept[WS_ACCEPT_LEN + 1];

	/* RFC 6455, section 1.3. */
	ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==", accept);
	CHECK(strcmp(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") == 0,
	    "Sec-WebSocket-Accept %s", accept);
	check_chain(FORMAT_QUANTUS);
	check_chain(FORMAT_SUBSTRATE);
	for (int w = REORG_HEAVIER; w <= REORG_SHORTER; w++) {
		check_shape(FORMAT_SUBSTRATE, (enum dev_reorg_work)w,
		    FORK_HEAVIEST);
		check_shape(FORMAT_SUBSTRATE, (enum dev_reorg_work)w,
		    FORK_LONGEST);
	}
	check_shape(FORMAT_QUANTUS, REORG_LIGHTER, FORK_HEAVIEST);
	check_shape(FORMAT_QUANTUS, REORG_SHORTER, FORK_HEAVIEST);
	check_retarget();
	check_faults();
	check_oversized();
	if (failures == 0)
		log_info("self-test: all checks passed");
	return failures == 0 ? 0 : -1;
}
