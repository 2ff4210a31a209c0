/*
 * Counters for people's monitoring: every request's outcome class and
 * latency per endpoint, blocks ingested per chain.  They live in memory
 * (a restart resets them, as Prometheus expects of counters) and leave
 * the supervisor only as a snapshot over the control socket.
 */
#include "config.h"

#include <jansson.h>
#include <string.h>

#include "sup.h"
#include "util.h"

/* Upper bounds of the latency buckets, in ms; the last is +Inf. */
const uint32_t stats_buckets_ms[STATS_BUCKETS - 1] = {
	5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000,
};

void
sup_stats_request(struct worker *w, enum outcome o, uint64_t latency_ms)
{
	size_t	b;

	if ((unsigned)o >= OUTCOME_COUNT)
		return;
	w->stats.requests[o]++;
	for (b = 0; b < STATS_BUCKETS - 1; b++)
		if (latency_ms <= stats_buckets_ms[b])
			break;
	w->stats.latency[b]++;
	w->stats.latency_sum_ms += latency_ms;
}

/* Every non-cumulative bucket count, as Prometheus wants them summed. */
static json_t *
stats_endpoint_json(const struct worker *w)
{
	json_t		*j = json_object(), *req = json_object();
	json_t		*le = json_array(), *cnt = json_array();
	uint64_t	 sum = 0, total = 0;

	for (int o = 0; o < OUTCOME_COUNT; o++)
		json_object_set_new(req, outcome_name((enum outcome)o),
		    json_integer((json_int_t)w->stats.requests[o]));
	for (size_t b = 0; b < STATS_BUCKETS; b++) {
		sum += w->stats.latency[b];
		if (b < STATS_BUCKETS - 1)
			json_array_append_new(le,
			    json_real(stats_buckets_ms[b] / 1000.0));
		json_array_append_new(cnt, json_integer((json_int_t)sum));
	}
	total = sum;
	json_object_set_new(j, "endpoint", json_string(w->name));
	json_object_set_new(j, "chain", json_string(w->chain));
	json_object_set_new(j, "requests", req);
	json_object_set_new(j, "latency_le_seconds", le);
	json_object_set_new(j, "latency_cumulative", cnt);
	json_object_set_new(j, "latency_count", json_integer(
	    (json_int_t)total));
	json_object_set_new(j, "latency_sum_seconds", json_real(
	    w->stats.latency_sum_ms / 1000.0));
	json_object_set_new(j, "pid", json_integer(w->pid));
	json_object_set_new(j, "worker_state", json_string(
	    sup_cstate_name(w->fsm.state)));
	json_object_set_new(j, "ready", json_boolean(w->ready));
	json_object_set_new(j, "restarts", json_integer(w->restarts));
	json_object_set_new(j, "rss_bytes", json_integer(
	    (json_int_t)w->rss_kb * 1024));
	json_object_set_new(j, "inflight", json_integer(w->inflight));
	json_object_set_new(j, "hedges", json_integer(
	    (json_int_t)w->stats.hedges));
	json_object_set_new(j, "breaker", json_string(
	    breaker_state_name(w->brk.state)));
	json_object_set_new(j, "breaker_reason", json_string(w->brk.reason));
	json_object_set_new(j, "breaker_since", json_integer(
	    (json_int_t)w->brk.since));
	json_object_set_new(j, "pruning_bound", json_integer(
	    w->pruning_bound));
	return j;
}

/* The snapshot the control socket's "metrics" command answers. */
json_t *
sup_stats_json(void)
{
	json_t	*j = json_object(), *eps = json_array();

	for (struct worker *w = sup_workers; w != NULL; w = w->next)
		if (w->fsm.state != CS_DEAD)
			json_array_append_new(eps, stats_endpoint_json(w));
	json_object_set_new(j, "endpoints", eps);
	json_object_set_new(j, "chains", sup_chains_json());
	return j;
}
