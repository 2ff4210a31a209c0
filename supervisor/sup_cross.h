/*
 * Difficulty answers are claims (sup_cross.c).  A seal that fails the
 * difficulty stored at its parent convicts either the header's server
 * (the seal is bad) or the difficulty's answerer (the number is): a
 * second endpoint's read of the same state tells them apart.
 *
 *   the parent's cross_read  a seal of a child fails   a second answer
 *   NULL (one answer)        0: a read owed, by any    -
 *                            endpoint but the first
 *   0 (owed)                 -                         same D: 1, the
 *                                                      child's server
 *                                                      judged; other D:
 *                                                      the seals decide
 *   1 (two agree)            the child's server judged -
 *
 * When the answers differ, the one the children's seals meet where the
 * other's fail is kept (the stored one replaced, the children's work and
 * the standings with it) and the other answerer is judged; when the
 * seals tell neither apart, an endpoint found false before loses, or a
 * third endpoint's answer decides (two against one), or, with none,
 * nobody is judged and the first answer stays.  A judged answerer's
 * other difficulties are all read again.  The first two columns are
 * block_seal_failed's (sup_block.c), below this; besides failing seals,
 * a block drawn at random is read again (cross_sample: one of every live
 * state answer, of some backfill ones), so is every difficulty that
 * decides a branch switch (sup_choice.c's ask_cross, while the switch
 * waits), and any second endpoint's answer counts as a read.
 */
#ifndef CW_SUP_CROSS_H
#define CW_SUP_CROSS_H

#include <stddef.h>
#include <stdint.h>

struct chain;
struct sblock;

/*
 * The difficulty at b was just stored from endpoint_id's answer: read
 * again by another if that endpoint answered a false one before.
 */
void	cross_stored(struct chain *, const struct sblock *b,
	    int64_t endpoint_id);
/*
 * A state answer of endpoint_id with difficulty diff for b, whose
 * difficulty is stored and owed a second read.
 */
void	cross_answer(struct chain *, const struct sblock *b,
	    int64_t endpoint_id, const uint8_t diff[64], uint64_t now);

/*
 * b's state was just stored from endpoint_id's answer, b drawn at random
 * from it: its difficulty is read again by another endpoint, when it is
 * at most CROSS_SAMPLE_DEPTH below the best (nodes that prune keep 256
 * blocks of state, often).
 */
#define CROSS_SAMPLE_DEPTH	128
void	cross_sample(struct chain *, const struct sblock *b,
	    int64_t endpoint_id);

/*
 * Second reads that no endpoint but the first answerer may make (every
 * other one pruned the state, or none is left after a reload): given up,
 * or they would wait in the queue for ever; the blocks owe none any more
 * and their difficulties stay the first answerer's word.  At most 16 at a
 * call; returns how many.
 */
#define CROSS_UNREADABLE_MS	10000	/* how often the chains look */
size_t	cross_unreadable(struct chain *);

#endif
