/*
 * The adaptive window of one endpoint: a latency-gradient limiter in the
 * family of TCP Vegas and Netflix's Gradient2, with slow start and
 * multiplicative cuts as in TCP.  Pure: the clock is passed in; the rules
 * are documented in sup_depth.h.
 */
#include "config.h"

#include <string.h>

#include "sup_depth.h"
#include "util.h"

static void
class_reset(struct depth_class *c, uint64_t now)
{
	memset(c, 0, sizeof(*c));
	c->floor[0] = c->floor[1] = UINT64_MAX;
	c->bucket = now / DEPTH_FLOOR_MS;
}

void
depth_init(struct depth *d, unsigned cap, uint64_t now)
{
	memset(d, 0, sizeof(*d));
	d->last_now = now;
	d->cap = cap > 0 ? cap : 1;
	d->window = DEPTH_INITIAL < d->cap ? DEPTH_INITIAL : d->cap;
	d->slow_start = 1;
	for (unsigned i = 0; i < DEPTH_CLASSES; i++)
		class_reset(&d->cls[i], now);
}

/* A new cap (a reload): what was learnt stays, the window fits under. */
void
depth_set_cap(struct depth *d, unsigned cap)
{
	d->cap = cap > 0 ? cap : 1;
	if (d->window > d->cap)
		d->window = d->cap;
}

unsigned
depth_window(const struct depth *d, uint64_t now)
{
	unsigned	w = (unsigned)d->window;

	/* Probing the floor: half the window, drained then measured. */
	if (now < d->probe_until)
		w /= 2;

	return w < 1 ? 1 : w > d->cap ? d->cap : w;
}

/*
 * Move the two floor buckets on to now's.  A window kept full never lets
 * the endpoint's queue drain, so what it measures is the floor plus that
 * queue: a new bucket starts with a probe, half the window for two round
 * trips (one drains, one measures), or the floor would creep up with the
 * queue bucket by bucket.
 */
static void
floor_roll(struct depth *d, struct depth_class *c, uint64_t now)
{
	uint64_t	b = now / DEPTH_FLOOR_MS, until;

	if (b == c->bucket)
		return;
	c->floor[1] = b == c->bucket + 1 ? c->floor[0] : UINT64_MAX;
	c->floor[0] = UINT64_MAX;
	c->bucket = b;
	until = now + 2 * (c->ewma_x4 / 4);
	if (c->samples > 0 && until > d->probe_until)
		d->probe_until = until;
}

static uint64_t
class_floor(const struct depth_class *c)
{
	return c->floor[0] < c->floor[1] ? c->floor[0] : c->floor[1];
}

uint64_t
depth_floor(const struct depth *d, unsigned cls)
{
	uint64_t	f;

	if (cls >= DEPTH_CLASSES)
		return 0;
	f = class_floor(&d->cls[cls]);
	return f == UINT64_MAX ? 0 : f;
}

uint64_t
depth_latency(const struct depth *d, unsigned cls)
{
	return cls < DEPTH_CLASSES ? d->cls[cls].ewma_x4 / 4 : 0;
}

/*
 * The window times factor, at most once per round trip of the class:
 * the answers to what was sent before a cut all say the same.
 */
static void
cut_to(struct depth *d, const struct depth_class *c, double window,
    uint64_t now)
{
	uint64_t	rtt = c->samples > 0 ? c->ewma_x4 / 4 : DEPTH_HOLD_MS;

	if (d->cuts > 0 && now - d->cut_at < rtt)
		return;
	d->window = window;
	if (d->window < 1)
		d->window = 1;
	d->slow_start = 0;
	d->cut_at = now;
	d->cuts++;
}

static void
cut(struct depth *d, const struct depth_class *c, double factor,
    uint64_t now)
{
	cut_to(d, c, d->window * factor, now);
}

static void
grow(struct depth *d, unsigned inflight, uint64_t now)
{
	/* An endpoint not asked for its window shows nothing about more. */
	if (now < d->hold_until || (double)inflight * 2 < d->window)
		return;
	d->window += d->slow_start ? 1.0 : 1.0 / d->window;
	if (d->window > d->cap)
		d->window = d->cap;
}

uint64_t
depth_wait(const struct depth *d)
{
	return d->wait_x4 / 4;
}

/*
 * An answer that says how the endpoint copes, latency against floor, and
 * how the daemon does, its wait.
 */
static void
latency_answer(struct depth *d, struct depth_class *c, uint64_t ms,
    uint64_t wait, unsigned inflight, uint64_t now)
{
	uint64_t	f;

	if (ms > UINT64_MAX / 8)
		ms = UINT64_MAX / 8;
	if (wait > UINT64_MAX / 8)
		wait = UINT64_MAX / 8;
	d->wait_x4 = d->wait_x4 - d->wait_x4 / 4 + wait;
	floor_roll(d, c, now);
	if (ms < c->floor[0])
		c->floor[0] = ms;
	c->ewma_x4 = c->samples == 0 ? ms * 4 : c->ewma_x4 - c->ewma_x4 / 4 +
	    ms;
	c->samples++;
	f = class_floor(c);
	/*
	 * The daemon is behind: more out would only wait in it.  One less
	 * a round trip while it waits a little, 3/4 while it waits long.
	 */
	if (d->wait_x4 > 4 * DEPTH_WAIT_MS) {
		if ((double)inflight * 2 >= d->window)
			cut_to(d, c, d->wait_x4 > 4 * DEPTH_BEHIND_MS ?
			    d->window * 3 / 4 : d->window - 1, now);
		return;
	}
	/* Latency that rose while the window was not in use is not its
	 * doing: it is not cut for it. */
	if (c->samples >= DEPTH_MIN_SAMPLES &&
	    c->ewma_x4 > 4 * (2 * f + DEPTH_SLACK_MS)) {
		if ((double)inflight * 2 < d->window)
			return;
		double	factor = (double)(6 * f + 4 * DEPTH_SLACK_MS) /
		    (double)c->ewma_x4;

		cut(d, c, factor < 0.5 ? 0.5 : factor, now);
	} else if (c->ewma_x4 <= 6 * f + 4 * DEPTH_SLACK_MS)
		grow(d, inflight, now);
}

void
depth_answer(struct depth *d, unsigned cls, enum outcome o,
    uint64_t latency_ms, uint64_t wait_ms, unsigned inflight,
    uint64_t retry_after_ms, uint64_t now)
{
	struct depth_class	*c;

	if (cls >= DEPTH_CLASSES)
		cls = DEPTH_CLASSES - 1;
	c = &d->cls[cls];
	now = clock_forward(&d->last_now, now);
	switch (o) {
	case OUTCOME_OK:
		latency_answer(d, c, latency_ms, wait_ms, inflight, now);
		break;
	case OUTCOME_RATE_LIMITED: {
		uint64_t until = now + (retry_after_ms == 0 ? DEPTH_HOLD_MS :
		    retry_after_ms < DEPTH_HOLD_MAX_MS ? retry_after_ms :
		    DEPTH_HOLD_MAX_MS);

		if (until > d->hold_until)
			d->hold_until = until;
		cut(d, c, 0.5, now);
		break;
	}
	case OUTCOME_HTTP_5XX:
	case OUTCOME_TRANSPORT:
	case OUTCOME_TIMEOUT:
		cut(d, c, 0.5, now);
		break;
	default:
		/* absent, rpc_error, http_4xx, malformed, too_large: an
		 * answer about the request, not about load. */
		break;
	}
}
