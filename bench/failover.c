/*
 * bench/failover: what a black-holed preferred endpoint costs chainwatchd
 * with its default routing settings (hedge_after 1 s, hedge_quantile 95,
 * request_timeout 10 s, default breaker).  Three devnodes of one chain;
 * the daemon follows it healthy for a while (the baseline), then the
 * first endpoint black-holes HTTP and WebSocket for as long.  From the
 * store, for the blocks first stored in each phase: p50 and p99 of the
 * state-read latency (blocks.state_at - first_seen) and of the head-to-
 * row latency (first_seen - the block's Timestamp.Now, which the devnode
 * sets to the very millisecond it makes the block), and each as a ratio
 * of black-holed to healthy.
 *
 *   bench/failover [-b build-dir] [-t secs per phase] [-m block ms]
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <curl/curl.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchlib.h"
#include "log.h"
#include "util.h"

#define NDEV		3
#define BACKLOG		"100"
#define SETTLE_MS	10000	/* for the last reads of a phase */

enum { HEALTHY, BLACKHOLED, NPHASE };
static const char *const phase_name[NPHASE] = { "healthy", "d1 black-holed" };

struct figures {
	int64_t		 blocks, unread;
	double		 state_p50, state_p99, head_p50, head_p99;
};

/* Figures of the canonical blocks first stored in [from, to). */
static void
phase_figures(const char *db, int64_t from, int64_t to, struct figures *f)
{
	sqlite3		*h;
	sqlite3_stmt	*st;
	int64_t		*sw = NULL, *hd = NULL;
	size_t		 n = 0, m = 0;

	memset(f, 0, sizeof(*f));
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		fatalx(CW_EXIT_SYSTEM, "%s: %s", db, sqlite3_errmsg(h));
	sqlite3_busy_timeout(h, 5000);
	if (sqlite3_prepare_v2(h, "SELECT state_at - first_seen, first_seen - "
	    "timestamp FROM blocks WHERE canonical = 1 AND first_seen >= ?1 "
	    "AND first_seen < ?2", -1, &st, NULL) != SQLITE_OK)
		fatalx(CW_EXIT_SYSTEM, "%s: %s", db, sqlite3_errmsg(h));
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	while (sqlite3_step(st) == SQLITE_ROW) {
		f->blocks++;
		if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
			f->unread++;
			continue;
		}
		sw = xrealloc(sw, (n + 1) * sizeof(*sw));
		sw[n++] = sqlite3_column_int64(st, 0);
		hd = xrealloc(hd, (m + 1) * sizeof(*hd));
		hd[m++] = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
	f->state_p50 = bench_quantile(sw, n, 50);
	f->state_p99 = bench_quantile(sw, n, 99);
	f->head_p50 = bench_quantile(hd, m, 50);
	f->head_p99 = bench_quantile(hd, m, 99);
	free(sw);
	free(hd);
}

/* Blocks of [from, to) still without their state. */
static int64_t
unread(const char *db, int64_t from, int64_t to)
{
	char	cond[160];

	snprintf(cond, sizeof(cond), "canonical = 1 AND first_seen >= %lld "
	    "AND first_seen < %lld AND state_at IS NULL", (long long)from,
	    (long long)to);
	return bench_count_blocks(db, cond);
}

static void
control(int port, const char *body)
{
	char	 url[64];
	CURL	*h = curl_easy_init();
	FILE	*null = fopen("/dev/null", "w");

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/control", port);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 5L);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, null);
	if (curl_easy_perform(h) != CURLE_OK)
		fatalx(CW_EXIT_SYSTEM, "devnode control port %d", port);
	curl_easy_cleanup(h);
	fclose(null);
}

static int
read_port(const char *path)
{
	FILE	*fp;
	char	 line[32];
	int	 port = 0;

	for (int i = 0; i < 300 && port <= 0; i++) {
		if ((fp = fopen(path, "r")) != NULL) {
			if (fgets(line, sizeof(line), fp) != NULL)
				port = atoi(line);
			fclose(fp);
		}
		if (port <= 0)
			usleep(100000);
	}
	if (port <= 0)
		fatalx(CW_EXIT_SYSTEM, "no port in %s", path);
	return port;
}

/* b / a, each at least 1 ms: the store counts whole milliseconds. */
static double
ratio(double b, double a)
{
	return (b < 1 ? 1 : b) / (a < 1 ? 1 : a);
}

int
main(int argc, char *argv[])
{
	const char	*build = ".", *block_ms = "250";
	char		 dir[] = "/tmp/cw-failover.XXXXXX", path[PATH_MAX];
	char		 db[PATH_MAX], conf[PATH_MAX], cmd[PATH_MAX + 16];
	char		 url[NDEV][64], cportf[NDEV][PATH_MAX], start[32];
	double		 secs = 30;
	int		 ch, cport[NDEV];
	int64_t		 t[NPHASE + 1];
	pid_t		 dn[NDEV], cw;
	struct figures	 f[NPHASE];
	FILE		*fp;

	while ((ch = getopt(argc, argv, "b:m:t:")) != -1) {
		switch (ch) {
		case 'b':
			build = optarg;
			break;
		case 'm':
			block_ms = optarg;
			break;
		case 't':
			secs = atof(optarg);
			break;
		default:
			fprintf(stderr, "usage: bench/failover [-b build-dir] "
			    "[-t secs per phase] [-m block ms]\n");
			return CW_EXIT_USAGE;
		}
	}
	log_init(1, LOG_LEVEL_WARN, "bench/failover");
	signal(SIGPIPE, SIG_IGN);
	if (mkdtemp(dir) == NULL)
		fatal(CW_EXIT_SYSTEM, "mkdtemp");
	(void)chmod(dir, 0755);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	snprintf(start, sizeof(start), "%llu", (unsigned long long)now_wall_ms());
	snprintf(path, sizeof(path), "%s/devnode/chainwatch-devnode", build);
	for (int i = 0; i < NDEV; i++) {
		char	name[8];

		snprintf(name, sizeof(name), "d%d", i + 1);
		snprintf(cportf[i], sizeof(cportf[i]), "%s/%s.cport", dir, name);
		{
			const char *args[] = { "--seed", "failover", "--backlog",
			    BACKLOG, "--block-time", block_ms, "--start-time",
			    start, "--cache-dir", "none", "--control-listen",
			    "127.0.0.1:0", "--control-port-file", cportf[i],
			    NULL };

			dn[i] = bench_devnode(path, dir, name, args, url[i],
			    sizeof(url[i]));
		}
		cport[i] = read_port(cportf[i]);
	}

	snprintf(conf, sizeof(conf), "%s/failover.conf", dir);
	snprintf(db, sizeof(db), "%s/failover.db", dir);
	if ((fp = fopen(conf, "w")) == NULL)
		fatal(CW_EXIT_SYSTEM, "%s", conf);
	fprintf(fp, "[daemon]\ndatabase = %s\npidfile = %s/failover.pid\n"
	    "user = %s\nworker = %s/workers/chainwatch-worker\n"
	    "log_level = warn\ncontrol_socket = %s/ctl.sock\n"
	    "metrics_listen = none\n[chain bench]\ndifficulty_floor = 1\n"
	    "block_time = %sms\n", db,
	    dir, getuid() == 0 ? "nobody" : "", realpath(build, path) != NULL ?
	    path : build, dir, block_ms);
	for (int i = 0; i < NDEV; i++)
		fprintf(fp, "endpoint = d%d %s ws%s\n", i + 1, url[i],
		    url[i] + 4);
	fclose(fp);

	snprintf(path, sizeof(path), "%s/supervisor/chainwatchd", build);
	if ((cw = fork()) == 0) {
		int out;

		snprintf(cmd, sizeof(cmd), "%s/log", dir);
		out = open(cmd, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(out, 1);
		dup2(out, 2);
		execl(path, "chainwatchd", "-d", "-f", conf, (char *)NULL);
		_exit(111);
	}
	/* Backfilled, and a few live blocks read, before timing. */
	for (int i = 0; i < 600; i++) {
		if (bench_count_blocks(db, "canonical = 1 AND state_at IS "
		    "NOT NULL") > atoi(BACKLOG) + 5)
			break;
		if (waitpid(cw, NULL, WNOHANG) == cw)
			fatalx(CW_EXIT_SYSTEM, "chainwatchd exited; see %s/log",
			    dir);
		usleep(100000);
	}
	printf("bench/failover: %d devnodes, %s ms blocks, %.0f s per phase, "
	    "default hedge and breaker settings, %ld cores\n", NDEV, block_ms,
	    secs, sysconf(_SC_NPROCESSORS_ONLN));
	fflush(stdout);

	t[HEALTHY] = (int64_t)now_wall_ms();
	usleep((useconds_t)(secs * 1e6));
	t[BLACKHOLED] = (int64_t)now_wall_ms();
	control(cport[0], "{\"clear\":true,\"enable\":\"blackhole\"}");
	usleep((useconds_t)(secs * 1e6));
	t[NPHASE] = (int64_t)now_wall_ms();
	/* The phase's last reads may still be out: give them time. */
	for (int i = 0; i < SETTLE_MS / 100 &&
	    unread(db, t[HEALTHY], t[NPHASE]) > 0; i++)
		usleep(100000);

	kill(cw, SIGTERM);
	waitpid(cw, NULL, 0);
	control(cport[0], "{\"clear\":true}");
	for (int i = 0; i < NDEV; i++) {
		kill(dn[i], SIGTERM);
		waitpid(dn[i], NULL, 0);
	}

	for (int p = 0; p < NPHASE; p++)
		phase_figures(db, t[p], t[p + 1], &f[p]);
	printf("  %-16s %8s %8s %9s %9s %8s %8s\n", "phase", "blocks",
	    "unread", "state p50", "state p99", "head p50", "head p99");
	for (int p = 0; p < NPHASE; p++)
		printf("  %-16s %8lld %8lld %7.0f ms %7.0f ms %5.0f ms "
		    "%5.0f ms\n", phase_name[p], (long long)f[p].blocks,
		    (long long)f[p].unread, f[p].state_p50, f[p].state_p99,
		    f[p].head_p50, f[p].head_p99);
	printf("  %-16s %8s %8s %9.2f %9.2f %8.2f %8.2f\n",
	    "ratio", "", "", ratio(f[1].state_p50, f[0].state_p50),
	    ratio(f[1].state_p99, f[0].state_p99),
	    ratio(f[1].head_p50, f[0].head_p50),
	    ratio(f[1].head_p99, f[0].head_p99));
	printf("  (ratios are black-holed / healthy, figures under 1 ms "
	    "taken as 1 ms)\n");
	printf("state_p50_ms=%.0f state_p99_ms=%.0f head_p50_ms=%.0f "
	    "head_p99_ms=%.0f bh_state_p50_ms=%.0f bh_state_p99_ms=%.0f "
	    "bh_head_p50_ms=%.0f bh_head_p99_ms=%.0f bh_unread=%lld "
	    "state_p50_ratio=%.2f state_p99_ratio=%.2f head_p50_ratio=%.2f "
	    "head_p99_ratio=%.2f\n", f[0].state_p50, f[0].state_p99,
	    f[0].head_p50, f[0].head_p99, f[1].state_p50, f[1].state_p99,
	    f[1].head_p50, f[1].head_p99, (long long)f[1].unread,
	    ratio(f[1].state_p50, f[0].state_p50),
	    ratio(f[1].state_p99, f[0].state_p99),
	    ratio(f[1].head_p50, f[0].head_p50),
	    ratio(f[1].head_p99, f[0].head_p99));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		log_warnx("could not remove %s", dir);
	curl_global_cleanup();
	return 0;
}
