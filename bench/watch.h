/*
 * A store reader and a bare subscriber beside chainwatchd (bench/watch.c).
 */
#ifndef CW_BENCH_WATCH_H
#define CW_BENCH_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BENCH_WATCH_MAX_WS	8

/* One number first seen: in the store (a row) or on a subscription. */
struct bench_seen {
	int	sub;
	int64_t	number;
	int64_t	ms;		/* wall clock */
};

/*
 * Fork the watcher: it notes when each block number above floor first
 * shows in the store db (polled every ms) and on the WebSocket urls
 * ("ws://127.0.0.1:port"), and writes them to out on SIGTERM.
 */
pid_t	bench_watch_start(const char *db, const char *const *ws, size_t n,
	    int64_t floor, const char *out);
/* What the watcher wrote to out, up to max; how many. */
size_t	bench_watch_read(const char *out, struct bench_seen *seen,
	    size_t max);

#endif
