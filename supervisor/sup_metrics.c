/*
 * chainwatch-metrics as one more child of chainwatchd: started when
 * metrics_listen is not "none", restarted with the workers' backoff when
 * it dies, stopped at shutdown, restarted by a reload that changes its
 * command line.  The worker lifecycle (sup_fsm.c) drives it, without hello
 * or heartbeats: it reaches us only through the control socket, whose
 * clients we serve without blocking, so it can never stall this loop.
 */
#include "config.h"

#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "chainwatchd.h"
#include "sup_fsm.h"
#include "sup_metrics.h"
#include "sup_spawn.h"
#include "util.h"

#define MPROC_ARGS	20

/*
 * One server.  There is one at a time, but a reload that turns it off and
 * on again can meet the old one still stopping: then there are two, the
 * old one CS_REMOVING, as with workers.
 */
struct mproc {
	struct mproc	*next;
	struct cfsm	 fsm;
	char		*argv[MPROC_ARGS];	/* argv[0]: the program */
	char		 cmdline[6 * CONF_URL_MAX];	/* to compare and show */
	pid_t		 pid;
	ev_child	 child;
	ev_timer	 timer;			/* spawn or grace */
};

static struct mproc	*mprocs;

static void	mproc_event(struct mproc *, enum cevent);

/*
 * Its command line from the configuration.  The user and group go only to
 * a root daemon with a control_group: then the server drops to the user
 * and keeps that group, which the control socket belongs to.
 */
static void
mproc_args(struct mproc *m, const struct conf *conf)
{
	const struct conf_daemon	*d = &conf->daemon;
	const char			*v[MPROC_ARGS];
	size_t				 n = 0, len = 0;

	v[n++] = d->metrics_server;
	v[n++] = "-l";
	v[n++] = d->metrics_listen;
	v[n++] = "-d";
	v[n++] = d->database;
	v[n++] = "-s";
	v[n++] = d->control_socket;
	v[n++] = "-L";
	v[n++] = log_level_name(sup_verbose ? LOG_LEVEL_DEBUG :
	    (enum log_level)d->log_level);
	if (log_tostderr())
		v[n++] = "-f";
	if (geteuid() == 0 && d->user[0] != '\0' &&
	    d->control_group[0] != '\0') {
		v[n++] = "-u";
		v[n++] = d->user;
		v[n++] = "-g";
		v[n++] = d->control_group;
	}
	for (size_t i = 0; i < MPROC_ARGS; i++) {
		free(m->argv[i]);
		m->argv[i] = i < n ? xstrdup(v[i]) : NULL;
	}
	/* Room for all: five values of CONF_URL_MAX and short options. */
	m->cmdline[0] = '\0';
	for (size_t i = 0; i < n && len < sizeof(m->cmdline); i++)
		len += (size_t)snprintf(m->cmdline + len,
		    sizeof(m->cmdline) - len, "%s%s", i > 0 ? " " : "", v[i]);
}

static void	mproc_child_cb(struct ev_loop *, ev_child *, int);
static void	mproc_timer_cb(struct ev_loop *, ev_timer *, int);

static struct mproc *
mproc_new(const struct conf *conf)
{
	struct mproc	*m = xcalloc(1, sizeof(*m)), **pp;

	mproc_args(m, conf);
	ev_init(&m->timer, mproc_timer_cb);
	m->timer.data = m;
	for (pp = &mprocs; *pp != NULL; pp = &(*pp)->next)
		;
	*pp = m;
	return m;
}

static void
mproc_free(struct mproc *m)
{
	struct mproc	**pp;

	for (pp = &mprocs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	ev_timer_stop(sup_loop, &m->timer);
	for (size_t i = 0; i < MPROC_ARGS; i++)
		free(m->argv[i]);
	free(m);
}

static void
timer_arm(struct mproc *m, uint64_t ms)
{
	ev_timer_stop(sup_loop, &m->timer);
	ev_timer_set(&m->timer, (double)ms / 1000.0, 0.);
	ev_timer_start(sup_loop, &m->timer);
}

/* The child: only the standard descriptors, default signals, exec. */
static void __attribute__((noreturn))
mproc_exec(struct mproc *m)
{
	sup_child_reset(STDERR_FILENO);
	execv(m->argv[0], m->argv);
	log_warn("metrics: exec %s", m->argv[0]);
	_exit(CW_EXIT_SETUP);
}

static void
mproc_spawn(struct mproc *m)
{
	pid_t	pid;

	switch (pid = fork()) {
	case -1:
		log_warn("metrics: fork");
		mproc_event(m, CE_SPAWN_FAILED);
		return;
	case 0:
		mproc_exec(m);
	default:
		break;
	}
	m->pid = pid;
	ev_child_init(&m->child, mproc_child_cb, pid, 0);
	m->child.data = m;
	ev_child_start(sup_loop, &m->child);
	log_debug("metrics: spawned pid %d: %s", (int)pid, m->cmdline);
	/* It has no hello to send: forked is running. */
	mproc_event(m, CE_HELLO);
}

static void
mproc_child_cb(struct ev_loop *loop, ev_child *c, int revents)
{
	struct mproc	*m = c->data;
	int		 status = c->rstatus, stopping;
	enum cevent	 ev = CE_EXIT;

	ev_child_stop(loop, c);
	stopping = sup_fsm_stopping(&m->fsm);
	if (WIFEXITED(status)) {
		if (WEXITSTATUS(status) == CW_EXIT_SETUP)
			ev = CE_EXIT_SETUP;
		if (stopping)
			log_info("metrics: pid %d stopped", (int)m->pid);
		else
			log_warnx("metrics: pid %d exited with status %d%s",
			    (int)m->pid, WEXITSTATUS(status),
			    ev == CE_EXIT_SETUP ? " (setup failed)" : "");
	} else if (WIFSIGNALED(status)) {
		if (stopping && WTERMSIG(status) == SIGTERM)
			log_info("metrics: pid %d stopped by signal %d",
			    (int)m->pid, WTERMSIG(status));
		else
			log_warnx("metrics: pid %d killed by signal %d",
			    (int)m->pid, WTERMSIG(status));
	}
	m->pid = 0;
	mproc_event(m, ev);
}

static void
mproc_timer_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct mproc	*m = t->data;

	if (m->fsm.state == CS_IDLE)
		mproc_event(m, CE_SPAWN_DUE);
	else if (sup_fsm_stopping(&m->fsm))
		mproc_event(m, CE_GRACE_OVER);
}

/* One event through the worker state machine; carry out its actions. */
static void
mproc_event(struct mproc *m, enum cevent ev)
{
	enum cstate	from = m->fsm.state;
	uint64_t	now = now_mono_ms();
	unsigned	act = sup_fsm(&m->fsm, ev, now);

	log_debug("metrics: %s + %s -> %s", sup_cstate_name(from),
	    sup_cevent_name(ev), sup_cstate_name(m->fsm.state));
	if ((act & CA_KILL) && m->pid > 0) {
		if (kill(m->pid, SIGKILL) == -1 && errno != ESRCH)
			log_warn("metrics: kill %d", (int)m->pid);
		ev_timer_stop(sup_loop, &m->timer);
	}
	if ((act & CA_TERM) && m->pid > 0) {
		if (kill(m->pid, SIGTERM) == -1 && errno != ESRCH)
			log_warn("metrics: kill %d", (int)m->pid);
		timer_arm(m, sup_conf->daemon.stop_timeout);
	}
	if (act & CA_PARK) {
		ev_timer_stop(sup_loop, &m->timer);
		log_warnx("metrics: chainwatch-metrics failed its setup; not "
		    "restarting it until its settings change");
	}
	if (act & CA_SCHEDULE) {
		uint64_t delay = sup_spawn_delay(&m->fsm, now);

		if (sup_stopping)
			ev_timer_stop(sup_loop, &m->timer);
		else {
			if (m->fsm.fails > 0)
				log_info("metrics: restart %u, in %.1f s",
				    m->fsm.restarts, (double)delay / 1000.0);
			timer_arm(m, delay);
		}
	}
	if (act & CA_SPAWN)
		mproc_spawn(m);
	if (act & CA_FREE)
		mproc_free(m);
}

static struct mproc *
mproc_current(void)
{
	for (struct mproc *m = mprocs; m != NULL; m = m->next)
		if (m->fsm.state != CS_REMOVING)
			return m;
	return NULL;
}

void
sup_metrics_start(const struct conf *conf)
{
	if (strcmp(conf->daemon.metrics_listen, "none") == 0) {
		log_debug("metrics: metrics_listen is none: no metrics server");
		return;
	}
	mproc_event(mproc_new(conf), CE_START);
}

/* After a reload: start, stop or restart it as its settings now say. */
void
sup_metrics_reload(const struct conf *conf)
{
	struct mproc	*m = mproc_current();
	char		 was[sizeof(m->cmdline)];
	int		 wanted;

	wanted = strcmp(conf->daemon.metrics_listen, "none") != 0;
	if (m == NULL) {
		if (wanted) {
			log_info("metrics: metrics_listen is %s now; starting "
			    "the metrics server", conf->daemon.metrics_listen);
			sup_metrics_start(conf);
		}
		return;
	}
	if (!wanted) {
		log_info("metrics: metrics_listen is none now; stopping the "
		    "metrics server");
		mproc_event(m, CE_STOP);
		return;
	}
	snprintf(was, sizeof(was), "%s", m->cmdline);
	mproc_args(m, conf);
	if (strcmp(was, m->cmdline) == 0)
		return;
	log_info("metrics: settings changed; restarting the metrics server");
	mproc_event(m, CE_RESTART);
}

void
sup_metrics_stop(void)
{
	struct mproc	*m, *next;

	for (m = mprocs; m != NULL; m = next) {
		next = m->next;
		mproc_event(m, CE_STOP);
	}
}

/*
 * After the main loop ended (the workers are gone): run it until the
 * metrics server is reaped too; its grace timer bounds the wait.
 */
void
sup_metrics_wait(void)
{
	sup_metrics_stop();
	while (mprocs != NULL)
		ev_run(sup_loop, EVRUN_ONCE);
}
