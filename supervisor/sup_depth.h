/*
 * How many requests one endpoint may have out at once (sup_depth.c): a
 * window that adapts to the endpoint's measured latency and answers, up
 * to the chain's max_inflight.  A pure controller over a plain struct,
 * the clock passed in, no I/O; sup_reply.c feeds it every answer and
 * asks it for the window.
 *
 * Latency.  Requests come in classes of different cost (a header range
 * takes two round trips in the worker, a state read one): each class
 * keeps its own floor, the least latency of its ok answers over the last
 * DEPTH_FLOOR_MS to 2 * DEPTH_FLOOR_MS (two buckets, so a floor measured
 * on a route that has since changed is forgotten; each new bucket starts
 * with a probe, half the window for two smoothed round trips, so that
 * the endpoint's queue drains and the floor is measured again rather
 * than creeping up with that queue), and its own smoothed
 * latency (EWMA, 1/4 weight for each new answer).  An answer is good when
 * its class's smoothed latency is at most floor * 3/2 + DEPTH_SLACK_MS,
 * congested when it is above floor * 2 + DEPTH_SLACK_MS (the endpoint
 * queues what it is sent: more would only wait longer), and neither in
 * between.  Before DEPTH_MIN_SAMPLES answers of a class, its answers are
 * good or bad, never congested.
 *
 * Growth.  Only while the window is in use (at least half of it out when
 * the answer came: an idle endpoint learns nothing about more load).
 * Slow start first: +1 per good answer, doubling the window every round
 * trip, until the first cut; then +1 per window of good answers
 * (additive increase, +1 per round trip).
 *
 * Cuts.  Congested while at least half the window is out (a latency
 * that rose while the window was not in use is not the window's doing):
 * the window times max(1/2, floor * 3/2 / latency).
 * http_5xx, transport, timeout: halved.  rate_limited: halved and held
 * (no growth) until Retry-After when the worker reports one (at most
 * DEPTH_HOLD_MAX_MS: a number in an answer bounds nothing longer), else
 * for DEPTH_HOLD_MS.  At most one cut per smoothed round trip of the class
 * (DEPTH_HOLD_MS before one is known), since a window's worth of answers
 * sent before the cut all tell the same story.  Other outcomes (absent,
 * rpc_error, http_4xx, malformed, too_large) say nothing about load.
 *
 * The daemon's own backlog.  An answer's wait is its time outside the
 * endpoint: in the worker's queues, the socket and the supervisor's loop
 * before it is stored (its latency as the supervisor times it, less the
 * endpoint's as the worker does).  A backfill faster than the store takes
 * it only lengthens that queue, and a live answer waits behind it; so
 * while the smoothed wait (EWMA, 1/4 weight, of every ok answer) is above
 * DEPTH_WAIT_MS the window does not grow and, with at least half of it
 * out, is cut at most once per round trip: one less (additive decrease,
 * as TCP Vegas), or to 3/4 while the wait is above DEPTH_BEHIND_MS.  The
 * windows of all the endpoints settle where the store keeps up, with a
 * short queue.
 *
 * Bounds.  Never below 1, never above the cap.  A clock that steps back
 * stands still.
 */
#ifndef CW_SUP_DEPTH_H
#define CW_SUP_DEPTH_H

#include <stdint.h>

#include "outcome.h"

#define DEPTH_CLASSES		4	/* one per item kind */
#define DEPTH_INITIAL		4	/* the window a new endpoint starts with */
#define DEPTH_DEFAULT_CAP	64	/* max_inflight's default */
#define DEPTH_FLOOR_MS		30000	/* a floor is kept 30 to 60 s */
#define DEPTH_SLACK_MS		5	/* jitter that is not congestion */
#define DEPTH_MIN_SAMPLES	4	/* before a class can be congested */
#define DEPTH_HOLD_MS		1000	/* after a 429 without Retry-After */
#define DEPTH_HOLD_MAX_MS	60000	/* the longest Retry-After held */
#define DEPTH_WAIT_MS		40	/* the daemon's wait: no growth above */
#define DEPTH_BEHIND_MS		160	/* the daemon's wait: a cut above */

struct depth_class {
	uint64_t	 floor[2];	/* ms; UINT64_MAX: none yet */
	uint64_t	 bucket;	/* now / DEPTH_FLOOR_MS of floor[0] */
	uint64_t	 ewma_x4;	/* smoothed latency, ms * 4 */
	unsigned	 samples;
};

struct depth {
	unsigned		 cap;
	double			 window;	/* 1 .. cap */
	int			 slow_start;
	uint64_t		 hold_until;	/* no growth before */
	uint64_t		 probe_until;	/* half the window before */
	uint64_t		 cut_at;	/* the latest cut */
	uint64_t		 last_now;
	uint64_t		 cuts;		/* for monitoring */
	uint64_t		 wait_x4;	/* smoothed daemon wait, ms * 4 */
	struct depth_class	 cls[DEPTH_CLASSES];
};

void		 depth_init(struct depth *, unsigned cap, uint64_t now);
void		 depth_set_cap(struct depth *, unsigned cap);
/*
 * An answer of class cls that took latency_ms at the endpoint and waited
 * wait_ms in the daemon, sent while inflight requests (itself included)
 * were out; retry_after_ms is the wait a rate-limited answer asked for, 0
 * if it said none.
 */
void		 depth_answer(struct depth *, unsigned cls, enum outcome,
		    uint64_t latency_ms, uint64_t wait_ms, unsigned inflight,
		    uint64_t retry_after_ms, uint64_t now);
/* The window now: how many requests the endpoint may have out. */
unsigned	 depth_window(const struct depth *, uint64_t now);
/* The daemon's smoothed wait, ms. */
uint64_t	 depth_wait(const struct depth *);
/* The class's floor and smoothed latency, ms (0: not measured). */
uint64_t	 depth_floor(const struct depth *, unsigned cls);
uint64_t	 depth_latency(const struct depth *, unsigned cls);

#endif
