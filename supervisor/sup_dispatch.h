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
		    long, uint64_t *rss_kb, uint64_t *heap_kb, char *why,
		    size_t whylen);

/*
 * The order a message of a worker is taken in (sup_spawn.c).  A
 * heartbeat writes nothing to the store, so it need not wait while the
 * store is blocked.  A backfill's answer (a range, a state read of blocks
 * that are not live) waits behind live work: heads, live state reads,
 * claims' parents.  Anything else, a malformed message included, is
 * taken in the order it came.
 */
enum dispatch_class {
	DC_NOW,
	DC_HEARTBEAT,
	DC_BULK,
};

enum dispatch_class sup_dispatch_class(struct worker *, const void *, long);

#endif
