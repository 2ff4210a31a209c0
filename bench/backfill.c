/*
 * bench/backfill: blocks per second chainwatchd backfills end to end (the
 * header, and its difficulty and timestamp from state) from E devnodes of
 * one chain (2 by default) with a backlog of 200000 blocks, at each
 * injected latency asked for (slow:MS on every HTTP request; 20 and 100 ms
 * by default), next to two ceilings measured or derived in the same run:
 *
 *   latency-bound: what max_inflight requests out per endpoint could carry
 *     at that latency, E * max_inflight * 100 calls per round trip, over
 *     the 4 calls a block costs (block hash, header, two state reads);
 *   serving: what the devnodes answer at most, chain_getHeader batches of
 *     100 with 64 out per devnode, all devnodes at once through the
 *     worker's own HTTP client, over the same 4 calls a block.
 *
 * The rate is counted from the first block stored to secs later: before
 * it the daemon waits for its first head (up to a block time, 12 s here),
 * which says nothing about backfill.  The ratio is chainwatchd's rate over
 * the lesser ceiling, which is named.
 *
 *   bench/backfill [-b build-dir] [-e endpoints] [-l ms[,ms...]]
 *                  [-m max_inflight] [-n backlog] [-t secs]
 *
 * -m writes max_inflight into the daemon's configuration; without it the
 * daemon's default applies, and the latency-bound ceiling is computed for
 * DEFAULT_CAP (give -m 4 for a daemon whose default is 4).
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <curl/curl.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchlib.h"
#include "log.h"
#include "util.h"

#define CALLS_PER_BLOCK	4
#define BATCH		100	/* calls in one batch: a header range item */
#define DEFAULT_CAP	64	/* max_inflight's default */
#define SERVE_INFLIGHT	64	/* batches out per devnode for the ceiling */
#define MAX_EP		8
#define MAX_LAT		8
#define DONE		"canonical = 1 AND difficulty IS NOT NULL"

struct run {
	unsigned	 latency;	/* ms */
	double		 start;		/* s to the first block stored */
	double		 rate, lat_ceiling, serve_ceiling, ratio;
};

static const char	*build = ".", *backlog = "200000";
static char		 dir[] = "/tmp/cw-backfill.XXXXXX";
static unsigned		 n_ep = 2, cap;
static double		 secs = 15;

static void
usage(void)
{
	fprintf(stderr, "usage: bench/backfill [-b build-dir] [-e endpoints] "
	    "[-l ms[,ms...]] [-m max_inflight] [-n backlog] [-t secs]\n");
	exit(CW_EXIT_USAGE);
}

/* One latency: devnodes, their ceilings, chainwatchd against them. */
static void
run_one(const char *cache, struct run *ru)
{
	char		 fault[32], url[MAX_EP][64], name[16], conf[PATH_MAX];
	char		 db[PATH_MAX], path[PATH_MAX];
	const char	*urls[MAX_EP];
	const char	*args[] = { "--seed", "backfill", "--backlog", backlog,
	    "--block-time", "12000", "--fault", fault, "--cache-dir", cache,
	    NULL };
	pid_t		 dn[MAX_EP], cw;
	int64_t		 first;
	uint64_t	 t0;
	FILE		*fp;

	snprintf(fault, sizeof(fault), "slow:%u@http", ru->latency);
	snprintf(path, sizeof(path), "%s/devnode/chainwatch-devnode", build);
	for (unsigned i = 0; i < n_ep; i++) {
		snprintf(name, sizeof(name), "d%u", i);
		dn[i] = bench_devnode(path, dir, name, args, url[i],
		    sizeof(url[i]));
		urls[i] = url[i];
	}
	bench_load_hashes(url[0]);
	ru->serve_ceiling = bench_direct_rates(urls, n_ep, BATCH,
	    SERVE_INFLIGHT, 3.0) / CALLS_PER_BLOCK;
	ru->lat_ceiling = (double)n_ep * (cap > 0 ? cap : DEFAULT_CAP) *
	    BATCH / CALLS_PER_BLOCK * 1000.0 / ru->latency;

	snprintf(conf, sizeof(conf), "%s/l%u.conf", dir, ru->latency);
	snprintf(db, sizeof(db), "%s/l%u.db", dir, ru->latency);
	if ((fp = fopen(conf, "w")) == NULL)
		fatal(CW_EXIT_SYSTEM, "%s", conf);
	fprintf(fp, "[daemon]\ndatabase = %s\npidfile = %s/l%u.pid\n"
	    "user = %s\nworker = %s/workers/chainwatch-worker\n"
	    "log_level = warn\ncontrol_socket = %s/l%u.sock\n"
	    "metrics_listen = none\n[chain bench]\nblock_time = 12s\n",
	    db, dir, ru->latency, getuid() == 0 ? "nobody" : "",
	    realpath(build, path) != NULL ? path : build, dir, ru->latency);
	if (cap > 0)
		fprintf(fp, "max_inflight = %u\n", cap);
	for (unsigned i = 0; i < n_ep; i++)
		fprintf(fp, "endpoint = d%u %s ws%s\n", i, url[i], url[i] + 4);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/supervisor/chainwatchd", build);
	t0 = now_mono_ms();
	if ((cw = fork()) == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execl(path, "chainwatchd", "-d", "-f", conf, (char *)NULL);
		_exit(111);
	}
	while ((first = bench_count_blocks(db, DONE)) == 0 &&
	    now_mono_ms() - t0 < 60000)
		usleep(50000);
	ru->start = (double)(now_mono_ms() - t0) / 1000.0;
	t0 = now_mono_ms();
	while (now_mono_ms() - t0 < (uint64_t)(secs * 1000))
		usleep(250000);
	ru->rate = (double)(bench_count_blocks(db, DONE) - first) * 1000.0 /
	    (double)(now_mono_ms() - t0);
	kill(cw, SIGTERM);
	waitpid(cw, NULL, 0);
	for (unsigned i = 0; i < n_ep; i++) {
		kill(dn[i], SIGTERM);
		waitpid(dn[i], NULL, 0);
	}
	ru->ratio = ru->rate / (ru->lat_ceiling < ru->serve_ceiling ?
	    ru->lat_ceiling : ru->serve_ceiling);
}

int
main(int argc, char *argv[])
{
	char		 cache[PATH_MAX], cmd[PATH_MAX + 16], *p, *end;
	const char	*lats = "20,100";
	struct run	 runs[MAX_LAT];
	size_t		 n_runs = 0;
	int		 ch;

	while ((ch = getopt(argc, argv, "b:e:l:m:n:t:")) != -1) {
		switch (ch) {
		case 'b':
			build = optarg;
			break;
		case 'e':
			n_ep = (unsigned)strtoul(optarg, &end, 10);
			if (*end != '\0' || n_ep < 1 || n_ep > MAX_EP)
				usage();
			break;
		case 'l':
			lats = optarg;
			break;
		case 'm':
			cap = (unsigned)strtoul(optarg, &end, 10);
			if (*end != '\0' || cap < 1)
				usage();
			break;
		case 'n':
			backlog = optarg;
			break;
		case 't':
			secs = atof(optarg);
			break;
		default:
			usage();
		}
	}
	for (p = (char *)lats; *p != '\0' && n_runs < MAX_LAT; p = end) {
		unsigned long ms = strtoul(p, &end, 10);

		if (end == p || ms < 1 || ms > 10000 ||
		    (*end != ',' && *end != '\0'))
			usage();
		runs[n_runs++].latency = (unsigned)ms;
		if (*end == ',')
			end++;
	}
	log_init(1, LOG_LEVEL_WARN, "bench/backfill");
	signal(SIGPIPE, SIG_IGN);
	if (mkdtemp(dir) == NULL)
		fatal(CW_EXIT_SYSTEM, "mkdtemp");
	(void)chmod(dir, 0755);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	printf("bench/backfill: backlog %s, %u devnodes, max_inflight %u%s, "
	    "%.0f s per run, %ld cores\n", backlog, n_ep,
	    cap > 0 ? cap : DEFAULT_CAP, cap > 0 ? "" : " (default)", secs,
	    sysconf(_SC_NPROCESSORS_ONLN));
	printf("  %7s %12s %14s %14s %6s %-8s %s\n", "latency", "chainwatchd",
	    "latency-bound", "serving", "ratio", "binds", "first block");
	printf("  %7s %12s %14s %14s %6s %-8s %s\n", "ms", "blk/s", "blk/s",
	    "blk/s", "", "", "after s");
	fflush(stdout);
	{
		/* Generate the chain once, into the cache, before timing. */
		const char *args[] = { "--seed", "backfill", "--backlog",
		    backlog, "--block-time", "12000", "--cache-dir", cache, NULL };
		char	url[64], path[PATH_MAX];
		pid_t	pid;

		snprintf(path, sizeof(path), "%s/devnode/chainwatch-devnode",
		    build);
		pid = bench_devnode(path, dir, "warm", args, url, sizeof(url));
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
	for (size_t i = 0; i < n_runs; i++) {
		struct run *ru = &runs[i];

		run_one(cache, ru);
		printf("  %7u %12.0f %14.0f %14.0f %6.2f %-8s %.1f\n",
		    ru->latency, ru->rate, ru->lat_ceiling, ru->serve_ceiling,
		    ru->ratio, ru->lat_ceiling < ru->serve_ceiling ? "latency" :
		    "serving", ru->start);
		fflush(stdout);
	}
	for (size_t i = 0; i < n_runs; i++)
		printf("%sbackfill_blk_s_%ums=%.0f ratio_%ums=%.2f",
		    i > 0 ? " " : "", runs[i].latency, runs[i].rate,
		    runs[i].latency, runs[i].ratio);
	printf("\n");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		log_warnx("could not remove %s", dir);
	curl_global_cleanup();
	return 0;
}
