/*
 * Counting requests per endpoint, by outcome class and latency bucket.
 * They leave the supervisor only as a snapshot over the control socket
 * (sup_snapshot.c).
 */
#include "config.h"

#include <stddef.h>

#include "sup_stats.h"

/* Upper bounds of the latency buckets, in ms; the last is +Inf. */
const uint32_t stats_buckets_ms[STATS_BUCKETS - 1] = {
	5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000,
};

void
stats_request(struct wstats *s, enum outcome o, uint64_t latency_ms)
{
	size_t	b;

	if ((unsigned)o >= OUTCOME_COUNT)
		return;
	s->requests[o]++;
	for (b = 0; b < STATS_BUCKETS - 1; b++)
		if (latency_ms <= stats_buckets_ms[b])
			break;
	s->latency[b]++;
	s->latency_sum_ms += latency_ms;
}

void
stats_hedge(struct wstats *s)
{
	s->hedges++;
}
