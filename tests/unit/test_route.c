/*
 * Routing and hedging decisions, driven directly: which reads are live, who
 * is preferred, what each endpoint may take, where a hedge goes and after how
 * long, and the failover that health_failover.sh can only watch with sleeps.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sup_route.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

static struct route_ep
ep(int64_t id, int position, unsigned inflight, enum brk_verdict v)
{
	struct route_ep	e;

	memset(&e, 0, sizeof(e));
	e.id = id;
	e.position = position;
	e.inflight = inflight;
	e.verdict = v;
	e.pruning_bound = -1;
	/* A window past any max_inflight here: the cap decides. */
	e.window = 1000;
	return e;
}

static struct qitem
state_item(int64_t from, int64_t to)
{
	struct qitem	it;

	memset(&it, 0, sizeof(it));
	it.id = 1;
	it.kind = K_STATE;
	it.from = from;
	it.to = to;
	it.attempts = 1;
	return it;
}

static struct qitem
numbered_item(enum item_kind k, int64_t number)
{
	struct qitem	it;

	memset(&it, 0, sizeof(it));
	it.id = 2;
	it.kind = k;
	it.number = number;
	it.attempts = 1;
	return it;
}

/* A bit per endpoint whose filter lets it take live reads now. */
static unsigned
live_takers(const struct route_ep *e, size_t n, int64_t live_from,
    unsigned max_inflight)
{
	struct queue_filter	f;
	unsigned		m = 0;

	for (size_t i = 0; i < n; i++) {
		route_filter(e, n, i, live_from, max_inflight, &f);
		if (f.may_live)
			m |= 1U << i;
	}
	return m;
}

/* The hedging delay: hedge_after until the quantile is known, then it. */
static void
test_hedge_delay(void **state)
{
	uint32_t	lat[LAT_RING];

	(void)state;
	/* Too few samples: hedge_after. */
	for (size_t i = 0; i < LAT_RING; i++)
		lat[i] = 200;
	assert_int_equal(hedge_delay_ms(lat, HEDGE_MIN_SAMPLES - 1, 95, 1000),
	    1000);
	assert_int_equal(hedge_delay_ms(lat, HEDGE_MIN_SAMPLES, 95, 1000), 200);
	/* Off. */
	assert_int_equal(hedge_delay_ms(lat, LAT_RING, 0, 1000), 1000);
	/* 1..100 ms in a ring of 64 (37..100 kept): p95 is the 61st. */
	for (size_t i = 0; i < LAT_RING; i++)
		lat[i] = (uint32_t)(100 - i);
	assert_int_equal(hedge_delay_ms(lat, LAT_RING, 95, 1000), 97);
	assert_int_equal(hedge_delay_ms(lat, LAT_RING, 50, 1000), 68);
	/* Capped by hedge_after, floored at HEDGE_MIN_MS. */
	assert_int_equal(hedge_delay_ms(lat, LAT_RING, 95, 90), 90);
	for (size_t i = 0; i < LAT_RING; i++)
		lat[i] = 3;
	assert_int_equal(hedge_delay_ms(lat, LAT_RING, 95, 1000),
	    HEDGE_MIN_MS);
	/* More samples than the ring: only the ring counts. */
	assert_int_equal(hedge_delay_ms(lat, 5000, 95, 1000), HEDGE_MIN_MS);
	/* One slow outlier in 64 does not move p95. */
	for (size_t i = 0; i < LAT_RING; i++)
		lat[i] = i == 7 ? 30000 : 120;
	assert_int_equal(hedge_delay_ms(lat, LAT_RING, 95, 1000), 120);
}

/*
 * The chain's delays, kept per item kind: each follows the latencies of its
 * own kind, the last LAT_RING of them, and a new setting recomputes them.
 */
static void
test_hedging(void **state)
{
	struct hedging	h;

	memset(&h, 0, sizeof(h));
	route_hedging_conf(&h, 95, 1000);
	for (size_t k = 0; k < ITEM_KINDS; k++)
		assert_int_equal(h.delay[k], 1000);

	/* hedge_after until HEDGE_MIN_SAMPLES of that kind are in. */
	for (int i = 0; i < HEDGE_MIN_SAMPLES - 1; i++)
		route_latency(&h, K_STATE, 200, 1000);
	assert_int_equal(h.delay[K_STATE], 1000);
	route_latency(&h, K_STATE, 200, 1000);
	assert_int_equal(h.delay[K_STATE], 200);
	/* The other kinds are not moved by it. */
	assert_int_equal(h.delay[K_HEADERS], 1000);
	assert_int_equal(h.delay[K_PARENT], 1000);
	assert_int_equal(h.delay[K_RUNTIME], 1000);
	for (int i = 0; i < HEDGE_MIN_SAMPLES; i++)
		route_latency(&h, K_RUNTIME, 300, 1000);
	assert_int_equal(h.delay[K_RUNTIME], 300);
	assert_int_equal(h.delay[K_STATE], 200);

	/*
	 * The ring: 16 of 200 then 48 of 100 fill it, and p95 (the 61st of
	 * 64) is 200 while four of the 200s are left.  Each later latency
	 * overwrites the oldest.
	 */
	for (int i = 0; i < LAT_RING - HEDGE_MIN_SAMPLES; i++)
		route_latency(&h, K_STATE, 100, 1000);
	assert_int_equal(h.delay[K_STATE], 200);
	for (int i = 0; i < HEDGE_MIN_SAMPLES - 4; i++)
		route_latency(&h, K_STATE, 100, 1000);
	assert_int_equal(h.delay[K_STATE], 200);
	route_latency(&h, K_STATE, 100, 1000);
	assert_int_equal(h.delay[K_STATE], 100);

	/* A reload with the quantile off: hedge_after for every kind. */
	route_hedging_conf(&h, 0, 1000);
	for (size_t k = 0; k < ITEM_KINDS; k++)
		assert_int_equal(h.delay[k], 1000);
	/* Latencies still count while it is off... */
	route_latency(&h, K_STATE, 60, 1000);
	assert_int_equal(h.delay[K_STATE], 1000);
	/* ...and on again the kept ones are used at once, capped by the new
	 * hedge_after. */
	route_hedging_conf(&h, 95, 2000);
	assert_int_equal(h.delay[K_STATE], 100);
	assert_int_equal(h.delay[K_RUNTIME], 300);
	assert_int_equal(h.delay[K_HEADERS], 2000);
	route_hedging_conf(&h, 95, 250);
	assert_int_equal(h.delay[K_RUNTIME], 250);

	/* A latency past 32 bits is kept as the largest, not wrapped. */
	for (int i = 0; i < LAT_RING; i++)
		route_latency(&h, K_PARENT, 1ULL << 40, 1000);
	assert_int_equal(h.lat[K_PARENT][0], UINT32_MAX);
	assert_int_equal(h.delay[K_PARENT], 250);

	/* Hedges sent and hedges that won, for monitoring. */
	route_hedged(&h, 0);
	route_hedged(&h, 0);
	route_hedged(&h, 1);
	assert_int_equal(h.hedges, 2);
	assert_int_equal(h.hedges_won, 1);
}

/*
 * The chain's latency, for the overdue rule: the worst median of the kinds
 * measured enough, and only of those asked for in the last LAT_FRESH_MS.
 */
static void
test_latency_quantile(void **state)
{
	struct hedging	h;
	uint64_t	t = 100000;

	memset(&h, 0, sizeof(h));
	route_hedging_conf(&h, 95, 1000);
	assert_int_equal(route_latency_quantile(&h, 50, t), 0);
	/* Not before HEDGE_MIN_SAMPLES of a kind; not capped by hedge_after. */
	for (int i = 0; i < HEDGE_MIN_SAMPLES - 1; i++)
		route_latency(&h, K_STATE, 3000, t);
	assert_int_equal(route_latency_quantile(&h, 50, t), 0);
	route_latency(&h, K_STATE, 3000, t);
	assert_int_equal(route_latency_quantile(&h, 50, t), 3000);
	/* The slowest kind speaks for the chain. */
	for (int i = 0; i < HEDGE_MIN_SAMPLES; i++)
		route_latency(&h, K_HEADERS, 6000, t);
	assert_int_equal(route_latency_quantile(&h, 50, t), 6000);

	/*
	 * The endpoints are quick again; the state of every block says so,
	 * but no header is asked for: the headers' 6 s count until their
	 * newest is LAT_FRESH_MS old, and not a millisecond longer.
	 */
	for (int i = 0; i < LAT_RING; i++)
		route_latency(&h, K_STATE, 400, t + 1000 + i);
	assert_int_equal(route_latency_quantile(&h, 50, t + 2000), 6000);
	assert_int_equal(route_latency_quantile(&h, 50, t + LAT_FRESH_MS),
	    6000);
	assert_int_equal(route_latency_quantile(&h, 50,
	    t + LAT_FRESH_MS + 1), 400);
	/* Once the state reads stop too, nothing is measured: 0. */
	assert_int_equal(route_latency_quantile(&h, 50,
	    t + 1000 + LAT_RING + LAT_FRESH_MS + 1), 0);
	/* A header asked for again brings its kind back, old samples too. */
	route_latency(&h, K_HEADERS, 6000, t + 60000);
	assert_int_equal(route_latency_quantile(&h, 50, t + 60000), 6000);
	/* A clock behind the newest sample (the same tick) counts it. */
	assert_int_equal(route_latency_quantile(&h, 50, t + 59000), 6000);
}

/* Live: the state or runtime of the last LIVE_BLOCKS blocks. */
static void
test_live(void **state)
{
	int64_t		from = route_live_from(1, 1000);
	struct qitem	it;

	/* Nothing is live before the chain has a best block. */
	assert_int_equal(route_live_from(0, 1000), INT64_MAX);
	it = state_item(INT64_MAX - 1, INT64_MAX - 1);
	assert_false(route_is_live(&it, route_live_from(0, 0)));

	assert_int_equal(from, 1000 - LIVE_BLOCKS + 1);
	/* A state item by its `to`: the range's top decides. */
	it = state_item(851, 900);
	assert_false(route_is_live(&it, from));
	it = state_item(852, 901);
	assert_true(route_is_live(&it, from));
	it = state_item(901, 901);
	assert_true(route_is_live(&it, from));
	/* Its `number` plays no part. */
	it = state_item(851, 900);
	it.number = 1000;
	assert_false(route_is_live(&it, from));

	/* A runtime item by its `number`. */
	it = numbered_item(K_RUNTIME, 900);
	assert_false(route_is_live(&it, from));
	it = numbered_item(K_RUNTIME, 901);
	assert_true(route_is_live(&it, from));

	/* Headers and parents never fail over, however new. */
	it = numbered_item(K_PARENT, 1000);
	assert_false(route_is_live(&it, from));
	it = numbered_item(K_HEADERS, 1000);
	it.from = 950;
	it.to = 1000;
	assert_false(route_is_live(&it, from));
}

/* The first by position, not by array order, with room and allowed. */
static void
test_preferred(void **state)
{
	struct route_ep	e[3];

	e[0] = ep(30, 2, 0, BRK_ALLOW);
	e[1] = ep(10, 0, 0, BRK_ALLOW);
	e[2] = ep(20, 1, 0, BRK_ALLOW);
	assert_int_equal(route_preferred(e, 3, 4), 1);
	/* max_inflight - 1 out still leaves room. */
	e[1].inflight = 3;
	assert_int_equal(route_preferred(e, 3, 4), 1);
	e[1].inflight = 4;
	assert_int_equal(route_preferred(e, 3, 4), 2);
	/* Only BRK_ALLOW: a trial, an open or a slowed breaker is not. */
	e[1].inflight = 0;
	for (enum brk_verdict v = BRK_TRIAL; v <= BRK_DENY_SLOW; v++) {
		e[1].verdict = v;
		assert_int_equal(route_preferred(e, 3, 4), 2);
	}
	e[2].verdict = BRK_DENY_OPEN;
	assert_int_equal(route_preferred(e, 3, 4), 0);
	e[0].inflight = 4;
	assert_int_equal(route_preferred(e, 3, 4), -1);
	assert_int_equal(route_preferred(e, 0, 4), -1);
	/* max_inflight 0: nobody has room. */
	e[1] = ep(10, 0, 0, BRK_ALLOW);
	assert_int_equal(route_preferred(e, 3, 0), -1);
}

/* Only when every breaker is open; full or slowed endpoints are not. */
static void
test_all_open(void **state)
{
	struct route_ep	e[3];

	for (int i = 0; i < 3; i++)
		e[i] = ep(i + 1, i, 0, BRK_DENY_OPEN);
	assert_true(route_all_open(e, 3));
	e[2].verdict = BRK_DENY_SLOW;
	assert_false(route_all_open(e, 3));
	e[2].verdict = BRK_TRIAL;
	assert_false(route_all_open(e, 3));
	e[2].verdict = BRK_ALLOW;
	e[2].inflight = 1000;
	assert_false(route_all_open(e, 3));
}

static void
test_filter(void **state)
{
	struct route_ep		e[3];
	struct queue_filter	f;

	e[0] = ep(20, 1, 0, BRK_ALLOW);
	e[1] = ep(10, 0, 0, BRK_ALLOW);
	e[2] = ep(30, 2, 0, BRK_ALLOW);
	e[0].pruning_bound = 5000;

	/* The preferred one: live reads, but not those it just failed. */
	route_filter(e, 3, 1, 901, 4, &f);
	assert_int_equal(f.may_live, 1);
	assert_int_equal(f.pref_id, 10);
	assert_int_equal(f.not_id, 10);
	assert_int_equal(f.wrong_id, 10);
	assert_int_equal(f.live_only, 0);
	assert_int_equal(f.live_from, 901);
	assert_int_equal(f.pruning_bound, -1);
	/* The others: no live reads, and nothing else held against them. */
	route_filter(e, 3, 0, 901, 4, &f);
	assert_int_equal(f.may_live, 0);
	assert_int_equal(f.pref_id, 10);
	assert_int_equal(f.not_id, -1);
	assert_int_equal(f.live_only, 0);
	assert_int_equal(f.pruning_bound, 5000);
	route_filter(e, 3, 2, 901, 4, &f);
	assert_int_equal(f.may_live, 0);
	assert_int_equal(f.not_id, -1);
	/* What any of them answered malformed goes to another. */
	assert_int_equal(f.wrong_id, 30);
	/* So does a second read of its answer, while one not failing can. */
	assert_int_equal(f.disputed_id, 30);
	e[0].failing = e[1].failing = 1;
	route_filter(e, 3, 2, 901, 4, &f);
	assert_int_equal(f.wrong_id, 30);
	assert_int_equal(f.disputed_id, -1);
	e[0].failing = e[1].failing = 0;

	/* The preferred one keeps its last slot for live reads. */
	e[1].inflight = 2;
	route_filter(e, 3, 1, 901, 4, &f);
	assert_int_equal(f.live_only, 0);
	e[1].inflight = 3;
	route_filter(e, 3, 1, 901, 4, &f);
	assert_int_equal(f.may_live, 1);
	assert_int_equal(f.live_only, 1);
	/* Not the others at max_inflight - 1. */
	e[0].inflight = 3;
	route_filter(e, 3, 0, 901, 4, &f);
	assert_int_equal(f.live_only, 0);
	/* With max_inflight 1 its only slot is for live reads. */
	e[0].inflight = e[1].inflight = 0;
	route_filter(e, 3, 1, 901, 1, &f);
	assert_int_equal(f.may_live, 1);
	assert_int_equal(f.live_only, 1);

	/*
	 * A failed live read stays the preferred one's only when nobody else
	 * has room: the others full, open, on trial or slowed.
	 */
	e[0].inflight = 4;
	e[2].verdict = BRK_DENY_OPEN;
	route_filter(e, 3, 1, 901, 4, &f);
	assert_int_equal(f.not_id, -1);
	e[2].verdict = BRK_TRIAL;
	route_filter(e, 3, 1, 901, 4, &f);
	assert_int_equal(f.not_id, -1);
	e[2].verdict = BRK_DENY_SLOW;
	route_filter(e, 3, 1, 901, 4, &f);
	assert_int_equal(f.not_id, -1);
	/* And so does what it answered malformed: nobody else can. */
	assert_int_equal(f.wrong_id, -1);
	e[2].verdict = BRK_ALLOW;
	route_filter(e, 3, 1, 901, 4, &f);
	assert_int_equal(f.not_id, 10);

	/* Nobody preferred: anyone may take live reads, none held back. */
	for (int i = 0; i < 3; i++)
		e[i] = ep(i + 1, i, 0, BRK_DENY_OPEN);
	for (size_t i = 0; i < 3; i++) {
		route_filter(e, 3, i, 901, 4, &f);
		assert_int_equal(f.may_live, 1);
		assert_int_equal(f.pref_id, -1);
		assert_int_equal(f.not_id, -1);
		assert_int_equal(f.live_only, 0);
	}
	assert_int_equal(live_takers(e, 3, 901, 4), 07);
}

static void
test_hedge_target(void **state)
{
	struct route_ep	e[4];
	struct qitem	st = state_item(500, 549);
	struct qitem	rt = numbered_item(K_RUNTIME, 540);

	e[0] = ep(40, 3, 0, BRK_ALLOW);
	e[1] = ep(10, 0, 0, BRK_ALLOW);
	e[2] = ep(30, 2, 0, BRK_ALLOW);
	e[3] = ep(20, 1, 0, BRK_ALLOW);
	/* First by position, never itself. */
	assert_int_equal(route_hedge_target(e, 4, 1, 4, &st, 0), 3);
	assert_int_equal(route_hedge_target(e, 4, 3, 4, &st, 0), 1);
	/* The preferred's last slot takes a live read's hedge only. */
	e[1].inflight = 3;
	assert_int_equal(route_hedge_target(e, 4, 3, 4, &st, 0), 2);
	assert_int_equal(route_hedge_target(e, 4, 3, 4, &st, 1), 1);
	e[1].inflight = 0;
	/* Not one without room. */
	e[3].inflight = 4;
	assert_int_equal(route_hedge_target(e, 4, 1, 4, &st, 0), 2);
	e[3].inflight = 3;
	assert_int_equal(route_hedge_target(e, 4, 1, 4, &st, 0), 3);
	/* Not one whose breaker says anything but BRK_ALLOW. */
	for (enum brk_verdict v = BRK_TRIAL; v <= BRK_DENY_SLOW; v++) {
		e[3].verdict = v;
		assert_int_equal(route_hedge_target(e, 4, 1, 4, &st, 0), 2);
	}
	e[3].verdict = BRK_ALLOW;
	/* Not one that pruned the state asked for: at or above `from`. */
	e[3].pruning_bound = 500;
	assert_int_equal(route_hedge_target(e, 4, 1, 4, &st, 0), 2);
	e[3].pruning_bound = 10000;
	assert_int_equal(route_hedge_target(e, 4, 1, 4, &st, 0), 2);
	e[3].pruning_bound = 499;
	assert_int_equal(route_hedge_target(e, 4, 1, 4, &st, 0), 3);
	/* Pruning is about state items only. */
	e[3].pruning_bound = 10000;
	assert_int_equal(route_hedge_target(e, 4, 1, 4, &rt, 0), 3);
	/* None left. */
	e[0].verdict = e[2].verdict = e[3].verdict = BRK_DENY_OPEN;
	assert_int_equal(route_hedge_target(e, 4, 1, 4, &st, 0), -1);
	assert_int_equal(route_hedge_target(e, 1, 0, 4, &st, 0), -1);
}

/*
 * What health_failover.sh shows with three devnodes and sleeps, as
 * decisions: d1, d2, d3 in that order, max_inflight 4, live reads first to
 * d1 while it is healthy, to d2 once d1 is full or open, back to d1 once it
 * is healthy again; a read d1 holds past the hedging delay goes to d2 too.
 */
#define D1	0
#define D2	1
#define D3	2
#define MAXIN	4

static void
scenario_eps(struct route_ep *e)
{
	e[D1] = ep(101, 0, 0, BRK_ALLOW);
	e[D2] = ep(102, 1, 0, BRK_ALLOW);
	e[D3] = ep(103, 2, 0, BRK_ALLOW);
}

/* The endpoint a new live read goes to: the one whose filter admits it. */
static int
send_live(struct route_ep *e, int64_t live_from)
{
	struct queue_filter	f;

	for (size_t i = 0; i < 3; i++) {
		route_filter(e, 3, i, live_from, MAXIN, &f);
		if (f.may_live && e[i].inflight < MAXIN) {
			e[i].inflight++;
			e[i].live++;
			return (int)i;
		}
	}
	return -1;
}

static void
test_failover_healthy(void **state)
{
	struct route_ep	e[3];
	int64_t		live_from = route_live_from(1, 300);
	struct qitem	it = state_item(300, 300);

	scenario_eps(e);
	assert_true(route_is_live(&it, live_from));
	/* Answered in time: every live read goes to d1, none round. */
	for (int i = 0; i < 100; i++) {
		assert_int_equal(live_takers(e, 3, live_from, MAXIN),
		    1U << D1);
		assert_int_equal(send_live(e, live_from), D1);
		/* A second one out while the first is answered. */
		assert_int_equal(send_live(e, live_from), D1);
		e[D1].inflight -= 2;
		e[D1].live -= 2;
	}
	assert_int_equal(e[D2].inflight, 0);
	assert_int_equal(e[D3].inflight, 0);
	/* Backfill on d2 and d3 does not change that. */
	e[D2].inflight = e[D3].inflight = MAXIN - 1;
	assert_int_equal(live_takers(e, 3, live_from, MAXIN), 1U << D1);
}

static void
test_failover_blackhole(void **state)
{
	struct route_ep		e[3];
	struct queue_filter	f;
	struct hedging		h;
	int64_t			live_from = route_live_from(1, 300);
	struct qitem		it = state_item(300, 300);

	scenario_eps(e);
	memset(&h, 0, sizeof(h));
	route_hedging_conf(&h, 95, 500);
	/* d1 answers nothing: its reads pile up, its breaker still closed. */
	for (int i = 0; i < MAXIN; i++) {
		assert_int_equal(live_takers(e, 3, live_from, MAXIN),
		    1U << D1);
		assert_int_equal(send_live(e, live_from), D1);
		route_filter(e, 3, D1, live_from, MAXIN, &f);
		if (i == MAXIN - 2)
			/* Its last slot is kept for live reads. */
			assert_int_equal(f.live_only, 1);
	}
	assert_int_equal(e[D1].inflight, MAXIN);
	/* Full: the next live read goes to d2 at once, and d3 waits. */
	assert_int_equal(live_takers(e, 3, live_from, MAXIN), 1U << D2);
	route_filter(e, 3, D2, live_from, MAXIN, &f);
	assert_int_equal(f.may_live, 1);
	assert_int_equal(f.pref_id, 102);
	route_filter(e, 3, D3, live_from, MAXIN, &f);
	assert_int_equal(f.may_live, 0);
	assert_int_equal(f.pref_id, 102);
	route_filter(e, 3, D1, live_from, MAXIN, &f);
	assert_int_equal(f.may_live, 0);
	assert_int_equal(send_live(e, live_from), D2);

	/*
	 * A read d1 has held past the hedging delay (hedge_after, 500 ms,
	 * with no latencies yet) is hedged to d2, the first other with room.
	 */
	assert_int_equal(h.delay[K_STATE], 500);
	assert_int_equal(route_hedge_target(e, 3, D1, MAXIN, &it, 1), D2);
	/* After a healthy spell d1's answers set it: sooner. */
	for (int i = 0; i < HEDGE_MIN_SAMPLES; i++)
		route_latency(&h, K_STATE, 80, 1000);
	assert_int_equal(h.delay[K_STATE], 80);
	/* Once d2 is full too, to d3; never back to d1. */
	e[D2].inflight = MAXIN;
	assert_int_equal(route_hedge_target(e, 3, D1, MAXIN, &it, 1), D3);
	assert_int_equal(route_hedge_target(e, 3, D2, MAXIN, &it, 1), D3);
	assert_int_equal(live_takers(e, 3, live_from, MAXIN), 1U << D3);
}

static void
test_failover_open(void **state)
{
	struct route_ep		e[3];
	struct queue_filter	f;
	int64_t			live_from = route_live_from(1, 300);
	struct qitem		it = state_item(300, 300);

	scenario_eps(e);
	/* d1's breaker opened; its timed-out leases came back. */
	e[D1].verdict = BRK_DENY_OPEN;
	assert_false(route_all_open(e, 3));
	assert_int_equal(route_preferred(e, 3, MAXIN), D2);
	assert_int_equal(live_takers(e, 3, live_from, MAXIN), 1U << D2);
	route_filter(e, 3, D2, live_from, MAXIN, &f);
	assert_int_equal(f.not_id, 102);
	/* d2's reads hedge to d3, not to the open d1. */
	assert_int_equal(route_hedge_target(e, 3, D2, MAXIN, &it, 1), D3);
	/* While d1's trial is out it is still not preferred. */
	e[D1].verdict = BRK_TRIAL;
	assert_int_equal(live_takers(e, 3, live_from, MAXIN), 1U << D2);
}

static void
test_failover_back(void **state)
{
	struct route_ep		e[3];
	struct queue_filter	f;
	int64_t			live_from = route_live_from(1, 300);

	scenario_eps(e);
	e[D1].verdict = BRK_DENY_OPEN;
	e[D2].inflight = 2;
	assert_int_equal(live_takers(e, 3, live_from, MAXIN), 1U << D2);
	/* Its trial succeeded: closed, nothing out. */
	e[D1].verdict = BRK_ALLOW;
	assert_int_equal(route_preferred(e, 3, MAXIN), D1);
	assert_int_equal(live_takers(e, 3, live_from, MAXIN), 1U << D1);
	route_filter(e, 3, D2, live_from, MAXIN, &f);
	assert_int_equal(f.may_live, 0);
	assert_int_equal(f.pref_id, 101);
	assert_int_equal(send_live(e, live_from), D1);
}

/*
 * d1 answers 503 (breaker still closed: it is failing) when a block comes:
 * its live read goes to d2, which has not made the block yet and says it
 * is absent.  The read must not go back to d1 (a third attempt there, a
 * failure, backed off 4 s: seen at 12 s blocks), but to d2 and d3, until
 * d1 answers something again.
 */
static void
test_failover_failing(void **state)
{
	struct route_ep		e[3];
	struct queue_filter	f;
	int64_t			live_from = route_live_from(1, 300);

	scenario_eps(e);
	/* Failing: d2 is preferred, d1 is not even the next one. */
	e[D1].failing = 1;
	assert_int_equal(route_preferred(e, 3, MAXIN), D2);
	assert_int_equal(live_takers(e, 3, live_from, MAXIN), 1U << D2);
	/* The read d2 found absent (its last endpoint now): d3 may take it,
	 * d1 may not, d2 not at once. */
	route_filter(e, 3, D3, live_from, MAXIN, &f);
	assert_int_equal(f.may_live, 0);
	assert_int_equal(f.pref_id, 102);
	route_filter(e, 3, D1, live_from, MAXIN, &f);
	assert_int_equal(f.may_live, 0);
	assert_int_equal(f.pref_id, -1);
	route_filter(e, 3, D2, live_from, MAXIN, &f);
	assert_int_equal(f.may_live, 1);
	assert_int_equal(f.not_id, 102);
	/* Only failing endpoints left: the first in order, as before. */
	e[D2].failing = e[D3].failing = 1;
	assert_int_equal(route_preferred(e, 3, MAXIN), D1);
	route_filter(e, 3, D2, live_from, MAXIN, &f);
	assert_int_equal(f.pref_id, 101);
	/* d1 answered: preferred again. */
	e[D1].failing = e[D2].failing = e[D3].failing = 0;
	assert_int_equal(route_preferred(e, 3, MAXIN), D1);
	/* A failing d2 with d1 full: d3 first, then d2 when d3 is full. */
	e[D1].inflight = MAXIN;
	e[D2].failing = 1;
	assert_int_equal(route_preferred(e, 3, MAXIN), D3);
	e[D3].inflight = MAXIN;
	assert_int_equal(route_preferred(e, 3, MAXIN), D2);
}

/*
 * The adaptive window (sup_depth.c) below max_inflight: backfill fills
 * the window; live reads neither count against it nor wait for it (it
 * shrinks while the backfill's answers wait in the daemon); the preferred
 * endpoint keeps the cap's last slot for them, and the cap bounds all.
 */
static void
test_window(void **state)
{
	struct route_ep		e[2];
	struct queue_filter	f;
	struct qitem		rt = { .kind = K_RUNTIME };

	(void)state;
	e[0] = ep(10, 0, 0, BRK_ALLOW);
	e[1] = ep(20, 1, 0, BRK_ALLOW);
	e[0].window = e[1].window = 8;
	assert_int_equal(route_limit(e, 2, 0, 64), 64);
	assert_int_equal(route_limit(e, 2, 1, 64), 8);
	/* Backfill up to the window; then live reads only. */
	e[0].inflight = 7;
	route_filter(e, 2, 0, 901, 64, &f);
	assert_int_equal(f.live_only, 0);
	e[0].inflight = 8;
	route_filter(e, 2, 0, 901, 64, &f);
	assert_int_equal(f.may_live, 1);
	assert_int_equal(f.live_only, 1);
	assert_int_equal(route_preferred(e, 2, 64), 0);
	/* Live reads out beside a full window: it takes more of them. */
	e[0].inflight = 10;
	e[0].live = 2;
	route_filter(e, 2, 0, 901, 64, &f);
	assert_int_equal(f.may_live, 1);
	assert_int_equal(f.live_only, 1);
	/* They leave the window to the backfill. */
	e[0].inflight = 9;
	route_filter(e, 2, 0, 901, 64, &f);
	assert_int_equal(f.live_only, 0);
	/* The window cut below what is out: a live read goes at once. */
	e[0].live = 0;
	e[0].window = 2;
	e[0].inflight = 30;
	assert_int_equal(route_preferred(e, 2, 64), 0);
	route_filter(e, 2, 0, 901, 64, &f);
	assert_int_equal(f.may_live, 1);
	assert_int_equal(f.live_only, 1);
	route_filter(e, 2, 1, 901, 64, &f);
	assert_int_equal(f.may_live, 0);
	/* Not an endpoint that is not preferred: its window and its own. */
	e[1].inflight = 8;
	assert_int_equal(route_limit(e, 2, 1, 64), 8);
	e[1].live = 1;
	e[1].inflight = 9;
	assert_int_equal(route_limit(e, 2, 1, 64), 9);
	e[1].live = e[1].inflight = 0;
	/* A window at the cap: the live slot is the cap's last. */
	e[0].window = 64;
	e[0].inflight = 62;
	route_filter(e, 2, 0, 901, 64, &f);
	assert_int_equal(f.live_only, 0);
	e[0].inflight = 63;
	route_filter(e, 2, 0, 901, 64, &f);
	assert_int_equal(f.live_only, 1);
	/* Full: the next one is preferred, with the cap as its limit. */
	e[0].inflight = 64;
	assert_int_equal(route_preferred(e, 2, 64), 1);
	assert_int_equal(route_limit(e, 2, 1, 64), 64);
	assert_int_equal(route_limit(e, 2, 0, 64), 64);
	/* Hedges: a backfill's within the window, a live read's the cap. */
	e[0].window = 1;
	e[0].inflight = 1;
	assert_int_equal(route_hedge_target(e, 2, 1, 64, &rt, 0), -1);
	assert_int_equal(route_hedge_target(e, 2, 1, 64, &rt, 1), 0);
	e[0].window = 2;
	assert_int_equal(route_hedge_target(e, 2, 1, 64, &rt, 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hedge_delay),
		cmocka_unit_test(test_hedging),
		cmocka_unit_test(test_latency_quantile),
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_preferred),
		cmocka_unit_test(test_all_open),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_hedge_target),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_failover_healthy),
		cmocka_unit_test(test_failover_blackhole),
		cmocka_unit_test(test_failover_open),
		cmocka_unit_test(test_failover_back),
		cmocka_unit_test(test_failover_failing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
