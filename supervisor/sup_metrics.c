/*
 * chainwatch-metrics as one more child of chainwatchd: started when
 * metrics_listen is not "none", restarted with the workers' backoff when
 * it dies, stopped at shutdown, restarted by a reload that changes its
 * command line.  The child driver (sup_child.c) runs it, without hello
 * or heartbeats: it reaches us only through the control socket, whose
 * clients we serve without blocking, so it can never stall this loop.
 */
#include "config.h"

#include <sys/resource.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "chainwatchd.h"
#include "sup_child.h"
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
	struct child	 proc;
	char		*argv[MPROC_ARGS];	/* argv[0]: the program */
	char		 cmdline[6 * CONF_URL_MAX];	/* to compare and show */
};

static struct mproc	*mprocs;

/*
 * Its command line from the configuration.  A root daemon gives it its
 * user, which the server drops to (it never runs as root), and its
 * control_group, which it keeps; without one, the control socket and the
 * store belong to the user's own group (sup_control_gid).
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
	if (d->metrics_cors_origin[0] != '\0') {
		v[n++] = "-o";
		v[n++] = d->metrics_cors_origin;
	}
	if (geteuid() == 0 && d->user[0] != '\0') {
		v[n++] = "-u";
		v[n++] = d->user;
	}
	if (geteuid() == 0 && d->user[0] != '\0' &&
	    d->control_group[0] != '\0') {
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

/*
 * The server runs this much below the daemon: on a machine whose cores
 * its readers keep busy, the daemon's heads are stored first.
 */
#define METRICS_NICE	10

/* The child: only the standard descriptors, default signals, exec. */
static void __attribute__((noreturn))
mproc_exec(struct mproc *m)
{
	int	prio;

	sup_spawn_child_fds(STDERR_FILENO);
	errno = 0;
	prio = getpriority(PRIO_PROCESS, 0);
	if ((prio != -1 || errno == 0) &&
	    setpriority(PRIO_PROCESS, 0, prio + METRICS_NICE) == -1)
		log_warn("metrics: setpriority %d", prio + METRICS_NICE);
	execv(m->argv[0], m->argv);
	log_warn("metrics: exec %s", m->argv[0]);
	_exit(CW_EXIT_SETUP);
}

static pid_t
mproc_spawn(struct child *c)
{
	struct mproc	*m = c->owner;
	pid_t		 pid;

	switch (pid = fork()) {
	case -1:
		log_warn("metrics: fork");
		return -1;
	case 0:
		mproc_exec(m);
	default:
		break;
	}
	log_debug("metrics: spawned pid %d: %s", (int)pid, m->cmdline);
	return pid;
}

static void
mproc_free(struct child *c)
{
	struct mproc	*m = c->owner, **pp;

	for (pp = &mprocs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	for (size_t i = 0; i < MPROC_ARGS; i++)
		free(m->argv[i]);
	free(m);
}

static const struct child_ops mproc_ops = {
	.spawn = mproc_spawn,
	.freed = mproc_free,
	.no_hello = 1,
	.parked = "chainwatch-metrics failed its setup; not restarting it "
	    "until its settings change",
};

static struct mproc *
mproc_new(const struct conf *conf)
{
	struct mproc	*m = xcalloc(1, sizeof(*m)), **pp;

	mproc_args(m, conf);
	child_init(&m->proc, &mproc_ops, m, "metrics");
	for (pp = &mprocs; *pp != NULL; pp = &(*pp)->next)
		;
	*pp = m;
	return m;
}

static struct mproc *
mproc_current(void)
{
	for (struct mproc *m = mprocs; m != NULL; m = m->next)
		if (m->proc.fsm.state != CS_REMOVING)
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
	child_event(&mproc_new(conf)->proc, CE_START);
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
		child_event(&m->proc, CE_STOP);
		return;
	}
	snprintf(was, sizeof(was), "%s", m->cmdline);
	mproc_args(m, conf);
	if (strcmp(was, m->cmdline) == 0)
		return;
	log_info("metrics: settings changed; restarting the metrics server");
	child_event(&m->proc, CE_RESTART);
}

void
sup_metrics_stop(void)
{
	struct mproc	*m, *next;

	for (m = mprocs; m != NULL; m = next) {
		next = m->next;
		child_event(&m->proc, CE_STOP);
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
