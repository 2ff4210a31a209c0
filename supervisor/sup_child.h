/*
 * One driver for every child process of chainwatchd, the workers and
 * chainwatch-metrics alike (sup_child.c): it carries out what sup_fsm()
 * decides and reaps; its owner says how to spawn it and what a death means.
 */
#ifndef CW_SUP_CHILD_H
#define CW_SUP_CHILD_H

#include <sys/types.h>

#include <ev.h>

#include "sup_fsm.h"

struct child;

/* What only the owner of a child knows; exited and died may be NULL. */
struct child_ops {
	/* Fork and exec it: its pid, or -1 (logged) for CE_SPAWN_FAILED. */
	pid_t		(*spawn)(struct child *);
	/* It exited (its wait status), before the event runs: the owner's
	 * own books.  The state still says whether it was stopping. */
	void		(*exited)(struct child *, int status);
	/* An unplanned death was counted: c->fsm.restarts grew. */
	void		(*died)(struct child *);
	/* Removed and reaped: unlink and free the owner's struct. */
	void		(*freed)(struct child *);
	/* Running once forked: it has no hello to wait for. */
	int		  no_hello;
	/* Logged once when it failed its setup and is parked. */
	const char	 *parked;
};

#define CHILD_TAG_MAX	48

/* Embedded in its owner's struct; child_init() before the first event. */
struct child {
	struct cfsm		 fsm;		/* sup_fsm() writes it, alone */
	pid_t			 pid;		/* 0: not running */
	char			 tag[CHILD_TAG_MAX];	/* "w/a1-planck" */
	const struct child_ops	*ops;
	void			*owner;
	ev_child		 reaper;
	ev_timer		 timer;		/* spawn backoff, or grace */
};

void	child_init(struct child *, const struct child_ops *, void *owner,
	    const char *tagfmt, ...)
	    __attribute__((format(printf, 4, 5)));
void	child_event(struct child *, enum cevent);

#endif
