/*
 * The per-endpoint circuit breaker: counting outcomes against the two rules,
 * and one transition function.  Pure: no clock, no I/O, no globals; the rules
 * and their granularity are documented in sup_breaker.h.
 *
 *   state      event          next       actions
 *   CLOSED     TRIP           OPEN       cooldown := conf.cooldown,
 *                                        down_since := now, reason := the rule
 *   OPEN       COOLED         HALF_OPEN  (breaker_allow grants the trial)
 *   OPEN       SUCCESS        CLOSED     (a request sent while open answered)
 *   HALF_OPEN  SUCCESS        CLOSED
 *   HALF_OPEN  FAILURE, TRIP  OPEN       cooldown := min(2 cooldown, max),
 *                                        reason := the trial's failure
 *   (Any other pair changes nothing: CLOSED SUCCESS and FAILURE are only
 *   counted, a failure while OPEN does not extend the cooldown, COOLED
 *   outside OPEN is void.)
 *   Every change: gen++, since := now, window and run emptied, trial handed
 *   back.  Into OPEN: open_until := now + cooldown.  Into CLOSED: cooldown :=
 *   conf.cooldown, reason := "".
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "sup_breaker.h"
#include "util.h"

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void
win_clear(struct breaker *b)
{
	memset(b->slot, 0, sizeof(b->slot));
	memset(b->n_cls, 0, sizeof(b->n_cls));
	b->n_total = b->n_fail = 0;
}

/* The failure class of an outcome, as an index of cls[]; -1: none. */
static int
class_index(enum outcome o)
{
	switch (o) {
	case OUTCOME_HTTP_5XX:
		return 0;
	case OUTCOME_TRANSPORT:
		return 1;
	case OUTCOME_TIMEOUT:
		return 2;
	case OUTCOME_MALFORMED:
		return 3;
	case OUTCOME_TOO_LARGE:
		return 4;
	default:
		return -1;
	}
}

static const enum outcome class_outcome[BRK_CLASSES] = { OUTCOME_HTTP_5XX,
    OUTCOME_TRANSPORT, OUTCOME_TIMEOUT, OUTCOME_MALFORMED,
    OUTCOME_TOO_LARGE };

/* Empty the slots that time has moved past, so the sums cover the window. */
static void
win_advance(struct breaker *b, uint64_t now)
{
	uint64_t	k = now / b->width;

	if (k <= b->cur)
		return;
	if (k - b->cur >= BRK_SLOTS)
		win_clear(b);
	else
		for (uint64_t i = b->cur + 1; i <= k; i++) {
			struct brk_slot *s = &b->slot[i % BRK_SLOTS];

			b->n_total -= s->total;
			b->n_fail -= s->fail;
			for (int j = 0; j < BRK_CLASSES; j++)
				b->n_cls[j] -= s->cls[j];
			memset(s, 0, sizeof(*s));
		}
	b->cur = k;
}

static void
win_add(struct breaker *b, uint64_t now, enum outcome o)
{
	struct brk_slot	*s;
	int		 k = class_index(o);

	win_advance(b, now);
	s = &b->slot[b->cur % BRK_SLOTS];
	if (s->total == UINT32_MAX)
		return;		/* 4G outcomes in one slot: enough said */
	s->total++;
	b->n_total++;
	if (outcome_is_failure(o)) {
		s->fail++;
		b->n_fail++;
		if (k >= 0 && s->cls[k] < UINT16_MAX) {
			s->cls[k]++;
			b->n_cls[k]++;
		}
	}
}

static int
rate_holds(const struct breaker *b)
{
	return b->n_total >= b->conf.min_samples &&
	    b->n_fail * 100 >= (uint64_t)b->conf.failure_pct * b->n_total;
}

static void
run_reset(struct breaker *b)
{
	b->run_fails = b->run_strikes = b->peer_strikes = 0;
	b->run_mixed = b->run_content = 0;
	b->peers = BRK_PEERS_NONE;
}

/*
 * Failures closer than g to the start of the current strike belong to it;
 * the peer rule's strikes likewise, with its own granularity.
 */
static void
run_add(struct breaker *b, enum outcome o, uint64_t now)
{
	uint64_t	g = b->conf.min_span / b->conf.consecutive;
	uint64_t	pg = BRK_PEER_STRIKE_MS;

	if (b->run_fails == 0) {
		b->run_start = b->strike_start = b->peer_start = now;
		b->run_strikes = b->peer_strikes = 1;
		b->run_class = o;
	} else {
		if (now - b->strike_start >= g) {
			b->run_strikes++;
			b->strike_start = now;
		}
		if (now - b->peer_start >= pg) {
			b->peer_strikes++;
			b->peer_start = now;
		}
		if (o != b->run_class)
			b->run_mixed = 1;
	}
	if (o == OUTCOME_MALFORMED || o == OUTCOME_TOO_LARGE)
		b->run_content = 1;
	b->run_last = now;
	if (b->run_fails < UINT_MAX)
		b->run_fails++;
}

/* The run is long enough for the peer rule, whatever the peers say. */
int
breaker_peer_run(const struct breaker *b)
{
	return b->state == BRK_CLOSED && b->run_fails > 0 &&
	    b->peer_strikes >= BRK_PEER_STRIKES &&
	    b->run_last - b->run_start >= BRK_PEER_SPAN_MS;
}

/*
 * Closed, but no success since its latest failure (a probe's included):
 * the routing passes it over for live reads while another is not
 * (sup_route.c).
 */
int
breaker_failing(const struct breaker *b)
{
	return b->state == BRK_CLOSED && b->run_fails > 0 &&
	    b->ok_at <= b->run_last;
}

static int
run_holds(const struct breaker *b, uint64_t now)
{
	return b->run_fails > 0 && b->run_strikes >= b->conf.consecutive &&
	    now - b->run_start >= b->conf.min_span;
}

/* UTC time of day: enough for a status line, and needs no time zone. */
static void
fmt_hms(char *buf, size_t len, uint64_t ms)
{
	unsigned	s = (unsigned)(ms / 1000 % 86400);

	snprintf(buf, len, "%02u:%02u:%02u", s / 3600, s / 60 % 60, s % 60);
}

static void
fmt_span(char *buf, size_t len, uint64_t ms)
{
	if (ms % 1000 == 0)
		snprintf(buf, len, "%llu s", (unsigned long long)(ms / 1000));
	else
		snprintf(buf, len, "%llu ms", (unsigned long long)ms);
}

static const char *
failure_words(enum outcome o, int plural)
{
	switch (o) {
	case OUTCOME_HTTP_5XX:
		return plural ? "HTTP 5xx answers" : "HTTP 5xx answer";
	case OUTCOME_TRANSPORT:
		return plural ? "transport errors" : "transport error";
	case OUTCOME_TIMEOUT:
		return plural ? "timeouts" : "timeout";
	case OUTCOME_MALFORMED:
		return plural ? "malformed answers" : "malformed answer";
	case OUTCOME_TOO_LARGE:
		return plural ? "oversized answers" : "oversized answer";
	default:
		return plural ? "failures" : "failure";
	}
}

/* Why a closed breaker opens: read off the counters before they are emptied. */
static void
reason_trip(struct breaker *b, uint64_t now)
{
	char	t[16], w[32];

	if (rate_holds(b)) {
		uint64_t	most = 0, classed = 0;
		int		top = 0;

		/* The class: alone, or the one most of the failures were. */
		for (int j = 0; j < BRK_CLASSES; j++) {
			classed += b->n_cls[j];
			if (b->n_cls[j] > most) {
				most = b->n_cls[j];
				top = j;
			}
		}
		fmt_span(w, sizeof(w), b->conf.window);
		if (most > 0 && most == classed && classed == b->n_fail)
			snprintf(b->reason, sizeof(b->reason),
			    "%llu%% %s over %s (%llu of %llu)",
			    (unsigned long long)(b->n_fail * 100 / b->n_total),
			    failure_words(class_outcome[top], 1), w,
			    (unsigned long long)b->n_fail,
			    (unsigned long long)b->n_total);
		else if (snprintf(b->reason, sizeof(b->reason),
			    "%llu%% failures over %s (%llu of %llu), most "
			    "%s (%llu)",
			    (unsigned long long)(b->n_fail * 100 / b->n_total), w,
			    (unsigned long long)b->n_fail,
			    (unsigned long long)b->n_total,
			    failure_words(class_outcome[top], 1),
			    (unsigned long long)most) >= (int)sizeof(b->reason))
			/* Cut, as any reason too long: its head says it. */
			b->reason[sizeof(b->reason) - 1] = '\0';
	} else if (run_holds(b, now) || b->peers != BRK_PEERS_NONE) {
		fmt_hms(t, sizeof(t), b->run_start);
		snprintf(b->reason, sizeof(b->reason),
		    "%u %s in a row since %s UTC%s", b->run_fails,
		    failure_words(b->run_mixed ? OUTCOME_OK : b->run_class,
		    b->run_fails != 1), t,
		    b->peers == BRK_PEERS_ANSWER ? " while others answer" :
		    b->peers == BRK_PEERS_FAIL ? " while every endpoint fails" :
		    "");
	} else
		snprintf(b->reason, sizeof(b->reason), "tripped");
}

static void
reason_trial(struct breaker *b, uint64_t now)
{
	char	t[16], d[16];

	fmt_hms(t, sizeof(t), now);
	fmt_hms(d, sizeof(d), b->down_since);
	snprintf(b->reason, sizeof(b->reason),
	    "%s on trial at %s, down since %s UTC",
	    outcome_is_failure(b->last_failure) ?
	    outcome_name(b->last_failure) : "failure", t, d);
}

int
breaker_step(struct breaker *b, enum brk_event ev, uint64_t now)
{
	enum brk_state	next = b->state;

	switch (b->state) {
	case BRK_CLOSED:
		if (ev == BE_TRIP) {
			next = BRK_OPEN;
			b->cooldown = b->conf.cooldown;
			b->down_since = now;
			reason_trip(b, now);
		}
		break;
	case BRK_OPEN:
		if (ev == BE_COOLED)
			next = BRK_HALF_OPEN;
		else if (ev == BE_SUCCESS)
			next = BRK_CLOSED;
		break;
	case BRK_HALF_OPEN:
		if (ev == BE_SUCCESS)
			next = BRK_CLOSED;
		else if (ev == BE_FAILURE || ev == BE_TRIP) {
			next = BRK_OPEN;
			b->cooldown = b->cooldown > b->conf.cooldown_max / 2 ?
			    b->conf.cooldown_max : 2 * b->cooldown;
			reason_trial(b, now);
		}
		break;
	}
	if (next == b->state)
		return 0;

	b->state = next;
	b->since = now;
	b->gen++;
	b->trial_out = 0;
	win_clear(b);
	run_reset(b);
	switch (next) {
	case BRK_OPEN:
		b->open_until = sat_add(now, b->cooldown);
		break;
	case BRK_CLOSED:
		b->cooldown = b->conf.cooldown;
		b->reason[0] = '\0';
		break;
	case BRK_HALF_OPEN:
		break;
	}
	return 1;
}

void
breaker_conf_default(struct breaker_conf *c)
{
	c->failure_pct = BRK_DEFAULT_FAILURE_PCT;
	c->window = BRK_DEFAULT_WINDOW_MS;
	c->min_samples = BRK_DEFAULT_MIN_SAMPLES;
	c->consecutive = BRK_DEFAULT_CONSECUTIVE;
	c->min_span = BRK_DEFAULT_MIN_SPAN_MS;
	c->cooldown = BRK_DEFAULT_COOLDOWN_MS;
	c->cooldown_max = BRK_DEFAULT_COOLDOWN_MAX_MS;
	c->trial_timeout = BRK_DEFAULT_TRIAL_TIMEOUT_MS;
}

void
breaker_init(struct breaker *b, const struct breaker_conf *conf, uint64_t now)
{
	struct breaker_conf *c = &b->conf, copy = *conf;

	memset(b, 0, sizeof(*b));
	*c = copy;		/* conf may be &b->conf: a reset */
	/* The config table checks ranges; this keeps the arithmetic sane. */
	if (c->failure_pct == 0)
		c->failure_pct = 1;
	if (c->failure_pct > 100)
		c->failure_pct = 100;
	if (c->window == 0)
		c->window = 1;
	if (c->min_samples == 0)
		c->min_samples = 1;
	if (c->consecutive == 0)
		c->consecutive = 1;
	if (c->cooldown == 0)
		c->cooldown = 1;
	if (c->cooldown_max < c->cooldown)
		c->cooldown_max = c->cooldown;
	if (c->trial_timeout == 0)
		c->trial_timeout = 1;

	b->state = BRK_CLOSED;
	b->since = b->down_since = b->last_now = now;
	b->cooldown = c->cooldown;
	b->gen = 1;
	b->last_failure = OUTCOME_OK;
	b->width = c->window / BRK_SLOTS + (c->window % BRK_SLOTS != 0);
	b->cur = now / b->width;
}

int
breaker_restore(struct breaker *b, const struct breaker_conf *conf,
    enum brk_state state, uint64_t since, uint64_t cooldown,
    const char *reason, uint64_t now)
{
	breaker_init(b, conf, now);
	if ((unsigned)state >= BRK_NSTATES)
		return -1;
	if (since > now)
		since = now;
	b->since = b->down_since = since;
	if (state == BRK_CLOSED)
		return 0;

	if (cooldown < b->conf.cooldown)
		cooldown = b->conf.cooldown;
	if (cooldown > b->conf.cooldown_max)
		cooldown = b->conf.cooldown_max;
	b->state = state;
	b->cooldown = cooldown;
	if (state == BRK_OPEN)
		b->open_until = sat_add(since, cooldown);
	snprintf(b->reason, sizeof(b->reason), "%s",
	    reason != NULL && reason[0] != '\0' ? reason :
	    "open before the restart");
	return 0;
}

enum brk_verdict
breaker_peek(const struct breaker *b, uint64_t now)
{
	if (now < b->last_now)
		now = b->last_now;
	switch (b->state) {
	case BRK_OPEN:
		if (now < b->open_until)
			return BRK_DENY_OPEN;
		break;
	case BRK_HALF_OPEN:
		if (b->trial_out && now - b->trial_at < b->conf.trial_timeout)
			return BRK_DENY_OPEN;
		break;
	case BRK_CLOSED:
		break;
	}
	if (now < b->slow_until)
		return BRK_DENY_SLOW;
	return b->state == BRK_CLOSED ? BRK_ALLOW : BRK_TRIAL;
}

enum brk_verdict
breaker_allow(struct breaker *b, uint64_t now)
{
	enum brk_verdict v;

	now = clock_forward(&b->last_now, now);
	v = breaker_peek(b, now);
	if (v == BRK_TRIAL) {
		if (b->state == BRK_OPEN)
			breaker_step(b, BE_COOLED, now);
		b->trial_out = 1;
		b->trial_at = now;
	}
	return v;
}

uint64_t
breaker_ready_at(const struct breaker *b, uint64_t now)
{
	uint64_t	t = now < b->last_now ? b->last_now : now;

	if (b->state == BRK_OPEN && t < b->open_until)
		t = b->open_until;
	if (b->state == BRK_HALF_OPEN && b->trial_out &&
	    t < sat_add(b->trial_at, b->conf.trial_timeout))
		t = sat_add(b->trial_at, b->conf.trial_timeout);
	if (t < b->slow_until)
		t = b->slow_until;
	return t;
}

/*
 * A 429 or -32999: back off 1 s, 2 s, 4 s ... up to cooldown_max, one
 * doubling per slow-down that did not cure it.  One that comes during
 * the slow-down (a request sent before it, the worker's own probe) says
 * nothing new: it only keeps the endpoint alone for the step from now.
 */
static void
slow_down(struct breaker *b, uint64_t now)
{
	uint64_t	step;

	if (b->slow_step != 0 && now < b->slow_until) {
		if (sat_add(now, b->slow_step) > b->slow_until)
			b->slow_until = sat_add(now, b->slow_step);
		return;
	}
	step = b->slow_step == 0 ? BRK_SLOW_MIN_MS :
		    b->slow_step > b->conf.cooldown_max / 2 ?
		    b->conf.cooldown_max : 2 * b->slow_step;

	if (step > b->conf.cooldown_max)
		step = b->conf.cooldown_max;
	b->slow_step = step;
	if (sat_add(now, step) > b->slow_until)
		b->slow_until = sat_add(now, step);
}

int
breaker_outcome(struct breaker *b, uint32_t gen, enum outcome o, uint64_t now)
{
	enum brk_event	ev;

	if (gen != b->gen || (unsigned)o >= OUTCOME_COUNT)
		return -1;
	now = clock_forward(&b->last_now, now);

	if (o == OUTCOME_RATE_LIMITED) {
		slow_down(b, now);
		if (b->state == BRK_HALF_OPEN)
			b->trial_out = 0;	/* no verdict: try again */
		return 0;
	}
	if (!outcome_is_failure(o)) {
		b->slow_step = 0;
		b->ok_at = now;
		if (b->state == BRK_CLOSED) {
			win_add(b, now, o);
			run_reset(b);
		}
		ev = BE_SUCCESS;
	} else {
		b->last_failure = o;
		ev = BE_FAILURE;
		if (b->state == BRK_CLOSED) {
			win_add(b, now, o);
			run_add(b, o, now);
			if (rate_holds(b) || run_holds(b, now))
				ev = BE_TRIP;
		}
	}
	return breaker_step(b, ev, now);
}

int
breaker_probe(struct breaker *b, uint32_t gen, enum outcome o, uint64_t now)
{
	if (gen == b->gen && b->state == BRK_CLOSED && b->run_content &&
	    (unsigned)o < OUTCOME_COUNT && !outcome_is_failure(o) &&
	    o != OUTCOME_RATE_LIMITED) {
		b->ok_at = clock_forward(&b->last_now, now);
		return 0;
	}
	return breaker_outcome(b, gen, o, now);
}

void
breaker_retry_after(struct breaker *b, uint64_t ms, uint64_t now)
{
	now = clock_forward(&b->last_now, now);
	if (ms > b->conf.cooldown_max)
		ms = b->conf.cooldown_max;
	if (sat_add(now, ms) > b->slow_until)
		b->slow_until = sat_add(now, ms);
}

/* One endpoint as the others of its chain see it, for the peer rule. */
void
breaker_peer(const struct breaker *b, int usable, struct brk_peer *p)
{
	p->ok_at = b->ok_at;
	p->out = !usable || b->state != BRK_CLOSED;
	p->failing = breaker_peer_run(b);
}

/* What the others say of b's run, if it is long enough to ask them. */
enum brk_peers
breaker_peers_say(const struct breaker *b, const struct brk_peer *peers,
    size_t n)
{
	size_t	failing = 0;

	if (n == 0 || !breaker_peer_run(b))
		return BRK_PEERS_NONE;
	for (size_t i = 0; i < n; i++) {
		if (peers[i].ok_at > b->run_start)
			return BRK_PEERS_ANSWER;
		if (peers[i].out || peers[i].failing)
			failing++;
	}
	return failing == n ? BRK_PEERS_FAIL : BRK_PEERS_NONE;
}

int
breaker_peers(struct breaker *b, const struct brk_peer *peers, size_t n,
    uint64_t now)
{
	enum brk_peers	say = breaker_peers_say(b, peers, n);

	if (say == BRK_PEERS_NONE)
		return 0;
	now = clock_forward(&b->last_now, now);
	b->peers = say;
	return breaker_step(b, BE_TRIP, now);
}

const char *
breaker_state_name(enum brk_state s)
{
	static const char *const names[] = { "closed", "open", "half-open" };

	return (unsigned)s < BRK_NSTATES ? names[s] : "?";
}

int
breaker_state_parse(const char *s, enum brk_state *out)
{
	for (unsigned i = 0; i < BRK_NSTATES; i++)
		if (strcmp(s, breaker_state_name((enum brk_state)i)) == 0) {
			*out = (enum brk_state)i;
			return 0;
		}
	return -1;
}

const char *
breaker_verdict_name(enum brk_verdict v)
{
	static const char *const names[] = { "allow", "trial", "deny_open",
	    "deny_slow" };

	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

const char *
breaker_event_name(enum brk_event e)
{
	static const char *const names[] = { "success", "failure", "trip",
	    "cooled" };

	return (unsigned)e < sizeof(names) / sizeof(names[0]) ? names[e] : "?";
}
