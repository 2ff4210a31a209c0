/*
 * The durable catch-up queue: items live in SQLite, each leased to one
 * endpoint with a deadline and back with backoff when it fails, so that
 * a restart, even after kill -9, loses nothing that was committed.  The
 * order in which due items are taken is written here, in the due query:
 * missing parents first, then the highest blocks first, headers before
 * the state reads of the same blocks, so that what is fetched links to
 * the chain at once and the newest standings fill in first.
 */
#include "config.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sup_queue.h"
#include "sup_store.h"
#include "util.h"

static const char *const kind_names[ITEM_KINDS] = { "headers", "parent",
    "state", "runtime" };
static int	added;		/* items written since queue_added() */

static struct store_stmt s_due = { "SELECT id, kind, range_from, range_to, "
    "block_hash, block_number, attempts, last_outcome = 'disputed' FROM queue "
    "WHERE chain_id = ?1 AND "
    "state = 'pending' AND next_attempt <= ?2 AND "
    "NOT (kind = 'state' AND range_from <= ?3 AND range_from > ?10) AND "
    "(kind IN ('headers', 'parent') OR "
    "coalesce(range_to, block_number) < ?4 OR last_outcome = 'disputed' OR "
    "(?5 AND last_endpoint_id IS NOT ?8) OR "
    "(NOT ?5 AND last_endpoint_id IS ?6)) AND "
    "(NOT ?7 OR kind = 'parent' OR (kind IN ('state', 'runtime') AND "
    "coalesce(range_to, block_number) >= ?4)) AND "
    "NOT ((last_outcome = 'malformed' OR (kind = 'parent' AND "
    "last_outcome = 'absent')) AND last_endpoint_id IS ?9) AND "
    "NOT (last_outcome = 'disputed' AND last_endpoint_id IS ?11) ORDER BY "
    "kind != 'parent', coalesce(range_to, block_number) DESC, "
    "kind = 'state' LIMIT 1", NULL, NULL };
static struct store_stmt s_retry_now = { "UPDATE queue SET next_attempt = ? "
    "WHERE chain_id = ? AND state = 'pending' AND next_attempt > ?",
    NULL, NULL };
static struct store_stmt s_child = { "SELECT max(canonical), max(number) "
    "FROM blocks INDEXED BY blocks_number WHERE chain_id = ? AND "
    "number = ? AND parent = ?", NULL, NULL };
static struct store_stmt s_extend = { "UPDATE queue SET lease_deadline = "
    "max(lease_deadline, ?) WHERE id = ? AND state = 'leased'", NULL, NULL };
static struct store_stmt s_lease = { "UPDATE queue SET state = 'leased', "
    "lease_endpoint_id = ?, lease_deadline = ?, attempts = attempts + 1 "
    "WHERE id = ?", NULL, NULL };
static struct store_stmt s_done = { "DELETE FROM queue WHERE id = ?",
    NULL, NULL };
static struct store_stmt s_fail = { "UPDATE queue SET state = 'pending', "
    "lease_endpoint_id = NULL, lease_deadline = NULL, next_attempt = ?, "
    "last_outcome = ?, last_error = ?, last_endpoint_id = ? WHERE id = ?",
    NULL, NULL };
static struct store_stmt s_release_all = { "UPDATE queue SET state = "
    "'pending', lease_endpoint_id = NULL, lease_deadline = NULL, "
    "last_error = 'lease of a previous run' WHERE state = 'leased'",
    NULL, NULL };
static struct store_stmt s_covered = { "SELECT 1 FROM queue WHERE "
    "chain_id = ? AND ((kind = 'headers' AND ? BETWEEN range_from AND "
    "range_to) OR (kind = 'parent' AND block_hash = ?)) LIMIT 1",
    NULL, NULL };
static struct store_stmt s_overlap = { "SELECT range_from, range_to FROM "
    "queue WHERE chain_id = ? AND kind = 'headers' AND range_to >= ? AND "
    "range_from <= ? ORDER BY range_from", NULL, NULL };
static struct store_stmt s_overlap_state = { "SELECT range_from, range_to "
    "FROM queue WHERE chain_id = ? AND kind = 'state' AND range_to >= ? AND "
    "range_from <= ? ORDER BY range_from", NULL, NULL };
static struct store_stmt s_insert_range = { "INSERT INTO queue (chain_id, "
    "kind, range_from, range_to, created_at) VALUES (?, ?, ?, ?, ?)",
    NULL, NULL };
/* A second read of a block's state, not by the endpoint that answered. */
/* Pending only: the one leased may be the one answered now, and goes. */
static struct store_stmt s_disputed = { "SELECT 1 FROM queue WHERE "
    "chain_id = ? AND kind = 'state' AND range_from = ? AND range_to = ? "
    "AND last_outcome = 'disputed' AND last_endpoint_id IS ? AND "
    "state = 'pending'", NULL, NULL };
static struct store_stmt s_insert_disputed = { "INSERT INTO queue "
    "(chain_id, kind, range_from, range_to, next_attempt, last_outcome, "
    "last_error, last_endpoint_id, created_at) VALUES (?, 'state', ?, ?, "
    "?, 'disputed', ?, ?, ?)", NULL, NULL };
static struct store_stmt s_insert_at = { "INSERT OR IGNORE INTO queue "
    "(chain_id, kind, block_hash, block_number, created_at) VALUES "
    "(?, ?, ?, ?, ?)", NULL, NULL };
static struct store_stmt s_owed_blocks = { "SELECT hash, number FROM "
    "blocks WHERE "
    "chain_id = ? AND canonical = 1 AND number BETWEEN ? AND ? AND "
    "(timestamp IS NULL OR (? AND difficulty IS NULL) OR cross_read = 0) "
    "ORDER BY number", NULL, NULL };
/* The same, and the blocks of a candidate branch, from its tip down. */
static struct store_stmt s_owed_cand = { "WITH RECURSIVE br(hash, parent, "
    "number) AS (SELECT hash, parent, number FROM blocks WHERE "
    "chain_id = ?1 AND hash = ?5 AND number >= ?2 UNION ALL "
    "SELECT b.hash, b.parent, b.number FROM blocks b, br WHERE "
    "b.chain_id = ?1 AND b.hash = br.parent AND b.number >= ?2) "
    "SELECT hash, number FROM blocks WHERE chain_id = ?1 AND number "
    "BETWEEN ?2 AND ?3 AND (canonical = 1 OR hash IN (SELECT hash FROM br)) "
    "AND (timestamp IS NULL OR (?4 AND difficulty IS NULL) OR "
    "cross_read = 0) ORDER BY number", NULL, NULL };
static struct store_stmt s_drop_runtime = { "DELETE FROM queue WHERE "
    "chain_id = ? AND kind = 'runtime' AND block_hash = ? AND "
    "state = 'pending'", NULL, NULL };
static struct store_stmt s_drop_above = { "DELETE FROM queue WHERE "
    "chain_id = ? AND kind = 'headers' AND range_from > ? AND "
    "state = 'pending'", NULL, NULL };
static struct store_stmt s_drop_parent = { "DELETE FROM queue WHERE "
    "chain_id = ? AND kind = 'parent' AND block_hash = ? AND "
    "state = 'pending'", NULL, NULL };

const char *
queue_kind_name(enum item_kind k)
{
	return (unsigned)k < ITEM_KINDS ? kind_names[k] : "?";
}

/* 1 if items were written since the last call: the scheduler has work. */
int
queue_added(void)
{
	int	was = added;

	added = 0;
	return was;
}

static void
insert_range(int64_t chain, enum item_kind kind, int64_t from, int64_t to)
{
	int64_t	step = kind == K_HEADERS ? QUEUE_RANGE : QUEUE_STATE_RANGE;

	/* Top first: the first chunk ends at "to". */
	for (int64_t hi = to; hi >= from; hi -= step) {
		int64_t lo = hi - step + 1 < from ? from : hi - step + 1;

		store_run(store_bind(&s_insert_range, "itiii", chain,
		    kind_names[kind], lo, hi, (int64_t)now_wall_ms()));
	}
	added = 1;
}

/* Ranges of kind for [from, to] that no item covers yet. */
static void
cover(int64_t chain, enum item_kind kind, int64_t from, int64_t to)
{
	sqlite3_stmt	*st;
	int64_t		 next = from, (*have)[2] = NULL;
	size_t		 n = 0;

	if (to < from)
		return;
	st = store_bind(kind == K_STATE ? &s_overlap_state : &s_overlap,
	    "iii", chain, from, to);
	while (store_row(st)) {
		have = xrealloc(have, (n + 1) * sizeof(*have));
		have[n][0] = sqlite3_column_int64(st, 0);
		have[n][1] = sqlite3_column_int64(st, 1);
		n++;
	}
	sqlite3_reset(st);
	for (size_t i = 0; i < n; i++) {
		if (have[i][0] > next)
			insert_range(chain, kind, next, have[i][0] - 1);
		if (have[i][1] + 1 > next)
			next = have[i][1] + 1;
	}
	if (next <= to)
		insert_range(chain, kind, next, to);
	free(have);
}

/*
 * The chain needs the block hash at number: fetch it by hash, unless it
 * is queued already.  One row: what lies below comes in ranges, a window
 * at a time (queue_ranges).
 */
void
queue_missing(int64_t chain, const uint8_t hash[32], int64_t number)
{
	sqlite3_stmt	*st;
	int		 covered;

	st = store_bind(&s_covered, "iib", chain, number, hash);
	covered = store_row(st);
	sqlite3_reset(st);
	if (covered)
		return;
	store_run(store_bind(&s_insert_at, "itbii", chain,
	    kind_names[K_PARENT], hash, number, (int64_t)now_wall_ms()));
	added = 1;
}

/* Headers of [from, to] by number, what no item covers yet. */
void
queue_ranges(int64_t chain, int64_t from, int64_t to)
{
	cover(chain, K_HEADERS, from, to);
}

/*
 * Header ranges wholly above number that no endpoint holds now: what was
 * queued for a claim since dropped.  Their count.
 */
int
queue_drop_headers_above(int64_t chain, int64_t number)
{
	return store_run(store_bind(&s_drop_above, "ii", chain, number));
}

/* Is any header range queued that overlaps [from, to]? */
int
queue_headers_within(int64_t chain, int64_t from, int64_t to)
{
	sqlite3_stmt	*st = store_bind(&s_overlap, "iii", chain, from, to);
	int		 any = store_row(st);

	sqlite3_reset(st);
	return any;
}

/*
 * State reads for [from, to], canonical or candidate (a fork's work):
 * what no state item covers yet (one pending then reads the candidate's
 * blocks too).
 */
void
queue_state(int64_t chain, int64_t from, int64_t to)
{
	cover(chain, K_STATE, from, to);
}

/*
 * Second reads of the state of [from, to] (the blocks there that owe one:
 * blocks.cross_read), by any endpoint but not_ep, whose answers are
 * disputed, due at due; a range once per endpoint.
 */
void
queue_dispute(int64_t chain, int64_t from, int64_t to, int64_t not_ep,
    uint64_t due, const char *why)
{
	sqlite3_stmt	*st;
	int		 have;

	for (int64_t hi = to; hi >= from; hi -= QUEUE_STATE_RANGE) {
		int64_t lo = hi - QUEUE_STATE_RANGE + 1 < from ? from :
		    hi - QUEUE_STATE_RANGE + 1;

		st = store_bind(&s_disputed, "iiii", chain, lo, hi, not_ep);
		if (not_ep <= 0)
			sqlite3_bind_null(st, 4);
		have = store_row(st);
		sqlite3_reset(st);
		if (have)
			continue;
		st = store_bind(&s_insert_disputed, "iiiitii", chain, lo, hi,
		    (int64_t)due, why, not_ep, (int64_t)now_wall_ms());
		if (not_ep <= 0)
			sqlite3_bind_null(st, 6);
		store_run(st);
		added = 1;
	}
}

/* Nobody waits for that block any more: a claim connected or was dropped. */
void
queue_drop_parent(int64_t chain, const uint8_t hash[32])
{
	store_run(store_bind(&s_drop_parent, "ib", chain, hash));
}

/* Reads owed for new canonical blocks gather into ranges. */
void
queue_block_canonical(int64_t chain, struct queue_owed *o,
    const uint8_t hash[32], int64_t number, int runtime_updated)
{
	if (runtime_updated) {
		store_run(store_bind(&s_insert_at, "itbii", chain,
		    kind_names[K_RUNTIME], hash, number,
		    (int64_t)now_wall_ms()));
		added = 1;
	}
	if (o->from >= 0 && number == o->from - 1 &&
	    o->to - number < QUEUE_STATE_RANGE) {
		o->from = number;
		return;
	}
	if (o->from >= 0 && number == o->to + 1 &&
	    number - o->from < QUEUE_STATE_RANGE) {
		o->to = number;
		return;
	}
	if (o->from >= 0)
		insert_range(chain, K_STATE, o->from, o->to);
	o->from = o->to = number;
}

/* A block left the chain: its runtime version is not owed any more. */
void
queue_block_left(int64_t chain, const uint8_t hash[32])
{
	store_run(store_bind(&s_drop_runtime, "ib", chain, hash));
}

/* Before a commit: what is owed goes into the queue with it. */
void
queue_flush_owed(int64_t chain, struct queue_owed *o)
{
	if (o->from < 0)
		return;
	insert_range(chain, K_STATE, o->from, o->to);
	o->from = o->to = -1;
}

/* The next due item that f allows; 0 if none. */
int
queue_next(int64_t chain, uint64_t now, const struct queue_filter *f,
    struct qitem *it)
{
	sqlite3_stmt	*st;
	const char	*k;

	/*
	 * State an endpoint no longer holds, even in part, is asked of the
	 * others: the same endpoint would only say "discarded" again.
	 */
	st = store_bind(&s_due, "iiiiiiiiiii", chain, (int64_t)now,
	    f->pruning_bound, f->live_from, (int64_t)f->may_live, f->pref_id,
	    (int64_t)f->live_only, f->not_id, f->wrong_id, f->prune_floor,
	    f->disputed_id);
	if (!store_row(st)) {
		sqlite3_reset(st);
		return 0;
	}
	memset(it, 0, sizeof(*it));
	it->id = sqlite3_column_int64(st, 0);
	k = (const char *)sqlite3_column_text(st, 1);
	for (size_t i = 0; i < ITEM_KINDS; i++)
		if (strcmp(k, kind_names[i]) == 0)
			it->kind = (enum item_kind)i;
	it->from = sqlite3_column_int64(st, 2);
	it->to = sqlite3_column_int64(st, 3);
	store_col_blob(st, 4, it->hash, 32);
	it->number = sqlite3_column_int64(st, 5);
	it->attempts = (unsigned)sqlite3_column_int64(st, 6) + 1;
	it->again = sqlite3_column_int(st, 7) == 1;
	sqlite3_reset(st);
	return 1;
}

/* Is anything of the chain due at all, for any endpoint? */
int
queue_has_due(int64_t chain, uint64_t now)
{
	struct queue_filter	 f = { -1, 0, 1, 0, -1, -1, -1, -1, -1 };
	sqlite3_stmt		*st;
	int			 due;

	st = store_bind(&s_due, "iiiiiiiiiii", chain, (int64_t)now,
	    f.pruning_bound, f.live_from, (int64_t)f.may_live, f.pref_id,
	    (int64_t)f.live_only, f.not_id, f.wrong_id, f.prune_floor,
	    f.disputed_id);
	due = store_row(st);
	sqlite3_reset(st);
	return due;
}

/*
 * A missing parent is needed while a canonical block, or one that may
 * still become canonical (at or above live_from), waits for it (a child
 * is at number + 1: the index on numbers finds it).  A block
 * whose parent no endpoint has (a head of another chain that slipped in,
 * a branch every node dropped) would otherwise be asked for forever.
 */
int
queue_parent_needed(int64_t chain, const uint8_t hash[32], int64_t number,
    int64_t live_from)
{
	sqlite3_stmt	*st = store_bind(&s_child, "iib", chain, number + 1,
			    hash);
	int		 needed = 1;

	if (store_row(st) && live_from != INT64_MAX &&
	    sqlite3_column_type(st, 1) != SQLITE_NULL)
		needed = sqlite3_column_int64(st, 0) == 1 ||
		    sqlite3_column_int64(st, 1) >= live_from;
	sqlite3_reset(st);
	return needed;
}

/*
 * The canonical blocks of [from, to] whose state is still owed, at most
 * max: what a state item asks for now.  With a candidate (a branch tip
 * whose work decides a fork), its blocks in [from, to] too.
 */
size_t
queue_owed_blocks(int64_t chain, int64_t from, int64_t to,
    int with_difficulty, const uint8_t *candidate, uint8_t (*hashes)[32],
    int64_t *numbers, size_t max)
{
	sqlite3_stmt	*st;
	size_t		 n = 0;

	if (candidate != NULL)
		st = store_bind(&s_owed_cand, "iiiib", chain, from, to,
		    (int64_t)with_difficulty, candidate);
	else
		st = store_bind(&s_owed_blocks, "iiii", chain, from, to,
		    (int64_t)with_difficulty);
	while (n < max && store_row(st)) {
		store_col_blob(st, 0, hashes[n], 32);
		numbers[n++] = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	return n;
}

/* until: wall-clock ms, for people; the lease's own clock is elsewhere. */
void
queue_lease(int64_t item, int64_t endpoint, uint64_t until)
{
	store_run(store_bind(&s_lease, "iii", endpoint, (int64_t)until, item));
}

void
queue_extend(int64_t item, uint64_t until)
{
	store_run(store_bind(&s_extend, "ii", (int64_t)until, item));
}

void
queue_done(int64_t item)
{
	store_run(store_bind(&s_done, "i", item));
}

/* Back to pending, due at next, its last outcome kept for people. */
void
queue_back(int64_t item, uint64_t next, enum outcome o, const char *why,
    int64_t endpoint)
{
	sqlite3_stmt	*st;

	st = store_bind(&s_fail, "ittii", (int64_t)next, outcome_name(o), why,
	    endpoint, item);
	if (endpoint <= 0)
		sqlite3_bind_null(st, 4);
	store_run(st);
}

/* What waits out a backoff earned while endpoints failed is due now. */
void
queue_retry_now(int64_t chain, uint64_t now)
{
	store_run(store_bind(&s_retry_now, "iii", (int64_t)now, chain,
	    (int64_t)now));
	added = 1;
}

/* Every lease given back: its holder is forgotten. */
void
queue_release_leases(void)
{
	store_run(store_prepare(&s_release_all));
}

void
queue_init(void)
{
	/* The leases of a previous run died with its workers. */
	store_run(store_prepare(&s_release_all));
	store_flush();
}
