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

#define BACKLOG		2000
#define NHASH		1024
#define MAX_INFLIGHT	16

static const unsigned	 batches[] = { 1, 10, 100 };
static const unsigned	 inflights[] = { 1, 2, 4, 8, 16 };

static uint8_t		 hashes[NHASH][32];
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

/* ---- the devnode ---- */

static pid_t
devnode_start(const char *path, const char *dir)
{
	char	portfile[512], line[32];
	pid_t	pid;
	FILE	*fp;

	snprintf(portfile, sizeof(portfile), "%s/port", dir);
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execl(path, "chainwatch-devnode", "--listen", "127.0.0.1:0",
		    "--port-file", portfile, "--block-time", "1000",
		    "--backlog", "2000", "--cache-dir", "none", (char *)NULL);
		_exit(111);
	}
	for (int i = 0; i < 300; i++) {
		if ((fp = fopen(portfile, "r")) != NULL) {
			if (fgets(line, sizeof(line), fp) != NULL &&
			    atoi(line) > 0) {
				fclose(fp);
				snprintf(url, sizeof(url), "http://127.0.0.1:%d",
				    atoi(line));
				return pid;
			}
			fclose(fp);
		}
		usleep(100000);
	}
	fatalx(CW_EXIT_SYSTEM, "devnode %s did not start", path);
}

struct body {
	char	*p;
	size_t	 len;
};

static size_t
body_write(char *p, size_t size, size_t n, void *arg)
{
	struct body	*b = arg;

	b->p = xrealloc(b->p, b->len + size * n + 1);
	memcpy(b->p + b->len, p, size * n);
	b->len += size * n;
	b->p[b->len] = '\0';
	return size * n;
}

static CURL *
easy_new(const char *req, struct body *b)
{
	CURL			*h = curl_easy_init();
	static struct curl_slist *hdr;

	if (hdr == NULL)
		hdr = curl_slist_append(NULL, "Content-Type: application/json");
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, req);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, body_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
	return h;
}

/* The hashes of blocks 1..NHASH, for by-hash requests. */
static void
load_hashes(void)
{
	static const char req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"chain_getBlockHash\",\"params\":[[";
	struct body	b = { NULL, 0 };
	CURL		*h;
	const char	*p;

	{
		size_t	 cap = 16 * NHASH + 128, len;
		char	*all = xmalloc(cap);

		len = (size_t)snprintf(all, cap, "%s", req);
		for (int i = 1; i <= NHASH; i++)
			len += (size_t)snprintf(all + len, cap - len, "%s%d",
			    i == 1 ? "" : ",", i);
		snprintf(all + len, cap - len, "]]}");
		h = easy_new(all, &b);
		if (curl_easy_perform(h) != CURLE_OK || b.p == NULL)
			fatalx(CW_EXIT_SYSTEM, "devnode does not answer");
		curl_easy_cleanup(h);
		free(all);
	}
	p = b.p;
	for (int i = 0; i < NHASH; i++) {
		if ((p = strstr(p, "\"0x")) == NULL || strlen(p) < 67)
			fatalx(CW_EXIT_SYSTEM, "short block hash list");
		{
			char	h66[67];

			memcpy(h66, p + 1, 66);
			h66[66] = '\0';
			if (hex_decode(h66, hashes[i], 32) == -1)
				fatalx(CW_EXIT_SYSTEM, "bad block hash");
		}
		p += 67;
	}
	free(b.p);
}

/*
 * The ceiling: the same chain_getHeader batches sent straight to the
 * devnode by the worker's own HTTP client (wrk_rpc) on a libev loop, so
 * the ratio is what decoding, hashing and the socket cost.
 */
struct direct {
	struct ev_loop		*loop;
	struct wrk_rpc		*rpc;
	struct wrk_rpc_call	*calls;
	char			(*params)[72];
	unsigned		 batch;
	uint64_t		 headers, end;
	unsigned		 cursor;
};

static void	direct_send(struct direct *);

static void
direct_done(void *arg, const struct wrk_rpc_result *r, size_t n)
{
	struct direct	*d = arg;

	for (size_t i = 0; i < n; i++)
		d->headers += r[i].outcome == OUTCOME_OK;
	if (now_mono_ms() < d->end)
		direct_send(d);
}

static void
direct_send(struct direct *d)
{
	for (unsigned k = 0; k < d->batch; k++) {
		char hx[67];

		hex_encode(hashes[d->cursor++ % NHASH], 32, hx);
		snprintf(d->params[k], sizeof(d->params[k]), "[\"%s\"]", hx);
		d->calls[k].method = "chain_getHeader";
		d->calls[k].params = d->params[k];
		d->calls[k].flags = WRK_RPC_NULL_ABSENT;
	}
	if (wrk_rpc_send(d->rpc, d->calls, d->batch, 10000, direct_done, d)
	    == -1)
		fatalx(CW_EXIT_SYSTEM, "wrk_rpc_send");
}

static double
direct_rate(unsigned batch, unsigned inflight)
{
	struct wrk_http_conf	hc;
	struct direct		d;
	uint64_t		start = now_mono_ms();

	memset(&hc, 0, sizeof(hc));
	hc.url = url;
	hc.connect_timeout_ms = 5000;
	hc.max_response = 64 << 20;
	hc.max_conns = MAX_INFLIGHT;
	memset(&d, 0, sizeof(d));
	d.loop = ev_loop_new(EVFLAG_AUTO);
	d.rpc = wrk_rpc_new(d.loop, &hc);
	d.batch = batch;
	d.calls = xcalloc(batch, sizeof(*d.calls));
	d.params = xcalloc(batch, sizeof(*d.params));
	d.end = start + (uint64_t)(secs * 1000);
	for (unsigned i = 0; i < inflight; i++)
		direct_send(&d);
	/* Answers that come after the end are not counted. */
	while (now_mono_ms() < d.end)
		ev_run(d.loop, EVRUN_ONCE);
	{
		double rate = (double)d.headers * 1000.0 / (secs * 1000);

		wrk_rpc_free(d.rpc);
		ev_loop_destroy(d.loop);
		free(d.calls);
		free(d.params);
		return rate;
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
		memcpy(q.hashes[k], hashes[(*cursor)++ % NHASH], 32);
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
	dpid = devnode_start(devnode, dir);
	children[0] = dpid;
	load_hashes();
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
			double d = direct_rate(batches[b], inflights[c]);
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
