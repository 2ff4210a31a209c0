/*
 * Runs one real chainwatch-worker against an endpoint and plays the
 * supervisor's side of the protocol: sends its configuration, then the
 * requests read from stdin, and prints every message the worker sends as
 * one line, for the worker tests to read.
 *
 *   wrk_harness -w WORKER -r RPC_URL -s WS_URL [-f substrate] [-b MS]
 *       [-t MS] [-c MS] [-m BYTES] [-x STALL_FACTOR] [-v]
 *
 * -v: the worker logs at debug level (its stderr is the harness's).
 *
 * Commands, one per line, run in order; each request waits (up to 60 s)
 * for its answer:
 *   headers N...        hashes 0xH...        storage 0xKEY 0xAT...
 *   runtime [0xAT]      genesis              sleep MS
 *   wait_head N         (a new head numbered N or more)
 *   wait_sub live|down  wait_info            wait_outcome WHAT CLASS
 *   run SHELL COMMAND   (for instance to switch a devnode fault)
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hex.h"
#include "log.h"
#include "proto.h"
#include "util.h"

#define WAIT_MS	60000

static int		 fd = -1;
static pid_t		 pid;
static uint32_t		 gen = 1;
static uint64_t		 next_id = 1;
static char		 buf[MSG_MAX];
static int		 stopping;	/* we sent SIGTERM: an exit is expected */

/* What the last message was, for the wait commands. */
static struct {
	enum msg_type	type;
	uint64_t	id;
	uint64_t	head;		/* number of the last new head */
	int		sub_live;
	char		what[PROTO_TEXT_MAX];
	enum outcome	outcome;
} last;

static const char *
hx(const uint8_t *p, size_t n, char *out)
{
	hex_encode(p, n, out);
	return out;
}

static void
print_header(const struct proto_header *h)
{
	char	a[67], b[67], c[67];

	printf("#%llu %s parent=%s miner=%s rtu=%d",
	    (unsigned long long)h->number, hx(h->hash, 32, a),
	    hx(h->parent, 32, b), h->has_miner ? hx(h->miner, 32, c) : "none",
	    h->runtime_updated);
}

static void
print_message(const struct msg *m)
{
	static struct proto_res_headers rh;
	static struct proto_res_storage st;
	union {
		struct proto_info	 info;
		struct proto_head	 head;
		struct proto_sub	 sub;
		struct proto_outcome	 oc;
		struct proto_res_runtime rt;
		struct proto_res_genesis ge;
	} u;
	char		err[128], h[2 * PROTO_VALUE_MAX + 3];
	uint64_t	v;
	int		rc = 0;

	last.type = m->type;
	switch (m->type) {
	case MSG_HELLO:
		printf("hello\n");
		break;
	case MSG_HEARTBEAT:
		if (msg_get_uint(m, "rss_kb", &v) == 0)
			printf("heartbeat rss_kb=%llu\n", (unsigned long long)v);
		break;
	case MSG_INFO:
		if ((rc = proto_unpack_info(m, &u.info, err, sizeof(err))) == 0)
			printf("info %s at=%llu chain=%s genesis=%s "
			    "spec=%s/%llu best=%llu fits=%d why=%s\n",
			    outcome_name(u.info.outcome),
			    (unsigned long long)now_wall_ms(), u.info.chain,
			    hx(u.info.genesis, 32, h), u.info.spec_name,
			    (unsigned long long)u.info.spec_version,
			    (unsigned long long)u.info.best, u.info.fits,
			    u.info.why);
		break;
	case MSG_HEAD:
		if ((rc = proto_unpack_head(m, &u.head, err, sizeof(err))) != 0)
			break;
		printf("head %s ", u.head.kind == HEAD_NEW ? "new" :
		    "finalized");
		print_header(&u.head.h);
		printf(" seen=%llu\n", (unsigned long long)u.head.seen_ms);
		if (u.head.kind == HEAD_NEW)
			last.head = u.head.h.number;
		break;
	case MSG_SUB:
		if ((rc = proto_unpack_sub(m, &u.sub, err, sizeof(err))) != 0)
			break;
		printf("sub %s reconnects=%u why=%s\n", u.sub.live ? "live" :
		    "down", u.sub.reconnects, u.sub.why);
		last.sub_live = u.sub.live;
		break;
	case MSG_OUTCOME:
		if ((rc = proto_unpack_outcome(m, &u.oc, err, sizeof(err))) != 0)
			break;
		printf("outcome %s %s %llums why=%s\n", u.oc.what,
		    outcome_name(u.oc.outcome),
		    (unsigned long long)u.oc.latency_ms, u.oc.why);
		snprintf(last.what, sizeof(last.what), "%s", u.oc.what);
		last.outcome = u.oc.outcome;
		break;
	case MSG_RES_HEADERS:
		if ((rc = proto_unpack_res_headers(m, &rh, err, sizeof(err))) != 0)
			break;
		printf("res headers id=%llu n=%zu retry=%llums\n",
		    (unsigned long long)rh.id, rh.n,
		    (unsigned long long)rh.retry_ms);
		for (size_t i = 0; i < rh.n; i++) {
			printf("item %zu %s %llums ", i,
			    outcome_name(rh.items[i].outcome),
			    (unsigned long long)rh.items[i].latency_ms);
			print_header(&rh.items[i].h);
			printf(" why=%s\n", rh.items[i].why);
		}
		last.id = rh.id;
		break;
	case MSG_RES_STORAGE:
		if ((rc = proto_unpack_res_storage(m, &st, err, sizeof(err))) != 0)
			break;
		printf("res storage id=%llu n=%zu retry=%llums\n",
		    (unsigned long long)st.id, st.n,
		    (unsigned long long)st.retry_ms);
		for (size_t i = 0; i < st.n; i++)
			printf("value %zu %s %llums value=%s why=%s\n", i,
			    outcome_name(st.items[i].outcome),
			    (unsigned long long)st.items[i].latency_ms,
			    hx(st.items[i].value, st.items[i].value_len, h),
			    st.items[i].why);
		last.id = st.id;
		break;
	case MSG_RES_RUNTIME:
		if ((rc = proto_unpack_res_runtime(m, &u.rt, err, sizeof(err))) != 0)
			break;
		printf("res runtime id=%llu %s %llums spec=%s/%llu why=%s\n",
		    (unsigned long long)u.rt.id, outcome_name(u.rt.outcome),
		    (unsigned long long)u.rt.latency_ms, u.rt.spec_name,
		    (unsigned long long)u.rt.spec_version, u.rt.why);
		last.id = u.rt.id;
		break;
	case MSG_RES_GENESIS:
		if ((rc = proto_unpack_res_genesis(m, &u.ge, err, sizeof(err))) != 0)
			break;
		printf("res genesis id=%llu %s %llums %s why=%s\n",
		    (unsigned long long)u.ge.id, outcome_name(u.ge.outcome),
		    (unsigned long long)u.ge.latency_ms, hx(u.ge.hash, 32, h),
		    u.ge.why);
		last.id = u.ge.id;
		break;
	default:
		printf("unexpected %s\n", msg_type_name(m->type));
		break;
	}
	if (rc != 0)
		printf("bad message: %s\n", err);
	fflush(stdout);
}

/* Read and print messages until one is there, for at most ms. */
static int
pump(int ms)
{
	struct pollfd	pfd = { .fd = fd, .events = POLLIN };
	struct msg	m;
	char		err[128];
	long		n;

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	n = msg_recv(fd, buf);
	if (n <= 0) {
		int status;

		waitpid(pid, &status, 0);
		if (stopping && WIFEXITED(status) && WEXITSTATUS(status) == 0)
			printf("worker stopped\n");
		else if (WIFEXITED(status))
			printf("worker exited status %d\n", WEXITSTATUS(status));
		else
			printf("worker killed by signal %d\n", WTERMSIG(status));
		fflush(stdout);
		exit(stopping && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0 ? 0 : 1);
	}
	if (n > MSG_MAX || msg_parse(buf, (size_t)n, &m, err, sizeof(err))) {
		printf("bad message: %s\n", n > MSG_MAX ? "oversized" : err);
		return 1;
	}
	print_message(&m);
	msg_free(&m);
	return 1;
}

/* Pump until cond() holds; 0 if it did within WAIT_MS. */
static int
wait_until(int (*cond)(const void *), const void *arg)
{
	uint64_t	end = now_mono_ms() + WAIT_MS;

	while (now_mono_ms() < end) {
		if (pump(100) && cond(arg))
			return 0;
	}
	printf("timeout waiting\n");
	fflush(stdout);
	return -1;
}

static int
answer_came(const void *arg)
{
	return (last.type == MSG_RES_HEADERS || last.type == MSG_RES_STORAGE ||
	    last.type == MSG_RES_RUNTIME || last.type == MSG_RES_GENESIS) &&
	    last.id == *(const uint64_t *)arg;
}

static int
head_came(const void *arg)
{
	return last.type == MSG_HEAD && last.head >= *(const uint64_t *)arg;
}

static int
sub_came(const void *arg)
{
	return last.type == MSG_SUB && last.sub_live == *(const int *)arg;
}

static int
info_came(const void *arg)
{
	return last.type == MSG_INFO;
}

static int
outcome_came(const void *arg)
{
	const char *const *w = arg;

	return last.type == MSG_OUTCOME && strcmp(last.what, w[0]) == 0 &&
	    strcmp(outcome_name(last.outcome), w[1]) == 0;
}

static void
send_msg(struct msgbuf *mb)
{
	if (send(fd, mb->sb.data, mb->sb.size, MSG_NOSIGNAL) == -1)
		fatal(CW_EXIT_SYSTEM, "send");
	msg_done(mb);
}

static int
parse_hash(const char *s, uint8_t out[32])
{
	if (hex_decode(s, out, 32) == -1) {
		printf("bad hash %s\n", s);
		return -1;
	}
	return 0;
}

static void
command(char *line)
{
	static struct proto_req_headers q;
	struct msgbuf	mb;
	char		*argv[PROTO_BATCH_MAX + 2], *save;
	int		 argc = 0;
	uint64_t	 id = next_id++;

	if (strncmp(line, "run ", 4) == 0) {
		int rc = system(line + 4);

		printf("ran %s", line + 4);
		if (rc != 0)
			printf("run failed (%d)\n", rc);
		fflush(stdout);
		return;
	}
	for (char *t = strtok_r(line, " \t\n", &save); t != NULL &&
	    argc < (int)nitems(argv); t = strtok_r(NULL, " \t\n", &save))
		argv[argc++] = t;
	if (argc == 0)
		return;
	if (strcmp(argv[0], "headers") == 0 || strcmp(argv[0], "hashes") == 0) {
		memset(&q, 0, sizeof(q));
		q.id = id;
		q.by = argv[0][1] == 'e' ? BY_NUMBER : BY_HASH;
		q.n = (size_t)argc - 1;
		for (int i = 1; i < argc; i++)
			if (q.by == BY_NUMBER)
				q.numbers[i - 1] = strtoull(argv[i], NULL, 0);
			else if (parse_hash(argv[i], q.hashes[i - 1]) == -1)
				return;
		proto_pack_req_headers(&mb, gen, &q);
	} else if (strcmp(argv[0], "storage") == 0 && argc >= 3 &&
	    argc % 2 == 1) {
		static struct proto_req_storage s;

		memset(&s, 0, sizeof(s));
		s.id = id;
		for (int i = 1; i + 1 < argc && s.n < PROTO_READS_MAX; i += 2) {
			struct proto_read *r = &s.items[s.n++];

			if (hex_decode_var(argv[i], r->key, sizeof(r->key),
			    &r->key_len) == -1 ||
			    parse_hash(argv[i + 1], r->at) == -1)
				return;
		}
		proto_pack_req_storage(&mb, gen, &s);
	} else if (strcmp(argv[0], "runtime") == 0) {
		struct proto_req_runtime r;

		memset(&r, 0, sizeof(r));
		r.id = id;
		if (argc > 1) {
			if (parse_hash(argv[1], r.at) == -1)
				return;
			r.has_at = 1;
		}
		proto_pack_req_runtime(&mb, gen, &r);
	} else if (strcmp(argv[0], "genesis") == 0) {
		struct proto_req_genesis g = { id, 0 };

		proto_pack_req_genesis(&mb, gen, &g);
	} else if (strcmp(argv[0], "sleep") == 0 && argc == 2) {
		uint64_t end = now_mono_ms() + strtoull(argv[1], NULL, 10);

		while (now_mono_ms() < end)
			pump((int)(end - now_mono_ms()));
		return;
	} else if (strcmp(argv[0], "wait_head") == 0 && argc == 2) {
		uint64_t n = strtoull(argv[1], NULL, 10);

		wait_until(head_came, &n);
		return;
	} else if (strcmp(argv[0], "wait_sub") == 0 && argc == 2) {
		int live = strcmp(argv[1], "live") == 0;

		wait_until(sub_came, &live);
		return;
	} else if (strcmp(argv[0], "wait_info") == 0) {
		wait_until(info_came, NULL);
		return;
	} else if (strcmp(argv[0], "wait_outcome") == 0 && argc == 3) {
		const char *w[2] = { argv[1], argv[2] };

		wait_until(outcome_came, w);
		return;
	} else {
		printf("bad command %s\n", argv[0]);
		fflush(stdout);
		return;
	}
	send_msg(&mb);
	wait_until(answer_came, &id);
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: wrk_harness -w worker -r rpc_url -s ws_url "
	    "[-f substrate] [-b ms] [-t ms] [-c ms] [-m bytes] [-x n] [-v]\n");
	exit(CW_EXIT_USAGE);
}

int
main(int argc, char *argv[])
{
	struct proto_config	 pc;
	struct msgbuf		 mb;
	const char		*worker = NULL;
	char			 line[65536];
	int			 ch, sv[2];

	memset(&pc, 0, sizeof(pc));
	snprintf(pc.chain, sizeof(pc.chain), "test");
	snprintf(pc.name, sizeof(pc.name), "harness");
	pc.block_time = 1000;
	pc.stall_factor = 3;
	pc.connect_timeout = 2000;
	pc.request_timeout = 3000;
	pc.max_response = 16 << 20;
	pc.max_inflight = 64;
	pc.heartbeat = 500;
	pc.log_level = LOG_LEVEL_INFO;
	pc.log_stderr = 1;
	while ((ch = getopt(argc, argv, "b:c:f:m:r:s:t:vw:x:")) != -1) {
		switch (ch) {
		case 'v':
			pc.log_level = LOG_LEVEL_DEBUG;
			break;
		case 'b':
			pc.block_time = strtoull(optarg, NULL, 10);
			break;
		case 'c':
			pc.connect_timeout = strtoull(optarg, NULL, 10);
			break;
		case 'f':
			pc.format = strcmp(optarg, "substrate") == 0;
			break;
		case 'm':
			pc.max_response = strtoull(optarg, NULL, 10);
			break;
		case 'r':
			snprintf(pc.rpc_url, sizeof(pc.rpc_url), "%s", optarg);
			break;
		case 's':
			snprintf(pc.ws_url, sizeof(pc.ws_url), "%s", optarg);
			break;
		case 't':
			pc.request_timeout = strtoull(optarg, NULL, 10);
			break;
		case 'w':
			worker = optarg;
			break;
		case 'x':
			pc.stall_factor = strtoull(optarg, NULL, 10);
			break;
		default:
			usage();
		}
	}
	if (worker == NULL || pc.rpc_url[0] == '\0' || pc.ws_url[0] == '\0')
		usage();
	log_init(1, LOG_LEVEL_INFO, "wrk_harness");
	log_procinit("harness");
	/* As root the worker would drop to this user. */
	snprintf(pc.user, sizeof(pc.user), "%s", getuid() == 0 ? "nobody" : "");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		fatal(CW_EXIT_SYSTEM, "socketpair");
	(void)msg_sockbuf(sv[0]);
	(void)msg_sockbuf(sv[1]);
	if ((pid = fork()) == -1)
		fatal(CW_EXIT_SYSTEM, "fork");
	if (pid == 0) {
		if (dup2(sv[1], MSG_FD) == -1)
			_exit(111);
		execl(worker, "chainwatch-worker", "harness", (char *)NULL);
		_exit(111);
	}
	close(sv[1]);
	fd = sv[0];
	proto_pack_config(&mb, gen, &pc);
	send_msg(&mb);
	printf("worker pid %d\n", (int)pid);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL)
		command(line);
	/* Input ended: stop the worker as the supervisor would. */
	stopping = 1;
	kill(pid, SIGTERM);
	for (int i = 0; i < 50; i++)
		pump(100);
	printf("worker did not stop\n");
	kill(pid, SIGKILL);
	return 1;
}
