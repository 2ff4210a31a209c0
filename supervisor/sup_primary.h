/*
 * subscribe = primary (sup_primary.c): one new-heads subscription per
 * chain at a time, moved among its workers as the rules of sup_subs.c
 * say, by telling each one (MSG_SUBSCRIBE) to take or give it up.
 */
#ifndef CW_SUP_PRIMARY_H
#define CW_SUP_PRIMARY_H

#include <stdint.h>

#include "proto.h"

struct worker;

/* A worker's part in it; only sup_primary.c writes it. */
struct sub_hold {
	int		 held;		/* holds its chain's subscription */
	uint32_t	 told_gen;	/* the process told to take it, 0: none */
	int		 usable;	/* at the last look */
	uint64_t	 usable_since;	/* mono ms */
	uint64_t	 failed;	/* mono ms of its last failure, 0: none */
	uint64_t	 since;		/* mono ms: told, live, or its last
					 * new head */
	uint64_t	 held_at;	/* wall ms: told to take it */
	int		 live;
	int		 have_best;
	uint64_t	 best;		/* its best new head since told */
	char		 why[PROTO_WHY_MAX + 64];	/* of its last failure */
};

struct json_t;

/*
 * Who holds the chain's subscription, for the control socket's status:
 * sets "subscribe" ("all" or "primary") and "subscription" on the chain's
 * object j: {"endpoint", "live", "since" (wall ms)}, or null under all
 * or when no endpoint holds it.
 */
void	sup_primary_json(const char *chain, struct json_t *j);
/* Look at every chain under subscribe = primary: called every tick. */
void	sup_primary_tick(void);
/* A worker's MSG_SUB and MSG_HEAD, as far as the subscription goes. */
void	sup_primary_sub(struct worker *, const struct proto_sub *);
void	sup_primary_head(struct worker *, const struct proto_head *);

#endif
