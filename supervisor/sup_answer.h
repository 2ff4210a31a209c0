/*
 * Answers checked against their requests (sup_answer.c): a worker's
 * header or storage answer must answer what the supervisor asked, item
 * for item, whatever the worker checked itself.  (A storage answer does
 * not name its block: its values are checked by count and size.)  Pure:
 * no store, no clock, no I/O; sup_reply.c asks and acts.
 */
#ifndef CW_SUP_ANSWER_H
#define CW_SUP_ANSWER_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define ANSWER_WHY_MAX	160

enum answer_verdict {
	ANSWER_OK,		/* it answers what was asked */
	ANSWER_WRONG,		/* another count, number, hash or size */
	ANSWER_UNLINKED,	/* a range whose headers do not link: it
				 * contradicts the chain */
};

/* A header request as it was sent. */
struct answer_asked {
	unsigned		 by;		/* BY_NUMBER, BY_HASH */
	size_t			 n;
	uint64_t		 from;		/* BY_NUMBER: from .. from+n-1 */
	const uint8_t		(*hashes)[32];	/* BY_HASH: n of them */
};

/*
 * Items that are not OK (absent, errors) answer nothing and are judged
 * as such elsewhere; every OK one must be the header asked for, and OK
 * neighbours of a range must link: each one's parent the hash of the one
 * before, its number that one's + 1.  why says what differed.
 */
enum answer_verdict answer_check_headers(const struct answer_asked *,
		    const struct proto_res_headers *, char *why, size_t);
/*
 * A storage answer: one value per key asked, in order, each present one
 * of the size its key's values have (size[i], 0: any), or it is the
 * value of another key.
 */
enum answer_verdict answer_check_storage(const size_t *size, size_t asked,
		    const struct proto_res_storage *, char *why, size_t);
/*
 * Timestamp.Now values (every per-th value, the last of each block's)
 * later than now + ANSWER_AHEAD_MAX ms: no node imports such a block
 * (tests/vectors/quantus-qpow.md, section 5).  The index of the first
 * value, -1 if none; *ahead_ms how far ahead it is.
 */
#define ANSWER_AHEAD_MAX	30000
long		 answer_check_clock(const struct proto_res_storage *,
		    size_t per, uint64_t now, uint64_t *ahead_ms);
/*
 * A quantus header's figures as its worker sent them, checked against
 * its own SCALE bytes (h->raw): they decode, hash to its hash, and give
 * its parent, number, miner, runtime flag, seal verdict and seal bound.
 * 0, or -1 with why.  A worker is our code, but it parses hostile input;
 * the supervisor checks a sample of its headers so (sup_reply.c).
 */
int		 answer_check_figures(const struct proto_header *h,
		    char *why, size_t);
const char	*answer_verdict_name(enum answer_verdict);

#endif
