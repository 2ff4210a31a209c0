/*
 * How far a chain can have grown (its reach: a head beyond it is far),
 * and the ranges of headers queued a window at a time above the best, for
 * the claims, and below the chain, for the backfill.
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
 * By the canonical index: through blocks_number, which the planner takes
 * otherwise, it read every header fetched below the lowest canonical
 * block (a backfill's window, hundreds) at each tick.
 */
static struct store_stmt s_lowest = { "SELECT min(number) FROM blocks "
    "INDEXED BY blocks_canonical WHERE chain_id = ? AND canonical = 1",
    NULL, NULL };

/* Blocks the chain can have grown by from wall ms at to now: four times
 * those expected at its block time. */
int64_t
window_growth(const struct chain *ch, uint64_t at, uint64_t now)
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
	return number + CHAIN_FINALITY + window_growth(ch, at, now);
}

/*
 * The highest number the chain could have reached by now: the last
 * accepted best (or the highest far head believed since, whichever
 * reaches further), plus four times the blocks expected since, plus a
 * margin.  A head above it is far: held, nothing fetched below it.
 */
int64_t
window_reach(const struct chain *ch, uint64_t now)
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
 * A claim dropped (a lie, replaced by its endpoint's next head, or
 * evicted for room): the ranges queued for it above what is still wanted
 * (the other claims, a waiting branch) go, unless an endpoint holds them
 * now; a forged far head would otherwise leave its window queued, to be
 * asked of every endpoint in turn.
 */
void
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

/*
 * Between the best and the lowest claim not far (or a branch waiting for
 * a block above the best): ranges, at most a window above the best.
 */
void
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
void
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
