/*
 * The endpoint circuit breaker with a fake clock: both opening rules on each
 * side of their thresholds, generations, cooldowns, trials, rate limiting,
 * restore, every row of the transition table, and a day of flapping traffic.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sup_breaker.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#define S	1000ULL
#define MIN	(60 * S)
#define HOUR	(60 * MIN)
/* Midnight UTC, so that reasons can be checked to the second. */
#define T0	1764374400000ULL
#define AT(h, m, s)	(T0 + ((h) * 3600ULL + (m) * 60ULL + (s)) * S)

static struct breaker_conf
dconf(void)
{
	struct breaker_conf	c;

	breaker_conf_default(&c);
	return c;
}

/* A request sent and answered within the current generation. */
static int
feed(struct breaker *b, enum outcome o, uint64_t now)
{
	return breaker_outcome(b, b->gen, o, now);
}

static void
want_state(const struct breaker *b, enum brk_state want)
{
	if (b->state != want) {
		print_error("state %s, want %s (reason \"%s\")\n",
		    breaker_state_name(b->state), breaker_state_name(want),
		    b->reason);
		fail();
	}
}

static void
want_verdict(struct breaker *b, uint64_t now, enum brk_verdict want)
{
	enum brk_verdict v = breaker_allow(b, now);

	if (v != want) {
		print_error("at +%llu ms: %s, want %s (state %s)\n",
		    (unsigned long long)(now - T0), breaker_verdict_name(v),
		    breaker_verdict_name(want), breaker_state_name(b->state));
		fail();
	}
}

/* 20 timeouts at one instant: the rate rule opens a default breaker. */
static void
trip(struct breaker *b, uint64_t now)
{
	for (int i = 0; i < 20 && b->state == BRK_CLOSED; i++)
		feed(b, OUTCOME_TIMEOUT, now);
	want_state(b, BRK_OPEN);
}

/*
 * n seconds of a busy endpoint from start, per seconds `per` outcomes evenly
 * spaced, the first `ok` of each second successes and the rest `bad`.
 * Returns the time it opened, 0 if it stayed closed.
 */
static uint64_t
busy(struct breaker *b, uint64_t start, unsigned n, unsigned per,
    unsigned ok, enum outcome good, enum outcome bad)
{
	for (unsigned s = 0; s < n; s++)
		for (unsigned i = 0; i < per; i++) {
			uint64_t t = start + s * S + i * (S / per);

			feed(b, i < ok ? good : bad, t);
			if (b->state != BRK_CLOSED)
				return t;
		}
	return 0;
}

static void
test_defaults(void **state)
{
	struct breaker_conf	c = dconf();
	struct breaker		b;

	/* The values. */
	assert_int_equal(c.failure_pct, 50);
	assert_int_equal(c.window, 60 * S);
	assert_int_equal(c.min_samples, 20);
	assert_int_equal(c.consecutive, 5);
	assert_int_equal(c.min_span, 10 * S);
	assert_int_equal(c.cooldown, 5 * S);
	assert_int_equal(c.cooldown_max, 5 * MIN);
	breaker_init(&b, &c, T0);
	want_state(&b, BRK_CLOSED);
	assert_int_equal(b.since, T0);
	assert_int_equal(b.cooldown, 5 * S);
	assert_string_equal(b.reason, "");
	assert_int_equal(b.width, 938);
	want_verdict(&b, T0, BRK_ALLOW);
	assert_int_equal(breaker_ready_at(&b, T0 + 7), T0 + 7);
	/* Nonsense is clamped, not divided by. */
	memset(&c, 0, sizeof(c));
	breaker_init(&b, &c, T0);
	assert_int_equal(b.conf.consecutive, 1);
	assert_int_equal(b.width, 1);
	trip(&b, T0);
	/* A reset from its own conf. */
	c = dconf();
	breaker_init(&b, &c, T0);
	breaker_init(&b, &b.conf, T0 + 1);
	assert_int_equal(b.conf.min_samples, 20);
	assert_int_equal(b.since, T0 + 1);
}

/*
 * A window of 64 s makes slots of exactly 1 s, so every second of traffic is
 * one slot and the failure rate at the end of each second is exactly 40%.
 */
static void
test_rate_threshold(void **state)
{
	struct breaker_conf	c = dconf();
	struct breaker		b;
	uint64_t		t;

	c.window = 64 * S;
	c.failure_pct = 40;
	breaker_init(&b, &c, T0);
	assert_int_equal(b.width, 1000);
	/* 6 ok then 4 timeouts a second: 40% once 20 samples are in. */
	t = busy(&b, T0, 600, 10, 6, OUTCOME_OK, OUTCOME_TIMEOUT);
	assert_int_equal(t, T0 + 1900);
	want_state(&b, BRK_OPEN);
	assert_string_equal(b.reason, "40% timeouts over 64 s (8 of 20)");
	assert_int_equal(b.since, T0 + 1900);
	assert_int_equal(b.down_since, T0 + 1900);

	/* Just above 40%: ten minutes of it never trip. */
	c.failure_pct = 41;
	breaker_init(&b, &c, T0);
	assert_int_equal(busy(&b, T0, 600, 10, 6, OUTCOME_OK,
	    OUTCOME_TIMEOUT), 0);
	assert_true(b.n_total >= 630 && b.n_total <= 640);
	assert_int_equal(b.n_fail * 10, b.n_total * 4);
	/* Nor at the default 50%. */
	c.failure_pct = 50;
	breaker_init(&b, &c, T0);
	assert_int_equal(busy(&b, T0, 600, 10, 6, OUTCOME_OK,
	    OUTCOME_TIMEOUT), 0);

	/* min_samples: 19 outcomes at 100% are not a rate. */
	c = dconf();
	c.consecutive = 1000;	/* the run rule out of the way */
	breaker_init(&b, &c, T0);
	for (int i = 0; i < 19; i++)
		feed(&b, OUTCOME_HTTP_5XX, T0 + i);
	want_state(&b, BRK_CLOSED);
	feed(&b, OUTCOME_HTTP_5XX, T0 + 19);
	want_state(&b, BRK_OPEN);
	assert_string_equal(b.reason,
	    "100% HTTP 5xx answers over 60 s (20 of 20)");

	/* The default window: 40% trips at 40%, never at 50%. */
	c = dconf();
	c.failure_pct = 40;
	breaker_init(&b, &c, T0);
	assert_int_not_equal(busy(&b, T0, 600, 10, 6, OUTCOME_OK,
	    OUTCOME_TRANSPORT), 0);
	c = dconf();
	breaker_init(&b, &c, T0);
	assert_int_equal(busy(&b, T0, 600, 10, 6, OUTCOME_OK,
	    OUTCOME_TRANSPORT), 0);
	/* 60% trips at the default, as soon as 20 samples are in. */
	breaker_init(&b, &c, T0);
	assert_int_equal(busy(&b, T0, 600, 10, 4, OUTCOME_OK,
	    OUTCOME_TRANSPORT), T0 + 1900);
	assert_string_equal(b.reason, "60% transport errors over 60 s (12 of 20)");
}

/* Failures age out of the window: the same 45 failures, spread or bunched. */
static void
test_rate_window(void **state)
{
	struct breaker_conf	c = dconf();
	struct breaker		b;
	uint64_t		t = T0;

	c.consecutive = 1000;
	breaker_init(&b, &c, T0);
	/* 40 successes, then 39 failures a minute later: the successes are
	 * gone, 39 of 39 is 100%... */
	for (int i = 0; i < 40; i++)
		feed(&b, OUTCOME_OK, t + i * 100);
	t += 61 * S + 4000;
	for (int i = 0; i < 19; i++)
		feed(&b, OUTCOME_TIMEOUT, t + i * 100);
	want_state(&b, BRK_CLOSED);
	assert_int_equal(b.n_total, 19);
	feed(&b, OUTCOME_TIMEOUT, t + 1900);
	want_state(&b, BRK_OPEN);

	/* ...while within the window they dilute: 40 ok and 39 failures. */
	breaker_init(&b, &c, T0);
	t = T0;
	for (int i = 0; i < 40; i++)
		feed(&b, OUTCOME_OK, t + i * 100);
	t += 50 * S;
	for (int i = 0; i < 39; i++)
		feed(&b, OUTCOME_TIMEOUT, t + i * 100);
	want_state(&b, BRK_CLOSED);
	feed(&b, OUTCOME_TIMEOUT, t + 3900);	/* 40 of 80 */
	want_state(&b, BRK_OPEN);

	/* A long silence empties every slot. */
	breaker_init(&b, &c, T0);
	for (int i = 0; i < 19; i++)
		feed(&b, OUTCOME_TIMEOUT, T0);
	assert_int_equal(b.n_total, 19);
	feed(&b, OUTCOME_OK, T0 + 3 * HOUR);
	assert_int_equal(b.n_total, 1);
	assert_int_equal(b.n_fail, 0);
}

/*
 * A busy endpoint (10 requests a second) with a 5 s burst of timeouts: 50
 * failures in a row, but 8% of the window and 3 strikes over 4.9 s.  A
 * 12 s burst does trip, on the run rule.
 */
static void
test_partial_burst(void **state)
{
	struct breaker_conf	c = dconf();
	struct breaker		b;
	uint64_t		t;

	breaker_init(&b, &c, T0);
	assert_int_equal(busy(&b, T0, 120, 10, 10, OUTCOME_OK,
	    OUTCOME_OK), 0);
	t = T0 + 120 * S;
	assert_int_equal(busy(&b, t, 5, 10, 0, OUTCOME_OK,
	    OUTCOME_TIMEOUT), 0);
	assert_int_equal(b.run_fails, 50);
	assert_int_equal(b.run_strikes, 3);
	/* Closed and failing: the routing passes it over meanwhile. */
	assert_int_equal(breaker_failing(&b), 1);
	assert_int_equal(busy(&b, t + 5 * S, 120, 10, 10, OUTCOME_OK,
	    OUTCOME_OK), 0);
	want_state(&b, BRK_CLOSED);
	assert_int_equal(breaker_failing(&b), 0);

	breaker_init(&b, &c, T0);
	assert_int_equal(busy(&b, T0, 120, 10, 10, OUTCOME_OK,
	    OUTCOME_OK), 0);
	assert_int_equal(busy(&b, t, 12, 10, 0, OUTCOME_OK,
	    OUTCOME_TIMEOUT), t + 10 * S);
	assert_string_equal(b.reason,
	    "101 timeouts in a row since 00:02:00 UTC");
}

/*
 * A probe's success ends a run of timeouts, not a run of malformed
 * answers: an endpoint whose state answers are all wrong while its probes
 * answer trips on the run rule all the same (trust_lies.sh,
 * wrong_count_short), and is not failing between a probe and the next
 * wrong answer, so that the routing asks it again.  A probe's failure
 * counts as a request's.
 */
static void
test_probe_content(void **state)
{
	struct breaker_conf	c = dconf();
	struct breaker		b;
	uint64_t		t = T0;

	(void)state;
	breaker_init(&b, &c, T0);
	for (int i = 0; i < 4; i++, t += 3 * S) {
		assert_int_equal(feed(&b, OUTCOME_MALFORMED, t), 0);
		assert_int_equal(breaker_failing(&b), 1);
		assert_int_equal(breaker_probe(&b, b.gen, OUTCOME_OK, t + S), 0);
		assert_int_equal(breaker_failing(&b), 0);
		assert_int_equal(b.run_fails, (unsigned)i + 1);
	}
	feed(&b, OUTCOME_MALFORMED, t);
	want_state(&b, BRK_OPEN);

	/* A run of timeouts: each probe's success ends it. */
	breaker_init(&b, &c, T0);
	for (t = T0; t < T0 + 30 * S; t += 3 * S) {
		assert_int_equal(feed(&b, OUTCOME_TIMEOUT, t), 0);
		breaker_probe(&b, b.gen, OUTCOME_OK, t + S);
		assert_int_equal(b.run_fails, 0);
	}
	want_state(&b, BRK_CLOSED);

	/* A failing probe counts. */
	breaker_init(&b, &c, T0);
	for (t = T0; t < T0 + 12 * S; t += 3 * S)
		breaker_probe(&b, b.gen, OUTCOME_TRANSPORT, t);
	breaker_probe(&b, b.gen, OUTCOME_TRANSPORT, t);
	want_state(&b, BRK_OPEN);
}

/* One request every 30 s: five timeouts in a row over 2 minutes open it. */
static void
test_quiet_consecutive(void **state)
{
	struct breaker_conf	c = dconf();
	struct breaker		b;
	uint64_t		t = AT(12, 3, 7);

	breaker_init(&b, &c, T0);
	for (uint64_t s = T0; s < t; s += 30 * S)
		feed(&b, OUTCOME_OK, s);
	for (int i = 0; i < 4; i++)
		assert_int_equal(feed(&b, OUTCOME_TIMEOUT, t + i * 30 * S), 0);
	want_state(&b, BRK_CLOSED);
	assert_int_equal(feed(&b, OUTCOME_TIMEOUT, t + 120 * S), 1);
	want_state(&b, BRK_OPEN);
	assert_string_equal(b.reason, "5 timeouts in a row since 12:03:07 UTC");
	assert_int_equal(b.since, t + 120 * S);

	/* A success, or any answer, ends the run. */
	for (int k = 0; k < 4; k++) {
		static const enum outcome answers[] = { OUTCOME_OK,
		    OUTCOME_ABSENT, OUTCOME_RPC_ERROR, OUTCOME_HTTP_4XX };

		breaker_init(&b, &c, t);
		for (int i = 0; i < 4; i++)
			feed(&b, OUTCOME_TIMEOUT, t + i * 30 * S);
		feed(&b, answers[k], t + 120 * S);
		for (int i = 5; i < 9; i++)
			feed(&b, OUTCOME_TIMEOUT, t + i * 30 * S);
		want_state(&b, BRK_CLOSED);
		feed(&b, OUTCOME_TIMEOUT, t + 9 * 30 * S);
		want_state(&b, BRK_OPEN);
	}

	/* rate_limited does not end it; mixed classes are "failures". */
	breaker_init(&b, &c, t);
	feed(&b, OUTCOME_TIMEOUT, t);
	feed(&b, OUTCOME_TRANSPORT, t + 30 * S);
	feed(&b, OUTCOME_HTTP_5XX, t + 60 * S);
	feed(&b, OUTCOME_RATE_LIMITED, t + 70 * S);
	feed(&b, OUTCOME_MALFORMED, t + 90 * S);
	want_state(&b, BRK_CLOSED);
	feed(&b, OUTCOME_TOO_LARGE, t + 120 * S);
	want_state(&b, BRK_OPEN);
	assert_string_equal(b.reason, "5 failures in a row since 12:03:07 UTC");

	/* The span: 5 strikes 2 s apart cover 8 s, too little; 10 s opens. */
	breaker_init(&b, &c, t);
	for (int i = 0; i < 5; i++)
		feed(&b, OUTCOME_HTTP_5XX, t + i * 2 * S);
	assert_int_equal(b.run_strikes, 5);
	want_state(&b, BRK_CLOSED);
	feed(&b, OUTCOME_HTTP_5XX, t + 10 * S - 1);	/* same strike */
	assert_int_equal(b.run_strikes, 5);
	want_state(&b, BRK_CLOSED);
	feed(&b, OUTCOME_HTTP_5XX, t + 10 * S);
	want_state(&b, BRK_OPEN);
	assert_string_equal(b.reason,
	    "7 HTTP 5xx answers in a row since 12:03:07 UTC");

	/* min_span 0: the classic breaker, every failure a strike. */
	c.min_span = 0;
	breaker_init(&b, &c, t);
	for (int i = 0; i < 4; i++)
		feed(&b, OUTCOME_TIMEOUT, t);
	want_state(&b, BRK_CLOSED);
	feed(&b, OUTCOME_TIMEOUT, t);
	want_state(&b, BRK_OPEN);
	/* consecutive 1: one failure, singular. */
	c.consecutive = 1;
	breaker_init(&b, &c, t);
	feed(&b, OUTCOME_TOO_LARGE, t);
	assert_string_equal(b.reason,
	    "1 oversized answer in a row since 12:03:07 UTC");
}

/* The peer rule: what the others say of a run, and when it opens. */
static enum brk_peers
say(const struct breaker *b, const struct breaker *others, size_t n,
    const int *usable)
{
	struct brk_peer	p[4];

	for (size_t i = 0; i < n; i++)
		breaker_peer(&others[i], usable == NULL || usable[i], &p[i]);
	return breaker_peers_say(b, p, n);
}

static int
peers(struct breaker *b, const struct breaker *others, size_t n,
    uint64_t now)
{
	struct brk_peer	p[4];

	for (size_t i = 0; i < n; i++)
		breaker_peer(&others[i], 1, &p[i]);
	return breaker_peers(b, p, n, now);
}

/*
 * Another endpoint answers while this one fails: three strikes a second
 * apart over 2 s open it, on default settings, long before min_span.
 */
static void
test_peers_answer(void **state)
{
	struct breaker_conf	c = dconf();
	struct breaker		b, o[1];
	uint64_t		t = AT(12, 3, 7);

	breaker_init(&b, &c, T0);
	breaker_init(&o[0], &c, T0);
	feed(&b, OUTCOME_OK, t - S);
	feed(&o[0], OUTCOME_OK, t - S);
	/* One failure is no run worth asking about; nor two. */
	feed(&b, OUTCOME_TRANSPORT, t);
	feed(&o[0], OUTCOME_OK, t + 500);
	assert_int_equal(say(&b, o, 1, NULL), BRK_PEERS_NONE);
	assert_int_equal(peers(&b, o, 1, t + 600), 0);
	feed(&b, OUTCOME_TRANSPORT, t + S);
	assert_int_equal(peers(&b, o, 1, t + S + 100), 0);
	want_state(&b, BRK_CLOSED);
	/* The third strike, 2 s after the first: open, saying why. */
	feed(&b, OUTCOME_TRANSPORT, t + 2 * S);
	want_state(&b, BRK_CLOSED);
	assert_int_equal(b.peer_strikes, 3);
	assert_int_equal(say(&b, o, 1, NULL), BRK_PEERS_ANSWER);
	assert_int_equal(peers(&b, o, 1, t + 2 * S + 50), 1);
	want_state(&b, BRK_OPEN);
	assert_string_equal(b.reason,
	    "3 transport errors in a row since 12:03:07 UTC while others "
	    "answer");
	assert_int_equal(b.since, t + 2 * S + 50);
	/* Open: the rule has nothing more to say. */
	assert_int_equal(peers(&b, o, 1, t + 3 * S), 0);

	/* The peer's success must come after the run began. */
	breaker_init(&b, &c, T0);
	breaker_init(&o[0], &c, T0);
	feed(&o[0], OUTCOME_OK, t);
	for (int i = 0; i < 3; i++)
		feed(&b, OUTCOME_HTTP_5XX, t + i * S);
	assert_int_equal(say(&b, o, 1, NULL), BRK_PEERS_NONE);
	feed(&o[0], OUTCOME_ABSENT, t + 2500);	/* an answer all the same */
	assert_int_equal(peers(&b, o, 1, t + 2600), 1);
	assert_string_equal(b.reason,
	    "3 HTTP 5xx answers in a row since 12:03:07 UTC while others "
	    "answer");

	/*
	 * A burst: 15 failures within half a second and one 2 s later are 2
	 * strikes; failures a second apart over less than 2 s are 3, too
	 * short; probes a second apart, a millisecond early, are strikes.
	 */
	breaker_init(&b, &c, T0);
	breaker_init(&o[0], &c, T0);
	for (int i = 0; i < 15; i++)
		feed(&b, OUTCOME_TIMEOUT, t + (uint64_t)i * 30);
	feed(&b, OUTCOME_TIMEOUT, t + 2 * S);
	feed(&o[0], OUTCOME_OK, t + 2 * S);
	assert_int_equal(b.peer_strikes, 2);
	assert_int_equal(peers(&b, o, 1, t + 2 * S), 0);
	breaker_init(&b, &c, T0);
	feed(&b, OUTCOME_TIMEOUT, t);
	feed(&b, OUTCOME_TIMEOUT, t + S - 1);
	feed(&b, OUTCOME_TIMEOUT, t + 2 * S - 2);
	assert_int_equal(b.peer_strikes, 3);
	assert_int_equal(peers(&b, o, 1, t + 5 * S), 0);
	want_state(&b, BRK_CLOSED);
	feed(&b, OUTCOME_TIMEOUT, t + 3 * S - 3);
	assert_int_equal(peers(&b, o, 1, t + 3 * S), 1);
	want_state(&b, BRK_OPEN);

	/* A success of its own ends the run; rate_limited does not. */
	breaker_init(&b, &c, T0);
	feed(&b, OUTCOME_TRANSPORT, t);
	feed(&b, OUTCOME_TRANSPORT, t + S);
	feed(&b, OUTCOME_OK, t + 1500);
	feed(&b, OUTCOME_TRANSPORT, t + 2 * S);
	feed(&o[0], OUTCOME_OK, t + 2 * S);
	assert_int_equal(peers(&b, o, 1, t + 2 * S), 0);
	breaker_init(&b, &c, T0);
	feed(&b, OUTCOME_TRANSPORT, t);
	feed(&b, OUTCOME_RATE_LIMITED, t + 500);
	feed(&b, OUTCOME_TRANSPORT, t + S);
	feed(&b, OUTCOME_MALFORMED, t + 2 * S);
	assert_int_equal(peers(&b, o, 1, t + 2 * S), 1);
	assert_string_equal(b.reason,
	    "3 failures in a row since 12:03:07 UTC while others answer");

	/* Outcomes of the generation before the opening do not count. */
	assert_int_equal(breaker_outcome(&b, b.gen - 1, OUTCOME_OK, t + 3 * S),
	    -1);
	want_state(&b, BRK_OPEN);
}

/*
 * Every endpoint fails: each opens once all the others are out or failing
 * as long, so the chain is shown unreachable; one that says nothing (no
 * success, no run) keeps the others on the configured rules, and an
 * endpoint alone in its chain is never judged by this rule.
 */
static void
test_peers_fail(void **state)
{
	struct breaker_conf	c = dconf();
	struct breaker		e[3], o[2];
	uint64_t		t = AT(12, 3, 7);
	int			usable[2] = { 1, 0 };

	for (int k = 0; k < 3; k++) {
		breaker_init(&e[k], &c, T0);
		feed(&e[k], OUTCOME_OK, t - S);
		for (int i = 0; i < 3; i++)
			feed(&e[k], OUTCOME_TRANSPORT, t + i * S + k * 10);
	}
	/* e0 against e1, e2: both failing as long. */
	o[0] = e[1];
	o[1] = e[2];
	assert_int_equal(say(&e[0], o, 2, NULL), BRK_PEERS_FAIL);
	assert_int_equal(peers(&e[0], o, 2, t + 2100), 1);
	assert_string_equal(e[0].reason,
	    "3 transport errors in a row since 12:03:07 UTC while every "
	    "endpoint fails");
	/* e1 against e0 (open now) and e2 (failing). */
	o[0] = e[0];
	o[1] = e[2];
	assert_int_equal(peers(&e[1], o, 2, t + 2100), 1);
	o[0] = e[0];
	o[1] = e[1];
	assert_int_equal(peers(&e[2], o, 2, t + 2100), 1);
	for (int k = 0; k < 3; k++)
		want_state(&e[k], BRK_OPEN);

	/* A peer that says nothing: no verdict; one not usable is out. */
	breaker_init(&e[0], &c, T0);
	breaker_init(&o[0], &c, T0);
	breaker_init(&o[1], &c, T0);
	for (int i = 0; i < 3; i++)
		feed(&e[0], OUTCOME_TRANSPORT, t + i * S);
	assert_int_equal(say(&e[0], o, 2, NULL), BRK_PEERS_NONE);
	assert_int_equal(say(&e[0], o, 2, usable), BRK_PEERS_NONE);
	for (int i = 0; i < 3; i++)
		feed(&o[0], OUTCOME_TIMEOUT, t + i * S);
	assert_int_equal(say(&e[0], o, 2, NULL), BRK_PEERS_NONE);
	assert_int_equal(say(&e[0], o, 2, usable), BRK_PEERS_FAIL);
	/* A peer failing for less than the rule asks is not failing. */
	breaker_init(&o[0], &c, T0);
	feed(&o[0], OUTCOME_TIMEOUT, t + 2 * S);
	assert_int_equal(say(&e[0], o, 2, usable), BRK_PEERS_NONE);

	/* Alone in its chain: only the configured rules, 10 s. */
	breaker_init(&e[0], &c, T0);
	for (int i = 0; i < 5; i++)
		feed(&e[0], OUTCOME_TRANSPORT, t + i * S);
	assert_int_equal(peers(&e[0], o, 0, t + 5 * S), 0);
	want_state(&e[0], BRK_CLOSED);
	for (int i = 5; i < 10; i++)
		feed(&e[0], OUTCOME_TRANSPORT, t + i * S);
	want_state(&e[0], BRK_CLOSED);
	feed(&e[0], OUTCOME_TRANSPORT, t + 10 * S);
	want_state(&e[0], BRK_OPEN);
	assert_string_equal(e[0].reason,
	    "11 transport errors in a row since 12:03:07 UTC");
}

/*
 * A burst at one instant is one strike, and so is anything within g =
 * min_span / consecutive of the start of the strike.
 */
static void
test_burst_one_strike(void **state)
{
	struct breaker_conf	c = dconf();
	struct breaker		b;
	uint64_t		t = AT(12, 3, 7);

	/* 15 at once, fewer than min_samples: only the run rule is in play. */
	breaker_init(&b, &c, t);
	for (int i = 0; i < 15; i++)
		feed(&b, OUTCOME_TRANSPORT, t);
	assert_int_equal(b.run_strikes, 1);
	for (int i = 1; i < 4; i++)
		feed(&b, OUTCOME_TRANSPORT, t + i * 30 * S);
	assert_int_equal(b.run_strikes, 4);
	want_state(&b, BRK_CLOSED);
	feed(&b, OUTCOME_TRANSPORT, t + 120 * S);
	want_state(&b, BRK_OPEN);
	assert_string_equal(b.reason,
	    "19 transport errors in a row since 12:03:07 UTC");

	/* The granularity, 2 s by default, counted from the strike's start. */
	breaker_init(&b, &c, t);
	feed(&b, OUTCOME_TIMEOUT, t);
	feed(&b, OUTCOME_TIMEOUT, t + 1999);
	assert_int_equal(b.run_strikes, 1);
	feed(&b, OUTCOME_TIMEOUT, t + 2000);
	assert_int_equal(b.run_strikes, 2);
	/* A failure every second is a strike every 2 s, not one long one. */
	for (int i = 3; i <= 9; i++)
		feed(&b, OUTCOME_TIMEOUT, t + i * S);
	assert_int_equal(b.run_strikes, 5);
	want_state(&b, BRK_CLOSED);
	feed(&b, OUTCOME_TIMEOUT, t + 10 * S);
	want_state(&b, BRK_OPEN);
	assert_int_equal(b.run_fails, 0);	/* emptied by the change */

	/* Other settings: g = 3000 / 3 = 1000 ms. */
	c.consecutive = 3;
	c.min_span = 3 * S;
	breaker_init(&b, &c, t);
	feed(&b, OUTCOME_TIMEOUT, t);
	feed(&b, OUTCOME_TIMEOUT, t + 999);	/* merged */
	feed(&b, OUTCOME_TIMEOUT, t + 1000);
	feed(&b, OUTCOME_TIMEOUT, t + 2500);
	feed(&b, OUTCOME_TIMEOUT, t + 2999);	/* merged */
	assert_int_equal(b.run_fails, 5);
	assert_int_equal(b.run_strikes, 3);
	want_state(&b, BRK_CLOSED);		/* span 2999 < 3000 */
	feed(&b, OUTCOME_TIMEOUT, t + 3000);	/* merged, span 3000 */
	want_state(&b, BRK_OPEN);
}

/* Outcomes of requests sent before the last change of state are ignored. */
static void
test_stale_generation(void **state)
{
	struct breaker_conf	c = dconf();
	struct breaker		b;
	uint32_t		g1, g2, g3, g4;
	uint64_t		t = T0;

	breaker_init(&b, &c, t);
	g1 = b.gen;
	trip(&b, t);
	g2 = b.gen;
	assert_int_equal(g2, g1 + 1);
	/* 30 answers to requests sent while closed do not close it. */
	for (int i = 0; i < 30; i++)
		assert_int_equal(breaker_outcome(&b, g1, OUTCOME_OK, t + i),
		    -1);
	want_state(&b, BRK_OPEN);
	want_verdict(&b, t + 4999, BRK_DENY_OPEN);
	want_verdict(&b, t + 5000, BRK_TRIAL);
	g3 = b.gen;
	assert_int_equal(g3, g2 + 1);
	/* A failure of a request sent while open does not fail the trial. */
	assert_int_equal(breaker_outcome(&b, g2, OUTCOME_TIMEOUT, t + 5001),
	    -1);
	assert_int_equal(breaker_outcome(&b, g1, OUTCOME_TIMEOUT, t + 5001),
	    -1);
	/* Nor does one from the future, or of no known class. */
	assert_int_equal(breaker_outcome(&b, g3 + 1, OUTCOME_TIMEOUT,
	    t + 5001), -1);
	assert_int_equal(breaker_outcome(&b, g3, OUTCOME_COUNT, t + 5001), -1);
	want_state(&b, BRK_HALF_OPEN);
	assert_int_equal(breaker_outcome(&b, g3, OUTCOME_OK, t + 5002), 1);
	want_state(&b, BRK_CLOSED);
	g4 = b.gen;
	assert_int_equal(g4, g3 + 1);
	/* Old timeouts arriving now do not start a run... */
	for (int i = 1; i <= 5; i++) {
		breaker_outcome(&b, g1, OUTCOME_TIMEOUT, t + i * 30 * S);
		breaker_outcome(&b, g2, OUTCOME_TIMEOUT, t + i * 30 * S);
		breaker_outcome(&b, g3, OUTCOME_TIMEOUT, t + i * 30 * S);
	}
	want_state(&b, BRK_CLOSED);
	assert_int_equal(b.run_fails, 0);
	assert_int_equal(b.n_total, 0);
	/* ...current ones do. */
	for (int i = 1; i <= 5; i++)
		breaker_outcome(&b, g4, OUTCOME_TIMEOUT, t + i * 30 * S);
	want_state(&b, BRK_OPEN);
}

/* 5 s, 10 s, 20 s ... 5 min, 5 min; a success starts again at 5 s. */
static void
test_cooldown_doubling(void **state)
{
	static const uint64_t	want[] = { 5, 10, 20, 40, 80, 160, 300, 300,
	    300 };
	struct breaker_conf	c = dconf();
	struct breaker		b;
	uint64_t		t = T0;

	breaker_init(&b, &c, t);
	trip(&b, t);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint64_t until = b.since + want[i] * S;

		assert_int_equal(b.cooldown, want[i] * S);
		assert_int_equal(b.open_until, until);
		assert_int_equal(breaker_ready_at(&b, b.since), until);
		assert_int_equal(breaker_peek(&b, until - 1), BRK_DENY_OPEN);
		want_verdict(&b, until - 1, BRK_DENY_OPEN);
		want_state(&b, BRK_OPEN);
		want_verdict(&b, until, BRK_TRIAL);
		want_state(&b, BRK_HALF_OPEN);
		want_verdict(&b, until, BRK_DENY_OPEN);
		assert_int_equal(feed(&b, OUTCOME_TIMEOUT, until + 100), 1);
		want_state(&b, BRK_OPEN);
		t = until + 100;
	}
	assert_int_equal(b.cooldown, 300 * S);
	/* The trial succeeds: closed, and the next outage starts at 5 s. */
	want_verdict(&b, t + 300 * S, BRK_TRIAL);
	feed(&b, OUTCOME_OK, t + 300 * S + 50);
	want_state(&b, BRK_CLOSED);
	assert_int_equal(b.cooldown, 5 * S);
	assert_string_equal(b.reason, "");
	want_verdict(&b, t + 300 * S + 50, BRK_ALLOW);
	trip(&b, t + 400 * S);
	assert_int_equal(b.cooldown, 5 * S);
	assert_int_equal(b.open_until, t + 405 * S);

	/* A cap that is no power of two times the base, and a huge one. */
	c.cooldown = 3 * S;
	c.cooldown_max = 7 * S;
	breaker_init(&b, &c, T0);
	trip(&b, T0);
	assert_int_equal(b.cooldown, 3 * S);
	breaker_allow(&b, b.open_until);
	feed(&b, OUTCOME_TIMEOUT, b.since);
	assert_int_equal(b.cooldown, 6 * S);
	breaker_allow(&b, b.open_until);
	feed(&b, OUTCOME_TIMEOUT, b.since);
	assert_int_equal(b.cooldown, 7 * S);
	c.cooldown_max = UINT64_MAX;
	breaker_init(&b, &c, T0);
	trip(&b, T0);
	for (int i = 0; i < 70; i++) {
		breaker_allow(&b, b.open_until);
		feed(&b, OUTCOME_TIMEOUT, b.last_now);
		assert_true(b.cooldown >= 3 * S);
		assert_true(b.open_until >= b.since);
	}
	assert_int_equal(b.open_until, UINT64_MAX);
}

static void
test_trial(void **state)
{
	struct breaker_conf	c = dconf();
	struct breaker		b;
	uint64_t		t = AT(12, 3, 7), u;
	uint32_t		g;

	breaker_init(&b, &c, T0);
	trip(&b, t);
	u = t + 5 * S;
	/* One trial at a time, and the reason stays while half-open. */
	want_verdict(&b, u, BRK_TRIAL);
	assert_string_equal(b.reason, "100% timeouts over 60 s (20 of 20)");
	g = b.gen;
	for (int i = 0; i < 100; i++)
		want_verdict(&b, u + i * 100, BRK_DENY_OPEN);
	assert_int_equal(breaker_ready_at(&b, u), u + c.trial_timeout);
	/* A trial that never answers is lost after trial_timeout. */
	want_verdict(&b, u + c.trial_timeout - 1, BRK_DENY_OPEN);
	want_verdict(&b, u + c.trial_timeout, BRK_TRIAL);
	assert_int_equal(b.gen, g);
	want_verdict(&b, u + c.trial_timeout, BRK_DENY_OPEN);
	/* Its failure re-opens with twice the cooldown, and says so. */
	u += c.trial_timeout + 500;
	assert_int_equal(feed(&b, OUTCOME_MALFORMED, u), 1);
	want_state(&b, BRK_OPEN);
	assert_int_equal(b.cooldown, 10 * S);
	assert_string_equal(b.reason,
	    "malformed on trial at 12:03:42, down since 12:03:07 UTC");
	/* The next trial answers: closed. */
	want_verdict(&b, u + 10 * S, BRK_TRIAL);
	assert_int_equal(feed(&b, OUTCOME_OK, u + 10 * S + 20), 1);
	want_state(&b, BRK_CLOSED);
	want_verdict(&b, u + 10 * S + 20, BRK_ALLOW);

	/* Any answer is a good trial: absent, rpc_error, http_4xx. */
	for (enum outcome o = OUTCOME_ABSENT; o <= OUTCOME_HTTP_4XX; o++) {
		breaker_init(&b, &c, T0);
		trip(&b, T0);
		want_verdict(&b, T0 + 5 * S, BRK_TRIAL);
		assert_int_equal(feed(&b, o, T0 + 5 * S), 1);
		want_state(&b, BRK_CLOSED);
	}
	/* Every failure class is a failed trial. */
	for (enum outcome o = OUTCOME_HTTP_5XX; o < OUTCOME_COUNT; o++) {
		breaker_init(&b, &c, T0);
		trip(&b, T0);
		want_verdict(&b, T0 + 5 * S, BRK_TRIAL);
		assert_int_equal(feed(&b, o, T0 + 5 * S), 1);
		want_state(&b, BRK_OPEN);
		assert_int_equal(b.cooldown, 10 * S);
	}

	/* A rate-limited trial is handed back, after the slow-down. */
	breaker_init(&b, &c, T0);
	trip(&b, T0);
	want_verdict(&b, T0 + 5 * S, BRK_TRIAL);
	assert_int_equal(feed(&b, OUTCOME_RATE_LIMITED, T0 + 5 * S), 0);
	want_state(&b, BRK_HALF_OPEN);
	want_verdict(&b, T0 + 6 * S - 1, BRK_DENY_SLOW);
	assert_int_equal(breaker_ready_at(&b, T0 + 5 * S), T0 + 6 * S);
	want_verdict(&b, T0 + 6 * S, BRK_TRIAL);
	want_verdict(&b, T0 + 6 * S, BRK_DENY_OPEN);

	/* A request the router sent anyway while open: success closes... */
	breaker_init(&b, &c, T0);
	trip(&b, T0);
	g = b.gen;
	assert_int_equal(breaker_allow(&b, T0 + 1000), BRK_DENY_OPEN);
	assert_int_equal(breaker_outcome(&b, g, OUTCOME_TIMEOUT, T0 + 1200), 0);
	want_state(&b, BRK_OPEN);
	assert_int_equal(b.open_until, T0 + 5 * S);	/* not extended */
	assert_int_equal(b.gen, g);
	assert_int_equal(breaker_outcome(&b, g, OUTCOME_OK, T0 + 1300), 1);
	want_state(&b, BRK_CLOSED);
	assert_int_equal(b.cooldown, 5 * S);
	/* ...and while half-open it is as good as the trial. */
	breaker_init(&b, &c, T0);
	trip(&b, T0);
	want_verdict(&b, T0 + 5 * S, BRK_TRIAL);
	feed(&b, OUTCOME_ABSENT, T0 + 5 * S + 1);
	want_state(&b, BRK_CLOSED);
}

/* The endpoint answered: absent, rpc_error and http_4xx never open it. */
static void
test_answers_never_trip(void **state)
{
	static const enum outcome answers[] = { OUTCOME_ABSENT,
	    OUTCOME_RPC_ERROR, OUTCOME_HTTP_4XX };
	struct breaker_conf	c = dconf();
	struct breaker		b;

	for (size_t k = 0; k < 3; k++) {
		enum outcome	o = answers[k];

		assert_false(outcome_is_failure(o));
		breaker_init(&b, &c, T0);
		/* 100% of a busy endpoint for an hour. */
		assert_int_equal(busy(&b, T0, 3600, 10, 0, OUTCOME_OK, o), 0);
		assert_int_equal(b.n_fail, 0);
		/* A quiet one for a day. */
		for (uint64_t t = T0 + HOUR; t < T0 + 25 * HOUR; t += 30 * S)
			feed(&b, o, t);
		/* Thousands at one instant. */
		for (int i = 0; i < 5000; i++)
			feed(&b, o, T0 + 26 * HOUR);
		want_state(&b, BRK_CLOSED);
		assert_int_equal(b.gen, 1);
		/* Even at the lowest threshold. */
		c.failure_pct = 1;
		c.min_samples = 1;
		c.consecutive = 1;
		c.min_span = 0;
		breaker_init(&b, &c, T0);
		for (int i = 0; i < 1000; i++)
			feed(&b, o, T0 + i);
		want_state(&b, BRK_CLOSED);
		c = dconf();
	}

	/* They count as successes for the rate: 45% timeouts among 4xx... */
	breaker_init(&b, &c, T0);
	assert_int_equal(busy(&b, T0, 600, 20, 11, OUTCOME_HTTP_4XX,
	    OUTCOME_TIMEOUT), 0);
	/* ...whereas rate_limited does not count at all: it opens. */
	breaker_init(&b, &c, T0);
	assert_int_not_equal(busy(&b, T0, 600, 20, 11, OUTCOME_RATE_LIMITED,
	    OUTCOME_TIMEOUT), 0);
	assert_string_equal(b.reason, "100% timeouts over 60 s (20 of 20)");
}

/*
 * Retry-After: the slow-down lasts what the endpoint asked, never less
 * than the step and never more than cooldown_max.
 */
static void
test_retry_after(void **state)
{
	struct breaker_conf	c = dconf();
	struct breaker		b;

	(void)state;
	breaker_init(&b, &c, T0);
	feed(&b, OUTCOME_RATE_LIMITED, T0);
	breaker_retry_after(&b, 10 * S, T0);
	assert_int_equal(breaker_ready_at(&b, T0), T0 + 10 * S);
	/* A shorter one later never shortens it. */
	feed(&b, OUTCOME_RATE_LIMITED, T0 + S);
	breaker_retry_after(&b, 2 * S, T0 + S);
	assert_int_equal(breaker_ready_at(&b, T0 + S), T0 + 10 * S);
	want_verdict(&b, T0 + 10 * S - 1, BRK_DENY_SLOW);
	want_verdict(&b, T0 + 10 * S, BRK_ALLOW);
	/* One shorter than the step: the step holds. */
	breaker_init(&b, &c, T0);
	feed(&b, OUTCOME_RATE_LIMITED, T0);
	breaker_retry_after(&b, 10, T0);
	assert_int_equal(breaker_ready_at(&b, T0), T0 + S);
	/* Eleven days asked: cooldown_max given. */
	feed(&b, OUTCOME_RATE_LIMITED, T0 + 2 * S);
	breaker_retry_after(&b, 1000000000, T0 + 2 * S);
	assert_int_equal(breaker_ready_at(&b, T0 + 2 * S),
	    T0 + 2 * S + c.cooldown_max);
	want_state(&b, BRK_CLOSED);
}

/* rate_limited never opens, and slows down 1 s, 2 s, 4 s ... 5 min. */
static void
test_rate_limited_slows(void **state)
{
	static const uint64_t	want[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256,
	    300, 300 };
	struct breaker_conf	c = dconf();
	struct breaker		b;
	uint64_t		t = T0;

	breaker_init(&b, &c, t);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(feed(&b, OUTCOME_RATE_LIMITED, t), 0);
		assert_int_equal(b.slow_step, want[i] * S);
		assert_int_equal(breaker_ready_at(&b, t), t + want[i] * S);
		want_verdict(&b, t, BRK_DENY_SLOW);
		want_verdict(&b, t + want[i] * S - 1, BRK_DENY_SLOW);
		want_verdict(&b, t + want[i] * S, BRK_ALLOW);
		t += want[i] * S;
	}
	/* A success resets the step but does not cut the slow-down short. */
	feed(&b, OUTCOME_RATE_LIMITED, t);
	feed(&b, OUTCOME_OK, t + 10);
	assert_int_equal(b.slow_step, 0);
	want_verdict(&b, t + 10, BRK_DENY_SLOW);
	want_verdict(&b, t + 300 * S, BRK_ALLOW);
	t += 300 * S;
	feed(&b, OUTCOME_RATE_LIMITED, t);
	assert_int_equal(b.slow_step, 1 * S);
	/*
	 * During the slow-down, more of them (sent before it, or probes)
	 * keep the step and only keep the endpoint alone that long from
	 * then: a probe a second for 5 s is 1 s of slow-down after it.
	 */
	feed(&b, OUTCOME_RATE_LIMITED, t + 500);
	feed(&b, OUTCOME_RATE_LIMITED, t + 900);
	assert_int_equal(b.slow_step, 1 * S);
	assert_int_equal(b.slow_until, t + 1900);
	for (int i = 1; i <= 5; i++)
		feed(&b, OUTCOME_RATE_LIMITED, t + 900 + i * (S - 1));
	assert_int_equal(b.slow_step, 1 * S);
	assert_int_equal(b.slow_until, t + 900 + 5 * (S - 1) + S);
	/* Once it is over, the next one doubles. */
	t = b.slow_until;
	feed(&b, OUTCOME_RATE_LIMITED, t);
	assert_int_equal(b.slow_step, 2 * S);
	/* A shorter step never shortens a longer slow-down. */
	for (int i = 0; i < 3; i++) {
		t = b.slow_until;
		feed(&b, OUTCOME_RATE_LIMITED, t);
	}
	assert_int_equal(b.slow_step, 16 * S);
	assert_int_equal(b.slow_until, t + 16 * S);
	feed(&b, OUTCOME_HTTP_4XX, t);
	feed(&b, OUTCOME_RATE_LIMITED, t + S);
	assert_int_equal(b.slow_step, 1 * S);
	assert_int_equal(b.slow_until, t + 16 * S);
	/* A failure does not reset the step. */
	feed(&b, OUTCOME_TIMEOUT, t + 2 * S);
	assert_int_equal(b.slow_step, 1 * S);

	/* Ten thousand at one instant, and a day of them: never open. */
	breaker_init(&b, &c, T0);
	for (int i = 0; i < 10000; i++)
		feed(&b, OUTCOME_RATE_LIMITED, T0);
	assert_int_equal(b.slow_step, 1 * S);
	assert_int_equal(b.slow_until, T0 + 1 * S);
	for (t = T0; t < T0 + 24 * HOUR; t += 100)
		feed(&b, OUTCOME_RATE_LIMITED, t);
	want_state(&b, BRK_CLOSED);
	assert_int_equal(b.gen, 1);
	assert_int_equal(b.n_total, 0);
	assert_true(b.slow_until <= t + 300 * S);

	/* While open, the trial also waits for the slow-down. */
	breaker_init(&b, &c, T0);
	trip(&b, T0);
	feed(&b, OUTCOME_RATE_LIMITED, T0 + S);		/* until +2 s */
	feed(&b, OUTCOME_RATE_LIMITED, T0 + 2 * S);	/* until +4 s */
	feed(&b, OUTCOME_RATE_LIMITED, T0 + 4 * S);	/* until +8 s */
	want_state(&b, BRK_OPEN);
	want_verdict(&b, T0 + 5 * S, BRK_DENY_SLOW);
	want_state(&b, BRK_OPEN);
	assert_int_equal(breaker_ready_at(&b, T0), T0 + 8 * S);
	want_verdict(&b, T0 + 8 * S, BRK_TRIAL);

	/* The cap is cooldown_max. */
	c.cooldown_max = 6 * S;
	breaker_init(&b, &c, T0);
	t = T0;
	for (int i = 0; i < 5; i++) {
		feed(&b, OUTCOME_RATE_LIMITED, t);
		t = b.slow_until;
	}
	assert_int_equal(b.slow_step, 6 * S);
}

static void
test_restore(void **state)
{
	struct breaker_conf	c = dconf();
	struct breaker		b, orig;
	uint64_t		now = AT(12, 10, 0), since = now - 2 * S;
	char			 longr[300];
	enum brk_state		 st;

	/* Open: it stays open until since + cooldown, then tries. */
	assert_int_equal(breaker_restore(&b, &c, BRK_OPEN, since, 5 * S,
	    "5 timeouts in a row since 12:03:07 UTC", now), 0);
	want_state(&b, BRK_OPEN);
	assert_int_equal(b.since, since);
	assert_string_equal(b.reason, "5 timeouts in a row since 12:03:07 UTC");
	want_verdict(&b, now, BRK_DENY_OPEN);
	want_verdict(&b, since + 5 * S - 1, BRK_DENY_OPEN);
	want_verdict(&b, since + 5 * S, BRK_TRIAL);
	feed(&b, OUTCOME_TIMEOUT, since + 5 * S);
	assert_int_equal(b.cooldown, 10 * S);

	/* A long outage goes on doubling from where it was. */
	breaker_restore(&b, &c, BRK_OPEN, since, 160 * S, "x", now);
	want_verdict(&b, since + 160 * S, BRK_TRIAL);
	feed(&b, OUTCOME_TIMEOUT, since + 160 * S);
	assert_int_equal(b.cooldown, 300 * S);
	/* Its cooldown over while the daemon was down: a trial at once. */
	breaker_restore(&b, &c, BRK_OPEN, now - HOUR, 300 * S, "x", now);
	want_verdict(&b, now, BRK_TRIAL);
	/* A since in the future (the clock stepped back) is taken as now. */
	breaker_restore(&b, &c, BRK_OPEN, now + HOUR, 5 * S, "x", now);
	assert_int_equal(b.since, now);
	want_verdict(&b, now + 5 * S, BRK_TRIAL);
	/* A stored cooldown outside the configured range is clamped. */
	breaker_restore(&b, &c, BRK_OPEN, now, 0, "x", now);
	assert_int_equal(b.cooldown, 5 * S);
	breaker_restore(&b, &c, BRK_OPEN, now, 10 * HOUR, "x", now);
	assert_int_equal(b.cooldown, 300 * S);
	want_verdict(&b, now + 300 * S - 1, BRK_DENY_OPEN);

	/* Half-open: its trial died with the old process; a new one now. */
	breaker_restore(&b, &c, BRK_HALF_OPEN, since, 20 * S, "y", now);
	want_state(&b, BRK_HALF_OPEN);
	want_verdict(&b, now, BRK_TRIAL);
	want_verdict(&b, now, BRK_DENY_OPEN);
	feed(&b, OUTCOME_TIMEOUT, now + 1);
	assert_int_equal(b.cooldown, 40 * S);

	/* Closed. */
	breaker_restore(&b, &c, BRK_CLOSED, since, 80 * S, "ignored", now);
	want_state(&b, BRK_CLOSED);
	assert_int_equal(b.since, since);
	assert_int_equal(b.cooldown, 5 * S);
	assert_string_equal(b.reason, "");
	want_verdict(&b, now, BRK_ALLOW);

	/* An unknown state: refused, and a fresh closed breaker. */
	assert_int_equal(breaker_restore(&b, &c, (enum brk_state)7, since,
	    5 * S, "z", now), -1);
	want_state(&b, BRK_CLOSED);
	want_verdict(&b, now, BRK_ALLOW);

	/* Reasons: none given, and too long. */
	breaker_restore(&b, &c, BRK_OPEN, since, 5 * S, NULL, now);
	assert_string_equal(b.reason, "open before the restart");
	memset(longr, 'r', sizeof(longr) - 1);
	longr[sizeof(longr) - 1] = '\0';
	breaker_restore(&b, &c, BRK_OPEN, since, 5 * S, longr, now);
	assert_int_equal(strlen(b.reason), BRK_REASON_MAX - 1);

	/* Names round-trip, as the store keeps them. */
	for (unsigned i = 0; i < BRK_NSTATES; i++) {
		assert_int_equal(breaker_state_parse(
		    breaker_state_name((enum brk_state)i), &st), 0);
		assert_int_equal(st, i);
	}
	assert_string_equal(breaker_state_name(BRK_HALF_OPEN), "half-open");
	assert_int_equal(breaker_state_parse("ajar", &st), -1);
	assert_string_equal(breaker_state_name((enum brk_state)9), "?");

	/* Store what a live breaker shows, restore it: same answers. */
	breaker_init(&orig, &c, T0);
	trip(&orig, T0);
	breaker_allow(&orig, T0 + 5 * S);
	feed(&orig, OUTCOME_TIMEOUT, T0 + 5 * S);
	feed(&orig, OUTCOME_TIMEOUT, T0 + 5 * S);
	breaker_restore(&b, &c, orig.state, orig.since, orig.cooldown,
	    orig.reason, T0 + 6 * S);
	assert_string_equal(b.reason, orig.reason);
	for (uint64_t t = T0 + 6 * S; t < T0 + 20 * S; t += 100)
		assert_int_equal(breaker_peek(&b, t), breaker_peek(&orig, t));
	assert_int_equal(breaker_peek(&b, orig.open_until), BRK_TRIAL);
}

/* Every (state, event) pair through the transition function alone. */
static void
test_table(void **state)
{
	static const struct {
		enum brk_state	from;
		enum brk_event	ev;
		enum brk_state	to;
	} rows[] = {
		{ BRK_CLOSED, BE_SUCCESS, BRK_CLOSED },
		{ BRK_CLOSED, BE_FAILURE, BRK_CLOSED },
		{ BRK_CLOSED, BE_TRIP, BRK_OPEN },
		{ BRK_CLOSED, BE_COOLED, BRK_CLOSED },
		{ BRK_OPEN, BE_SUCCESS, BRK_CLOSED },
		{ BRK_OPEN, BE_FAILURE, BRK_OPEN },
		{ BRK_OPEN, BE_TRIP, BRK_OPEN },
		{ BRK_OPEN, BE_COOLED, BRK_HALF_OPEN },
		{ BRK_HALF_OPEN, BE_SUCCESS, BRK_CLOSED },
		{ BRK_HALF_OPEN, BE_FAILURE, BRK_OPEN },
		{ BRK_HALF_OPEN, BE_TRIP, BRK_OPEN },
		{ BRK_HALF_OPEN, BE_COOLED, BRK_HALF_OPEN },
	};
	struct breaker_conf	c = dconf();
	struct breaker		b;
	uint64_t		now = T0 + HOUR;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int	changed;

		breaker_restore(&b, &c, rows[i].from, T0, 20 * S, "r", now);
		b.trial_out = 1;
		b.n_total = b.n_fail = 3;
		changed = breaker_step(&b, rows[i].ev, now);
		if (b.state != rows[i].to) {
			print_error("%s + %s: %s, want %s\n",
			    breaker_state_name(rows[i].from),
			    breaker_event_name(rows[i].ev),
			    breaker_state_name(b.state),
			    breaker_state_name(rows[i].to));
			fail();
		}
		assert_int_equal(changed, rows[i].from != rows[i].to);
		if (!changed) {
			assert_int_equal(b.gen, 1);
			assert_int_equal(b.since, T0);
			assert_int_equal(b.n_total, 3);
			continue;
		}
		/* What every change does. */
		assert_int_equal(b.gen, 2);
		assert_int_equal(b.since, now);
		assert_int_equal(b.trial_out, 0);
		assert_int_equal(b.n_total, 0);
		switch (b.state) {
		case BRK_CLOSED:
			assert_int_equal(b.cooldown, 5 * S);
			assert_string_equal(b.reason, "");
			break;
		case BRK_OPEN:
			assert_int_equal(b.cooldown, rows[i].from ==
			    BRK_CLOSED ? 5 * S : 40 * S);
			assert_int_equal(b.open_until, now + b.cooldown);
			assert_true(b.reason[0] != '\0');
			break;
		case BRK_HALF_OPEN:
			assert_int_equal(b.cooldown, 20 * S);
			assert_string_equal(b.reason, "r");
			break;
		}
	}
	/* Names for logs. */
	assert_string_equal(breaker_event_name(BE_COOLED), "cooled");
	assert_string_equal(breaker_verdict_name(BRK_DENY_SLOW), "deny_slow");
	assert_string_equal(breaker_verdict_name((enum brk_verdict)9), "?");
}

/* The clock stepping back is read as standing still. */
static void
test_clock_back(void **state)
{
	struct breaker_conf	c = dconf();
	struct breaker		b;

	breaker_init(&b, &c, T0 + HOUR);
	trip(&b, T0 + HOUR);
	/* An hour back: still open, and no earlier than planned. */
	want_verdict(&b, T0, BRK_DENY_OPEN);
	assert_int_equal(breaker_ready_at(&b, T0), T0 + HOUR + 5 * S);
	want_verdict(&b, T0 + HOUR + 5 * S, BRK_TRIAL);
	feed(&b, OUTCOME_OK, T0);
	want_state(&b, BRK_CLOSED);
	assert_int_equal(b.since, T0 + HOUR + 5 * S);
	/* Samples at a stepped-back time land in the current slot. */
	for (int i = 0; i < 20; i++)
		feed(&b, OUTCOME_TIMEOUT, T0 + i);
	want_state(&b, BRK_OPEN);
	assert_int_equal(b.since, T0 + HOUR + 5 * S);
}

/*
 * A day of a flapping endpoint, driven like the router would, checking
 * invariants after every call.  Phases of random length: healthy, flaky
 * (25% failures), dead (timeouts or refusals), rate limited.  Requests are
 * answered after a random latency, so answers cross changes of state.
 */
enum phase { PH_HEALTHY, PH_FLAKY, PH_DEAD, PH_LIMITED };

struct sim {
	uint64_t	tick;		/* ms between router decisions */
	uint64_t	phase_min, phase_max;
	uint64_t	lat_max;	/* ms */
	unsigned	force_1_in;	/* sends while denied, 1 in n */
	uint64_t	detect;		/* a dead phase opens it within */
	uint64_t	recover;	/* a healthy phase closes it within */
	int		strict;		/* no trip but for a dead phase */
};

struct sim_result {
	unsigned	opens, closes, trials;
	unsigned	detected;	/* dead phases checked to open */
	unsigned	recovered;	/* healthy phases checked to close */
};

struct pending {
	uint64_t	due;
	uint32_t	gen;
	enum outcome	o;
};

static uint64_t	rng = 88172645463325252ULL;

static uint64_t
rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

static enum outcome
sim_answer(enum phase ph)
{
	switch (ph) {
	case PH_HEALTHY:
		return rnd(10) == 0 ? OUTCOME_HTTP_4XX : OUTCOME_OK;
	case PH_FLAKY:
		return rnd(4) == 0 ? OUTCOME_HTTP_5XX : OUTCOME_OK;
	case PH_DEAD:
		return rnd(2) ? OUTCOME_TIMEOUT : OUTCOME_TRANSPORT;
	case PH_LIMITED:
		return rnd(3) ? OUTCOME_RATE_LIMITED : OUTCOME_OK;
	}
	return OUTCOME_OK;
}

static void
check_call(const struct breaker *b, const struct breaker *prev, uint64_t now)
{
	const struct breaker_conf *c = &b->conf;

	assert_true((unsigned)b->state < BRK_NSTATES);
	assert_int_equal(b->reason[0] != '\0', b->state != BRK_CLOSED);
	if (b->state != prev->state) {
		assert_int_equal(b->gen, prev->gen + 1);
		assert_int_equal(b->since, now);
		assert_false(prev->state == BRK_CLOSED &&
		    b->state == BRK_HALF_OPEN);
		if (b->state == BRK_OPEN)
			assert_int_equal(b->cooldown,
			    prev->state == BRK_CLOSED ? c->cooldown :
			    prev->cooldown > c->cooldown_max / 2 ?
			    c->cooldown_max : 2 * prev->cooldown);
		if (b->state == BRK_CLOSED)
			assert_int_equal(b->cooldown, c->cooldown);
	} else {
		assert_int_equal(b->gen, prev->gen);
		assert_int_equal(b->since, prev->since);
	}
	assert_true(b->cooldown >= c->cooldown);
	assert_true(b->cooldown <= c->cooldown_max);
	if (b->state == BRK_OPEN)
		assert_int_equal(b->open_until, b->since + b->cooldown);
	assert_true(b->n_fail <= b->n_total);
	assert_true(b->slow_step <= c->cooldown_max);
	assert_true(b->slow_until <= now + c->cooldown_max);
	if (b->state != BRK_CLOSED)
		assert_int_equal(b->n_total, 0);
}

static void
simulate(const struct sim *sm, struct sim_result *r)
{
	/* Every phase follows every other; lengths are random. */
	static const enum phase	cycle[] = { PH_HEALTHY, PH_DEAD, PH_FLAKY,
	    PH_DEAD, PH_LIMITED, PH_HEALTHY, PH_DEAD, PH_HEALTHY, PH_LIMITED,
	    PH_DEAD, PH_FLAKY, PH_LIMITED };
	static struct pending	q[4096];
	size_t			ncycle = 1;
	struct breaker_conf	c = dconf();
	struct breaker		b, prev;
	size_t			nq = 0;
	uint64_t		t, end = T0 + 24 * HOUR;
	uint64_t		ph_start = T0, ph_end = T0, dead_open_by = 0;
	uint64_t		healthy_closed_by = 0, last_trial = 0;
	uint64_t		last_dead_end = 0;
	uint32_t		trial_gen = 0;
	enum phase		ph = PH_HEALTHY;
	int			handed_back = 0;

	breaker_init(&b, &c, T0);
	memset(r, 0, sizeof(*r));
	for (t = T0; t < end; t += sm->tick) {
		enum brk_verdict v, pv;

		if (t >= ph_end) {
			enum phase	was = ph;

			if (ph == PH_DEAD)
				last_dead_end = ph_end;
			ph = cycle[ncycle++ % nitems(cycle)];
			ph_start = t;
			ph_end = t + sm->phase_min +
			    rnd(sm->phase_max - sm->phase_min);
			dead_open_by = healthy_closed_by = 0;
			/* Unless slowed down by a rate-limited phase. */
			if (ph == PH_DEAD && b.state == BRK_CLOSED &&
			    was != PH_LIMITED && b.slow_until <= t &&
			    ph_end - ph_start > sm->detect)
				dead_open_by = t + sm->detect;
			if (ph == PH_HEALTHY && ph_end - ph_start > sm->recover)
				healthy_closed_by = t + sm->recover;
		}
		/* Answers due by now. */
		for (size_t i = 0; i < nq; ) {
			if (q[i].due > t) {
				i++;
				continue;
			}
			prev = b;
			if (q[i].o == OUTCOME_RATE_LIMITED &&
			    b.state == BRK_HALF_OPEN && q[i].gen == b.gen)
				handed_back = 1;
			breaker_outcome(&b, q[i].gen, q[i].o, t);
			check_call(&b, &prev, t);
			if (prev.state != BRK_OPEN && b.state == BRK_OPEN)
				r->opens++;
			if (sm->strict && prev.state == BRK_CLOSED &&
			    b.state == BRK_OPEN && ph != PH_DEAD)
				/* Tripped outside a dead phase: only on its
				 * leftovers, within a window of its end. */
				assert_true(t <= last_dead_end + c.window +
				    sm->lat_max + sm->tick);
			if (prev.state != BRK_CLOSED && b.state == BRK_CLOSED)
				r->closes++;
			q[i] = q[--nq];
		}

		/* The router's question. */
		pv = breaker_peek(&b, t);
		assert_int_equal(breaker_peek(&b,
		    breaker_ready_at(&b, t)) <= BRK_TRIAL, 1);
		prev = b;
		v = breaker_allow(&b, t);
		assert_int_equal(v, pv);
		check_call(&b, &prev, t);
		assert_false(v == BRK_ALLOW && b.state != BRK_CLOSED);
		assert_false(v == BRK_TRIAL && b.state != BRK_HALF_OPEN);
		if (v == BRK_TRIAL) {
			/* One at a time: a second only once the first is
			 * lost or handed back. */
			if (b.gen == trial_gen)
				assert_true(handed_back ||
				    t - last_trial >= c.trial_timeout);
			trial_gen = b.gen;
			last_trial = t;
			r->trials++;
			handed_back = 0;
		}
		if (v == BRK_ALLOW || v == BRK_TRIAL ||
		    rnd(sm->force_1_in) == 0) {
			enum outcome o = sim_answer(ph);

			assert_true(nq < sizeof(q) / sizeof(q[0]));
			q[nq].due = t + rnd(sm->lat_max + 1);
			/* Timeouts take their time. */
			if (o == OUTCOME_TIMEOUT)
				q[nq].due = t + sm->lat_max;
			q[nq].gen = b.gen;
			q[nq].o = o;
			nq++;
		}

		if (dead_open_by != 0 && t >= dead_open_by) {
			if (b.state == BRK_CLOSED) {
				print_error("dead since +%llu s, still closed "
				    "at +%llu s\n",
				    (unsigned long long)(ph_start - T0) / 1000,
				    (unsigned long long)(t - T0) / 1000);
				fail();
			}
			r->detected++;
			dead_open_by = 0;
		}
		if (healthy_closed_by != 0 && t >= healthy_closed_by) {
			if (b.state != BRK_CLOSED) {
				print_error("healthy since +%llu s, still %s "
				    "at +%llu s\n",
				    (unsigned long long)(ph_start - T0) / 1000,
				    breaker_state_name(b.state),
				    (unsigned long long)(t - T0) / 1000);
				fail();
			}
			r->recovered++;
			healthy_closed_by = 0;
		}
	}
}

static void
test_day_busy(void **state)
{
	/* 10 requests a second; phases of 20 s to 20 min. */
	const struct sim	sm = { 100, 20 * S, 20 * MIN, 2 * S, 50,
	    /* the run rule: 10 s of strikes, after the last late success */
	    10 * S + 2 * S + 500,
	    /* the longest cooldown from a late failure, and the trial */
	    300 * S + 2 * 2 * S + 1 * S, 1 };
	struct sim_result	r;

	simulate(&sm, &r);
	print_message("busy day: %u openings, %u closings, %u trials, "
	    "%u outages caught, %u recoveries\n", r.opens, r.closes, r.trials,
	    r.detected, r.recovered);
	/* The checks above did run, many times. */
	assert_true(r.detected >= 20);
	assert_true(r.recovered >= 15);
	assert_true(r.closes >= 20);
	/* Every opening is a trip from closed or a failed trial. */
	assert_true(r.opens <= r.closes + 1 + r.trials);
}

static void
test_day_quiet(void **state)
{
	/* One request every 30 s; phases of 5 min to 2 h. */
	const struct sim	sm = { 30 * S, 5 * MIN, 2 * HOUR, 10 * S, 20,
	    /* 5 strikes, the first within a tick, answered late */
	    5 * 30 * S + 10 * S,
	    300 * S + 2 * 10 * S + 2 * 30 * S + 5 * S,
	    /* 25% flaky phases may well fail 5 times in a row: a real trip */
	    0 };
	struct sim_result	r;

	simulate(&sm, &r);
	print_message("quiet day: %u openings, %u closings, %u trials, "
	    "%u outages caught, %u recoveries\n", r.opens, r.closes, r.trials,
	    r.detected, r.recovered);
	assert_true(r.detected >= 3);
	assert_true(r.recovered >= 3);
	assert_true(r.closes >= 3);
}

/* A rate of mixed failures names the class most of them were. */
static void
test_rate_reason_mixed(void **state)
{
	struct breaker_conf	c = dconf();
	struct breaker		b;

	(void)state;
	c.consecutive = 1000;	/* the run rule out of the way */
	breaker_init(&b, &c, T0);
	for (int i = 0; i < 20; i++)
		feed(&b, i < 3 ? OUTCOME_OK : i < 7 ? OUTCOME_TRANSPORT :
		    OUTCOME_TIMEOUT, T0 + i);
	want_state(&b, BRK_OPEN);
	assert_string_equal(b.reason, "85% failures over 60 s (17 of 20), "
	    "most timeouts (13)");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_rate_threshold),
		cmocka_unit_test(test_rate_reason_mixed),
		cmocka_unit_test(test_rate_window),
		cmocka_unit_test(test_partial_burst),
		cmocka_unit_test(test_probe_content),
		cmocka_unit_test(test_quiet_consecutive),
		cmocka_unit_test(test_burst_one_strike),
		cmocka_unit_test(test_peers_answer),
		cmocka_unit_test(test_peers_fail),
		cmocka_unit_test(test_stale_generation),
		cmocka_unit_test(test_cooldown_doubling),
		cmocka_unit_test(test_trial),
		cmocka_unit_test(test_answers_never_trip),
		cmocka_unit_test(test_rate_limited_slows),
		cmocka_unit_test(test_retry_after),
		cmocka_unit_test(test_restore),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_clock_back),
		cmocka_unit_test(test_day_busy),
		cmocka_unit_test(test_day_quiet),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
