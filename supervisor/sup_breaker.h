/*
 * The circuit breaker of one endpoint (DESIGN.md, "Endpoint health"): a pure
 * state machine over a plain struct, the clock passed in, no I/O.
 *
 * The clock.  Every `now` is milliseconds of one clock that survives a
 * restart, so that a stored `since` still means something: the wall clock
 * (now_wall_ms()).  A clock that steps back is read as standing still: each
 * breaker never sees time run backwards.  Times in reasons are UTC.
 *
 * Counting.  Only http_5xx, transport, timeout, malformed and too_large are
 * failures (outcome_is_failure()).  ok, absent, rpc_error and http_4xx are
 * successes: the endpoint answered.  rate_limited is neither; it never opens
 * the breaker, it slows the endpoint down (see below).  An outcome counts only
 * if it carries the breaker's current generation, which the caller read from
 * b->gen when it sent the request: gen grows by one at every change of state,
 * so outcomes of requests sent before the last change are ignored.
 *
 * A closed breaker opens on the first failure after which either rule holds:
 *
 * Rate rule (busy endpoints): over the window, at least min_samples counted
 * outcomes and failures * 100 >= failure_pct * outcomes.  The window is kept
 * as BRK_SLOTS counters of width = ceil(window / BRK_SLOTS) ms each (938 ms
 * for 60 s); it is the current slot and the BRK_SLOTS - 1 before it, so it
 * holds between (BRK_SLOTS - 1) * width and BRK_SLOTS * width of history
 * (59.1 to 60.0 s for 60 s) whatever the request rate.  Memory is bounded by
 * the slot count, not by traffic: past any number of outcomes per second
 * nothing is dropped, only summed.  Strikes (below) play no part here: 20
 * failures at one instant with nothing else in the window are 100% of 20.
 *
 * Run rule (quiet endpoints): consecutive strikes in a row spanning at least
 * min_span.  A run is a sequence of failures with no success between them.
 * Strikes have a granularity g = min_span / consecutive (integer ms; 2 s by
 * default): the run's first failure starts a strike, and a failure that comes
 * at least g after the start of the current strike starts the next one;
 * closer failures belong to the current strike.  So a burst at one instant is
 * one strike, and so is any burst shorter than g.  The span is the time from
 * the run's first failure to its latest.  The rule holds when strikes >=
 * consecutive and span >= min_span.  min_span 0 makes every failure a strike:
 * the classic consecutive-failure breaker.  A success ends the run;
 * rate_limited does not (it says nothing about the endpoint's health).
 *
 * Peer rule (endpoints of a chain compared), judged by breaker_peers()
 * whenever the caller likes (the supervisor: every tick), so that a
 * failing endpoint is shown within seconds on default settings rather
 * than after min_span: a run of BRK_PEER_STRIKES strikes of
 * BRK_PEER_STRIKE_MS (3 of 500 ms) spanning at least BRK_PEER_SPAN_MS
 * (2 s) opens the breaker when the other endpoints of
 * the chain make the verdict plain:
 *   - another endpoint had a success after the run began: the chain
 *     answers, this endpoint does not ("while others answer"); or
 *   - every other endpoint is out (its breaker not closed, or not usable)
 *     or in such a run itself: nothing answers, and the chain is shown
 *     unreachable rather than ok ("while every endpoint fails").
 * Otherwise (an endpoint alone in its chain, or another one with neither
 * a success nor a failing run since: no evidence) only the two rules
 * above decide.  A single failure, or a burst shorter than 2 s, opens
 * nothing.  The peer rule counts its strikes apart from the run rule's,
 * with its own granularity; a success ends both.
 *
 * Reasons, in b->reason: "62% failures over 60 s (31 of 50)" (the rate rule,
 * named first when both hold), "5 timeouts in a row since 12:03:07 UTC" (the
 * run rule; the time of its first failure; "failures" when classes mixed),
 * "3 transport errors in a row since 12:03:07 UTC while others answer"
 * (the peer rule), "timeout on trial at 12:10:00, down since 12:03:07 UTC"
 * (a failed trial).
 * Empty when closed; half-open keeps the reason it was opened with.
 *
 * Open, then half-open.  An open breaker refuses (BRK_DENY_OPEN) until
 * since + cooldown.  Then breaker_allow() turns it half-open and answers
 * BRK_TRIAL once: the caller sends one real request as the trial.  Until the
 * trial's outcome, or until trial_timeout has passed without one (the trial was
 * lost with its worker), every other breaker_allow() is BRK_DENY_OPEN.  A
 * success closes; a failure re-opens with the cooldown doubled, up to
 * cooldown_max; rate_limited hands the trial back.  Any outcome of the
 * half-open generation decides, the trial's or another request's.  Closing
 * resets the cooldown to conf.cooldown.  A success of a request sent while
 * open (the router sends to open endpoints with a short timeout when every
 * endpoint of a chain is open) closes at once, as a trial would; a failure of
 * one changes nothing, and does not extend the cooldown.
 *
 * Slowing down.  Every rate_limited answer moves slow_until to now + a step
 * (never earlier than it was) that starts at BRK_SLOW_MIN_MS and doubles up to
 * cooldown_max, in any state; it doubles only for an answer that comes once
 * the slow-down is over (the endpoint still limits after it was left alone).
 * One that comes during it, from a request sent before it or the worker's
 * own probe, keeps the step: a worker probing every second must not turn a
 * 5 s rate limit into 32 s without work.  An answer that says how long
 * (Retry-After) makes the slow-down at least that, within cooldown_max
 * (breaker_retry_after).
 * Until then breaker_allow() answers BRK_DENY_SLOW where it would have said
 * BRK_ALLOW or BRK_TRIAL.  A success resets the step (the next rate_limited
 * starts at 1 s again) but does not cut short the current slow-down: answers
 * still arriving were sent before it.
 */
#ifndef CW_SUP_BREAKER_H
#define CW_SUP_BREAKER_H

#include <stddef.h>
#include <stdint.h>

#include "outcome.h"

/*
 * Defaults, and why.  A busy endpoint sees several requests a second: 20
 * outcomes in a minute is too few to call a rate, and more than half of them
 * failing is an endpoint that costs more than it serves.  A quiet endpoint
 * (one request every 30 s) can never reach 20 samples, so five failures in a
 * row spanning 10 s open it; the span and the 2 s strikes keep one broken
 * connection that fails every request in flight from counting five times.
 * The first cooldown is short because most outages are blips; doubling to
 * 5 minutes keeps a dead host at one trial per 5 minutes.  A trial silent
 * for 30 s, three default request_timeouts, is taken as lost.
 */
#define BRK_DEFAULT_FAILURE_PCT		50
#define BRK_DEFAULT_WINDOW_MS		60000
#define BRK_DEFAULT_MIN_SAMPLES		20
#define BRK_DEFAULT_CONSECUTIVE		5
#define BRK_DEFAULT_MIN_SPAN_MS		10000
#define BRK_DEFAULT_COOLDOWN_MS		5000
#define BRK_DEFAULT_COOLDOWN_MAX_MS	300000
#define BRK_DEFAULT_TRIAL_TIMEOUT_MS	30000

/*
 * The peer rule: failures at three moments at least half a second apart,
 * over 2 s, are no blip, and well within the 5 s people should wait to see
 * an endpoint fail.  Strikes shorter than a probe interval (1 s at least
 * for a chain of 1 s blocks) so that probes a second apart, give or take a
 * millisecond, are strikes of their own.
 */
#define BRK_PEER_STRIKES	3
#define BRK_PEER_STRIKE_MS	500
#define BRK_PEER_SPAN_MS	2000

#define BRK_SLOW_MIN_MS		1000	/* first slow-down after a 429 */
#define BRK_SLOTS		64	/* counters in the rate window */
#define BRK_REASON_MAX		96	/* with its NUL */

enum brk_state {
	BRK_CLOSED,
	BRK_OPEN,
	BRK_HALF_OPEN,
};
#define BRK_NSTATES	3

/* What breaker_allow() tells the router. */
enum brk_verdict {
	BRK_ALLOW,	/* send */
	BRK_TRIAL,	/* send one real request: it is the trial */
	BRK_DENY_OPEN,	/* open, or its trial is out; see breaker_ready_at() */
	BRK_DENY_SLOW,	/* rate limited until slow_until */
};

/* The events of the transition function (see the table in sup_breaker.c). */
enum brk_event {
	BE_SUCCESS,	/* a counted success */
	BE_FAILURE,	/* a counted failure that meets no rule */
	BE_TRIP,	/* a counted failure after which a rule holds */
	BE_COOLED,	/* the cooldown is over and a trial is granted */
};

/*
 * Filled from the chain's breaker_* keys.  breaker_init() clamps nonsense
 * (0 samples, cooldown_max below cooldown ...) to the nearest sane value.
 */
struct breaker_conf {
	unsigned	failure_pct;	/* 1..100 */
	uint64_t	window;		/* ms */
	unsigned	min_samples;
	unsigned	consecutive;
	uint64_t	min_span;	/* ms */
	uint64_t	cooldown;	/* ms, the first */
	uint64_t	cooldown_max;	/* ms */
	uint64_t	trial_timeout;	/* ms, from request_timeout */
};

/*
 * What the other endpoints of its chain tell of one endpoint's run
 * (breaker_peers(); the peer rule).
 */
enum brk_peers {
	BRK_PEERS_NONE,		/* no evidence: the configured rules decide */
	BRK_PEERS_ANSWER,	/* another endpoint answered during the run */
	BRK_PEERS_FAIL,		/* every other endpoint is out or failing */
};

/* One other endpoint of the chain, as breaker_peer() sees it. */
struct brk_peer {
	uint64_t	ok_at;		/* its latest success; 0: none */
	int		out;		/* not closed, or not usable */
	int		failing;	/* closed, in a run the peer rule
					 * would count */
};

/* The failure classes, counted apart so that a reason can name them. */
#define BRK_CLASSES		5	/* 5xx, transport, timeout, malformed, large */

struct brk_slot {
	uint32_t	total;
	uint32_t	fail;
	uint16_t	cls[BRK_CLASSES];	/* failures by class, saturating */
};

struct breaker {
	struct breaker_conf conf;

	/* What is stored and shown. */
	enum brk_state	state;
	uint64_t	since;		/* last change of state */
	uint64_t	cooldown;	/* of the current or the next opening */
	char		reason[BRK_REASON_MAX];	/* "" when closed */
	uint32_t	gen;		/* grows at every change of state */

	uint64_t	down_since;	/* when this outage first opened */
	enum outcome	last_failure;	/* the latest counted one */
	uint64_t	open_until;	/* OPEN: no trial before */
	int		trial_out;	/* HALF_OPEN: a trial is in flight */
	uint64_t	trial_at;

	uint64_t	slow_step;	/* ms; 0 after a success */
	uint64_t	slow_until;

	/* The run rule. */
	unsigned	run_fails;	/* in the run, bursts included */
	unsigned	run_strikes;
	uint64_t	run_start;	/* its first failure */
	uint64_t	strike_start;	/* the start of its latest strike */
	uint64_t	run_last;	/* its latest failure */
	unsigned	peer_strikes;	/* strikes of the peer rule */
	uint64_t	peer_start;	/* the start of its latest one */
	enum brk_peers	peers;		/* the peer rule trips: why */
	uint64_t	ok_at;		/* the latest counted success */
	enum outcome	run_class;
	int		run_mixed;	/* more than one failure class */
	int		run_content;	/* a malformed or oversized answer
					 * in it: a probe does not end it */

	/* The rate rule: slot k % BRK_SLOTS counts [k * width, +width). */
	uint64_t	width;		/* ms */
	uint64_t	cur;		/* k of the latest time seen */
	uint64_t	n_total;	/* sums over the window */
	uint64_t	n_fail;
	uint64_t	n_cls[BRK_CLASSES];
	struct brk_slot	slot[BRK_SLOTS];

	uint64_t	last_now;	/* the clock never runs back */
};

void	breaker_conf_default(struct breaker_conf *);
void	breaker_init(struct breaker *, const struct breaker_conf *,
	    uint64_t now);

/*
 * Put a breaker back into a stored state.  since is when it entered it
 * (taken as now if later), cooldown the stored b->cooldown (clamped to the
 * configured range), reason the stored text (NULL for none).  An open breaker
 * stays open until since + cooldown; a half-open one had its trial lost with
 * the old process and grants a new one at once.  The window and the run start
 * empty.  Returns -1, leaving a fresh closed breaker, for an unknown state.
 */
int	breaker_restore(struct breaker *, const struct breaker_conf *,
	    enum brk_state state, uint64_t since, uint64_t cooldown,
	    const char *reason, uint64_t now);

/*
 * May a request go to this endpoint now?  BRK_TRIAL is answered once per
 * trial, and may turn an open breaker half-open: read b->gen after the call
 * and send it with the request.
 */
enum brk_verdict breaker_allow(struct breaker *, uint64_t now);
/* The same answer without taking a trial or changing anything. */
enum brk_verdict breaker_peek(const struct breaker *, uint64_t now);
int		 breaker_failing(const struct breaker *);
/*
 * The outcome of a probe (a question the endpoint's worker asks on its
 * own).  As breaker_outcome(), except that a success proves the endpoint
 * reachable, not its answers right: it does not end a run that holds a
 * malformed or oversized answer, nor count in the window then; it only
 * lets breaker_failing() say no until the next failure.
 */
int		 breaker_probe(struct breaker *, uint32_t gen, enum outcome,
		    uint64_t now);
/*
 * The earliest time breaker_allow() may answer BRK_ALLOW or BRK_TRIAL (now if
 * it would now), so that a router can tell which open endpoint comes back
 * first.
 */
uint64_t breaker_ready_at(const struct breaker *, uint64_t now);

/*
 * The outcome of a request sent with generation gen.  Returns -1 if it was
 * ignored (an older or unknown generation, an unknown class), 1 if the breaker
 * changed state, 0 otherwise.
 */
int	breaker_outcome(struct breaker *, uint32_t gen, enum outcome,
	    uint64_t now);
/*
 * A rate_limited answer said when to come back (Retry-After, ms): the
 * slow-down lasts at least that long, and at most cooldown_max from now,
 * whatever the answer says.
 */
void	breaker_retry_after(struct breaker *, uint64_t ms, uint64_t now);

/*
 * The peer rule: what peers (the n other endpoints of the chain) say of
 * b's run, and whether it opens b now.  Returns 1 if b changed state.
 * breaker_peer() describes one endpoint for the others' judgement.
 */
int	breaker_peers(struct breaker *, const struct brk_peer *peers,
	    size_t n, uint64_t now);
/* Is b in a run the peer rule judges?  If not, the peers say nothing. */
int	breaker_peer_run(const struct breaker *);
enum brk_peers breaker_peers_say(const struct breaker *,
	    const struct brk_peer *peers, size_t n);
void	breaker_peer(const struct breaker *, int usable, struct brk_peer *);

/* The transition function; returns 1 if the state changed. */
int	breaker_step(struct breaker *, enum brk_event, uint64_t now);

const char *breaker_state_name(enum brk_state);
int	breaker_state_parse(const char *, enum brk_state *);
const char *breaker_verdict_name(enum brk_verdict);
const char *breaker_event_name(enum brk_event);

#endif
