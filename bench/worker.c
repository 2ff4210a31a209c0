/*
 * bench/worker: how many headers one chainwatch-worker pulls from one
 * chainwatch-devnode, by batch size (1, 10, 100) and by requests in
 * flight (1 to 16), each next to the devnode's own ceiling for the same
 * JSON-RPC traffic measured in the same run (curl straight to the
 * devnode, no worker): the ratio is what the worker costs (decoding,
 * local hashing, the socket to the supervisor).
 *
 *   bench/worker [-w chainwatch-worker] [-d chainwatch-devnode] [-s secs]
 *
 * Bounded in time: 15 points of -s seconds (default 1), each measured
 * twice (straight and through the worker).  The last line is
 * machine-readable.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/wait.h>

#include <curl/curl.h>
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
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
#include "wrk_rpc.h"
#include "benchlib.h"


static const unsigned	 batches[] = { 1, 10, 100 };
static const unsigned	 inflights[] = { 1, 2, 4, 8, 16 };

static char		 url[64];
static double		 secs = 1.0;
static char		 buf[MSG_MAX];
static pid_t		 children[2];	/* devnode, worker: killed at exit */

static void
kill_children(void)
{
	for (size_t i = 0; i < nitems(children); i++)
		if (children[i] > 0) {
			kill(children[i], SIGTERM);
			waitpid(children[i], NULL, 0);
			children[i] = 0;
		}
}

/* ---- the worker, through the supervisor's protocol ---- */

static int	 wfd = -1;
static pid_t	 wpid;
static uint64_t	 next_id = 1;

static void
worker_start(const char *path)
{
	struct proto_config	pc;
	struct msgbuf		mb;
	int			sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		fatal(CW_EXIT_SYSTEM, "socketpair");
	(void)msg_sockbuf(sv[0]);
	(void)msg_sockbuf(sv[1]);
	if ((wpid = fork()) == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		dup2(sv[1], MSG_FD);
		execl(path, "chainwatch-worker", "bench", (char *)NULL);
		_exit(111);
	}
	close(sv[1]);
	wfd = sv[0];
	memset(&pc, 0, sizeof(pc));
	snprintf(pc.chain, sizeof(pc.chain), "bench");
	snprintf(pc.name, sizeof(pc.name), "bench");
	snprintf(pc.rpc_url, sizeof(pc.rpc_url), "%s", url);
	snprintf(pc.ws_url, sizeof(pc.ws_url), "ws%s", url + 4);
	snprintf(pc.user, sizeof(pc.user), "%s", getuid() == 0 ? "nobody" : "");
	pc.block_time = 1000;
	pc.stall_factor = 3;
	pc.connect_timeout = 5000;
	pc.request_timeout = 10000;
	pc.max_response = 64 << 20;
	pc.max_inflight = 64;
	pc.heartbeat = 1000;
	pc.log_level = LOG_LEVEL_WARN;
	pc.log_stderr = 1;
	proto_pack_config(&mb, 1, &pc);
	if (send(wfd, mb.sb.data, mb.sb.size, MSG_NOSIGNAL) == -1)
		fatal(CW_EXIT_SYSTEM, "send");
	msg_done(&mb);
}

static void
worker_request(unsigned batch, unsigned *cursor)
{
	static struct proto_req_headers q;
	struct msgbuf	mb;

	memset(&q, 0, sizeof(q));
	q.id = next_id++;
	q.by = BY_HASH;
	q.n = batch;
	for (unsigned k = 0; k < batch; k++)
		memcpy(q.hashes[k], bench_hashes[(*cursor)++ % BENCH_NHASH], 32);
	proto_pack_req_headers(&mb, 1, &q);
	if (send(wfd, mb.sb.data, mb.sb.size, MSG_NOSIGNAL) == -1)
		fatal(CW_EXIT_SYSTEM, "send to the worker");
	msg_done(&mb);
}

/* Read one message; RES_HEADERS gives its count of good headers, else -1. */
static long
worker_read(int ms)
{
	static struct proto_res_headers r;
	struct pollfd	pfd = { .fd = wfd, .events = POLLIN };
	struct msg	m;
	char		err[128];
	long		n, good = -1;

	if (poll(&pfd, 1, ms) <= 0)
		return -1;
	if ((n = msg_recv(wfd, buf)) <= 0)
		fatalx(CW_EXIT_SYSTEM, "the worker died");
	if (n > MSG_MAX || msg_parse(buf, (size_t)n, &m, err, sizeof(err)))
		fatalx(CW_EXIT_SYSTEM, "bad message from the worker");
	if (m.type == MSG_RES_HEADERS &&
	    proto_unpack_res_headers(&m, &r, err, sizeof(err)) == 0) {
		good = 0;
		for (size_t i = 0; i < r.n; i++)
			good += r.items[i].outcome == OUTCOME_OK;
	}
	msg_free(&m);
	return good;
}

static double
worker_rate(unsigned batch, unsigned inflight)
{
	uint64_t	start, headers = 0;
	unsigned	cursor = 0, out = 0;
	long		got;

	start = now_mono_ms();
	while (out < inflight) {
		worker_request(batch, &cursor);
		out++;
	}
	while (now_mono_ms() - start < (uint64_t)(secs * 1000)) {
		if ((got = worker_read(100)) < 0)
			continue;
		headers += (uint64_t)got;
		worker_request(batch, &cursor);
	}
	/* Let what is in flight finish before the next run. */
	for (int i = 0; i < 200 && out > 0; i++)
		if (worker_read(50) >= 0)
			out--;
	return (double)headers * 1000.0 / (double)(secs * 1000);
}

int
main(int argc, char *argv[])
{
	const char	*worker = "workers/chainwatch-worker";
	const char	*devnode = "devnode/chainwatch-devnode";
	char		 dir[] = "/tmp/cw-bench.XXXXXX", cmd[64];
	double		 worst = 1e9, best100 = 0, base100 = 0;
	pid_t		 dpid;
	int		 ch;

	while ((ch = getopt(argc, argv, "d:s:w:")) != -1) {
		switch (ch) {
		case 'd':
			devnode = optarg;
			break;
		case 's':
			secs = atof(optarg);
			break;
		case 'w':
			worker = optarg;
			break;
		default:
			fprintf(stderr, "usage: bench/worker [-w worker] "
			    "[-d devnode] [-s secs]\n");
			return CW_EXIT_USAGE;
		}
	}
	log_init(1, LOG_LEVEL_WARN, "bench/worker");
	signal(SIGPIPE, SIG_IGN);
	if (mkdtemp(dir) == NULL)
		fatal(CW_EXIT_SYSTEM, "mkdtemp");
	curl_global_init(CURL_GLOBAL_DEFAULT);
	atexit(kill_children);
	{
		const char *args[] = { "--block-time", "1000", "--backlog",
		    "2000", NULL };

		dpid = bench_devnode(devnode, dir, "d", args, url, sizeof(url));
	}
	children[0] = dpid;
	bench_load_hashes(url);
	worker_start(worker);
	children[1] = wpid;
	/* Wait for the worker's endpoint facts: it is then connected. */
	for (int i = 0; i < 100; i++)
		(void)worker_read(50);

	printf("bench/worker: one worker, one devnode (%s), chain_getHeader "
	    "by hash, %.1f s per point, %ld cores\n", url, secs,
	    sysconf(_SC_NPROCESSORS_ONLN));
	printf("  %5s %8s %14s %14s %7s\n", "batch", "inflight",
	    "worker hdr/s", "devnode hdr/s", "ratio");
	for (size_t b = 0; b < nitems(batches); b++)
		for (size_t c = 0; c < nitems(inflights); c++) {
			double d = bench_direct_rate(url, batches[b],
			    inflights[c], secs);
			double w = worker_rate(batches[b], inflights[c]);
			double r = d > 0 ? w / d : 0;

			printf("  %5u %8u %14.0f %14.0f %7.2f\n", batches[b],
			    inflights[c], w, d, r);
			fflush(stdout);
			if (r < worst)
				worst = r;
			if (batches[b] == 100 && w > best100) {
				best100 = w;
				base100 = d;
			}
		}
	printf("worker_batch100_hdr_s=%.0f devnode_batch100_hdr_s=%.0f "
	    "ratio_batch100=%.2f worst_ratio=%.2f\n", best100, base100,
	    base100 > 0 ? best100 / base100 : 0, worst);

	kill_children();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		log_warnx("could not remove %s", dir);
	curl_global_cleanup();
	return 0;
}
