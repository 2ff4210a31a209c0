/*
 * A chain's stored blocks (sup_block.c): the lowest layer of the chain
 * module, beside the standings it keeps in step with the canonical flags.
 */
#ifndef CW_SUP_BLOCK_H
#define CW_SUP_BLOCK_H

#include <stdint.h>

#include <sqlite3.h>

#include "conf.h"
#include "proto.h"
#include "sup_chain.h"
#include "sup_seal.h"
#include "sup_standing.h"

/* The columns block_row reads, in its order. */
#define BLOCK_COLUMNS	"hash, parent, number, miner, difficulty, " \
	"canonical, final, runtime_updated, proven, pow_max, work, " \
	"coalesce(state_endpoint_id, 0), coalesce(cross_read, -1), " \
	"timestamp IS NOT NULL, coalesce(first_endpoint_id, 0), " \
	"coalesce(timestamp, 0)"
void		 block_row(sqlite3_stmt *, struct sblock *);
/* 1 if found: by hash, the canonical one at a number, a child of parent. */
int		 block_get(struct chain *, const uint8_t hash[32],
		    struct sblock *);
int		 block_at(struct chain *, int64_t number, struct sblock *);
int		 block_child(struct chain *, int64_t number,
		    const uint8_t parent[32], struct sblock *);
/*
 * 1 if a child of the block hash at number has its state, or is off the
 * canonical chain: the only children whose time, work or seal a parent's
 * state answer has to look at (a canonical child without its state gets
 * them with it).  In a backfill, in order, mostly none.
 */
int		 block_children_waiting(struct chain *, const uint8_t hash[32],
		    int64_t number);
/* Stored once: 1 if new; *b the row, *first_seen when first stored. */
int		 block_store(struct chain *, const struct proto_header *,
		    int64_t endpoint_id, uint64_t seen, struct sblock *b,
		    int64_t *first_seen);
int		 block_check_number(struct chain *, int64_t endpoint_id,
		    const struct proto_header *, const struct sblock *parent);
void		 block_flags(struct chain *, const struct sblock *,
		    int canonical, int final);
void		 block_canonical(struct chain *, struct sblock *);
void		 block_uncanonical(struct chain *, struct sblock *);
const char	*block_short_hash(const uint8_t h[32], char buf[24]);
const char	*block_ep_name(int64_t, char buf[CONF_NAME_MAX + 16]);
void		 block_seal_failed(struct chain *, const struct seal_fail *);
/*
 * The difficulty at the block hash (at number) owed a second read
 * (cross_read 0), and asked of any endpoint but not_ep from due on
 * (sup_cross.h), why in the queue item.
 */
void		 block_ask_again(struct chain *, const uint8_t hash[32],
		    int64_t number, int64_t not_ep, uint64_t due,
		    const char *why);
void		 block_verdict(struct chain *, int64_t endpoint_id,
		    enum chain_verdict_kind, const char *, ...)
		    __attribute__((format(printf, 4, 5)));

#endif
