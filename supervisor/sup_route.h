/*
 * Routing and hedging as pure decisions (sup_route.c): given the
 * endpoints of a chain as they are at one instant, which may take which
 * work, which is preferred, where a hedge goes and after how long.  No
 * clock of its own, no store, no I/O: sup_load.c and sup_tick.c ask and act.
 */
#ifndef CW_SUP_ROUTE_H
#define CW_SUP_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "sup_breaker.h"
#include "sup_queue.h"

#define LIVE_BLOCKS		100	/* the top of the chain: failover */
#define LAT_RING		64
#define HEDGE_MIN_MS		50
#define HEDGE_MIN_SAMPLES	16	/* before the quantile is trusted */
#define LAT_FRESH_MS		30000	/* a kind's latency counts this long */

/*
 * One endpoint of the chain, usable (its worker runs and it serves the
 * chain), as the router sees it now.
 */
struct route_ep {
	int64_t			 id;
	int			 position;	/* in the configuration */
	unsigned		 inflight;	/* requests out */
	unsigned		 live;		/* of them, for live blocks */
	unsigned		 window;	/* sup_depth.c's, now */
	enum brk_verdict	 verdict;	/* breaker_peek() now */
	int			 failing;	/* no success since its latest
						 * failure (breaker_failing) */
	int64_t			 pruning_bound;	/* -1: none */
};

/*
 * The chain's hedging delay per item kind: hedge_after, or sooner the
 * hedge_quantile of its last LAT_RING successful requests of that kind.
 * A chain keeps one; only this file writes it.
 */
struct hedging {
	uint32_t	 lat[ITEM_KINDS][LAT_RING];	/* ms */
	unsigned	 n_lat[ITEM_KINDS];
	uint64_t	 lat_at[ITEM_KINDS];		/* newest, monotonic ms */
	uint64_t	 delay[ITEM_KINDS];		/* ms, from lat[] */
	unsigned	 quantile;			/* percent, 0: off */
	uint64_t	 after;				/* hedge_after, ms */
	uint64_t	 hedges, hedges_won;		/* for monitoring */
};

int64_t		 route_live_from(int have_best, int64_t best_number);
int		 route_is_live(const struct qitem *, int64_t live_from);
int		 route_preferred(const struct route_ep *, size_t,
		    unsigned max_inflight);
int		 route_all_open(const struct route_ep *, size_t);
unsigned	 route_limit(const struct route_ep *, size_t, size_t self,
		    unsigned max_inflight);
void		 route_filter(const struct route_ep *, size_t, size_t self,
		    int64_t live_from, unsigned max_inflight,
		    struct queue_filter *);
int		 route_hedge_target(const struct route_ep *, size_t,
		    size_t self, unsigned max_inflight,
		    const struct qitem *, int live);

uint64_t	 hedge_delay_ms(const uint32_t *lat, size_t n,
		    unsigned quantile, uint64_t hedge_after);
void		 route_hedging_conf(struct hedging *, unsigned quantile,
		    uint64_t after);
void		 route_latency(struct hedging *, enum item_kind, uint64_t ms,
		    uint64_t now);
void		 route_hedged(struct hedging *, int won);
uint64_t	 route_latency_quantile(const struct hedging *, unsigned q,
		    uint64_t now);

#endif
