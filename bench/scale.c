/*
 * bench/scale: one chain followed through E endpoints on this machine,
 * spread over D devnodes (5 by default), for each E asked (200, 1000,
 * 2000 and 5000 by default):
 *
 *   ready:     seconds from chainwatchd's start until every endpoint has
 *              delivered a head (its worker started, subscribed, heard);
 *   PSS:       of the supervisor, and of all its children together
 *              (proportional set size: pages they share count once in
 *              all), with the mean per worker;
 *   CPU:       the supervisor's, in % of one core, while following for
 *              secs (20 by default) once all are ready;
 *   heads/s:   heads the supervisor took in while following (every
 *              endpoint announces every block: about E per block time),
 *              and blocks stored per second;
 *   stop:      seconds from SIGTERM until chainwatchd has exited.
 *
 * The daemon's log of each run (level warn) is kept in the run's folder
 * when it printed anything, and its first lines are shown: what breaks
 * first shows there.  Figures are printed per E and as ratios to the
 * first E's.
 *
 *   bench/scale [-b build-dir] [-d devnodes] [-e E[,E...]] [-m block ms]
 *               [-t secs]
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
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

#define MAX_DEV		16
#define MAX_RUNS	8
#define READY_MS	600000	/* give up waiting for the workers after */

struct run {
	unsigned	 e;
	int		 ready;		/* all endpoints delivered a head */
	double		 ready_s, stop_s;
	double		 sup_pss_mb, kids_pss_mb, cpu_pct;
	double		 heads_s, blocks_s;
	unsigned	 kids;
	long		 log_lines;
};

static const char	*build = ".";
static char		 dir[] = "/tmp/cw-scale.XXXXXX";
static unsigned		 n_dev = 5, block_ms = 1000;
static double		 secs = 20;

static void
usage(void)
{
	fprintf(stderr, "usage: bench/scale [-b build-dir] [-d devnodes] "
	    "[-e E[,E...]] [-m block ms] [-t secs]\n");
	exit(CW_EXIT_USAGE);
}

/* Pss: of /proc/pid/smaps_rollup, in kB; 0 if it is gone. */
static long
pss_kb(pid_t pid)
{
	char	path[64], line[256];
	long	kb = 0;
	FILE	*fp;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "Pss: %ld kB", &kb) == 1)
			break;
	fclose(fp);
	return kb;
}

/* The PSS of pid's children (the workers), summed, in kB. */
static long
kids_pss_kb(pid_t pid, unsigned *kids)
{
	DIR		*d;
	struct dirent	*de;
	long		 kb = 0;

	*kids = 0;
	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		unsigned long long	 t;
		pid_t			 pp, c = (pid_t)atoi(de->d_name);

		if (c <= 0 || bench_proc_stat(c, &pp, &t) == -1 || pp != pid)
			continue;
		kb += pss_kb(c);
		(*kids)++;
	}
	closedir(d);
	return kb;
}

/* Endpoints that delivered a head, and the heads they delivered. */
static void
heads(const char *db, int64_t *ready, int64_t *seen)
{
	int64_t	row[1][2] = { { 0, 0 } };

	(void)bench_query(db, "SELECT coalesce(sum(heads_seen > 0), 0), "
	    "coalesce(sum(heads_seen), 0) FROM endpoints WHERE configured = 1",
	    &row[0][0], 2, 1);
	*ready = row[0][0];
	*seen = row[0][1];
}

static void
run_one(struct run *ru)
{
	char			 name[16], url[MAX_DEV][64], conf[PATH_MAX];
	char			 db[PATH_MAX], logf[PATH_MAX], path[PATH_MAX];
	char			 bt[16], st[24], line[512];
	const char		*args[] = { "--seed", "scale", "--backlog", "50",
	    "--block-time", bt, "--start-time", st, NULL };
	pid_t			 dn[MAX_DEV], cw, pp;
	uint64_t		 t0, t1;
	unsigned long long	 c0, c1;
	int64_t			 ready = 0, h0, h1, b0, b1;
	FILE			*fp;

	snprintf(bt, sizeof(bt), "%u", block_ms);
	/* One start: the devnodes agree on every block's time. */
	snprintf(st, sizeof(st), "%llu", (unsigned long long)now_wall_ms());
	snprintf(path, sizeof(path), "%s/devnode/chainwatch-devnode", build);
	for (unsigned i = 0; i < n_dev; i++) {
		snprintf(name, sizeof(name), "e%u-d%u", ru->e, i);
		dn[i] = bench_devnode(path, dir, name, args, url[i],
		    sizeof(url[i]));
	}
	snprintf(conf, sizeof(conf), "%s/e%u.conf", dir, ru->e);
	snprintf(db, sizeof(db), "%s/e%u.db", dir, ru->e);
	snprintf(logf, sizeof(logf), "%s/e%u.log", dir, ru->e);
	if ((fp = fopen(conf, "w")) == NULL)
		fatal(CW_EXIT_SYSTEM, "%s", conf);
	fprintf(fp, "[daemon]\ndatabase = %s\npidfile = %s/e%u.pid\n"
	    "user = %s\nworker = %s/workers/chainwatch-worker\n"
	    "log_level = warn\ncontrol_socket = %s/e%u.sock\n"
	    "metrics_listen = none\n[chain scale]\ndifficulty_floor = 1\n"
	    "block_time = %ums\n",
	    db, dir, ru->e, getuid() == 0 ? "nobody" : "",
	    realpath(build, path) != NULL ? path : build, dir, ru->e,
	    block_ms);
	for (unsigned i = 0; i < ru->e; i++)
		fprintf(fp, "endpoint = e%u %s ws%s\n", i, url[i % n_dev],
		    url[i % n_dev] + 4);
	fclose(fp);

	snprintf(path, sizeof(path), "%s/supervisor/chainwatchd", build);
	t0 = now_mono_ms();
	if ((cw = fork()) == 0) {
		int out = open(logf, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(out, 1);
		dup2(out, 2);
		execl(path, "chainwatchd", "-d", "-f", conf, (char *)NULL);
		_exit(111);
	}
	while (now_mono_ms() - t0 < READY_MS) {
		heads(db, &ready, &h0);
		if (ready >= ru->e || waitpid(cw, NULL, WNOHANG) == cw)
			break;
		usleep(250000);
	}
	ru->ready = ready >= ru->e;
	ru->ready_s = (double)(now_mono_ms() - t0) / 1000.0;
	if (ru->ready) {
		heads(db, &ready, &h0);
		b0 = bench_count_blocks(db, "canonical = 1");
		t1 = now_mono_ms();
		if (bench_proc_stat(cw, &pp, &c0) == -1)
			c0 = 0;
		usleep((useconds_t)(secs * 1e6));
		if (bench_proc_stat(cw, &pp, &c1) == -1)
			c1 = c0;
		heads(db, &ready, &h1);
		b1 = bench_count_blocks(db, "canonical = 1");
		t1 = now_mono_ms() - t1;
		ru->cpu_pct = (double)(c1 - c0) * 100.0 /
		    (double)sysconf(_SC_CLK_TCK) / ((double)t1 / 1000.0);
		ru->heads_s = (double)(h1 - h0) * 1000.0 / (double)t1;
		ru->blocks_s = (double)(b1 - b0) * 1000.0 / (double)t1;
	}
	ru->sup_pss_mb = (double)pss_kb(cw) / 1024.0;
	ru->kids_pss_mb = (double)kids_pss_kb(cw, &ru->kids) / 1024.0;

	t1 = now_mono_ms();
	kill(cw, SIGTERM);
	waitpid(cw, NULL, 0);
	ru->stop_s = (double)(now_mono_ms() - t1) / 1000.0;
	for (unsigned i = 0; i < n_dev; i++)
		kill(dn[i], SIGTERM);
	for (unsigned i = 0; i < n_dev; i++) {
		uint64_t t = now_mono_ms();

		while (waitpid(dn[i], NULL, WNOHANG) == 0)
			if (now_mono_ms() - t < 10000)
				usleep(50000);
			else {
				printf("    devnode %u did not stop within 10 s of "
				    "SIGTERM: killed\n", i);
				kill(dn[i], SIGKILL);
			}
	}
	ru->log_lines = 0;
	if ((fp = fopen(logf, "r")) != NULL) {
		while (fgets(line, sizeof(line), fp) != NULL)
			if (ru->log_lines++ < 5)
				printf("    log: %s", line);
		fclose(fp);
	}
}

int
main(int argc, char *argv[])
{
	const char	*es = "200,1000,2000,5000";
	struct run	 runs[MAX_RUNS];
	struct rlimit	 rl;
	size_t		 n_runs = 0;
	char		*p, *end, cmd[PATH_MAX + 16];
	int		 ch, keep = 0;

	while ((ch = getopt(argc, argv, "b:d:e:m:t:")) != -1) {
		switch (ch) {
		case 'b':
			build = optarg;
			break;
		case 'd':
			n_dev = (unsigned)strtoul(optarg, &end, 10);
			if (*end != '\0' || n_dev < 1 || n_dev > MAX_DEV)
				usage();
			break;
		case 'e':
			es = optarg;
			break;
		case 'm':
			block_ms = (unsigned)strtoul(optarg, &end, 10);
			if (*end != '\0' || block_ms < 100)
				usage();
			break;
		case 't':
			secs = atof(optarg);
			if (secs < 1)
				usage();
			break;
		default:
			usage();
		}
	}
	for (p = (char *)es; *p != '\0' && n_runs < MAX_RUNS; p = end) {
		unsigned long e = strtoul(p, &end, 10);

		if (end == p || e < 1 || e > 100000 ||
		    (*end != ',' && *end != '\0'))
			usage();
		memset(&runs[n_runs], 0, sizeof(runs[n_runs]));
		runs[n_runs++].e = (unsigned)e;
		if (*end == ',')
			end++;
	}
	log_init(1, LOG_LEVEL_WARN, "bench/scale");
	signal(SIGPIPE, SIG_IGN);
	/* As a service manager would give a daemon of thousands of sockets. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (mkdtemp(dir) == NULL)
		fatal(CW_EXIT_SYSTEM, "mkdtemp");
	(void)chmod(dir, 0755);
	printf("bench/scale: one chain, %u devnodes, blocks every %u ms, "
	    "following %.0f s, %ld cores, RLIMIT_NOFILE %llu\n", n_dev,
	    block_ms, secs, sysconf(_SC_NPROCESSORS_ONLN),
	    (unsigned long long)rl.rlim_cur);
	printf("  %6s %8s %9s %10s %9s %8s %8s %8s %7s %5s\n", "E",
	    "ready s", "sup MB", "workers MB", "MB each", "sup CPU",
	    "heads/s", "blocks/s", "stop s", "log");
	fflush(stdout);
	for (size_t i = 0; i < n_runs; i++) {
		struct run *ru = &runs[i];

		run_one(ru);
		printf("  %6u %8.1f %9.1f %10.0f %9.2f %7.1f%% %8.0f %8.2f "
		    "%7.1f %5ld%s\n", ru->e, ru->ready_s, ru->sup_pss_mb,
		    ru->kids_pss_mb, ru->kids > 0 ? ru->kids_pss_mb / ru->kids :
		    0, ru->cpu_pct, ru->heads_s, ru->blocks_s, ru->stop_s,
		    ru->log_lines, ru->ready ? "" : "  (not all ready)");
		fflush(stdout);
		keep |= ru->log_lines > 0;
	}
	for (size_t i = 1; i < n_runs && runs[0].ready; i++)
		printf("  E x%.0f over E = %u: ready x%.2f, supervisor PSS x%.2f, "
		    "its CPU x%.2f, heads/s x%.2f\n", (double)runs[i].e /
		    runs[0].e, runs[0].e, runs[i].ready_s / runs[0].ready_s,
		    runs[i].sup_pss_mb / runs[0].sup_pss_mb,
		    runs[0].cpu_pct > 0 ? runs[i].cpu_pct / runs[0].cpu_pct : 0,
		    runs[0].heads_s > 0 ? runs[i].heads_s / runs[0].heads_s : 0);
	for (size_t i = 0; i < n_runs; i++)
		printf("%sscale_%u_ready_s=%.1f scale_%u_sup_cpu_pct=%.1f "
		    "scale_%u_sup_pss_mb=%.1f", i > 0 ? " " : "", runs[i].e,
		    runs[i].ready_s, runs[i].e, runs[i].cpu_pct, runs[i].e,
		    runs[i].sup_pss_mb);
	printf("\n");
	if (keep)
		printf("logs kept in %s\n", dir);
	else {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			log_warnx("could not remove %s", dir);
	}
	return 0;
}
