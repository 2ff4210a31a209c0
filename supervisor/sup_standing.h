/*
 * Miners' standings per chain (sup_standing.c), and the block row that
 * sup_chain.c reads from the store and hands to them.
 */
#ifndef CW_SUP_STANDING_H
#define CW_SUP_STANDING_H

#include <stdint.h>

#include "u512.h"

struct chain;

struct standing {
	uint8_t		miner[32];
	int		known;		/* 0: the x'' row of unsealed blocks */
	uint64_t	blocks, final_blocks;
	struct u512	work, final_work;
	int64_t		first, last;	/* -1 when none */
	int		dirty;
};

struct sblock {
	uint8_t		hash[32];
	uint8_t		parent[32];
	int64_t		number;
	int		has_miner;
	uint8_t		miner[32];
	int		has_diff;
	uint8_t		diff[64];
	int		canonical;
	int		final;
	int		runtime_updated;
	int		proven;		/* its seal: 1, 0, -1 not checked */
	int		has_pow;	/* pow_max: its seal has the shape */
	uint8_t		pow_max[64];
	int		has_work;	/* work: the difficulty at its parent */
	uint8_t		work[64];
	int64_t		state_ep;	/* who answered diff; 0: none */
	int		cross_read;	/* -1 none, 0 owed, 1 agreed */
	int		has_ts;		/* its state (timestamp) is stored */
	int64_t		ts;		/* that timestamp, ms */
	int64_t		first_ep;	/* who served it first; 0: none */
};

int		 standing_counts(const struct sblock *);
struct standing	*standing(struct chain *, const struct sblock *);
void		 work_add(struct u512 *, const struct sblock *, int sign);
void		 standing_bounds(struct chain *, struct standing *);
void		 standings_load(struct chain *);
void		 standings_flush(struct chain *);

#endif
