/*
 * bench/ingest: how many head messages per second chainwatchd stores.
 *
 * Run without arguments it writes a configuration in a temporary
 * directory whose endpoints' "worker" is this same program, starts
 * chainwatchd on it, and waits until every head is stored.  Run by
 * chainwatchd as a worker (fd 3 is its socket), it says hello, reports a
 * genesis, and sends N synthetic heads of one chain as fast as the socket
 * takes them, with parent links, miners and (one in 20) short reorgs,
 * as a substrate chain (a quantus one would need real seals and header
 * bytes, which the supervisor checks).
 * The figure is heads stored per second, as a ratio of the messages per
 * second one worker can send (measured in the same run, with nothing
 * stored), which is the ceiling of the pipe.
 *
 *   bench/ingest [-d chainwatchd] [-n heads] [-e endpoints]
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchlib.h"
#include "log.h"
#include "proto.h"
#include "util.h"

static char	buf[MSG_MAX];

static void
hash_of(uint8_t h[32], int branch, uint64_t n)
{
	memset(h, 0, 32);
	h[0] = (uint8_t)branch;
	memcpy(h + 8, &n, sizeof(n));
}

static void
send_blocking(int fd, struct msgbuf *mb)
{
	struct pollfd	pfd = { .fd = fd, .events = POLLOUT };

	while (send(fd, mb->sb.data, mb->sb.size, MSG_NOSIGNAL) == -1) {
		if (errno != EAGAIN && errno != ENOBUFS && errno != EINTR)
			exit(0);	/* the supervisor went away */
		(void)poll(&pfd, 1, 100);
	}
	msg_done(mb);
}

/* The worker side: everything at once, then heartbeats until stopped. */
static int
worker(uint64_t heads, int quiet)
{
	struct proto_config	pc;
	struct proto_info	in;
	struct proto_head	hd;
	struct msgbuf		mb;
	struct msg		m;
	char			err[128];
	uint32_t		gen;
	long			n;

	if ((n = recv(MSG_FD, buf, MSG_MAX, 0)) <= 0 ||
	    msg_parse(buf, (size_t)n, &m, err, sizeof(err)) == -1 ||
	    proto_unpack_config(&m, &pc, err, sizeof(err)) == -1)
		return CW_EXIT_SETUP;
	gen = m.gen;
	msg_free(&m);
	msg_begin(&mb, MSG_HELLO, gen, 1);
	msg_put_uint(&mb, "pid", (uint64_t)getpid());
	send_blocking(MSG_FD, &mb);
	memset(&in, 0, sizeof(in));
	hash_of(in.genesis, 1, 0);
	snprintf(in.chain, sizeof(in.chain), "bench");
	snprintf(in.spec_name, sizeof(in.spec_name), "bench");
	in.spec_version = 1;
	in.fits = 1;		/* its headers are what the chain says */
	proto_pack_info(&mb, gen, &in);
	send_blocking(MSG_FD, &mb);
	for (uint64_t i = 0; i <= heads; i++) {
		/* Every 20 blocks, block n is first seen on branch 2. */
		int branch = i % 20 == 10 ? 2 : 1;

		memset(&hd, 0, sizeof(hd));
		hd.kind = HEAD_NEW;
		hd.seen_ms = now_wall_ms();
		hash_of(hd.h.hash, branch, i);
		if (i > 0)
			hash_of(hd.h.parent, 1, i - 1);
		hd.h.number = i;
		hd.h.has_miner = 1;
		memset(hd.h.miner, (int)(i % 7) + 1, 32);
		proto_pack_head(&mb, gen, &hd);
		send_blocking(MSG_FD, &mb);
		if (branch == 2) {
			/* ... and then replaced by branch 1's: a reorg. */
			hash_of(hd.h.hash, 1, i);
			hd.h.number = i;
			proto_pack_head(&mb, gen, &hd);
			send_blocking(MSG_FD, &mb);
			hash_of(hd.h.hash, 1, ++i);
			hash_of(hd.h.parent, 1, i - 1);
			hd.h.number = i;
			proto_pack_head(&mb, gen, &hd);
			send_blocking(MSG_FD, &mb);
		}
	}
	for (;;) {
		msg_begin(&mb, MSG_HEARTBEAT, gen, 1);
		msg_put_uint(&mb, "rss_kb", 0);
		send_blocking(MSG_FD, &mb);
		if (recv(MSG_FD, buf, MSG_MAX, MSG_DONTWAIT) == 0)
			return 0;
		usleep(200000);
	}
	(void)quiet;
}

/* The pipe's ceiling: heads one process sends another, stored nowhere. */
static double
pipe_rate(uint64_t heads)
{
	struct proto_head	hd;
	struct msgbuf		mb;
	int			sv[2];
	pid_t			pid;
	uint64_t		t0, got = 0;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == -1)
		fatal(CW_EXIT_SYSTEM, "socketpair");
	(void)msg_sockbuf(sv[0]);
	t0 = now_mono_ms();
	if ((pid = fork()) == 0) {
		close(sv[0]);
		memset(&hd, 0, sizeof(hd));
		for (uint64_t i = 0; i < heads; i++) {
			hash_of(hd.h.hash, 1, i);
			hd.h.number = i;
			proto_pack_head(&mb, 1, &hd);
			send_blocking(sv[1], &mb);
		}
		_exit(0);
	}
	close(sv[1]);
	while (got < heads) {
		struct msg	m;
		struct proto_head h;
		char		err[128];
		long		n = recv(sv[0], buf, MSG_MAX, 0);

		if (n <= 0)
			break;
		if (msg_parse(buf, (size_t)n, &m, err, sizeof(err)) == 0) {
			if (proto_unpack_head(&m, &h, err, sizeof(err)) == 0)
				got++;
			msg_free(&m);
		}
	}
	waitpid(pid, NULL, 0);
	close(sv[0]);
	return (double)got * 1000.0 / (double)(now_mono_ms() - t0 + 1);
}

int
main(int argc, char *argv[])
{
	const char	*daemon_path = "supervisor/chainwatchd";
	char		 dir[] = "/tmp/cw-ingest.XXXXXX", conf[PATH_MAX];
	char		 self[PATH_MAX], db[PATH_MAX], cmd[PATH_MAX + 16];
	uint64_t	 heads = 50000, t0, t1;
	int		 ch, endpoints = 1;
	int64_t		 stored = 0;
	FILE		*fp;
	pid_t		 pid;
	struct stat	 sb;

	/* Started by chainwatchd: be the worker. */
	if (fstat(MSG_FD, &sb) == 0 && S_ISSOCK(sb.st_mode)) {
		const char *n = getenv("CW_INGEST_HEADS");

		return worker(n != NULL ? strtoull(n, NULL, 10) : 50000, 1);
	}
	while ((ch = getopt(argc, argv, "d:e:n:")) != -1) {
		switch (ch) {
		case 'd':
			daemon_path = optarg;
			break;
		case 'e':
			endpoints = atoi(optarg);
			break;
		case 'n':
			heads = strtoull(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: bench/ingest [-d chainwatchd] "
			    "[-n heads] [-e endpoints]\n");
			return CW_EXIT_USAGE;
		}
	}
	log_init(1, LOG_LEVEL_WARN, "bench/ingest");
	if (realpath(argv[0], self) == NULL || mkdtemp(dir) == NULL)
		fatal(CW_EXIT_SYSTEM, "%s", argv[0]);
	snprintf(conf, sizeof(conf), "%s/chainwatch.conf", dir);
	snprintf(db, sizeof(db), "%s/chainwatch.db", dir);
	if ((fp = fopen(conf, "w")) == NULL)
		fatal(CW_EXIT_SYSTEM, "%s", conf);
	fprintf(fp, "[daemon]\ndatabase = %s\npidfile = %s/pid\nuser = %s\n"
	    "worker = %s\nlog_level = warn\ncontrol_socket = %s/ctl.sock\n"
	    "metrics_listen = none\n[chain bench]\nformat = substrate\n"
	    "block_time = 1s\n",
	    db, dir, getuid() == 0 ? "nobody" : "", self, dir);
	for (int i = 0; i < endpoints; i++)
		fprintf(fp, "endpoint = e%d http://127.0.0.1:%d "
		    "ws://127.0.0.1:%d\n", i, 9 + i, 9 + i);
	fclose(fp);
	if (getuid() == 0)
		(void)chmod(dir, 0755);
	snprintf(cmd, sizeof(cmd), "%llu", (unsigned long long)heads);
	setenv("CW_INGEST_HEADS", cmd, 1);

	printf("bench/ingest: %llu heads (one in 20 reorged), %d endpoint%s "
	    "sending the same heads\n", (unsigned long long)heads, endpoints,
	    endpoints == 1 ? "" : "s");
	fflush(stdout);
	{
		double	 pipe = pipe_rate(heads);
		double	 rate;

		t0 = now_mono_ms();
		if ((pid = fork()) == 0) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			execl(daemon_path, "chainwatchd", "-d", "-f", conf,
			    (char *)NULL);
			_exit(111);
		}
		while ((stored = bench_count_blocks(db, "canonical = 1")) <
		    (int64_t)heads && now_mono_ms() - t0 < 300000)
			usleep(50000);
		t1 = now_mono_ms();
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		rate = (double)stored * 1000.0 / (double)(t1 - t0);
		printf("  pipe ceiling (one worker, nothing stored): %10.0f "
		    "heads/s\n", pipe);
		printf("  chainwatchd stored %lld canonical blocks in %.2f s: "
		    "%10.0f heads/s, %.2f of the ceiling\n", (long long)stored,
		    (double)(t1 - t0) / 1000.0, rate, rate / pipe);
		printf("ingest_heads_s=%.0f pipe_heads_s=%.0f ratio=%.2f "
		    "endpoints=%d\n", rate, pipe, rate / pipe, endpoints);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		log_warnx("could not remove %s", dir);
	return stored >= (int64_t)heads ? 0 : 1;
}
