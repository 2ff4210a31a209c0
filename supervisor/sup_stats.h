/*
 * Counters of one endpoint for people's monitoring (sup_stats.c): every
 * request's outcome class and latency.  In memory only: a restart resets
 * them, as Prometheus expects of counters.
 */
#ifndef CW_SUP_STATS_H
#define CW_SUP_STATS_H

#include <stdint.h>

#include "outcome.h"

#define STATS_BUCKETS	12	/* 11 bounds and +Inf */
extern const uint32_t stats_buckets_ms[STATS_BUCKETS - 1];

struct wstats {
	uint64_t	requests[OUTCOME_COUNT];
	uint64_t	latency[STATS_BUCKETS];	/* not cumulative */
	uint64_t	latency_sum_ms;
	uint64_t	hedges;		/* hedge requests it was sent */
};

void	stats_request(struct wstats *, enum outcome, uint64_t latency_ms);
void	stats_hedge(struct wstats *);

#endif
