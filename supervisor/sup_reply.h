/*
 * Answers to the scheduler's requests (sup_reply.c): matched to their
 * request and checked; what an answer says about the chain is applied by
 * the caller (sup_dispatch.c), and reply_settle settles the item after.
 */
#ifndef CW_SUP_REPLY_H
#define CW_SUP_REPLY_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "proto.h"
#include "sup_answer.h"
#include "sup_queue.h"

struct chain;
struct request;
struct worker;

/*
 * An answer matched to its request: what it says, checked against what
 * was asked, and whether it settles the request's item.
 */
struct reply {
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
	/*
	 * What the pointers above name: the decoded answer and the reason
	 * a rejected one gets, the reply's own (nothing shared between
	 * calls; ~65 KB, on the caller's stack).
	 */
	union {
		struct proto_res_headers headers;
		struct proto_res_storage storage;
		struct proto_res_runtime runtime;
	} res;
	char			 why_buf[ANSWER_WHY_MAX + 160];
};

int	reply_answer(struct worker *, const struct msg *, struct reply *,
	    uint64_t now, char *err, size_t errlen);
void	reply_settle(struct reply *);
/*
 * w's answer to request id came (it may wait before it is taken): it
 * counts for the endpoint's health from now; 1: a backfill's, which may
 * wait behind live work.
 */
int	reply_arrived(struct worker *, uint64_t id);
/*
 * One header of a quantus chain's worker in REPLY_FIGURES_ODDS has the
 * worker's figures checked against its bytes (answer_check_figures):
 * 0, or -1 with err, the worker then killed as for any bad message.
 */
#define REPLY_FIGURES_ODDS	16
int	reply_figures(const struct worker *, enum chain_format,
	    const struct proto_header *, char *err, size_t errlen);

#endif
