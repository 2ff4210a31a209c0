/*
 * Repeated log lines, rate-limited: see ratelimit.h.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "ratelimit.h"

int
ratelimit_pass(struct ratelimit *r, uint64_t now_ms)
{
	if (!r->logged || now_ms < r->last_ms ||
	    now_ms - r->last_ms >= r->interval_ms) {
		r->logged = 1;
		r->last_ms = now_ms;
		return 1;
	}
	if (r->held++ == 0)
		r->held_first_ms = now_ms;
	r->held_last_ms = now_ms;
	return 0;
}

unsigned
ratelimit_take(struct ratelimit *r, uint64_t *span_ms)
{
	unsigned	n = r->held;

	if (span_ms != NULL)
		*span_ms = n > 0 ? r->held_last_ms - r->held_first_ms : 0;
	r->held = 0;
	return n;
}

uint64_t
ratelimit_due(const struct ratelimit *r)
{
	return r->last_ms + r->interval_ms;
}
