/*
 * The simulated proof-of-work chain.  Every block is a pure function of
 * the seed and the chain parameters: header fields come from a counter-
 * based PRNG, difficulty follows QPoW's retarget rule (qpow.h) over the
 * block times of a simulated hashrate, and block k's hash chains to block
 * k-1's.  A quantus block is mined for real: from the PRNG's nonce
 * upwards until its nonce hash meets the difficulty at its parent (about
 * D nonce hashes of five Poseidon2 permutations each), then hashed (six
 * more); done once at start (or read from the cache) and then one block
 * at a time.
 *
 * Reorgs: at every multiple R of reorg_every, two branches grow from
 * block R-d: the one a node shows first (header fields of "branch R")
 * and a second one (those of branch 0) that comes when block R+1 is due,
 * or R+2 when it is the shorter (see enum dev_reorg_work).  The fork
 * choice makes one of them canonical: its blocks are the chain's (stored
 * as branch 0, the chain goes on from its top); the other's keep their
 * own storage ("orphan slots", refs with branch R) and stay answerable.
 * With the default shape the second branch wins under either choice:
 * the first is shown, then replaced.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hash.h"
#include "header.h"
#include "log.h"
#include "poseidon2.h"
#include "qpow.h"
#include "scale.h"
#include "u512.h"
#include "util.h"

#include "dev_chain_int.h"
#include "dev_json.h"

enum prng_tag {
	TAG_STATE = 1,
	TAG_EXTRINSICS,
	TAG_ZK,
	TAG_MINER,
	TAG_NONCE,
	TAG_SOLVE,
	TAG_HASHRATE,
	TAG_DEPTH,
	TAG_PREIMAGE,
};

#define HR_EPOCH	2048	/* blocks between hashrate changes */
#define BAD_SEAL_TRIES	4096	/* nonces tried for one that fails */
#define SYNC_BATCH	4096
#define TICK_MAX	100000	/* blocks per tick; a clock jump spreads */
#define HEAVY		3	/* difficulty factor of a reorg's heavy branch */

/* One scheduled reorg, worked out from R (see the top of the file). */
struct reorg_ev {
	uint64_t	r;
	unsigned	d;
	uint64_t	lo;		/* lowest height of both branches */
	unsigned	first_len, second_len;
	int		second_wins;
	unsigned	win_len, lose_len;
	uint64_t	arrive;		/* head at which the second comes */
	int		heavy;		/* 1: first, 2: second, 0: neither */
};

static uint64_t
mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t
prng(const struct dev_chain *c, uint64_t tag, uint64_t a, uint64_t b)
{
	uint64_t	h;

	h = mix64(c->seed64[0] ^ tag);
	h = mix64(h ^ c->seed64[1] ^ a);
	h = mix64(h ^ c->seed64[2] ^ b);
	return mix64(h ^ c->seed64[3]);
}

/* Seeds, preimages, the hash index and the cache file are little-endian. */
void
chain_put_le64(uint8_t *p, uint64_t v)
{
	int	i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t
chain_get_le64(const uint8_t *p)
{
	uint64_t	v = 0;
	int		i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* 8*words pseudo-random bytes for field `tag` of block (n, branch). */
static void
fill_words(const struct dev_chain *c, uint64_t tag, uint64_t n,
    uint64_t branch, uint8_t *out, unsigned words)
{
	unsigned	w;

	for (w = 0; w < words; w++)
		chain_put_le64(out + 8 * w, prng(c, tag, n, branch << 4 | w));
}

void
dev_chain_default_weights(struct dev_chain_params *p)
{
	uint64_t	s = chain_get_le64(p->seed);
	unsigned	i;

	for (i = 0; i < p->n_miners; i++)
		p->weights[i] = 1 + (uint32_t)(mix64(s ^ mix64(i + 1)) % 100);
}

struct dev_chain *
dev_chain_new(const struct dev_chain_params *p,
    const struct dev_chain_timing *tm, const char *cache_dir, const char *name)
{
	struct dev_chain	*c;
	pthread_rwlockattr_t	 attr;
	uint64_t		 expect, cap;
	unsigned		 i, w;

	c = xcalloc(1, sizeof(*c));
	c->p = *p;
	c->tm = *tm;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->cache_dir = cache_dir != NULL ? xstrdup(cache_dir) : NULL;
	for (i = 0; i < 4; i++)
		c->seed64[i] = chain_get_le64(p->seed + 8 * i);
	for (i = 0; i < p->n_miners; i++) {
		c->total_weight += p->weights[i];
		/* Limbs below p, so that every miner has an account. */
		for (w = 0; w < 4; w++)
			chain_put_le64(c->preimage[i] + 8 * w,
			    prng(c, TAG_PREIMAGE, i, w) % GOLDILOCKS_P);
	}
	c->blk = xcalloc(CHUNKS_MAX, sizeof(*c->blk));
	c->orph = xcalloc(CHUNKS_MAX, sizeof(*c->orph));
	atomic_init(&c->count, 0);
	atomic_init(&c->head, 0);
	atomic_init(&c->synced, 0);
	c->hr_mult = 1024;
	/* QPoW's rule at this chain's block time, clamped where asked. */
	qpow_rule_default(&c->rule, tm->block_ms);
	u512_from_u64(&c->rule.min, p->min_difficulty > 0 ?
	    p->min_difficulty : 1);

	/* Room for the backlog and an hour of blocks before a rehash. */
	expect = 3600000 / (tm->block_ms > 0 ? tm->block_ms : 1);
	expect = tm->backlog + (expect < (1u << 20) ? expect : (1u << 20));
	if (p->reorg_every > 0)
		expect += expect / p->reorg_every * (p->reorg_max + 1);
	for (cap = 1024; cap < 2 * expect && cap < (1ull << 33); cap *= 2)
		;
	c->idx = xcalloc(cap, sizeof(*c->idx));
	c->idx_mask = cap - 1;

	/* Writers must not starve behind a benchmark's steady readers. */
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr,
	    PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&c->idx_lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	chain_side_init(c);
	return c;
}

void
dev_chain_free(struct dev_chain *c)
{
	size_t	i;

	if (c == NULL)
		return;
	for (i = 0; i < CHUNKS_MAX; i++) {
		free(c->blk[i]);
		free(c->orph[i]);
	}
	free(c->blk);
	free(c->orph);
	free(c->idx);
	free(c->cache_dir);
	pthread_rwlock_destroy(&c->idx_lock);
	chain_side_free(c);
	free(c);
}

const char *
dev_chain_name(const struct dev_chain *c)
{
	return c->name;
}

enum chain_format
dev_chain_format(const struct dev_chain *c)
{
	return c->p.format;
}

const struct dev_chain_params *
dev_chain_params(const struct dev_chain *c)
{
	return &c->p;
}

const struct dev_chain_timing *
dev_chain_timing(const struct dev_chain *c)
{
	return &c->tm;
}

int
dev_chain_synced(const struct dev_chain *c)
{
	return atomic_load_explicit(&((struct dev_chain *)c)->synced,
	    memory_order_acquire);
}

uint64_t
dev_chain_count(const struct dev_chain *c)
{
	return atomic_load_explicit(&((struct dev_chain *)c)->count,
	    memory_order_acquire);
}

uint64_t
dev_chain_head(const struct dev_chain *c)
{
	return atomic_load_explicit(&((struct dev_chain *)c)->head,
	    memory_order_acquire);
}

void
dev_chain_sync_stats(const struct dev_chain *c, double *secs,
    uint64_t *cached, uint64_t *hashed)
{
	*secs = c->sync_secs;
	*cached = c->sync_cached;
	*hashed = c->sync_hashed;
}

unsigned
chain_depth(const struct dev_chain *c, uint64_t r)
{
	unsigned	span = c->p.reorg_max - c->p.reorg_min + 1;

	if (span <= 1)
		return c->p.reorg_min;
	return c->p.reorg_min + (unsigned)(prng(c, TAG_DEPTH, r, 0) % span);
}

static void
reorg_ev(const struct dev_chain *c, uint64_t r, struct reorg_ev *e)
{
	int	shorter = c->p.reorg_work == REORG_SHORTER;

	e->r = r;
	e->d = chain_depth(c, r);
	e->lo = r - e->d + 1;
	e->first_len = e->d + (shorter ? 1 : 0);
	e->second_len = e->d + (shorter ? 0 : 1);
	switch (c->p.reorg_work) {
	case REORG_LIGHTER:
		e->second_wins = c->p.fork_choice == FORK_LONGEST;
		e->heavy = 1;
		break;
	case REORG_SHORTER:
		e->second_wins = c->p.fork_choice == FORK_HEAVIEST;
		e->heavy = 2;
		break;
	default:
		e->second_wins = 1;
		e->heavy = 0;
		break;
	}
	e->win_len = e->second_wins ? e->second_len : e->first_len;
	e->lose_len = e->second_wins ? e->first_len : e->second_len;
	e->arrive = r + 1 + (shorter ? 1 : 0);
}

/* The reorg whose branches hold height n, if any. */
static int
event_of(const struct dev_chain *c, uint64_t n, struct reorg_ev *e)
{
	uint64_t	k = c->p.reorg_every, r;

	if (k == 0 || n == 0)
		return 0;
	r = (n + k - 1) / k * k;
	reorg_ev(c, r, e);
	if (n >= e->lo)
		return 1;
	/* The top of the previous one's longer branch: R+1. */
	if (r >= 2 * k) {
		reorg_ev(c, r - k, e);
		if (n < e->lo + (e->first_len > e->second_len ?
		    e->first_len : e->second_len))
			return 1;
	}
	return 0;
}

/* 1 if height n holds a block of the losing branch of event e. */
static int
in_lose(const struct reorg_ev *e, uint64_t n)
{
	return n >= e->lo && n < e->lo + e->lose_len;
}

static int
in_win(const struct reorg_ev *e, uint64_t n)
{
	return n >= e->lo && n < e->lo + e->win_len;
}

int
dev_chain_reorg_window(const struct dev_chain *c, uint64_t n, uint64_t *r,
    unsigned *depth)
{
	struct reorg_ev	e;

	if (!event_of(c, n, &e) || !in_lose(&e, n))
		return 0;
	*r = e.r;
	*depth = e.d;
	return 1;
}

/* Slots per reorg: the losing branch is at most reorg_max + 1 long. */
static uint64_t
slot_stride(const struct dev_chain *c)
{
	return (uint64_t)c->p.reorg_max + 1;
}

/* Slot of losing-branch block (r, n): events in order. */
static uint64_t
orphan_slot(const struct dev_chain *c, uint64_t r, unsigned d, uint64_t n)
{
	return (r / c->p.reorg_every - 1) * slot_stride(c) + (n - (r - d + 1));
}

uint64_t
chain_slot_end(const struct dev_chain *c, uint64_t n)
{
	uint64_t	r;
	unsigned	d;

	if (c->p.reorg_every == 0 || n <= 1)
		return 0;
	/* The window that holds n-1, or the next one if n-1 is outside. */
	if (dev_chain_reorg_window(c, n - 1, &r, &d))
		return orphan_slot(c, r, d, n - 1) + 1;
	r = (n - 1 + c->p.reorg_every - 1) / c->p.reorg_every *
	    c->p.reorg_every;
	return (r / c->p.reorg_every - 1) * slot_stride(c);
}

const char *
dev_reorg_work_name(enum dev_reorg_work w)
{
	return w == REORG_LIGHTER ? "lighter" : w == REORG_SHORTER ?
	    "shorter" : "heavier";
}

const char *
dev_fork_choice_name(enum dev_fork_choice f)
{
	return f == FORK_LONGEST ? "longest" : "heaviest";
}

void
chain_reserve(struct dev_chain *c, uint64_t n, uint64_t slots)
{
	uint64_t	i;

	for (i = 0; i < n && (i >> CHUNK_BITS) < CHUNKS_MAX; i += CHUNK_SIZE)
		if (c->blk[i >> CHUNK_BITS] == NULL)
			c->blk[i >> CHUNK_BITS] = xcalloc(CHUNK_SIZE,
			    sizeof(struct dev_blk));
	for (i = 0; i < slots && (i >> CHUNK_BITS) < CHUNKS_MAX;
	    i += CHUNK_SIZE)
		if (c->orph[i >> CHUNK_BITS] == NULL)
			c->orph[i >> CHUNK_BITS] = xcalloc(CHUNK_SIZE,
			    sizeof(struct dev_orph));
}

/* A difficulty as the devnode keeps it: 64 bits, saturated. */
static uint64_t
difficulty_u64(const struct u512 *x)
{
	unsigned	i;

	for (i = 1; i < U512_LIMBS; i++)
		if (x->w[i] != 0)
			return UINT64_MAX;
	return x->w[0];
}

/* Milliseconds since genesis at a sum of solve times. */
static uint64_t
t_ms(const struct dev_chain *c, uint64_t t)
{
	return t * c->tm.block_ms / TIME_UNIT;
}

/*
 * Difficulty and solve time of every block below n.  Block k is mined at
 * the difficulty of k-1 by a hashrate that drifts every HR_EPOCH blocks,
 * so its solve time is proportional to difficulty / hashrate; its state
 * then holds the difficulty QPoW's rule retargets from that block time
 * (block 1 passes the target, as on chain).
 */
void
chain_extend_meta(struct dev_chain *c, uint64_t n)
{
	const uint64_t	 d0 = c->p.difficulty0;
	struct dev_blk	*b, *prev;
	struct u512	 d, next;
	uint64_t	 k, e, s, u, r, bt;
	unsigned __int128 num;

	if (n <= c->meta_count)
		return;
	chain_reserve(c, n, 0);
	for (k = c->meta_count; k < n; k++) {
		b = blk_at(c, k);
		if (k == 0) {
			b->difficulty = d0;
			b->t = 0;
			continue;
		}
		for (e = k / HR_EPOCH; c->hr_epoch < e; ) {
			c->hr_epoch++;
			r = prng(c, TAG_HASHRATE, c->hr_epoch, 0) % 307;
			c->hr_mult = (uint32_t)((uint64_t)c->hr_mult *
			    (1024 + r - 153) / 1024);
			if (c->hr_mult < 512)
				c->hr_mult = 512;
			if (c->hr_mult > 2048)
				c->hr_mult = 2048;
		}
		prev = blk_at(c, k - 1);
		u = TIME_UNIT / 2 + prng(c, TAG_SOLVE, k, 0) % (TIME_UNIT + 1);
		num = (unsigned __int128)prev->difficulty * 1024 * u;
		s = (uint64_t)(num / ((unsigned __int128)d0 * c->hr_mult));
		if (s < TIME_UNIT / 10)
			s = TIME_UNIT / 10;
		if (s > TIME_UNIT * 10)
			s = TIME_UNIT * 10;
		b->t = prev->t + s;
		bt = k == 1 ? c->tm.block_ms : t_ms(c, b->t) - t_ms(c, prev->t);
		u512_from_u64(&d, prev->difficulty);
		qpow_retarget(&c->rule, &d, bt, &next);
		b->difficulty = difficulty_u64(&next);
	}
	c->meta_count = n;
}

/* Wall time of block n; its meta must exist. */
uint64_t
chain_block_ms(const struct dev_chain *c, uint64_t n)
{
	int64_t	t;

	t = c->genesis_ms + (int64_t)t_ms(c, blk_at(c, n)->t);
	return t < 0 ? 0 : (uint64_t)t;
}

static unsigned
miner_of(const struct dev_chain *c, uint64_t n, uint64_t branch)
{
	uint64_t	r;
	unsigned	i;

	if (c->total_weight == 0)
		return 0;
	r = prng(c, TAG_MINER, n, branch) % c->total_weight;
	for (i = 0; i + 1 < c->p.n_miners; i++) {
		if (r < c->p.weights[i])
			return i;
		r -= c->p.weights[i];
	}
	return i;
}

static int
spec_changes_at(const struct dev_chain *c, uint64_t n)
{
	unsigned	i;

	for (i = 0; i < c->p.n_spec; i++)
		if (c->p.spec[i].height == n)
			return 1;
	return 0;
}

uint32_t
dev_chain_spec_version(const struct dev_chain *c, uint64_t n)
{
	uint32_t	v = c->p.spec_version0;
	unsigned	i;

	for (i = 0; i < c->p.n_spec && c->p.spec[i].height <= n; i++)
		v = c->p.spec[i].version;
	return v;
}

/* Where block (n, branch) of the chain or of a losing branch is kept. */
static void
stored_at(const struct dev_chain *c, uint64_t n, uint64_t branch,
    uint8_t **hash, uint32_t **steps)
{
	struct dev_orph	*o;
	uint64_t	 r;
	unsigned	 d;

	if (branch == 0 || !dev_chain_reorg_window(c, n, &r, &d)) {
		*hash = blk_at(c, n)->hash;
		*steps = &blk_at(c, n)->steps;
		return;
	}
	o = orph_at(c, orphan_slot(c, r, d, n));
	*hash = o->hash;
	*steps = &o->steps;
}

/* The parent of (n, branch): its branch's block below, or the ancestor. */
static void
parent_ref(const struct dev_chain *c, uint64_t n, uint64_t branch,
    struct dev_blkref *p)
{
	p->number = n - 1;
	p->branch = branch != 0 && n != branch - chain_depth(c, branch) + 1 ?
	    branch : 0;
}

static const uint8_t *
parent_hash(const struct dev_chain *c, uint64_t n, uint64_t branch)
{
	struct dev_blkref	 p;
	uint8_t			*hash;
	uint32_t		*steps;

	parent_ref(c, n, branch, &p);
	stored_at(c, p.number, p.branch, &hash, &steps);
	return hash;
}

/*
 * The header fields of (n, branch) are those of the first branch (salt
 * R) or of the second (salt 0), whichever of them it belongs to.
 */
static uint64_t
branch_salt(const struct dev_chain *c, uint64_t n, uint64_t branch)
{
	struct reorg_ev	e;

	if (!event_of(c, n, &e))
		return branch;
	if (branch != 0)
		return e.second_wins ? e.r : 0;
	return !e.second_wins && in_win(&e, n) ? e.r : 0;
}

/* nonce += k, the nonce a U512 written big-endian (mod 2^512). */
static void
nonce_add(uint8_t nonce[QPOW_NONCE_LEN], uint64_t k)
{
	unsigned __int128	carry = k;
	unsigned		i;

	for (i = QPOW_NONCE_LEN; i-- > 0 && carry != 0; carry >>= 8) {
		carry += nonce[i];
		nonce[i] = (uint8_t)carry;
	}
}

static int
nonce_is_zero(const uint8_t nonce[QPOW_NONCE_LEN])
{
	unsigned	i;

	for (i = 0; i < QPOW_NONCE_LEN; i++)
		if (nonce[i] != 0)
			return 0;
	return 1;
}

void
chain_build_header(const struct dev_chain *c, uint64_t n, uint64_t branch,
    const uint8_t *parent, uint32_t steps, struct header *h)
{
	uint8_t		nonce[QPOW_NONCE_LEN];

	header_init(h);
	h->number = n;
	if (n > 0)
		memcpy(h->parent_hash, parent, 32);
	fill_words(c, TAG_STATE, n, branch, h->state_root, 4);
	fill_words(c, TAG_EXTRINSICS, n, branch, h->extrinsics_root, 4);
	if (c->p.format == FORMAT_QUANTUS)
		fill_words(c, TAG_ZK, n, branch, h->zk_tree_root, 4);
	if (n == 0)
		return;		/* genesis has no digest */
	/* The order a block is built in: pre-runtime, runtime, then seal. */
	header_add_log(h, DIGEST_PRERUNTIME, ENGINE_POW,
	    c->preimage[miner_of(c, n, branch)], 32);
	if (spec_changes_at(c, n))
		header_add_log(h, DIGEST_RUNTIME_UPDATED, NULL, NULL, 0);
	fill_words(c, TAG_NONCE, n, branch, nonce, QPOW_NONCE_LEN / 8);
	nonce_add(nonce, steps);
	header_add_log(h, DIGEST_SEAL, ENGINE_POW, nonce, sizeof(nonce));
}

int64_t
chain_mine(const struct dev_chain *c, uint64_t n, uint64_t salt,
    const uint8_t *parent, uint64_t difficulty, int valid)
{
	struct header	h;
	struct u512	d, hv;
	uint8_t		nonce[QPOW_NONCE_LEN], pre[32];
	uint64_t	steps, limit = valid ? UINT32_MAX : BAD_SEAL_TRIES;

	if (c->p.format != FORMAT_QUANTUS || n == 0)
		return 0;
	/* The pre-hash is the node's: qpow's, of the header as sealed. */
	chain_build_header(c, n, salt, parent, 0, &h);
	if (qpow_seal_of(&h, nonce, pre) != QPOW_SEAL_OK)
		fatalx(CW_EXIT_INTERNAL, "%s chain: block %llu is built "
		    "without a seal", c->name, (unsigned long long)n);
	u512_from_u64(&d, difficulty);
	for (steps = 0; steps <= limit; steps++, nonce_add(nonce, 1)) {
		if (nonce_is_zero(nonce))
			continue;
		qpow_nonce_hash(pre, nonce, &hv);
		if (qpow_meets(&hv, &d) == valid)
			return (int64_t)steps;
	}
	return -1;
}

int
dev_chain_seal_meets(const struct header *h, uint64_t difficulty)
{
	struct u512	d, hv;
	uint8_t		nonce[QPOW_NONCE_LEN], pre[32];

	if (qpow_seal_of(h, nonce, pre) != QPOW_SEAL_OK)
		return 0;
	qpow_nonce_hash(pre, nonce, &hv);
	u512_from_u64(&d, difficulty);
	return qpow_meets(&hv, &d);
}

static void
build_header(const struct dev_chain *c, uint64_t n, uint64_t branch,
    struct header *h)
{
	const struct dev_side	*s;
	struct dev_blkref	 ref = { n, branch };

	uint8_t			*hash;
	uint32_t		*steps;

	if (dev_blkref_side(&ref)) {
		s = chain_side(c, &ref);
		chain_build_header(c, n, s->salt, s->parent, s->steps, h);
		return;
	}
	stored_at(c, n, branch, &hash, &steps);
	chain_build_header(c, n, branch_salt(c, n, branch), n > 0 ?
	    parent_hash(c, n, branch) : NULL, *steps, h);
}

/* Mine block (n, branch) on its parent, then keep its seal and hash. */
static void
mine_block(struct dev_chain *c, uint64_t n, uint64_t branch)
{
	struct dev_blkref	 pref;
	struct header		 h;
	const uint8_t		*parent = NULL;
	uint8_t			*hash;
	uint32_t		*steps;
	uint64_t		 salt = branch_salt(c, n, branch), d = 0;
	int64_t			 found = 0;

	stored_at(c, n, branch, &hash, &steps);
	if (n > 0) {
		parent = parent_hash(c, n, branch);
		parent_ref(c, n, branch, &pref);
		d = dev_chain_difficulty(c, &pref);
		if ((found = chain_mine(c, n, salt, parent, d, 1)) == -1)
			fatalx(CW_EXIT_SYSTEM, "%s chain: no seal for block "
			    "%llu at difficulty %llu within 2^32 nonces",
			    c->name, (unsigned long long)n,
			    (unsigned long long)d);
	}
	*steps = (uint32_t)found;
	chain_build_header(c, n, salt, parent, *steps, &h);
	header_hash(c->p.format, &h, hash);
}

/* 1 if (n, branch) hashes as kept and its seal meets its parent's D. */
static int
verify_one(const struct dev_chain *c, uint64_t n, uint64_t branch)
{
	struct dev_blkref	 pref;
	struct header		 h;
	uint8_t			 again[32], *hash;
	uint32_t		*steps;

	stored_at(c, n, branch, &hash, &steps);
	build_header(c, n, branch, &h);
	header_hash(c->p.format, &h, again);
	if (memcmp(again, hash, 32) != 0)
		return 0;
	if (c->p.format != FORMAT_QUANTUS || n == 0)
		return 1;
	parent_ref(c, n, branch, &pref);
	return dev_chain_seal_meets(&h, dev_chain_difficulty(c, &pref));
}

void
chain_hash_block(struct dev_chain *c, uint64_t n)
{
	uint64_t	r;
	unsigned	d;

	/* Read from the cache beyond what was asked for: already there. */
	if (n < c->preloaded)
		return;
	c->sync_hashed++;
	mine_block(c, n, 0);
	if (dev_chain_reorg_window(c, n, &r, &d))
		mine_block(c, n, r);
}

int
chain_verify_block(const struct dev_chain *c, uint64_t n)
{
	uint64_t	r;
	unsigned	d;

	if (!verify_one(c, n, 0))
		return 0;
	return !dev_chain_reorg_window(c, n, &r, &d) || verify_one(c, n, r);
}

static const uint8_t *
ref_hash_enc(const struct dev_chain *c, uint64_t enc)
{
	if (enc & REF_ORPHAN)
		return orph_at(c, enc & ~REF_ORPHAN)->hash;
	return blk_at(c, enc)->hash;
}

static void
idx_put(uint64_t *tab, uint64_t mask, const uint8_t *hash, uint64_t enc)
{
	uint64_t	i = chain_get_le64(hash) & mask;

	while (tab[i] != 0)
		i = (i + 1) & mask;
	tab[i] = enc + 1;
}

/* With the write lock held. */
static void
idx_grow(struct dev_chain *c)
{
	uint64_t	*ntab, nmask, i;

	nmask = c->idx_mask * 2 + 1;
	ntab = xcalloc(nmask + 1, sizeof(*ntab));
	for (i = 0; i <= c->idx_mask; i++)
		if (c->idx[i] != 0)
			idx_put(ntab, nmask, ref_hash_enc(c, c->idx[i] - 1),
			    c->idx[i] - 1);
	free(c->idx);
	c->idx = ntab;
	c->idx_mask = nmask;
}

static void
idx_insert(struct dev_chain *c, uint64_t enc)
{
	if (2 * (c->idx_used + 1) > c->idx_mask + 1)
		idx_grow(c);
	idx_put(c->idx, c->idx_mask, ref_hash_enc(c, enc), enc);
	c->idx_used++;
}

void
chain_publish(struct dev_chain *c, uint64_t from, uint64_t to)
{
	uint64_t	n, r;
	unsigned	d;
	const uint8_t	*h;
	static const uint8_t zero[32];

	pthread_rwlock_wrlock(&c->idx_lock);
	for (n = from; n < to; n++) {
		idx_insert(c, n);
		if (dev_chain_reorg_window(c, n, &r, &d)) {
			h = orph_at(c, orphan_slot(c, r, d, n))->hash;
			if (memcmp(h, zero, 32) != 0)
				idx_insert(c, REF_ORPHAN |
				    orphan_slot(c, r, d, n));
		}
	}
	pthread_rwlock_unlock(&c->idx_lock);
	atomic_store_explicit(&c->count, to, memory_order_release);
}

/* The highest block below `count` whose time has come (genesis at least). */
static uint64_t
head_at(const struct dev_chain *c, uint64_t count, uint64_t now)
{
	uint64_t	lo = 0, hi, mid;

	if (count == 0)
		return 0;
	hi = count - 1;
	if (chain_block_ms(c, hi) <= now)
		return hi;
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (chain_block_ms(c, mid) <= now)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static double
mono_secs(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
dev_chain_sync(struct dev_chain *c, atomic_int *cancel,
    void (*ready)(struct dev_chain *))
{
	double		t0 = mono_secs();
	uint64_t	want, loaded, n, from, end, now;

	/* The backlog's last block is due at start_ms; that fixes block 0. */
	chain_extend_meta(c, c->tm.backlog + 1);
	c->genesis_ms = (int64_t)c->tm.start_ms -
	    (int64_t)t_ms(c, blk_at(c, c->tm.backlog)->t);
	want = c->tm.backlog + 1;
	loaded = dev_cache_load(c, want);
	c->sync_cached = loaded;
	n = loaded;
	for (;;) {
		/* Blocks keep coming due while we hash: chase the clock. */
		now = now_wall_ms();
		for (;;) {
			chain_extend_meta(c, want + 1);
			if (chain_block_ms(c, want) > now)
				break;
			want++;
		}
		if (n >= want)
			break;
		if (atomic_load(cancel))
			return;
		end = n + SYNC_BATCH < want ? n + SYNC_BATCH : want;
		chain_reserve(c, end, chain_slot_end(c, end));
		for (from = n; n < end; n++)
			chain_hash_block(c, n);
		chain_publish(c, from, end);
		atomic_store_explicit(&c->head, head_at(c, end, now),
		    memory_order_release);
	}
	atomic_store_explicit(&c->head, head_at(c, n, now_wall_ms()),
	    memory_order_release);
	c->sync_secs = mono_secs() - t0;
	atomic_store_explicit(&c->synced, 1, memory_order_release);
	if (ready != NULL)
		ready(c);
	if (c->cache_dir != NULL)
		dev_cache_store(c);
}

int
dev_chain_tick(struct dev_chain *c, uint64_t now)
{
	uint64_t	head, n, count, i;
	int		moved = 0;

	head = dev_chain_head(c);
	count = dev_chain_count(c);
	for (i = 0; i < TICK_MAX; i++) {
		n = head + 1;
		chain_extend_meta(c, n + 1);
		if (chain_block_ms(c, n) > now)
			break;
		if (n >= count) {
			chain_reserve(c, n + 1, chain_slot_end(c, n + 1));
			chain_hash_block(c, n);
			chain_publish(c, n, n + 1);
			count = n + 1;
		}
		head = n;
		moved = 1;
	}
	if (moved)
		atomic_store_explicit(&c->head, head, memory_order_release);
	return moved;
}

uint64_t
dev_chain_next_ms(struct dev_chain *c)
{
	uint64_t	n = dev_chain_head(c) + 1;

	chain_extend_meta(c, n + 1);
	return chain_block_ms(c, n);
}

uint64_t
dev_chain_tip(const struct dev_chain *c, uint64_t head)
{
	struct reorg_ev	e;

	/* A shorter branch wins: the head drops to its top for a block. */
	if (c->p.reorg_work == REORG_SHORTER && head >= 2 &&
	    event_of(c, head - 2, &e) && e.second_wins && head == e.arrive)
		return e.r;
	return head;
}

/* 1 if a view at `head` shows the first branch of e where it loses. */
static int
first_shown(const struct reorg_ev *e, uint64_t head)
{
	return e->second_wins && head < e->arrive;
}

int
dev_chain_block_at(const struct dev_chain *c, uint64_t head, uint64_t n,
    struct dev_blkref *ref)
{
	struct reorg_ev	e;
	uint64_t	count = dev_chain_count(c);

	if (count == 0)
		return -1;
	if (head >= count)
		head = count - 1;
	if (n > dev_chain_tip(c, head))
		return -1;
	ref->number = n;
	ref->branch = 0;
	if (event_of(c, n, &e) && in_lose(&e, n) && first_shown(&e, head))
		ref->branch = e.r;
	return 0;
}

int
dev_chain_is_best(const struct dev_chain *c, uint64_t head,
    const struct dev_blkref *ref)
{
	struct reorg_ev	e;

	if (ref->number > dev_chain_tip(c, head) || dev_blkref_side(ref))
		return 0;
	if (!event_of(c, ref->number, &e) || !in_lose(&e, ref->number))
		return ref->branch == 0;
	if (ref->branch != 0)
		return first_shown(&e, head);
	return !first_shown(&e, head);
}

int
dev_chain_lookup(const struct dev_chain *c, uint64_t head,
    const uint8_t hash[32], struct dev_blkref *ref)
{
	struct dev_chain	*cc = (struct dev_chain *)c;
	struct reorg_ev		 e;
	uint64_t		 i, enc = 0, slot, r;
	int			 found = 0;

	pthread_rwlock_rdlock(&cc->idx_lock);
	for (i = chain_get_le64(hash) & c->idx_mask; c->idx[i] != 0;
	    i = (i + 1) & c->idx_mask)
		if (memcmp(ref_hash_enc(c, c->idx[i] - 1), hash, 32) == 0) {
			enc = c->idx[i] - 1;
			found = 1;
			break;
		}
	pthread_rwlock_unlock(&cc->idx_lock);
	if (!found)
		return -1;
	if (enc & REF_ORPHAN) {
		slot = enc & ~REF_ORPHAN;
		r = (slot / slot_stride(c) + 1) * c->p.reorg_every;
		reorg_ev(c, r, &e);
		ref->branch = r;
		ref->number = e.lo + slot % slot_stride(c);
		/*
		 * Once a node has seen a block, it keeps it: the first
		 * branch's as they come, the second's when it comes.
		 */
		if (e.second_wins)
			return ref->number <= head ? 0 : -1;
		return head >= e.arrive ? 0 : -1;
	}
	ref->number = enc;
	ref->branch = 0;
	if (dev_chain_is_best(c, head, ref))
		return 0;
	/* The winning branch's blocks below the tip at the switch. */
	return -1;
}

uint64_t
dev_chain_finalized(const struct dev_chain *c, uint64_t head)
{
	uint64_t	tip = dev_chain_tip(c, head);

	return tip > c->tm.finality_lag ? tip - c->tm.finality_lag : 0;
}

void
dev_chain_hash(const struct dev_chain *c, const struct dev_blkref *ref,
    uint8_t out[32])
{
	uint8_t		*hash;
	uint32_t	*steps;

	if (dev_blkref_side(ref)) {
		memcpy(out, chain_side(c, ref)->hash, 32);
		return;
	}
	stored_at(c, ref->number, ref->branch, &hash, &steps);
	memcpy(out, hash, 32);
}

void
dev_chain_genesis(const struct dev_chain *c, uint8_t out[32])
{
	memcpy(out, blk_at(c, 0)->hash, 32);
}

void
dev_chain_header(const struct dev_chain *c, const struct dev_blkref *ref,
    struct header *h)
{
	build_header(c, ref->number, ref->branch, h);
}

void
dev_chain_header_json_of(enum chain_format fmt, const struct header *h,
    struct buf *b)
{
	const struct digest_item	*it;
	size_t				 start;
	unsigned			 i;

	buf_reserve(b, 400 + 2 * h->digest_len + 8 * h->n_logs);
	buf_adds(b, "{\"parentHash\":");
	dev_json_hex(b, h->parent_hash, 32, 1);
	buf_adds(b, ",\"number\":");
	dev_json_qty(b, h->number);
	buf_adds(b, ",\"stateRoot\":");
	dev_json_hex(b, h->state_root, 32, 1);
	buf_adds(b, ",\"extrinsicsRoot\":");
	dev_json_hex(b, h->extrinsics_root, 32, 1);
	if (fmt == FORMAT_QUANTUS) {
		buf_adds(b, ",\"zkTreeRoot\":");
		dev_json_hex(b, h->zk_tree_root, 32, 1);
	}
	buf_adds(b, ",\"digest\":{\"logs\":[");
	for (i = 0; i < h->n_logs; i++) {
		it = &h->logs[i];
		/* Each log is the SCALE item: its head, then the payload. */
		switch (it->kind) {
		case DIGEST_RUNTIME_UPDATED:
			start = it->off - 1;
			break;
		case DIGEST_OTHER:
			start = it->off - 1 - scale_compact_len(it->len);
			break;
		default:
			start = it->off - 5 - scale_compact_len(it->len);
			break;
		}
		if (i > 0)
			buf_addc(b, ',');
		dev_json_hex(b, h->digest + start, it->off + it->len - start,
		    1);
	}
	buf_adds(b, "]}}");
}

void
dev_chain_header_json(const struct dev_chain *c,
    const struct dev_blkref *ref, struct buf *b)
{
	struct header	h;

	build_header(c, ref->number, ref->branch, &h);
	dev_chain_header_json_of(c->p.format, &h, b);
}

uint64_t
dev_chain_difficulty(const struct dev_chain *c, const struct dev_blkref *ref)
{
	struct reorg_ev	e;
	uint64_t	d;
	int		second;

	if (dev_blkref_side(ref))
		return chain_side(c, ref)->difficulty;
	/* A losing block was mined at the difficulty of its twin ... */
	d = blk_at(c, ref->number)->difficulty;
	if (!event_of(c, ref->number, &e) || e.heavy == 0)
		return d;
	/* ... unless one branch of the reorg is the heavy one. */
	if (ref->branch != 0) {
		if (!in_lose(&e, ref->number))
			return d;
		second = !e.second_wins;
	} else {
		if (!in_win(&e, ref->number))
			return d;
		second = e.second_wins;
	}
	return (e.heavy == 2) == second ? d * HEAVY : d;
}

uint64_t
dev_chain_timestamp(const struct dev_chain *c, const struct dev_blkref *ref)
{
	if (dev_blkref_side(ref))
		return chain_side(c, ref)->ts_ms;
	return chain_block_ms(c, ref->number);
}

unsigned
dev_chain_miner(const struct dev_chain *c, const struct dev_blkref *ref)
{
	if (dev_blkref_side(ref))
		return miner_of(c, ref->number, chain_side(c, ref)->salt);
	return miner_of(c, ref->number, branch_salt(c, ref->number,
	    ref->branch));
}

void
dev_chain_preimage(const struct dev_chain *c, unsigned miner, uint8_t out[32])
{
	memcpy(out, c->preimage[miner < c->p.n_miners ? miner : 0], 32);
}
