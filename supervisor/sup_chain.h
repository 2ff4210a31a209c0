/*
 * Chains as the supervisor follows them: the entry points (sup_chain.c)
 * and struct chain, whose parts the chain's layers keep: claims
 * (sup_claim.c), fork choice (sup_choice.c), finality (sup_final.c),
 * windows (sup_window.c), stored blocks (sup_block.c), standings
 * (sup_standing.c).  Holes and owed reads go down into the queue.
 */
#ifndef CW_SUP_CHAIN_H
#define CW_SUP_CHAIN_H

#include <stdint.h>


#include "conf.h"
#include "header.h"
#include "proto.h"
#include "sup_queue.h"
#include "sup_retarget.h"
#include "sup_seal.h"
#include "sup_time.h"

#define CHAIN_FINALITY		100	/* quantus: blocks below best */
#define CHAIN_CLAIMS_MAX	16	/* heads held per chain */
#define CHAIN_CLAIM_STEPS	128	/* parents of a claim fetched by hash */
#define CHAIN_WINDOW		2000	/* blocks of ranges queued ahead */
/*
 * Below the chain (backfill) ranges are queued further ahead: their
 * numbers are bounded by a block that is connected, not by a claim, and
 * 100 ranges keep two endpoints' adaptive windows full while the lowest
 * ranges link, rather than idle until the window moves.
 */
#define CHAIN_BACKFILL_WINDOW	10000
#define CHAIN_VERDICTS_MAX	64
#define CHAIN_FALSE_MAX		8	/* false difficulties: who answered */
#define CHAIN_THIRD_MAX		64	/* disputes waiting for a third read */

/*
 * A head that does not connect to the stored chain yet: held in memory,
 * with the parents fetched for it (h[0] the head, h[n - 1] the lowest,
 * whose parent is wanted).  far: beyond what the chain could have made
 * since the last accepted best; nothing is fetched below it until the
 * endpoints whose claims share a header with it (agree) outnumber those
 * whose heads connected since it was made (against), or it outlasts the
 * claim timeout with no more against it than for it (sup_claim.c).
 * Believed, its gap must close faster than the chain itself can grow
 * (the best following the others' heads is no progress towards it), or
 * it is dropped when its patience is out.
 */
struct claim {
	int64_t			 endpoint_id;
	uint64_t		 since;		/* wall ms: made, or gap closing */
	int			 far;
	int			 believed;	/* was far, believed since */
	unsigned		 steps;		/* parents fetched by hash */
	uint64_t		 head_ms;	/* wall ms: h[0] came then */
	int64_t			 gap_seen;	/* below it, last tick */
	int64_t			 gap_mark;	/* believed: below it when it
						 * last closed faster than the
						 * chain grows, ... */
	uint64_t		 mark_at;	/* ... then (wall ms) */
	size_t			 n;
	struct proto_header	*h;
	int64_t			 agree[CHAIN_CLAIMS_MAX];
	unsigned		 n_agree;
	int64_t			 against[CHAIN_CLAIMS_MAX + 1];
	unsigned		 n_against;
};

/*
 * What the chain concluded about endpoints in one call of an entry point
 * below, returned to its caller in *out (appended: one list may gather
 * several calls), which has sup_judge.c tell their health.
 */
enum chain_verdict_kind {
	CV_AGREES,		/* its head connected, no claim of it held */
	CV_CONTRADICTED		/* a lie: reason says which */
};
struct chain_verdict {
	int64_t			 endpoint_id;
	enum chain_verdict_kind	 kind;
	char			 reason[160];
};
struct chain_verdicts {
	struct chain_verdict	 v[CHAIN_VERDICTS_MAX];
	size_t			 n;
};

struct standing;
struct chain {
	int64_t			 id;
	char			 name[CONF_NAME_MAX + 1];
	enum chain_format	 format;
	uint64_t		 backfill_from;
	uint64_t		 block_time;		/* ms */
	int			 have_best;
	int64_t			 best_number;
	uint8_t			 best_hash[32];
	int64_t			 final_number;		/* -1: none yet */
	int64_t			 finalized_reported;	/* substrate */
	int			 have_genesis;
	uint8_t			 genesis[32];
	struct standing		*st;
	size_t			 n_st;
	/* A best head whose branch lacks a parent below our best: the
	 * switch waits for it, so that a reorg is one transaction. */
	int			 have_pending;
	uint8_t			 pending_tip[32];
	int64_t			 pending_number;	/* its missing block */
	struct queue_owed	 owed;		/* sup_queue.c's */
	uint64_t		 blocks_ingested;	/* for monitoring */
	/* Its endpoints usable now and not failing: the scheduler counts
	 * them each tick (sup_chains_usable). */
	unsigned		 usable;
	uint64_t		 seals_failed;		/* since start */
	struct seal_watch	 seals;			/* sup_seal.c's */
	/* Endpoints found answering a false difficulty, since start, the
	 * last CHAIN_FALSE_MAX (sup_cross.c). */
	int64_t			 false_diff[CHAIN_FALSE_MAX];
	size_t			 n_false_diff;
	/* Second answers that wait for a third endpoint's (sup_cross.c). */
	struct cross_third {
		uint8_t		 hash[32];
		int64_t		 endpoint_id;
		uint8_t		 diff[64];
	}			 third[CHAIN_THIRD_MAX];
	size_t			 n_third;
	struct time_watch	 times;			/* sup_time.c's */
	struct retarget		 retarget;		/* sup_retarget.c's */
	uint64_t		 difficulty_floor;
	uint64_t		 best_at;	/* wall ms: best last accepted */
	/* The highest far head believed, and when: the reach counts from it
	 * too, so that a stale first best caps nothing. */
	int64_t			 believed_number;	/* -1: none */
	uint64_t		 believed_at;	/* wall ms */
	struct claim		 claims[CHAIN_CLAIMS_MAX];
	size_t			 n_claims;
	int64_t			 queued_up;	/* ranges queued up to; -1 */
	int64_t			 queued_down;	/* and down to; -1 */
	/* substrate: a finalized head above our best, until it is ours */
	int			 have_final_claim;
	uint8_t			 final_claim[32];
	int64_t			 final_claim_number;
	int64_t			 final_claim_ep;
	/* quantus: a branch whose work is being read before it is chosen */
	int			 have_cand;
	uint8_t			 cand_tip[32];
	int64_t			 cand_number;
	int64_t			 cand_from;
	uint64_t		 cand_since;	/* wall ms */
	int			 cand_over;	/* waited: the longer wins */
	int			 cand_asked;	/* its deciding difficulties
						 * asked of a second endpoint */
	int64_t			 cand_ep;	/* the endpoint that brought it */
	/* Where the verdicts of the call under way go; NULL between calls. */
	struct chain_verdicts	*out;
	uint64_t		 unreadable_at;	/* wall ms: next look for
						 * difficulties no one reads */
	/* an empty store: heads wait until two endpoints agree */
	size_t			 n_endpoints;	/* configured */
	/* Its workers, in the order of the daemon's (sup_spawn.c keeps the
	 * list as they come and go, and after a reload): whom the chain's
	 * endpoints are judged, routed and scheduled among. */
	struct worker		**workers;
	size_t			 n_workers, cap_workers;
	uint64_t		 disagree_logged;	/* wall ms */
};

void		 sup_chains_load(const struct conf *, uint64_t now);
void		 sup_chains_flush(void);
void		 sup_chains_free(void);
/* After a rollback of the store: read every chain again. */
void		 sup_chains_reload(uint64_t now);
struct chain	*sup_chain_find(const char *);
/* Every chain loaded, in the order loaded; *n of them. */
struct chain	*const *sup_chains_all(size_t *n);
void		 sup_chain_head(struct chain *, int64_t endpoint_id,
		    const struct proto_head *, uint64_t now,
		    struct chain_verdicts *out);
void		 sup_chain_fetched(struct chain *, int64_t endpoint_id,
		    const struct proto_header *, uint64_t now,
		    struct chain_verdicts *out);
int		 sup_chain_state(struct chain *, int64_t endpoint_id,
		    const uint8_t hash[32], const uint8_t *difficulty,
		    int64_t timestamp, uint64_t now,
		    struct chain_verdicts *out);
void		 sup_chain_sample(struct chain *, int64_t endpoint_id,
		    const uint8_t hash[32], struct chain_verdicts *out);
void		 sup_chain_runtime(struct chain *, const char *spec_name,
		    uint64_t spec_version, const uint8_t *at, int64_t number,
		    uint64_t now);
int		 sup_chain_genesis(struct chain *, const uint8_t genesis[32]);
int		 sup_chain_canonical(struct chain *, const uint8_t hash[32]);
/* The chain's clock: claims judged, ranges queued, finality moved. */
void		 sup_chain_tick(struct chain *, uint64_t now,
		    struct chain_verdicts *out);
/* Every chain's usable count set to 0, before the scheduler counts. */
void		 sup_chains_usable_reset(void);

struct json_t;
struct json_t	*sup_chains_json(void);

#endif
