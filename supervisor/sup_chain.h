/*
 * Chains as the supervisor follows them (sup_chain.c): heads stored once,
 * the canonical chain, reorgs, finality and standings.  This file owns
 * struct chain; holes and owed reads go down into the queue.
 */
#ifndef CW_SUP_CHAIN_H
#define CW_SUP_CHAIN_H

#include <stdint.h>

#include "conf.h"
#include "header.h"
#include "proto.h"
#include "sup_queue.h"
#include "sup_route.h"

struct standing;
struct chain {
	int64_t			 id;
	char			 name[CONF_NAME_MAX + 1];
	enum chain_format	 format;
	uint64_t		 backfill_from;
	uint64_t		 block_time;		/* ms */
	uint64_t		 request_timeout;	/* ms */
	unsigned		 max_inflight;	/* requests per endpoint */
	uint64_t		 hedge_after;		/* ms */
	unsigned		 hedge_quantile;	/* percent, 0: off */
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
	struct queue_owed	 owed;		/* sup_queue.c's */
	struct hedging		 hedging;	/* sup_route.c's */
	uint64_t		 blocks_ingested;	/* for monitoring */
};

void		 sup_chains_load(const struct conf *);
void		 sup_chains_flush(void);
void		 sup_chains_free(void);
/* After a rollback of the store: read every chain again. */
void		 sup_chains_reload(void);
struct chain	*sup_chain_find(const char *);
void		 sup_chain_head(struct chain *, int64_t endpoint_id,
		    const struct proto_head *);
void		 sup_chain_fetched(struct chain *, int64_t endpoint_id,
		    const struct proto_header *);
void		 sup_chain_state(struct chain *, const uint8_t hash[32],
		    const uint8_t *difficulty, int64_t timestamp);
void		 sup_chain_runtime(struct chain *, const char *spec_name,
		    uint64_t spec_version, const uint8_t *at, int64_t number);
int		 sup_chain_genesis(struct chain *, const uint8_t genesis[32]);
int		 sup_chain_canonical(struct chain *, const uint8_t hash[32]);

struct json_t;
struct json_t	*sup_chains_json(void);

#endif
