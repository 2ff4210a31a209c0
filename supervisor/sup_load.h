/*
 * A worker's load (sup_load.c): its requests out, its adaptive window
 * and its place in the route pass; written by the scheduler's files
 * (sup_sched.c, sup_tick.c, sup_reply.c) through this one.
 */
#ifndef CW_SUP_LOAD_H
#define CW_SUP_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "sup_depth.h"
#include "sup_route.h"

struct chain;
struct conf;
struct route_ep;
struct worker;

/*
 * A worker's share of the requests out, and how many it may have out
 * (its endpoint's adaptive window; cap 0 until its first scheduling);
 * only the scheduler writes it.
 */
struct load {
	unsigned	 inflight;
	unsigned	 live;		/* of them, reads of live blocks */
	struct depth	 depth;
	unsigned	 pass;		/* the scheduler pass of slot */
	size_t		 slot;		/* its place in that pass's route */
};

/*
 * The usable endpoints of a chain as the router sees them, built once a
 * pass of the scheduler (schedule, hedge) and kept exact through it: a
 * worker's requests out are written back as they change (load_changed).
 * Built for every worker that asked, it cost E * E a tick: at 2000
 * endpoints a fifth of the supervisor's time.  Whether the chain has
 * work due is kept the same way, asked again after each lease.
 */
struct route_pass {
	unsigned		 pass;
	size_t			 n, cap;
	struct route_ep		*e;
	struct worker		**ws;
	int			 due;		/* -1: ask the queue */
};

/*
 * What the scheduler keeps of each chain (load_of): the settings of its
 * requests, its hedging, and its route pass.
 */
struct chain_load {
	const struct chain	*ch;
	uint64_t		 request_timeout;	/* ms */
	unsigned		 max_inflight;	/* requests per endpoint */
	struct hedging		 hedging;	/* sup_route.c's */
	struct route_pass	 pass;
};

/* The scheduler's pass, a new one for each of schedule and hedge. */
extern unsigned	 load_pass;

struct chain_load *load_of(const struct chain *);
/* Each configured chain's settings, at start and on reload. */
void		 load_conf(const struct conf *);

struct depth	*load_depth(struct worker *, const struct chain *);
void		 load_changed(struct worker *);
size_t		 load_route_eps(const struct chain *, const struct worker *,
		    uint64_t now, struct route_ep **, struct worker ***who,
		    size_t *self);
int		 load_has_due(struct chain *);
void		 load_forget(void);

#endif
