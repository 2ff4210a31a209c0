/*
 * Workers as processes (sup_spawn.c): one chainwatch-worker per endpoint,
 * started with fork + exec, watched by heartbeats; reaped and restarted
 * with backoff by the child driver (sup_child.c).  This file owns struct
 * worker and the list of them.
 */
#ifndef CW_SUP_SPAWN_H
#define CW_SUP_SPAWN_H

#include <sys/types.h>

#include <ev.h>
#include <stdint.h>

#include "conf.h"
#include "sup_chan.h"
#include "sup_child.h"
#include "sup_fsm.h"
#include "sup_primary.h"
#include "sup_load.h"

struct endpoint;

struct worker {
	struct worker	*next;
	char		 name[CONF_NAME_MAX + 1];
	void		*cfg;		/* encoded MSG_CONFIG body */
	size_t		 cfg_len;
	struct child	 proc;		/* its process: state, pid, restarts */
	struct chan	 chan;
	uint32_t	 gen;
	uint64_t	 last_msg;
	uint64_t	 rss_kb;	/* from its last heartbeat */
	uint64_t	 heap_kb;	/* its allocator's in use; 0: unknown */
	struct endpoint	*ep;		/* sup_health.c's */
	struct load	 load;		/* sup_load.h */
	struct sub_hold	 sub;		/* sup_primary.c's */
	ev_timer	 timer;		/* the heartbeat watchdog */
	int		 sandbox_nr;	/* the call its sandbox stopped; -1 */
};

extern struct worker	*sup_workers;

struct worker	*sup_worker_new(const struct conf *, const struct conf_chain *,
		    const struct conf_endpoint *);
void		 sup_worker_event(struct worker *, enum cevent);
void		 sup_worker_config(const struct conf *,
		    const struct conf_chain *, const struct conf_endpoint *,
		    void **, size_t *);
void		 sup_stop_all(void);
/* After workers came or went, or moved to another chain. */
void		 sup_spawn_chains(void);
/* The store takes writes again: the backlog is dispatched, in slices. */
void		 sup_spawn_resume(void);
/*
 * In a child between fork and exec: close every descriptor above last,
 * and give the program a clean signal state.
 */
void		 sup_spawn_child_fds(int last);

#endif
