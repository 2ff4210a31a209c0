/*
 * Where a chain's work goes.  Backfill fans out over every healthy
 * endpoint, up to its adaptive window (sup_depth.c); state reads of live
 * blocks (the last LIVE_BLOCKS) use failover instead: the preferred
 * endpoint, the first healthy one in configuration order with room, takes
 * them beside its window, up to max_inflight, whose last slot its backfill
 * leaves to them; one it failed goes to the others at once.  A request out longer
 * than the chain's hedging delay is also sent to the first other healthy
 * endpoint with room for it.  Pure functions of what they are given, so
 * that tests can run every case directly.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sup_route.h"

/* Items reaching this number or above are live; none without a best. */
int64_t
route_live_from(int have_best, int64_t best_number)
{
	return have_best ? best_number - LIVE_BLOCKS + 1 : INT64_MAX;
}

/* A state or runtime read of a live block: it fails over. */
int
route_is_live(const struct qitem *it, int64_t live_from)
{
	int64_t	top = it->kind == K_STATE ? it->to : it->number;

	return (it->kind == K_STATE || it->kind == K_RUNTIME) &&
	    top >= live_from;
}

/*
 * Room for a live read (or a hedge of one): below max_inflight.  Live
 * reads do not count against the window, and it does not bound them: it
 * shrinks while a backfill's answers wait to be stored (sup_depth.c), and
 * a live read must not wait for those.
 */
static int
has_room(const struct route_ep *e, unsigned max_inflight)
{
	return e->inflight < max_inflight && e->verdict == BRK_ALLOW;
}

/*
 * Room for other work (a backfill's, or a hedge of it): below the window,
 * and on the preferred endpoint below max_inflight - 1, the last slot
 * being kept for live reads.
 */
static int
has_bulk_room(const struct route_ep *e, int preferred, unsigned max_inflight)
{
	unsigned	others = e->inflight - (e->live < e->inflight ? e->live :
			    e->inflight);

	return others < e->window && e->inflight + (preferred ? 1 : 0) <
	    max_inflight && e->verdict == BRK_ALLOW;
}

/*
 * The chain's preferred endpoint now, or -1: the first healthy one in
 * order with room, one that is not failing before one that is.  One whose
 * requests all hang fills up before its breaker hears of a timeout; the
 * reads after that go to the next at once.  One whose latest answer was a
 * failure is passed over until it answers again: its breaker opens only
 * after strikes over 2 s, and meanwhile a live read the next endpoint
 * found not there yet would go back to it, fail a third time and wait
 * out a 4 s backoff (seen at 12 s blocks under 503 and malformed).
 */
int
route_preferred(const struct route_ep *e, size_t n, unsigned max_inflight)
{
	int	best = -1;

	for (size_t i = 0; i < n; i++)
		if (has_room(&e[i], max_inflight) && (best == -1 ||
		    e[i].failing < e[best].failing ||
		    (e[i].failing == e[best].failing &&
		    e[i].position < e[best].position)))
			best = (int)i;
	return best;
}

/*
 * 1 if no endpoint may be sent work by its breaker: then each is tried
 * with a short deadline rather than refused, since failures are often
 * shared.
 */
int
route_all_open(const struct route_ep *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (e[i].verdict != BRK_DENY_OPEN)
			return 0;
	return 1;
}

/*
 * How many requests self may have out now, live reads included: up to
 * max_inflight on the preferred endpoint (route_filter keeps its last slot
 * for live reads), else its window beside the live reads it has out, and
 * one more while none is preferred (any may take a live read then).
 */
unsigned
route_limit(const struct route_ep *e, size_t n, size_t self,
    unsigned max_inflight)
{
	int		pref = route_preferred(e, n, max_inflight);
	unsigned	limit = e[self].window + e[self].live +
			    (pref == -1 ? 1 : 0);

	if ((pref != -1 && (size_t)pref == self) || limit > max_inflight)
		return max_inflight;
	return limit;
}

/* Which due items endpoint self may take now. */
void
route_filter(const struct route_ep *e, size_t n, size_t self,
    int64_t live_from, unsigned max_inflight, struct queue_filter *f)
{
	int	pref = route_preferred(e, n, max_inflight);
	int	other = 0, other_ok = 0;

	for (size_t i = 0; i < n; i++)
		if (i != self && has_room(&e[i], max_inflight)) {
			other = 1;
			if (!e[i].failing)
				other_ok = 1;
		}
	f->pruning_bound = e[self].pruning_bound;
	/*
	 * State every endpoint says it dropped is tried anyway: a bound can
	 * be false (a block of a branch the node left, taken for pruning),
	 * and an item nobody may take would wait for ever.
	 */
	f->prune_floor = e[0].pruning_bound;
	for (size_t i = 1; i < n; i++)
		if (e[i].pruning_bound < f->prune_floor)
			f->prune_floor = e[i].pruning_bound;
	f->live_from = live_from;
	f->may_live = pref == -1 || (size_t)pref == self;
	f->pref_id = pref != -1 ? e[pref].id : -1;
	/*
	 * A failing endpoint takes no live read from the preferred one
	 * while another that is not failing has room for it.
	 */
	if (e[self].failing && other_ok && (size_t)pref != self)
		f->pref_id = -1;
	/*
	 * A live read the preferred endpoint just failed is not its again
	 * while another can take it: a burst of fast failures is one strike
	 * for its breaker, which would leave it preferred meanwhile.
	 */
	f->not_id = pref != -1 && (size_t)pref == self && other ?
	    e[self].id : -1;
	/*
	 * An item this endpoint answered malformed last goes to another one
	 * while another can take it: its answer may be a lie it would tell
	 * again, and the item's backoff would only grow meanwhile.  So does
	 * a block by hash it found absent: a branch it does not follow.
	 */
	f->wrong_id = other ? e[self].id : -1;
	/*
	 * A second read of its own answer (sup_cross.h) goes to another
	 * while one that is not failing can take it; else it takes it
	 * itself, which gives a mere sample up rather than leave it
	 * waiting for an endpoint that cannot answer.
	 */
	f->disputed_id = other_ok ? e[self].id : -1;
	/* The preferred endpoint keeps a slot for live reads. */
	f->live_only = pref != -1 && (size_t)pref == self &&
	    !has_bulk_room(&e[self], 1, max_inflight);
}

/*
 * Where a hedge of self's request for it goes: another healthy endpoint
 * with room for it (a live read's slot for a live read, the window for
 * other work), first in order, that still holds the state asked for; -1
 * if none.
 */
int
route_hedge_target(const struct route_ep *e, size_t n, size_t self,
    unsigned max_inflight, const struct qitem *it, int live)
{
	int	pref = route_preferred(e, n, max_inflight);
	int	best = -1;

	for (size_t i = 0; i < n; i++) {
		if (i == self || !(live ? has_room(&e[i], max_inflight) :
		    has_bulk_room(&e[i], (int)i == pref, max_inflight)))
			continue;
		if (it->kind == K_STATE && it->from <= e[i].pruning_bound)
			continue;
		if (best == -1 || e[i].position < e[best].position)
			best = (int)i;
	}
	return best;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * How long a request may be out before it is hedged: hedge_after, or
 * sooner the quantile (percent, 0: none) of the n latest latencies lat[]
 * of such requests, once there are HEDGE_MIN_SAMPLES; never below
 * HEDGE_MIN_MS, since then every request would go out twice.
 */
uint64_t
hedge_delay_ms(const uint32_t *lat, size_t n, unsigned quantile,
    uint64_t hedge_after)
{
	uint32_t	v[LAT_RING];
	size_t		i;

	if (n > LAT_RING)
		n = LAT_RING;
	if (quantile == 0 || n < HEDGE_MIN_SAMPLES)
		return hedge_after;
	memcpy(v, lat, n * sizeof(v[0]));
	qsort(v, n, sizeof(v[0]), cmp_u32);
	/* The nearest-rank quantile: the smallest value with at least
	 * quantile % of the samples at or below it. */
	i = (n * quantile + 99) / 100;
	if (i > 0)
		i--;
	if (v[i] >= hedge_after)
		return hedge_after;
	return v[i] < HEDGE_MIN_MS ? HEDGE_MIN_MS : v[i];
}

/*
 * The delays change only with a new latency or new settings, not with
 * every tick that looks at them: sorting 64 latencies per outstanding
 * request every 50 ms would cost more than the requests.
 */
void
route_hedging_conf(struct hedging *h, unsigned quantile, uint64_t after)
{
	h->quantile = quantile;
	h->after = after;
	for (size_t k = 0; k < ITEM_KINDS; k++)
		h->delay[k] = hedge_delay_ms(h->lat[k], h->n_lat[k],
		    quantile, after);
}

/* A successful request of this kind took ms; it ended at now. */
void
route_latency(struct hedging *h, enum item_kind k, uint64_t ms, uint64_t now)
{
	h->lat_at[k] = now;
	h->lat[k][h->n_lat[k] % LAT_RING] = ms > UINT32_MAX ? UINT32_MAX :
	    (uint32_t)ms;
	h->n_lat[k]++;
	h->delay[k] = hedge_delay_ms(h->lat[k], h->n_lat[k], h->quantile,
	    h->after);
}

void
route_hedged(struct hedging *h, int won)
{
	if (won)
		h->hedges_won++;
	else
		h->hedges++;
}

/*
 * The chain's measured latency at now: over the kinds with enough
 * samples and one in the last LAT_FRESH_MS, the largest q-th percentile
 * of their latencies, not capped by hedge_after; 0 when no kind counts.
 * A kind no longer asked for (the headers of a gap filled while the
 * endpoints were slow) says nothing of the chain now.
 */
uint64_t
route_latency_quantile(const struct hedging *h, unsigned q, uint64_t now)
{
	uint64_t	v, worst = 0;

	for (int k = 0; k < ITEM_KINDS; k++) {
		if (h->n_lat[k] < HEDGE_MIN_SAMPLES ||
		    (now > h->lat_at[k] && now - h->lat_at[k] > LAT_FRESH_MS))
			continue;
		v = hedge_delay_ms(h->lat[k], h->n_lat[k], q, UINT64_MAX);
		if (v > worst)
			worst = v;
	}
	return worst;
}
