/*
 * What the benchmarks share: starting a devnode, and the devnode's own
 * ceiling for chain_getHeader batches measured with the worker's HTTP
 * client, which every other figure is divided by.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <curl/curl.h>
#include <ev.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef BENCH_SQLITE
#include <sqlite3.h>
#endif

#include "benchlib.h"
#include "buf.h"
#include "hex.h"
#include "log.h"
#include "util.h"
#include "wrk_rpc.h"

uint8_t		bench_hashes[BENCH_NHASH][32];


static int
cmp_i64(const void *a, const void *b)
{
	int64_t	x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

double
bench_quantile(int64_t *v, size_t n, unsigned p)
{
	size_t	k;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_i64);
	k = (n * p + 99) / 100;
	return (double)v[k > 0 ? k - 1 : 0];
}

pid_t
bench_devnode(const char *path, const char *dir, const char *name,
    const char *const *args, char *url, size_t urllen)
{
	char		 portfile[512], line[32];
	const char	*argv[64];
	size_t		 n = 0;
	pid_t		 pid;
	FILE		*fp;

	snprintf(portfile, sizeof(portfile), "%s/%s.port", dir, name);
	(void)unlink(portfile);		/* a previous run's */
	argv[n++] = "chainwatch-devnode";
	argv[n++] = "--listen";
	argv[n++] = "127.0.0.1:0";
	argv[n++] = "--port-file";
	argv[n++] = portfile;
	for (; *args != NULL && n < nitems(argv) - 1; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execv(path, (char *const *)argv);
		_exit(111);
	}
	/* Up to 30 min: a chain of millions of blocks is hashed first. */
	for (int i = 0; i < 18000; i++) {
		if ((fp = fopen(portfile, "r")) != NULL) {
			if (fgets(line, sizeof(line), fp) != NULL &&
			    atoi(line) > 0) {
				fclose(fp);
				snprintf(url, urllen, "http://127.0.0.1:%d",
				    atoi(line));
				return pid;
			}
			fclose(fp);
		}
		usleep(100000);
	}
	fatalx(CW_EXIT_SYSTEM, "devnode %s did not start", path);
}

static size_t
body_write(char *p, size_t size, size_t n, void *arg)
{
	buf_add(arg, p, size * n);
	return size * n;
}

static CURL *
easy_new(const char *url, const char *req, struct buf *b)
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

/* The hashes of blocks 1..BENCH_BENCH_NHASH, for by-hash requests. */
void
bench_load_hashes(const char *url)
{
	static const char req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"chain_getBlockHash\",\"params\":[[";
	struct buf	b = { 0 }, all = { 0 };
	CURL		*h;
	const char	*p;

	buf_adds(&all, req);
	for (int i = 1; i <= BENCH_NHASH; i++)
		buf_addf(&all, "%s%d", i == 1 ? "" : ",", i);
	buf_adds(&all, "]]}");
	h = easy_new(url, all.p, &b);
	if (curl_easy_perform(h) != CURLE_OK || b.p == NULL)
		fatalx(CW_EXIT_SYSTEM, "devnode does not answer");
	curl_easy_cleanup(h);
	buf_free(&all);
	p = b.p;
	for (int i = 0; i < BENCH_NHASH; i++) {
		if ((p = strstr(p, "\"0x")) == NULL || strlen(p) < 67)
			fatalx(CW_EXIT_SYSTEM, "short block hash list");
		{
			char	h66[67];

			memcpy(h66, p + 1, 66);
			h66[66] = '\0';
			if (hex_decode(h66, bench_hashes[i], 32) == -1)
				fatalx(CW_EXIT_SYSTEM, "bad block hash");
		}
		p += 67;
	}
	buf_free(&b);
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

		hex_encode(bench_hashes[d->cursor++ % BENCH_NHASH], 32, hx);
		snprintf(d->params[k], sizeof(d->params[k]), "[\"%s\"]", hx);
		d->calls[k].method = "chain_getHeader";
		d->calls[k].params = d->params[k];
		d->calls[k].flags = WRK_RPC_NULL_ABSENT;
	}
	if (wrk_rpc_send(d->rpc, d->calls, d->batch, 10000, direct_done, d)
	    == -1)
		fatalx(CW_EXIT_SYSTEM, "wrk_rpc_send");
}

double
bench_direct_rate(const char *url, unsigned batch, unsigned inflight,
    double secs)
{
	return bench_direct_rates(&url, 1, batch, inflight, secs);
}

/* The same against n devnodes at once, from one loop: their sum. */
double
bench_direct_rates(const char *const *urls, size_t n, unsigned batch,
    unsigned inflight, double secs)
{
	struct wrk_http_conf	hc;
	struct direct		*d = xcalloc(n, sizeof(*d));
	struct ev_loop		*loop = ev_loop_new(EVFLAG_AUTO);
	uint64_t		 start = now_mono_ms(), headers = 0;

	for (size_t j = 0; j < n; j++) {
		memset(&hc, 0, sizeof(hc));
		hc.url = urls[j];
		hc.connect_timeout_ms = 5000;
		hc.max_response = 64 << 20;
		/* A connection per request out: none waits for another. */
		hc.max_conns = inflight > 16 ? inflight : 16;
		d[j].loop = loop;
		d[j].rpc = wrk_rpc_new(loop, &hc);
		d[j].batch = batch;
		d[j].calls = xcalloc(batch, sizeof(*d[j].calls));
		d[j].params = xcalloc(batch, sizeof(*d[j].params));
		d[j].end = start + (uint64_t)(secs * 1000);
		d[j].cursor = (unsigned)j * (BENCH_NHASH / 2);
		for (unsigned i = 0; i < inflight; i++)
			direct_send(&d[j]);
	}
	/* Answers that come after the end are not counted. */
	while (now_mono_ms() < start + (uint64_t)(secs * 1000))
		ev_run(loop, EVRUN_ONCE);
	for (size_t j = 0; j < n; j++) {
		headers += d[j].headers;
		wrk_rpc_free(d[j].rpc);
		free(d[j].calls);
		free(d[j].params);
	}
	ev_loop_destroy(loop);
	free(d);
	return (double)headers / secs;
}

/* Its parent's pid and its user + system time in clock ticks. */
int
bench_proc_stat(pid_t pid, pid_t *ppid, unsigned long long *ticks)
{
	char			 path[64], buf[1024], *p;
	unsigned long long	 ut, st;
	int			 pp;
	FILE			*fp;
	size_t			 n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	/* After the command in parentheses, which may hold anything. */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
	    &pp, &ut, &st) != 3)
		return -1;
	*ppid = pp;
	*ticks = ut + st;
	return 0;
}

unsigned long long
bench_kids_ticks(pid_t pid)
{
	DIR			*d;
	struct dirent		*de;
	unsigned long long	 sum = 0, t;
	pid_t			 pp, c;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL)
		if ((c = (pid_t)atoi(de->d_name)) > 0 &&
		    bench_proc_stat(c, &pp, &t) == 0 && pp == pid)
			sum += t;
	closedir(d);
	return sum;
}

/*
 * bench/worker links this file without SQLite: the store reader is
 * compiled only where the Makefile fragment asks for it.
 */
#ifdef BENCH_SQLITE
int64_t
bench_count_blocks(const char *db, const char *cond)
{
	sqlite3		*h;
	sqlite3_stmt	*st;
	char		 sql[256];
	int64_t		 n = 0;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(h);
		return 0;
	}
	sqlite3_busy_timeout(h, 1000);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM blocks WHERE %s",
	    cond);
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return n;
}

size_t
bench_query(const char *db, const char *sql, int64_t *rows, size_t ncol,
    size_t max)
{
	sqlite3		*h;
	sqlite3_stmt	*st;
	size_t		 n = 0;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(h);
		return 0;
	}
	sqlite3_busy_timeout(h, 5000);
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK)
		while (n < max && sqlite3_step(st) == SQLITE_ROW) {
			for (size_t c = 0; c < ncol; c++)
				rows[n * ncol + c] =
				    sqlite3_column_int64(st, (int)c);
			n++;
		}
	sqlite3_finalize(st);
	sqlite3_close(h);
	return n;
}
#endif
