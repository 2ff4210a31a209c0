/*
 * What the supervisor tells of itself over the control socket, for
 * chainwatch status and the metrics server: every endpoint's counters,
 * breaker and worker, and every chain's head, hedges and who holds its
 * new-heads subscription.  It only reads.
 */
#include "config.h"

#include <jansson.h>

#include "sup_backlog.h"
#include "sup_chain.h"
#include "sup_health.h"
#include "sup_load.h"
#include "sup_primary.h"
#include "sup_snapshot.h"
#include "sup_spawn.h"
#include "sup_store.h"
#include "util.h"

/* Every non-cumulative bucket count, as Prometheus wants them summed. */
static json_t *
snapshot_endpoint(const struct worker *w)
{
	json_t		*j = json_object(), *req = json_object();
	json_t		*le = json_array(), *cnt = json_array();
	uint64_t	 sum = 0, total = 0;

	for (int o = 0; o < OUTCOME_COUNT; o++)
		json_object_set_new(req, outcome_name((enum outcome)o),
		    json_integer((json_int_t)w->ep->stats.requests[o]));
	for (size_t b = 0; b < STATS_BUCKETS; b++) {
		sum += w->ep->stats.latency[b];
		if (b < STATS_BUCKETS - 1)
			json_array_append_new(le,
			    json_real(stats_buckets_ms[b] / 1000.0));
		json_array_append_new(cnt, json_integer((json_int_t)sum));
	}
	total = sum;
	json_object_set_new(j, "endpoint", json_string(w->name));
	json_object_set_new(j, "chain", json_string(w->ep->ch->name));
	json_object_set_new(j, "requests", req);
	json_object_set_new(j, "latency_le_seconds", le);
	json_object_set_new(j, "latency_cumulative", cnt);
	json_object_set_new(j, "latency_count", json_integer(
	    (json_int_t)total));
	json_object_set_new(j, "latency_sum_seconds", json_real(
	    w->ep->stats.latency_sum_ms / 1000.0));
	json_object_set_new(j, "pid", json_integer(w->proc.pid));
	json_object_set_new(j, "worker_state", json_string(
	    sup_cstate_name(w->proc.fsm.state)));
	/* Its worker runs and serves the chain, believed or not. */
	json_object_set_new(j, "ready", json_boolean(health_heard(w->ep)));
	json_object_set_new(j, "restarts", json_integer(w->proc.fsm.restarts));
	json_object_set_new(j, "rss_bytes", json_integer(
	    (json_int_t)w->rss_kb * 1024));
	json_object_set_new(j, "heap_bytes", json_integer(
	    (json_int_t)w->heap_kb * 1024));
	json_object_set_new(j, "inflight", json_integer(w->load.inflight));
	/* 0 until it was first given work. */
	json_object_set_new(j, "window", json_integer(w->load.depth.cap == 0 ?
	    0 : depth_window(&w->load.depth, now_mono_ms())));
	json_object_set_new(j, "hedges", json_integer(
	    (json_int_t)w->ep->stats.hedges));
	json_object_set_new(j, "breaker", json_string(
	    breaker_state_name(w->ep->brk.state)));
	json_object_set_new(j, "breaker_reason", json_string(w->ep->brk.reason));
	json_object_set_new(j, "breaker_since", json_integer(
	    (json_int_t)w->ep->brk.since));
	json_object_set_new(j, "pruning_bound", json_integer(
	    w->ep->pruning_bound));
	return j;
}

/* Whether the store takes writes, why not, and what waits meanwhile. */
static json_t *
snapshot_store(void)
{
	const char		*why;
	uint64_t		 since;
	enum store_block	 b = store_blocked(&why, &since);
	json_t			*j = json_object();

	json_object_set_new(j, "state", json_string(b == STORE_OK ? "ok" :
	    "store-blocked"));
	json_object_set_new(j, "blocked", json_string(store_block_name(b)));
	json_object_set_new(j, "reason", b == STORE_OK ? json_null() :
	    json_string(why));
	json_object_set_new(j, "since", b == STORE_OK ? json_null() :
	    json_integer((json_int_t)since));
	json_object_set_new(j, "waiting_messages", json_integer(
	    (json_int_t)backlog_count()));
	json_object_set_new(j, "waiting_bytes", json_integer(
	    (json_int_t)backlog_bytes()));
	json_object_set_new(j, "cache_bytes", json_integer(
	    (json_int_t)store_cache_bytes()));
	return j;
}

/* The snapshot the control socket's "metrics" command answers. */
json_t *
sup_snapshot_json(void)
{
	json_t	*j = json_object(), *eps = json_array(), *chains, *daemon;

	for (struct worker *w = sup_workers; w != NULL; w = w->next)
		if (w->proc.fsm.state != CS_DEAD)
			json_array_append_new(eps, snapshot_endpoint(w));
	json_object_set_new(j, "endpoints", eps);
	chains = sup_chains_json();
	for (size_t i = 0; i < json_array_size(chains); i++) {
		json_t		*c = json_array_get(chains, i);
		const char	*name = json_string_value(json_object_get(c,
				    "chain"));
		struct chain	*ch = sup_chain_find(name);
		struct hedging	*h = ch != NULL ? &load_of(ch)->hedging : NULL;

		json_object_set_new(c, "hedges", json_integer(h != NULL ?
		    (json_int_t)h->hedges : 0));
		json_object_set_new(c, "hedges_won", json_integer(h != NULL ?
		    (json_int_t)h->hedges_won : 0));
		sup_primary_json(name, c);
	}
	json_object_set_new(j, "chains", chains);
	json_object_set_new(j, "store", snapshot_store());
	daemon = json_object();
	json_object_set_new(daemon, "heap_bytes", json_integer(
	    (json_int_t)mem_in_use()));
	json_object_set_new(j, "daemon", daemon);
	return j;
}
