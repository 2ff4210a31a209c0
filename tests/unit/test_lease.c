/*
 * Leases and the catch-up queue's timing with a fake clock: every row of
 * the lease table, hedging and its limits, deadlines, retries (1 s, 2 s,
 * 4 s ... capped at 5 minutes, never dropped) and long runs of hedges.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sup_lease.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
/* Monotonic ms, well away from 0. */
#define T0		3600000ULL
#define RT		10000	/* request_timeout */
#define DELAY		400	/* the chain's hedging delay */
#define BLOCK		6000	/* block_time */

static void
test_deadline(void **state)
{
	uint64_t	t = 1764400000000ULL;
	uint64_t	d = lease_deadline(t, 10000);

	assert_int_equal(d, t + 2 * 10000 + LEASE_MARGIN_MS);
	assert_false(lease_expired(d, t));
	assert_false(lease_expired(d, d));
	assert_true(lease_expired(d, d + 1));
}

static void
test_backoff(void **state)
{
	uint64_t	now = 5000;

	assert_int_equal(lease_retry_at(now, 0), now + 1000);
	assert_int_equal(lease_retry_at(now, 1), now + 1000);
	assert_int_equal(lease_retry_at(now, 2), now + 2000);
	assert_int_equal(lease_retry_at(now, 3), now + 4000);
	assert_int_equal(lease_retry_at(now, 9), now + 256000);
	assert_int_equal(lease_retry_at(now, 10), now + 300000);
	assert_int_equal(lease_retry_at(now, 1000000), now + 300000);
}

/* A day of an item failing at every attempt: it keeps coming back. */
static void
test_day_of_failures(void **state)
{
	uint64_t	t = 0, next;
	unsigned	attempts = 0, capped = 0;

	while (t < 24ULL * 3600 * 1000) {
		attempts++;
		/* leased at t, its worker never answers: */
		t = lease_deadline(t, 10000) + 1;
		next = lease_retry_at(t, attempts);
		assert_true(next > t);
		assert_true(next - t <= LEASE_BACKOFF_MAX_MS);
		if (next - t == LEASE_BACKOFF_MAX_MS)
			capped++;
		t = next;
	}
	/* 9 doublings, then every 5 minutes and 22 s (the lease). */
	assert_true(attempts > 250);
	assert_int_equal(capped, attempts - 9);
}

/* What an event brings: the request it is about and how it ended. */
static struct lease_in
in_of(int hedge, enum outcome o)
{
	struct lease_in	in;

	memset(&in, 0, sizeof(in));
	in.hedge = hedge;
	in.outcome = o;
	in.hedge_delay = DELAY;
	in.block_time = BLOCK;
	in.request_timeout = RT;
	return in;
}

static void
step(struct lease *l, enum lease_event ev, const struct lease_in *in,
    uint64_t now, enum lease_state want, unsigned want_act)
{
	enum lease_state was = l->state;
	unsigned	act = lease_step(l, ev, in, now);

	if (l->state != want || act != want_act) {
		print_error("%s + %s%s: got %s/0x%x, want %s/0x%x\n",
		    lease_state_name(was), lease_event_name(ev),
		    in->hedge ? " (hedge)" : "", lease_state_name(l->state),
		    act, lease_state_name(want), want_act);
		fail();
	}
}

/* A lease brought into a state the way it gets there. */
static void
reach(struct lease *l, enum lease_state s, int live, unsigned attempts)
{
	struct lease_in	in = in_of(0, OUTCOME_OK);

	lease_start(l, live, attempts, RT, T0);
	switch (s) {
	case LS_OUT:
		break;
	case LS_HEDGED:
		lease_step(l, LE_HEDGE, &in, T0 + DELAY);
		break;
	case LS_ALONE:
		lease_step(l, LE_NO_HEDGE, &in, T0 + DELAY);
		break;
	case LS_SETTLED:
		lease_step(l, LE_OK, &in, T0 + 100);
		break;
	case LS_BACK:
		in.outcome = OUTCOME_TIMEOUT;
		lease_step(l, LE_FAIL, &in, T0 + 100);
		break;
	}
	assert_int_equal(l->state, s);
}

static void
test_start(void **state)
{
	struct lease	l;

	memset(&l, 0xa5, sizeof(l));
	lease_start(&l, 1, 4, RT, T0);
	assert_int_equal(l.state, LS_OUT);
	assert_int_equal(l.live, 1);
	assert_int_equal(l.attempts, 4);
	assert_int_equal(l.sent, T0);
	assert_int_equal(l.deadline, lease_deadline(T0, RT));
	assert_int_equal(l.hedges, 0);
	assert_int_equal(l.hedge_at, 0);
	assert_int_equal(l.back_in, 0);
	assert_true(lease_active(&l));
}

/* Every row of the table in sup_lease.c, and the pairs it leaves out. */
static void
test_table(void **state)
{
	static const struct {
		enum lease_state from;
		enum lease_event ev;
		int		 hedge;
		enum outcome	 o;
		enum lease_state to;
		unsigned	 act;
	} rows[] = {
		{ LS_OUT, LE_OK, 0, OUTCOME_OK, LS_SETTLED, LA_DONE },
		{ LS_OUT, LE_FAIL, 0, OUTCOME_TIMEOUT, LS_BACK, LA_BACK },
		{ LS_OUT, LE_FAIL, 0, OUTCOME_ABSENT, LS_BACK, LA_BACK },
		{ LS_OUT, LE_HEDGE, 0, OUTCOME_OK, LS_HEDGED, 0 },
		{ LS_OUT, LE_NO_HEDGE, 0, OUTCOME_OK, LS_ALONE, 0 },
		{ LS_HEDGED, LE_OK, 0, OUTCOME_OK, LS_SETTLED,
		    LA_DONE | LA_STRAGGLE },
		{ LS_HEDGED, LE_OK, 1, OUTCOME_OK, LS_SETTLED,
		    LA_DONE | LA_STRAGGLE | LA_WON },
		{ LS_HEDGED, LE_FAIL, 0, OUTCOME_TIMEOUT, LS_ALONE, 0 },
		{ LS_HEDGED, LE_FAIL, 1, OUTCOME_HTTP_5XX, LS_OUT, 0 },
		{ LS_HEDGED, LE_FAIL, 1, OUTCOME_ABSENT, LS_OUT, 0 },
		{ LS_ALONE, LE_OK, 0, OUTCOME_OK, LS_SETTLED, LA_DONE },
		{ LS_ALONE, LE_OK, 1, OUTCOME_OK, LS_SETTLED,
		    LA_DONE | LA_WON },
		{ LS_ALONE, LE_FAIL, 0, OUTCOME_TRANSPORT, LS_BACK, LA_BACK },
		{ LS_ALONE, LE_FAIL, 1, OUTCOME_TIMEOUT, LS_BACK, LA_BACK },
		{ LS_OUT, LE_EXPIRE, 0, OUTCOME_OK, LS_BACK,
		    LA_BACK | LA_DROP },
		{ LS_HEDGED, LE_EXPIRE, 0, OUTCOME_OK, LS_BACK,
		    LA_BACK | LA_DROP },
		{ LS_ALONE, LE_EXPIRE, 0, OUTCOME_OK, LS_BACK,
		    LA_BACK | LA_DROP },
		/* Not in the table: a hedge is only sent from OUT. */
		{ LS_HEDGED, LE_HEDGE, 0, OUTCOME_OK, LS_HEDGED, 0 },
		{ LS_HEDGED, LE_NO_HEDGE, 0, OUTCOME_OK, LS_HEDGED, 0 },
		{ LS_ALONE, LE_HEDGE, 0, OUTCOME_OK, LS_ALONE, 0 },
		{ LS_ALONE, LE_NO_HEDGE, 0, OUTCOME_OK, LS_ALONE, 0 },
	};
	uint64_t	now = T0 + 1000;

	for (size_t i = 0; i < nitems(rows); i++) {
		struct lease	l, was;
		struct lease_in	in = in_of(rows[i].hedge, rows[i].o);

		/* Not live, third attempt: a failure backs off 4 s. */
		reach(&l, rows[i].from, 0, 3);
		was = l;
		step(&l, rows[i].ev, &in, now, rows[i].to, rows[i].act);
		if (rows[i].act & LA_BACK)
			assert_int_equal(l.back_in, 4000);
		else
			assert_int_equal(l.back_in, 0);
		/* What a row changes besides the state. */
		if (rows[i].from == LS_OUT && rows[i].ev == LE_HEDGE) {
			assert_int_equal(l.hedges, 1);
			assert_int_equal(l.deadline, lease_deadline(now, RT));
		} else if (rows[i].from == LS_HEDGED && rows[i].ev == LE_FAIL &&
		    rows[i].hedge) {
			if (rows[i].o == OUTCOME_ABSENT) {
				assert_int_equal(l.hedges, 0);
				assert_int_equal(l.hedge_at,
				    now + ABSENT_RETRY_MS);
			} else {
				assert_int_equal(l.hedges, 1);
				assert_int_equal(l.hedge_at, now + DELAY);
			}
			assert_int_equal(l.deadline, was.deadline);
		} else {
			assert_int_equal(l.hedges, was.hedges);
			assert_int_equal(l.hedge_at, was.hedge_at);
			assert_int_equal(l.deadline, was.deadline);
		}
		assert_int_equal(l.sent, T0);
		assert_int_equal(l.attempts, 3);
		assert_int_equal(lease_active(&l), rows[i].to == LS_OUT ||
		    rows[i].to == LS_HEDGED || rows[i].to == LS_ALONE);
	}
}

/* SETTLED and BACK are final: nothing moves them, nothing is asked for. */
static void
test_final(void **state)
{
	static const enum outcome outcomes[] = { OUTCOME_OK, OUTCOME_ABSENT,
	    OUTCOME_TIMEOUT, OUTCOME_HTTP_5XX };

	for (enum lease_state s = LS_SETTLED; s <= LS_BACK; s++)
		for (enum lease_event ev = LE_OK; ev <= LE_EXPIRE; ev++)
			for (int k = 0; k < 2 * (int)nitems(outcomes); k++) {
				struct lease	l, was;
				struct lease_in	in = in_of(k & 1,
				    outcomes[k / 2]);

				in.at_once = k & 1;
				reach(&l, s, k & 1, 1);
				assert_false(lease_active(&l));
				was = l;
				step(&l, ev, &in, T0 + 100000, s, 0);
				assert_memory_equal(&l, &was, sizeof(l));
				assert_false(lease_may_hedge(&l, 0,
				    T0 + 100000));
			}
}

/*
 * Hedges: not before the delay from the first request, not before
 * hedge_at, at most HEDGES_MAX, and one that found the block absent does
 * not count.
 */
static void
test_hedges(void **state)
{
	struct lease	l;
	struct lease_in	first = in_of(0, OUTCOME_OK);
	struct lease_in	hedge = in_of(1, OUTCOME_OK);
	struct lease_in	absent = in_of(1, OUTCOME_ABSENT);
	struct lease_in	failed = in_of(1, OUTCOME_HTTP_5XX);

	lease_start(&l, 1, 1, RT, T0);
	assert_false(lease_may_hedge(&l, DELAY, T0));
	assert_false(lease_may_hedge(&l, DELAY, T0 + DELAY - 1));
	assert_true(lease_may_hedge(&l, DELAY, T0 + DELAY));
	assert_true(lease_may_hedge(&l, 0, T0));
	step(&l, LE_HEDGE, &first, T0 + DELAY, LS_HEDGED, 0);
	assert_int_equal(l.hedges, 1);
	/* Only in OUT: not while the hedge is out. */
	assert_false(lease_may_hedge(&l, DELAY, T0 + 100000));

	/* The block was not there yet: not counted, asked again soon. */
	step(&l, LE_FAIL, &absent, T0 + 600, LS_OUT, 0);
	assert_int_equal(l.hedges, 0);
	assert_int_equal(l.hedge_at, T0 + 600 + ABSENT_RETRY_MS);
	assert_false(lease_may_hedge(&l, DELAY, T0 + 600 + ABSENT_RETRY_MS -
	    1));
	assert_true(lease_may_hedge(&l, DELAY, T0 + 600 + ABSENT_RETRY_MS));
	/* The delay still runs from the first request, not from hedge_at. */
	assert_false(lease_may_hedge(&l, 2000, T0 + 1999));
	assert_true(lease_may_hedge(&l, 2000, T0 + 2000));

	/* Failed hedges count, and the next waits the delay again. */
	step(&l, LE_HEDGE, &first, T0 + 850, LS_HEDGED, 0);
	step(&l, LE_FAIL, &failed, T0 + 1000, LS_OUT, 0);
	assert_int_equal(l.hedges, 1);
	assert_int_equal(l.hedge_at, T0 + 1000 + DELAY);
	assert_false(lease_may_hedge(&l, DELAY, T0 + 1000 + DELAY - 1));
	assert_true(lease_may_hedge(&l, DELAY, T0 + 1000 + DELAY));
	step(&l, LE_HEDGE, &first, T0 + 1400, LS_HEDGED, 0);
	step(&l, LE_FAIL, &failed, T0 + 1500, LS_OUT, 0);
	assert_int_equal(l.hedges, 2);
	assert_true(lease_may_hedge(&l, DELAY, T0 + 1900));
	step(&l, LE_HEDGE, &first, T0 + 1900, LS_HEDGED, 0);
	assert_int_equal(l.hedges, HEDGES_MAX);
	/* A timeout is a failure like any other. */
	failed.outcome = OUTCOME_TIMEOUT;
	step(&l, LE_FAIL, &failed, T0 + 2000, LS_OUT, 0);
	/* HEDGES_MAX used up: never again, however long it waits. */
	assert_int_equal(l.hedges, HEDGES_MAX);
	assert_false(lease_may_hedge(&l, DELAY, T0 + 2400));
	assert_false(lease_may_hedge(&l, 0, l.deadline));
	/* Its own request can still settle it. */
	step(&l, LE_OK, &first, T0 + 3000, LS_SETTLED, LA_DONE);

	/* A hedge that wins settles it, and the first is a straggler. */
	lease_start(&l, 0, 1, RT, T0);
	step(&l, LE_HEDGE, &first, T0 + DELAY, LS_HEDGED, 0);
	step(&l, LE_OK, &hedge, T0 + 500, LS_SETTLED,
	    LA_DONE | LA_STRAGGLE | LA_WON);
	/* Nothing left to hedge with: its own request goes on alone. */
	lease_start(&l, 0, 1, RT, T0);
	step(&l, LE_NO_HEDGE, &first, T0 + DELAY, LS_ALONE, 0);
	assert_false(lease_may_hedge(&l, DELAY, T0 + 5000));
}

/* A hedge extends the deadline to cover itself, never shortens it. */
static void
test_deadline_hedged(void **state)
{
	struct lease	l;
	struct lease_in	in = in_of(0, OUTCOME_OK);
	struct lease_in	failed = in_of(1, OUTCOME_TIMEOUT);
	uint64_t	d;

	lease_start(&l, 0, 1, RT, T0);
	assert_int_equal(l.deadline, T0 + 2 * RT + LEASE_MARGIN_MS);
	step(&l, LE_HEDGE, &in, T0 + 5000, LS_HEDGED, 0);
	assert_int_equal(l.deadline, T0 + 5000 + 2 * RT + LEASE_MARGIN_MS);
	d = l.deadline;
	step(&l, LE_FAIL, &failed, T0 + 6000, LS_OUT, 0);
	assert_int_equal(l.deadline, d);
	/* A hedge with a shorter request_timeout: kept as it was. */
	in.request_timeout = 1000;
	step(&l, LE_HEDGE, &in, T0 + 6400, LS_HEDGED, 0);
	assert_int_equal(l.deadline, d);

	/* Expiry: not at the deadline, just after it. */
	assert_false(lease_expired(l.deadline, d));
	assert_true(lease_expired(l.deadline, d + 1));
	step(&l, LE_EXPIRE, &in, d + 1, LS_BACK, LA_BACK | LA_DROP);
	/* The first failure backs off 1 s, live or not. */
	assert_int_equal(l.back_in, 1000);
	lease_start(&l, 1, 1, RT, T0);
	step(&l, LE_EXPIRE, &in, lease_deadline(T0, RT) + 1, LS_BACK,
	    LA_BACK | LA_DROP);
	assert_int_equal(l.back_in, 1000);
	/* What is still out answers for its endpoint only. */
	step(&l, LE_OK, &in, lease_deadline(T0, RT) + 2, LS_BACK, 0);
}

static void
test_retry_in(void **state)
{
	/* Another endpoint should make it at once: the first few tries. */
	assert_int_equal(lease_retry_in(0, 4, OUTCOME_ABSENT, 1, BLOCK), 0);
	assert_int_equal(lease_retry_in(1, 4, OUTCOME_TIMEOUT, 1, BLOCK), 0);
	/* Then as any other: never round the endpoints without a pause. */
	assert_int_equal(lease_retry_in(0, 7, OUTCOME_ABSENT, 1, BLOCK),
	    lease_retry_at(0, 7));
	assert_int_equal(lease_retry_in(1, 9, OUTCOME_TIMEOUT, 1, BLOCK),
	    lease_retry_at(0, 9));
	assert_int_equal(lease_retry_in(1, 9, OUTCOME_ABSENT, 1, BLOCK),
	    9 * ABSENT_RETRY_MS);
	/* A live read, the first two times, whatever it failed with. */
	for (unsigned a = 0; a <= 2; a++) {
		assert_int_equal(lease_retry_in(1, a, OUTCOME_TIMEOUT, 0,
		    BLOCK), 0);
		assert_int_equal(lease_retry_in(1, a, OUTCOME_ABSENT, 0,
		    BLOCK), 0);
	}
	/* A live block not there yet: 250 ms a try, within a block time. */
	assert_int_equal(lease_retry_in(1, 3, OUTCOME_ABSENT, 0, BLOCK), 750);
	assert_int_equal(lease_retry_in(1, 4, OUTCOME_ABSENT, 0, BLOCK), 1000);
	assert_int_equal(lease_retry_in(1, 23, OUTCOME_ABSENT, 0, BLOCK),
	    5750);
	assert_int_equal(lease_retry_in(1, 24, OUTCOME_ABSENT, 0, BLOCK),
	    BLOCK);
	assert_int_equal(lease_retry_in(1, 25, OUTCOME_ABSENT, 0, BLOCK),
	    BLOCK);
	assert_int_equal(lease_retry_in(1, 1000000, OUTCOME_ABSENT, 0, BLOCK),
	    BLOCK);
	assert_int_equal(lease_retry_in(1, 3, OUTCOME_ABSENT, 0, 500), 500);
	/* Anything else backs off: 1 s, 2 s, 4 s ... 300 s. */
	assert_int_equal(lease_retry_in(1, 3, OUTCOME_TIMEOUT, 0, BLOCK),
	    4000);
	assert_int_equal(lease_retry_in(0, 3, OUTCOME_ABSENT, 0, BLOCK),
	    4000);
	assert_int_equal(lease_retry_in(0, 0, OUTCOME_TIMEOUT, 0, BLOCK),
	    1000);
	assert_int_equal(lease_retry_in(0, 1, OUTCOME_HTTP_5XX, 0, BLOCK),
	    1000);
	assert_int_equal(lease_retry_in(0, 2, OUTCOME_TIMEOUT, 0, BLOCK),
	    2000);
	assert_int_equal(lease_retry_in(0, 9, OUTCOME_TIMEOUT, 0, BLOCK),
	    256000);
	assert_int_equal(lease_retry_in(0, 10, OUTCOME_TIMEOUT, 0, BLOCK),
	    LEASE_BACKOFF_MAX_MS);
	assert_int_equal(lease_retry_in(1, 1000000, OUTCOME_RPC_ERROR, 0,
	    BLOCK), LEASE_BACKOFF_MAX_MS);
	/* What a failure in the table uses. */
	{
		struct lease	l;
		struct lease_in	in = in_of(0, OUTCOME_ABSENT);

		lease_start(&l, 1, 5, RT, T0);
		step(&l, LE_FAIL, &in, T0 + 100, LS_BACK, LA_BACK);
		assert_int_equal(l.back_in, 1250);
		lease_start(&l, 1, 3, RT, T0);
		in.at_once = 1;
		step(&l, LE_FAIL, &in, T0 + 100, LS_BACK, LA_BACK);
		assert_int_equal(l.back_in, 0);
	}
}

/*
 * A live block that is slow to spread: 1000 hedges, each finding it absent,
 * never use up HEDGES_MAX and keep the lease alive; then failing hedges stop
 * after HEDGES_MAX and the lease expires.
 */
static void
test_thousand_hedges(void **state)
{
	struct lease	l;
	struct lease_in	first = in_of(0, OUTCOME_OK);
	struct lease_in	absent = in_of(1, OUTCOME_ABSENT);
	struct lease_in	failed = in_of(1, OUTCOME_HTTP_5XX);
	uint64_t	t = T0, deadline, last = 0;
	unsigned	sent = 0;

	lease_start(&l, 1, 1, RT, T0);
	while (sent < 1000) {
		assert_false(lease_expired(l.deadline, t));
		if (lease_may_hedge(&l, DELAY, t)) {
			deadline = l.deadline;
			step(&l, LE_HEDGE, &first, t, LS_HEDGED, 0);
			last = t;
			assert_true(l.deadline >= deadline);
			assert_int_equal(l.hedges, 1);
			sent++;
			/* Answered 100 ms later: not there yet. */
			t += 100;
			step(&l, LE_FAIL, &absent, t, LS_OUT, 0);
			assert_int_equal(l.hedges, 0);
			assert_int_equal(l.hedge_at, t + ABSENT_RETRY_MS);
		}
		t += 50;
	}
	/* After the first DELAY, one every 350 ms: 100 for its answer, then
	 * ABSENT_RETRY_MS. */
	assert_int_equal(last, T0 + DELAY + 999 * (100 + ABSENT_RETRY_MS));
	assert_int_equal(l.sent, T0);
	step(&l, LE_OK, &first, t, LS_SETTLED, LA_DONE);

	/* The same with real failures: three hedges, then none. */
	lease_start(&l, 1, 1, RT, T0);
	sent = 0;
	for (t = T0; !lease_expired(l.deadline, t); t += 50) {
		if (!lease_may_hedge(&l, DELAY, t))
			continue;
		step(&l, LE_HEDGE, &first, t, LS_HEDGED, 0);
		sent++;
		step(&l, LE_FAIL, &failed, t + 100, LS_OUT, 0);
		assert_int_equal(l.hedge_at, t + 100 + DELAY);
	}
	assert_int_equal(sent, HEDGES_MAX);
	assert_int_equal(l.hedges, HEDGES_MAX);
	/* The last hedge's deadline, then expiry. */
	assert_true(l.deadline > lease_deadline(T0, RT));
	step(&l, LE_EXPIRE, &first, t, LS_BACK, LA_BACK | LA_DROP);
}

static uint64_t	rng = 88172645463325252ULL;

static uint64_t
rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

/* A request of the simulated lease: out, when it answers, and how. */
#define LOST	UINT64_MAX
struct sim_req {
	int		out;
	uint64_t	due;
	enum outcome	o;
};

static void
sim_send(struct sim_req *r, uint64_t now)
{
	static const enum outcome answers[] = { OUTCOME_OK, OUTCOME_OK,
	    OUTCOME_OK, OUTCOME_ABSENT, OUTCOME_ABSENT, OUTCOME_TIMEOUT,
	    OUTCOME_HTTP_5XX, OUTCOME_TRANSPORT };

	r->out = 1;
	r->o = answers[rnd(nitems(answers))];
	/* Timeouts take the request_timeout; a worker may die sooner. */
	r->due = now + (r->o == OUTCOME_TIMEOUT ? 2000 : rnd(1500));
	/* Or it is lost with its worker and never answers: LOST. */
	if (rnd(16) == 0)
		r->due = LOST;
}

/* What the lease believes is out is what is out. */
static void
sim_check(const struct lease *l, const struct sim_req *q, unsigned hedges)
{
	assert_true((unsigned)l->state <= LS_BACK);
	assert_true(l->hedges <= HEDGES_MAX);
	assert_int_equal(l->hedges, hedges);
	switch (l->state) {
	case LS_OUT:
		assert_true(q[0].out && !q[1].out);
		break;
	case LS_HEDGED:
		assert_true(q[0].out && q[1].out);
		assert_true(l->hedges >= 1);
		break;
	case LS_ALONE:
		assert_int_equal(q[0].out + q[1].out, 1);
		break;
	case LS_SETTLED:
	case LS_BACK:
		assert_false(lease_active(l));
		break;
	}
}

/*
 * Many leases driven as sup_tick.c does, every 50 ms for a day of the
 * fake clock: answers at random times, hedges when allowed, expiry, and the
 * stragglers of settled leases arriving after.  After every call the lease
 * agrees with what is really out, and its actions with what happened.
 */
static void
test_day(void **state)
{
	struct lease	l, was;
	struct sim_req	q[2];		/* its first request, its hedge */
	unsigned	hedges = 0, attempts = 1, act;
	unsigned	n_settled = 0, n_back = 0, n_won = 0, n_hedges = 0;
	unsigned	n_expired = 0, n_absent = 0, n_final = 0;
	uint64_t	t, end = T0 + 24ULL * 3600 * 1000;
	uint64_t	rt = 2000, deadline;
	int		live = 1;

	memset(q, 0, sizeof(q));
	lease_start(&l, live, attempts, rt, T0);
	sim_send(&q[0], T0);
	for (t = T0; t < end; t += 50) {
		struct lease_in	in = in_of(0, OUTCOME_OK);
		int		hedge_first = rnd(2);

		in.request_timeout = rt;
		/* Answers due, the hedge's first half the time. */
		for (int k = 0; k < 2; k++) {
			int	r = k ^ hedge_first;
			enum lease_event ev;

			if (!q[r].out || q[r].due > t)
				continue;
			q[r].out = 0;
			in.hedge = r;
			in.outcome = q[r].o;
			in.at_once = rnd(10) == 0;
			ev = q[r].o == OUTCOME_OK ? LE_OK : LE_FAIL;
			was = l;
			act = lease_step(&l, ev, &in, t);
			if (!lease_active(&was)) {
				/* A straggler: it changes nothing. */
				assert_int_equal(act, 0);
				assert_memory_equal(&l, &was, sizeof(l));
				n_final++;
				continue;
			}
			if (ev == LE_FAIL && r == 1 && was.state == LS_HEDGED &&
			    in.outcome == OUTCOME_ABSENT) {
				hedges--;
				n_absent++;
			}
			sim_check(&l, q, hedges);
			if (act & LA_WON)
				n_won++;
			assert_int_equal((act & LA_DONE) != 0,
			    l.state == LS_SETTLED);
			assert_int_equal((act & LA_BACK) != 0,
			    l.state == LS_BACK);
			assert_int_equal((act & LA_WON) != 0,
			    l.state == LS_SETTLED && r == 1);
			assert_int_equal((act & LA_STRAGGLE) != 0,
			    l.state == LS_SETTLED && q[1 - r].out);
			assert_false(act & LA_DROP);
			if (l.state == LS_BACK)
				assert_int_equal(l.back_in, lease_retry_in(
				    live, attempts, in.outcome, in.at_once,
				    BLOCK));
			assert_int_equal(l.deadline, was.deadline);
		}
		if (lease_active(&l) && lease_expired(l.deadline, t)) {
			was = l;
			act = lease_step(&l, LE_EXPIRE, &in, t);
			assert_int_equal(act, LA_BACK | LA_DROP);
			assert_int_equal(l.back_in, lease_retry_at(0,
			    attempts));
			q[0].out = q[1].out = 0;
			n_expired++;
		} else if (lease_may_hedge(&l, DELAY, t)) {
			assert_int_equal(l.state, LS_OUT);
			assert_true(t - l.sent >= DELAY && t >= l.hedge_at);
			deadline = l.deadline;
			if (rnd(8) == 0) {
				/* Nowhere to send it. */
				act = lease_step(&l, LE_NO_HEDGE, &in, t);
			} else {
				sim_send(&q[1], t);
				act = lease_step(&l, LE_HEDGE, &in, t);
				hedges++;
				n_hedges++;
				assert_true(l.deadline >= deadline);
				assert_true(l.deadline >=
				    lease_deadline(t, rt));
			}
			assert_int_equal(act, 0);
			sim_check(&l, q, hedges);
		}
		if (lease_active(&l)) {
			assert_true(l.deadline >= lease_deadline(l.sent, rt));
			continue;
		}
		/*
		 * Settled or back: the next lease once its stragglers are in
		 * (the item's next attempt, or another item).  A lost one
		 * never comes.
		 */
		for (int r = 0; r < 2; r++)
			if (q[r].due == LOST)
				q[r].out = 0;
		if (q[0].out || q[1].out)
			continue;
		if (l.state == LS_SETTLED) {
			n_settled++;
			attempts = 1;
			live = rnd(2);
		} else {
			n_back++;
			attempts++;
		}
		if (attempts > 12)
			attempts = 1;
		hedges = 0;
		lease_start(&l, live, attempts, rt, t);
		sim_send(&q[0], t);
	}
	print_message("a day of leases: %u settled (%u by a hedge), %u back "
	    "(%u expired), %u hedges (%u absent), %u stragglers\n",
	    n_settled, n_won, n_back, n_expired, n_hedges, n_absent, n_final);
	/* Every path was taken, many times. */
	assert_true(n_settled > 1000);
	assert_true(n_back > 1000);
	assert_true(n_expired > 10);
	assert_true(n_hedges > 1000);
	assert_true(n_absent > 100);
	assert_true(n_final > 100);
	assert_true(n_won > 100);
}

static void
test_names(void **state)
{
	assert_string_equal(lease_state_name(LS_OUT), "out");
	assert_string_equal(lease_state_name(LS_ALONE), "alone");
	assert_string_equal(lease_state_name(LS_BACK), "back");
	assert_string_equal(lease_state_name((enum lease_state)5), "?");
	assert_string_equal(lease_event_name(LE_NO_HEDGE), "no_hedge");
	assert_string_equal(lease_event_name(LE_EXPIRE), "expire");
	assert_string_equal(lease_event_name((enum lease_event)5), "?");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_day_of_failures),
		cmocka_unit_test(test_start),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_final),
		cmocka_unit_test(test_hedges),
		cmocka_unit_test(test_deadline_hedged),
		cmocka_unit_test(test_retry_in),
		cmocka_unit_test(test_thousand_hedges),
		cmocka_unit_test(test_day),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
