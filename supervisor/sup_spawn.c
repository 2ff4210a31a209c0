/*
 * Workers: fork + exec of chainwatch-worker with its socket on MSG_FD, its
 * messages in and out, the heartbeat watchdog, and what its death means
 * for its endpoint.  sup_child.c drives the process through sup_fsm().
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chainwatchd.h"
#include "log.h"
#include "proto.h"
#include "sandbox.h"
#include "sup_backlog.h"
#include "sup_chain.h"
#include "sup_dispatch.h"
#include "sup_health.h"
#include "sup_sched.h"
#include "sup_spawn.h"
#include "sup_store.h"
#include "util.h"

struct worker	*sup_workers;

/*
 * What waits is kept in the backlog (sup_backlog.c): a backfill's answers
 * always, behind live work (sup_dispatch_class), and while the store is
 * blocked everything but heartbeats.  It is taken a slice a turn of the
 * loop.  At its cap the sockets are not read (backpressure), and the
 * heartbeat watchdog, which cannot hear them then, waits too.
 */
static int	 reading_paused;
static int	 store_waited;	/* the backlog holds what the store could not
				 * take: all waits till it is taken */
static ev_timer	 drain_timer;
#define DRAIN_SLICE	256	/* messages per turn of the loop */
#define DRAIN_WAL_WAIT	0.010	/* s: the WAL's catching up asked again */
#define DRAIN_SLICE_MS	5	/* of waiting answers per turn: live work
				 * waits at most about that behind them */
#define READ_SLICE_MS	20	/* a worker's socket read per turn, at most */

static uint32_t	sup_generation;

static void	worker_read_cb(struct ev_loop *, ev_io *, int);
static void	drain_soon(void);
static void	reading_set(int);
static void	worker_timer_cb(struct ev_loop *, ev_timer *, int);
static pid_t	worker_spawn(struct child *);
static void	worker_exited(struct child *, int);
static void	worker_died(struct child *);
static void	worker_free(struct child *);

static const struct child_ops worker_ops = {
	.spawn = worker_spawn,
	.exited = worker_exited,
	.died = worker_died,
	.freed = worker_free,
	.parked = "worker failed its setup; not restarting it until the "
	    "configuration changes",
};

/*
 * The MSG_CONFIG body of one endpoint.  Two configurations of an endpoint
 * are the same exactly when these bytes are: that is how reload decides
 * which workers to keep.
 */
void
sup_worker_config(const struct conf *conf, const struct conf_chain *ch,
    const struct conf_endpoint *ep, void **body, size_t *len)
{
	struct proto_config	pc;
	struct msgbuf		mb;

	memset(&pc, 0, sizeof(pc));
	snprintf(pc.chain, sizeof(pc.chain), "%s", ch->name);
	snprintf(pc.name, sizeof(pc.name), "%s", ep->name);
	snprintf(pc.rpc_url, sizeof(pc.rpc_url), "%s", ep->rpc_url);
	snprintf(pc.ws_url, sizeof(pc.ws_url), "%s", ep->ws_url);
	snprintf(pc.user, sizeof(pc.user), "%s", conf->daemon.user);
	pc.format = ch->format;
	pc.block_time = ch->block_time;
	pc.stall_factor = ch->stall_factor;
	pc.subscribe = ch->subscribe;
	pc.connect_timeout = ch->connect_timeout;
	pc.request_timeout = ch->request_timeout;
	pc.max_response = ch->max_response;
	pc.max_inflight = ch->max_inflight;
	pc.memory_limit = conf->daemon.worker_memory_limit;
	pc.heartbeat = conf->daemon.heartbeat_interval;
	/* chainwatchd -v: workers log at debug too, whatever the key. */
	pc.log_level = sup_verbose ? LOG_LEVEL_DEBUG : conf->daemon.log_level;
	pc.log_stderr = (uint64_t)log_tostderr();
	snprintf(pc.secret_params, sizeof(pc.secret_params), "%s",
	    conf->daemon.secret_params);
	proto_pack_config_body(&mb, &pc);
	*len = mb.sb.size;
	*body = msgpack_sbuffer_release(&mb.sb);
	msg_done(&mb);
}

/* Each chain's list of its workers, made again from the daemon's. */
void
sup_spawn_chains(void)
{
	struct chain *const	*all;
	size_t			 n;

	all = sup_chains_all(&n);
	for (size_t i = 0; i < n; i++)
		all[i]->n_workers = 0;
	for (struct worker *w = sup_workers; w != NULL; w = w->next) {
		struct chain	*ch = w->ep->ch;

		if (ch->n_workers == ch->cap_workers) {
			ch->cap_workers = ch->cap_workers == 0 ? 8 :
			    ch->cap_workers * 2;
			ch->workers = xrealloc(ch->workers, ch->cap_workers *
			    sizeof(*ch->workers));
		}
		ch->workers[ch->n_workers++] = w;
	}
}

struct worker *
sup_worker_new(const struct conf *conf, const struct conf_chain *ch,
    const struct conf_endpoint *ep)
{
	struct worker	*w = xcalloc(1, sizeof(*w));

	snprintf(w->name, sizeof(w->name), "%s", ep->name);
	sup_worker_config(conf, ch, ep, &w->cfg, &w->cfg_len);
	w->ep = health_new(ch, ep);
	chan_init(&w->chan, w->name, worker_read_cb, w);
	child_init(&w->proc, &worker_ops, w, "w/%s", w->name);
	ev_init(&w->timer, worker_timer_cb);
	w->timer.data = w;
	/* Append, so that workers start in configuration order. */
	{
		struct worker **pp = &sup_workers;

		while (*pp != NULL)
			pp = &(*pp)->next;
		*pp = w;
	}
	sup_spawn_chains();
	return w;
}

static void
worker_free(struct child *c)
{
	struct worker	*w = c->owner, **pp;

	for (pp = &sup_workers; *pp != NULL; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	ev_timer_stop(sup_loop, &w->timer);
	chan_close(&w->chan);
	/* What it sent that still waits: its leases went back already. */
	backlog_drop(w);
	if (reading_paused && backlog_low())
		reading_set(0);
	sup_spawn_chains();
	health_free(w->ep);
	free(w->cfg);
	free(w);
	if (sup_stopping && sup_workers == NULL)
		ev_break(sup_loop, EVBREAK_ALL);
}

static void
timer_arm(struct worker *w, uint64_t ms)
{
	ev_timer_stop(sup_loop, &w->timer);
	ev_timer_set(&w->timer, (double)ms / 1000.0, 0.);
	ev_timer_start(sup_loop, &w->timer);
}

/*
 * Workers and chainwatch-metrics alike: a child must not hold the
 * daemon's sockets and files open, nor inherit its blocked signals.
 */
void
sup_spawn_child_fds(int last)
{
	sigset_t	 set;

#ifdef HAVE_CLOSE_RANGE
	if (close_range((unsigned)last + 1, ~0U, 0) == -1)
#endif
	{
		struct rlimit	rl;
		int		maxfd = 1024;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
		    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 65536)
			maxfd = (int)rl.rlim_cur;
		for (int i = last + 1; i < maxfd; i++)
			(void)close(i);
	}
	/* Exec keeps ignored signals and the mask. */
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
}

/* The child: put the socket on MSG_FD, close everything else, exec. */
static void __attribute__((noreturn))
worker_exec(struct worker *w, int fd)
{
	const char	*path = sup_conf->daemon.worker;
	char		*argv[3];

	if (fd == MSG_FD) {
		if (fcntl(fd, F_SETFD, 0) == -1)
			_exit(CW_EXIT_SYSTEM);
	} else if (dup2(fd, MSG_FD) == -1)
		_exit(CW_EXIT_SYSTEM);
	sup_spawn_child_fds(MSG_FD);
	argv[0] = "chainwatch-worker";
	argv[1] = w->name;
	argv[2] = NULL;
	execv(path, argv);
	log_warn("w/%s: exec %s", w->name, path);
	_exit(CW_EXIT_SETUP);
}

static pid_t
worker_spawn(struct child *c)
{
	static int	warned_sockbuf;
	struct worker	*w = c->owner;
	struct msgbuf	mb;
	int		sv[2];
	pid_t		pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1) {
		log_warn("w/%s: socketpair", w->name);
		return -1;
	}
	if ((msg_sockbuf(sv[0]) == -1 || msg_sockbuf(sv[1]) == -1) &&
	    !warned_sockbuf) {
		log_warnx("sockets refuse %d-byte messages (raise "
		    "net.core.wmem_max); large messages will fail", MSG_MAX);
		warned_sockbuf = 1;
	}
	w->gen = ++sup_generation;
	w->sandbox_nr = -1;
	health_spawned(w->ep);
	switch (pid = fork()) {
	case -1:
		log_warn("w/%s: fork", w->name);
		close(sv[0]);
		close(sv[1]);
		return -1;
	case 0:
		worker_exec(w, sv[1]);
	default:
		break;
	}
	close(sv[1]);
	if (fcntl(sv[0], F_SETFL, O_NONBLOCK) == -1)
		fatal(CW_EXIT_SYSTEM, "fcntl");
	chan_open(&w->chan, sv[0]);
	w->last_msg = now_mono_ms();
	msg_begin_raw(&mb, MSG_CONFIG, w->gen, w->cfg, w->cfg_len);
	chan_send(&w->chan, &mb);
	timer_arm(w, HEARTBEATS_MISSED * sup_conf->daemon.heartbeat_interval);
	log_debug("w/%s: spawned pid %d, generation %u", w->name, (int)pid,
	    w->gen);
	return pid;
}

/* It misbehaved: nothing it says afterwards can be trusted. */
static void
bad_message(struct worker *w, const char *why)
{
	log_warnx("w/%s: pid %d sent a bad message (%s); killing it", w->name,
	    (int)w->proc.pid, why);
	sched_health(w, health_lost(w->ep, "worker sent a bad message"));
	sup_worker_event(w, CE_BAD_MSG);
}

/* One message of w: 0 to go on, -1 when w is to be read no more. */
static int
worker_msg(struct worker *w, const void *buf, long n)
{
	char		 why[128];
	uint64_t	 rss, heap;

	switch (sup_dispatch_worker(w, buf, n, &rss, &heap, why,
	    sizeof(why))) {
	case DV_STALE:
		break;
	case DV_BAD:
		backlog_drop(w);
		bad_message(w, why);
		return -1;
	case DV_HELLO:
		w->last_msg = now_mono_ms();
		log_info("w/%s: worker pid %d ready (generation %u)",
		    w->name, (int)w->proc.pid, w->gen);
		sup_worker_event(w, CE_HELLO);
		break;
	case DV_HEARTBEAT:
		w->rss_kb = rss;
		w->heap_kb = heap;
		/* FALLTHROUGH */
	case DV_OK:
		w->last_msg = now_mono_ms();
		break;
	}
	if (w->proc.fsm.state != CS_STARTING &&
	    w->proc.fsm.state != CS_RUNNING)
		return -1;
	return 0;
}

/* Stop or start reading every worker's socket. */
static void
reading_set(int paused)
{
	uint64_t	now = now_mono_ms();

	if (paused == reading_paused)
		return;
	reading_paused = paused;
	for (struct worker *w = sup_workers; w != NULL; w = w->next) {
		if (w->chan.fd == -1)
			continue;
		if (paused)
			ev_io_stop(sup_loop, &w->chan.io_r);
		else {
			/* Their heartbeats waited in the sockets. */
			w->last_msg = now;
			ev_io_start(sup_loop, &w->chan.io_r);
		}
	}
	if (paused)
		log_warnx("%s%zu messages (%zu bytes) from workers wait in "
		    "memory, the cap; workers are not read until the store "
		    "takes them", store_waited ? "store blocked: " : "",
		    backlog_count(), backlog_bytes());
	else
		log_info("reading workers again (%zu messages wait)",
		    backlog_count());
}

/*
 * Messages that waited, in the order they came, a slice per turn of the
 * loop so that a long backlog cannot hold up a signal, a head or a live
 * read.
 */
static void
drain_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct backlog_msg	*m;
	uint64_t		 t0 = now_mono_ms();

	/*
	 * While the checkpoints are behind a backfill's writes, its answers
	 * wait and the rest goes on (sup_store.c); not after a blocked
	 * store, when what waits is everything, in order.
	 */
	if (!store_waited && store_wal_behind()) {
		ev_timer_set(&drain_timer, DRAIN_WAL_WAIT, 0.);
		ev_timer_start(sup_loop, &drain_timer);
		return;
	}
	for (int i = 0; i < DRAIN_SLICE && !backlog_empty() &&
	    now_mono_ms() - t0 < DRAIN_SLICE_MS; i++) {
		if (!store_ready())
			return;		/* sup_spawn_resume() comes again */
		m = backlog_pop();
		(void)worker_msg((struct worker *)m->owner, m->data,
		    (long)m->len);
		free(m);
	}
	if (reading_paused && backlog_low())
		reading_set(0);
	if (!backlog_empty())
		drain_soon();
	else if (store_waited) {
		store_waited = 0;
		log_info("store: every message that waited was taken");
	}
}

static void
drain_soon(void)
{
	if (ev_cb(&drain_timer) == NULL)
		ev_init(&drain_timer, drain_cb);
	if (ev_is_active(&drain_timer))
		return;
	ev_timer_set(&drain_timer, 0., 0.);
	ev_timer_start(sup_loop, &drain_timer);
}

/* The store can be written again: what waited goes in first. */
void
sup_spawn_resume(void)
{
	if (backlog_empty()) {
		reading_set(0);
		return;
	}
	drain_soon();
}

static void
worker_read_cb(struct ev_loop *loop, ev_io *io, int revents)
{
	static char	 buf[MSG_MAX];
	struct worker	*w = io->data;
	uint64_t	 t0 = now_mono_ms();
	enum dispatch_class c;
	long		 n;
	int		 nr;

	/*
	 * A bounded number per wakeup, and a bounded time (a head or a live
	 * read is stored at once): no worker starves the others or the
	 * timers; what is left is read at the next turn of the loop.
	 */
	for (int i = 0; i < 64 && w->chan.fd != -1 &&
	    now_mono_ms() - t0 < READ_SLICE_MS; i++) {
		n = msg_recv(w->chan.fd, buf);
		if (n == -1) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				log_warn("w/%s: recv", w->name);
			return;
		}
		if (n == 0) {
			/* Closed: wait for the reaper to say how it ended. */
			chan_quiet(&w->chan);
			return;
		}
		/* Its last word: the sandbox stopped it (worker_exited). */
		if ((nr = sandbox_report_parse(buf, (size_t)n)) >= 0) {
			w->sandbox_nr = nr;
			continue;
		}
		/*
		 * A backfill's answer waits, taken a slice a turn: a head
		 * or a live read behind it, from this worker or another, is
		 * not held up by the hundred blocks it stores.  Once the
		 * store was blocked everything waits but a heartbeat, which
		 * writes nothing, until all that waited is taken: in the
		 * order it came (a hello before its worker's heads).
		 */
		c = sup_dispatch_class(w, buf, n);
		if (c == DC_HEARTBEAT || (c == DC_NOW && store_ready() &&
		    !store_waited)) {
			if (worker_msg(w, buf, n) == -1)
				return;
			continue;
		}
		backlog_push(w, buf, (size_t)n);
		if (store_ready())
			drain_soon();
		else
			store_waited = 1;
		if (backlog_full()) {
			reading_set(1);
			return;
		}
	}
}

/*
 * Its sandbox stopped it: which call, from the packet its trap sent
 * before exiting, which may still wait in the socket when it is reaped.
 */
static void
worker_sandbox_log(struct worker *w)
{
	char	buf[SANDBOX_REPORT_MAX * 4], line[128];
	long	n;

	while (w->sandbox_nr == -1 && w->chan.fd != -1 &&
	    (n = recv(w->chan.fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		w->sandbox_nr = sandbox_report_parse(buf, (size_t)n);
	sandbox_describe(w->sandbox_nr, line, sizeof(line));
	log_warnx("w/%s: %s", w->name, line);
}

/* Its process is gone; sup_child.c logged how and runs the event next. */
static void
worker_exited(struct child *c, int status)
{
	struct worker	*w = c->owner;

	if (WIFEXITED(status) && WEXITSTATUS(status) == CW_EXIT_SANDBOX)
		worker_sandbox_log(w);
	ev_timer_stop(sup_loop, &w->timer);
	chan_close(&w->chan);
	sched_worker_gone(w);
	{
		char how[64];

		if (WIFSIGNALED(status))
			snprintf(how, sizeof(how), "signal %d",
			    WTERMSIG(status));
		else
			snprintf(how, sizeof(how), "status %d",
			    WEXITSTATUS(status));
		health_event(w->ep, sup_fsm_stopping(&c->fsm) ?
		    "stopped" : "died", how);
	}
	/* An unplanned death is its endpoint's failure too. */
	if (c->fsm.state == CS_STARTING || c->fsm.state == CS_RUNNING) {
		char why[96];

		sched_health(w, health_outcome(w->ep, w->ep->brk.gen,
		    OUTCOME_TRANSPORT, 0));
		if (WIFEXITED(status) && WEXITSTATUS(status) == CW_EXIT_SETUP)
			snprintf(why, sizeof(why), "worker failed its setup");
		else if (WIFEXITED(status) &&
		    WEXITSTATUS(status) == CW_EXIT_SANDBOX)
			sandbox_describe(w->sandbox_nr, why, sizeof(why));
		else if (WIFSIGNALED(status))
			snprintf(why, sizeof(why), "worker died: signal %d",
			    WTERMSIG(status));
		else
			snprintf(why, sizeof(why), "worker died: status %d",
			    WEXITSTATUS(status));
		sched_health(w, health_lost(w->ep, why));
	} else
		sched_health(w, health_exited(w->ep));
}

/* The store keeps its count of restarts. */
static void
worker_died(struct child *c)
{
	struct worker	*w = c->owner;

	health_restarts(w->ep, c->fsm.restarts);
}

/* Does the worker's socket hold bytes this loop has not read? */
static int
unread(const struct worker *w)
{
	int	n = 0;

	return w->chan.fd != -1 && ioctl(w->chan.fd, FIONREAD, &n) == 0 &&
	    n > 0;
}

/*
 * The heartbeat watchdog.  Its timer is the worker's, not the child's: the
 * heartbeats are the worker protocol's (the metrics server has none), it
 * runs only while the process does, and so the child's one timer means a
 * spawn or a grace time by the state alone.
 */
static void
worker_timer_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct worker	*w = t->data;
	uint64_t	 limit, now, idle;

	switch (w->proc.fsm.state) {
	case CS_STARTING:
	case CS_RUNNING:
		now = now_mono_ms();
		limit = HEARTBEATS_MISSED * sup_conf->daemon.heartbeat_interval;
		/* Not read, not heard: not to be judged for it. */
		if (reading_paused) {
			timer_arm(w, limit);
			break;
		}
		idle = now - w->last_msg;
		limit = HEARTBEATS_MISSED * sup_conf->daemon.heartbeat_interval;
		/*
		 * Bytes wait in its socket: it spoke, and this loop was too
		 * busy to read it yet (a big batch to store, a loaded
		 * machine).  Silent is nothing sent, not nothing read.
		 */
		if (idle >= limit && unread(w)) {
			w->last_msg = now;
			idle = 0;
		}
		if (idle >= limit) {
			log_warnx("w/%s: pid %d sent nothing for %.1f s "
			    "(%d heartbeats missed); killing it", w->name,
			    (int)w->proc.pid, (double)idle / 1000.0,
			    HEARTBEATS_MISSED);
			/* A hung worker is its endpoint's failure too. */
			sched_health(w, health_outcome(w->ep, w->ep->brk.gen,
			    OUTCOME_TIMEOUT, 0));
			{
				char why[96];

				snprintf(why, sizeof(why), "silent for %.1f s",
				    (double)idle / 1000.0);
				health_event(w->ep, "hung", why);
				snprintf(why, sizeof(why), "worker hung: "
				    "silent for %.1f s", (double)idle / 1000.0);
				sched_health(w, health_lost(w->ep, why));
			}
			sup_worker_event(w, CE_HANG);
		} else
			timer_arm(w, limit - idle);
		break;
	default:
		break;
	}
}

/* A worker's lifecycle is its process's: sup_child.c carries it out. */
void
sup_worker_event(struct worker *w, enum cevent ev)
{
	child_event(&w->proc, ev);
}

/* Shutdown: TERM everything; the loop ends when the last one is freed. */
void
sup_stop_all(void)
{
	struct worker	*w, *next;

	sup_stopping = 1;
	if (sup_workers == NULL) {
		ev_break(sup_loop, EVBREAK_ALL);
		return;
	}
	for (w = sup_workers; w != NULL; w = next) {
		next = w->next;
		sup_worker_event(w, CE_STOP);
	}
}
