/*
 * bench/devnode: how fast chainwatch-devnode answers, so that later
 * benchmarks (the worker's, the supervisor's) can report their figures as
 * ratios of these.  It starts a devnode on 127.0.0.1 and measures, with
 * libcurl multi over keep-alive connections, requests/s of single
 * chain_getHeader calls and of batches of 100, at a few concurrency
 * levels; then the time a devnode takes to be ready with Planck's height
 * (--backlog 1650000), cold and from its cache.  Bounded to under a
 * minute; the last line is machine-readable.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#define RUN_SECS	2.0	/* per measurement */
#define READY_SECS	10.0	/* small devnode */
#define COLD_SECS	45.0	/* Planck height without a cache */
#define PLANCK		1650000
#define HASHES		100
#define MAX_CONC	16

struct xfer {
	CURL		*h;
	char		*body;
	size_t		 len, cap;
	long		 done;
};

static char	 hashes[HASHES][67];
static int	 failures;

static double
now_secs(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t
on_data(char *p, size_t size, size_t n, void *arg)
{
	struct xfer	*x = arg;
	size_t		 len = size * n;

	if (x->len + len + 1 > x->cap) {
		x->cap = (x->len + len + 1) * 2;
		if ((x->body = realloc(x->body, x->cap)) == NULL) {
			perror("realloc");
			exit(1);
		}
	}
	memcpy(x->body + x->len, p, len);
	x->len += len;
	x->body[x->len] = '\0';
	return len;
}

static pid_t
devnode_start(const char *devnode, const char *dir, char *const extra[])
{
	char	 portfile[PATH_MAX], *argv[32];
	pid_t	 pid;
	int	 n = 0, i, fd;

	snprintf(portfile, sizeof(portfile), "%s/port", dir);
	unlink(portfile);
	argv[n++] = (char *)devnode;
	argv[n++] = "--listen";
	argv[n++] = "127.0.0.1:0";
	argv[n++] = "--port-file";
	argv[n++] = portfile;
	argv[n++] = "--log-level";
	argv[n++] = "warn";
	for (i = 0; extra[i] != NULL && n < 31; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	if ((pid = fork()) == -1) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		/* If the benchmark dies, so does its devnode. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if ((fd = open("/dev/null", O_WRONLY)) != -1)
			dup2(fd, STDOUT_FILENO);
		execv(devnode, argv);
		fprintf(stderr, "bench/devnode: %s: %s\n", devnode,
		    strerror(errno));
		_exit(127);
	}
	return pid;
}

/* The port once the port file appears; 0 after the timeout. */
static int
devnode_wait(pid_t pid, const char *dir, double timeout)
{
	char	 path[PATH_MAX];
	double	 t0 = now_secs();
	FILE	*f;
	int	 port = 0, status;

	snprintf(path, sizeof(path), "%s/port", dir);
	while (now_secs() - t0 < timeout) {
		if ((f = fopen(path, "r")) != NULL) {
			if (fscanf(f, "%d", &port) != 1)
				port = 0;
			fclose(f);
			if (port > 0)
				return port;
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			fprintf(stderr, "bench/devnode: the devnode exited\n");
			return 0;
		}
		usleep(2000);
	}
	return 0;
}

static void
devnode_stop(pid_t pid)
{
	int	status;

	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
}

static void
xfer_init(struct xfer *x, const char *url, const char *body)
{
	memset(x, 0, sizeof(*x));
	x->h = curl_easy_init();
	curl_easy_setopt(x->h, CURLOPT_URL, url);
	curl_easy_setopt(x->h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(x->h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(x->h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->h, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(x->h, CURLOPT_TCP_NODELAY, 1L);
}

static struct curl_slist *headers;

/* One call, synchronously (setup only). */
static char *
post(const char *url, const char *body)
{
	struct xfer	x;

	xfer_init(&x, url, body);
	curl_easy_setopt(x.h, CURLOPT_HTTPHEADER, headers);
	if (curl_easy_perform(x.h) != CURLE_OK) {
		curl_easy_cleanup(x.h);
		free(x.body);
		return NULL;
	}
	curl_easy_cleanup(x.h);
	return x.body;
}

/*
 * conc keep-alive connections, each sending `body` again as soon as the
 * answer is in, for RUN_SECS.  Returns requests per second.
 */
static double
measure(const char *url, char *const *bodies, int nbodies, int conc,
    size_t min_len)
{
	CURLM		*m = curl_multi_init();
	struct xfer	 x[MAX_CONC];
	CURLMsg		*msg;
	double		 t0, el;
	long		 code, total = 0;
	int		 i, running, left, next = 0;

	curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)conc);
	curl_multi_setopt(m, CURLMOPT_PIPELINING, CURLPIPE_NOTHING);
	for (i = 0; i < conc; i++) {
		xfer_init(&x[i], url, bodies[next++ % nbodies]);
		curl_easy_setopt(x[i].h, CURLOPT_HTTPHEADER, headers);
		curl_easy_setopt(x[i].h, CURLOPT_PRIVATE, &x[i]);
		curl_multi_add_handle(m, x[i].h);
	}
	t0 = now_secs();
	for (;;) {
		curl_multi_perform(m, &running);
		while ((msg = curl_multi_info_read(m, &left)) != NULL) {
			struct xfer	*xp;

			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
			    (char **)&xp);
			curl_easy_getinfo(xp->h, CURLINFO_RESPONSE_CODE, &code);
			if (msg->data.result != CURLE_OK || code != 200 ||
			    xp->len < min_len || xp->body == NULL ||
			    strstr(xp->body, "\"result\"") == NULL)
				failures++;
			else
				total++;
			xp->len = 0;
			curl_multi_remove_handle(m, xp->h);
			if (now_secs() - t0 < RUN_SECS) {
				curl_easy_setopt(xp->h, CURLOPT_POSTFIELDS,
				    bodies[next++ % nbodies]);
				curl_multi_add_handle(m, xp->h);
				running++;
			}
		}
		if (running == 0 && now_secs() - t0 >= RUN_SECS)
			break;
		curl_multi_poll(m, NULL, 0, 100, NULL);
	}
	el = now_secs() - t0;
	for (i = 0; i < conc; i++) {
		curl_easy_cleanup(x[i].h);
		free(x[i].body);
	}
	curl_multi_cleanup(m);
	return (double)total / el;
}

/* Seconds until a devnode with Planck's backlog is ready; -1: timeout. */
static double
backlog_start(const char *devnode, const char *dir, const char *cache)
{
	char	*extra[] = { "--backlog", "1650000", "--block-time", "12000",
		    "--cache-dir", (char *)cache, NULL };
	char	 url[64], *a;
	double	 t0 = now_secs(), el;
	pid_t	 pid;
	int	 port;

	pid = devnode_start(devnode, dir, extra);
	port = devnode_wait(pid, dir, COLD_SECS);
	el = now_secs() - t0;
	if (port == 0) {
		devnode_stop(pid);
		return -1;
	}
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
	a = post(url, "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"chain_getBlockHash\",\"params\":[1650000]}");
	if (a == NULL || strstr(a, "\"result\":\"0x") == NULL)
		failures++;
	free(a);
	devnode_stop(pid);
	return el;
}

static void
rm_rf(const char *dir)
{
	char	cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench/devnode: could not remove %s\n", dir);
}

int
main(int argc, char **argv)
{
	static const int single_conc[] = { 1, 4, 16 };
	static const int batch_conc[] = { 1, 4 };
	char		 devnode[PATH_MAX], dir[] = "/tmp/devnode-bench.XXXXXX";
	char		 url[64], cache[PATH_MAX], *a, *p;
	char		*singles[HASHES], *batch[1];
	char		*extra[] = { "--backlog", "10000", "--block-time",
			    "1000", "--cache-dir", "none", NULL };
	double		 single[3], batched[2], cold, warm, best = 0;
	size_t		 blen;
	pid_t		 pid;
	int		 port, i, c;

	if (argc > 1 && strcmp(argv[1], "-d") == 0 && argc > 2)
		snprintf(devnode, sizeof(devnode), "%s", argv[2]);
	else if (getenv("DEVNODE") != NULL)
		snprintf(devnode, sizeof(devnode), "%s", getenv("DEVNODE"));
	else {
		snprintf(devnode, sizeof(devnode), "%s", argv[0]);
		if ((p = strrchr(devnode, '/')) != NULL)
			*p = '\0';
		else
			snprintf(devnode, sizeof(devnode), ".");
		strncat(devnode, "/../devnode/chainwatch-devnode",
		    sizeof(devnode) - strlen(devnode) - 1);
	}
	if (access(devnode, X_OK) == -1) {
		fprintf(stderr, "usage: bench/devnode [-d chainwatch-devnode]"
		    "\n%s: %s\n", devnode, strerror(errno));
		return 2;
	}
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	headers = curl_slist_append(NULL, "Content-Type: application/json");

	pid = devnode_start(devnode, dir, extra);
	if ((port = devnode_wait(pid, dir, READY_SECS)) == 0) {
		devnode_stop(pid);
		rm_rf(dir);
		return 1;
	}
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
	a = post(url, "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"chain_getBlockHash\",\"params\":[["
	    "9000,9001,9002,9003,9004,9005,9006,9007,9008,9009,9010,9011,9012,"
	    "9013,9014,9015,9016,9017,9018,9019,9020,9021,9022,9023,9024,9025,"
	    "9026,9027,9028,9029,9030,9031,9032,9033,9034,9035,9036,9037,9038,"
	    "9039,9040,9041,9042,9043,9044,9045,9046,9047,9048,9049,9050,9051,"
	    "9052,9053,9054,9055,9056,9057,9058,9059,9060,9061,9062,9063,9064,"
	    "9065,9066,9067,9068,9069,9070,9071,9072,9073,9074,9075,9076,9077,"
	    "9078,9079,9080,9081,9082,9083,9084,9085,9086,9087,9088,9089,9090,"
	    "9091,9092,9093,9094,9095,9096,9097,9098,9099]]}");
	for (i = 0, p = a; i < HASHES && p != NULL &&
	    (p = strstr(p, "\"0x")) != NULL; i++, p += 67)
		snprintf(hashes[i], sizeof(hashes[i]), "%.66s", p + 1);
	free(a);
	if (i != HASHES) {
		fprintf(stderr, "bench/devnode: could not read block hashes\n");
		devnode_stop(pid);
		rm_rf(dir);
		return 1;
	}
	/* Single calls cycle through 100 known blocks; a batch asks all. */
	blen = 2 + HASHES * 256;
	batch[0] = calloc(1, blen);
	strcat(batch[0], "[");
	for (i = 0; i < HASHES; i++) {
		if (asprintf(&singles[i], "{\"jsonrpc\":\"2.0\",\"id\":%d,"
		    "\"method\":\"chain_getHeader\",\"params\":[\"%s\"]}", i,
		    hashes[i]) == -1)
			return 1;
		if (i > 0)
			strcat(batch[0], ",");
		strcat(batch[0], singles[i]);
	}
	strcat(batch[0], "]");

	printf("bench/devnode: %s on 127.0.0.1:%d, %d cores, %.0f s per "
	    "figure\n", devnode, port, (int)sysconf(_SC_NPROCESSORS_ONLN),
	    RUN_SECS);
	for (c = 0; c < 3; c++) {
		single[c] = measure(url, singles, HASHES, single_conc[c], 100);
		printf("  chain_getHeader, single calls, %2d connections: "
		    "%9.0f requests/s\n", single_conc[c], single[c]);
		if (single[c] > best)
			best = single[c];
	}
	for (c = 0; c < 2; c++) {
		batched[c] = measure(url, batch, 1, batch_conc[c], 100 * 100);
		printf("  chain_getHeader, batches of 100, %2d connections: "
		    "%7.0f requests/s (%.0f calls/s)\n", batch_conc[c],
		    batched[c], batched[c] * 100);
	}
	devnode_stop(pid);

	snprintf(cache, sizeof(cache), "%s/cache", dir);
	cold = backlog_start(devnode, dir, cache);
	printf("  --backlog %d, no cache yet:   ready in %.2f s%s\n", PLANCK,
	    cold, cold < 0 ? " (timed out)" : "");
	warm = backlog_start(devnode, dir, cache);
	printf("  --backlog %d, from the cache: ready in %.2f s\n", PLANCK,
	    warm);
	if (failures > 0)
		printf("  %d requests failed\n", failures);

	printf("devnode_single_rps=%.0f devnode_single_rps_c1=%.0f "
	    "devnode_single_rps_c4=%.0f devnode_single_rps_c16=%.0f "
	    "devnode_batch100_rps=%.0f devnode_batch100_rps_c1=%.0f "
	    "devnode_batch100_calls_per_s=%.0f devnode_backlog_cold_s=%.2f "
	    "devnode_backlog_warm_s=%.2f devnode_failures=%d\n", best,
	    single[0], single[1], single[2],
	    batched[0] > batched[1] ? batched[0] : batched[1], batched[0],
	    (batched[0] > batched[1] ? batched[0] : batched[1]) * 100, cold,
	    warm, failures);
	for (i = 0; i < HASHES; i++)
		free(singles[i]);
	free(batch[0]);
	curl_slist_free_all(headers);
	curl_global_cleanup();
	rm_rf(dir);
	return failures == 0 ? 0 : 1;
}
