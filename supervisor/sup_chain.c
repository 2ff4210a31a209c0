/*
 * Following each chain: heads stored once, the canonical chain kept as the
 * ancestry of the best head, reorgs walked back to the common ancestor,
 * finality; the standings (sup_standing.c) change in the same transaction
 * as the canonical flags they follow.  Holes become catch-up work: this
 * file writes to the queue (sup_queue.c) and the store.
 */
#include "config.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "log.h"
#include "sup_chain.h"
#include "sup_queue.h"
#include "sup_standing.h"
#include "sup_store.h"
#include "u512.h"
#include "util.h"

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
    "best_hash, final_number, updated_at FROM chains WHERE name = ?",
    NULL, NULL };
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
static struct store_stmt s_reorg = { "INSERT INTO reorgs (chain_id, at, "
    "depth, ancestor_number, old_tip, new_tip, endpoint_id) VALUES "
    "(?, ?, ?, ?, ?, ?, ?)", NULL, NULL };
static struct store_stmt s_ep_head = { "UPDATE endpoints SET heads_seen = "
    "heads_seen + 1, heads_first = heads_first + ?, best_number = "
    "max(coalesce(best_number, 0), ?), best_at = ?, lag_ms = ? WHERE id = ?",
    NULL, NULL };
static struct store_stmt s_ep_best = { "UPDATE endpoints SET best_number = "
    "max(coalesce(best_number, 0), ?1), best_at = max(coalesce(best_at, 0), "
    "?2) WHERE id = ?3", NULL, NULL };
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

void
sup_chains_flush(void)
{
	for (size_t c = 0; c < n_chains; c++)
		queue_flush_owed(chains[c]->id, &chains[c]->owed);
	for (size_t c = 0; c < n_chains; c++)
		standings_flush(chains[c]);
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
	struct standing	*s;
	int		 final = ch->have_best && b->number <= ch->final_number;

	set_flags(ch, b, 1, final);
	b->canonical = 1;
	b->final = final;
	queue_block_canonical(ch->id, &ch->owed, b->hash, b->number,
	    b->runtime_updated);
	if (!standing_counts(b))
		return;
	s = standing(ch, b);
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
}

static void
unmake_canonical(struct chain *ch, struct sblock *b)
{
	struct standing	*s;
	int		 was_final = b->final;

	if (b->final)
		log_warnx("chain %s: block #%lld leaves the chain although it "
		    "was final", ch->name, (long long)b->number);
	set_flags(ch, b, 0, 0);
	b->canonical = b->final = 0;
	if (b->runtime_updated)
		queue_block_left(ch->id, b->hash);
	if (!standing_counts(b))
		return;
	s = standing(ch, b);
	s->blocks--;
	work_add(&s->work, b, -1);
	if (was_final) {
		s->final_blocks--;
		work_add(&s->final_work, b, -1);
	}
	if (b->number == s->first || b->number == s->last)
		standing_bounds(ch, s);
	s->dirty = 1;
}

/* ---- what the chain concludes about endpoints ---- */

/* A short form of a hash for people: 0x1234abcd... */
static const char *
short_hash(const uint8_t h[32], char buf[24])
{
	char	full[67];

	hex_encode(h, 32, full);
	snprintf(buf, 24, "%.10s...", full);
	return buf;
}

static struct store_stmt s_ep_name = { "SELECT name FROM endpoints WHERE "
    "id = ?", NULL, NULL };

/* The endpoint's name for a log line, in buf; "endpoint N" if unknown. */
const char *
sup_chain_ep_name(int64_t id, char buf[CONF_NAME_MAX + 16])
{
	sqlite3_stmt	*st = store_bind(&s_ep_name, "i", id);
	const char	*name;

	snprintf(buf, CONF_NAME_MAX + 16, "endpoint %lld", (long long)id);
	if (store_row(st) &&
	    (name = (const char *)sqlite3_column_text(st, 0)) != NULL)
		snprintf(buf, CONF_NAME_MAX + 16, "%s", name);
	sqlite3_reset(st);
	return buf;
}

/*
 * A verdict on an endpoint, for the layer above to apply (sup_sched.c
 * drains them).  If they are not drained, the oldest are kept: a lie
 * already told does not need telling twice, and an agreement gives way
 * to a lie.
 */
static void __attribute__((format(printf, 4, 5)))
verdict(struct chain *ch, int64_t endpoint_id, enum chain_verdict_kind k,
    const char *fmt, ...)
{
	struct chain_verdict	*v;
	va_list			 ap;

	for (size_t i = 0; k == CV_AGREES && i < ch->n_verdicts; i++)
		if (ch->verdicts[i].kind == CV_AGREES &&
		    ch->verdicts[i].endpoint_id == endpoint_id)
			return;		/* said already */
	if (ch->n_verdicts == CHAIN_VERDICTS_MAX) {
		size_t i;

		for (i = 0; i < ch->n_verdicts; i++)
			if (ch->verdicts[i].kind == CV_AGREES)
				break;
		if (k == CV_AGREES || i == ch->n_verdicts)
			return;
		memmove(&ch->verdicts[i], &ch->verdicts[i + 1],
		    (ch->n_verdicts - i - 1) * sizeof(*v));
		ch->n_verdicts--;
	}
	v = &ch->verdicts[ch->n_verdicts++];
	v->endpoint_id = endpoint_id;
	v->kind = k;
	va_start(ap, fmt);
	vsnprintf(v->reason, sizeof(v->reason), fmt, ap);
	va_end(ap);
}

/* The next verdict of any chain, oldest first; 0 when none. */
int
sup_chains_verdict(struct chain_verdict *out)
{
	for (size_t i = 0; i < n_chains; i++) {
		struct chain *ch = chains[i];

		if (ch->n_verdicts == 0)
			continue;
		*out = ch->verdicts[0];
		memmove(&ch->verdicts[0], &ch->verdicts[1],
		    (ch->n_verdicts - 1) * sizeof(ch->verdicts[0]));
		ch->n_verdicts--;
		return 1;
	}
	return 0;
}

/* Blocks the chain can have grown by from wall ms at to now: four times
 * those expected at its block time. */
static int64_t
growth(const struct chain *ch, uint64_t at, uint64_t now)
{
	uint64_t	bt = ch->block_time > 0 ? ch->block_time : 1000;
	uint64_t	expected;

	expected = now > at ? (now - at) / bt : 0;
	if (expected > (UINT64_C(1) << 40))
		expected = UINT64_C(1) << 40;
	return 4 * (int64_t)expected;
}

/* From block number, seen at wall ms at: what the chain can have made. */
static int64_t
reach_from(const struct chain *ch, int64_t number, uint64_t at, uint64_t now)
{
	return number + CHAIN_FINALITY + growth(ch, at, now);
}

/*
 * The highest number the chain could have reached by now: the last
 * accepted best (or the highest far head believed since, whichever
 * reaches further), plus four times the blocks expected since, plus a
 * margin.  A head above it is far: held, nothing fetched below it.
 */
int64_t
sup_chain_reach(const struct chain *ch, uint64_t now)
{
	int64_t	r;

	if (!ch->have_best)
		return INT64_MAX;
	r = reach_from(ch, ch->best_number, ch->best_at, now);
	if (ch->believed_number >= 0 && reach_from(ch, ch->believed_number,
	    ch->believed_at, now) > r)
		r = reach_from(ch, ch->believed_number, ch->believed_at, now);
	return r;
}

/* ---- stored blocks that link ---- */

static struct store_stmt s_child_at = { "SELECT hash, parent, number, miner, "
    "difficulty, canonical, final, runtime_updated FROM blocks INDEXED BY "
    "blocks_number WHERE chain_id = ? AND number = ? AND parent = ? "
    "ORDER BY first_seen LIMIT 1", NULL, NULL };
static struct store_stmt s_lowest = { "SELECT min(number) FROM blocks "
    "WHERE chain_id = ? AND canonical = 1", NULL, NULL };

static int
child_at(struct chain *ch, int64_t number, const uint8_t parent[32],
    struct sblock *b)
{
	sqlite3_stmt	*st = store_bind(&s_child_at, "iib", ch->id, number,
			    parent);
	int		 found = store_row(st);

	if (found)
		row_block(st, b);
	sqlite3_reset(st);
	return found;
}

/*
 * b has just become canonical: make its ancestors canonical down to where
 * the canonical chain already links, displacing what conflicts.  Returns
 * the number of blocks that left the chain; *linked_at the number where
 * it links, -1 if it does not (the bottom of the chain: the ranges below
 * come from sup_chains_tick).
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
		if (!block_get(ch, cur.parent, &p))
			return displaced;
		make_canonical(ch, &p);
		cur = p;
	}
}

/*
 * Blocks deeper than finality become final, standings with them.  Only
 * canonical blocks are marked, and only up from the last final block (or
 * the chain's first block) to the first hole: a block not linked to the
 * chain below it is never final, nor is anything above a hole.  The first
 * head on an empty store is the best over a gap: nothing is final until
 * the gap links.
 *
 * A whole history that links at once (the end of a first backfill) is
 * marked a slice a call, each block a page of the store written: 1000
 * blocks, about 4 MB and 35 ms, at most every tick.  Like a backfill's
 * answers, slices wait while the checkpoints are behind the WAL.  Slices
 * of 10000 made each commit 40 MB, held the loop 350 ms a time and, back
 * to back, grew the WAL past 1.8 GB at Planck's size.
 */
#define FINAL_SLICE	1000	/* blocks made final per call, at most */

static void
advance_finality(struct chain *ch)
{
	int64_t		 target, last;
	sqlite3_stmt	*st;
	struct sblock	*v = NULL, f;
	size_t		 n = 0, cap = 0;
	uint8_t		 below[32];
	int		 have_below = 0;

	if (ch->format == FORMAT_QUANTUS)
		target = ch->best_number - CHAIN_FINALITY;
	else
		target = ch->finalized_reported < ch->best_number ?
		    ch->finalized_reported : ch->best_number;
	if (target < 0 || target <= ch->final_number || store_wal_behind())
		return;
	last = ch->final_number;
	if (last < (int64_t)ch->backfill_from - 1)
		last = (int64_t)ch->backfill_from - 1;
	if (last >= (int64_t)ch->backfill_from) {
		if (!block_at(ch, last, &f))
			return;		/* never: final blocks stay */
		memcpy(below, f.hash, 32);
		have_below = 1;
	}
	/*
	 * Read first, then write: one statement at a time per table.  Only
	 * the run that links up from the last final block is read: the
	 * first hole ends it (while a gap is filled, at once); and a slice
	 * at a time (a whole history linking at once goes on at the ticks).
	 */
	st = store_bind(&s_unfinal, "iii", ch->id, last, target);
	while (n < FINAL_SLICE && store_row(st)) {
		if (n == cap) {
			cap = cap == 0 ? 64 : 2 * cap;
			v = xrealloc(v, cap * sizeof(*v));
		}
		row_block(st, &v[n]);
		if (v[n].number != last + 1 || (have_below &&
		    memcmp(v[n].parent, below, 32) != 0))
			break;
		last = v[n].number;
		memcpy(below, v[n].hash, 32);
		have_below = 1;
		n++;
	}
	sqlite3_reset(st);
	for (size_t i = 0; i < n; i++) {
		struct standing *s;

		set_flags(ch, &v[i], 1, 1);
		if (!standing_counts(&v[i]))
			continue;
		s = standing(ch, &v[i]);
		s->final_blocks++;
		work_add(&s->final_work, &v[i], 1);
		s->dirty = 1;
	}
	free(v);
	if (last > ch->final_number &&
	    last >= (int64_t)ch->backfill_from)
		ch->final_number = last;
}

static void
save_best(struct chain *ch)
{
	sqlite3_stmt	*st;

	st = store_bind(&s_chain_best, "ibiii", ch->best_number, ch->best_hash,
	    ch->final_number, (int64_t)now_wall_ms(), ch->id);
	if (ch->final_number < 0)
		sqlite3_bind_null(st, 3);	/* nothing final yet */
	store_run(st);
}

static void
write_reorg(struct chain *ch, unsigned depth, int64_t ancestor,
    const uint8_t old_tip[32], const struct sblock *tip, int64_t endpoint_id)
{
	sqlite3_stmt	*st;
	char		 ho[24], hn[24], en[CONF_NAME_MAX + 16];

	st = store_bind(&s_reorg, "iiiibbi", ch->id, (int64_t)now_wall_ms(),
	    (int64_t)depth, ancestor, old_tip, tip->hash, endpoint_id);
	if (endpoint_id <= 0)
		sqlite3_bind_null(st, 7);
	store_run(st);
	log_info("chain %s: reorg of %u block%s above #%lld: best %s -> #%lld "
	    "%s (%s)", ch->name, depth, depth == 1 ? "" : "s",
	    (long long)ancestor, short_hash(old_tip, ho),
	    (long long)tip->number, short_hash(tip->hash, hn),
	    sup_chain_ep_name(endpoint_id, en));
}

/* A stored block that is the parent of a canonical block is canonical. */
static void
link_up(struct chain *ch, struct sblock *b, int64_t endpoint_id)
{
	struct sblock	child, old;
	unsigned	displaced = 0;
	int64_t		linked;
	uint8_t		old_hash[32];

	if (b->canonical || !block_at(ch, b->number + 1, &child) ||
	    memcmp(child.parent, b->hash, 32) != 0)
		return;
	memcpy(old_hash, b->hash, 32);
	if (block_at(ch, b->number, &old)) {
		memcpy(old_hash, old.hash, 32);
		unmake_canonical(ch, &old);
		displaced++;
	}
	make_canonical(ch, b);
	displaced += link_down(ch, b, &linked);
	/* One reorg, whatever path found it. */
	if (displaced > 0)
		write_reorg(ch, displaced, linked, old_hash, b, endpoint_id);
}

/*
 * Where tip's branch meets the canonical chain, looking only at stored
 * blocks: 0 with *ancestor the number of the common block (-1 below the
 * chain's start), or -1 with the first missing parent.  The walk stops
 * below finality: a branch that meets the chain there is reported with
 * its ancestor as it is.
 */
static int
branch_walk(struct chain *ch, const struct sblock *tip, int64_t *ancestor,
    uint8_t *missing, int64_t *missing_number)
{
	struct sblock	cur = *tip, c;

	for (;;) {
		int64_t n = cur.number - 1;

		if (cur.number == 0 || n < (int64_t)ch->backfill_from) {
			*ancestor = n;
			return 0;
		}
		if (block_at(ch, n, &c)) {
			if (memcmp(c.hash, cur.parent, 32) == 0) {
				*ancestor = n;
				return 0;
			}
			if (ch->final_number >= 0 && n <= ch->final_number) {
				*ancestor = n - 1;	/* at most */
				return 0;
			}
		}
		if (!block_get(ch, cur.parent, &c)) {
			memcpy(missing, cur.parent, 32);
			*missing_number = n;
			return -1;
		}
		cur = c;
	}
}

/*
 * Is tip's branch better than the canonical one above their ancestor?
 * A branch that extends the best is.  Quantus: heavier by summed
 * difficulty; *unknown is set when a difficulty of either side is not
 * known yet (the caller asks for it and waits, then falls back to the
 * longer).  Substrate: longer.  Ties keep the first seen, the canonical
 * one.
 */
static int
better(struct chain *ch, const struct sblock *tip, int64_t ancestor,
    int *unknown)
{
	struct u512	wn, wo, d;
	struct sblock	cur = *tip, c;
	int		known = ch->format == FORMAT_QUANTUS &&
			    tip->number - ancestor <= 2 * CHAIN_FINALITY &&
			    ch->best_number - ancestor <= 2 * CHAIN_FINALITY;

	*unknown = 0;
	if (ancestor >= ch->best_number)
		return 1;
	if (!known)
		return tip->number > ch->best_number;
	u512_zero(&wn);
	u512_zero(&wo);
	for (;;) {
		if (!cur.has_diff) {
			known = 0;
			break;
		}
		u512_from_le(&d, cur.diff);
		(void)u512_add(&wn, &d);
		if (cur.number - 1 <= ancestor)
			break;
		if (!block_get(ch, cur.parent, &c)) {
			known = 0;
			break;
		}
		cur = c;
	}
	for (int64_t n = ancestor + 1; known && n <= ch->best_number; n++) {
		if (!block_at(ch, n, &c) || !c.has_diff)
			known = 0;
		else {
			u512_from_le(&d, c.diff);
			(void)u512_add(&wo, &d);
		}
	}
	if (known)
		return u512_cmp(&wn, &wo) > 0;
	*unknown = 1;
	return tip->number > ch->best_number;
}

/* How long a branch waits for its difficulties: 2 block times, >= 2 s. */
static uint64_t
work_wait(const struct chain *ch)
{
	return 2 * ch->block_time > 2000 ? 2 * ch->block_time : 2000;
}

/* Is the block hash at number an ancestor of tip (a few blocks down)? */
static int
descends(struct chain *ch, const struct sblock *tip, const uint8_t hash[32],
    int64_t number)
{
	struct sblock	cur = *tip;

	if (number >= tip->number || tip->number - number > CHAIN_FINALITY)
		return 0;
	while (cur.number > number + 1)
		if (!block_get(ch, cur.parent, &cur))
			return 0;
	return memcmp(cur.parent, hash, 32) == 0;
}

/*
 * The work of tip's branch or of the canonical one is not known: the
 * difficulties of both above the ancestor are asked for (a state item;
 * the scheduler reads the candidate's blocks with the canonical ones,
 * sup_chain_candidate).  1 once the wait is over: the longer wins.
 */
static int
work_waited(struct chain *ch, const struct sblock *tip, int64_t ancestor,
    int64_t endpoint_id)
{
	uint64_t	now = now_wall_ms();
	int64_t		top = tip->number > ch->best_number ? tip->number :
			    ch->best_number;

	if (ch->have_cand && memcmp(ch->cand_tip, tip->hash, 32) == 0)
		return ch->cand_over || now >= ch->cand_since + work_wait(ch);
	/*
	 * A child of the branch waiting: that one is decided first (its
	 * reads are out), this one when it comes again.
	 */
	if (ch->have_cand && descends(ch, tip, ch->cand_tip, ch->cand_number)) {
		queue_state(ch->id, ancestor + 1, top);
		return 0;
	}
	ch->have_cand = 1;
	ch->cand_number = tip->number;
	ch->cand_over = 0;
	ch->cand_ep = endpoint_id;
	memcpy(ch->cand_tip, tip->hash, 32);
	ch->cand_from = ancestor + 1;
	ch->cand_since = now;
	queue_state(ch->id, ancestor + 1, top);
	log_debug("chain %s: branch of #%lld forks at #%lld; its work is not "
	    "known yet: difficulties asked for", ch->name,
	    (long long)tip->number, (long long)ancestor);
	return 0;
}

/* Is hash the branch waiting for its work?  The scheduler asks. */
int
sup_chain_candidate(const struct chain *ch, uint8_t tip[32])
{
	if (!ch->have_cand)
		return 0;
	memcpy(tip, ch->cand_tip, 32);
	return 1;
}

static void	final_check(struct chain *);
static void	climb(struct chain *, const struct sblock *, int64_t);
static void	claims_against(struct chain *, int64_t);

/*
 * The new best and its ancestry become the canonical chain, the old
 * branch leaves it, in the current transaction: one reorg row for the
 * whole switch.
 */
static void
switch_to(struct chain *ch, struct sblock *tip, int64_t endpoint_id)
{
	struct sblock	 old;
	uint8_t		 old_tip[32];
	int		 had_best = ch->have_best;
	unsigned	 depth = 0;
	int64_t		 linked;

	memcpy(old_tip, ch->best_hash, 32);
	/* The old branch above the new tip (a shorter, heavier branch). */
	for (int64_t n = ch->best_number; had_best && n > tip->number; n--)
		if (block_at(ch, n, &old)) {
			unmake_canonical(ch, &old);
			depth++;
		}
	if (block_at(ch, tip->number, &old)) {
		unmake_canonical(ch, &old);
		depth++;
	}
	make_canonical(ch, tip);
	ch->have_best = 1;
	ch->best_number = tip->number;
	memcpy(ch->best_hash, tip->hash, 32);
	ch->best_at = now_wall_ms();
	/*
	 * The claims held without a best (none was far then) are judged
	 * against the first, as any claim, whichever way it came.
	 */
	for (size_t k = 0; !had_best && k < ch->n_claims; k++) {
		struct claim *c = &ch->claims[k];

		c->far = (int64_t)c->h[0].number > sup_chain_reach(ch,
		    ch->best_at);
		c->gap_seen = (int64_t)c->h[c->n - 1].number - 1 -
		    ch->best_number;
	}
	depth += link_down(ch, tip, &linked);
	if (depth > 0 && had_best)
		write_reorg(ch, depth, linked, old_tip, tip, endpoint_id);
	if (ch->have_pending && tip->number >= ch->pending_number)
		ch->have_pending = 0;
	final_check(ch);
	advance_finality(ch);
	save_best(ch);
}

/*
 * A stored block that may become the best: its branch must link to the
 * canonical chain through stored blocks, fork above finality and be
 * better.  A branch that lacks a block waits for it (one parent fetched
 * by hash, the ranges below by sup_chains_tick), so that a reorg is one
 * transaction and readers never see half of it.
 */
static void
adopt(struct chain *ch, struct sblock *tip, int64_t endpoint_id)
{
	uint8_t		missing[32];
	int64_t		missing_number, ancestor;
	char		hb[24];
	int		is_better, unknown, was_cand = 0;
	struct sblock	child;

	if (!ch->have_best) {
		switch_to(ch, tip, endpoint_id);	/* nothing to link to */
		return;
	}
	if (tip->canonical)
		return;
	if (branch_walk(ch, tip, &ancestor, missing, &missing_number) == -1) {
		if (tip->number <= ch->best_number &&
		    ch->format != FORMAT_QUANTUS)
			return;
		if (!ch->have_pending ||
		    memcmp(ch->pending_tip, tip->hash, 32) != 0)
			log_info("chain %s: #%lld is on a branch not linked yet; "
			    "waiting for its block #%lld before switching",
			    ch->name, (long long)tip->number,
			    (long long)missing_number);
		ch->have_pending = 1;
		memcpy(ch->pending_tip, tip->hash, 32);
		ch->pending_number = missing_number;
		queue_missing(ch->id, missing, missing_number);
		return;
	}
	/* Below finality: never; a longer one is a lie. */
	if (ch->final_number >= 0 && ancestor < ch->final_number) {
		if (tip->number <= ch->best_number)
			return;
		verdict(ch, endpoint_id, CV_CONTRADICTED, "branch of #%lld %s "
		    "would replace final block #%lld", (long long)tip->number,
		    short_hash(tip->hash, hb), (long long)ancestor + 1);
		log_warnx("chain %s: branch of #%lld %s forks at or below "
		    "#%lld, below finality #%lld: not applied", ch->name,
		    (long long)tip->number, hb, (long long)ancestor,
		    (long long)ch->final_number);
		return;
	}
	is_better = better(ch, tip, ancestor, &unknown);
	if (unknown && !work_waited(ch, tip, ancestor, endpoint_id))
		return;
	if (ch->have_cand && memcmp(ch->cand_tip, tip->hash, 32) == 0) {
		ch->have_cand = 0;
		was_cand = 1;
		if (unknown)
			log_info("chain %s: work of the branch of #%lld not known "
			    "after %llu ms; %s", ch->name,
			    (long long)tip->number,
			    (unsigned long long)work_wait(ch), is_better ?
			    "the longer one wins" : "the canonical one stays");
	}
	if (!is_better)
		return;
	switch_to(ch, tip, endpoint_id);
	/* Its children, which came while it waited, extend it now. */
	if (was_cand && child_at(ch, tip->number + 1, tip->hash, &child))
		climb(ch, &child, endpoint_id);
}

/*
 * A stored block b not canonical, whose parent is: the stored blocks
 * above it (fetched before it, by number) link now; the highest may
 * become the best.
 */
static void
climb(struct chain *ch, const struct sblock *b, int64_t endpoint_id)
{
	struct sblock	cur = *b, c;

	while (child_at(ch, cur.number + 1, cur.hash, &c))
		cur = c;
	adopt(ch, &cur, endpoint_id);
}

/*
 * Store a header once.  Returns 1 if it was new.  *b gets the stored row
 * and *first_seen when the block was first stored.  The caller checked
 * its number against its parent's, when the parent is stored.
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

/*
 * Every stored header's number is its parent's + 1.  -1, with the
 * verdict against the endpoint that brought it, if not.
 */
static int
check_number(struct chain *ch, int64_t endpoint_id,
    const struct proto_header *h, const struct sblock *parent)
{
	char	hb[24];

	if (parent->number + 1 == (int64_t)h->number)
		return 0;
	verdict(ch, endpoint_id, CV_CONTRADICTED, "header #%llu %s is not "
	    "its parent's + 1 (#%lld)", (unsigned long long)h->number,
	    short_hash(h->hash, hb), (long long)parent->number);
	return -1;
}

/* ---- claims: heads that do not connect yet ---- */

static int
claim_index(struct chain *ch, int64_t endpoint_id)
{
	for (size_t i = 0; i < ch->n_claims; i++)
		if (ch->claims[i].endpoint_id == endpoint_id)
			return (int)i;
	return -1;
}

static void
claim_free(struct chain *ch, size_t i)
{
	struct claim	*c = &ch->claims[i];
	const uint8_t	*want = c->h[c->n - 1].parent;
	int		 shared = 0;

	for (size_t j = 0; j < ch->n_claims; j++)
		if (j != i && memcmp(ch->claims[j].h[ch->claims[j].n - 1].parent,
		    want, 32) == 0)
			shared = 1;
	if (!shared)
		queue_drop_parent(ch->id, want);
	free(c->h);
	ch->claims[i] = ch->claims[--ch->n_claims];
	memset(&ch->claims[ch->n_claims], 0, sizeof(*c));
}

/*
 * Ask for the claim's next parent by hash, within its steps; beyond them,
 * or far, nothing: the ranges come up to it (sup_chains_tick).
 */
static void
claim_fetch(struct chain *ch, struct claim *c)
{
	const struct proto_header	*low = &c->h[c->n - 1];
	struct sblock			 p;

	if (c->far || (int64_t)low->number - 1 < (int64_t)ch->backfill_from ||
	    c->steps >= CHAIN_CLAIM_STEPS || block_get(ch, low->parent, &p))
		return;
	queue_missing(ch->id, low->parent, (int64_t)low->number - 1);
}

/*
 * A claim's headers are stored: its head is its endpoint's, in the
 * endpoints table, as if it had connected when it came (the status's
 * behind and stuck are judged from that record).
 */
static void
claim_head_seen(const struct claim *c)
{
	store_run(store_bind(&s_ep_best, "iii", (int64_t)c->h[0].number,
	    (int64_t)c->head_ms, c->endpoint_id));
}

/*
 * The claim's lowest header has a stored parent: its headers are stored,
 * bottom up, and its head may become the best.  1 if the claim is gone.
 */
static int
claim_connect(struct chain *ch, size_t i)
{
	struct claim			*c = &ch->claims[i];
	const struct proto_header	*low = &c->h[c->n - 1];
	struct sblock			 p, b;
	int64_t				 ep = c->endpoint_id, first_seen;
	uint64_t			 now = now_wall_ms();

	if (!block_get(ch, low->parent, &p))
		return 0;
	if (check_number(ch, ep, low, &p) == -1) {
		claim_free(ch, i);
		return 1;
	}
	for (size_t k = c->n; k-- > 0;)
		store_header(ch, &c->h[k], ep, now, &b, &first_seen);
	claim_head_seen(c);
	claim_free(ch, i);
	/* A head that connected late is evidence all the same. */
	claims_against(ch, ep);
	verdict(ch, ep, CV_AGREES, "connected");
	adopt(ch, &b, ep);
	return 1;
}

/* Claims whose lowest header links now are stored. */
static void
claims_sweep(struct chain *ch)
{
	for (size_t i = 0; i < ch->n_claims; )
		if (!claim_connect(ch, i))
			i++;
}

/* ---- far claims: believed by numbers, or by outlasting ---- */

static int
ep_in(const int64_t *set, unsigned n, int64_t ep)
{
	for (unsigned i = 0; i < n; i++)
		if (set[i] == ep)
			return 1;
	return 0;
}

static void
ep_add(int64_t *set, unsigned *n, unsigned cap, int64_t ep)
{
	if (*n < cap && !ep_in(set, *n, ep))
		set[(*n)++] = ep;
}

/*
 * Is a far claim believed?  Its endpoint and those whose claims share a
 * header with it outnumber the endpoints whose heads connected since it
 * was made (its own among them: a node that went back to our chain
 * after a far head contradicts it).
 */
static int
claim_believed(const struct claim *c)
{
	unsigned	against = 0;

	for (unsigned i = 0; i < c->n_against; i++)
		if (!ep_in(c->agree, c->n_agree, c->against[i]))
			against++;
	return 1 + c->n_agree > against;
}

/* A far claim believed: its ancestry is fetched, the reach counts from it. */
static void
claim_believe(struct chain *ch, struct claim *c, uint64_t now, const char *why)
{
	char	hb[24], en[CONF_NAME_MAX + 16];

	c->far = 0;
	c->believed = 1;
	c->since = now;		/* its patience counts from its first fetch */
	c->gap_mark = (int64_t)c->h[c->n - 1].number - 1 - ch->best_number;
	c->mark_at = now;
	if ((int64_t)c->h[0].number > ch->believed_number) {
		ch->believed_number = (int64_t)c->h[0].number;
		ch->believed_at = now;
	}
	log_info("chain %s: head #%llu %s from %s, beyond the "
	    "reach of best #%lld, is believed (%s); its ancestry is fetched",
	    ch->name, (unsigned long long)c->h[0].number,
	    short_hash(c->h[0].hash, hb), sup_chain_ep_name(c->endpoint_id, en),
	    (long long)ch->best_number, why);
	claim_fetch(ch, c);
}

/*
 * Believed claim i never connected: the reach it raised counts again from
 * the best, or from another believed claim still waiting.
 */
static void
unbelieve(struct chain *ch, size_t i)
{
	ch->believed_number = -1;
	for (size_t j = 0; j < ch->n_claims; j++)
		if (j != i && ch->claims[j].believed &&
		    (int64_t)ch->claims[j].h[0].number > ch->believed_number) {
			ch->believed_number = (int64_t)ch->claims[j].h[0].number;
			ch->believed_at = ch->claims[j].since;
		}
}

/* Does the claim hold h, its parent or its child? */
static int
claim_touches(const struct claim *c, const struct proto_header *h)
{
	for (size_t k = 0; k < c->n; k++)
		if (memcmp(c->h[k].hash, h->hash, 32) == 0 ||
		    memcmp(c->h[k].hash, h->parent, 32) == 0 ||
		    memcmp(c->h[k].parent, h->hash, 32) == 0)
			return 1;
	return 0;
}

/*
 * Header h joined claim i: the claims that touch it agree with it, and a
 * far one of them believed by their numbers now fetches.  Every header is
 * checked when it comes, so two claims that share one are found by the
 * later of the two, however their heads interleave.
 */
static void
claims_agree_on(struct chain *ch, size_t i, const struct proto_header *h,
    uint64_t now)
{
	struct claim	*c = &ch->claims[i];
	char		 why[64];

	for (size_t j = 0; j < ch->n_claims; j++) {
		struct claim *o = &ch->claims[j];

		if (j == i || (!c->far && !o->far) || !claim_touches(o, h))
			continue;
		ep_add(c->agree, &c->n_agree, CHAIN_CLAIMS_MAX, o->endpoint_id);
		ep_add(o->agree, &o->n_agree, CHAIN_CLAIMS_MAX, c->endpoint_id);
	}
	for (size_t j = 0; j < ch->n_claims; j++) {
		struct claim *o = &ch->claims[j];

		if (!o->far || o->n_agree == 0 || !claim_believed(o))
			continue;
		snprintf(why, sizeof(why), "%u endpoints agree on its branch",
		    1 + o->n_agree);
		claim_believe(ch, o, now, why);
	}
}

/*
 * A head of endpoint_id connected: evidence against every far claim made
 * before it.
 */
static void
claims_against(struct chain *ch, int64_t endpoint_id)
{
	for (size_t i = 0; i < ch->n_claims; i++)
		if (ch->claims[i].far)
			ep_add(ch->claims[i].against, &ch->claims[i].n_against,
			    CHAIN_CLAIMS_MAX + 1, endpoint_id);
}

/*
 * A head whose parent is not stored: held as the claim of its endpoint,
 * replacing the one before (or growing it, when it is that one's child).
 * A replaced claim hands on its age and what was against it: an endpoint
 * that keeps announcing heads that do not connect is judged from the
 * first.
 */
static void
hold(struct chain *ch, int64_t endpoint_id, const struct proto_header *h,
    uint64_t seen_ms)
{
	struct claim	*c;
	uint64_t	 now = now_wall_ms(), since = now;
	int		 i = claim_index(ch, endpoint_id);
	int64_t		 against[CHAIN_CLAIMS_MAX + 1];
	unsigned	 n_against = 0;
	char		 hb[24], en[CONF_NAME_MAX + 16];

	if (i >= 0) {
		c = &ch->claims[i];
		if (memcmp(c->h[0].hash, h->hash, 32) == 0)
			return;
		if (memcmp(h->parent, c->h[0].hash, 32) == 0 &&
		    h->number == c->h[0].number + 1 &&
		    c->n < 2 * CHAIN_CLAIM_STEPS) {
			c->h = xrealloc(c->h, (c->n + 1) * sizeof(*c->h));
			memmove(&c->h[1], &c->h[0], c->n * sizeof(*c->h));
			c->h[0] = *h;
			c->n++;
			c->head_ms = seen_ms;
			claims_agree_on(ch, (size_t)i, h, now);
			return;
		}
		/* Unconnected since the first: a new lie does not reset it. */
		since = ch->claims[i].since;
		n_against = ch->claims[i].n_against;
		memcpy(against, ch->claims[i].against, sizeof(against));
		claim_free(ch, (size_t)i);
	}
	if (ch->n_claims == CHAIN_CLAIMS_MAX) {
		size_t oldest = 0;

		for (size_t j = 1; j < ch->n_claims; j++)
			if (ch->claims[j].since < ch->claims[oldest].since)
				oldest = j;
		claim_free(ch, oldest);
	}
	c = &ch->claims[ch->n_claims++];
	memset(c, 0, sizeof(*c));
	c->endpoint_id = endpoint_id;
	c->since = since;
	c->gap_seen = (int64_t)h->number - 1 - ch->best_number;
	c->far = (int64_t)h->number > sup_chain_reach(ch, now);
	c->h = xmalloc(sizeof(*c->h));
	c->h[0] = *h;
	c->n = 1;
	c->head_ms = seen_ms;
	if (c->far) {
		c->n_against = n_against;
		memcpy(c->against, against, sizeof(against));
	}
	claims_agree_on(ch, ch->n_claims - 1, h, now);
	if (c->far)
		log_info("chain %s: head #%llu %s from %s is beyond "
		    "#%lld, what the chain can have made; held, nothing fetched "
		    "below it", ch->name, (unsigned long long)h->number,
		    short_hash(h->hash, hb), sup_chain_ep_name(endpoint_id, en),
		    (long long)sup_chain_reach(ch, now));
	claim_fetch(ch, c);
}

/* ---- the first best, on an empty store ---- */

/* Do two claims hold the same block, or one the parent of the other's? */
static int
claims_agree(const struct claim *a, const struct claim *b)
{
	for (size_t i = 0; i < a->n; i++)
		if (claim_touches(b, &a->h[i]))
			return 1;
	return 0;
}

/* A header of a claim, with the endpoint that claimed it. */
struct claimed {
	struct proto_header	h;
	int64_t			ep;
};

static int
by_number(const void *a, const void *b)
{
	const struct claimed *x = a, *y = b;

	return x->h.number < y->h.number ? -1 : x->h.number > y->h.number;
}

/*
 * Claims i and j (-1: i alone) become the first best, for why: their
 * headers are stored bottom up (each numbered its stored parent's + 1),
 * the highest is the best, and the chain below comes in ranges.
 */
static void
first_best(struct chain *ch, size_t i, int j, const char *why)
{
	const struct claim	*two[2] = { &ch->claims[i],
				    j >= 0 ? &ch->claims[j] : NULL };
	struct claimed		*v;
	struct sblock		 p, b, top;
	int64_t			 first_seen, eps[2];
	size_t			 n = 0;
	uint64_t		 now = now_wall_ms();
	int			 have_top = 0;
	char			 hb[24];

	v = xcalloc(two[0]->n + (two[1] != NULL ? two[1]->n : 0), sizeof(*v));
	for (size_t c = 0; c < 2 && two[c] != NULL; c++)
		for (size_t k = 0; k < two[c]->n; k++) {
			v[n].h = two[c]->h[k];
			v[n++].ep = two[c]->endpoint_id;
		}
	eps[0] = two[0]->endpoint_id;
	eps[1] = two[1] != NULL ? two[1]->endpoint_id : eps[0];
	qsort(v, n, sizeof(*v), by_number);
	for (size_t k = 0; k < n; k++) {
		if (block_get(ch, v[k].h.parent, &p) &&
		    check_number(ch, v[k].ep, &v[k].h, &p) == -1)
			continue;
		store_header(ch, &v[k].h, v[k].ep, now, &b, &first_seen);
		if (!have_top || b.number >= top.number) {
			top = b;
			have_top = 1;
		}
	}
	free(v);
	claim_head_seen(two[0]);
	if (two[1] != NULL)
		claim_head_seen(two[1]);
	ch->disagree_logged = 0;
	/* The later index first: claim_free moves the last into its slot. */
	if (j >= 0 && (size_t)j > i)
		claim_free(ch, (size_t)j);
	claim_free(ch, i);
	if (j >= 0 && (size_t)j < i)
		claim_free(ch, (size_t)j);
	verdict(ch, eps[0], CV_AGREES, "connected");
	if (eps[1] != eps[0])
		verdict(ch, eps[1], CV_AGREES, "connected");
	if (have_top) {
		log_info("chain %s: first head #%lld %s: %s", ch->name,
		    (long long)top.number, short_hash(top.hash, hb), why);
		adopt(ch, &top, eps[0]);
		/* Its endpoints' heads connected: against the far claims. */
		claims_against(ch, eps[0]);
		claims_against(ch, eps[1]);
	}
	claims_sweep(ch);
}

/*
 * Nothing stored links a head on an empty store, so with more than one
 * endpoint configured the first best is a head two endpoints agree on
 * (the same block, or one the parent of the other's): held as claims
 * until then, their parents fetched by hash as evidence (first_tick).
 * 1 if h was held.
 */
static int
first_wait(struct chain *ch, int64_t endpoint_id, const struct proto_head *hd)
{
	const struct proto_header	*h = &hd->h;
	int				 i;

	if (ch->n_endpoints < 2)
		return 0;
	hold(ch, endpoint_id, h, hd->seen_ms);
	if ((i = claim_index(ch, endpoint_id)) < 0)
		return 1;
	for (size_t j = 0; j < ch->n_claims; j++)
		if (j != (size_t)i && claims_agree(&ch->claims[i],
		    &ch->claims[j])) {
			first_best(ch, (size_t)i, (int)j,
			    "two endpoints agree on it");
			break;
		}
	return 1;
}

/*
 * The clock, while there is no best.  A lone claimer (no other endpoint
 * said anything) is believed after 2 block times, 2 s at least.  Claims
 * that disagree wait for two to agree; after 10 block times (10 s at
 * least) the one whose ancestry resolved furthest by hash is the first
 * best (a forged head has no parents to show; ties: the lower), and the
 * others are judged against it as any claim is.
 */
static void
first_tick(struct chain *ch, uint64_t now)
{
	uint64_t	wait = 2 * ch->block_time > 2000 ? 2 * ch->block_time :
			    2000;
	uint64_t	patience = 5 * wait, oldest = UINT64_MAX;
	size_t		k = 0;
	char		hb[24], en[CONF_NAME_MAX + 16];

	if (ch->n_claims == 1 && now >= ch->claims[0].since + wait) {
		first_best(ch, 0, -1, "the only endpoint heard");
		return;
	}
	if (ch->n_claims < 2)
		return;
	for (size_t i = 0; i < ch->n_claims; i++) {
		const struct claim *c = &ch->claims[i], *b = &ch->claims[k];

		if (c->since < oldest)
			oldest = c->since;
		if (c->steps > b->steps || (c->steps == b->steps &&
		    c->h[0].number < b->h[0].number))
			k = i;
	}
	if (now < oldest + patience) {
		if (ch->disagree_logged == 0)
			log_warnx("chain %s: endpoints disagree on the first "
			    "head; waiting up to %llu ms for two to agree",
			    ch->name, (unsigned long long)patience);
		ch->disagree_logged = now;
		return;
	}
	log_warnx("chain %s: endpoints disagree on the first head for %llu "
	    "ms; #%llu %s from %s, whose ancestry resolved furthest "
	    "(%u parent%s), is taken", ch->name,
	    (unsigned long long)(now - oldest),
	    (unsigned long long)ch->claims[k].h[0].number,
	    short_hash(ch->claims[k].h[0].hash, hb),
	    sup_chain_ep_name(ch->claims[k].endpoint_id, en), ch->claims[k].steps,
	    ch->claims[k].steps == 1 ? "" : "s");
	first_best(ch, k, -1, "its ancestry resolved furthest");
}

/* A header fetched by hash for claims: 1 if one waited for it. */
static int
claim_parent(struct chain *ch, const struct proto_header *h)
{
	int	held = 0;

	for (size_t i = 0; i < ch->n_claims; ) {
		struct claim	*c = &ch->claims[i];
		struct sblock	 p;

		if (memcmp(c->h[c->n - 1].parent, h->hash, 32) != 0) {
			i++;
			continue;
		}
		held = 1;
		/* The claim's header said this parent had another number. */
		p.number = (int64_t)h->number;
		if (check_number(ch, c->endpoint_id, &c->h[c->n - 1], &p) ==
		    -1) {
			claim_free(ch, i);
			continue;
		}
		c->h = xrealloc(c->h, (c->n + 1) * sizeof(*c->h));
		c->h[c->n++] = *h;
		c->steps++;		/* no more time: a liar has parents */
		claim_fetch(ch, c);
		i++;
	}
	return held;
}

/* The number of the endpoint's head as the endpoints table keeps it. */
static void
head_seen(struct chain *ch, int64_t endpoint_id, const struct proto_head *hd,
    int inserted, int64_t first_seen)
{
	store_run(store_bind(&s_ep_head, "iiiii", (int64_t)inserted,
	    (int64_t)hd->h.number, (int64_t)hd->seen_ms,
	    (int64_t)hd->seen_ms - first_seen, endpoint_id));
}

/* ---- finality reported (substrate) ---- */

static void
final_accept(struct chain *ch, int64_t number)
{
	if (number > ch->finalized_reported)
		ch->finalized_reported = number;
	ch->have_final_claim = 0;
	if (ch->have_best) {
		advance_finality(ch);
		save_best(ch);
	}
}

static void
final_contradicted(struct chain *ch, int64_t endpoint_id,
    const uint8_t hash[32], int64_t number)
{
	char	hb[24], en[CONF_NAME_MAX + 16];

	verdict(ch, endpoint_id, CV_CONTRADICTED, "finalized #%lld %s is not "
	    "on the canonical chain", (long long)number, short_hash(hash, hb));
	log_warnx("chain %s: finalized #%lld %s from %s is not on "
	    "the canonical chain; finality stays at #%lld", ch->name,
	    (long long)number, hb, sup_chain_ep_name(endpoint_id, en),
	    (long long)ch->final_number);
}

/* A finalized head waiting for its block: is it ours now? */
static void
final_check(struct chain *ch)
{
	struct sblock	b;

	if (!ch->have_final_claim || ch->final_claim_number > ch->best_number)
		return;
	ch->have_final_claim = 0;
	if (block_get(ch, ch->final_claim, &b) && b.canonical)
		final_accept(ch, b.number);
	else if (block_at(ch, ch->final_claim_number, &b))
		final_contradicted(ch, ch->final_claim_ep, ch->final_claim,
		    ch->final_claim_number);
	else
		ch->have_final_claim = 1;	/* a hole there: wait on */
}

/*
 * Substrate: a finalized head moves finality only when it is on the
 * canonical chain; one that contradicts it is reported, one above the
 * best waits for it.  Quantus finality is by depth alone.
 */
static void
finalized(struct chain *ch, int64_t endpoint_id, const struct proto_header *h)
{
	struct sblock	b;
	int64_t		number = (int64_t)h->number;

	if (ch->format == FORMAT_QUANTUS)
		return;
	if (block_get(ch, h->hash, &b) && b.canonical) {
		if (number > ch->finalized_reported)
			final_accept(ch, number);
	} else if (block_at(ch, number, &b) || number <= ch->final_number)
		final_contradicted(ch, endpoint_id, h->hash, number);
	else if (number > ch->finalized_reported) {
		ch->have_final_claim = 1;
		memcpy(ch->final_claim, h->hash, 32);
		ch->final_claim_number = number;
		ch->final_claim_ep = endpoint_id;
	}
}

/* ---- what arrives ---- */

/*
 * A head from an endpoint's subscription.  Stored when its parent is (or
 * on an empty store: nothing to link to); else it is a claim, held.
 */
void
sup_chain_head(struct chain *ch, int64_t endpoint_id,
    const struct proto_head *hd)
{
	struct sblock	b, p;
	int64_t		first_seen;
	int		inserted;

	if (hd->kind == HEAD_FINALIZED) {
		finalized(ch, endpoint_id, &hd->h);
		return;
	}
	if ((int64_t)hd->h.number < (int64_t)ch->backfill_from)
		return;
	if (!ch->have_best && first_wait(ch, endpoint_id, hd))
		return;
	if (ch->have_best && memcmp(hd->h.parent, ch->best_hash, 32) == 0) {
		/* The usual head: on the best, whose number we know. */
		p.number = ch->best_number;
		if (check_number(ch, endpoint_id, &hd->h, &p) == -1)
			return;
	} else if (!block_get(ch, hd->h.hash, &b)) {
		int parent = hd->h.number > 0 &&
		    block_get(ch, hd->h.parent, &p);

		if (parent && check_number(ch, endpoint_id, &hd->h, &p) == -1)
			return;
		if (!parent && ch->have_best && hd->h.number > 0 &&
		    (int64_t)hd->h.number - 1 >= (int64_t)ch->backfill_from) {
			hold(ch, endpoint_id, &hd->h, hd->seen_ms);
			return;
		}
	}
	inserted = store_header(ch, &hd->h, endpoint_id, hd->seen_ms, &b,
	    &first_seen);
	head_seen(ch, endpoint_id, hd, inserted, first_seen);
	claims_against(ch, endpoint_id);
	/*
	 * Its claim, if any, stays: a liar sends real heads between its
	 * lies.  It agrees with the chain when it holds none.
	 */
	if (claim_index(ch, endpoint_id) < 0)
		verdict(ch, endpoint_id, CV_AGREES, "connected");
	if (!ch->have_best || !b.canonical)
		adopt(ch, &b, endpoint_id);
	link_up(ch, &b, endpoint_id);
	claims_sweep(ch);
	store_maybe_flush();
}

/* A header fetched as catch-up work: by hash for a claim, or by number. */
void
sup_chain_fetched(struct chain *ch, int64_t endpoint_id,
    const struct proto_header *h)
{
	struct sblock	b, p;
	int64_t		first_seen;
	char		hb[24];

	if ((int64_t)h->number < (int64_t)ch->backfill_from)
		return;
	/* Asked for by hash too (a range answered first): not any more. */
	queue_drop_parent(ch->id, h->hash);
	if (claim_parent(ch, h)) {
		claims_sweep(ch);
		return;
	}
	/*
	 * A parent for a first head whose claim has gone since (replaced by
	 * its endpoint's next head): not a first best, which two endpoints
	 * must agree on; the ranges bring it again once there is one.
	 */
	if (!ch->have_best && ch->n_endpoints >= 2) {
		log_debug("chain %s: #%llu %s came for a claim gone since; "
		    "dropped", ch->name, (unsigned long long)h->number,
		    short_hash(h->hash, hb));
		return;
	}
	if (h->number > 0 && block_get(ch, h->parent, &p) &&
	    check_number(ch, endpoint_id, h, &p) == -1)
		return;
	store_header(ch, h, endpoint_id, now_wall_ms(), &b, &first_seen);
	if (!ch->have_best)
		adopt(ch, &b, endpoint_id);
	else
		link_up(ch, &b, endpoint_id);
	/* Above the best, or beside it: what was fetched above links now. */
	if (!b.canonical && ch->have_best && block_get(ch, b.hash, &b) &&
	    !b.canonical && h->number > 0 && block_get(ch, h->parent, &p) &&
	    p.canonical)
		climb(ch, &b, endpoint_id);
	/* A branch waiting for this block may switch now. */
	if (ch->have_pending) {
		struct sblock tip;

		if (block_get(ch, ch->pending_tip, &tip) && !tip.canonical)
			adopt(ch, &tip, endpoint_id);
		else
			ch->have_pending = 0;
	}
	claims_sweep(ch);
}

/* ---- the clock: claims judged, ranges queued a window at a time ---- */

/*
 * How long a claim may wait for its ranges without the gap below it
 * closing: ten block times, 10 s at least.  Also how long every endpoint
 * of the chain may be inconsistent before the rule is suspected.
 */
uint64_t
sup_chain_patience(const struct chain *ch)
{
	return 10 * ch->block_time < 10000 ? 10000 : 10 * ch->block_time;
}

/*
 * A believed claim was far: the best moving with the others' heads closes
 * its gap too, at the chain's pace, and would keep a head no block of
 * which exists (two liars agreeing on it) waiting for ever.  Progress
 * towards it is its gap closing faster than the chain can grow (the
 * reach's pace) since it last did: its ancestry being fetched.
 */
static void
believed_closing(const struct chain *ch, struct claim *c, int64_t gap,
    uint64_t now)
{
	int64_t	grown = growth(ch, c->mark_at, now);

	if (gap > 0 && c->gap_mark - gap > grown) {
		c->since = now;
		c->gap_mark = gap;
		c->mark_at = now;
	}
}

/*
 * What the ranges above the best are for: the lowest header of the
 * highest claim not far, or a branch waiting for a block above the best;
 * -1 for nothing.
 */
static int64_t
window_top(const struct chain *ch)
{
	int64_t	top = -1;

	for (size_t i = 0; i < ch->n_claims; i++) {
		const struct claim *c = &ch->claims[i];

		if (!c->far && (int64_t)c->h[c->n - 1].number - 1 > top)
			top = (int64_t)c->h[c->n - 1].number - 1;
	}
	if (ch->have_pending && ch->pending_number > top)
		top = ch->pending_number;
	return top;
}

/*
 * A claim dropped as a lie: the ranges queued for it above what is still
 * wanted (the other claims, a waiting branch) go, unless an endpoint holds
 * them now; a forged far head would otherwise leave its window queued, to
 * be asked of every endpoint in turn.
 */
static void
window_shrink(struct chain *ch)
{
	int64_t	top = window_top(ch);
	int	n;

	if (!ch->have_best || ch->queued_up <= ch->best_number ||
	    ch->queued_up <= top)
		return;
	if (top < ch->best_number)
		top = ch->best_number;
	if ((n = queue_drop_headers_above(ch->id, top)) > 0)
		log_info("chain %s: %d range%s above #%lld, queued for a "
		    "dropped claim, removed", ch->name, n, n == 1 ? "" : "s",
		    (long long)top);
	ch->queued_up = top;
}

static void
claims_expire(struct chain *ch, uint64_t now)
{
	uint64_t	patience = sup_chain_patience(ch);
	char		hb[24], en[CONF_NAME_MAX + 16];

	if (!ch->have_best) {
		first_tick(ch, now);
		return;
	}
	for (size_t i = 0; i < ch->n_claims; ) {
		struct claim *c = &ch->claims[i];

		/*
		 * Waiting for the ranges: progress is the gap below it
		 * closing (not the best moving: a liar's claims move with it).
		 */
		int64_t gap = (int64_t)c->h[c->n - 1].number - 1 -
		    ch->best_number;

		if (c->believed)
			believed_closing(ch, c, gap, now);
		else if (!c->far && gap > 0 && gap < c->gap_seen)
			c->since = now;
		c->gap_seen = gap;
		if (now < c->since || now - c->since < patience) {
			i++;
			continue;
		}
		/*
		 * Far, and no more endpoints against it than for it: the
		 * reach is suspected, not the endpoint (a stale best: the
		 * daemon started beside nodes still syncing, or one came back
		 * synced).  Its ancestry is fetched as any claim's.
		 */
		if (c->far && claim_believed(c)) {
			char why[96];

			snprintf(why, sizeof(why), "no head against it in "
			    "%llu ms", (unsigned long long)(now - c->since));
			claim_believe(ch, c, now, why);
			i++;
			continue;
		}
		verdict(ch, c->endpoint_id, CV_CONTRADICTED, "head #%llu %s "
		    "never connected", (unsigned long long)c->h[0].number,
		    short_hash(c->h[0].hash, hb));
		if (c->believed)
			unbelieve(ch, i);
		log_info("chain %s: head #%llu %s from %s did not "
		    "connect in %llu ms (%u parent%s fetched by hash, %zu "
		    "header%s held); dropped", ch->name,
		    (unsigned long long)c->h[0].number, hb,
		    sup_chain_ep_name(c->endpoint_id, en),
		    (unsigned long long)(now - c->since), c->steps,
		    c->steps == 1 ? "" : "s", c->n, c->n == 1 ? "" : "s");
		claim_free(ch, i);
		window_shrink(ch);
	}
}

/*
 * Between the best and the lowest claim not far (or a branch waiting for
 * a block above the best): ranges, at most a window above the best.
 */
static void
window_up(struct chain *ch)
{
	int64_t	top = window_top(ch), from, to;

	if (!ch->have_best || top <= ch->best_number)
		return;
	if (ch->queued_up > ch->best_number &&
	    !queue_headers_within(ch->id, ch->best_number + 1, ch->queued_up))
		ch->queued_up = ch->best_number;	/* fetched, not linked */
	from = ch->queued_up + 1 > ch->best_number + 1 ? ch->queued_up + 1 :
	    ch->best_number + 1;
	to = top < ch->best_number + CHAIN_WINDOW ? top :
	    ch->best_number + CHAIN_WINDOW;
	if (from > to)
		return;
	log_info("chain %s: blocks #%lld to #%lld missing above the best; "
	    "queued", ch->name, (long long)from, (long long)to);
	queue_ranges(ch->id, from, to);
	ch->queued_up = to;
}

/* Below the lowest canonical block, down to backfill_from: a window. */
static void
window_down(struct chain *ch)
{
	sqlite3_stmt	*st;
	int64_t		 low = -1, from, to;

	if (!ch->have_best)
		return;
	st = store_bind(&s_lowest, "i", ch->id);
	if (store_row(st) && sqlite3_column_type(st, 0) != SQLITE_NULL)
		low = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (low <= (int64_t)ch->backfill_from)
		return;
	if (ch->queued_down < 0 || ch->queued_down > low ||
	    !queue_headers_within(ch->id, ch->queued_down, low - 1))
		ch->queued_down = low;
	from = low - CHAIN_BACKFILL_WINDOW > (int64_t)ch->backfill_from ?
	    low - CHAIN_BACKFILL_WINDOW : (int64_t)ch->backfill_from;
	to = ch->queued_down - 1;
	if (from > to)
		return;
	if (ch->queued_down == low)
		log_info("chain %s: blocks #%lld to #%lld missing below the "
		    "chain; queued", ch->name, (long long)from, (long long)to);
	queue_ranges(ch->id, from, to);
	ch->queued_down = from;
}

/* Every tick of the scheduler: bounded work per chain. */
void
sup_chains_tick(uint64_t now)
{
	for (size_t i = 0; i < n_chains; i++) {
		struct chain	*ch = chains[i];
		struct sblock	 tip;

		if (ch->have_cand && now >= ch->cand_since + work_wait(ch)) {
			ch->cand_over = 1;
			if (block_get(ch, ch->cand_tip, &tip) && !tip.canonical)
				adopt(ch, &tip, ch->cand_ep);
			ch->have_cand = 0;
		}
		claims_expire(chains[i], now);
		window_up(chains[i]);
		window_down(chains[i]);
		/* Finality behind a gap that linked: a slice a tick. */
		if (ch->have_best) {
			int64_t was = ch->final_number;

			advance_finality(ch);
			if (ch->final_number != was)
				save_best(ch);
		}
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
	if (difficulty != NULL && b.canonical && standing_counts(&b)) {
		struct standing *s = standing(ch, &b);

		memcpy(b.diff, difficulty, 64);
		b.has_diff = 1;
		work_add(&s->work, &b, 1);
		if (b.final)
			work_add(&s->final_work, &b, 1);
		s->dirty = 1;
	}
	/* The branch waiting for its work may be decided now. */
	if (difficulty != NULL && ch->have_cand && b.number >= ch->cand_from) {
		struct sblock tip;

		if (block_get(ch, ch->cand_tip, &tip) && !tip.canonical)
			adopt(ch, &tip, ch->cand_ep);
		else
			ch->have_cand = 0;
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
				    CHAIN_FINALITY : 0;

		if (ch == NULL) {
			chains = xrealloc(chains, (n_chains + 1) *
			    sizeof(*chains));
			ch = chains[n_chains++] = xcalloc(1, sizeof(*ch));
			snprintf(ch->name, sizeof(ch->name), "%s", cc->name);
			ch->final_number = -1;
			ch->finalized_reported = -1;
			ch->owed.from = ch->owed.to = -1;
			ch->queued_up = ch->queued_down = -1;
			ch->best_at = now_wall_ms();
			ch->believed_number = -1;
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
				/* Reach counts from when the best was taken. */
				if (sqlite3_column_type(st, 5) != SQLITE_NULL)
					ch->best_at = (uint64_t)
					    sqlite3_column_int64(st, 5);
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
		ch->n_endpoints = cc->n_endpoints;
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
		for (size_t j = 0; j < chains[i]->n_claims; j++)
			free(chains[i]->claims[j].h);
		free(chains[i]->st);
		free(chains[i]);
	}
	free(chains);
	chains = NULL;
	n_chains = 0;
}
