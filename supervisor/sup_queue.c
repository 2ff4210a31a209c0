/*
 * The durable catch-up queue: header ranges (backfill, holes), missing
 * parents by hash, state reads owed (difficulty, time) and runtime
 * versions.  Items live in SQLite; each is leased to one ready worker with
 * a deadline, and comes back with backoff when it fails or its lease
 * expires.  Work fans out over every ready worker of the chain: missing
 * parents first, then the highest blocks first, headers before the state
 * reads of the same blocks, so that what is fetched links to the chain at
 * once and the newest standings fill in first.
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
#define QUEUE_INFLIGHT		4	/* requests per worker */
#define QUEUE_TICK		0.05	/* seconds */

enum item_kind { K_HEADERS, K_PARENT, K_STATE, K_RUNTIME };
static const char *const kind_names[] = { "headers", "parent", "state",
    "runtime" };

/* A request out to a worker for one leased item. */
struct inflight {
	struct inflight	*next;
	uint64_t	 req;
	int64_t		 item;
	enum item_kind	 kind;
	struct worker	*w;
	struct chain	*ch;
	int64_t		 number;	/* runtime: the block's number */
	unsigned	 attempts;	/* this one included */
	uint32_t	 brk_gen;	/* the breaker's when it was sent */
	size_t		 n;		/* state: blocks asked about */
	uint8_t		 (*hashes)[32];
	int64_t		*numbers;	/* state: their numbers */
};

static struct inflight	*inflights;
static uint64_t		 next_req = 1;
static ev_timer		 tick;
static uint8_t		 key_difficulty[32], key_now[32];

static struct store_stmt s_due = { "SELECT id, kind, range_from, range_to, "
    "block_hash, block_number, attempts FROM queue WHERE chain_id = ? AND "
    "state = 'pending' AND next_attempt <= ? AND "
    "NOT (kind = 'state' AND range_from <= ?) ORDER BY "
    "kind != 'parent', coalesce(range_to, block_number) DESC, "
    "kind = 'state' LIMIT 1", NULL, NULL };
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
inflight_new(struct worker *w, struct chain *ch, int64_t item,
    enum item_kind kind)
{
	struct inflight	*f = xcalloc(1, sizeof(*f));

	f->req = next_req++;
	f->item = item;
	f->kind = kind;
	f->w = w;
	f->ch = ch;
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

/* Lease one due item of the worker's chain to it; 0 if none is due. */
static int
lease_one(struct worker *w, struct chain *ch, uint32_t deadline)
{
	sqlite3_stmt		*st;
	struct msgbuf		 mb;
	struct inflight		*f;
	int64_t			 id, from = 0, to = 0, number = 0;
	uint8_t			 hash[32];
	enum item_kind		 kind = K_HEADERS;
	unsigned		 attempts;
	const char		*k;

	/*
	 * State an endpoint no longer holds, even in part, is asked of the
	 * others: the same endpoint would only say "discarded" again.
	 */
	st = store_bind(&s_due, "iii", ch->id, (int64_t)now_wall_ms(),
	    w->pruning_bound);
	if (!store_row(st)) {
		sqlite3_reset(st);
		return 0;
	}
	id = sqlite3_column_int64(st, 0);
	k = (const char *)sqlite3_column_text(st, 1);
	for (size_t i = 0; i < nitems(kind_names); i++)
		if (strcmp(k, kind_names[i]) == 0)
			kind = (enum item_kind)i;
	from = sqlite3_column_int64(st, 2);
	to = sqlite3_column_int64(st, 3);
	store_col_blob(st, 4, hash, 32);
	number = sqlite3_column_int64(st, 5);
	attempts = (unsigned)sqlite3_column_int64(st, 6) + 1;
	sqlite3_reset(st);

	store_run(store_bind(&s_lease, "iii", w->endpoint_id,
	    (int64_t)lease_deadline(now_wall_ms(), deadline), id));
	f = inflight_new(w, ch, id, kind);
	f->attempts = attempts;
	f->brk_gen = w->brk.gen;
	switch (kind) {
	case K_HEADERS:
	case K_PARENT: {
		static struct proto_req_headers q;

		memset(&q, 0, sizeof(q));
		q.id = f->req;
		q.deadline_ms = deadline;
		if (kind == K_PARENT) {
			q.by = BY_HASH;
			q.n = 1;
			memcpy(q.hashes[0], hash, 32);
		} else {
			q.by = BY_NUMBER;
			for (int64_t n = from; n <= to &&
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
		st = store_bind(&s_owed_blocks, "iiii", ch->id, from, to,
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
			/* Nothing owed any more (read, or left the chain). */
			item_done(id);
			inflight_free(f);
			return 1;
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
		memcpy(q.at, hash, 32);
		f->number = number;
		f->hashes = xmalloc(32);
		memcpy(f->hashes[0], hash, 32);
		f->n = 1;
		proto_pack_req_runtime(&mb, w->gen, &q);
		break;
	}
	}
	sup_send(w, &mb);
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
	sqlite3_stmt	*st = store_bind(&s_due, "iii", ch->id,
			    (int64_t)now_wall_ms(), (int64_t)-1);
	int		 due = store_row(st);

	sqlite3_reset(st);
	return due;
}

/* 1 if no ready worker of the chain may be sent work by its breaker. */
static int
all_open(const char *chain, uint64_t now)
{
	for (struct worker *w = sup_workers; w != NULL; w = w->next)
		if (w->fsm.state == WS_RUNNING && w->ready &&
		    strcmp(w->chain, chain) == 0 &&
		    breaker_peek(&w->brk, now) != BRK_DENY_OPEN)
			return 0;
	return 1;
}

static void
schedule(void)
{
	int	progress = 1;

	/*
	 * Trials first: an endpoint back from its cooldown gets the first
	 * due item, or a healthy one would take every item of a quiet chain
	 * and the trial would never come.
	 */
	for (struct worker *w = sup_workers; w != NULL; w = w->next) {
		struct chain	*ch;
		unsigned	 limit = 1;
		uint32_t	 deadline;

		if (w->fsm.state != WS_RUNNING || !w->ready || w->inflight > 0 ||
		    breaker_peek(&w->brk, now_wall_ms()) != BRK_TRIAL ||
		    (ch = sup_chain_find(w->chain)) == NULL || !has_due(ch))
			continue;
		deadline = (uint32_t)ch->request_timeout;
		if (sup_health_allow(w, 0, &limit, &deadline))
			(void)lease_one(w, ch, deadline);
	}
	while (progress) {
		progress = 0;
		for (struct worker *w = sup_workers; w != NULL; w = w->next) {
			struct chain	*ch;
			unsigned	 limit = QUEUE_INFLIGHT;
			uint32_t	 deadline;

			if (w->fsm.state != WS_RUNNING || !w->ready ||
			    w->inflight >= QUEUE_INFLIGHT ||
			    (ch = sup_chain_find(w->chain)) == NULL)
				continue;
			deadline = (uint32_t)ch->request_timeout;
			/* No work, no trial taken for nothing. */
			if (!has_due(ch))
				continue;
			if (!sup_health_allow(w, all_open(w->chain,
			    now_wall_ms()), &limit, &deadline) ||
			    w->inflight >= limit)
				continue;
			if (lease_one(w, ch, deadline))
				progress = 1;
		}
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

static void
result_headers(struct inflight *f, const struct proto_res_headers *r)
{
	enum outcome	worst = OUTCOME_OK;
	const char	*why = "";

	for (size_t i = 0; i < r->n; i++) {
		if (r->items[i].outcome == OUTCOME_OK)
			sup_chain_fetched(f->ch, f->w->endpoint_id,
			    &r->items[i].h);
		else if (worst == OUTCOME_OK) {
			worst = r->items[i].outcome;
			why = r->items[i].why;
		}
	}
	sup_health_outcome(f->w, f->brk_gen, request_outcome(r->items, r->n,
	    sizeof(r->items[0]), offsetof(struct proto_item, outcome)));
	if (worst == OUTCOME_OK)
		item_done(f->item);
	else
		item_fail(f->item, f->attempts, worst, why, f->w->endpoint_id);
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
		sup_chain_state(f->ch, f->hashes[i], d != NULL &&
		    d->outcome == OUTCOME_OK && d->value_len == 64 ? d->value :
		    NULL, ts);
	}
	sup_health_outcome(f->w, f->brk_gen, request_outcome(r->items, r->n,
	    sizeof(r->items[0]), offsetof(struct proto_value, outcome)));
	if (r->n != f->n * per && worst == OUTCOME_OK) {
		worst = OUTCOME_MALFORMED;
		why = "wrong number of values";
	}
	if (worst == OUTCOME_OK)
		item_done(f->item);
	else if (worst == OUTCOME_ABSENT && pruned >= 0) {
		/*
		 * Pruned here is an answer, not a failure: the endpoint's
		 * bound is noted and the read goes to another one at once.
		 */
		sup_endpoint_pruned(f->w, pruned);
		item_back(f->item, now_wall_ms(), worst, why,
		    f->w->endpoint_id);
	} else
		item_fail(f->item, f->attempts, worst, why, f->w->endpoint_id);
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
		sup_health_outcome(w, f->brk_gen, rr.outcome);
		if (rr.outcome == OUTCOME_OK) {
			sup_chain_runtime(f->ch, rr.spec_name, rr.spec_version,
			    f->hashes[0], f->number);
			item_done(f->item);
		} else if (!sup_chain_canonical(f->ch, f->hashes[0]))
			item_done(f->item);	/* left the chain: not owed */
		else
			item_fail(f->item, f->attempts, rr.outcome, rr.why,
			    w->endpoint_id);
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

/* A worker died or was restarted: its leases come back now. */
void
sup_queue_worker_gone(struct worker *w)
{
	struct inflight	*f, *next;

	for (f = inflights; f != NULL; f = next) {
		next = f->next;
		if (f->w != w)
			continue;
		item_fail(f->item, f->attempts, OUTCOME_TRANSPORT,
		    "worker died", w->endpoint_id);
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
