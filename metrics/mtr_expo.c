/*
 * The Prometheus text exposition (format 0.0.4) of one snapshot: each
 * family once, HELP and TYPE before all of its samples, label values
 * escaped, histograms cumulative up to +Inf.  The daemon's families are
 * left out whole, HELP and TYPE too, when it did not answer.
 * chainwatch-metrics(8) lists every family: keep the two in step.
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "mtr.h"
#include "util.h"

/*
 * The shortest decimal that reads back as the same double, without an
 * exponent for everyday magnitudes: le="10", not le="1e+01", since a
 * bucket's le is part of its series' name.
 */
void
mtr_fmt_double(double v, char *out, size_t outlen)
{
	int	prec, digits;

	if (isnan(v)) {
		snprintf(out, outlen, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(out, outlen, "%sInf", v > 0 ? "+" : "-");
		return;
	}
	for (prec = 1; prec < 17; prec++) {
		snprintf(out, outlen, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			break;
	}
	if (fabs(v) >= 1e-4 && fabs(v) < 1e15) {
		digits = (int)floor(log10(fabs(v))) + 1;	/* before the point */
		if (digits > prec)
			prec = digits;
	}
	snprintf(out, outlen, "%.*g", prec, v);
}

/* A label value: backslash, double quote and newline are escaped. */
static void
esc(struct buf *b, const char *v)
{
	const char	*p;

	for (p = v; *p != '\0'; p++) {
		switch (*p) {
		case '\\':
			buf_add(b, "\\\\", 2);
			break;
		case '"':
			buf_add(b, "\\\"", 2);
			break;
		case '\n':
			buf_add(b, "\\n", 2);
			break;
		default:
			buf_add(b, p, 1);
		}
	}
}

static void
family(struct buf *b, const char *name, const char *type,
    const char *help)
{
	buf_addf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
	    type);
}

/* A gauge without labels: its family and its one value. */
static void
gauge(struct buf *b, const char *name, const char *help, uint64_t v)
{
	family(b, name, "gauge", help);
	buf_addf(b, "%s %llu\n", name, (unsigned long long)v);
}

/*
 * name{chain="C"[,endpoint="E"][,K="V"]...} -- extra labels as NULL-ended
 * key, value pairs -- then a space, ready for the value.
 */
static void
series(struct buf *b, const char *name, const char *chain,
    const char *ep, ...)
{
	va_list		 ap;
	const char	*k, *v;

	buf_addf(b, "%s{chain=\"", name);
	esc(b, chain);
	if (ep != NULL) {
		buf_add(b, "\",endpoint=\"", 12);
		esc(b, ep);
	}
	va_start(ap, ep);
	while ((k = va_arg(ap, const char *)) != NULL) {
		v = va_arg(ap, const char *);
		buf_addf(b, "\",%s=\"", k);
		esc(b, v);
	}
	va_end(ap);
	buf_add(b, "\"} ", 3);
}

static void
val_u(struct buf *b, uint64_t v)
{
	buf_addf(b, "%llu\n", (unsigned long long)v);
}

static void
val_i(struct buf *b, int64_t v)
{
	buf_addf(b, "%lld\n", (long long)v);
}

static void
val_d(struct buf *b, double v)
{
	char	num[40];

	mtr_fmt_double(v, num, sizeof(num));
	buf_addf(b, "%s\n", num);
}

/*
 * Most families have one sample per chain or endpoint and no label of
 * their own: a table says which struct members hold the flag that they
 * have one (an int) and its value.
 */
enum fam_val {
	VAL_I64,	/* int64_t */
	VAL_U64,	/* uint64_t */
	VAL_FLAG,	/* int: 1 when not 0 */
	VAL_MS,		/* int64_t milliseconds, in seconds */
	VAL_AGE,	/* int64_t wall clock ms, in seconds before now */
};

struct fam {
	const char	*name, *type, *help;
	size_t		 when;		/* offset of the int flag */
	size_t		 value;		/* offset of the value */
	enum fam_val	 kind;
};

#define CHAIN_FAM(name, type, help, when, value, kind)			\
	{ name, type, help, offsetof(struct mtr_chain, when),		\
	    offsetof(struct mtr_chain, value), kind }
#define EP_FAM(name, type, help, when, value, kind)			\
	{ name, type, help, offsetof(struct mtr_endpoint, when),	\
	    offsetof(struct mtr_endpoint, value), kind }

static int
fam_has(const struct fam *f, const void *p)
{
	return *(const int *)((const char *)p + f->when) != 0;
}

static void
fam_value(struct buf *b, const struct fam *f, const void *p, int64_t now)
{
	const char	*v = (const char *)p + f->value;

	switch (f->kind) {
	case VAL_I64:
		val_i(b, *(const int64_t *)v);
		break;
	case VAL_U64:
		val_u(b, *(const uint64_t *)v);
		break;
	case VAL_FLAG:
		val_u(b, *(const int *)v != 0);
		break;
	case VAL_MS:
		val_d(b, (double)*(const int64_t *)v / 1000.0);
		break;
	case VAL_AGE:
		val_d(b, (double)(now - *(const int64_t *)v) / 1000.0);
		break;
	}
}

/*
 * The families f[0..n), each over every chain that has it; those only the
 * daemon knows (flagged by in_sup) not at all while it is not answering.
 */
static void
chain_fams(const struct mtr_snap *s, struct buf *b, const struct fam *f,
    size_t n)
{
	const struct mtr_chain	*c;
	size_t			 i;

	for (; n > 0; f++, n--) {
		if (!s->sup_up && f->when == offsetof(struct mtr_chain, in_sup))
			continue;
		family(b, f->name, f->type, f->help);
		for (i = 0; i < s->n_chains; i++) {
			c = &s->chains[i];
			if (!fam_has(f, c))
				continue;
			series(b, f->name, c->name, NULL, NULL);
			fam_value(b, f, c, s->now);
		}
	}
}

/* The same over every endpoint. */
static void
ep_fams(const struct mtr_snap *s, struct buf *b, const struct fam *f,
    size_t n)
{
	const struct mtr_endpoint	*e;
	size_t				 i;

	for (; n > 0; f++, n--) {
		if (!s->sup_up &&
		    f->when == offsetof(struct mtr_endpoint, in_sup))
			continue;
		family(b, f->name, f->type, f->help);
		for (i = 0; i < s->n_eps; i++) {
			e = &s->eps[i];
			if (!fam_has(f, e))
				continue;
			series(b, f->name, e->chain, e->name, NULL);
			fam_value(b, f, e, s->now);
		}
	}
}

#define NFAMS(a)	(sizeof(a) / sizeof((a)[0]))

static const struct fam chain_heads[] = {
	CHAIN_FAM("chainwatch_chain_head_height", "gauge",
	    "Number of the chain's best block.",
	    has_best, best_number, VAL_I64),
	CHAIN_FAM("chainwatch_chain_finalized_height", "gauge",
	    "Number of the chain's last final block.",
	    has_final, final_number, VAL_I64),
	CHAIN_FAM("chainwatch_chain_head_age_seconds", "gauge",
	    "Seconds since the store took the chain's last new head.",
	    has_updated, updated_at, VAL_AGE),
	CHAIN_FAM("chainwatch_chain_tips", "gauge",
	    "Branches the endpoints' current tips are on: 1 when they "
	    "agree, 2 or more in a split.",
	    has_tips, tips, VAL_I64),
};

static const struct fam chain_ingest[] = {
	CHAIN_FAM("chainwatch_chain_blocks_ingested_total", "counter",
	    "Blocks stored since chainwatchd started.",
	    in_sup, blocks_ingested, VAL_U64),
	CHAIN_FAM("chainwatch_chain_hedges_total", "counter",
	    "Catch-up requests also sent to a second endpoint.",
	    in_sup, hedges, VAL_U64),
	CHAIN_FAM("chainwatch_chain_hedges_won_total", "counter",
	    "Hedged requests that the second endpoint answered first.",
	    in_sup, hedges_won, VAL_U64),
	CHAIN_FAM("chainwatch_chain_seals_failed_total", "counter",
	    "Blocks whose seal failed (its shape, or the difficulty at its "
	    "parent) since chainwatchd started.",
	    in_sup, seals_failed, VAL_U64),
};

/* Queue items, or the blocks they cover, by kind and state. */
static void
chain_queue(const struct mtr_snap *s, struct buf *b, const char *name,
    const char *help, int blocks)
{
	const struct mtr_chain	*c;
	size_t			 i;
	int			 k, q;

	family(b, name, "gauge", help);
	for (i = 0; i < s->n_chains; i++) {
		c = &s->chains[i];
		if (!c->in_store)
			continue;
		for (k = 0; k < MTR_NKINDS; k++)
			for (q = 0; q < MTR_NQSTATES; q++) {
				series(b, name, c->name, NULL, "kind",
				    mtr_queue_kinds[k], "state",
				    mtr_queue_states[q], NULL);
				val_u(b, blocks ? c->q_blocks[k][q] :
				    c->q_items[k][q]);
			}
	}
}

static void
expo_chains(const struct mtr_snap *s, struct buf *b)
{
	const struct mtr_chain	*c;
	size_t			 i;
	int			 k;

	chain_fams(s, b, chain_heads, NFAMS(chain_heads));
	family(b, "chainwatch_chain_status", "gauge",
	    "1 for the chain's status (ok, degraded, stalled, unreachable), "
	    "0 for the others.");
	for (i = 0; i < s->n_chains; i++) {
		c = &s->chains[i];
		if (c->status < 0)
			continue;
		for (k = 0; mtr_chain_statuses[k] != NULL; k++) {
			series(b, "chainwatch_chain_status", c->name, NULL,
			    "status", mtr_chain_statuses[k], NULL);
			val_u(b, c->status == k);
		}
	}
	family(b, "chainwatch_chain_slow", "gauge",
	    "1 while every endpoint of the chain is slow (no one singled out "
	    "as unresponsive), 0 otherwise.");
	for (i = 0; i < s->n_chains; i++) {
		c = &s->chains[i];
		if (c->status < 0)
			continue;
		series(b, "chainwatch_chain_slow", c->name, NULL, NULL);
		val_u(b, c->slow);
	}
	chain_fams(s, b, chain_ingest, NFAMS(chain_ingest));
	family(b, "chainwatch_chain_hashrate", "gauge",
	    "Estimated hashes per second of the chain over the window (1h, "
	    "24h, 7d, all): its canonical blocks' difficulty, less the "
	    "earliest's, over the span of their timestamps.");
	for (i = 0; i < s->n_chains; i++) {
		c = &s->chains[i];
		for (k = 0; k < MTR_NWINDOWS; k++) {
			if (!c->has_hashrate[k])
				continue;
			series(b, "chainwatch_chain_hashrate", c->name, NULL,
			    "window", mtr_window_names[k], NULL);
			val_d(b, c->hashrate[k]);
		}
	}
	family(b, "chainwatch_miner_hashrate", "gauge",
	    "Estimated hashes per second of each miner with blocks in the "
	    "window (1h, 24h), the same way from its own blocks.");
	for (i = 0; i < s->n_miners; i++) {
		series(b, "chainwatch_miner_hashrate", s->miners[i].chain,
		    NULL, "miner", s->miners[i].name, "window",
		    mtr_window_names[s->miners[i].window], NULL);
		val_d(b, s->miners[i].hashrate);
	}
	chain_queue(s, b, "chainwatch_chain_queue_items",
	    "Catch-up queue items by kind and state.", 0);
	chain_queue(s, b, "chainwatch_chain_queue_blocks",
	    "Blocks the catch-up queue items cover, by kind and state.", 1);
}

static void
expo_histogram(const struct mtr_endpoint *e, struct buf *b)
{
	const char	*name = "chainwatch_endpoint_request_duration_seconds";
	char		 n[128], le[40];

	snprintf(n, sizeof(n), "%s_bucket", name);
	for (size_t i = 0; i < e->n_le; i++) {
		mtr_fmt_double(e->le[i], le, sizeof(le));
		series(b, n, e->chain, e->name, "le", le, NULL);
		val_u(b, e->cumulative[i]);
	}
	series(b, n, e->chain, e->name, "le", "+Inf", NULL);
	val_u(b, e->cumulative[e->n_le]);
	snprintf(n, sizeof(n), "%s_sum", name);
	series(b, n, e->chain, e->name, NULL);
	val_d(b, e->sum_seconds);
	snprintf(n, sizeof(n), "%s_count", name);
	series(b, n, e->chain, e->name, NULL);
	val_u(b, e->cumulative[e->n_le]);
}

static const struct fam ep_store[] = {
	EP_FAM("chainwatch_endpoint_queue_leased", "gauge",
	    "Catch-up queue items leased to the endpoint.",
	    in_store, leased, VAL_I64),
	EP_FAM("chainwatch_endpoint_inflight_requests", "gauge",
	    "Catch-up requests sent to the endpoint and not answered yet.",
	    in_sup, inflight, VAL_U64),
	EP_FAM("chainwatch_endpoint_head_height", "gauge",
	    "Number of the last head the endpoint delivered.",
	    has_best, best_number, VAL_I64),
	EP_FAM("chainwatch_endpoint_head_lag_blocks", "gauge",
	    "Chain head height minus the endpoint's head height, as stored.",
	    has_lag_blocks, lag_blocks, VAL_I64),
	EP_FAM("chainwatch_endpoint_head_lag_seconds", "gauge",
	    "How long after the first endpoint this one delivered its last "
	    "head.",
	    has_lag, lag_ms, VAL_MS),
	EP_FAM("chainwatch_endpoint_heads_seen_total", "counter",
	    "Heads the endpoint delivered.",
	    in_store, heads_seen, VAL_I64),
	EP_FAM("chainwatch_endpoint_heads_first_total", "counter",
	    "Heads the endpoint delivered before any other endpoint.",
	    in_store, heads_first, VAL_I64),
	EP_FAM("chainwatch_endpoint_seals_failed_total", "counter",
	    "Blocks the endpoint served first whose seal failed the check.",
	    in_store, seals_failed, VAL_I64),
};

static const struct fam ep_worker[] = {
	EP_FAM("chainwatch_endpoint_worker_rss_bytes", "gauge",
	    "Resident memory of the endpoint's worker at its last heartbeat.",
	    in_sup, rss_bytes, VAL_U64),
	EP_FAM("chainwatch_endpoint_worker_heap_bytes", "gauge",
	    "Memory the endpoint's worker had allocated and not freed at its "
	    "last heartbeat (0: its allocator does not say).",
	    in_sup, heap_bytes, VAL_U64),
	EP_FAM("chainwatch_endpoint_worker_ready", "gauge",
	    "1 when the endpoint's worker runs and its endpoint serves the "
	    "chain's genesis.",
	    in_sup, ready, VAL_FLAG),
	EP_FAM("chainwatch_endpoint_hedges_total", "counter",
	    "Hedge requests sent to the endpoint.",
	    in_sup, hedges, VAL_U64),
};

/*
 * How each endpoint keeps up with its chain, as chainwatch status judges
 * it (view_lag_judge): read from the same status the chains' come from,
 * so that a scrape and `chainwatch status` never disagree.  Endpoints
 * whose condition is not known (no head yet) have no series.
 */
static void
expo_conditions(const struct mtr_snap *s, struct buf *b)
{
	static const char *const conds[] = { "ok", "behind", "stuck" };
	const json_t	*c, *e;
	const char	*chain, *name, *cond;
	size_t		 i, k, j;

	family(b, "chainwatch_endpoint_condition", "gauge",
	    "1 for how the endpoint keeps up with its chain (ok, behind: "
	    "3 blocks or more below the best for 3 block times, stuck: no new "
	    "head for 5 block times while the chain went on), 0 for the "
	    "others.");
	json_array_foreach(json_object_get(s->status, "chains"), i, c) {
		chain = json_string_value(json_object_get(c, "name"));
		json_array_foreach(json_object_get(c, "endpoints"), k, e) {
			name = json_string_value(json_object_get(e, "name"));
			cond = json_string_value(json_object_get(e,
			    "condition"));
			if (chain == NULL || name == NULL || cond == NULL)
				continue;
			for (j = 0; j < nitems(conds); j++) {
				series(b, "chainwatch_endpoint_condition",
				    chain, name, "condition", conds[j], NULL);
				val_u(b, strcmp(cond, conds[j]) == 0);
			}
		}
	}
}

static void
expo_endpoints(const struct mtr_snap *s, struct buf *b)
{
	const struct mtr_endpoint	*e;
	size_t				 i;
	int				 k;

#define EACH_EP(cond)	for (i = 0; i < s->n_eps; i++) \
	if ((e = &s->eps[i]), (cond))
#define SERIES(fam, ...)	series(b, fam, e->chain, e->name, __VA_ARGS__)

	if (s->sup_up) {
		family(b, "chainwatch_endpoint_requests_total", "counter",
		    "Requests to the endpoint by outcome class.");
		EACH_EP(e->in_sup) {
			for (k = 0; k < OUTCOME_COUNT; k++) {
				SERIES("chainwatch_endpoint_requests_total",
				    "outcome", outcome_name((enum outcome)k),
				    NULL);
				val_u(b, e->requests[k]);
			}
		}
		family(b, "chainwatch_endpoint_request_duration_seconds",
		    "histogram", "Latency of the endpoint's requests, "
		    "whatever their outcome.");
		EACH_EP(e->in_sup && e->has_hist)
			expo_histogram(e, b);
	}
	family(b, "chainwatch_endpoint_state", "gauge",
	    "1 for the endpoint's state as chainwatch status shows it (closed, "
	    "open, half-open, down, quarantined, inconsistent, unresponsive, "
	    "unknown), 0 for "
	    "the others.");
	EACH_EP(e->in_store) {
		for (k = 0; mtr_endpoint_states[k] != NULL; k++) {
			SERIES("chainwatch_endpoint_state", "state",
			    mtr_endpoint_states[k], NULL);
			val_u(b, strcmp(e->state, mtr_endpoint_states[k]) == 0);
		}
	}
	expo_conditions(s, b);
	if (s->sup_up)
		family(b, "chainwatch_endpoint_breaker_state", "gauge",
		    "1 for the state of the endpoint's circuit breaker "
		    "(closed, open, half-open), 0 for the others.");
	EACH_EP(e->in_sup && e->breaker[0] != '\0') {
		for (k = 0; mtr_breaker_states[k] != NULL; k++) {
			SERIES("chainwatch_endpoint_breaker_state", "state",
			    mtr_breaker_states[k], NULL);
			val_u(b, strcmp(e->breaker, mtr_breaker_states[k]) == 0);
		}
	}
	ep_fams(s, b, ep_store, NFAMS(ep_store));
	family(b, "chainwatch_endpoint_worker_restarts_total", "counter",
	    "Unplanned deaths of the endpoint's worker since chainwatchd "
	    "started.");
	EACH_EP(e->in_sup || e->in_store) {
		SERIES("chainwatch_endpoint_worker_restarts_total", NULL);
		if (e->in_sup)
			val_u(b, e->restarts);
		else
			val_i(b, e->restarts_stored);
	}
	ep_fams(s, b, ep_worker, NFAMS(ep_worker));
#undef SERIES
#undef EACH_EP
}

void
mtr_expo(const struct mtr_snap *s, struct buf *b)
{
	family(b, "chainwatch_up", "gauge", "1 when chainwatchd answered "
	    "over its control socket, 0 when only the store was read.");
	buf_addf(b, "chainwatch_up %d\n", s->sup_up != 0);
	family(b, "chainwatch_store_up", "gauge",
	    "1 when the store could be read.");
	buf_addf(b, "chainwatch_store_up %d\n", s->store_up != 0);
	if (s->store_blocked[0] != '\0') {
		static const char *const why[] = { "locked", "disk-full",
		    "io-error" };

		family(b, "chainwatch_store_blocked", "gauge", "1 for the "
		    "reason chainwatchd cannot write its store now, if any.");
		for (size_t i = 0; i < sizeof(why) / sizeof(why[0]); i++)
			buf_addf(b, "chainwatch_store_blocked{reason=\"%s\"} "
			    "%d\n", why[i], strcmp(s->store_blocked, why[i]) ==
			    0);
		gauge(b, "chainwatch_store_waiting_messages", "Messages from "
		    "workers waiting in memory for the store.",
		    s->store_waiting);
		gauge(b, "chainwatch_store_cache_bytes", "Bytes of the store's "
		    "pages in chainwatchd's page cache.", s->store_cache);
	}
	if (s->has_sup_heap)
		gauge(b, "chainwatch_daemon_heap_bytes", "Memory chainwatchd "
		    "had allocated and not freed (0: its allocator does not "
		    "say).", s->sup_heap);
	gauge(b, "chainwatch_metrics_heap_bytes", "Memory this server had "
	    "allocated and not freed, as it gathered these figures (0: its "
	    "allocator does not say).", s->heap);
	if (s->has_cache)
		gauge(b, "chainwatch_metrics_cache_bytes", "Bytes of the "
		    "store's pages in this server's page cache (part of its "
		    "heap).", s->cache);
	family(b, "chainwatch_scrape_duration_seconds", "gauge",
	    "Seconds spent gathering these figures.");
	buf_addf(b, "chainwatch_scrape_duration_seconds ");
	val_d(b, s->gather_seconds);
	expo_chains(s, b);
	expo_endpoints(s, b);
}
