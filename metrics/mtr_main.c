/*
 * chainwatch-metrics: chainwatchd starts it when metrics_listen is set.
 * In order it binds the address, opens the store read-only, drops
 * privileges if told to, then serves /metrics and /health from threads
 * while this one waits for SIGTERM (or for its parent's death).
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <netinet/in.h>
#include <sys/ioctl.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "listen_addr.h"
#include "log.h"
#include "mtr.h"
#include "sandbox.h"
#include "util.h"

#define MTR_BACKLOG	64

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: chainwatch-metrics [-f] [-L level] "
	    "[-o cors_origin] [-p portfile]\n"
	    "\t[-u user [-g group]] -l address:port -d database\n"
	    "\t-s control_socket\n");
	exit(CW_EXIT_USAGE);
}

/*
 * Bind and listen ourselves, before any thread exists and before the
 * privileges go: port 0 gets the kernel's choice, which shown names.
 */
static int
listen_on(const char *spec, int *ipv6, char *shown, size_t shownlen)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t		 len;
	char			 addr[64];
	unsigned		 port;
	int			 fd, one = 1;

	if (listen_addr_parse(spec, addr, sizeof(addr), &port) == -1)
		fatalx(CW_EXIT_USAGE, "-l %s: not ADDRESS:PORT (an IPv4 "
		    "address or [IPv6] address and a port)", spec);
	if (listen_addr_sockaddr(addr, port, &ss, &len) == -1)
		fatalx(CW_EXIT_USAGE, "-l %s: bad address", spec);
	*ipv6 = ss.ss_family == AF_INET6;
	if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) == -1)
		fatal(CW_EXIT_SYSTEM, "socket");
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (*ipv6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
		    sizeof(one));
	/* Taken, perhaps for a moment: chainwatchd retries with backoff. */
	if (bind(fd, (struct sockaddr *)&ss, len) == -1)
		fatal(CW_EXIT_SYSTEM, "cannot listen on %s", spec);
	if (listen(fd, MTR_BACKLOG) == -1)
		fatal(CW_EXIT_SYSTEM, "listen %s", spec);
	len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1)
		fatal(CW_EXIT_SYSTEM, "getsockname");
	port = ntohs(*ipv6 ? sin6->sin6_port : sin->sin_port);
	snprintf(shown, shownlen, *ipv6 ? "[%s]:%u" : "%s:%u", addr, port);
	return fd;
}

/* PORT and a newline, complete or not at all. */
static void
write_portfile(const char *path, const char *shown)
{
	char	 tmp[4096];
	FILE	*fp;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		fatalx(CW_EXIT_USAGE, "-p %s: path too long", path);
	if ((fp = fopen(tmp, "w")) == NULL)
		fatal(CW_EXIT_SYSTEM, "%s", tmp);
	fprintf(fp, "%s\n", strrchr(shown, ':') + 1);
	if (fclose(fp) == EOF || rename(tmp, path) == -1)
		fatal(CW_EXIT_SYSTEM, "%s", path);
}

/*
 * Run as user from now on, with group as a supplementary group: the
 * group the control socket is given, so that it can still be reached.
 * The store and the listening socket are open already.
 */
static void
drop_privileges(const char *user, const char *group)
{
	struct passwd	*pw;
	struct group	*gr;
	gid_t		 groups[2];
	int		 n = 1;

	if (geteuid() != 0) {
		log_debug("not root: staying uid %d", (int)geteuid());
		return;
	}
	if ((pw = getpwnam(user)) == NULL)
		fatalx(CW_EXIT_SETUP, "user %s does not exist", user);
	groups[0] = pw->pw_gid;
	if (group != NULL) {
		if ((gr = getgrnam(group)) == NULL)
			fatalx(CW_EXIT_SETUP, "group %s does not exist", group);
		if (gr->gr_gid != pw->pw_gid)
			groups[n++] = gr->gr_gid;
	}
	if (setgroups((size_t)n, groups) == -1 ||
	    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) == -1 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) == -1)
		fatal(CW_EXIT_SETUP, "cannot drop privileges to %s", user);
	if (setuid(0) != -1 || geteuid() != pw->pw_uid)
		fatalx(CW_EXIT_SETUP, "privileges not dropped to %s", user);
	log_debug("running as %s%s%s", user, group != NULL ? " with group " :
	    "", group != NULL ? group : "");
}

#ifndef CW_SANITIZED
/*
 * What its threads call: libmicrohttpd (a polling thread, a thread per
 * connection), SQLite reading the store, the control socket's client,
 * jansson, syslog.
 */
static const char *const allowed[] = {
	/* descriptors and memory */
	"read", "write", "readv", "writev", "pread64", "close", "fstat",
	"newfstatat", "stat", "lstat", "statx", "lseek", "fcntl", "dup",
	"mmap", "munmap", "mprotect", "mremap", "brk", "madvise",
	"readlink", "readlinkat", "getcwd", "access", "faccessat",
	"faccessat2",
	/* signals and threads */
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigtimedwait",
	"sigaltstack", "futex", "set_robust_list", "rseq", "exit",
	"exit_group", "gettid", "getpid", "getppid", "tgkill", "sched_yield",
	"sched_getaffinity", "restart_syscall",
	/* libmicrohttpd */
	"poll", "ppoll", "select", "pselect6", "epoll_create1", "epoll_ctl",
	"epoll_wait", "epoll_pwait", "eventfd2", "pipe2", "accept",
	"accept4", "listen",
	/* sockets: socket() itself is checked by family below */
	"connect", "getsockname", "getpeername", "setsockopt", "getsockopt",
	"sendto", "recvfrom", "sendmsg", "recvmsg", "shutdown",
	/* time, entropy, identity */
	"clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep",
	"clock_nanosleep", "getrandom", "uname", "sysinfo", "getuid",
	"geteuid", "getgid", "getegid",
};

/*
 * Opens read-only; an open for writing (SQLite tries the -shm so first)
 * is refused with EACCES, as Landlock would.  Unix sockets (the control
 * socket, syslog) and the Internet ones it serves; threads, not processes.
 */
static int
allow_with_args(scmp_filter_ctx ctx)
{
	const unsigned long	writes = O_ACCMODE | O_CREAT | O_TRUNC |
	    O_APPEND | O_TMPFILE;
	int			rc = 0;

	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
	    SCMP_A2(SCMP_CMP_MASKED_EQ, writes, 0));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat),
	    1, SCMP_A2(SCMP_CMP_MASKED_EQ, O_ACCMODE, O_RDWR));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat),
	    1, SCMP_A2(SCMP_CMP_MASKED_EQ, O_ACCMODE, O_WRONLY));
	for (int af = 0; af < 3; af++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
		    SCMP_A0(SCMP_CMP_EQ, af == 0 ? AF_UNIX : af == 1 ?
		    AF_INET : AF_INET6));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3),
	    0);
	/* libmicrohttpd names its threads. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1,
	    SCMP_A0(SCMP_CMP_EQ, PR_SET_NAME));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_EQ, TCGETS));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_EQ, FIONREAD));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_EQ, FIONBIO));
	return rc == 0 ? 0 : -1;
}
#endif

/*
 * After the drop, before its threads start: no new privileges, not
 * dumpable, no core; with Landlock the filesystem is the store's folder,
 * read-only (the control socket is reached by connect(2), which Landlock
 * does not govern); a seccomp allowlist whose trap ends the process with
 * status 159 after naming the call on stderr.  Under AddressSanitizer,
 * Landlock and the filter are left out: its reports read files.
 */
static void
sandbox(const char *database)
{
	char	err[160], dir[PATH_MAX];
	int	abi, rfd;

	if (sandbox_basics(err, sizeof(err)) == -1)
		fatalx(CW_EXIT_SETUP, "sandbox: %s", err);
#ifdef CW_SANITIZED
	log_info("built with sanitizers: sandbox relaxed (no Landlock, no "
	    "seccomp filter)");
	(void)database; (void)dir; (void)abi; (void)rfd;
#else
	if (sandbox_trap("metrics", -1, 0) == -1)
		fatal(CW_EXIT_SETUP, "sandbox: sigaction SIGSYS");
	if (!log_tostderr())
		sandbox_trap_syslog("chainwatch-metrics");
	if ((rfd = sandbox_landlock_open(&abi)) == -2)
		log_warnx("sandbox: this kernel has no Landlock (%s): the "
		    "filesystem is limited by the user and the filter's "
		    "read-only opens only", strerror(errno));
	else {
		snprintf(dir, sizeof(dir), "%s", database);
		if (rfd == -1 ||
		    sandbox_landlock_allow(rfd, dirname(dir)) == -1 ||
		    sandbox_landlock_restrict(rfd) == -1)
			fatal(CW_EXIT_SETUP, "sandbox: Landlock");
		log_debug("sandbox: Landlock ABI %d: only %s, read-only", abi,
		    dir);
	}
	if (sandbox_seccomp(allowed, sizeof(allowed) / sizeof(allowed[0]),
	    allow_with_args, err, sizeof(err)) == -1)
		fatalx(CW_EXIT_SETUP, "sandbox: %s", err);
#endif
}

int
main(int argc, char *argv[])
{
	struct mtr_source	 src = { NULL, NULL };
	const char		*listen_spec = NULL, *portfile = NULL;
	const char		*user = NULL, *group = NULL, *cors = NULL;
	enum log_level		 level = LOG_LEVEL_INFO;
	char			 shown[96];
	sigset_t		 set;
	pid_t			 parent = getppid();
	int			 ch, fd, ipv6, sig, foreground = 0;

	while ((ch = getopt(argc, argv, "d:fg:hL:l:o:p:s:u:")) != -1) {
		switch (ch) {
		case 'd':
			src.database = optarg;
			break;
		case 'f':
			foreground = 1;
			break;
		case 'g':
			group = optarg;
			break;
		case 'L':
			if (log_level_parse(optarg, &level) == -1)
				usage();
			break;
		case 'l':
			listen_spec = optarg;
			break;
		case 'o':
			/* A header value: one line of visible characters. */
			if (*optarg == '\0' || strpbrk(optarg, "\r\n") != NULL)
				fatalx(CW_EXIT_USAGE, "-o: not an origin");
			cors = optarg;
			break;
		case 'p':
			portfile = optarg;
			break;
		case 's':
			src.control_socket = optarg;
			break;
		case 'u':
			user = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || listen_spec == NULL || src.database == NULL ||
	    src.control_socket == NULL || (group != NULL && user == NULL))
		usage();
	log_init(foreground, level, "chainwatch-metrics");
	log_procinit("metrics");
	/* A thread a connection: one arena, or their free tops stay. */
	mem_setup(1);

	/* Threads inherit this mask: signals reach sigwait() below only. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
		fatal(CW_EXIT_SYSTEM, "sigprocmask");
	signal(SIGPIPE, SIG_IGN);

	fd = listen_on(listen_spec, &ipv6, shown, sizeof(shown));
	if (portfile != NULL)
		write_portfile(portfile, shown);
	mtr_gather_init(&src);
	/* Open before the drop; a failure is retried at every scrape. */
	(void)mtr_gather_open_store();
	if (user != NULL)
		drop_privileges(user, group);
	if (geteuid() == 0 || getuid() == 0)
		fatalx(CW_EXIT_SETUP, "refusing to run as root: give -u user "
		    "(chainwatchd passes its user)");
	/* After the drop, which clears it; then check we did not miss it. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1)
		log_warn("prctl PR_SET_PDEATHSIG");
	if (getppid() != parent)
		fatalx(CW_EXIT_OK, "parent already gone");
	sandbox(src.database);

	if (mtr_http_start(fd, ipv6, cors) == -1)
		fatalx(CW_EXIT_SYSTEM, "libmicrohttpd did not start on %s",
		    shown);
	log_info("listening on %s", shown);

	for (;;) {
		if (sigwait(&set, &sig) != 0)
			fatal(CW_EXIT_SYSTEM, "sigwait");
		if (sig != SIGHUP)
			break;
		log_debug("SIGHUP: nothing to reload (chainwatchd restarts "
		    "this process when its settings change)");
	}
	log_info("signal %d: stopping", sig);
	mtr_http_stop();	/* which closes fd */
	mtr_gather_close();
	return CW_EXIT_OK;
}
