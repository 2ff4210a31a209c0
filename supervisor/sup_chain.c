/*
 * Following each chain: its identity and row, loaded and reloaded; what
 * arrives (heads, fetched headers, state, runtime versions) handed to the
 * layers below it -- claims (sup_claim.c), fork choice (sup_choice.c),
 * finality (sup_final.c), the windows of ranges (sup_window.c), stored
 * blocks (sup_block.c) -- and the chain's clock, a tick of the main loop.
 * Each entry point returns what it concluded about endpoints (verdicts)
 * to its caller, which has sup_judge.c tell their health.
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
#include "sup_block.h"
#include "sup_chain.h"
#include "sup_choice.h"
#include "sup_claim.h"
#include "sup_cross.h"
#include "sup_final.h"
#include "sup_queue.h"
#include "sup_seal.h"
#include "sup_standing.h"
#include "sup_store.h"
#include "sup_time.h"
#include "sup_window.h"
#include "u512.h"
#include "util.h"

static struct chain	**chains;	/* pointers stay valid across reloads */
static size_t		  n_chains;

/* ---- SQL ---- */

/*
 * state_endpoint_id: who answered the difficulty, else the time; the
 * block's own work and seal verdict, when its parent's difficulty is
 * known, in the same write.
 */
static struct store_stmt s_block_state = { "UPDATE blocks SET "
    "difficulty = coalesce(?1, difficulty), difficulty_f = coalesce(?2, "
    "difficulty_f), timestamp = coalesce(timestamp, ?3), "
    "state_at = coalesce(state_at, ?4), state_endpoint_id = CASE WHEN "
    "?1 IS NOT NULL OR state_endpoint_id IS NULL THEN coalesce(?5, "
    "state_endpoint_id) ELSE state_endpoint_id END, work = coalesce(work, "
    "?8), work_f = coalesce(work_f, ?9), proven = coalesce(proven, ?10) "
    "WHERE chain_id = ?6 AND hash = ?7", NULL, NULL };
static struct store_stmt s_chain_get = { "SELECT id, genesis, best_number, "
    "best_hash, final_number, updated_at, unproven_since FROM chains "
    "WHERE name = ?", NULL, NULL };
static struct store_stmt s_chain_insert = { "INSERT INTO chains (name, "
    "format, block_time, backfill_from, finality_depth) VALUES "
    "(?, ?, ?, ?, ?)", NULL, NULL };
static struct store_stmt s_chain_conf = { "UPDATE chains SET format = ?, "
    "block_time = ?, backfill_from = ?, finality_depth = ? WHERE id = ?",
    NULL, NULL };
static struct store_stmt s_chain_genesis = { "UPDATE chains SET genesis = ? "
    "WHERE id = ?", NULL, NULL };
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

void
sup_chains_flush(void)
{
	for (size_t c = 0; c < n_chains; c++)
		queue_flush_owed(chains[c]->id, &chains[c]->owed);
	for (size_t c = 0; c < n_chains; c++)
		standings_flush(chains[c]);
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

/* ---- what arrives ---- */

/*
 * A head from an endpoint's subscription.  Stored when its parent is (or
 * on an empty store: nothing to link to); else it is a claim, held.
 */
static void
head_in(struct chain *ch, int64_t endpoint_id, const struct proto_head *hd,
    uint64_t now)
{
	struct sblock	b, p;
	int64_t		first_seen;
	int		inserted;

	if (hd->kind == HEAD_FINALIZED) {
		final_reported(ch, endpoint_id, &hd->h, now);
		return;
	}
	if ((int64_t)hd->h.number < (int64_t)ch->backfill_from)
		return;
	if (!ch->have_best && claim_first_wait(ch, endpoint_id, hd, now))
		return;
	if (ch->have_best && memcmp(hd->h.parent, ch->best_hash, 32) == 0) {
		/* The usual head: on the best, whose number we know. */
		p.number = ch->best_number;
		if (block_check_number(ch, endpoint_id, &hd->h, &p) == -1)
			return;
	} else if (!block_get(ch, hd->h.hash, &b)) {
		int parent = hd->h.number > 0 &&
		    block_get(ch, hd->h.parent, &p);

		if (parent && block_check_number(ch, endpoint_id, &hd->h,
		    &p) == -1)
			return;
		if (!parent && ch->have_best && hd->h.number > 0 &&
		    (int64_t)hd->h.number - 1 >= (int64_t)ch->backfill_from) {
			claim_hold(ch, endpoint_id, &hd->h, hd->seen_ms, now);
			return;
		}
	}
	inserted = block_store(ch, &hd->h, endpoint_id, hd->seen_ms, &b,
	    &first_seen);
	head_seen(ch, endpoint_id, hd, inserted, first_seen);
	claims_against(ch, endpoint_id);
	/*
	 * Its claim, if any, stays: a liar sends real heads between its
	 * lies.  It agrees with the chain when it holds none.
	 */
	if (claim_index(ch, endpoint_id) < 0)
		block_verdict(ch, endpoint_id, CV_AGREES, "connected");
	if (!ch->have_best || !b.canonical)
		choice_adopt(ch, &b, endpoint_id, now);
	choice_link_up(ch, &b, endpoint_id, now);
	claims_sweep(ch, now);
	store_maybe_flush();
}

/* A header fetched as catch-up work: by hash for a claim, or by number. */
static void
fetched_in(struct chain *ch, int64_t endpoint_id, const struct proto_header *h,
    uint64_t now)
{
	struct sblock	b, p;
	int64_t		first_seen;
	char		hb[24];

	if ((int64_t)h->number < (int64_t)ch->backfill_from)
		return;
	/* Asked for by hash too (a range answered first): not any more. */
	queue_drop_parent(ch->id, h->hash);
	if (claims_parent(ch, h)) {
		claims_sweep(ch, now);
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
		    block_short_hash(h->hash, hb));
		return;
	}
	if (h->number > 0 && block_get(ch, h->parent, &p) &&
	    block_check_number(ch, endpoint_id, h, &p) == -1)
		return;
	block_store(ch, h, endpoint_id, now, &b, &first_seen);
	if (!ch->have_best)
		choice_adopt(ch, &b, endpoint_id, now);
	else
		choice_link_up(ch, &b, endpoint_id, now);
	/* Above the best, or beside it: what was fetched above links now. */
	if (!b.canonical && ch->have_best && block_get(ch, b.hash, &b) &&
	    !b.canonical && h->number > 0 && block_get(ch, h->parent, &p) &&
	    p.canonical)
		choice_climb(ch, &b, endpoint_id, now);
	/* A branch waiting for this block may switch now. */
	if (ch->have_pending) {
		struct sblock tip;

		if (block_get(ch, ch->pending_tip, &tip) && !tip.canonical)
			choice_adopt(ch, &tip, endpoint_id, now);
		else
			ch->have_pending = 0;
	}
	claims_sweep(ch, now);
}

void
sup_chains_usable_reset(void)
{
	for (size_t i = 0; i < n_chains; i++)
		chains[i]->usable = 0;
}

/* Every tick of the scheduler: bounded work per chain. */
void
sup_chain_tick(struct chain *ch, uint64_t now, struct chain_verdicts *out)
{
	ch->out = out;
	choice_tick(ch, now);
	if (now >= ch->unreadable_at) {
		ch->unreadable_at = now + CROSS_UNREADABLE_MS;
		if (ch->format == FORMAT_QUANTUS)
			(void)cross_unreadable(ch);
	}
	claims_expire(ch, now);
	window_up(ch);
	window_down(ch);
	/* Finality behind a gap that linked: a slice a tick. */
	if (ch->have_best) {
		int64_t was = ch->final_number;

		final_advance(ch);
		if (ch->final_number != was)
			final_save_best(ch, now);
	}
	ch->out = NULL;
}

/* b's work, now known: credited to its miner when b is canonical. */
static void
credit(struct chain *ch, struct sblock *b, const uint8_t work[64])
{
	struct standing	*s;

	if (!b->canonical || !standing_counts(b))
		return;
	memcpy(b->work, work, 64);
	b->has_work = 1;
	s = standing(ch, b);
	work_add(&s->work, b, 1);
	if (b->final)
		work_add(&s->final_work, b, 1);
	s->dirty = 1;
}

/*
 * The difficulty at the block hash is its children's work: its canonical
 * child, if seal_parent wrote it just now (it has its state), is
 * credited with it.
 */
static void
credit_child(struct chain *ch, const uint8_t hash[32], int64_t number,
    const uint8_t diff[64])
{
	struct sblock	c;

	if (block_at(ch, number + 1, &c) && c.has_ts &&
	    memcmp(c.parent, hash, 32) == 0)
		credit(ch, &c, diff);
}

/*
 * b's state into its row: a first difficulty, a first time (-1: none),
 * its answerer, its own work (need, from its parent's difficulty) and
 * seal verdict (-1: none) when known now.  store_run's result.
 */
static int
state_write(struct chain *ch, const struct sblock *b,
    const uint8_t *difficulty, int64_t timestamp, int64_t endpoint_id,
    const uint8_t *need, int proven, uint64_t now)
{
	sqlite3_stmt	*st = store_prepare(&s_block_state);
	struct u512	 d;

	if (difficulty != NULL) {
		u512_from_le(&d, difficulty);
		sqlite3_bind_blob(st, 1, difficulty, 64, SQLITE_TRANSIENT);
		sqlite3_bind_double(st, 2, u512_to_double(&d));
	}
	if (timestamp >= 0)
		sqlite3_bind_int64(st, 3, timestamp);
	if (timestamp >= 0 && (difficulty != NULL || b->has_diff ||
	    ch->format != FORMAT_QUANTUS))
		sqlite3_bind_int64(st, 4, (int64_t)now);
	if (endpoint_id > 0)
		sqlite3_bind_int64(st, 5, endpoint_id);
	sqlite3_bind_int64(st, 6, ch->id);
	sqlite3_bind_blob(st, 7, b->hash, 32, SQLITE_TRANSIENT);
	if (need != NULL) {
		u512_from_le(&d, need);
		sqlite3_bind_blob(st, 8, need, 64, SQLITE_TRANSIENT);
		sqlite3_bind_double(st, 9, u512_to_double(&d));
	}
	if (proven != -1)
		sqlite3_bind_int64(st, 10, proven);
	return store_run(st);
}

/*
 * b's seal verdict, just written: counted, and a failure logged and
 * judged (sup_block.c); below a difficulty two endpoints said, b is taken
 * off the chain.  1 if it was.
 */
static int
state_verdict(struct chain *ch, struct sblock *b, const struct seal_fail *f,
    int proven, uint64_t now)
{
	struct sblock	p;

	seal_count(ch, proven, b->number, now);
	if (proven != 0)
		return 0;
	block_seal_failed(ch, f);
	if (!b->canonical || !block_get(ch, b->parent, &p) || p.cross_read != 1)
		return 0;
	b->proven = 0;
	choice_refuse(ch, b, now);
	return 1;
}

/*
 * Difficulty and time of a block, from endpoint_id's state read.  1 if
 * this answer stored its difficulty (the first one).
 */
static int
state_in(struct chain *ch, int64_t endpoint_id, const uint8_t hash[32],
    const uint8_t *difficulty, int64_t timestamp, uint64_t now)
{
	struct sblock	 b;
	struct seal_fail f;
	int		 own = 0, proven = -1, waiting = 1, crossed = 0;

	if (!block_get(ch, hash, &b))
		return 0;
	/*
	 * The first time stays; one too soon after its parent's is not
	 * stored (its block's state is read again).
	 */
	if (b.has_ts)
		timestamp = -1;
	else if (timestamp >= 0 &&
	    time_check(ch, &b, timestamp, endpoint_id, now) == -1)
		return 0;
	/* A first difficulty, as the retarget rule would have it? */
	if (difficulty != NULL && !b.has_diff && timestamp >= 0 &&
	    ch->format == FORMAT_QUANTUS)
		retarget_check(ch, &b, difficulty, timestamp, endpoint_id, now);
	if (difficulty != NULL && b.has_diff) {
		/* Known already: counted already; a second read, or owed. */
		if (ch->format == FORMAT_QUANTUS && (b.cross_read == 0 ||
		    (b.cross_read == -1 && endpoint_id > 0 &&
		    endpoint_id != b.state_ep))) {
			cross_answer(ch, &b, endpoint_id, difficulty, now);
			crossed = 1;
		}
		difficulty = NULL;
	}
	/*
	 * Its own work and verdict, from its parent's difficulty, in this
	 * write (a seal of the wrong shape has its verdict already).
	 */
	if (!b.has_work && timestamp >= 0)
		own = seal_judge(ch, b.hash, b.parent, b.number, QPOW_SEAL_OK,
		    b.has_pow ? b.pow_max : NULL, b.first_ep, &f, &proven);
	if (b.proven != -1)
		proven = -1;		/* written already */
	if (state_write(ch, &b, difficulty, timestamp, endpoint_id,
	    own ? f.need : NULL, proven, now) <= 0)
		return 0;		/* the store is blocked */
	/*
	 * The children its time, difficulty or seal may judge, asked of
	 * the store once; in a backfill in order there are mostly none.
	 */
	if (ch->format == FORMAT_QUANTUS && (timestamp >= 0 ||
	    difficulty != NULL))
		waiting = block_children_waiting(ch, hash, b.number);
	if (timestamp >= 0) {
		time_stored(ch, hash, timestamp, endpoint_id);
		if (waiting)
			time_children(ch, &b, timestamp, endpoint_id, now);
	}
	if (own)
		credit(ch, &b, f.need);
	if (proven != -1 && state_verdict(ch, &b, &f, proven, now))
		waiting = 1;	/* its children left the chain too */
	if (difficulty != NULL) {
		seal_diff_stored(ch, hash, difficulty);
		cross_stored(ch, &b, endpoint_id);
		if (waiting)
			seal_parent(ch, hash, b.number, difficulty, now,
			    block_seal_failed, credit_child);
	}
	/* The branch waiting for its work, or a second read of it, may be
	 * decided now. */
	if ((difficulty != NULL || crossed) && ch->have_cand &&
	    b.number >= ch->cand_from) {
		struct sblock tip;

		if (block_get(ch, ch->cand_tip, &tip) && !tip.canonical)
			choice_adopt(ch, &tip, ch->cand_ep, now);
		else
			ch->have_cand = 0;
	}
	return difficulty != NULL;
}

/*
 * The entry points: each call's verdicts go to the caller's out (the
 * chain's files say them with block_verdict).
 */
void
sup_chain_head(struct chain *ch, int64_t endpoint_id,
    const struct proto_head *hd, uint64_t now, struct chain_verdicts *out)
{
	ch->out = out;
	head_in(ch, endpoint_id, hd, now);
	ch->out = NULL;
}

void
sup_chain_fetched(struct chain *ch, int64_t endpoint_id,
    const struct proto_header *h, uint64_t now, struct chain_verdicts *out)
{
	ch->out = out;
	fetched_in(ch, endpoint_id, h, now);
	ch->out = NULL;
}

int
sup_chain_state(struct chain *ch, int64_t endpoint_id,
    const uint8_t hash[32], const uint8_t *difficulty, int64_t timestamp,
    uint64_t now, struct chain_verdicts *out)
{
	int	stored;

	ch->out = out;
	stored = state_in(ch, endpoint_id, hash, difficulty, timestamp, now);
	ch->out = NULL;
	return stored;
}

/* One block of endpoint_id's state answer, drawn at random. */
void
sup_chain_sample(struct chain *ch, int64_t endpoint_id, const uint8_t hash[32],
    struct chain_verdicts *out)
{
	struct sblock	b;

	ch->out = out;
	if (block_get(ch, hash, &b))
		cross_sample(ch, &b, endpoint_id);
	ch->out = NULL;
}

void
sup_chain_runtime(struct chain *ch, const char *spec_name,
    uint64_t spec_version, const uint8_t *at, int64_t number, uint64_t now)
{
	sqlite3_stmt	*st;

	st = store_bind(&s_runtime, "iitiii", ch->id, (int64_t)spec_version,
	    spec_name, number, (int64_t)0, (int64_t)now);
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
	retarget_runtime(ch, spec_name, (int64_t)spec_version, ch->block_time,
	    ch->difficulty_floor);
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

struct chain *const *
sup_chains_all(size_t *n)
{
	*n = n_chains;
	return chains;
}

struct chain *
sup_chain_find(const char *name)
{
	for (size_t i = 0; i < n_chains; i++)
		if (strcmp(chains[i]->name, name) == 0)
			return chains[i];
	return NULL;
}

/*
 * What the chain keeps of the store, dropped: after a rollback it may
 * name rows that are gone.  The best, finality and the genesis are read
 * again (chain_read); the branch waiting for a block, the branch waiting
 * for its work, the finalized head waiting for its block, the windows,
 * the state owed and the last time stored are dropped, and the ticks
 * find what is still missing.  Kept: the claims (headers held in memory,
 * which the store never had) and what was believed of them, and the
 * counters for monitoring.
 */
static void
chain_forget(struct chain *ch)
{
	ch->have_best = 0;
	ch->final_number = -1;
	ch->finalized_reported = -1;
	ch->have_pending = 0;
	ch->have_cand = 0;
	ch->have_final_claim = 0;
	ch->owed.from = ch->owed.to = -1;
	ch->queued_up = ch->queued_down = -1;
	ch->times.have_last = 0;
	free(ch->st);
	ch->st = NULL;
	ch->n_st = 0;
}

/*
 * The chain's row, read into it: 0, or -1 when there is none.  The reach
 * counts from when the best was taken (now, if the row does not say).
 */
static int
chain_read(struct chain *ch, uint64_t now)
{
	sqlite3_stmt	*st = store_bind(&s_chain_get, "t", ch->name);
	int		 found = store_row(st);

	ch->best_at = now;
	if (found) {
		ch->id = sqlite3_column_int64(st, 0);
		ch->have_genesis = store_col_blob(st, 1, ch->genesis, 32);
		if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
			ch->have_best = 1;
			ch->best_number = sqlite3_column_int64(st, 2);
			store_col_blob(st, 3, ch->best_hash, 32);
		}
		if (sqlite3_column_type(st, 4) != SQLITE_NULL)
			ch->final_number = sqlite3_column_int64(st, 4);
		if (sqlite3_column_type(st, 5) != SQLITE_NULL)
			ch->best_at = (uint64_t)sqlite3_column_int64(st, 5);
		/* The seal rule was in doubt: it stays so until a pass. */
		memset(&ch->seals, 0, sizeof(ch->seals));
		if (sqlite3_column_type(st, 6) != SQLITE_NULL) {
			ch->seals.doubt = 1;
			ch->seals.bad_since =
			    (uint64_t)sqlite3_column_int64(st, 6);
		}
	}
	sqlite3_reset(st);
	if (found)
		standings_load(ch);
	return found ? 0 : -1;
}

/* Load or create every configured chain; keeps those already loaded. */
void
sup_chains_load(const struct conf *conf, uint64_t now)
{
	for (size_t i = 0; i < conf->n_chains; i++) {
		const struct conf_chain *cc = &conf->chains[i];
		struct chain	*ch = sup_chain_find(cc->name);
		int64_t		 depth = cc->format == FORMAT_QUANTUS ?
				    CHAIN_FINALITY : 0;

		if (ch == NULL) {
			chains = xrealloc(chains, (n_chains + 1) *
			    sizeof(*chains));
			ch = chains[n_chains++] = xcalloc(1, sizeof(*ch));
			snprintf(ch->name, sizeof(ch->name), "%s", cc->name);
			ch->believed_number = -1;
			ch->retarget.spec = -1;
			chain_forget(ch);
			if (chain_read(ch, now) == -1) {
				store_run(store_bind(&s_chain_insert, "ttiii",
				    cc->name, chain_format_name(cc->format),
				    (int64_t)cc->block_time,
				    (int64_t)cc->backfill_from, depth));
				ch->id = store_last_id();
				standings_load(ch);
			}
		}
		ch->format = (enum chain_format)cc->format;
		ch->n_endpoints = cc->n_endpoints;
		ch->backfill_from = cc->backfill_from;
		ch->block_time = cc->block_time;
		store_run(store_bind(&s_chain_conf, "tiiii",
		    chain_format_name(cc->format), (int64_t)cc->block_time,
		    (int64_t)cc->backfill_from, depth, ch->id));
		/* The retarget rule at the target and floor configured. */
		ch->difficulty_floor = cc->difficulty_floor;
		retarget_load(ch, ch->block_time, ch->difficulty_floor);
	}
	store_flush();
}

/* After a rollback: each chain as the store has it now (chain_forget). */
void
sup_chains_reload(uint64_t now)
{
	for (size_t i = 0; i < n_chains; i++) {
		chain_forget(chains[i]);
		(void)chain_read(chains[i], now);
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
		json_object_set_new(j, "seals_failed", json_integer(
		    (json_int_t)ch->seals_failed));
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
		free(chains[i]->workers);
		free(chains[i]);
	}
	free(chains);
	chains = NULL;
	n_chains = 0;
}
