/*
 * bench/watch.c: two clocks beside chainwatchd, in a process of their own.
 *
 * The reader is what a user's sqlite3 sees: a read-only connection that
 * asks PRAGMA data_version every millisecond and, when another connection
 * has committed, notes the first time it sees each block number above a
 * floor.  That moment, less the block's timestamp, is the head's latency
 * to its row (to within the poll's millisecond).
 *
 * The subscriber is the least any client on this machine could do: a
 * bare WebSocket subscription to chain_subscribeNewHeads on each devnode,
 * in C, that only notes when each number first arrives.  chainwatchd's
 * workers do the same and more; what the subscriber sees is the floor
 * set by the devnodes and the machine, not by chainwatch.
 *
 * On SIGTERM the watcher writes "row N ms" and "sub N ms" lines (wall
 * clock ms) to its file and exits.
 */
#include "config.h"

#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "watch.h"

#define WATCH_MAX	8192		/* numbers above the floor noted */
#define WS_BUF		65536

struct sub {
	int	fd;
	size_t	len;
	uint8_t	buf[WS_BUF];
};

static volatile sig_atomic_t	 stop;
static int64_t			 row_ms[WATCH_MAX], sub_ms[WATCH_MAX];

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void
note(int64_t *at, int64_t floor, int64_t number)
{
	if (number > floor && number - floor <= WATCH_MAX &&
	    at[number - floor - 1] == 0)
		at[number - floor - 1] = (int64_t)now_wall_ms();
}

/* Send one masked text frame (a client must mask; any key will do). */
static int
ws_send(int fd, int opcode, const char *p, size_t n)
{
	uint8_t		f[256];
	const uint8_t	key[4] = { 0x5a, 0xc3, 0x17, 0x8e };
	size_t		h = 0;

	if (n > sizeof(f) - 8)
		return -1;
	f[h++] = 0x80 | (uint8_t)opcode;
	f[h++] = 0x80 | (uint8_t)n;
	memcpy(f + h, key, 4);
	h += 4;
	for (size_t i = 0; i < n; i++)
		f[h + i] = (uint8_t)p[i] ^ key[i % 4];
	return write(fd, f, h + n) == (ssize_t)(h + n) ? 0 : -1;
}

/* Connect to ws://127.0.0.1:port, upgrade, subscribe to new heads. */
static int
ws_open(const char *url)
{
	static const char req[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
	    "Sec-WebSocket-Key: Y2hhaW53YXRjaC13YXRjaA==\r\n"
	    "Sec-WebSocket-Version: 13\r\n\r\n";
	static const char call[] = "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"chain_subscribeNewHeads\",\"params\":[]}";
	struct sockaddr_in	 sin;
	const char		*port = strrchr(url, ':');
	char			 resp[1024];
	size_t			 got = 0;
	int			 fd, one = 1;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)(port != NULL ? atoi(port + 1) : 0));
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    write(fd, req, sizeof(req) - 1) != (ssize_t)(sizeof(req) - 1))
		goto fail;
	/* The 101 answer, read a byte at a time so no frame is eaten. */
	while (got < sizeof(resp) - 1 && read(fd, resp + got, 1) == 1) {
		got++;
		if (got >= 4 && memcmp(resp + got - 4, "\r\n\r\n", 4) == 0)
			break;
	}
	resp[got] = '\0';
	if (strncmp(resp, "HTTP/1.1 101", 12) != 0 ||
	    ws_send(fd, 1, call, sizeof(call) - 1) == -1)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/* The block number in a new-heads notification, or -1. */
static int64_t
head_number(const uint8_t *p, size_t n)
{
	static const char	 key[] = "\"number\":\"0x";
	char			 s[32];
	const uint8_t		*q;

	if (memmem(p, n, "\"params\"", 8) == NULL ||
	    (q = memmem(p, n, key, sizeof(key) - 1)) == NULL)
		return -1;
	q += sizeof(key) - 1;
	n -= (size_t)(q - p);
	if (n > sizeof(s) - 1)
		n = sizeof(s) - 1;
	memcpy(s, q, n);
	s[n] = '\0';
	return strtoll(s, NULL, 16);
}

/* Read what came; note each head's number; answer pings. */
static void
ws_read(struct sub *s, int64_t floor)
{
	ssize_t	r;
	size_t	off = 0;

	r = read(s->fd, s->buf + s->len, sizeof(s->buf) - s->len);
	if (r <= 0) {
		if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
			close(s->fd);
			s->fd = -1;
		}
		return;
	}
	s->len += (size_t)r;
	for (;;) {
		const uint8_t	*f = s->buf + off;
		size_t		 avail = s->len - off, h = 2;
		uint64_t	 n;

		if (avail < 2)
			break;
		n = f[1] & 0x7f;
		if (n == 126) {
			if (avail < 4)
				break;
			n = (uint64_t)f[2] << 8 | f[3];
			h = 4;
		} else if (n == 127) {
			if (avail < 10)
				break;
			n = 0;
			for (int i = 0; i < 8; i++)
				n = n << 8 | f[2 + i];
			h = 10;
		}
		if (h + n > sizeof(s->buf)) {	/* not a head: drop it all */
			s->len = off = 0;
			break;
		}
		if (avail < h + n)
			break;
		if ((f[0] & 0x0f) == 1)
			note(sub_ms, floor, head_number(f + h, (size_t)n));
		else if ((f[0] & 0x0f) == 9)
			(void)ws_send(s->fd, 10, (const char *)f + h,
			    (size_t)n);
		off += h + (size_t)n;
	}
	memmove(s->buf, s->buf + off, s->len - off);
	s->len -= off;
}

/* The rows above floor the reader sees now. */
static void
read_rows(sqlite3_stmt *version, sqlite3_stmt *rows, int64_t *last,
    int64_t floor)
{
	int64_t	v = -1;

	if (sqlite3_step(version) == SQLITE_ROW)
		v = sqlite3_column_int64(version, 0);
	sqlite3_reset(version);
	if (v == *last)
		return;
	*last = v;
	while (sqlite3_step(rows) == SQLITE_ROW)
		note(row_ms, floor, sqlite3_column_int64(rows, 0));
	sqlite3_reset(rows);
}

static void
watch(const char *db, const char *const *ws, size_t n, int64_t floor,
    const char *out)
{
	static struct sub	 subs[BENCH_WATCH_MAX_WS];
	struct pollfd		 pfd[BENCH_WATCH_MAX_WS];
	sqlite3			*h = NULL;
	sqlite3_stmt		*version = NULL, *rows = NULL;
	int64_t			 last = -2;
	uint64_t		 polled = 0;
	FILE			*fp;

	signal(SIGTERM, on_term);
	for (size_t i = 0; i < n; i++)
		subs[i].fd = ws_open(ws[i]);
	while (!stop) {
		for (size_t i = 0; i < n; i++) {
			pfd[i].fd = subs[i].fd;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		if (poll(pfd, n, 1) > 0)
			for (size_t i = 0; i < n; i++)
				if (pfd[i].revents != 0)
					ws_read(&subs[i], floor);
		if (now_mono_ms() == polled)
			continue;
		polled = now_mono_ms();
		/* The store appears once chainwatchd has made it. */
		if (h == NULL && sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY,
		    NULL) != SQLITE_OK) {
			sqlite3_close(h);
			h = NULL;
			continue;
		}
		if (rows == NULL && (sqlite3_prepare_v2(h,
		    "PRAGMA data_version", -1, &version, NULL) != SQLITE_OK ||
		    sqlite3_prepare_v2(h, "SELECT number FROM blocks WHERE "
		    "chain_id IN (SELECT id FROM chains) AND number > ?",
		    -1, &rows, NULL) != SQLITE_OK)) {
			sqlite3_finalize(version);
			version = NULL;
			continue;	/* not yet made */
		}
		sqlite3_bind_int64(rows, 1, floor);
		read_rows(version, rows, &last, floor);
	}
	sqlite3_finalize(version);
	sqlite3_finalize(rows);
	sqlite3_close(h);
	if ((fp = fopen(out, "w")) == NULL)
		_exit(1);
	for (int64_t i = 0; i < WATCH_MAX; i++) {
		if (row_ms[i] != 0)
			fprintf(fp, "row %lld %lld\n", (long long)(floor + i + 1),
			    (long long)row_ms[i]);
		if (sub_ms[i] != 0)
			fprintf(fp, "sub %lld %lld\n", (long long)(floor + i + 1),
			    (long long)sub_ms[i]);
	}
	_exit(fclose(fp) == 0 ? 0 : 1);
}

pid_t
bench_watch_start(const char *db, const char *const *ws, size_t n,
    int64_t floor, const char *out)
{
	pid_t	pid;

	if (n > BENCH_WATCH_MAX_WS)
		n = BENCH_WATCH_MAX_WS;
	if ((pid = fork()) == 0)
		watch(db, ws, n, floor, out);
	return pid;
}

size_t
bench_watch_read(const char *out, struct bench_seen *seen, size_t max)
{
	FILE		*fp;
	char		 kind[4];
	long long	 number, ms;
	size_t		 n = 0;

	if ((fp = fopen(out, "r")) == NULL)
		return 0;
	while (n < max &&
	    fscanf(fp, "%3s %lld %lld", kind, &number, &ms) == 3) {
		seen[n].sub = strcmp(kind, "sub") == 0;
		seen[n].number = number;
		seen[n].ms = ms;
		n++;
	}
	fclose(fp);
	return n;
}
