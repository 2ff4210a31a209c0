/*
 * Following each chain: heads stored once, the canonical chain kept as the
 * ancestry of the best head, reorgs walked back to the common ancestor,
 * finality, and the standings, which change in the same transaction as the
 * canonical flags they follow.  Holes become catch-up work: this file
 * writes to the queue (sup_queue.c) and the store, and calls nothing else.
 */
#include "config.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account.h"
#include "hex.h"
#include "log.h"
#include "sup_chain.h"
#include "sup_queue.h"
#include "sup_store.h"
#include "u512.h"
#include "util.h"

#define QUANTUS_FINALITY	100

struct standing {
	uint8_t		miner[32];
	int		known;		/* 0: the x'' row of unknown miners */
	uint64_t	blocks, final_blocks;
	struct u512	work, final_work;
	int64_t		first, last;	/* -1 when none */
	int		dirty;
};

struct sblock {
	uint8_t		hash[32];
	uint8_t		parent[32];
	int64_t		number;
	int		has_miner;
	uint8_t		miner[32];
	int		has_diff;
	uint8_t		diff[64];
	int		canonical;
	int		final;
	int		runtime_updated;
};

static struct chain	**chains;	/* pointers stay valid across reloads */
static size_t		  n_chains;

/* ---- SQL ---- */

static struct store_stmt s_block_get = { "SELECT hash, parent, number, "
    "miner, difficulty, canonical, final, runtime_updated FROM blocks "
    "WHERE chain_id = ? AND hash = ?", NULL, NULL };
static struct store_stmt s_block_at = { "SELECT hash, parent, number, "
    "miner, difficulty, canonical, final, runtime_updated FROM blocks "
    "WHERE chain_id = ? AND number = ? AND canonical = 1", NULL, NULL };
static struct store_stmt s_block_insert = { "INSERT OR IGNORE INTO blocks "
    "(chain_id, hash, number, parent, miner, runtime_updated, "
    "first_endpoint_id, first_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    NULL, NULL };
static struct store_stmt s_block_seen = { "SELECT first_seen FROM blocks "
    "WHERE chain_id = ? AND hash = ?", NULL, NULL };
static struct store_stmt s_block_flags = { "UPDATE blocks SET canonical = ?, "
    "final = ? WHERE chain_id = ? AND hash = ?", NULL, NULL };
static struct store_stmt s_block_state = { "UPDATE blocks SET "
    "difficulty = coalesce(?, difficulty), difficulty_f = coalesce(?, "
    "difficulty_f), timestamp = coalesce(?, timestamp), "
    "state_at = coalesce(state_at, ?) WHERE chain_id = ? AND hash = ?",
    NULL, NULL };
static struct store_stmt s_unfinal = { "SELECT hash, parent, number, miner, "
    "difficulty, canonical, final, runtime_updated FROM blocks "
    "WHERE chain_id = ? AND canonical = 1 AND final = 0 AND number > ? AND "
    "number <= ? ORDER BY number", NULL, NULL };
static struct store_stmt s_chain_get = { "SELECT id, genesis, best_number, "
    "best_hash, final_number FROM chains WHERE name = ?", NULL, NULL };
static struct store_stmt s_chain_insert = { "INSERT INTO chains (name, "
    "format, block_time, backfill_from, finality_depth) VALUES "
    "(?, ?, ?, ?, ?)", NULL, NULL };
static struct store_stmt s_chain_conf = { "UPDATE chains SET format = ?, "
    "block_time = ?, backfill_from = ?, finality_depth = ? WHERE id = ?",
    NULL, NULL };
static struct store_stmt s_chain_best = { "UPDATE chains SET best_number = "
    "?, best_hash = ?, final_number = ?, updated_at = ? WHERE id = ?",
    NULL, NULL };
static struct store_stmt s_chain_genesis = { "UPDATE chains SET genesis = ? "
    "WHERE id = ?", NULL, NULL };
static struct store_stmt s_standings_load = { "SELECT miner, blocks, "
    "final_blocks, work, final_work, first_number, last_number FROM "
    "standings WHERE chain_id = ?", NULL, NULL };
static struct store_stmt s_standing_put = { "INSERT OR REPLACE INTO standings "
    "(chain_id, miner, blocks, final_blocks, work, work_f, final_work, "
    "first_number, last_number) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    NULL, NULL };
static struct store_stmt s_miner_put = { "INSERT OR IGNORE INTO miners "
    "(account, ss58) VALUES (?, ?)", NULL, NULL };
static struct store_stmt s_miner_last = { "SELECT min(number), max(number) "
    "FROM blocks INDEXED BY blocks_miner WHERE chain_id = ? AND "
    "canonical = 1 AND miner = ?",
    NULL, NULL };
static struct store_stmt s_unknown_last = { "SELECT min(number), "
    "max(number) FROM blocks INDEXED BY blocks_miner WHERE chain_id = ? "
    "AND canonical = 1 AND miner IS NULL", NULL, NULL };
static struct store_stmt s_reorg = { "INSERT INTO reorgs (chain_id, at, "
    "depth, ancestor_number, old_tip, new_tip, endpoint_id) VALUES "
    "(?, ?, ?, ?, ?, ?, ?)", NULL, NULL };
static struct store_stmt s_ep_head = { "UPDATE endpoints SET heads_seen = "
    "heads_seen + 1, heads_first = heads_first + ?, best_number = "
    "max(coalesce(best_number, 0), ?), best_at = ?, lag_ms = ? WHERE id = ?",
    NULL, NULL };
/* A version seen before its first block is known gets that block later. */
static struct store_stmt s_runtime = { "INSERT INTO runtime_versions "
    "(chain_id, spec_version, spec_name, first_number, first_hash, seen_at) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (chain_id, spec_version) DO "
    "UPDATE SET first_number = excluded.first_number, first_hash = "
    "excluded.first_hash WHERE excluded.first_number IS NOT NULL AND "
    "(first_number IS NULL OR excluded.first_number < first_number)",
    NULL, NULL };

static void
row_block(sqlite3_stmt *st, struct sblock *b)
{
	memset(b, 0, sizeof(*b));
	store_col_blob(st, 0, b->hash, 32);
	store_col_blob(st, 1, b->parent, 32);
	b->number = sqlite3_column_int64(st, 2);
	b->has_miner = store_col_blob(st, 3, b->miner, 32);
	b->has_diff = store_col_blob(st, 4, b->diff, 64);
	b->canonical = sqlite3_column_int(st, 5);
	b->final = sqlite3_column_int(st, 6);
	b->runtime_updated = sqlite3_column_int(st, 7);
}

static int
block_get(struct chain *ch, const uint8_t hash[32], struct sblock *b)
{
	sqlite3_stmt	*st = store_bind(&s_block_get, "ib", ch->id, hash);
	int		 found = store_row(st);

	if (found)
		row_block(st, b);
	sqlite3_reset(st);
	return found;
}

static int
block_at(struct chain *ch, int64_t number, struct sblock *b)
{
	sqlite3_stmt	*st = store_bind(&s_block_at, "ii", ch->id, number);
	int		 found = store_row(st);

	if (found)
		row_block(st, b);
	sqlite3_reset(st);
	return found;
}

/* ---- standings, in memory, written with the transaction ---- */

static struct standing *
standing(struct chain *ch, const struct sblock *b)
{
	struct standing	*s;

	for (size_t i = 0; i < ch->n_st; i++) {
		s = &ch->st[i];
		if (s->known == b->has_miner &&
		    (!s->known || memcmp(s->miner, b->miner, 32) == 0))
			return s;
	}
	ch->st = xrealloc(ch->st, (ch->n_st + 1) * sizeof(*ch->st));
	s = &ch->st[ch->n_st++];
	memset(s, 0, sizeof(*s));
	s->known = b->has_miner;
	if (s->known) {
		char ss58[SS58_MAX];

		memcpy(s->miner, b->miner, 32);
		if (ss58_encode(ch->format == FORMAT_QUANTUS ?
		    SS58_PREFIX_QUANTUS : 42, s->miner, ss58, sizeof(ss58)) == -1)
			snprintf(ss58, sizeof(ss58), "?");
		store_run(store_bind(&s_miner_put, "bt", s->miner, ss58));
	}
	s->first = s->last = -1;
	return s;
}

static void
work_add(struct u512 *acc, const struct sblock *b, int sign)
{
	struct u512	d;

	if (!b->has_diff)
		return;
	u512_from_le(&d, b->diff);
	if ((sign > 0 ? u512_add(acc, &d) : u512_sub(acc, &d)) == -1)
		fatalx(CW_EXIT_INTERNAL, "work of a miner over- or underflows "
		    "at block #%lld", (long long)b->number);
}

/* Where a miner's first and last canonical blocks are, asked again. */
static void
standing_bounds(struct chain *ch, struct standing *s)
{
	sqlite3_stmt	*st;

	st = s->known ? store_bind(&s_miner_last, "ib", ch->id, s->miner) :
	    store_bind(&s_unknown_last, "i", ch->id);
	s->first = s->last = -1;
	if (store_row(st) && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		s->first = sqlite3_column_int64(st, 0);
		s->last = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
}

static void
standings_load(struct chain *ch)
{
	sqlite3_stmt	*st = store_bind(&s_standings_load, "i", ch->id);
	struct sblock	 b;

	while (store_row(st)) {
		struct standing *s;

		memset(&b, 0, sizeof(b));
		b.has_miner = store_col_blob(st, 0, b.miner, 32);
		s = standing(ch, &b);
		s->blocks = (uint64_t)sqlite3_column_int64(st, 1);
		s->final_blocks = (uint64_t)sqlite3_column_int64(st, 2);
		if (u512_from_dec(&s->work,
		    (const char *)sqlite3_column_text(st, 3)) == -1 ||
		    u512_from_dec(&s->final_work,
		    (const char *)sqlite3_column_text(st, 4)) == -1)
			fatalx(CW_EXIT_SYSTEM, "chain %s: standings hold a "
			    "work that is not a number", ch->name);
		s->first = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 :
		    sqlite3_column_int64(st, 5);
		s->last = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 :
		    sqlite3_column_int64(st, 6);
	}
	sqlite3_reset(st);
}

void
sup_chains_flush(void)
{
	char	work[U512_DEC_LEN], final[U512_DEC_LEN];

	for (size_t c = 0; c < n_chains; c++)
		queue_flush_owed(chains[c]->id, &chains[c]->owed);
	for (size_t c = 0; c < n_chains; c++)
		for (size_t i = 0; i < chains[c]->n_st; i++) {
			struct standing *s = &chains[c]->st[i];
			sqlite3_stmt *st;

			if (!s->dirty)
				continue;
			u512_to_dec(&s->work, work);
			u512_to_dec(&s->final_work, final);
			st = store_bind(&s_standing_put, "iBiitdt",
			    chains[c]->id, s->miner, s->known ? 32 : 0,
			    (int64_t)s->blocks, (int64_t)s->final_blocks, work,
			    u512_to_double(&s->work), final);
			if (s->first >= 0) {
				sqlite3_bind_int64(st, 8, s->first);
				sqlite3_bind_int64(st, 9, s->last);
			}
			store_run(st);
			s->dirty = 0;
		}
}

/* ---- canonical flags ---- */

static void
set_flags(struct chain *ch, const struct sblock *b, int canonical, int final)
{
	store_run(store_bind(&s_block_flags, "iiib", (int64_t)canonical,
	    (int64_t)final, ch->id, b->hash));
}

static void
make_canonical(struct chain *ch, struct sblock *b)
{
	struct standing	*s = standing(ch, b);
	int		 final = ch->have_best && b->number <= ch->final_number;

	set_flags(ch, b, 1, final);
	b->canonical = 1;
	b->final = final;
	s->blocks++;
	work_add(&s->work, b, 1);
	if (final) {
		s->final_blocks++;
		work_add(&s->final_work, b, 1);
	}
	if (s->first < 0 || b->number < s->first)
		s->first = b->number;
	if (b->number > s->last)
		s->last = b->number;
	s->dirty = 1;
	queue_block_canonical(ch->id, &ch->owed, b->hash, b->number,
	    b->runtime_updated);
}

static void
unmake_canonical(struct chain *ch, struct sblock *b)
{
	struct standing	*s = standing(ch, b);

	if (b->final)
		log_warnx("chain %s: block #%lld leaves the chain although it "
		    "was final", ch->name, (long long)b->number);
	set_flags(ch, b, 0, 0);
	s->blocks--;
	work_add(&s->work, b, -1);
	if (b->final) {
		s->final_blocks--;
		work_add(&s->final_work, b, -1);
	}
	b->canonical = b->final = 0;
	if (b->runtime_updated)
		queue_block_left(ch->id, b->hash);
	if (b->number == s->first || b->number == s->last)
		standing_bounds(ch, s);
	s->dirty = 1;
}

/* The chain lacks this block: the queue fetches it, and the hole below. */
static void
want_block(struct chain *ch, const uint8_t hash[32], int64_t number)
{
	queue_missing(ch->id, ch->name, (int64_t)ch->backfill_from, hash,
	    number);
}

/*
 * b has just become canonical: make its ancestors canonical down to where
 * the canonical chain already links, displacing what conflicts.  Returns
 * the number of blocks that left the chain.  A missing ancestor becomes
 * catch-up work.
 */
static unsigned
link_down(struct chain *ch, struct sblock *b, int64_t *linked_at)
{
	struct sblock	cur = *b, c, p;
	unsigned	displaced = 0;

	*linked_at = -1;
	for (;;) {
		int64_t n = cur.number - 1;

		if (cur.number == 0 || n < (int64_t)ch->backfill_from)
			return displaced;
		if (block_at(ch, n, &c)) {
			if (memcmp(c.hash, cur.parent, 32) == 0) {
				*linked_at = n;
				return displaced;
			}
			unmake_canonical(ch, &c);
			displaced++;
		}
		if (!block_get(ch, cur.parent, &p)) {
			want_block(ch, cur.parent, n);
			return displaced;
		}
		make_canonical(ch, &p);
		cur = p;
	}
}

/* Blocks deeper than finality become final, standings with them. */
static void
advance_finality(struct chain *ch)
{
	int64_t		 target;
	sqlite3_stmt	*st;
	struct sblock	*v = NULL;
	size_t		 n = 0;

	if (ch->format == FORMAT_QUANTUS)
		target = ch->best_number - QUANTUS_FINALITY;
	else
		target = ch->finalized_reported < ch->best_number ?
		    ch->finalized_reported : ch->best_number;
	if (target < 0 || target <= ch->final_number)
		return;
	/* Read first, then write: one statement at a time per table. */
	st = store_bind(&s_unfinal, "iii", ch->id, ch->final_number, target);
	while (store_row(st)) {
		v = xrealloc(v, (n + 1) * sizeof(*v));
		row_block(st, &v[n++]);
	}
	sqlite3_reset(st);
	for (size_t i = 0; i < n; i++) {
		struct standing *s = standing(ch, &v[i]);

		set_flags(ch, &v[i], 1, 1);
		s->final_blocks++;
		work_add(&s->final_work, &v[i], 1);
		s->dirty = 1;
	}
	free(v);
	ch->final_number = target;
}

static void
save_best(struct chain *ch)
{
	store_run(store_bind(&s_chain_best, "ibiii", ch->best_number,
	    ch->best_hash, ch->final_number, (int64_t)now_wall_ms(), ch->id));
}

/* A stored block that is the parent of a canonical block is canonical. */
static void
link_up(struct chain *ch, struct sblock *b, int64_t endpoint_id)
{
	struct sblock	child;
	unsigned	displaced = 0;
	int64_t		linked;

	if (b->canonical || !block_at(ch, b->number + 1, &child) ||
	    memcmp(child.parent, b->hash, 32) != 0)
		return;
	if (block_at(ch, b->number, &child)) {
		unmake_canonical(ch, &child);
		displaced++;
	}
	make_canonical(ch, b);
	displaced += link_down(ch, b, &linked);
	if (displaced > 0)
		log_info("chain %s: %u block%s replaced below #%lld while "
		    "catching up", ch->name, displaced, displaced == 1 ? "" :
		    "s", (long long)b->number + 1);
}

/*
 * Where the new best's branch meets the canonical chain, looking only at
 * stored blocks.  0 if it does (or reaches backfill_from); else -1 with
 * the first missing parent.
 */
static void	switch_to(struct chain *, struct sblock *, int64_t);

static int
branch_complete(struct chain *ch, const struct sblock *tip, uint8_t *missing,
    int64_t *missing_number)
{
	struct sblock	cur = *tip, c;

	for (;;) {
		int64_t n = cur.number - 1;

		if (cur.number == 0 || n < (int64_t)ch->backfill_from)
			return 0;
		if (block_at(ch, n, &c) && memcmp(c.hash, cur.parent, 32) == 0)
			return 0;
		if (!block_get(ch, cur.parent, &c)) {
			memcpy(missing, cur.parent, 32);
			*missing_number = n;
			return -1;
		}
		cur = c;
	}
}

/*
 * A new best: it and its ancestry become the canonical chain; blocks of
 * the old branch leave it, all in the current transaction.  If the new
 * branch lacks a block at a height where the chain has one, that is a
 * reorg we cannot finish yet: it waits for the missing parent, so that
 * readers never see half of it.  (A gap above our best, after an outage,
 * is only a hole: the best moves at once and the hole is backfilled.)
 */
static void
adopt(struct chain *ch, struct sblock *tip, int64_t endpoint_id)
{
	uint8_t		missing_hash[32];
	int64_t		missing_number;

	if (ch->have_best && branch_complete(ch, tip, missing_hash,
	    &missing_number) == -1 && missing_number <= ch->best_number) {
		if (!ch->have_pending ||
		    memcmp(ch->pending_tip, tip->hash, 32) != 0)
			log_info("chain %s: #%lld is on another branch; waiting "
			    "for its block #%lld before switching", ch->name,
			    (long long)tip->number, (long long)missing_number);
		ch->have_pending = 1;
		memcpy(ch->pending_tip, tip->hash, 32);
		want_block(ch, missing_hash, missing_number);
		return;
	}
	ch->have_pending = 0;
	switch_to(ch, tip, endpoint_id);
}

/* The new best and its ancestry become the canonical chain. */
static void
switch_to(struct chain *ch, struct sblock *tip, int64_t endpoint_id)
{
	struct sblock	 old;
	uint8_t		 old_tip[32];
	int		 had_best = ch->have_best;
	unsigned	 depth = 0;
	int64_t		 ancestor;

	memcpy(old_tip, ch->best_hash, 32);
	/* Nothing canonical lies above a new best; its own height may. */
	if (block_at(ch, tip->number, &old)) {
		unmake_canonical(ch, &old);
		depth++;
	}
	make_canonical(ch, tip);
	ch->have_best = 1;
	ch->best_number = tip->number;
	memcpy(ch->best_hash, tip->hash, 32);
	depth += link_down(ch, tip, &ancestor);
	if (depth > 0 && had_best) {
		sqlite3_stmt *st = store_bind(&s_reorg, "iiiibbi", ch->id,
		    (int64_t)now_wall_ms(), (int64_t)depth, ancestor, old_tip,
		    tip->hash, endpoint_id);

		if (endpoint_id <= 0)
			sqlite3_bind_null(st, 7);
		store_run(st);
		log_info("chain %s: reorg of %u block%s at #%lld, new best "
		    "#%lld", ch->name, depth, depth == 1 ? "" : "s",
		    (long long)ancestor, (long long)tip->number);
	}
	advance_finality(ch);
	save_best(ch);
}

/*
 * Store a header once.  Returns 1 if it was new.  *b gets the stored row
 * and *first_seen when the block was first stored.
 */
static int
store_header(struct chain *ch, const struct proto_header *h,
    int64_t endpoint_id, uint64_t seen, struct sblock *b, int64_t *first_seen)
{
	sqlite3_stmt	*st;
	int		 inserted;

	st = store_bind(&s_block_insert, "ibibBiii", ch->id, h->hash,
	    (int64_t)h->number, h->parent, h->miner, h->has_miner ? 32 : 0,
	    (int64_t)h->runtime_updated, endpoint_id, (int64_t)seen);
	if (!h->has_miner)
		sqlite3_bind_null(st, 5);
	if (endpoint_id <= 0)
		sqlite3_bind_null(st, 7);
	inserted = store_run(st) > 0;
	if (inserted)
		ch->blocks_ingested++;
	if (!block_get(ch, h->hash, b))
		fatalx(CW_EXIT_INTERNAL, "chain %s: block #%llu vanished",
		    ch->name, (unsigned long long)h->number);
	*first_seen = (int64_t)seen;
	if (!inserted) {
		st = store_bind(&s_block_seen, "ib", ch->id, h->hash);
		if (store_row(st))
			*first_seen = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
	}
	return inserted;
}

void
sup_chain_head(struct chain *ch, int64_t endpoint_id,
    const struct proto_head *hd)
{
	struct sblock	b;
	int64_t		first_seen;
	int		inserted;

	if (hd->kind == HEAD_FINALIZED) {
		if ((int64_t)hd->h.number > ch->finalized_reported)
			ch->finalized_reported = (int64_t)hd->h.number;
		if (ch->format != FORMAT_QUANTUS && ch->have_best) {
			advance_finality(ch);
			save_best(ch);
		}
		return;
	}
	if ((int64_t)hd->h.number < (int64_t)ch->backfill_from)
		return;
	inserted = store_header(ch, &hd->h, endpoint_id, hd->seen_ms, &b,
	    &first_seen);
	store_run(store_bind(&s_ep_head, "iiiii", (int64_t)inserted,
	    (int64_t)hd->h.number, (int64_t)hd->seen_ms,
	    (int64_t)hd->seen_ms - first_seen, endpoint_id));
	if (!ch->have_best || b.number > ch->best_number)
		adopt(ch, &b, endpoint_id);
	else
		link_up(ch, &b, endpoint_id);
	store_maybe_flush();
}

/* A header fetched as catch-up work. */
void
sup_chain_fetched(struct chain *ch, int64_t endpoint_id,
    const struct proto_header *h)
{
	struct sblock	b;
	int64_t		first_seen;

	if ((int64_t)h->number < (int64_t)ch->backfill_from)
		return;
	store_header(ch, h, endpoint_id, now_wall_ms(), &b, &first_seen);
	if (!ch->have_best)
		adopt(ch, &b, endpoint_id);
	else
		link_up(ch, &b, endpoint_id);
	/* A branch waiting for this block may switch now. */
	if (ch->have_pending) {
		struct sblock tip;

		if (block_get(ch, ch->pending_tip, &tip) &&
		    tip.number > ch->best_number)
			adopt(ch, &tip, endpoint_id);
		else
			ch->have_pending = 0;
	}
}

/* Difficulty and time of a block, from a state read. */
void
sup_chain_state(struct chain *ch, const uint8_t hash[32],
    const uint8_t *difficulty, int64_t timestamp)
{
	struct sblock	 b;
	struct u512	 d;
	sqlite3_stmt	*st;

	if (!block_get(ch, hash, &b))
		return;
	if (difficulty != NULL && b.has_diff)
		difficulty = NULL;	/* known already: counted already */
	st = store_prepare(&s_block_state);
	if (difficulty != NULL) {
		u512_from_le(&d, difficulty);
		sqlite3_bind_blob(st, 1, difficulty, 64, SQLITE_TRANSIENT);
		sqlite3_bind_double(st, 2, u512_to_double(&d));
	}
	if (timestamp >= 0)
		sqlite3_bind_int64(st, 3, timestamp);
	if (timestamp >= 0 && (difficulty != NULL || b.has_diff ||
	    ch->format != FORMAT_QUANTUS))
		sqlite3_bind_int64(st, 4, (int64_t)now_wall_ms());
	sqlite3_bind_int64(st, 5, ch->id);
	sqlite3_bind_blob(st, 6, hash, 32, SQLITE_TRANSIENT);
	store_run(st);
	if (difficulty != NULL && b.canonical) {
		struct standing *s = standing(ch, &b);

		memcpy(b.diff, difficulty, 64);
		b.has_diff = 1;
		work_add(&s->work, &b, 1);
		if (b.final)
			work_add(&s->final_work, &b, 1);
		s->dirty = 1;
	}
}

void
sup_chain_runtime(struct chain *ch, const char *spec_name,
    uint64_t spec_version, const uint8_t *at, int64_t number)
{
	sqlite3_stmt	*st;

	st = store_bind(&s_runtime, "iitiii", ch->id, (int64_t)spec_version,
	    spec_name, number, (int64_t)0, (int64_t)now_wall_ms());
	if (at == NULL) {
		sqlite3_bind_null(st, 4);
		sqlite3_bind_null(st, 5);
	} else
		sqlite3_bind_blob(st, 5, at, 32, SQLITE_TRANSIENT);
	if (store_run(st) > 0 && at != NULL)
		log_info("chain %s: runtime %s %llu from block #%lld",
		    ch->name, spec_name, (unsigned long long)spec_version,
		    (long long)number);
	else if (sqlite3_changes(sqlite3_db_handle(st)) > 0)
		log_info("chain %s: runtime %s %llu", ch->name, spec_name,
		    (unsigned long long)spec_version);
}

/* The genesis an endpoint reports: the first one seen is the chain's. */
int
sup_chain_genesis(struct chain *ch, const uint8_t genesis[32])
{
	if (!ch->have_genesis) {
		memcpy(ch->genesis, genesis, 32);
		ch->have_genesis = 1;
		store_run(store_bind(&s_chain_genesis, "bi", genesis, ch->id));
		return 0;
	}
	return memcmp(ch->genesis, genesis, 32) == 0 ? 0 : -1;
}

int
sup_chain_canonical(struct chain *ch, const uint8_t hash[32])
{
	struct sblock	b;

	return block_get(ch, hash, &b) && b.canonical;
}

struct chain *
sup_chain_find(const char *name)
{
	for (size_t i = 0; i < n_chains; i++)
		if (strcmp(chains[i]->name, name) == 0)
			return chains[i];
	return NULL;
}

/* Load or create every configured chain; keeps those already loaded. */
void
sup_chains_load(const struct conf *conf)
{
	for (size_t i = 0; i < conf->n_chains; i++) {
		const struct conf_chain *cc = &conf->chains[i];
		struct chain	*ch = sup_chain_find(cc->name);
		sqlite3_stmt	*st;
		int64_t		 depth = cc->format == FORMAT_QUANTUS ?
				    QUANTUS_FINALITY : 0;

		if (ch == NULL) {
			chains = xrealloc(chains, (n_chains + 1) *
			    sizeof(*chains));
			ch = chains[n_chains++] = xcalloc(1, sizeof(*ch));
			snprintf(ch->name, sizeof(ch->name), "%s", cc->name);
			ch->final_number = -1;
			ch->finalized_reported = -1;
			ch->owed.from = ch->owed.to = -1;
			st = store_bind(&s_chain_get, "t", cc->name);
			if (store_row(st)) {
				ch->id = sqlite3_column_int64(st, 0);
				ch->have_genesis = store_col_blob(st, 1,
				    ch->genesis, 32);
				if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
					ch->have_best = 1;
					ch->best_number =
					    sqlite3_column_int64(st, 2);
					store_col_blob(st, 3, ch->best_hash, 32);
				}
				if (sqlite3_column_type(st, 4) != SQLITE_NULL)
					ch->final_number =
					    sqlite3_column_int64(st, 4);
				sqlite3_reset(st);
			} else {
				sqlite3_reset(st);
				store_run(store_bind(&s_chain_insert, "ttiii",
				    cc->name, chain_format_name(cc->format),
				    (int64_t)cc->block_time,
				    (int64_t)cc->backfill_from, depth));
				ch->id = store_last_id();
			}
			standings_load(ch);
		}
		ch->format = (enum chain_format)cc->format;
		ch->backfill_from = cc->backfill_from;
		ch->block_time = cc->block_time;
		ch->request_timeout = cc->request_timeout;
		ch->hedge_after = cc->hedge_after;
		ch->max_inflight = (unsigned)cc->max_inflight;
		ch->hedge_quantile = (unsigned)cc->hedge_quantile;
		route_hedging_conf(&ch->hedging, ch->hedge_quantile,
		    ch->hedge_after);
		store_run(store_bind(&s_chain_conf, "tiiii",
		    chain_format_name(cc->format), (int64_t)cc->block_time,
		    (int64_t)cc->backfill_from, depth, ch->id));
	}
	store_flush();
}

/*
 * After a rollback: what each chain keeps in memory is read again from
 * the store, as at start (blocks ingested and hedging are counters for
 * monitoring, not the store's, and stay).
 */
void
sup_chains_reload(void)
{
	for (size_t i = 0; i < n_chains; i++) {
		struct chain	*ch = chains[i];
		sqlite3_stmt	*st;

		ch->have_best = 0;
		ch->final_number = -1;
		ch->finalized_reported = -1;
		ch->have_pending = 0;
		ch->owed.from = ch->owed.to = -1;
		free(ch->st);
		ch->st = NULL;
		ch->n_st = 0;
		st = store_bind(&s_chain_get, "t", ch->name);
		if (store_row(st)) {
			ch->have_genesis = store_col_blob(st, 1, ch->genesis,
			    32);
			if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
				ch->have_best = 1;
				ch->best_number = sqlite3_column_int64(st, 2);
				store_col_blob(st, 3, ch->best_hash, 32);
			}
			if (sqlite3_column_type(st, 4) != SQLITE_NULL)
				ch->final_number = sqlite3_column_int64(st, 4);
		}
		sqlite3_reset(st);
		standings_load(ch);
	}
}

/* What the control socket tells of each chain. */
json_t *
sup_chains_json(void)
{
	json_t	*a = json_array();

	for (size_t i = 0; i < n_chains; i++) {
		struct chain	*ch = chains[i];
		json_t		*j = json_object();

		json_object_set_new(j, "chain", json_string(ch->name));
		json_object_set_new(j, "best_number", ch->have_best ?
		    json_integer(ch->best_number) : json_null());
		json_object_set_new(j, "final_number", ch->final_number >= 0 ?
		    json_integer(ch->final_number) : json_null());
		json_object_set_new(j, "blocks_ingested", json_integer(
		    (json_int_t)ch->blocks_ingested));
		json_object_set_new(j, "hedges", json_integer(
		    (json_int_t)ch->hedging.hedges));
		json_object_set_new(j, "hedges_won", json_integer(
		    (json_int_t)ch->hedging.hedges_won));
		json_array_append_new(a, j);
	}
	return a;
}

void
sup_chains_free(void)
{
	for (size_t i = 0; i < n_chains; i++) {
		free(chains[i]->st);
		free(chains[i]);
	}
	free(chains);
	chains = NULL;
	n_chains = 0;
}
