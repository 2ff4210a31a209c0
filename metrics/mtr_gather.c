/*
 * One snapshot of everything a scrape shows: the live counters from
 * chainwatchd's control socket ("metrics"), and from the store, read-only,
 * each chain's status as `chainwatch status` judges it, the endpoints'
 * heads, the catch-up queue and the branches the endpoints' tips are on.
 * Either source may be missing; the snapshot says which one answered.
 * Called by one thread at a time.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "log.h"
#include "mtr.h"
#include "mtr_apicache.h"
#include "util.h"
#include "view.h"
#include "view_ctl.h"

const char *const mtr_queue_kinds[MTR_NKINDS] = {
	"headers", "parent", "state", "runtime",
};
const char *const mtr_queue_states[MTR_NQSTATES] = { "pending", "leased" };
const char *const mtr_breaker_states[] = {
	"closed", "open", "half-open", NULL,
};
/* What the store says of an endpoint: its breaker, or worse. */
const char *const mtr_endpoint_states[] = {
	"closed", "open", "half-open", "down", "quarantined", "inconsistent",
	"unresponsive", "unknown", NULL,
};
_Static_assert(MTR_NWINDOWS == VIEW_NWINDOWS, "mtr_window_names");
const char *const mtr_window_names[MTR_NWINDOWS] = {
	"all", "1h", "24h", "7d",
};
const char *const mtr_chain_statuses[] = {
	"ok", "degraded", "stalled", "unreachable", NULL,
};

static struct mtr_source src;
static struct view_db	 db;
static int		 db_open;
static uint64_t		 db_opens;	/* connections opened so far */
/* Say a source failed once, and again only after it came back. */
static int		 store_failing, sup_failing;

/*
 * The store's errors, from libcwview.a: log lines, at debug level while
 * the store keeps failing.
 */
static void
store_err(const char *msg)
{
	logit(store_failing ? LOG_LEVEL_DEBUG : LOG_LEVEL_WARN, "%s", msg);
}

void
mtr_gather_init(const struct mtr_source *s)
{
	src = *s;
	view_set_err(store_err);
}

int
mtr_gather_open_store(void)
{
	if (db_open)
		return 0;
	/*
	 * In memory: the sandbox allows the store's folder only, read-only,
	 * so the file a big sort spills to (/var/tmp/etilqs_*) is refused and
	 * a window's standings fail from some 20 000 blocks on.  Our largest
	 * sort is the 7d window's blocks: about 5 MB more on Planck.
	 */
	if (view_db_open(&db, src.database, VIEW_TEMP_MEMORY) != CW_EXIT_OK)
		return -1;
	db_open = 1;
	db_opens++;
	return 0;
}

void
mtr_gather_close(void)
{
	if (db_open)
		view_db_close(&db);
	db_open = 0;
}

static int
name_index(const char *const *names, const char *s)
{
	for (int i = 0; names[i] != NULL; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

static struct mtr_chain *
snap_chain(struct mtr_snap *s, const char *name)
{
	struct mtr_chain	*c;

	for (size_t i = 0; i < s->n_chains; i++)
		if (strcmp(s->chains[i].name, name) == 0)
			return &s->chains[i];
	s->chains = xrealloc(s->chains, (s->n_chains + 1) * sizeof(*c));
	c = &s->chains[s->n_chains++];
	memset(c, 0, sizeof(*c));
	c->name = xstrdup(name);
	c->status = -1;
	return c;
}

static struct mtr_endpoint *
snap_ep(struct mtr_snap *s, const char *name, const char *chain)
{
	struct mtr_endpoint	*e;

	for (size_t i = 0; i < s->n_eps; i++)
		if (strcmp(s->eps[i].name, name) == 0)
			return &s->eps[i];
	s->eps = xrealloc(s->eps, (s->n_eps + 1) * sizeof(*e));
	e = &s->eps[s->n_eps++];
	memset(e, 0, sizeof(*e));
	e->name = xstrdup(name);
	e->chain = xstrdup(chain);
	return e;
}

void
mtr_snap_free(struct mtr_snap *s)
{
	for (size_t i = 0; i < s->n_chains; i++)
		free(s->chains[i].name);
	for (size_t i = 0; i < s->n_eps; i++) {
		free(s->eps[i].name);
		free(s->eps[i].chain);
	}
	for (size_t i = 0; i < s->n_miners; i++) {
		free(s->miners[i].chain);
		free(s->miners[i].name);
	}
	free(s->chains);
	free(s->eps);
	free(s->miners);
	json_decref(s->status);
	memset(s, 0, sizeof(*s));
}

/* ---- the store ---- */

static const char *
col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t != NULL ? (const char *)t : "";
}

static const char q_endpoints[] =
    "SELECT c.name, e.name, e.state, e.best_number,"
    "  c.best_number - e.best_number, e.lag_ms, e.heads_seen,"
    "  e.heads_first, e.restarts, e.seals_failed"
    " FROM endpoints e JOIN chains c ON c.id = e.chain_id"
    " WHERE e.configured = 1 ORDER BY c.name, e.position, e.name";
static const char q_leases[] =
    "SELECT e.name, count(*) FROM queue q"
    " JOIN endpoints e ON e.id = q.lease_endpoint_id"
    " WHERE q.state = 'leased' AND e.configured = 1"
    " GROUP BY q.lease_endpoint_id";
static const char q_queue[] =
    "SELECT c.name, q.kind, q.state, count(*),"
    "  sum(CASE WHEN q.range_from IS NOT NULL"
    "    THEN q.range_to - q.range_from + 1 ELSE 1 END)"
    " FROM queue q JOIN chains c ON c.id = q.chain_id"
    " GROUP BY q.chain_id, q.kind, q.state";

static int
store_endpoints(struct mtr_snap *s)
{
	sqlite3_stmt		*st;
	struct mtr_endpoint	*e;
	int			 rc;

	if (view_db_prepare(&db, "reading endpoints", q_endpoints, &st) == -1)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		e = snap_ep(s, col_text(st, 1), col_text(st, 0));
		e->in_store = 1;
		snprintf(e->state, sizeof(e->state), "%s", col_text(st, 2));
		if (name_index(mtr_endpoint_states, e->state) == -1)
			snprintf(e->state, sizeof(e->state), "unknown");
		e->has_best = view_col_int(st, 3, &e->best_number);
		e->has_lag_blocks = view_col_int(st, 4, &e->lag_blocks);
		e->has_lag = view_col_int(st, 5, &e->lag_ms);
		e->heads_seen = sqlite3_column_int64(st, 6);
		e->heads_first = sqlite3_column_int64(st, 7);
		e->restarts_stored = sqlite3_column_int64(st, 8);
		e->seals_failed = sqlite3_column_int64(st, 9);
	}
	return view_db_finish(&db, "reading endpoints", st, rc == SQLITE_DONE);
}

/* Queue items leased to each endpoint: one pass over the queue. */
static int
store_leases(struct mtr_snap *s)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (view_db_prepare(&db, "reading the queue", q_leases, &st) == -1)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		for (size_t i = 0; i < s->n_eps; i++)
			if (strcmp(s->eps[i].name, col_text(st, 0)) == 0)
				s->eps[i].leased = sqlite3_column_int64(st, 1);
	return view_db_finish(&db, "reading the queue", st, rc == SQLITE_DONE);
}

static int
store_queue(struct mtr_snap *s)
{
	sqlite3_stmt		*st;
	struct mtr_chain	*c;
	int			 rc, k, q;

	if (view_db_prepare(&db, "reading the queue", q_queue, &st) == -1)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		k = name_index(mtr_queue_kinds, col_text(st, 1));
		q = -1;
		for (int i = 0; i < MTR_NQSTATES; i++)
			if (strcmp(mtr_queue_states[i], col_text(st, 2)) == 0)
				q = i;
		if (k == -1 || q == -1)
			continue;	/* the schema's CHECKs forbid it */
		c = snap_chain(s, col_text(st, 0));
		c->q_items[k][q] = (uint64_t)sqlite3_column_int64(st, 3);
		c->q_blocks[k][q] = (uint64_t)sqlite3_column_int64(st, 4);
	}
	return view_db_finish(&db, "reading the queue", st, rc == SQLITE_DONE);
}

static int
store_chains(struct mtr_snap *s)
{
	json_t			*a, *o, *v;
	struct mtr_chain	*c;
	size_t			 i;

	a = json_object_get(s->status, "chains");
	json_array_foreach(a, i, o) {
		if (!json_is_string(json_object_get(o, "name")))
			continue;
		c = snap_chain(s, json_string_value(json_object_get(o,
		    "name")));
		c->in_store = 1;
		if ((v = json_object_get(o, "status")) != NULL &&
		    json_is_string(v))
			c->status = name_index(mtr_chain_statuses,
			    json_string_value(v));
		c->slow = json_is_string(json_object_get(o, "slow"));
		if ((c->has_best = json_is_integer(v = json_object_get(o,
		    "best"))))
			c->best_number = json_integer_value(v);
		if ((c->has_final = json_is_integer(v = json_object_get(o,
		    "final"))))
			c->final_number = json_integer_value(v);
		if ((c->has_updated = json_is_integer(v = json_object_get(o,
		    "updated_at"))))
			c->updated_at = json_integer_value(v);
	}
	return 0;
}

/*
 * Each chain's estimated hashrate over every window, and its miners'
 * over the last hour and day (chainwatch standings --window).
 */
static int
store_hashrate(struct mtr_snap *s, const struct view_chain *ch)
{
	struct view_standings	 st;
	struct mtr_chain	*c;
	struct mtr_miner	*m;
	int			 w;

	c = snap_chain(s, ch->name);
	for (w = 0; w < MTR_NWINDOWS; w++) {
		if (view_standings_load(&db, ch, (enum view_window)w, 0,
		    s->now, &st) != CW_EXIT_OK) {
			view_standings_free(&st);
			return -1;
		}
		c->has_hashrate[w] = st.has_hashrate;
		c->hashrate[w] = st.hashrate;
		for (size_t i = 0; (w == VIEW_WINDOW_1H ||
		    w == VIEW_WINDOW_24H) && i < st.n; i++) {
			if (!st.rows[i].has_hashrate)
				continue;
			s->miners = xrealloc(s->miners, (s->n_miners + 1) *
			    sizeof(*m));
			m = &s->miners[s->n_miners++];
			m->chain = xstrdup(ch->name);
			m->name = xstrdup(st.rows[i].name);
			m->window = w;
			m->hashrate = st.rows[i].hashrate;
		}
		view_standings_free(&st);
	}
	return 0;
}

/* How many branches each chain's endpoints' tips are on now; hashrates. */
static int
store_forks(struct mtr_snap *s)
{
	struct view_chain	*chains;
	struct view_forks	 f;
	struct mtr_chain	*c;
	size_t			 n;
	int			 rc;

	if (view_chains_load(&db, &chains, &n) != CW_EXIT_OK)
		return -1;
	rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (view_forks_load(&db, &chains[i], s->now, 0, &f) ==
		    CW_EXIT_OK) {
			c = snap_chain(s, chains[i].name);
			c->has_tips = 1;
			c->tips = (int64_t)f.r.n_branches;
			rc = store_hashrate(s, &chains[i]);
		} else
			rc = -1;
		view_forks_free(&f);
	}
	view_chains_free(chains, n);
	return rc;
}

unsigned
mtr_gather_page(struct buf *b)
{
	unsigned	code;

	if (mtr_gather_open_store() == -1) {
		buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
		    "<meta charset=\"utf-8\"><title>chainwatch</title></head>"
		    "<body><p>The store cannot be opened; see the log of "
		    "chainwatch-metrics.</p></body></html>\n");
		return 503;
	}
	if ((code = mtr_page(&db, (int64_t)now_wall_ms(), b)) != 200)
		mtr_gather_close();	/* reopen next time */
	return code;
}

unsigned
mtr_gather_api(struct mtr_api_answer *a)
{
	unsigned	code;

	code = mtr_api(mtr_gather_open_store() == 0 ? &db : NULL, a);
	if (code == 503)
		mtr_gather_close();	/* reopen next time */
	return code;
}

int
mtr_gather_store_version(struct mtr_store_version *v)
{
	if (mtr_gather_open_store() == -1)
		return -1;
	if (view_db_data_version(&db, &v->data) == -1) {
		mtr_gather_close();	/* reopen next time */
		return -1;
	}
	v->conn = db_opens;
	return 0;
}

static int
gather_store(struct mtr_snap *s)
{
	int	rc;

	if (mtr_gather_open_store() == -1)
		return -1;
	if (view_status_json(&db, NULL, &s->status) != CW_EXIT_OK) {
		s->status = NULL;
		mtr_gather_close();
		return -1;
	}
	store_chains(s);
	if (view_db_begin(&db) == -1) {
		mtr_gather_close();
		return -1;
	}
	rc = store_endpoints(s);
	if (rc == 0)
		rc = store_leases(s);
	if (rc == 0)
		rc = store_queue(s);
	if (rc == 0)
		rc = store_forks(s);
	view_db_end(&db);
	/* Reopen next time: the file may have been replaced. */
	if (rc == -1)
		mtr_gather_close();
	return rc;
}

/* ---- the supervisor ---- */

/*
 * The latency histogram as the supervisor sends it: increasing finite
 * bounds, cumulative counts that never decrease, one more count than
 * bounds (the +Inf bucket), equal to latency_count.  Else none.
 */
static int
sup_histogram(struct mtr_endpoint *e, const json_t *o)
{
	const json_t	*le = json_object_get(o, "latency_le_seconds");
	const json_t	*cum = json_object_get(o, "latency_cumulative");
	const json_t	*sum = json_object_get(o, "latency_sum_seconds");
	uint64_t	 count;
	size_t		 n, i;

	if (!json_is_array(le) || !json_is_array(cum) || !json_is_number(sum))
		return -1;
	n = json_array_size(le);
	if (n > MTR_BUCKETS_MAX || json_array_size(cum) != n + 1 ||
	    view_ctl_count(o, "latency_count", &count) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		const json_t *b = json_array_get(le, i);

		if (!json_is_number(b))
			return -1;
		e->le[i] = json_number_value(b);
		if (!isfinite(e->le[i]) || (i > 0 && e->le[i] <= e->le[i - 1]))
			return -1;
	}
	for (i = 0; i <= n; i++) {
		const json_t *c = json_array_get(cum, i);

		if (!json_is_integer(c) || json_integer_value(c) < 0)
			return -1;
		e->cumulative[i] = (uint64_t)json_integer_value(c);
		if (i > 0 && e->cumulative[i] < e->cumulative[i - 1])
			return -1;
	}
	if (e->cumulative[n] != count)
		return -1;
	e->sum_seconds = json_number_value(sum);
	if (!isfinite(e->sum_seconds) || e->sum_seconds < 0)
		return -1;
	e->n_le = n;
	return 0;
}

static void
sup_endpoint(struct mtr_snap *s, const json_t *o)
{
	const json_t		*name = json_object_get(o, "endpoint");
	const json_t		*chain = json_object_get(o, "chain");
	const json_t		*req, *v;
	struct mtr_endpoint	*e;

	if (!json_is_string(name) || !json_is_string(chain))
		return;
	e = snap_ep(s, json_string_value(name), json_string_value(chain));
	/*
	 * An endpoint removed and added again by a reload can be listed
	 * twice while the old worker stops: the first one listed wins, as
	 * the supervisor keeps its workers in the order they were added.
	 */
	if (e->in_sup)
		return;
	e->in_sup = 1;
	req = json_object_get(o, "requests");
	for (int i = 0; i < OUTCOME_COUNT; i++)
		if (view_ctl_count(req, outcome_name((enum outcome)i),
		    &e->requests[i]) == -1)
			e->requests[i] = 0;
	e->has_hist = sup_histogram(e, o) == 0;
	if (!e->has_hist)
		log_debug("%s: no valid latency histogram from chainwatchd",
		    e->name);
	v = json_object_get(o, "breaker");
	if (json_is_string(v) && name_index(mtr_breaker_states,
	    json_string_value(v)) != -1)
		snprintf(e->breaker, sizeof(e->breaker), "%s",
		    json_string_value(v));
	(void)view_ctl_count(o, "restarts", &e->restarts);
	(void)view_ctl_count(o, "rss_bytes", &e->rss_bytes);
	(void)view_ctl_count(o, "heap_bytes", &e->heap_bytes);
	(void)view_ctl_count(o, "inflight", &e->inflight);
	(void)view_ctl_count(o, "hedges", &e->hedges);
	e->ready = json_is_true(json_object_get(o, "ready"));
}

static void
sup_chain(struct mtr_snap *s, const json_t *o)
{
	const json_t		*name = json_object_get(o, "chain"), *v;
	struct mtr_chain	*c;

	if (!json_is_string(name))
		return;
	c = snap_chain(s, json_string_value(name));
	c->in_sup = 1;
	/* Fresher than the store, which is written in batches. */
	if (json_is_integer(v = json_object_get(o, "best_number"))) {
		c->has_best = 1;
		c->best_number = json_integer_value(v);
	}
	if (json_is_integer(v = json_object_get(o, "final_number"))) {
		c->has_final = 1;
		c->final_number = json_integer_value(v);
	}
	(void)view_ctl_count(o, "blocks_ingested", &c->blocks_ingested);
	(void)view_ctl_count(o, "hedges", &c->hedges);
	(void)view_ctl_count(o, "hedges_won", &c->hedges_won);
	(void)view_ctl_count(o, "seals_failed", &c->seals_failed);
}

/*
 * chainwatchd's answer to "metrics" into s: 0, or -1 and why in err when
 * it refused or is not of the shape (fuzz/fuzz_metrics.c calls this).
 */
static int
sup_answer(struct mtr_snap *s, const json_t *a, char *err, size_t errlen)
{
	const json_t	*v;
	size_t		 i;

	if (!json_is_true(json_object_get(a, "ok")) ||
	    !json_is_array(json_object_get(a, "endpoints")) ||
	    !json_is_array(json_object_get(a, "chains"))) {
		v = json_object_get(a, "error");
		snprintf(err, errlen, "%s", json_is_string(v) ?
		    json_string_value(v) : "no endpoints or chains");
		return -1;
	}
	json_array_foreach(json_object_get(a, "endpoints"), i, v)
		sup_endpoint(s, v);
	json_array_foreach(json_object_get(a, "chains"), i, v)
		sup_chain(s, v);
	/* Whether its store takes writes (sup_snapshot.c). */
	v = json_object_get(json_object_get(a, "store"), "blocked");
	if (json_is_string(v) && strlen(json_string_value(v)) <
	    sizeof(s->store_blocked) && strspn(json_string_value(v),
	    "abcdefghijklmnopqrstuvwxyz-") == strlen(json_string_value(v)))
		snprintf(s->store_blocked, sizeof(s->store_blocked), "%s",
		    json_string_value(v));
	(void)view_ctl_count(json_object_get(a, "store"), "waiting_messages",
	    &s->store_waiting);
	(void)view_ctl_count(json_object_get(a, "store"), "cache_bytes",
	    &s->store_cache);
	s->has_sup_heap = view_ctl_count(json_object_get(a, "daemon"),
	    "heap_bytes", &s->sup_heap) == 0;
	return 0;
}

static int
gather_sup(struct mtr_snap *s)
{
	json_t		*a;
	char		 err[512];
	int		 down, rc;

	if (view_ctl_request(src.control_socket, "metrics", &a, &down, err,
	    sizeof(err)) == -1) {
		logit(sup_failing ? LOG_LEVEL_DEBUG : LOG_LEVEL_WARN,
		    "chainwatchd does not answer: %s; serving the store's "
		    "figures", err);
		return -1;
	}
	if ((rc = sup_answer(s, a, err, sizeof(err))) == -1)
		logit(sup_failing ? LOG_LEVEL_DEBUG : LOG_LEVEL_WARN,
		    "chainwatchd refused the metrics request: %s; serving the "
		    "store's figures", err);
	json_decref(a);
	return rc;
}

static double
mono_seconds(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The store first, so that chains and endpoints come in its order (by
 * name, then configuration order); what only the supervisor knows, such
 * as an endpoint added by a reload and not yet flushed, follows.
 */
void
mtr_gather(struct mtr_snap *s)
{
	double	t0 = mono_seconds();

	memset(s, 0, sizeof(*s));
	s->now = (int64_t)now_wall_ms();
	s->store_up = gather_store(s) == 0;
	if (s->store_up && store_failing)
		log_info("the store %s can be read again", src.database);
	store_failing = !s->store_up;
	s->sup_up = gather_sup(s) == 0;
	if (s->sup_up && sup_failing)
		log_info("chainwatchd answers again on %s",
		    src.control_socket);
	sup_failing = !s->sup_up;
	s->heap = mem_in_use();
	if (db_open) {
		int	cur = 0, high = 0;

		s->has_cache = sqlite3_db_status(db.db,
		    SQLITE_DBSTATUS_CACHE_USED, &cur, &high, 0) == SQLITE_OK &&
		    cur >= 0;
		s->cache = s->has_cache ? (uint64_t)cur : 0;
	}
	s->gather_seconds = mono_seconds() - t0;
}
