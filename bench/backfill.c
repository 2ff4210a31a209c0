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
 * -a runs each latency until the whole backlog is stored and prints the
 * time it took (-n 1650000 -l 100 -a: Planck's history from 2 endpoints),
 * then until all but the last FINAL_LAG blocks are final, and the WAL's
 * largest size meanwhile; every 30 s meanwhile, a line of the blocks
 * stored so far and what a block cost the supervisor and its workers
 * since the line before.
 *
 * -L measures live blocks instead, at the first latency, blocks every
 * 250 ms: for 60 s while idle (a backlog of 200, caught up) and 60 s
 * while backfilling the -n backlog at full speed (give one that lasts:
 * -n 800000).  From a block's timestamp (when the devnode makes it due)
 * to: its arrival at a bare C subscriber of the devnodes (bench/watch.c;
 * what the devnodes and this machine allow any client), its arrival at
 * chainwatch's worker (first_seen), and its row as a reader of the store
 * first sees it (polled every ms); and from first_seen to its state
 * (difficulty, timestamp) read and stored.  p50 and p99 of each, and
 * backfilling over idle.
 *
 *   bench/backfill [-aLv] [-B base-build-dir] [-b build-dir] [-e endpoints]
 *                  [-l ms[,ms...]] [-m max_inflight] [-n backlog] [-t secs]
 *
 * -B runs each latency twice more, alternately, with the daemon and worker
 * of another build (base-build-dir; the devnodes and their chain stay
 * this build's), and prints this build's rate over the base's, each the
 * mean of its two runs: a base built from a commit before a change
 * measures what the change costs, in the same run.
 *
 * -v has the daemon log at debug level, into a file kept with the run's
 * folder (named at the end).
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
#include "watch.h"
#include "log.h"
#include "util.h"

#define CALLS_PER_BLOCK	4
#define BATCH		100	/* calls in one batch: a header range item */
#define DEFAULT_CAP	64	/* max_inflight's default */
#define SERVE_INFLIGHT	64	/* batches out per devnode for the ceiling */
#define MAX_EP		8
#define MAX_LAT		8
#define DONE		"canonical = 1 AND difficulty IS NOT NULL"
#define FINAL_LAG	200	/* -a: blocks not final when it is all final */

struct run {
	unsigned	 latency;	/* ms */
	double		 start;		/* s to the first block stored */
	double		 rate, lat_ceiling, serve_ceiling, ratio;
	double		 total;		/* -a: s from the first block to all */
	double		 final;		/* -a: s to all final but the last */
	double		 wal_mb;	/* -a: the WAL's largest, MB */
	double		 base_rate, base_ratio;	/* -B */
	int64_t		 stored;	/* -a: blocks stored by the end */
	/* CPU time a block stored cost, us: the supervisor, its workers,
	 * the devnodes; and what the machine's cores could store at it */
	double		 us[3], cpu_bound;
};

/* The devnodes of one run, and chainwatchd against them. */
struct setup {
	pid_t		 dn[MAX_EP], cw;
	char		 url[MAX_EP][64];
	char		 db[PATH_MAX];
	uint64_t	 t0;		/* ms, when chainwatchd started */
};

static const char	*build = ".", *backlog = "200000";
static const char	*base;		/* -B: the base build, or NULL */
static const char	*daemon_build;	/* whose daemon and worker run */
static char		 dir[] = "/tmp/cw-backfill.XXXXXX";
static unsigned		 n_ep = 2, cap, block_ms = 12000;
static double		 secs = 15;
static int		 all;		/* -a: until the whole backlog */
static int		 verbose;	/* -v: debug logs, kept */
static unsigned		 runs_made;	/* for each run's store name */

static void
usage(void)
{
	fprintf(stderr, "usage: bench/backfill [-aLv] [-B base-build-dir] "
	    "[-b build-dir] [-e endpoints] [-l ms[,ms...]] [-m max_inflight] "
	    "[-n backlog] [-t secs]\n");
	exit(CW_EXIT_USAGE);
}

/*
 * E devnodes with blog blocks behind, every HTTP answer slowed by latency
 * ms, and chainwatchd started against them (its store named by tag).
 * With ru, the ceilings are measured first.
 */
static void
start_all(const char *cache, const char *tag, const char *blog,
    unsigned latency, struct setup *su, struct run *ru)
{
	char		 fault[32], name[16], conf[PATH_MAX], path[PATH_MAX];
	char		 bt[16], st[24];
	const char	*urls[MAX_EP];
	const char	*args[] = { "--seed", "backfill", "--backlog", blog,
	    "--block-time", bt, "--fault", fault, "--cache-dir", cache,
	    "--start-time", st, NULL };
	FILE		*fp;

	snprintf(fault, sizeof(fault), "slow:%u@http", latency);
	snprintf(bt, sizeof(bt), "%u", block_ms);
	/* One start: the devnodes agree on every block's time. */
	snprintf(st, sizeof(st), "%llu", (unsigned long long)now_wall_ms());
	snprintf(path, sizeof(path), "%s/devnode/chainwatch-devnode", build);
	for (unsigned i = 0; i < n_ep; i++) {
		snprintf(name, sizeof(name), "d%u", i);
		su->dn[i] = bench_devnode(path, dir, name, args, su->url[i],
		    sizeof(su->url[i]));
		urls[i] = su->url[i];
	}
	if (ru != NULL) {
		bench_load_hashes(su->url[0]);
		ru->serve_ceiling = bench_direct_rates(urls, n_ep, BATCH,
		    SERVE_INFLIGHT, 3.0) / CALLS_PER_BLOCK;
		ru->lat_ceiling = (double)n_ep * (cap > 0 ? cap : DEFAULT_CAP) *
		    BATCH / CALLS_PER_BLOCK * 1000.0 / latency;
	}

	snprintf(conf, sizeof(conf), "%s/%s.conf", dir, tag);
	snprintf(su->db, sizeof(su->db), "%s/%s.db", dir, tag);
	if ((fp = fopen(conf, "w")) == NULL)
		fatal(CW_EXIT_SYSTEM, "%s", conf);
	fprintf(fp, "[daemon]\ndatabase = %s\npidfile = %s/%s.pid\n"
	    "user = %s\nworker = %s/workers/chainwatch-worker\n"
	    "log_level = %s\ncontrol_socket = %s/%s.sock\n"
	    "metrics_listen = none\n[chain bench]\nblock_time = %ums\n",
	    su->db, dir, tag, getuid() == 0 ? "nobody" : "",
	    realpath(daemon_build, path) != NULL ? path : daemon_build,
	    verbose ? "debug" : "warn", dir, tag, block_ms);
	/* The devnodes' least difficulty (a base may not know the key). */
	if (daemon_build == build)
		fprintf(fp, "difficulty_floor = 1\n");
	if (cap > 0)
		fprintf(fp, "max_inflight = %u\n", cap);
	for (unsigned i = 0; i < n_ep; i++)
		fprintf(fp, "endpoint = d%u %s ws%s\n", i, su->url[i],
		    su->url[i] + 4);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/supervisor/chainwatchd",
	    daemon_build);
	su->t0 = now_mono_ms();
	if ((su->cw = fork()) == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		if (verbose) {
			snprintf(conf + strlen(conf) - 5, 6, ".log");
			dup2(open(conf, O_WRONLY | O_CREAT | O_TRUNC, 0644), 2);
			snprintf(conf + strlen(conf) - 4, 6, ".conf");
		}
		execl(path, "chainwatchd", "-d", "-f", conf, (char *)NULL);
		_exit(111);
	}
}

static void
stop_all(struct setup *su)
{
	kill(su->cw, SIGTERM);
	waitpid(su->cw, NULL, 0);
	for (unsigned i = 0; i < n_ep; i++) {
		kill(su->dn[i], SIGTERM);
		waitpid(su->dn[i], NULL, 0);
	}
}

static double	ratio(double, double);

/* The WAL's size now, kept in ru if the largest yet. */
static void
wal_max(const struct setup *su, struct run *ru)
{
	char		path[PATH_MAX + 8];
	struct stat	sb;

	snprintf(path, sizeof(path), "%s-wal", su->db);
	if (stat(path, &sb) == 0 && (double)sb.st_size / 1048576 > ru->wal_mb)
		ru->wal_mb = (double)sb.st_size / 1048576;
}

/* CPU clock ticks so far: the supervisor, its workers, the devnodes. */
static void
cpu_ticks(const struct setup *su, unsigned long long t[3])
{
	unsigned long long	v;
	pid_t			pp;

	t[0] = bench_proc_stat(su->cw, &pp, &v) == 0 ? v : 0;
	t[1] = bench_kids_ticks(su->cw);
	t[2] = 0;
	for (unsigned i = 0; i < n_ep; i++)
		t[2] += bench_proc_stat(su->dn[i], &pp, &v) == 0 ? v : 0;
}

/*
 * -a: every PROGRESS_MS, the blocks stored so far (all but those below
 * the lowest canonical block: the backfill runs down from the head) and
 * the CPU a block of the supervisor and of its workers since the last
 * line, so that a cost growing with the store shows where it grows.
 */
#define PROGRESS_MS	30000

static void
progress(const struct setup *su, int64_t want, unsigned long long cp[3],
    int64_t *sp, uint64_t *tp, uint64_t now)
{
	unsigned long long	c[3];
	int64_t			low = -1, stored, d;
	double			tick = (double)sysconf(_SC_CLK_TCK);

	if (bench_query(su->db, "SELECT min(number) FROM blocks INDEXED BY "
	    "blocks_canonical WHERE canonical = 1", &low, 1, 1) != 1 ||
	    low < 0)
		return;
	stored = want - low;
	cpu_ticks(su, c);
	if ((d = stored - *sp) > 0)
		printf("  %7.0f s: %8lld stored, the last %7lld: supervisor "
		    "%4.0f us/blk, workers %4.0f us/blk\n",
		    (double)(now - su->t0) / 1000.0, (long long)stored,
		    (long long)d, (double)(c[0] - cp[0]) * 1e6 / tick /
		    (double)d, (double)(c[1] - cp[1]) * 1e6 / tick /
		    (double)d);
	fflush(stdout);
	memcpy(cp, c, sizeof(c));
	*sp = stored;
	*tp = now;
}

/* One latency: devnodes, their ceilings, chainwatchd against them. */
static void
run_one(const char *cache, struct run *ru)
{
	struct setup	 su;
	char		 tag[16];
	int64_t		 first, want = strtoll(backlog, NULL, 10), done;
	uint64_t	 t0;
	unsigned long long c0[3], c1[3];
	double		 sum = 0;

	/* A store of its own each run (a base's daemon may be older). */
	snprintf(tag, sizeof(tag), "l%u-%u", ru->latency, runs_made++);
	start_all(cache, tag, backlog, ru->latency, &su, ru);
	while ((first = bench_count_blocks(su.db, DONE)) == 0 &&
	    now_mono_ms() - su.t0 < 60000)
		usleep(50000);
	ru->start = (double)(now_mono_ms() - su.t0) / 1000.0;
	t0 = now_mono_ms();
	cpu_ticks(&su, c0);
	if (all) {
		/*
		 * Blocks 1 to the backlog's last, within an hour.  Counting
		 * them scans the store (near a core's worth, polled every
		 * 250 ms, at this size, and its long reads hold the
		 * checkpoints back): the queue's backfill items, which a
		 * block leaves only once done, are counted instead, and the
		 * blocks only when none is left, the time taken before.
		 */
		unsigned long long	cp[3];
		uint64_t		tp = t0;
		int64_t			sp = 0;

		memcpy(cp, c0, sizeof(cp));
		for (;;) {
			int64_t		left = -1;
			uint64_t	now = now_mono_ms();

			if (now - tp >= PROGRESS_MS)
				progress(&su, want, cp, &sp, &tp, now);
			ru->total = (double)(now - t0) / 1000.0;
			if (bench_query(su.db, "SELECT count(*) FROM queue "
			    "WHERE kind IN ('headers', 'state')", &left, 1,
			    1) == 1 && left == 0 &&
			    (ru->stored = bench_count_blocks(su.db, DONE)) >=
			    want)
				break;
			if (now - t0 >= 3600000) {
				ru->stored = bench_count_blocks(su.db, DONE);
				break;
			}
			wal_max(&su, ru);
			usleep(left == 0 ? 1000000 : 250000);
		}
		/*
		 * Then final (all but the last FINAL_LAG, which a block
		 * every 12 s leaves far from finality): when a history links
		 * at once its blocks become final a slice at a time.
		 */
		for (;;) {
			int64_t		fin = -1;
			uint64_t	now = now_mono_ms();

			ru->final = (double)(now - t0) / 1000.0;
			if ((bench_query(su.db, "SELECT coalesce(final_number, "
			    "-1) FROM chains", &fin, 1, 1) == 1 &&
			    fin >= want - FINAL_LAG) || now - t0 >= 3600000)
				break;
			wal_max(&su, ru);
			usleep(250000);
		}
	} else
		while (now_mono_ms() - t0 < (uint64_t)(secs * 1000))
			usleep(250000);
	cpu_ticks(&su, c1);
	done = (all ? ru->stored : bench_count_blocks(su.db, DONE)) - first;
	ru->rate = (double)done * 1000.0 / (all ? ru->total * 1000.0 :
	    (double)(now_mono_ms() - t0));
	stop_all(&su);
	for (int k = 0; k < 3; k++) {
		ru->us[k] = done > 0 ? (double)(c1[k] - c0[k]) * 1e6 /
		    (double)sysconf(_SC_CLK_TCK) / (double)done : 0;
		sum += ru->us[k];
	}
	ru->cpu_bound = sum > 0 ? (double)sysconf(_SC_NPROCESSORS_ONLN) *
	    1e6 / sum : 0;
	ru->ratio = ru->rate / (ru->lat_ceiling < ru->serve_ceiling ?
	    ru->lat_ceiling : ru->serve_ceiling);
}

/* ---- -L: live reads while idle and while backfilling ---- */

#define LIVE_SECS	60
#define LIVE_MAX	4096

/* The latencies of a live block, each from the block's timestamp. */
enum { L_SUB, L_HEAD, L_ROW, L_STATE, L_N };
static const char *const l_name[L_N] = {
	"subscriber", "worker", "row", "state"
};

struct live {
	size_t		n;		/* blocks */
	size_t		got[L_N];	/* of which measured */
	double		p50[L_N], p99[L_N];
	int		backfilling;	/* still, at the window's end */
};

/*
 * Live blocks (above blog) first stored in LIVE_SECS from when the
 * phase settled.  From each block's timestamp (the devnode sets it to
 * the millisecond the block is due): to its first arrival at a bare
 * subscriber of the devnodes (bench/watch.c: the floor of this machine),
 * to a worker's receipt (first_seen), and to when a reader of the store
 * first sees its row (polled every ms); and from its row to its state
 * (difficulty, timestamp) read and stored.  p50 and p99 of each.
 */
static void
live_phase(const char *cache, const char *tag, const char *blog,
    unsigned latency, struct live *lv)
{
	static int64_t		 rows[LIVE_MAX][4], v[L_N][LIVE_MAX];
	static int64_t		 row_at[LIVE_MAX], sub_at[LIVE_MAX];
	static struct bench_seen seen[2 * LIVE_MAX];
	struct setup		 su;
	char			 sql[512], out[PATH_MAX];
	const char		*urls[MAX_EP];
	int64_t			 n_blog = strtoll(blog, NULL, 10), from, to;
	size_t			 n, n_seen;
	pid_t			 watcher;

	start_all(cache, tag, blog, latency, &su, NULL);
	for (unsigned i = 0; i < n_ep; i++)
		urls[i] = su.url[i];
	snprintf(out, sizeof(out), "%s/%s.watch", dir, tag);
	watcher = bench_watch_start(su.db, urls, n_ep, n_blog, out);
	/* Settled: idle once the backlog is in, busy once backfill runs. */
	while (now_mono_ms() - su.t0 < 120000 &&
	    bench_count_blocks(su.db, DONE) < (n_blog < 1000 ? n_blog : 1000))
		usleep(100000);
	from = (int64_t)now_wall_ms();
	sleep(LIVE_SECS);
	to = (int64_t)now_wall_ms();
	lv->backfilling = bench_count_blocks(su.db, DONE) < n_blog;
	sleep(3);		/* the last ones' state reads */
	kill(watcher, SIGTERM);
	waitpid(watcher, NULL, 0);
	snprintf(sql, sizeof(sql), "SELECT number, timestamp, first_seen, "
	    "state_at FROM blocks WHERE canonical = 1 AND number > %lld "
	    "AND first_seen >= %lld AND first_seen < %lld AND timestamp IS "
	    "NOT NULL AND state_at IS NOT NULL", (long long)n_blog,
	    (long long)from, (long long)to);
	n = bench_query(su.db, sql, &rows[0][0], 4, LIVE_MAX);
	stop_all(&su);

	memset(row_at, 0, sizeof(row_at));
	memset(sub_at, 0, sizeof(sub_at));
	n_seen = bench_watch_read(out, seen, nitems(seen));
	for (size_t i = 0; i < n_seen; i++) {
		int64_t k = seen[i].number - n_blog - 1;

		if (k >= 0 && k < LIVE_MAX)
			(seen[i].sub ? sub_at : row_at)[k] = seen[i].ms;
	}
	memset(lv->got, 0, sizeof(lv->got));
	for (size_t i = 0; i < n; i++) {
		int64_t k = rows[i][0] - n_blog - 1, ts = rows[i][1];

		v[L_HEAD][lv->got[L_HEAD]++] = rows[i][2] - ts;
		v[L_STATE][lv->got[L_STATE]++] = rows[i][3] - rows[i][2];
		if (k >= 0 && k < LIVE_MAX && sub_at[k] != 0)
			v[L_SUB][lv->got[L_SUB]++] = sub_at[k] - ts;
		if (k >= 0 && k < LIVE_MAX && row_at[k] != 0)
			v[L_ROW][lv->got[L_ROW]++] = row_at[k] - ts;
	}
	lv->n = n;
	for (int l = 0; l < L_N; l++) {
		lv->p50[l] = bench_quantile(v[l], lv->got[l], 50);
		lv->p99[l] = bench_quantile(v[l], lv->got[l], 99);
	}
}

static double
ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

static void
live(const char *cache, unsigned latency)
{
	struct live	idle, busy;

	live_phase(cache, "idle", "200", latency, &idle);
	live_phase(cache, "busy", backlog, latency, &busy);
	printf("live blocks every %u ms, HTTP slowed %u ms, %d s a phase: "
	    "%zu blocks idle, %zu backfilling%s\n", block_ms, latency,
	    LIVE_SECS, idle.n, busy.n, busy.backfilling ? "" :
	    " (backfill ended early: give a larger -n)");
	printf("  ms from the block's timestamp to: a bare subscriber of the "
	    "devnodes,\n  chainwatch's worker, its row (a reader's poll); "
	    "state: from first_seen to\n  the state stored\n");
	printf("  %-11s %8s %8s %8s %8s %8s %8s %8s %8s\n", "",
	    "subscr", "", "worker", "", "row", "", "state", "");
	printf("  %-11s", "phase");
	for (int l = 0; l < L_N; l++)
		printf(" %8s %8s", "p50", "p99");
	printf("\n");
	printf("  %-11s", "idle");
	for (int l = 0; l < L_N; l++)
		printf(" %8.0f %8.0f", idle.p50[l], idle.p99[l]);
	printf("\n  %-11s", "backfilling");
	for (int l = 0; l < L_N; l++)
		printf(" %8.0f %8.0f", busy.p50[l], busy.p99[l]);
	printf("\n  %-11s", "ratio");
	for (int l = 0; l < L_N; l++)
		printf(" %8.2f %8.2f", ratio(busy.p50[l], idle.p50[l]),
		    ratio(busy.p99[l], idle.p99[l]));
	printf("\n");
	for (int l = 0; l < L_N; l++)
		if (idle.got[l] < idle.n || busy.got[l] < busy.n)
			printf("  (%s: %zu of %zu idle, %zu of %zu busy "
			    "measured)\n", l_name[l], idle.got[l], idle.n,
			    busy.got[l], busy.n);
	printf("live_sub_p99_ratio=%.2f live_head_p99_ratio=%.2f "
	    "live_row_p99_ratio=%.2f live_state_p99_ratio=%.2f\n",
	    ratio(busy.p99[L_SUB], idle.p99[L_SUB]),
	    ratio(busy.p99[L_HEAD], idle.p99[L_HEAD]),
	    ratio(busy.p99[L_ROW], idle.p99[L_ROW]),
	    ratio(busy.p99[L_STATE], idle.p99[L_STATE]));
}

/*
 * -B: each latency twice more, the base build's daemon and this one's
 * alternately (base first), this build's rate over the base's, each the
 * mean of its own two runs (the first of this build's is the table's).
 */
static void
against_base(const char *cache, struct run *runs, size_t n_runs)
{
	printf("  against the base build %s (its daemon and worker, these "
	    "devnodes):\n", base);
	printf("  %7s %12s %12s %6s\n", "latency", "this blk/s", "base blk/s",
	    "this/base");
	for (size_t i = 0; i < n_runs; i++) {
		struct run	b1, b2, t2;

		b1 = b2 = t2 = runs[i];
		daemon_build = base;
		run_one(cache, &b1);
		daemon_build = build;
		run_one(cache, &t2);
		daemon_build = base;
		run_one(cache, &b2);
		daemon_build = build;
		runs[i].base_rate = (b1.rate + b2.rate) / 2;
		runs[i].base_ratio = ratio((runs[i].rate + t2.rate) / 2,
		    runs[i].base_rate);
		printf("  %7u %12.0f %12.0f %6.2f   (this %.0f, %.0f; base "
		    "%.0f, %.0f)\n", runs[i].latency, (runs[i].rate + t2.rate) /
		    2, runs[i].base_rate, runs[i].base_ratio, runs[i].rate,
		    t2.rate, b1.rate, b2.rate);
		fflush(stdout);
	}
}

int
main(int argc, char *argv[])
{
	char		 cache[PATH_MAX], cmd[PATH_MAX + 16], *p, *end;
	const char	*lats = "20,100";
	struct run	 runs[MAX_LAT] = { 0 };
	size_t		 n_runs = 0;
	int		 ch, live_mode = 0;

	while ((ch = getopt(argc, argv, "aB:b:e:Ll:m:n:t:v")) != -1) {
		switch (ch) {
		case 'B':
			base = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'a':
			all = 1;
			break;
		case 'L':
			live_mode = 1;
			block_ms = 250;
			break;
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
	daemon_build = build;
	if (base != NULL && (all || live_mode))
		usage();
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
	    "%s, %ld cores\n", backlog, n_ep,
	    cap > 0 ? cap : DEFAULT_CAP, cap > 0 ? "" : " (default)",
	    live_mode ? "live reads" : all ? "until all is stored" :
	    "a window per run", sysconf(_SC_NPROCESSORS_ONLN));
	fflush(stdout);
	{
		/* Generate the chain once, into the cache, before timing. */
		char	url[64], path[PATH_MAX], bt[16];
		const char *args[] = { "--seed", "backfill", "--backlog",
		    backlog, "--block-time", bt, "--cache-dir", cache, NULL };
		pid_t	pid;
		uint64_t t0 = now_mono_ms();

		snprintf(bt, sizeof(bt), "%u", block_ms);
		snprintf(path, sizeof(path), "%s/devnode/chainwatch-devnode",
		    build);
		pid = bench_devnode(path, dir, "warm", args, url, sizeof(url));
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		printf("  (the devnodes' chain of %s blocks made and cached in "
		    "%.1f s)\n", backlog, (double)(now_mono_ms() - t0) / 1000);
	}
	if (live_mode) {
		live(cache, runs[0].latency);
		goto done;
	}
	printf("  %7s %12s %14s %14s %6s %-8s %11s%s\n", "latency",
	    "chainwatchd", "latency-bound", "serving", "ratio", "binds",
	    "first block", all ? "  all stored   all final  WAL at most" :
	    "");
	printf("  %7s %12s %14s %14s %6s %-8s %11s%s\n", "ms", "blk/s", "blk/s",
	    "blk/s", "", "", "after s", all ? "     after s     after s" : "");
	fflush(stdout);
	for (size_t i = 0; i < n_runs; i++) {
		struct run *ru = &runs[i];

		run_one(cache, ru);
		printf("  %7u %12.0f %14.0f %14.0f %6.2f %-8s %11.1f",
		    ru->latency, ru->rate, ru->lat_ceiling, ru->serve_ceiling,
		    ru->ratio, ru->lat_ceiling < ru->serve_ceiling ? "latency" :
		    "serving", ru->start);
		if (all)
			printf(" %11.1f %11.1f %9.0f MB%s", ru->total,
			    ru->final, ru->wal_mb, ru->stored <
			    strtoll(backlog, NULL, 10) ? " (not all: 1 h cap)" :
			    "");
		printf("\n");
		fflush(stdout);
	}
	printf("  CPU time a block stored cost over the same time%s, and "
	    "what all %ld cores\n  could store at that cost (nothing else "
	    "running):\n", all ? " (to all final)" : "",
	    sysconf(_SC_NPROCESSORS_ONLN));
	printf("  %7s %11s %9s %9s %10s %11s\n", "latency", "supervisor",
	    "workers", "devnodes", "cpu-bound", "chainwatchd");
	printf("  %7s %11s %9s %9s %10s %11s\n", "ms", "us/blk", "us/blk",
	    "us/blk", "blk/s", "/cpu-bound");
	for (size_t i = 0; i < n_runs; i++)
		printf("  %7u %11.0f %9.0f %9.0f %10.0f %11.2f\n",
		    runs[i].latency, runs[i].us[0], runs[i].us[1],
		    runs[i].us[2], runs[i].cpu_bound,
		    ratio(runs[i].rate, runs[i].cpu_bound));
	if (base != NULL)
		against_base(cache, runs, n_runs);
	for (size_t i = 0; i < n_runs; i++) {
		printf("%sbackfill_blk_s_%ums=%.0f ratio_%ums=%.2f "
		    "cpu_bound_%ums=%.0f", i > 0 ? " " : "", runs[i].latency,
		    runs[i].rate, runs[i].latency, runs[i].ratio,
		    runs[i].latency, runs[i].cpu_bound);
		if (all)
			printf(" all_s_%ums=%.1f final_s_%ums=%.1f "
			    "wal_mb_%ums=%.0f", runs[i].latency,
			    runs[i].total, runs[i].latency, runs[i].final,
			    runs[i].latency, runs[i].wal_mb);
		if (base != NULL)
			printf(" base_ratio_%ums=%.2f", runs[i].latency,
			    runs[i].base_ratio);
	}
	printf("\n");
done:
	if (verbose)
		printf("daemon logs (debug) kept in %s\n", dir);
	else {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			log_warnx("could not remove %s", dir);
	}
	curl_global_cleanup();
	return 0;
}
