/*
 * bench/backfill: blocks per second chainwatchd backfills end to end (the
 * header, and its difficulty and timestamp from state) from 1, 2 and 3
 * devnodes of one chain, each with 20 ms of latency injected (slow:20) and
 * a backlog of 200000 blocks, next to those devnodes' ceiling measured in
 * the same run: chain_getHeader batches of 100, 4 in flight per devnode,
 * through the worker's own HTTP client, divided by the 4 calls a block
 * costs (block hash, header, two state reads).
 *
 *   bench/backfill [-b build-dir] [-n backlog] [-t secs]
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

int
main(int argc, char *argv[])
{
	const char	*build = ".", *backlog = "200000";
	char		 dir[] = "/tmp/cw-backfill.XXXXXX", path[PATH_MAX];
	char		 cache[PATH_MAX], cmd[PATH_MAX + 16];
	double		 secs = 15, ratios[3] = { 0 }, rates[3] = { 0 };
	int		 ch;

	while ((ch = getopt(argc, argv, "b:n:t:")) != -1) {
		switch (ch) {
		case 'b':
			build = optarg;
			break;
		case 'n':
			backlog = optarg;
			break;
		case 't':
			secs = atof(optarg);
			break;
		default:
			fprintf(stderr, "usage: bench/backfill [-b build-dir] "
			    "[-n backlog] [-t secs]\n");
			return CW_EXIT_USAGE;
		}
	}
	log_init(1, LOG_LEVEL_WARN, "bench/backfill");
	signal(SIGPIPE, SIG_IGN);
	if (mkdtemp(dir) == NULL)
		fatal(CW_EXIT_SYSTEM, "mkdtemp");
	(void)chmod(dir, 0755);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	printf("bench/backfill: backlog %s, slow:20 on every devnode, %.0f s "
	    "per run, %ld cores\n", backlog, secs,
	    sysconf(_SC_NPROCESSORS_ONLN));
	printf("  %9s %16s %16s %7s\n", "devnodes", "chainwatchd blk/s",
	    "ceiling blk/s", "ratio");
	fflush(stdout);
	{
		/* Generate the chain once, into the cache, before timing. */
		const char *args[] = { "--seed", "backfill", "--backlog",
		    backlog, "--block-time", "12000", "--cache-dir", cache, NULL };
		char	url[64];
		pid_t	pid;

		snprintf(path, sizeof(path), "%s/devnode/chainwatch-devnode",
		    build);
		pid = bench_devnode(path, dir, "warm", args, url, sizeof(url));
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
	for (int k = 1; k <= 3; k++) {
		const char *args[] = { "--seed", "backfill", "--backlog", backlog,
		    "--block-time", "12000", "--fault", "slow:20@http",
		    "--cache-dir", cache, NULL };
		char	 url[3][64], name[8], conf[PATH_MAX], db[PATH_MAX];
		pid_t	 dn[3], cw;
		double	 ceiling = 0;
		int64_t	 done;
		uint64_t t0;
		FILE	*fp;

		snprintf(path, sizeof(path), "%s/devnode/chainwatch-devnode",
		    build);
		for (int i = 0; i < k; i++) {
			snprintf(name, sizeof(name), "d%d", i);
			dn[i] = bench_devnode(path, dir, name, args, url[i],
			    sizeof(url[i]));
		}
		bench_load_hashes(url[0]);
		for (int i = 0; i < k; i++)
			ceiling += bench_direct_rate(url[i], 100, 4, 2.0) /
			    CALLS_PER_BLOCK;

		snprintf(conf, sizeof(conf), "%s/k%d.conf", dir, k);
		snprintf(db, sizeof(db), "%s/k%d.db", dir, k);
		if ((fp = fopen(conf, "w")) == NULL)
			fatal(CW_EXIT_SYSTEM, "%s", conf);
		fprintf(fp, "[daemon]\ndatabase = %s\npidfile = %s/k%d.pid\n"
		    "user = %s\nworker = %s/workers/chainwatch-worker\n"
		    "log_level = warn\ncontrol_socket = %s/k%d.sock\n"
		    "metrics_listen = none\n[chain bench]\nblock_time = 12s\n",
		    db, dir, k, getuid() == 0 ? "nobody" : "", realpath(build,
		    path) != NULL ? path : build, dir, k);
		for (int i = 0; i < k; i++)
			fprintf(fp, "endpoint = d%d %s ws%s\n", i, url[i],
			    url[i] + 4);
		fclose(fp);
		snprintf(path, sizeof(path), "%s/supervisor/chainwatchd", build);
		t0 = now_mono_ms();
		if ((cw = fork()) == 0) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			execl(path, "chainwatchd", "-d", "-f", conf,
			    (char *)NULL);
			_exit(111);
		}
		while (now_mono_ms() - t0 < (uint64_t)(secs * 1000))
			usleep(250000);
		done = bench_count_blocks(db,
		    "canonical = 1 AND difficulty IS NOT NULL");
		rates[k - 1] = (double)done * 1000.0 /
		    (double)(now_mono_ms() - t0);
		ratios[k - 1] = ceiling > 0 ? rates[k - 1] / ceiling : 0;
		printf("  %9d %16.0f %16.0f %7.2f\n", k, rates[k - 1], ceiling,
		    ratios[k - 1]);
		fflush(stdout);
		kill(cw, SIGTERM);
		waitpid(cw, NULL, 0);
		for (int i = 0; i < k; i++) {
			kill(dn[i], SIGTERM);
			waitpid(dn[i], NULL, 0);
		}
	}
	printf("backfill_blk_s_1=%.0f backfill_blk_s_2=%.0f "
	    "backfill_blk_s_3=%.0f ratio_1=%.2f ratio_2=%.2f ratio_3=%.2f\n",
	    rates[0], rates[1], rates[2], ratios[0], ratios[1], ratios[2]);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		log_warnx("could not remove %s", dir);
	curl_global_cleanup();
	return 0;
}
