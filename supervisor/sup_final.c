/*
 * Finality: by depth on Quantus, as reported on Substrate (a finalized
 * head moves it only when it is on the canonical chain), and the chain's
 * row (best and final) saved with it.
 */
#include "config.h"

#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "log.h"
#include "sup_block.h"
#include "sup_chain.h"
#include "sup_choice.h"
#include "sup_claim.h"
#include "sup_final.h"
#include "sup_queue.h"
#include "sup_standing.h"
#include "sup_store.h"
#include "sup_window.h"
#include "u512.h"
#include "util.h"

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

static struct store_stmt s_unfinal = { "SELECT " BLOCK_COLUMNS
    " FROM blocks WHERE chain_id = ? AND canonical = 1 AND final = 0 AND "
    "number > ? AND number <= ? ORDER BY number", NULL, NULL };

static struct store_stmt s_chain_best = { "UPDATE chains SET best_number = "
    "?, best_hash = ?, final_number = ?, updated_at = ? WHERE id = ?",
    NULL, NULL };

void
final_advance(struct chain *ch)
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
		block_row(st, &v[n]);
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

		block_flags(ch, &v[i], 1, 1);
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

void
final_save_best(struct chain *ch, uint64_t now)
{
	sqlite3_stmt	*st;

	st = store_bind(&s_chain_best, "ibiii", ch->best_number, ch->best_hash,
	    ch->final_number, (int64_t)now, ch->id);
	if (ch->final_number < 0)
		sqlite3_bind_null(st, 3);	/* nothing final yet */
	store_run(st);
}

static void
final_accept(struct chain *ch, int64_t number, uint64_t now)
{
	if (number > ch->finalized_reported)
		ch->finalized_reported = number;
	ch->have_final_claim = 0;
	if (ch->have_best) {
		final_advance(ch);
		final_save_best(ch, now);
	}
}

static void
final_contradicted(struct chain *ch, int64_t endpoint_id,
    const uint8_t hash[32], int64_t number)
{
	char	hb[24], en[CONF_NAME_MAX + 16];

	block_verdict(ch, endpoint_id, CV_CONTRADICTED, "finalized #%lld %s is "
	    "not on the canonical chain", (long long)number,
	    block_short_hash(hash, hb));
	log_warnx("chain %s: finalized #%lld %s from %s is not on "
	    "the canonical chain; finality stays at #%lld", ch->name,
	    (long long)number, hb, block_ep_name(endpoint_id, en),
	    (long long)ch->final_number);
}

/* A finalized head waiting for its block: is it ours now? */
void
final_check(struct chain *ch, uint64_t now)
{
	struct sblock	b;

	if (!ch->have_final_claim || ch->final_claim_number > ch->best_number)
		return;
	ch->have_final_claim = 0;
	if (block_get(ch, ch->final_claim, &b) && b.canonical)
		final_accept(ch, b.number, now);
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
void
final_reported(struct chain *ch, int64_t endpoint_id,
    const struct proto_header *h, uint64_t now)
{
	struct sblock	b;
	int64_t		number = (int64_t)h->number;

	if (ch->format == FORMAT_QUANTUS)
		return;
	if (block_get(ch, h->hash, &b) && b.canonical) {
		if (number > ch->finalized_reported)
			final_accept(ch, number, now);
	} else if (block_at(ch, number, &b) || number <= ch->final_number)
		final_contradicted(ch, endpoint_id, h->hash, number);
	else if (number > ch->finalized_reported) {
		ch->have_final_claim = 1;
		memcpy(ch->final_claim, h->hash, 32);
		ch->final_claim_number = number;
		ch->final_claim_ep = endpoint_id;
	}
}
