/*
 * Finality and the chain's row (sup_final.c).
 */
#ifndef CW_SUP_FINAL_H
#define CW_SUP_FINAL_H

#include <stdint.h>

#include "proto.h"

struct chain;

void		 final_advance(struct chain *);
void		 final_save_best(struct chain *, uint64_t now);
void		 final_check(struct chain *, uint64_t now);
void		 final_reported(struct chain *, int64_t endpoint_id,
		    const struct proto_header *, uint64_t now);

#endif
