/*
 * Forks between endpoints, as chainwatchd records them (sup_forks.c):
 * each endpoint's tip as its heads arrive, and once a second the splits
 * between them (src/forks.c says when there is one), in the store's
 * endpoints, splits and split_sides.  It reads the blocks, and calls
 * nothing in the supervisor but the store.
 */
#ifndef CW_SUP_FORKS_H
#define CW_SUP_FORKS_H

#include <stdint.h>

#include "proto.h"

void	sup_forks_init(void);
void	sup_forks_stop(void);
/* A head an endpoint announced, once the chain has it. */
void	sup_forks_head(int64_t endpoint_id, const struct proto_head *);
/* Judge every chain's tips now (the timer calls it). */
void	sup_forks_tick(void);

#endif
