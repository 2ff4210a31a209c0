/*
 * Messages from workers (sup_dispatch.c): checked, then applied to the
 * chains, the endpoints' health and the scheduler.  What concerns the
 * worker's process comes back as a verdict for sup_spawn.c to act on.
 */
#ifndef CW_SUP_DISPATCH_H
#define CW_SUP_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

struct worker;

enum dispatch_verdict {
	DV_OK,		/* a message of its current generation, used */
	DV_STALE,	/* of an older generation: dropped */
	DV_HELLO,	/* its setup is done */
	DV_HEARTBEAT,	/* alive, with its memory use */
	DV_BAD,		/* malformed, unexpected or out of order: kill it */
};

enum dispatch_verdict sup_dispatch_worker(struct worker *, const void *,
		    long, uint64_t *rss_kb, char *why, size_t whylen);
/*
 * 1 when the message is a well-formed heartbeat: the one kind that
 * writes nothing to the store, so it need not wait while it is blocked.
 */
int		 sup_dispatch_is_heartbeat(const void *, long);

#endif
