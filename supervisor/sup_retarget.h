/*
 * The difficulty's retarget rule (sup_retarget.c;
 * tests/vectors/quantus-qpow.md, sections 2 and 5).  Each difficulty a
 * quantus block's first state answer gives is recomputed from its
 * parent's and the two blocks' times; one that differs has its block read
 * again by another endpoint (sup_cross.c settles what two answers say),
 * never a verdict by itself, since every input is an endpoint's claim.
 *
 * Known: the rule of runtimes RETARGET_SPEC_MIN to RETARGET_SPEC_MAX
 * (Homestead's, with the 500 ms floor: Quantus-Network/chain 94c4ca7a),
 * with the chain's block_time as its target and its difficulty_floor as
 * its least (a devnode's chain at short blocks follows the same rule,
 * scaled).  Under any other runtime nothing is recomputed, and the chain
 * says so (chains.retarget, the log).  When every endpoint's difficulties
 * differ from the rule within a minute, each from its own at the parent,
 * the rule is suspected instead (sup_time.h): nobody is read again for it
 * until a minute passes without a difference.
 */
#ifndef CW_SUP_RETARGET_H
#define CW_SUP_RETARGET_H

#include <stdint.h>

#include "qpow.h"

#define RETARGET_SPEC_NAME	"quantus-runtime"
#define RETARGET_SPEC_MIN	142
#define RETARGET_SPEC_MAX	145

struct chain;
struct sblock;

struct retarget {
	int64_t		 spec;		/* the runtime it was set for; -1 */
	int		 known;		/* its rule is known */
	uint64_t	 target_ms, floor;	/* what rule was made from */
	struct qpow_rule rule;
};

/*
 * The chain's runtime is spec_name spec (the highest seen), or its
 * target or floor changed: the rule follows, said in the log and the
 * store when it changes.
 */
void	retarget_runtime(struct chain *, const char *spec_name, int64_t spec,
	    uint64_t target_ms, uint64_t floor);
/* The chain's highest runtime as the store has it, at load. */
void	retarget_load(struct chain *, uint64_t target_ms, uint64_t floor);
/*
 * b's first difficulty diff and time ts, from endpoint_id's answer, are
 * about to be stored: recomputed from its parent's, and read again by
 * another endpoint when they differ.
 */
void	retarget_check(struct chain *, const struct sblock *b,
	    const uint8_t diff[64], int64_t ts, int64_t endpoint_id,
	    uint64_t now);

#endif
