/*
 * The scheduler (sup_sched.c): leases due queue items to workers as the
 * router decides, sends the requests, hedges and expires them, and
 * matches each answer to its request.  What an answer says about the
 * chain is applied by the caller (sup_dispatch.c); this file settles the
 * item afterwards.
 */
#ifndef CW_SUP_SCHED_H
#define CW_SUP_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "proto.h"
#include "sup_depth.h"
#include "sup_queue.h"

struct chain;
struct endpoint;
struct request;
struct worker;

/*
 * A worker's share of the requests out, and how many it may have out
 * (its endpoint's adaptive window; cap 0 until its first scheduling);
 * only sup_sched.c writes it.
 */
struct load {
	unsigned	 inflight;
	unsigned	 live;		/* of them, reads of live blocks */
	struct depth	 depth;
	uint64_t	 answered;	/* monotonic ms: the latest sent of the
					 * requests it answered */
	uint64_t	 answered_in;	/* ms that one took */
	unsigned	 pass;		/* the scheduler pass of slot */
	size_t		 slot;		/* its place in that pass's route */
};

/*
 * An answer matched to its request: what it says, checked against what
 * was asked, and whether it settles the request's item.
 */
struct sched_answer {
	struct request		*req;
	struct chain		*ch;
	int64_t			 endpoint_id;
	enum item_kind		 kind;
	int			 settles;	/* 0: a straggler or a trial */
	int			 done;		/* it answers the item in full */
	enum outcome		 worst;		/* when not done */
	const char		*why;
	int			 at_once;	/* retry elsewhere now */
	int			 rejected;	/* it does not answer what was
						 * asked: nothing of it applies */
	int			 contradicts;	/* and contradicts the chain */
	const struct proto_res_headers *headers;
	size_t			 n;		/* state: blocks */
	const uint8_t		(*hashes)[32];
	const uint8_t		*difficulty[PROTO_READS_MAX];	/* or NULL */
	int64_t			 timestamp[PROTO_READS_MAX];	/* or -1 */
	const struct proto_res_runtime *runtime;
	int64_t			 number;	/* runtime: the block's */
};

void	sched_init(void);
void	sched_stop(void);
/* After a rollback: forget requests and leases; the store releases them. */
void	sched_reset(void);
void	sched_kick(void);
void	sched_back(const struct endpoint *);
void	sched_worker_gone(struct worker *);
void	sched_health(struct worker *, unsigned health_act);
int	sched_answer(struct worker *, const struct msg *,
	    struct sched_answer *, char *err, size_t errlen);
void	sched_settle(struct sched_answer *);
/*
 * w's answer to request id came (it may wait before it is taken): it
 * counts for the endpoint's health from now; 1: a backfill's, which may
 * wait behind live work.
 */
int	sched_answer_arrived(struct worker *, uint64_t id);
void	sched_verdicts(void);

#endif
