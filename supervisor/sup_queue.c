/*
 * The durable catch-up queue: header ranges (backfill, holes), missing
 * parents by hash, state reads owed (difficulty, time) and runtime
 * versions.  Items live in SQLite; each is leased to one ready worker with
 * a deadline, and comes back with backoff when it fails or its lease
 * expires.  Backfill fans out over every ready worker of the chain:
 * missing parents first, then the highest blocks first, headers before
 * the state reads of the same blocks, so that what is fetched links to
 * the chain at once and the newest standings fill in first.  State reads
 * of live blocks (the last LIVE_BLOCKS) use failover instead: the
 * preferred endpoint (the first healthy one in configuration order) takes
 * them, keeping one of its max_inflight slots free for them; one it failed or found pruned goes
 * to the others at once.  Any request outstanding longer than the chain's
 * hedging delay is also sent to another healthy endpoint: the first
 * answer settles the item, the other is a straggler whose outcome only
 * counts for its endpoint's health.
 */
#include "config.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "hex.h"
#include "log.h"
#include "sup.h"
#include "util.h"

#define QUEUE_RANGE		100	/* headers per range item */
#define QUEUE_STATE_RANGE	50	/* blocks per state item (2 reads) */
#define QUEUE_TICK		0.05	/* seconds */
#define LIVE_BLOCKS		100	/* the top of the chain: failover */
#define HEDGES_MAX		3	/* hedge requests for one request */
#define ABSENT_RETRY_MS		250	/* a live block not there yet */

enum item_kind { K_HEADERS, K_PARENT, K_STATE, K_RUNTIME };
static const char *const kind_names[] = { "headers", "parent", "state",
    "runtime" };

/* A queue item as leased: what a request for it needs. */
struct qitem {
	int64_t		 id;
	enum item_kind	 kind;
	int64_t		 from, to;	/* headers, state */
	uint8_t		 hash[32];	/* parent, runtime */
	int64_t		 number;	/* parent, runtime */
	unsigned	 attempts;	/* this one included */
};

/*
 * A request out to a worker for one leased item.  A hedged item has two,
 * each the other's twin; item 0 is a straggler whose twin settled it.
 */
struct inflight {
	struct inflight	*next;
	uint64_t	 req;
	struct qitem	 it;
	int64_t		 item;		/* it.id, or 0: a straggler */
	enum item_kind	 kind;
	struct worker	*w;
	struct chain	*ch;
	int64_t		 number;	/* runtime: the block's number */
	unsigned	 attempts;	/* this one included */
	uint32_t	 brk_gen;	/* the breaker's when it was sent */
	uint64_t	 sent;		/* wall ms */
	int		 live;		/* a state read of a live block */
	int		 is_hedge;
	unsigned	 hedges;	/* hedge requests sent for it */
	uint64_t	 hedge_at;	/* the next not before; 0: by delay */
	int		 hedge_done;	/* nothing was left to hedge */
	struct inflight	*twin;
	size_t		 n;		/* state: blocks asked about */
	uint8_t		 (*hashes)[32];
	int64_t		*numbers;	/* state: their numbers */
};

/* Where a chain's items may go in this round of the scheduler. */
struct route {
	int64_t		 live_from;	/* items reaching here are live */
	int		 may_live;	/* this worker may take live items */
	int		 live_only;	/* and nothing else */
	int64_t		 pref_id;	/* live items it failed go elsewhere */
	int64_t		 not_id;	/* the preferred one: not those again */
};

static struct inflight	*inflights;
static uint64_t		 next_req = 1;
static ev_timer		 tick;
static uint8_t		 key_difficulty[32], key_now[32];

static struct store_stmt s_due = { "SELECT id, kind, range_from, range_to, "
    "block_hash, block_number, attempts FROM queue WHERE chain_id = ?1 AND "
    "state = 'pending' AND next_attempt <= ?2 AND "
    "NOT (kind = 'state' AND range_from <= ?3) AND "
    "(kind IN ('headers', 'parent') OR "
    "coalesce(range_to, block_number) < ?4 OR "
    "(?5 AND last_endpoint_id IS NOT ?8) OR "
    "(NOT ?5 AND last_endpoint_id IS ?6)) AND "
    "(NOT ?7 OR (kind IN ('state', 'runtime') AND "
    "coalesce(range_to, block_number) >= ?4)) ORDER BY "
    "kind != 'parent', coalesce(range_to, block_number) DESC, "
    "kind = 'state' LIMIT 1", NULL, NULL };
static struct store_stmt s_retry_now = { "UPDATE queue SET next_attempt = ? "
    "WHERE chain_id = ? AND state = 'pending' AND next_attempt > ?",
    NULL, NULL };
static struct store_stmt s_child = { "SELECT max(canonical), max(number) "
    "FROM blocks WHERE chain_id = ? AND parent = ?", NULL, NULL };
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
static struct store_stmt s_leased = { "SELECT id, lease_deadline, attempts "
    "FROM queue WHERE state = 'leased'", NULL, NULL };
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
static struct store_stmt s_insert_range = { "INSERT INTO queue (chain_id, "
    "kind, range_from, range_to, created_at) VALUES (?, ?, ?, ?, ?)",
    NULL, NULL };
static struct store_stmt s_insert_at = { "INSERT OR IGNORE INTO queue "
    "(chain_id, kind, block_hash, block_number, created_at) VALUES "
    "(?, ?, ?, ?, ?)", NULL, NULL };
static struct store_stmt s_owed_blocks = { "SELECT hash, number FROM "
    "blocks WHERE "
    "chain_id = ? AND canonical = 1 AND number BETWEEN ? AND ? AND "
    "(timestamp IS NULL OR (? AND difficulty IS NULL)) ORDER BY number",
    NULL, NULL };
static struct store_stmt s_drop_runtime = { "DELETE FROM queue WHERE "
    "chain_id = ? AND kind = 'runtime' AND block_hash = ? AND "
    "state = 'pending'", NULL, NULL };
static struct store_stmt s_below = { "SELECT max(number) FROM blocks WHERE "
    "chain_id = ? AND canonical = 1 AND number < ?", NULL, NULL };

static void
insert_range(struct chain *ch, enum item_kind kind, int64_t from, int64_t to)
{
	int64_t	step = kind == K_HEADERS ? QUEUE_RANGE : QUEUE_STATE_RANGE;

	/* Top first: the first chunk ends at "to". */
	for (int64_t hi = to; hi >= from; hi -= step) {
		int64_t lo = hi - step + 1 < from ? from : hi - step + 1;

		store_run(store_bind(&s_insert_range, "itiii", ch->id,
		    kind_names[kind], lo, hi, (int64_t)now_wall_ms()));
	}
	sup_queue_kick();
}

/* Header ranges for [from, to] that no item covers yet. */
static void
cover(struct chain *ch, int64_t from, int64_t to)
{
	sqlite3_stmt	*st;
	int64_t		 next = from, (*have)[2] = NULL;
	size_t		 n = 0;

	if (to < from)
		return;
	st = store_bind(&s_overlap, "iii", ch->id, from, to);
	while (store_row(st)) {
		have = xrealloc(have, (n + 1) * sizeof(*have));
		have[n][0] = sqlite3_column_int64(st, 0);
		have[n][1] = sqlite3_column_int64(st, 1);
		n++;
	}
	sqlite3_reset(st);
	for (size_t i = 0; i < n; i++) {
		if (have[i][0] > next)
			insert_range(ch, K_HEADERS, next, have[i][0] - 1);
		if (have[i][1] + 1 > next)
			next = have[i][1] + 1;
	}
	if (next <= to)
		insert_range(ch, K_HEADERS, next, to);
	free(have);
}

/*
 * The canonical chain needs the block hash at number: fetch that block by
 * hash, and the hole below it by number, unless queued already.
 */
void
sup_queue_missing(struct chain *ch, const uint8_t hash[32], int64_t number)
{
	sqlite3_stmt	*st;
	int64_t		 low = (int64_t)ch->backfill_from;
	int		 covered;

	st = store_bind(&s_covered, "iib", ch->id, number, hash);
	covered = store_row(st);
	sqlite3_reset(st);
	if (covered)
		return;
	st = store_bind(&s_below, "ii", ch->id, number);
	if (store_row(st) && sqlite3_column_type(st, 0) != SQLITE_NULL)
		low = sqlite3_column_int64(st, 0) + 1;
	sqlite3_reset(st);
	store_run(store_bind(&s_insert_at, "itbii", ch->id,
	    kind_names[K_PARENT], hash, number, (int64_t)now_wall_ms()));
	if (number - 1 >= low) {
		log_info("chain %s: blocks #%lld to #%lld missing; queued",
		    ch->name, (long long)low, (long long)number - 1);
		cover(ch, low, number - 1);
	}
	sup_queue_kick();
}

/* Reads owed for new canonical blocks gather into ranges. */
void
sup_queue_block_canonical(struct chain *ch, const uint8_t hash[32],
    int64_t number, int has_difficulty, int runtime_updated)
{
	if (runtime_updated)
		store_run(store_bind(&s_insert_at, "itbii", ch->id,
		    kind_names[K_RUNTIME], hash, number,
		    (int64_t)now_wall_ms()));
	if (ch->owed_from >= 0 && number == ch->owed_from - 1 &&
	    ch->owed_to - number < QUEUE_STATE_RANGE) {
		ch->owed_from = number;
		return;
	}
	if (ch->owed_from >= 0 && number == ch->owed_to + 1 &&
	    number - ch->owed_from < QUEUE_STATE_RANGE) {
		ch->owed_to = number;
		return;
	}
	if (ch->owed_from >= 0)
		insert_range(ch, K_STATE, ch->owed_from, ch->owed_to);
	ch->owed_from = ch->owed_to = number;
}

/* A block left the chain: its runtime version is not owed any more. */
void
sup_queue_block_left(struct chain *ch, const uint8_t hash[32])
{
	store_run(store_bind(&s_drop_runtime, "ib", ch->id, hash));
}

/* Before a commit: what is owed goes into the queue with it. */
void
sup_queue_flush_owed_chain(struct chain *ch)
{
	if (ch->owed_from < 0)
		return;
	insert_range(ch, K_STATE, ch->owed_from, ch->owed_to);
	ch->owed_from = ch->owed_to = -1;
}


static struct inflight *
inflight_new(struct worker *w, struct chain *ch, const struct qitem *it)
{
	struct inflight	*f = xcalloc(1, sizeof(*f));

	f->req = next_req++;
	f->it = *it;
	f->item = it->id;
	f->kind = it->kind;
	f->attempts = it->attempts;
	f->w = w;
	f->ch = ch;
	f->brk_gen = w->brk.gen;
	f->sent = now_wall_ms();
	f->next = inflights;
	inflights = f;
	w->inflight++;
	return f;
}

static void
inflight_free(struct inflight *f)
{
	struct inflight	**pp;

	for (pp = &inflights; *pp != NULL; pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	if (f->twin != NULL)
		f->twin->twin = NULL;
	if (f->w != NULL && f->w->inflight > 0)
		f->w->inflight--;
	free(f->hashes);
	free(f->numbers);
	free(f);
}

static void
item_done(int64_t item)
{
	store_run(store_bind(&s_done, "i", item));
}

/* Back to pending, due at next, its last outcome kept for people. */
static void
item_back(int64_t item, uint64_t next, enum outcome o, const char *why,
    int64_t endpoint)
{
	sqlite3_stmt	*st;

	st = store_bind(&s_fail, "ittii", (int64_t)next, outcome_name(o), why,
	    endpoint, item);
	if (endpoint <= 0)
		sqlite3_bind_null(st, 4);
	store_run(st);
}

/* A failure: back with backoff. */
static void
item_fail(int64_t item, unsigned attempts, enum outcome o, const char *why,
    int64_t endpoint)
{
	item_back(item, lease_retry_at(now_wall_ms(), attempts), o, why,
	    endpoint);
}

static int
is_live(const struct chain *ch, const struct qitem *it)
{
	int64_t	top = it->kind == K_STATE ? it->to : it->number;

	return (it->kind == K_STATE || it->kind == K_RUNTIME) &&
	    ch->have_best && top > ch->best_number - LIVE_BLOCKS;
}

/*
 * How long a request of this kind may be out before it is hedged:
 * hedge_after, or sooner, the chain's latency quantile of such requests.
 * It changes only with a new latency (latency_note) or a reload
 * (sup_queue_hedge_update), not with every tick that looks at it.
 */
static uint64_t
hedge_delay(const struct chain *ch, enum item_kind kind)
{
	return ch->hedge_ms[kind];
}

void
sup_queue_hedge_update(struct chain *ch)
{
	for (size_t k = 0; k < nitems(ch->hedge_ms); k++)
		ch->hedge_ms[k] = hedge_delay_ms(ch->lat[k], ch->n_lat[k],
		    ch->hedge_quantile, ch->hedge_after);
}

/*
 * The answer to f settles its item (done), or does not.  A request whose
 * twin is still out leaves the item to it; a live read that failed goes
 * to another endpoint at once, twice, before it backs off like the rest.
 */
static void
settle(struct inflight *f, int done, enum outcome o, const char *why,
    int at_once)
{
	if (done) {
		item_done(f->item);
		if (f->twin != NULL) {
			f->twin->item = 0;	/* a straggler now */
			f->twin->twin = NULL;
			f->twin = NULL;
		}
		if (f->is_hedge)
			f->ch->hedges_won++;
		return;
	}
	if (f->twin != NULL) {
		/*
		 * The other one settles it.  A hedge that failed may be
		 * followed by another one hedging delay later; one that found
		 * the block not there yet (the head came from a faster
		 * endpoint) is not counted against the limit, and the next
		 * waits ABSENT_RETRY_MS.
		 */
		struct inflight *t = f->twin;

		if (f->is_hedge && o == OUTCOME_ABSENT) {
			if (t->hedges > 0)
				t->hedges--;
			t->hedge_at = now_wall_ms() + ABSENT_RETRY_MS;
		} else
			t->hedge_at = now_wall_ms() + hedge_delay(f->ch,
			    f->kind);
		t->twin = NULL;
		f->twin = NULL;
		return;
	}
	if (at_once || (f->live && f->attempts <= 2))
		item_back(f->item, now_wall_ms(), o, why, f->w->endpoint_id);
	else if (f->live && o == OUTCOME_ABSENT) {
		/*
		 * Not there yet: the head came from a faster endpoint.  Ask
		 * again soon, not after a backoff meant for failures.
		 */
		uint64_t d = ABSENT_RETRY_MS * f->attempts;

		if (d > f->ch->block_time)
			d = f->ch->block_time;
		item_back(f->item, now_wall_ms() + d, o, why,
		    f->w->endpoint_id);
	} else
		item_fail(f->item, f->attempts, o, why, f->w->endpoint_id);
}

/* The next due item w may take under rt; 0 if none. */
static int
item_next(struct worker *w, struct chain *ch, const struct route *rt,
    struct qitem *it)
{
	sqlite3_stmt	*st;
	const char	*k;

	/*
	 * State an endpoint no longer holds, even in part, is asked of the
	 * others: the same endpoint would only say "discarded" again.
	 */
	st = store_bind(&s_due, "iiiiiiii", ch->id, (int64_t)now_wall_ms(),
	    w->pruning_bound, rt->live_from, (int64_t)rt->may_live,
	    rt->pref_id, (int64_t)rt->live_only, rt->not_id);
	if (!store_row(st)) {
		sqlite3_reset(st);
		return 0;
	}
	memset(it, 0, sizeof(*it));
	it->id = sqlite3_column_int64(st, 0);
	k = (const char *)sqlite3_column_text(st, 1);
	for (size_t i = 0; i < nitems(kind_names); i++)
		if (strcmp(k, kind_names[i]) == 0)
			it->kind = (enum item_kind)i;
	it->from = sqlite3_column_int64(st, 2);
	it->to = sqlite3_column_int64(st, 3);
	store_col_blob(st, 4, it->hash, 32);
	it->number = sqlite3_column_int64(st, 5);
	it->attempts = (unsigned)sqlite3_column_int64(st, 6) + 1;
	sqlite3_reset(st);
	return 1;
}

/*
 * Ask w for item it.  NULL if nothing is owed for it any more (a state
 * item whose blocks were read or left the chain); the caller decides
 * what that means for the item.
 */
static struct inflight *
item_send(struct worker *w, struct chain *ch, const struct qitem *it,
    uint32_t deadline)
{
	sqlite3_stmt		*st;
	struct msgbuf		 mb;
	struct inflight		*f;

	f = inflight_new(w, ch, it);
	f->live = is_live(ch, it);
	switch (it->kind) {
	case K_HEADERS:
	case K_PARENT: {
		static struct proto_req_headers q;

		memset(&q, 0, sizeof(q));
		q.id = f->req;
		q.deadline_ms = deadline;
		if (it->kind == K_PARENT) {
			q.by = BY_HASH;
			q.n = 1;
			memcpy(q.hashes[0], it->hash, 32);
		} else {
			q.by = BY_NUMBER;
			for (int64_t n = it->from; n <= it->to &&
			    q.n < PROTO_BATCH_MAX; n++)
				q.numbers[q.n++] = (uint64_t)n;
		}
		proto_pack_req_headers(&mb, w->gen, &q);
		break;
	}
	case K_STATE: {
		static struct proto_req_storage q;
		int quantus = ch->format == FORMAT_QUANTUS;

		memset(&q, 0, sizeof(q));
		q.id = f->req;
		q.deadline_ms = deadline;
		st = store_bind(&s_owed_blocks, "iiii", ch->id, it->from, it->to,
		    (int64_t)quantus);
		while (store_row(st) && q.n + 2 <= PROTO_READS_MAX) {
			f->hashes = xrealloc(f->hashes, (f->n + 1) * 32);
			f->numbers = xrealloc(f->numbers, (f->n + 1) *
			    sizeof(*f->numbers));
			store_col_blob(st, 0, f->hashes[f->n], 32);
			f->numbers[f->n] = sqlite3_column_int64(st, 1);
			if (quantus) {
				memcpy(q.items[q.n].at, f->hashes[f->n], 32);
				memcpy(q.items[q.n].key, key_difficulty, 32);
				q.items[q.n++].key_len = 32;
			}
			memcpy(q.items[q.n].at, f->hashes[f->n], 32);
			memcpy(q.items[q.n].key, key_now, 32);
			q.items[q.n++].key_len = 32;
			f->n++;
		}
		sqlite3_reset(st);
		if (f->n == 0) {
			inflight_free(f);
			return NULL;
		}
		proto_pack_req_storage(&mb, w->gen, &q);
		break;
	}
	case K_RUNTIME: {
		struct proto_req_runtime q;

		memset(&q, 0, sizeof(q));
		q.id = f->req;
		q.deadline_ms = deadline;
		q.has_at = 1;
		memcpy(q.at, it->hash, 32);
		f->number = it->number;
		f->hashes = xmalloc(32);
		memcpy(f->hashes[0], it->hash, 32);
		f->n = 1;
		proto_pack_req_runtime(&mb, w->gen, &q);
		break;
	}
	}
	sup_send(w, &mb);
	return f;
}

/*
 * A missing parent is needed while a canonical block, or one that may
 * still become canonical (within LIVE_BLOCKS of the best), waits for it.
 * A block whose parent no endpoint has (a head of another chain that
 * slipped in, a branch every node dropped) would otherwise be asked for
 * forever.
 */
static int
parent_needed(struct chain *ch, const struct qitem *it)
{
	sqlite3_stmt	*st = store_bind(&s_child, "ib", ch->id, it->hash);
	int		 needed = 1;

	if (store_row(st) && ch->have_best &&
	    sqlite3_column_type(st, 1) != SQLITE_NULL)
		needed = sqlite3_column_int64(st, 0) == 1 ||
		    sqlite3_column_int64(st, 1) > ch->best_number - LIVE_BLOCKS;
	sqlite3_reset(st);
	return needed;
}

/*
 * A breaker's trial: the chain's best header by hash.  It belongs to no
 * item (item 0): its answer only counts for the endpoint's health.
 */
static void
trial_send(struct worker *w, struct chain *ch, uint32_t deadline)
{
	struct qitem	 it;
	struct inflight	*f;

	memset(&it, 0, sizeof(it));
	it.kind = K_PARENT;
	memcpy(it.hash, ch->best_hash, 32);
	it.number = ch->best_number;
	f = item_send(w, ch, &it, deadline);
	f->item = 0;
	log_debug("w/%s: trial: header #%lld by hash", w->name,
	    (long long)ch->best_number);
}

/* Lease one due item of the worker's chain to it; 0 if none is due. */
static int
lease_one(struct worker *w, struct chain *ch, const struct route *rt,
    uint32_t deadline)
{
	struct qitem	 it;
	struct inflight	*f;

	if (!item_next(w, ch, rt, &it))
		return 0;
	if (it.kind == K_PARENT && !parent_needed(ch, &it)) {
		char	hx[67];

		hex_encode(it.hash, 32, hx);
		log_info("chain %s: block %.18s... no longer needed (only a "
		    "dead branch below #%lld waits for it); dropped after %u "
		    "attempts", ch->name, hx,
		    (long long)(ch->best_number - LIVE_BLOCKS + 1),
		    it.attempts - 1);
		item_done(it.id);
		return 1;
	}
	store_run(store_bind(&s_lease, "iii", w->endpoint_id,
	    (int64_t)lease_deadline(now_wall_ms(), deadline), it.id));
	if ((f = item_send(w, ch, &it, deadline)) == NULL)
		item_done(it.id);	/* nothing owed any more */
	else if (f->live)
		log_debug("w/%s: live %s #%lld leased (preferred)", w->name,
		    kind_names[it.kind], (long long)(it.kind == K_STATE ?
		    it.to : it.number));
	return 1;
}

/* Leases expired: the item goes back; a late answer will be dropped. */
static void
expire(void)
{
	sqlite3_stmt	*st = store_prepare(&s_leased);
	uint64_t	 now = now_wall_ms();
	int64_t		(*ids)[2] = NULL;
	size_t		 n = 0;

	while (store_row(st))
		if (lease_expired((uint64_t)sqlite3_column_int64(st, 1), now)) {
			ids = xrealloc(ids, (n + 1) * sizeof(*ids));
			ids[n][0] = sqlite3_column_int64(st, 0);
			ids[n][1] = sqlite3_column_int64(st, 2);
			n++;
		}
	sqlite3_reset(st);
	for (size_t i = 0; i < n; i++) {
		struct inflight *f, *next;
		int64_t endpoint = 0;

		for (f = inflights; f != NULL; f = next) {
			next = f->next;
			if (f->item == ids[i][0]) {
				endpoint = f->w != NULL ? f->w->endpoint_id : 0;
				/* Its twin may be next: keep the list walk
				 * valid by freeing both here. */
				if (f->twin != NULL && f->twin == next)
					next = next->next;
				if (f->twin != NULL)
					inflight_free(f->twin);
				inflight_free(f);
			}
		}
		item_fail(ids[i][0], (unsigned)ids[i][1], OUTCOME_TIMEOUT,
		    "lease expired", endpoint);
	}
	free(ids);
}

static int
has_due(struct chain *ch)
{
	sqlite3_stmt	*st = store_bind(&s_due, "iiiiiiii", ch->id,
			    (int64_t)now_wall_ms(), (int64_t)-1, (int64_t)0,
			    (int64_t)1, (int64_t)-1, (int64_t)0, (int64_t)-1);
	int		 due = store_row(st);

	sqlite3_reset(st);
	return due;
}

static int
usable(const struct worker *w, const char *chain)
{
	return w->fsm.state == CS_RUNNING && w->ready &&
	    strcmp(w->chain, chain) == 0;
}

/* 1 if no ready worker of the chain may be sent work by its breaker. */
static int
all_open(const char *chain, uint64_t now)
{
	for (struct worker *w = sup_workers; w != NULL; w = w->next)
		if (usable(w, chain) && breaker_peek(&w->brk, now) !=
		    BRK_DENY_OPEN)
			return 0;
	return 1;
}

/*
 * The chain's preferred endpoint now: the first healthy one in order
 * with room.  One whose requests all hang fills up before its breaker
 * hears of a timeout; the reads after that go to the next at once.
 */
static struct worker *
preferred(const struct chain *ch, uint64_t now)
{
	struct worker	*best = NULL;

	for (struct worker *w = sup_workers; w != NULL; w = w->next)
		if (usable(w, ch->name) && w->inflight < ch->max_inflight &&
		    breaker_peek(&w->brk, now) == BRK_ALLOW &&
		    (best == NULL || w->position < best->position))
			best = w;
	return best;
}

/* Another endpoint of the chain than w that is healthy and has room. */
static int
has_other(const struct worker *w, const struct chain *ch, uint64_t now)
{
	for (struct worker *o = sup_workers; o != NULL; o = o->next)
		if (o != w && usable(o, ch->name) &&
		    o->inflight < ch->max_inflight &&
		    breaker_peek(&o->brk, now) == BRK_ALLOW)
			return 1;
	return 0;
}

static void
route_for(struct worker *w, struct chain *ch, uint64_t now, struct route *rt)
{
	struct worker	*pref = preferred(ch, now);

	rt->live_from = ch->have_best ? ch->best_number - LIVE_BLOCKS + 1 :
	    INT64_MAX;
	rt->may_live = pref == NULL || pref == w;
	rt->pref_id = pref != NULL ? pref->endpoint_id : -1;
	/*
	 * A live read the preferred endpoint just failed is not its again
	 * while another can take it: a burst of fast failures is one strike
	 * for its breaker, which would leave it preferred meanwhile.
	 */
	rt->not_id = pref == w && has_other(w, ch, now) ? w->endpoint_id : -1;
	/* The preferred endpoint keeps a slot for live reads. */
	rt->live_only = pref == w && w->inflight + 1 >= ch->max_inflight;
}

static void
schedule(void)
{
	int	progress = 1;

	/*
	 * Trials first, whether or not work is due: an endpoint back from
	 * its cooldown is asked for the chain's best header by hash, a real
	 * request, but not one that owed work waits on.  (Before a best
	 * block is known, a due item is the trial.)
	 */
	for (struct worker *w = sup_workers; w != NULL; w = w->next) {
		struct chain	*ch;
		struct route	 rt;
		unsigned	 limit = 1;
		uint32_t	 deadline;

		if (w->fsm.state != CS_RUNNING || !w->ready || w->inflight > 0 ||
		    breaker_peek(&w->brk, now_wall_ms()) != BRK_TRIAL ||
		    (ch = sup_chain_find(w->chain)) == NULL ||
		    (!ch->have_best && !has_due(ch)))
			continue;
		deadline = (uint32_t)ch->request_timeout;
		if (!sup_health_allow(w, 0, &limit, &deadline))
			continue;
		if (ch->have_best) {
			trial_send(w, ch, deadline);
			continue;
		}
		route_for(w, ch, now_wall_ms(), &rt);
		rt.may_live = 1;
		(void)lease_one(w, ch, &rt, deadline);
	}
	while (progress) {
		progress = 0;
		for (struct worker *w = sup_workers; w != NULL; w = w->next) {
			struct chain	*ch;
			struct route	 rt;
			unsigned	 limit;
			uint32_t	 deadline;
			uint64_t	 now = now_wall_ms();

			if (w->fsm.state != CS_RUNNING || !w->ready ||
			    (ch = sup_chain_find(w->chain)) == NULL ||
			    w->inflight >= ch->max_inflight)
				continue;
			limit = ch->max_inflight;
			deadline = (uint32_t)ch->request_timeout;
			/* No work, no trial taken for nothing. */
			if (!has_due(ch))
				continue;
			if (!sup_health_allow(w, all_open(w->chain, now),
			    &limit, &deadline) || w->inflight >= limit)
				continue;
			route_for(w, ch, now, &rt);
			if (lease_one(w, ch, &rt, deadline))
				progress = 1;
		}
	}
}

static void
latency_note(struct chain *ch, enum item_kind kind, uint64_t ms)
{
	ch->lat[kind][ch->n_lat[kind] % LAT_RING] = ms > UINT32_MAX ?
	    UINT32_MAX : (uint32_t)ms;
	ch->n_lat[kind]++;
	ch->hedge_ms[kind] = hedge_delay_ms(ch->lat[kind], ch->n_lat[kind],
	    ch->hedge_quantile, ch->hedge_after);
}

/* Another healthy endpoint of f's chain with room, first in order. */
static struct worker *
hedge_target(const struct inflight *f, uint64_t now)
{
	struct worker	*best = NULL;

	for (struct worker *w = sup_workers; w != NULL; w = w->next) {
		if (w == f->w || !usable(w, f->ch->name) ||
		    w->inflight >= f->ch->max_inflight ||
		    breaker_peek(&w->brk, now) != BRK_ALLOW)
			continue;
		if (f->kind == K_STATE && f->it.from <= w->pruning_bound)
			continue;
		if (best == NULL || w->position < best->position)
			best = w;
	}
	return best;
}

/* Requests out longer than their chain's hedging delay: ask again. */
static void
hedge(void)
{
	uint64_t	now = now_wall_ms();

	for (struct inflight *f = inflights; f != NULL; f = f->next) {
		struct worker	*h;
		struct inflight	*g;
		uint32_t	 deadline;

		if (f->item == 0 || f->twin != NULL || f->is_hedge ||
		    f->hedge_done || f->hedges >= HEDGES_MAX ||
		    now - f->sent < hedge_delay(f->ch, f->kind) ||
		    now < f->hedge_at || (h = hedge_target(f, now)) == NULL)
			continue;
		deadline = (uint32_t)f->ch->request_timeout;
		/* New requests go to the head of the list: f->next stays. */
		if ((g = item_send(h, f->ch, &f->it, deadline)) == NULL) {
			/* Read meanwhile in full: f's answer will settle. */
			f->hedge_done = 1;
			continue;
		}
		f->hedges++;
		g->is_hedge = 1;
		g->twin = f;
		f->twin = g;
		h->stats.hedges++;
		f->ch->hedges++;
		store_run(store_bind(&s_extend, "ii", (int64_t)lease_deadline(
		    now, deadline), f->item));
		log_debug("w/%s: %s item %lld out for %llu ms on w/%s; "
		    "hedged", h->name, kind_names[f->kind], (long long)f->item,
		    (unsigned long long)(now - f->sent), f->w->name);
	}
}

static void
tick_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	static uint64_t	last_expire;
	uint64_t	now = now_mono_ms();

	if (now - last_expire >= 1000) {
		expire();
		last_expire = now;
	}
	hedge();
	schedule();
	store_maybe_flush();
}

/* Run the scheduler soon: new work or a free worker. */
void
sup_queue_kick(void)
{
	/* Before sup_queue_init the first tick comes from it anyway. */
	if (sup_loop == NULL || ev_cb(&tick) == NULL)
		return;
	ev_timer_stop(sup_loop, &tick);
	ev_timer_set(&tick, 0.001, QUEUE_TICK);
	ev_timer_start(sup_loop, &tick);
}

static struct inflight *
find_inflight(struct worker *w, uint64_t req)
{
	for (struct inflight *f = inflights; f != NULL; f = f->next)
		if (f->req == req && f->w == w)
			return f;
	return NULL;
}

/*
 * One outcome a request, for the breaker: its first failure class, else
 * ok (absent and errors are answers).  A batch that timed out is one
 * timeout, not a hundred.
 */
static enum outcome
request_outcome(const void *items, size_t n, size_t size, size_t off)
{
	for (size_t i = 0; i < n; i++) {
		enum outcome o = *(const enum outcome *)((const char *)items +
		    i * size + off);

		if (outcome_is_failure(o) || o == OUTCOME_RATE_LIMITED)
			return o;
	}
	return OUTCOME_OK;
}

/* Every answer, straggler or not, counts for its endpoint. */
static void
count(struct inflight *f, enum outcome o)
{
	uint64_t	ms = now_wall_ms() - f->sent;

	sup_health_outcome(f->w, f->brk_gen, o);
	sup_stats_request(f->w, o, ms);
	if (o == OUTCOME_OK)
		latency_note(f->ch, f->kind, ms);
}

static void
result_headers(struct inflight *f, const struct proto_res_headers *r)
{
	enum outcome	worst = OUTCOME_OK;
	const char	*why = "";

	count(f, request_outcome(r->items, r->n, sizeof(r->items[0]),
	    offsetof(struct proto_item, outcome)));
	if (f->item == 0)
		return;
	for (size_t i = 0; i < r->n; i++) {
		if (r->items[i].outcome == OUTCOME_OK)
			sup_chain_fetched(f->ch, f->w->endpoint_id,
			    &r->items[i].h);
		else if (worst == OUTCOME_OK) {
			worst = r->items[i].outcome;
			why = r->items[i].why;
		}
	}
	settle(f, worst == OUTCOME_OK, worst, why, 0);
}

/*
 * An absent answer that says the state was discarded: pruning.  (Absent
 * also means a block the endpoint has not seen yet, which is no reason
 * to send it nothing older.)
 */
static int
discarded(const struct proto_value *v)
{
	return v->outcome == OUTCOME_ABSENT &&
	    strstr(v->why, "discarded") != NULL;
}

static void
result_storage(struct inflight *f, const struct proto_res_storage *r)
{
	int		quantus = f->ch->format == FORMAT_QUANTUS;
	size_t		per = quantus ? 2 : 1, k = 0;
	enum outcome	worst = OUTCOME_OK;
	const char	*why = "";
	int64_t		pruned = -1;	/* highest block found pruned */

	count(f, request_outcome(r->items, r->n, sizeof(r->items[0]),
	    offsetof(struct proto_value, outcome)));
	for (size_t i = 0; i < f->n && k + per <= r->n; i++, k += per) {
		const struct proto_value *d = quantus ? &r->items[k] : NULL;
		const struct proto_value *t = &r->items[k + per - 1];
		int64_t ts = -1;

		if (t->outcome == OUTCOME_OK && t->value_len == 8) {
			ts = 0;
			for (int b = 7; b >= 0; b--)
				ts = ts << 8 | t->value[b];
		}
		if (((d != NULL && discarded(d)) || discarded(t)) &&
		    f->numbers[i] > pruned)
			pruned = f->numbers[i];
		if (d != NULL && d->outcome != OUTCOME_OK && worst ==
		    OUTCOME_OK) {
			worst = d->outcome;
			why = d->why;
		} else if (t->outcome != OUTCOME_OK && worst == OUTCOME_OK) {
			worst = t->outcome;
			why = t->why;
		}
		if (d != NULL && d->outcome == OUTCOME_OK && d->value_len != 64 &&
		    worst == OUTCOME_OK) {
			worst = OUTCOME_MALFORMED;
			why = "difficulty is not 64 bytes";
		}
		/* A straggler's values are as true as its twin's. */
		sup_chain_state(f->ch, f->hashes[i], d != NULL &&
		    d->outcome == OUTCOME_OK && d->value_len == 64 ? d->value :
		    NULL, ts);
	}
	/* Pruned here is an answer, not a failure: the bound is noted. */
	if (pruned >= 0)
		sup_endpoint_pruned(f->w, pruned);
	if (f->item == 0)
		return;
	if (r->n != f->n * per && worst == OUTCOME_OK) {
		worst = OUTCOME_MALFORMED;
		why = "wrong number of values";
	}
	/* A pruned read goes to another endpoint at once. */
	settle(f, worst == OUTCOME_OK, worst, why, worst == OUTCOME_ABSENT &&
	    pruned >= 0);
}

static void
result_runtime(struct inflight *f, const struct proto_res_runtime *rr)
{
	count(f, rr->outcome);
	if (f->item == 0)
		return;
	if (rr->outcome == OUTCOME_OK) {
		sup_chain_runtime(f->ch, rr->spec_name, rr->spec_version,
		    f->hashes[0], f->number);
		settle(f, 1, OUTCOME_OK, "", 0);
	} else if (!sup_chain_canonical(f->ch, f->hashes[0]))
		settle(f, 1, OUTCOME_OK, "", 0);	/* left the chain */
	else
		settle(f, 0, rr->outcome, rr->why, 0);
}

/*
 * An answer from a worker.  -1 (with err) if it answers nothing it was
 * asked: the worker is then killed as for any bad message.
 */
int
sup_queue_result(struct worker *w, const struct msg *m, char *err,
    size_t errlen)
{
	static struct proto_res_headers rh;
	static struct proto_res_storage rs;
	struct proto_res_runtime	rr;
	struct inflight			*f;
	uint64_t			 id;

	switch (m->type) {
	case MSG_RES_HEADERS:
		if (proto_unpack_res_headers(m, &rh, err, errlen) == -1)
			return -1;
		id = rh.id;
		break;
	case MSG_RES_STORAGE:
		if (proto_unpack_res_storage(m, &rs, err, errlen) == -1)
			return -1;
		id = rs.id;
		break;
	case MSG_RES_RUNTIME:
		if (proto_unpack_res_runtime(m, &rr, err, errlen) == -1)
			return -1;
		id = rr.id;
		break;
	default:
		snprintf(err, errlen, "unexpected %s message",
		    msg_type_name(m->type));
		return -1;
	}
	if (id >= next_req) {
		snprintf(err, errlen, "answer to request %llu, never sent",
		    (unsigned long long)id);
		return -1;
	}
	if ((f = find_inflight(w, id)) == NULL) {
		log_debug("w/%s: late answer to request %llu dropped", w->name,
		    (unsigned long long)id);
		return 0;
	}
	switch (f->kind) {
	case K_HEADERS:
	case K_PARENT:
		if (m->type != MSG_RES_HEADERS)
			goto mismatch;
		result_headers(f, &rh);
		break;
	case K_STATE:
		if (m->type != MSG_RES_STORAGE)
			goto mismatch;
		result_storage(f, &rs);
		break;
	case K_RUNTIME:
		if (m->type != MSG_RES_RUNTIME)
			goto mismatch;
		result_runtime(f, &rr);
		break;
	}
	inflight_free(f);
	store_maybe_flush();
	sup_queue_kick();
	return 0;
mismatch:
	snprintf(err, errlen, "%s answers request %llu of another kind",
	    msg_type_name(m->type), (unsigned long long)id);
	return -1;
}

/*
 * An endpoint is usable again (its breaker closed, its worker is back):
 * what waits out a backoff earned while endpoints failed is due now.
 */
void
sup_queue_endpoint_back(struct worker *w)
{
	struct chain	*ch = sup_chain_find(w->chain);
	uint64_t	 now = now_wall_ms();

	if (ch == NULL)
		return;
	store_run(store_bind(&s_retry_now, "iii", (int64_t)now, ch->id,
	    (int64_t)now));
	sup_queue_kick();
}

/* A worker died or was restarted: its leases come back now. */
void
sup_queue_worker_gone(struct worker *w)
{
	struct inflight	*f, *next;

	for (f = inflights; f != NULL; f = next) {
		next = f->next;
		if (f->w != w)
			continue;
		if (f->item != 0)
			settle(f, 0, OUTCOME_TRANSPORT, "worker died", 0);
		inflight_free(f);
	}
	w->inflight = 0;
	w->ready = 0;
}

void
sup_queue_init(void)
{
	storage_key("QPoW", "CurrentDifficulty", key_difficulty);
	storage_key("Timestamp", "Now", key_now);
	/* The leases of a previous run died with its workers. */
	store_run(store_prepare(&s_release_all));
	store_flush();
	ev_init(&tick, tick_cb);
	tick.repeat = QUEUE_TICK;
	ev_timer_again(sup_loop, &tick);
}

void
sup_queue_stop(void)
{
	ev_timer_stop(sup_loop, &tick);
	while (inflights != NULL)
		inflight_free(inflights);
}
