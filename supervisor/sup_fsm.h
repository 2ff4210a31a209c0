/*
 * The lifecycle of a child process of chainwatchd (a worker or
 * chainwatch-metrics) as one pure transition function, and the respawn
 * backoff (sup_fsm.c).
 */
#ifndef CW_SUP_FSM_H
#define CW_SUP_FSM_H

#include <stdint.h>

/* See the table in sup_fsm.c.  A zeroed struct cfsm is IDLE, never spawned. */
enum cstate {
	CS_IDLE = 0,	/* not running; a spawn is scheduled */
	CS_STARTING,	/* running, its hello not yet received */
	CS_RUNNING,	/* running and set up */
	CS_STOPPING,	/* TERM or KILL sent, waiting for its exit */
	CS_REMOVING,	/* the same, then freed: removed or shut down */
	CS_FAILED,	/* failed its setup: parked until the config changes */
	CS_DEAD,	/* removed and reaped: to be freed */
};

enum cevent {
	CE_START,	/* a new endpoint */
	CE_SPAWN_DUE,	/* its backoff is over */
	CE_SPAWN_FAILED, /* fork or socketpair failed: no process */
	CE_HELLO,	/* it finished its setup */
	CE_HANG,	/* missed 3 heartbeats */
	CE_BAD_MSG,	/* sent a malformed, unknown or oversized message */
	CE_EXIT,	/* exited or was killed */
	CE_EXIT_SETUP,	/* exited with CW_EXIT_SETUP */
	CE_STOP,	/* removed from the config, or shutdown */
	CE_RESTART,	/* its configuration changed */
	CE_GRACE_OVER,	/* stop_timeout passed after TERM */
};

/* Actions a transition asks of its driver. */
#define CA_SPAWN	0x01
#define CA_SCHEDULE	0x02	/* arm the spawn timer: sup_fsm_delay() */
#define CA_TERM		0x04	/* SIGTERM, arm the grace timer */
#define CA_KILL		0x08	/* SIGKILL */
#define CA_FREE		0x10
#define CA_PARK		0x20	/* log once that it is not respawned */

/* Only sup_fsm() writes these; the others read them. */
struct cfsm {
	enum cstate	state;
	uint64_t	last_spawn;	/* monotonic ms; 0: never spawned */
	unsigned	fails;		/* unplanned deaths in a row */
	unsigned	restarts;	/* unplanned deaths, ever */
};

unsigned	sup_fsm(struct cfsm *, enum cevent, uint64_t now);
int		sup_fsm_stopping(const struct cfsm *);
const char	*sup_cstate_name(enum cstate);
const char	*sup_cevent_name(enum cevent);

#define SPAWN_MIN_GAP_MS	1000	/* between two spawns of one child */
#define BACKOFF_MAX_MS		60000
#define FAILS_RESET_MS		60000	/* one that lived this long: fails 0 */
#define HEARTBEATS_MISSED	3

uint64_t	sup_backoff_ms(unsigned fails);
uint64_t	sup_fsm_delay(const struct cfsm *, uint64_t now);

#endif
