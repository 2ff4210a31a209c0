/*
 * The rules of `subscribe = primary`: which endpoint of a chain holds its
 * one new-heads subscription.  Pure: the caller (sup_primary.c) gathers
 * the endpoints' states and carries the choice out.
 */
#include "config.h"

#include "sup_subs.h"

/* Elapsed ms since then; a clock that stepped back stands still. */
static uint64_t
elapsed(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

uint64_t
subs_stable_ms(uint64_t block_time_ms)
{
	uint64_t	blocks = SUBS_STABLE_BLOCKS * block_time_ms;

	return blocks > SUBS_STABLE_MIN_MS ? blocks : SUBS_STABLE_MIN_MS;
}

/* Usable, and its subscription did not fail within the stable period. */
int
subs_may_keep(const struct subs_cand *c, uint64_t now, uint64_t stable)
{
	return c->usable && (c->failed == 0 ||
	    elapsed(now, c->failed) >= stable);
}

/* Ok, and so for the stable period. */
static int
stable_for(const struct subs_cand *c, uint64_t now, uint64_t stable)
{
	uint64_t	from = c->usable_since > c->failed ? c->usable_since :
			    c->failed;

	return subs_may_keep(c, now, stable) && elapsed(now, from) >= stable;
}

int
subs_choose(const struct subs_cand *c, size_t n, int holder, uint64_t now,
    uint64_t stable)
{
	int	oldest = -1;

	if (holder >= 0 && (size_t)holder < n && subs_may_keep(&c[holder], now, stable)) {
		for (int i = 0; i < holder; i++)
			if (stable_for(&c[i], now, stable))
				return i;
		return holder;
	}
	for (size_t i = 0; i < n; i++)
		if (subs_may_keep(&c[i], now, stable))
			return (int)i;
	for (size_t i = 0; i < n; i++)
		if (c[i].usable && (oldest == -1 ||
		    c[i].failed < c[oldest].failed))
			oldest = (int)i;
	return oldest;
}

int
subs_stalled(uint64_t now, uint64_t since_ms, uint64_t limit_ms,
    int have_own, uint64_t own_best, int have_chain, uint64_t chain_best)
{
	if (!have_chain || elapsed(now, since_ms) < limit_ms)
		return 0;
	return !have_own || chain_best > own_best;
}
