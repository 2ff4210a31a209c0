/*
 * chainwatch-worker: the process that does one endpoint's network I/O.
 * It takes its configuration from the supervisor over MSG_FD, limits its
 * memory, drops privileges, then runs its own libev loop, heartbeating,
 * until the supervisor's socket closes or it is told to stop.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <curl/curl.h>
#include <sodium.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "header.h"
#include "log.h"
#include "sandbox.h"
#include "util.h"
#include "wrk.h"
#include "wrk_sandbox.h"

#define CONFIG_WAIT_MS	10000	/* the supervisor sends it at once */

uint32_t		 wrk_gen;

static struct wrk_conf	 wc;
static struct ev_loop	*wrk_loop;
/*
 * Two queues to the supervisor.  Big messages (answers of many blocks,
 * the bulk of a backfill) go out only while the socket holds less than
 * WRK_BULK_UNREAD bytes the supervisor has not read; everything else
 * (heads, live reads' answers, outcomes, heartbeats) goes first.  The
 * socket's buffer takes two of the largest messages, and a head queued
 * behind two megabytes of backfill waited seconds at full speed.
 */
#define WRK_URGENT_MAX	2048		/* bytes: at most this goes first */
#define WRK_BULK_UNREAD	(64 * 1024)
#define WRK_BULK_POLL	0.002		/* s: looking again while held */

static struct msgq	 wrk_outq, wrk_bulkq;
static ev_io		 wrk_io_r, wrk_io_w;
static ev_timer		 wrk_bulk_t;
static ev_timer		 wrk_hb;
static uint64_t		 wrk_conf_hb;	/* ms: the heartbeat's interval */
static uint64_t		 wrk_hb_ms;	/* the last one sent */
static char		 wrk_buf[MSG_MAX];
static int		 wrk_statm = -1;	/* opened before the sandbox */

/* Sends what may go now, and watches for when more may. */
static void
wrk_flush(void)
{
	int	rc = msgq_flush(&wrk_outq, MSG_FD);

	if (rc == 0 && msgq_bytes(&wrk_bulkq) > 0)
		rc = msgq_flush_below(&wrk_bulkq, MSG_FD, WRK_BULK_UNREAD);
	switch (rc) {
	case -1:
		log_info("supervisor gone (%s); exiting", strerror(errno));
		exit(CW_EXIT_OK);
	case 1:
		ev_timer_stop(wrk_loop, &wrk_bulk_t);
		ev_io_start(wrk_loop, &wrk_io_w);
		break;
	case 2:
		ev_io_stop(wrk_loop, &wrk_io_w);
		if (!ev_is_active(&wrk_bulk_t))
			ev_timer_start(wrk_loop, &wrk_bulk_t);
		break;
	default:
		ev_io_stop(wrk_loop, &wrk_io_w);
		ev_timer_stop(wrk_loop, &wrk_bulk_t);
	}
}

void
wrk_send(struct msgbuf *mb)
{
	struct msgq	*q = mb->sb.size > WRK_URGENT_MAX ? &wrk_bulkq :
			    &wrk_outq;

	if (msgq_push(q, mb) == -1) {
		log_warnx("internal: message over %d bytes not sent", MSG_MAX);
		return;
	}
	wrk_flush();
}

static uint64_t
rss_kb(void)
{
	char		 buf[128];
	ssize_t		 n;
	unsigned long	 size, resident = 0;

	if (wrk_statm == -1 ||
	    (n = pread(wrk_statm, buf, sizeof(buf) - 1, 0)) <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%lu %lu", &size, &resident) != 2)
		resident = 0;
	return (uint64_t)resident * (uint64_t)(sysconf(_SC_PAGESIZE) / 1024);
}

static void
heartbeat_send(void)
{
	struct msgbuf	mb;

	log_flood_flush(0);	/* a flood of one line that stopped */
	msg_begin(&mb, MSG_HEARTBEAT, wrk_gen, 2);
	msg_put_uint(&mb, "rss_kb", rss_kb());
	msg_put_uint(&mb, "heap_kb", mem_in_use() / 1024);
	wrk_send(&mb);
	wrk_hb_ms = now_mono_ms();
	mem_give_back(wrk_hb_ms);
}

static void
heartbeat_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	heartbeat_send();
	t->repeat = (double)wrk_conf_hb / 1000.0;
	ev_timer_again(loop, t);
}

void
wrk_heartbeat_ride(uint64_t next_ms)
{
	uint64_t	now = now_mono_ms();

	if (now + next_ms < wrk_hb_ms + wrk_conf_hb)
		return;
	heartbeat_send();
	wrk_hb.repeat = (double)wrk_conf_hb * 1.25 / 1000.0;
	ev_timer_again(wrk_loop, &wrk_hb);
}

/* A message from the supervisor.  A bad one is a bug on its side. */
static void
wrk_dispatch_msg(struct ev_loop *loop, const void *buf, long len)
{
	struct msg	m;
	char		err[128];

	if (len > MSG_MAX)
		fatalx(CW_EXIT_INTERNAL, "supervisor sent %ld bytes, over the "
		    "%d byte limit", len, MSG_MAX);
	if (msg_parse(buf, (size_t)len, &m, err, sizeof(err)) == -1)
		fatalx(CW_EXIT_INTERNAL, "bad message from the supervisor: %s",
		    err);
	if (msg_check_gen(m.gen, wrk_gen) != MSG_GEN_OK) {
		log_debug("dropped %s of generation %u (mine is %u)",
		    msg_type_name(m.type), m.gen, wrk_gen);
		msg_free(&m);
		return;
	}
	if (wrk_ep_request(&m) == -1)
		fatalx(CW_EXIT_INTERNAL, "unexpected %s message from the "
		    "supervisor", msg_type_name(m.type));
	msg_free(&m);
}

static void
read_cb(struct ev_loop *loop, ev_io *io, int revents)
{
	long	n;

	for (;;) {
		n = msg_recv(MSG_FD, wrk_buf);
		if (n == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			log_warn("supervisor socket");
			exit(CW_EXIT_OK);
		}
		if (n == 0) {
			log_info("supervisor gone; exiting");
			exit(CW_EXIT_OK);
		}
		wrk_dispatch_msg(loop, wrk_buf, n);
	}
}

static void
write_cb(struct ev_loop *loop, ev_io *io, int revents)
{
	wrk_flush();
}

static void
bulk_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	wrk_flush();
}

static void
signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	log_debug("signal %d: exiting", w->signum);
	ev_break(loop, EVBREAK_ALL);
}

/* The first message: the endpoint configuration.  Anything else is fatal. */
static void
read_config(void)
{
	struct pollfd	pfd = { .fd = MSG_FD, .events = POLLIN };
	struct msg	m;
	char		err[128];
	long		n;
	int		rc;

	do
		rc = poll(&pfd, 1, CONFIG_WAIT_MS);
	while (rc == -1 && errno == EINTR);
	if (rc <= 0)
		fatalx(CW_EXIT_SETUP, "no configuration from the supervisor "
		    "within %d s", CONFIG_WAIT_MS / 1000);
	n = msg_recv(MSG_FD, wrk_buf);
	if (n <= 0)
		fatalx(CW_EXIT_SETUP, "supervisor closed before sending the "
		    "configuration");
	if (n > MSG_MAX || msg_parse(wrk_buf, (size_t)n, &m, err,
	    sizeof(err)) == -1)
		fatalx(CW_EXIT_SETUP, "bad configuration message: %s",
		    n > MSG_MAX ? "oversized" : err);
	if (proto_unpack_config(&m, &wc.c, err, sizeof(err)) == -1)
		fatalx(CW_EXIT_SETUP, "bad configuration message: %s", err);
	if (wc.c.heartbeat == 0 || wc.c.log_level > LOG_LEVEL_DEBUG ||
	    wc.c.format > FORMAT_SUBSTRATE || wc.c.block_time == 0 ||
	    wc.c.max_inflight == 0 || wc.c.max_inflight > CONF_INFLIGHT_MAX)
		fatalx(CW_EXIT_SETUP, "configuration message has a bad value");
	wrk_gen = m.gen;
	msg_free(&m);
	url_secret_words(wc.c.secret_params);
	url_redact(wc.c.rpc_url, wc.rpc_shown, sizeof(wc.rpc_shown));
	url_redact(wc.c.ws_url, wc.ws_shown, sizeof(wc.ws_shown));
}

static void
limit_memory(void)
{
	struct rlimit	rl;

	if (wc.c.memory_limit == 0)
		return;
#ifdef CW_SANITIZED
	log_info("built with sanitizers: worker_memory_limit not applied");
#else
	rl.rlim_cur = rl.rlim_max = (rlim_t)wc.c.memory_limit;
	if (setrlimit(RLIMIT_AS, &rl) == -1)
		fatal(CW_EXIT_SETUP, "setrlimit RLIMIT_AS %llu",
		    (unsigned long long)wc.c.memory_limit);
#endif
	(void)rl;
}

static void
drop_privileges(void)
{
	struct passwd	*pw;

	if (geteuid() != 0) {
		log_debug("not root: running as uid %d", (int)geteuid());
		return;
	}
	if (wc.c.user[0] == '\0') {
		log_warnx("no user configured: staying root");
		return;
	}
	if ((pw = getpwnam(wc.c.user)) == NULL)
		fatalx(CW_EXIT_SETUP, "user %s does not exist", wc.c.user);
	if (setgroups(1, &pw->pw_gid) == -1 ||
	    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) == -1 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) == -1)
		fatal(CW_EXIT_SETUP, "cannot drop privileges to %s", wc.c.user);
	if (setuid(0) != -1 || geteuid() != pw->pw_uid)
		fatalx(CW_EXIT_SETUP, "privileges not dropped to %s", wc.c.user);
	if (chdir("/") == -1)
		fatal(CW_EXIT_SETUP, "chdir /");
}

/*
 * After the setup, the sandbox: the files it reads later (statm) are
 * open, curl and OpenSSL are initialised, the loop and its connections
 * exist.  What is left is in wrk_sandbox.c.
 */
static void
sandbox(const char *tag)
{
	struct wrk_sandbox	sb = {
		.tag = tag, .report_fd = MSG_FD, .gen = wrk_gen,
		.conns = (unsigned)wc.c.max_inflight + 1
	};
	char			err[160];

	if (wrk_sandbox_apply(&sb, err, sizeof(err)) == -1)
		fatalx(CW_EXIT_SETUP, "sandbox: %s", err);
}

int
main(int argc, char *argv[])
{
	struct ev_loop	*loop;
	ev_signal	 sig_term, sig_int;
	struct msgbuf	 mb;
	char		 tag[CONF_NAME_MAX + 8];
	int		 type;
	socklen_t	 len = sizeof(type);

	mem_setup(0);
	snprintf(tag, sizeof(tag), "w/%s", argc > 1 ? argv[1] : "?");
	log_init(1, LOG_LEVEL_INFO, "chainwatch-worker");
	log_procinit(tag);
	if (getsockopt(MSG_FD, SOL_SOCKET, SO_TYPE, &type, &len) == -1 ||
	    type != SOCK_SEQPACKET)
		fatalx(CW_EXIT_SETUP, "descriptor %d is not a supervisor socket; "
		    "chainwatch-worker is started by chainwatchd", MSG_FD);
	signal(SIGPIPE, SIG_IGN);

	read_config();
	snprintf(tag, sizeof(tag), "w/%s", wc.c.name);
	log_procinit(tag);
	log_init((int)wc.c.log_stderr, (enum log_level)wc.c.log_level,
	    "chainwatch-worker");
	/* libsodium may open files as it starts: before the drop. */
	if (sodium_init() == -1)
		fatalx(CW_EXIT_SETUP, "libsodium cannot start");
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		fatalx(CW_EXIT_SETUP, "libcurl cannot start");
	if ((wrk_statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)) == -1)
		log_warn("/proc/self/statm: heartbeats carry no RSS");
	limit_memory();
	drop_privileges();
	/* Belt and braces: the socket's EOF is the main way we learn it. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		log_warn("prctl PR_SET_PDEATHSIG");
	if (getppid() == 1)
		fatalx(CW_EXIT_OK, "supervisor already gone");
	if (fcntl(MSG_FD, F_SETFL, O_NONBLOCK) == -1)
		fatal(CW_EXIT_SETUP, "fcntl");

	if ((loop = ev_default_loop(EVFLAG_AUTO)) == NULL)
		fatalx(CW_EXIT_SETUP, "libev: no loop");
	wrk_loop = loop;
	msgq_init(&wrk_outq);
	msgq_init(&wrk_bulkq);
	ev_io_init(&wrk_io_r, read_cb, MSG_FD, EV_READ);
	ev_io_init(&wrk_io_w, write_cb, MSG_FD, EV_WRITE);
	ev_timer_init(&wrk_bulk_t, bulk_cb, WRK_BULK_POLL, WRK_BULK_POLL);
	ev_io_start(loop, &wrk_io_r);
	ev_signal_init(&sig_term, signal_cb, SIGTERM);
	ev_signal_init(&sig_int, signal_cb, SIGINT);
	ev_signal_start(loop, &sig_term);
	ev_signal_start(loop, &sig_int);
	wrk_conf_hb = wc.c.heartbeat;
	wrk_hb_ms = now_mono_ms();
	ev_timer_init(&wrk_hb, heartbeat_cb, (double)wc.c.heartbeat / 1000.0,
	    (double)wc.c.heartbeat / 1000.0);
	ev_timer_start(loop, &wrk_hb);

	msg_begin(&mb, MSG_HELLO, wrk_gen, 2);
	msg_put_uint(&mb, "pid", (uint64_t)getpid());
	msg_put_uint(&mb, "uid", (uint64_t)geteuid());
	wrk_send(&mb);
	log_info("serving endpoint %s of chain %s (%s): %s, %s", wc.c.name,
	    wc.c.chain, wc.c.format == 0 ? "quantus" : "substrate", wc.rpc_shown,
	    wc.ws_shown);
	wrk_ep_start(loop, &wc);
	sandbox(tag);

	ev_run(loop, 0);
	wrk_ep_stop();
	msgq_clear(&wrk_outq);
	msgq_clear(&wrk_bulkq);
	return CW_EXIT_OK;
}
