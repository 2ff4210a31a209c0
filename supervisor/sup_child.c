/*
 * The driver of a child process: spawn it, arm its backoff and grace
 * timers, TERM and KILL it, reap it and log how it ended, as sup_fsm()
 * decides.  The owner (sup_spawn.c, sup_metrics.c) only forks and execs,
 * keeps its own books on a death, and frees its struct.
 */
#include "config.h"

#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>

#include "chainwatchd.h"
#include "log.h"
#include "sandbox.h"
#include "sup_child.h"
#include "util.h"

static void	child_reap_cb(struct ev_loop *, ev_child *, int);
static void	child_timer_cb(struct ev_loop *, ev_timer *, int);

void
child_init(struct child *c, const struct child_ops *ops, void *owner,
    const char *tagfmt, ...)
{
	va_list	ap;

	va_start(ap, tagfmt);
	vsnprintf(c->tag, sizeof(c->tag), tagfmt, ap);
	va_end(ap);
	c->ops = ops;
	c->owner = owner;
	ev_init(&c->timer, child_timer_cb);
	c->timer.data = c;
}

static void
child_arm(struct child *c, uint64_t ms)
{
	ev_timer_stop(sup_loop, &c->timer);
	ev_timer_set(&c->timer, (double)ms / 1000.0, 0.);
	ev_timer_start(sup_loop, &c->timer);
}

static void
child_signal(struct child *c, int sig)
{
	if (kill(c->pid, sig) == -1 && errno != ESRCH)
		log_warn("%s: kill %d", c->tag, (int)c->pid);
}

static void
child_spawn(struct child *c)
{
	pid_t	pid;

	if ((pid = c->ops->spawn(c)) == -1) {
		child_event(c, CE_SPAWN_FAILED);
		return;
	}
	c->pid = pid;
	ev_child_init(&c->reaper, child_reap_cb, pid, 0);
	c->reaper.data = c;
	ev_child_start(sup_loop, &c->reaper);
	if (c->ops->no_hello)
		child_event(c, CE_HELLO);
}

/*
 * An exit that was asked for is news (info); any other is a warning.  A
 * KILL is always a warning: after a hang, a bad message or the grace time.
 */
static void
child_log_exit(const struct child *c, int status)
{
	int	stopping = sup_fsm_stopping(&c->fsm);

	if (WIFEXITED(status)) {
		int code = WEXITSTATUS(status);

		if (stopping && code == 0)
			log_info("%s: pid %d stopped", c->tag, (int)c->pid);
		else if (stopping)
			log_info("%s: pid %d stopped with status %d", c->tag,
			    (int)c->pid, code);
		else
			log_warnx("%s: pid %d exited with status %d%s", c->tag,
			    (int)c->pid, code, code == CW_EXIT_SETUP ?
			    " (setup failed)" : code == CW_EXIT_SANDBOX ?
			    " (killed by its sandbox)" : "");
	} else if (WIFSIGNALED(status)) {
		if (stopping && WTERMSIG(status) == SIGTERM)
			log_info("%s: pid %d stopped by signal %d", c->tag,
			    (int)c->pid, WTERMSIG(status));
		else
			log_warnx("%s: pid %d killed by signal %d", c->tag,
			    (int)c->pid, WTERMSIG(status));
	}
}

static void
child_reap_cb(struct ev_loop *loop, ev_child *w, int revents)
{
	struct child	*c = w->data;
	int		 status = w->rstatus;
	enum cevent	 ev = CE_EXIT;

	ev_child_stop(loop, w);
	if (WIFEXITED(status) && WEXITSTATUS(status) == CW_EXIT_SETUP)
		ev = CE_EXIT_SETUP;
	child_log_exit(c, status);
	if (c->ops->exited != NULL)
		c->ops->exited(c, status);
	c->pid = 0;
	child_event(c, ev);
}

/* One timer: the spawn when idle, the end of the grace time when stopping. */
static void
child_timer_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct child	*c = t->data;

	child_event(c, c->fsm.state == CS_IDLE ? CE_SPAWN_DUE : CE_GRACE_OVER);
}

/* Run one event through the state machine and carry out its actions. */
void
child_event(struct child *c, enum cevent ev)
{
	enum cstate	from = c->fsm.state;
	unsigned	restarts = c->fsm.restarts;
	uint64_t	now = now_mono_ms();
	unsigned	act = sup_fsm(&c->fsm, ev, now);

	log_debug("%s: %s + %s -> %s", c->tag, sup_cstate_name(from),
	    sup_cevent_name(ev), sup_cstate_name(c->fsm.state));
	if (c->fsm.restarts != restarts && c->ops->died != NULL)
		c->ops->died(c);
	if ((act & CA_KILL) && c->pid > 0) {
		child_signal(c, SIGKILL);
		ev_timer_stop(sup_loop, &c->timer);
	}
	if ((act & CA_TERM) && c->pid > 0) {
		child_signal(c, SIGTERM);
		child_arm(c, sup_conf->daemon.stop_timeout);
	}
	if (act & CA_PARK) {
		ev_timer_stop(sup_loop, &c->timer);
		log_warnx("%s: %s", c->tag, c->ops->parked);
	}
	if (act & CA_SCHEDULE) {
		uint64_t delay = sup_fsm_delay(&c->fsm, now);

		/* At shutdown nothing is respawned: CE_STOP frees it. */
		if (sup_stopping)
			ev_timer_stop(sup_loop, &c->timer);
		else {
			if (c->fsm.fails > 0)
				log_info("%s: restart %u, in %.1f s", c->tag,
				    c->fsm.restarts, (double)delay / 1000.0);
			child_arm(c, delay);
		}
	}
	if (act & CA_SPAWN)
		child_spawn(c);
	if (act & CA_FREE) {
		ev_timer_stop(sup_loop, &c->timer);
		c->ops->freed(c);
	}
}
