/*
 * Overdue endpoints: pure rules over plain structs, the clock passed in.
 *
 * The bound.  max(OVERDUE_MIN_MS, OVERDUE_FACTOR x the chain's median
 * latency, over its last successful requests of each kind asked for
 * lately (sup_route.c); hedge_after before there are enough of them): an
 * endpoint is overdue only when it is far slower than the chain usually
 * is, and never sooner than 2 s (5 s with hedge_after's default 1 s
 * before any latency is measured).  The median, not the hedge_quantile:
 * the late answers of the very endpoint being judged (a black hole
 * lifted, a slow one) sit in the tail and must not raise the bar for it.
 *
 * Overdue.  An endpoint is unresponsive when its oldest unanswered
 * request (or, if it never answered anything, the start of its worker)
 * is older than the bound and another endpoint of the chain answered a
 * request sent no earlier, in at most a third of the time this endpoint
 * has waited, and has itself waited no longer than that third for any
 * answer now: the chain answers, this endpoint does not.  The last part
 * keeps a quick answer from just before a slowness that struck every
 * endpoint, one after another, from singling out the first struck.
 * Endpoints equally slow never single each other out (each answer took
 * about as long as the wait it is compared with, or twice as long when
 * requests queue behind one another at a slow node); then the chain is
 * slow (below), not an endpoint.
 *
 * Slow.  A chain whose measured latency is OVERDUE_MIN_MS or more, or
 * where some endpoint is overdue and none is unresponsive, is slow.
 *
 * Watching.  A check that comes more than OVERDUE_GAP_MS late means the
 * supervisor itself did not run (the machine starved): answers may sit
 * unread in its sockets.  Time counts only from when it watched again,
 * so a starved machine raises no alarm; the caller keeps watched_since
 * with overdue_watched().
 */
#include "config.h"

#include <stdio.h>

#include "sup_overdue.h"

/*
 * The bound from the chain's measured latency (route_latency_quantile(),
 * 0: not yet measured), else from hedge_after.
 */
uint64_t
overdue_chain_bound(uint64_t latency, uint64_t hedge_after)
{
	return overdue_bound(latency != 0 ? latency : hedge_after);
}

uint64_t
overdue_bound(uint64_t hedge_delay)
{
	uint64_t	b = hedge_delay * OVERDUE_FACTOR;

	return b > OVERDUE_MIN_MS ? b : OVERDUE_MIN_MS;
}

/*
 * The median of the endpoints' latest answers (their probes' among them),
 * ms, at least 1; 0 when none answered yet.  On a quiet chain no kind of
 * request was asked for lately (Quantus's 12 s blocks: 30 s go by with
 * a state read or two), so its latency reads "not measured"; the probes,
 * every 2 s at most, still say how fast the chain answers, and the bound
 * is that of a chain measured, not hedge_after's 5 s.
 */
uint64_t
overdue_answers_median(const struct overdue_ep *eps, size_t n)
{
	uint64_t	v[OVERDUE_MEDIAN_MAX], t;
	size_t		k = 0;

	for (size_t i = 0; i < n && k < OVERDUE_MEDIAN_MAX; i++)
		if (eps[i].answered != 0)
			v[k++] = eps[i].answered_in;
	if (k == 0)
		return 0;
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[(k - 1) / 2] > 0 ? v[(k - 1) / 2] : 1;
}

/* The new watched_since after a check at now, the previous at last. */
uint64_t
overdue_watched(uint64_t watched_since, uint64_t last_check, uint64_t now)
{
	if (last_check == 0 || now < last_check ||
	    now - last_check > OVERDUE_GAP_MS)
		return now;
	return watched_since;
}

/* How long e has waited, counted while watched; 0: not waiting. */
static uint64_t
waited(const struct overdue_ep *e, uint64_t watched_since, uint64_t now)
{
	uint64_t	from = e->waiting;

	if (from == 0)
		return 0;
	if (from < watched_since)
		from = watched_since;
	return now > from ? now - from : 0;
}

/*
 * The verdict on eps[self]; *age is how long it has waited (OV_OVERDUE,
 * OV_SLOW) in ms, from its oldest unanswered request.
 */
enum overdue_verdict
overdue_judge(const struct overdue_ep *eps, size_t n, size_t self,
    uint64_t bound, uint64_t watched_since, uint64_t now, uint64_t *age)
{
	const struct overdue_ep	*e;

	*age = 0;
	if (self >= n)
		return OV_FINE;
	e = &eps[self];
	if (waited(e, watched_since, now) <= bound)
		return OV_FINE;
	*age = now > e->waiting ? now - e->waiting : 0;
	for (size_t i = 0; i < n; i++)
		if (i != self && eps[i].answered >= e->waiting &&
		    eps[i].answered_in <= *age / 3 &&
		    (eps[i].waiting == 0 || eps[i].waiting >= now ||
		    now - eps[i].waiting <= *age / 3))
			return OV_OVERDUE;
	return OV_SLOW;
}

/*
 * The whole chain is slow: some endpoint is overdue, yet none is
 * unresponsive, since no endpoint answered quicker than it waits.  *age
 * is the longest wait, in ms.
 */
int
overdue_slow(const struct overdue_ep *eps, size_t n, uint64_t bound,
    uint64_t watched_since, uint64_t now, uint64_t *age)
{
	uint64_t	a;
	int		slow = 0;

	*age = 0;
	for (size_t i = 0; i < n; i++) {
		switch (overdue_judge(eps, n, i, bound, watched_since, now,
		    &a)) {
		case OV_OVERDUE:
			*age = 0;
			return 0;
		case OV_SLOW:
			slow = 1;
			if (a > *age)
				*age = a;
			break;
		case OV_FINE:
			break;
		}
	}
	return slow;
}

/*
 * Is the chain slow?  If so, why, for people: its measured latency
 * ("answers take 3.0 s"), else the longest wait when every endpoint is
 * overdue ("every endpoint waited on for 7 s").
 */
int
overdue_chain_slow(const struct overdue_ep *eps, size_t n, uint64_t bound,
    uint64_t watched_since, uint64_t now, uint64_t latency, char *why,
    size_t len)
{
	uint64_t	age;

	if (latency >= OVERDUE_MIN_MS) {
		snprintf(why, len, "answers take %llu.%llu s (median)",
		    (unsigned long long)(latency / 1000),
		    (unsigned long long)(latency % 1000 / 100));
		return 1;
	}
	if (overdue_slow(eps, n, bound, watched_since, now, &age)) {
		snprintf(why, len, "every endpoint waited on for %llu s",
		    (unsigned long long)(age / 1000));
		return 1;
	}
	return 0;
}
