/*
 * Claims and the first best (sup_claim.c).
 */
#ifndef CW_SUP_CLAIM_H
#define CW_SUP_CLAIM_H

#include <stdint.h>

#include "proto.h"

struct chain;

int		 claim_index(struct chain *, int64_t endpoint_id);
void		 claim_hold(struct chain *, int64_t endpoint_id,
		    const struct proto_header *, uint64_t seen_ms,
		    uint64_t now);
int		 claim_first_wait(struct chain *, int64_t endpoint_id,
		    const struct proto_head *, uint64_t now);
void		 claims_sweep(struct chain *, uint64_t now);
void		 claims_against(struct chain *, int64_t endpoint_id);
int		 claims_parent(struct chain *, const struct proto_header *);
void		 claims_expire(struct chain *, uint64_t now);
uint64_t	 claim_patience(const struct chain *);

#endif
