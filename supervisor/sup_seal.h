/*
 * Proof of work (sup_seal.c): a quantus block's seal, as its worker found
 * it, checked against the difficulty at its parent once both are stored
 * (tests/vectors/quantus-qpow.md, section 4), and the block's work, that
 * same difficulty (section 6).  Below the blocks layer: it reads and
 * writes only the seal's and the work's columns.
 */
#ifndef CW_SUP_SEAL_H
#define CW_SUP_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"
#include "qpow.h"

struct chain;

/*
 * Whether the seal rule itself is in doubt: every seal checked for 10
 * block times failed, whichever endpoint served it (a runtime upgrade
 * that changed the algorithm, not a lie).  Failures are then not
 * enforced; the chain is followed, its blocks unproven, and the store
 * says why (chains.unproven_reason) until a seal passes again.
 */
#define SEAL_DOUBT_BLOCKS	10
struct seal_watch {
	uint64_t	bad_since;	/* the first failure since a pass; 0 */
	int64_t		bad_from;	/* its block number */
	int		doubt;		/* the rule is in doubt */
	/* The difficulty stored last, and at which block: the parent of
	 * the next block of a range, read without the store. */
	int		have_last;
	uint8_t		last_hash[32];
	uint8_t		last_diff[64];
};

/* A block whose seal fails, for the log. */
struct seal_fail {
	uint8_t		hash[32];
	uint8_t		parent[32];
	int64_t		number;
	int64_t		endpoint_id;	/* the first to serve it; 0: none */
	enum qpow_seal	seal;		/* not OK: its shape fails */
	uint8_t		pow_max[64];	/* seal OK: what it meets at most */
	uint8_t		need[64];	/* seal OK: the difficulty at its parent */
};

/*
 * A block to be stored: proven as its row starts with, 0 for a seal of
 * the wrong shape, else -1 (NULL: not known yet).  Its pow_max is the
 * header's.
 */
int		 seal_shape(struct chain *, const struct proto_header *);
/*
 * What a quantus block's row gets from its parent's difficulty, read
 * before the row is written so that it is written once: 1 if that
 * difficulty is stored (f->need, the block's work), 0 if not.  *proven
 * is the verdict on its seal (shape, and pow_max, NULL when it has no
 * bound): 0 or 1, -1 while not known.  f describes the block, served
 * first by endpoint_id, for the log.
 */
int		 seal_judge(struct chain *, const uint8_t hash[32],
		    const uint8_t parent[32], int64_t number,
		    enum qpow_seal shape, const uint8_t *pow_max,
		    int64_t endpoint_id, struct seal_fail *f, int *proven);
/* The difficulty at a block was stored (or replaced): diff. */
void		 seal_diff_stored(struct chain *, const uint8_t hash[32],
		    const uint8_t diff[64]);
/* A verdict written (proven 0 or 1; -1 nothing), for the rule's doubt. */
void		 seal_count(struct chain *, int proven, int64_t number,
		    uint64_t now);
/*
 * The difficulty at a block became known: it is its children's work, and
 * their seals are checked; fn is called for each one that fails, credit
 * when a child got its work (its canonical one may be among them).  A
 * canonical child without its own state yet is left for it.
 */
void		 seal_parent(struct chain *, const uint8_t hash[32],
		    int64_t number, const uint8_t diff[64], uint64_t now,
		    void (*fn)(struct chain *, const struct seal_fail *),
		    void (*credit)(struct chain *, const uint8_t hash[32],
		    int64_t number, const uint8_t diff[64]));
/*
 * The difficulty at a block was found false and replaced by diff: its
 * children's work and every verdict on their seals follow; fn is called
 * for each one that fails still.
 */
void		 seal_reparent(struct chain *, const uint8_t hash[32],
		    int64_t number, const uint8_t diff[64], uint64_t now,
		    void (*fn)(struct chain *, const struct seal_fail *));
/* fn for every child whose seal fails diff; nothing written. */
void		 seal_children_failing(struct chain *, const uint8_t hash[32],
		    int64_t number, const uint8_t diff[64],
		    void (*fn)(struct chain *, const struct seal_fail *));
/*
 * Of the children of a block with a seal of the right shape, how many
 * meet diff (*meet) and how many do not (*fail).
 */
void		 seal_children_meet(struct chain *, const uint8_t hash[32],
		    int64_t number, const uint8_t diff[64], unsigned *meet,
		    unsigned *fail);
/* 1 if failed seals count now (the rule is not in doubt). */
int		 seal_enforced(struct chain *, uint64_t now);
/* "seal meets at most 1234, the difficulty at its parent is 5678". */
const char	*seal_words(const struct seal_fail *, char *buf, size_t len);

#endif
