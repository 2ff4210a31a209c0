/*
 * chainwatchd, the supervisor: its workers, their state machine, and the
 * functions each supervisor file provides to the others.
 */
#ifndef CW_SUP_H
#define CW_SUP_H

#include <sys/types.h>

#include <ev.h>
#include <stdint.h>

#include "conf.h"
#include "msg.h"

/* The worker lifecycle (sup_fsm.c); see the table there. */
enum wstate {
	WS_IDLE,	/* not running; a spawn is scheduled */
	WS_STARTING,	/* running, its hello not yet received */
	WS_RUNNING,	/* running and set up */
	WS_STOPPING,	/* TERM or KILL sent, waiting for its exit */
	WS_FAILED,	/* failed its setup: parked until the config changes */
	WS_DEAD,	/* removed and reaped: to be freed */
};

enum wevent {
	WE_START,	/* a new endpoint */
	WE_SPAWN_DUE,	/* its backoff is over */
	WE_HELLO,	/* it finished its setup */
	WE_HANG,	/* missed 3 heartbeats */
	WE_BAD_MSG,	/* sent a malformed, unknown or oversized message */
	WE_EXIT,	/* exited or was killed */
	WE_EXIT_SETUP,	/* exited with CW_EXIT_SETUP */
	WE_STOP,	/* removed from the config, or shutdown */
	WE_RESTART,	/* its configuration changed */
	WE_GRACE_OVER,	/* stop_timeout passed after TERM */
};

/* Actions a transition asks for, carried out by sup_worker_event(). */
#define A_SPAWN		0x01
#define A_SCHEDULE	0x02	/* arm the spawn timer (backoff) */
#define A_TERM		0x04	/* SIGTERM, arm the grace timer */
#define A_KILL		0x08	/* SIGKILL */
#define A_COUNT_FAIL	0x10	/* an unplanned death: backoff grows */
#define A_FREE		0x20
#define A_PARK		0x40	/* log once that it is not respawned */
#define A_RESET_FAILS	0x80	/* a config change: start afresh */

struct wfsm {
	enum wstate	state;
	int		removing;	/* WE_STOP seen: free after exit */
};

unsigned	sup_fsm(struct wfsm *, enum wevent);
const char	*sup_wstate_name(enum wstate);
const char	*sup_wevent_name(enum wevent);

#define SPAWN_MIN_GAP_MS	1000	/* between two spawns of one endpoint */
#define BACKOFF_MAX_MS		60000
#define FAILS_RESET_MS		60000	/* a worker that lived this long */
#define HEARTBEATS_MISSED	3

uint64_t	sup_backoff_ms(unsigned fails);
uint64_t	sup_spawn_delay(uint64_t now, uint64_t last_spawn,
		    unsigned fails);

struct worker {
	struct worker	*next;
	char		 name[CONF_NAME_MAX + 1];
	char		 chain[CONF_NAME_MAX + 1];
	void		*cfg;		/* encoded MSG_CONFIG body */
	size_t		 cfg_len;
	struct wfsm	 fsm;
	pid_t		 pid;
	int		 fd;
	uint32_t	 gen;
	uint64_t	 last_spawn;	/* monotonic ms */
	uint64_t	 last_msg;
	unsigned	 fails;		/* unplanned deaths in a row */
	unsigned	 restarts;	/* unplanned deaths, ever */
	uint64_t	 rss_kb;	/* from its last heartbeat */
	struct msgq	 outq;
	ev_io		 io_r, io_w;
	ev_child	 child;
	ev_timer	 timer;		/* spawn, watchdog or grace */
};

/* chainwatchd.c */
extern struct conf	*sup_conf;
extern struct worker	*sup_workers;
extern int		 sup_stopping;
extern int		 sup_verbose;	/* -v: debug whatever the config says */
extern struct ev_loop	*sup_loop;

/* sup_spawn.c */
struct worker	*sup_worker_new(const struct conf *, const struct conf_chain *,
		    const struct conf_endpoint *);
void		 sup_worker_event(struct worker *, enum wevent);
void		 sup_worker_config(const struct conf *,
		    const struct conf_chain *, const struct conf_endpoint *,
		    void **, size_t *);
void		 sup_send(struct worker *, struct msgbuf *);
void		 sup_stop_all(void);

/* sup_dispatch.c */
void		 sup_dispatch_worker(struct worker *, const void *, long);

/* sup_reload.c */
void		 sup_reload(void);

/* sup_store.c */
int		 sup_store_open(const char *path);
void		 sup_store_close(void);

#endif
