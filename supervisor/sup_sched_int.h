/*
 * The scheduler's requests and leases as its own files share them
 * (sup_sched.c keeps them; sup_tick.c, sup_judge.c and sup_reply.c use
 * them); not for the rest of the daemon, which sees sup_sched.h.
 */
#ifndef CW_SUP_SCHED_INT_H
#define CW_SUP_SCHED_INT_H

#include <stddef.h>
#include <stdint.h>

#include <ev.h>

#include "sup_lease.h"
#include "sup_queue.h"

struct chain;
struct worker;

/* A request out to a worker. */
struct request {
	struct request	*next;
	uint64_t	 id;
	struct worker	*w;
	struct chain	*ch;
	struct held	*held;		/* its lease; NULL: straggler, trial */
	int		 hedge;		/* the hedge of its lease's first */
	int		 live;		/* counted in its worker's load.live */
	enum item_kind	 kind;
	uint32_t	 brk_gen;	/* the breaker's when it was sent */
	uint64_t	 sent;		/* monotonic ms */
	uint64_t	 arrived;	/* its answer came, waits; 0: not yet */
	size_t		 n;		/* state: blocks asked about */
	uint8_t		(*hashes)[32];
	int64_t		*numbers;	/* state: their numbers */
	int64_t		 number;	/* runtime: the block's number */
	int64_t		 from;		/* headers: the first number asked */
	size_t		 keys;		/* state: storage keys asked */
};

/* A lease as the scheduler holds it: its item and its requests out. */
struct held {
	struct held	*next;
	struct lease	 l;
	struct qitem	 it;
	struct chain	*ch;
	struct request	*req[2];	/* the first, and its hedge */
};

extern struct held	*sched_helds;
extern uint64_t		 sched_next_req;	/* the id of the next request */
extern int		 sched_reset_owed;

struct request	*sched_request_new(struct worker *, struct chain *,
		    enum item_kind);
void		 sched_request_free(struct request *);
void		 sched_request_live(struct request *);
struct request	*sched_request_find(struct worker *, uint64_t id);
int		 sched_held_arrived(const struct held *);
uint64_t	 sched_shown_deadline(const struct lease *);
void		 sched_lease_apply(struct held *, unsigned act, enum outcome,
		    const char *why, int64_t endpoint);
uint64_t	 sched_waiting(const struct worker *);
void		 sched_start(void (*)(struct ev_loop *, ev_timer *, int));

#endif
