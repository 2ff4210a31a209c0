/*
 * The durable catch-up queue (sup_queue.c): header ranges (backfill,
 * holes), missing parents by hash, state reads owed (difficulty, time)
 * and runtime versions, as rows of the store.  SQL only: which endpoint
 * takes an item and when is decided above it (sup_route.c, sup_tick.c).
 */
#ifndef CW_SUP_QUEUE_H
#define CW_SUP_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "outcome.h"

#define QUEUE_RANGE		100	/* headers per range item */
#define QUEUE_STATE_RANGE	50	/* blocks per state item (2 reads) */

enum item_kind { K_HEADERS, K_PARENT, K_STATE, K_RUNTIME };
#define ITEM_KINDS	4

/* A queue item as leased: what a request for it needs. */
struct qitem {
	int64_t		 id;		/* 0: no item (a breaker's trial) */
	enum item_kind	 kind;
	int64_t		 from, to;	/* headers, state */
	uint8_t		 hash[32];	/* parent, runtime */
	int64_t		 number;	/* parent, runtime */
	unsigned	 attempts;	/* this one included */
	int		 again;		/* a second read of another's
					 * answer (disputed) */
};

/*
 * Which due items an endpoint may take now (from sup_route.c): items at
 * or above live_from are live; may_live says whether this endpoint may
 * take them, live_only that it takes nothing else but a claim's parents
 * (its last slot, or while the WAL is behind: no backfill).
 */
struct queue_filter {
	int64_t		 pruning_bound;	/* no state at or below; -1 none */
	int64_t		 live_from;
	int		 may_live;
	int		 live_only;
	int64_t		 pref_id;	/* live items it failed go elsewhere */
	int64_t		 not_id;	/* the preferred one: not those again */
	int64_t		 wrong_id;	/* it: not what it answered malformed
					 * last, nor a block by hash it
					 * lacked (-1: any) */
	int64_t		 prune_floor;	/* every endpoint's bound is at or
					 * above: state at or below it is
					 * tried anyway; -1 none */
	int64_t		 disputed_id;	/* it: not a read of its own
					 * answer (-1: any) */
};

/*
 * State reads owed for new canonical blocks, gathered into one range
 * before they are written; a chain keeps one, only this file reads it.
 */
struct queue_owed {
	int64_t		 from, to;	/* -1: none */
};

const char	*queue_kind_name(enum item_kind);
void		 queue_init(void);

/* What the chains ask for. */
void		 queue_missing(int64_t chain, const uint8_t hash[32],
		    int64_t number);
void		 queue_ranges(int64_t chain, int64_t from, int64_t to);
int		 queue_headers_within(int64_t chain, int64_t from,
		    int64_t to);
void		 queue_state(int64_t chain, int64_t from, int64_t to);
void		 queue_dispute(int64_t chain, int64_t from, int64_t to,
		    int64_t not_ep, uint64_t due, const char *why);
void		 queue_drop_parent(int64_t chain, const uint8_t hash[32]);
int		 queue_drop_headers_above(int64_t chain, int64_t number);
void		 queue_block_canonical(int64_t chain, struct queue_owed *,
		    const uint8_t hash[32], int64_t number,
		    int runtime_updated);
void		 queue_block_left(int64_t chain, const uint8_t hash[32]);
void		 queue_flush_owed(int64_t chain, struct queue_owed *);
int		 queue_added(void);

/* What the scheduler does with items. */
int		 queue_next(int64_t chain, uint64_t now,
		    const struct queue_filter *, struct qitem *);
int		 queue_has_due(int64_t chain, uint64_t now);
int		 queue_parent_needed(int64_t chain, const uint8_t hash[32],
		    int64_t number, int64_t live_from);
size_t		 queue_owed_blocks(int64_t chain, int64_t from, int64_t to,
		    int with_difficulty, const uint8_t *candidate,
		    uint8_t (*hashes)[32], int64_t *numbers, size_t max);
void		 queue_lease(int64_t item, int64_t endpoint, uint64_t until);
void		 queue_extend(int64_t item, uint64_t until);
void		 queue_done(int64_t item);
void		 queue_back(int64_t item, uint64_t next, enum outcome,
		    const char *why, int64_t endpoint);
void		 queue_retry_now(int64_t chain, uint64_t now);
void		 queue_release_leases(void);

#endif
