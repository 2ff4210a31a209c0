/*
 * The benchmarks' shared parts (bench/benchlib.c).
 */
#ifndef CW_BENCHLIB_H
#define CW_BENCHLIB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BENCH_NHASH	1024

extern uint8_t	bench_hashes[BENCH_NHASH][32];

/*
 * Start chainwatch-devnode on a free port of 127.0.0.1 with the extra
 * args (NULL-terminated); url gets its address.  Exits on failure.
 */
pid_t	bench_devnode(const char *path, const char *dir, const char *name,
	    const char *const *args, char *url, size_t urllen);

/*
 * The p-th percentile of v[0..n-1] by nearest rank (the least value with
 * at least p% at or below it); sorts v.  0 when n is 0.
 */
double	bench_quantile(int64_t *v, size_t n, unsigned p);

/* The hashes of blocks 1..BENCH_NHASH of the devnode at url. */
void	bench_load_hashes(const char *url);

/*
 * chain_getHeader calls per second the devnode at url answers, in
 * batches of batch with inflight requests out, over secs seconds.
 */
double	bench_direct_rate(const char *url, unsigned batch, unsigned inflight,
	    double secs);
/* The same against n devnodes at once: the sum of their rates. */
double	bench_direct_rates(const char *const *urls, size_t n, unsigned batch,
	    unsigned inflight, double secs);

/* Its parent's pid and its user + system time in clock ticks; -1: gone. */
int	bench_proc_stat(pid_t pid, pid_t *ppid, unsigned long long *ticks);
/* The user + system clock ticks of pid's children now, summed. */
unsigned long long bench_kids_ticks(pid_t pid);

/*
 * Blocks in the store db that match the SQL condition cond, read through
 * a read-only connection while chainwatchd writes; 0 until the store
 * exists.  Only in programs built with -DBENCH_SQLITE and linked with
 * SQLite.
 */
int64_t	bench_count_blocks(const char *db, const char *cond);
/*
 * Up to max rows of the first ncol integer columns of sql over db, row
 * after row into rows; how many rows came.
 */
size_t	bench_query(const char *db, const char *sql, int64_t *rows,
	    size_t ncol, size_t max);

#endif
