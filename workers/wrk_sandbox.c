/*
 * The worker's sandbox: what it may still do after its setup.  Each part
 * is small and applied in order: limits, prctl, Landlock, seccomp.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>

#include <linux/sockios.h>

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "log.h"
#include "sandbox.h"
#include "wrk_sandbox.h"

#ifdef __SANITIZE_ADDRESS__
#define WRK_SANITIZED 1
#elif defined(CW_SANITIZED)
#define WRK_SANITIZED 1
#endif

#ifndef WRK_SANITIZED
/*
 * What TLS (OpenSSL's CA files, read at the first handshake) and name
 * resolution (glibc's resolver, its NSS modules, iconv) read: read-only.
 */
static const char *const ro_paths[] = {
	"/etc/ssl", "/usr/lib/ssl", "/usr/share/ca-certificates",
	"/etc/ca-certificates", "/usr/local/share/ca-certificates",
	"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf",
	"/etc/host.conf", "/etc/gai.conf", "/etc/services",
	"/etc/ld.so.cache", "/run/systemd/resolve/resolv.conf",
	"/run/systemd/resolve/stub-resolv.conf",
};
static const char *const ro_globs[] = {
	"/usr/lib/*/gconv", "/lib/*/libnss_*.so*", "/usr/lib/*/libnss_*.so*",
	"/lib/*/libresolv.so*", "/usr/lib/*/libresolv.so*",
};
/* Paths the environment names for OpenSSL and curl. */
static const char *const ro_env[] = {
	"SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE",
};

/* The system calls of the loop: libev, curl, OpenSSL, wslay, msgpack. */
static const char *const allowed[] = {
	/* descriptors and memory */
	"read", "write", "readv", "writev", "pread64", "pwrite64", "close",
	"fstat", "newfstatat", "stat", "lstat", "statx", "lseek", "fcntl",
	"dup", "getdents64", "mmap", "munmap", "mprotect", "mremap", "brk",
	"madvise",
	/* signals and threads (curl's resolver is a thread) */
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack",
	"futex", "set_robust_list", "rseq", "set_tid_address", "exit",
	"exit_group", "gettid", "getpid", "getppid", "tgkill",
	"sched_yield", "sched_getaffinity", "restart_syscall",
	/* libev */
	"epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
	"epoll_pwait2", "poll", "ppoll", "select", "pselect6", "eventfd2",
	"signalfd4", "pipe2", "timerfd_create", "timerfd_settime",
	"timerfd_gettime",
	/* sockets: socket() itself is checked by family below */
	"socketpair", "connect", "bind", "getsockname", "getpeername",
	"setsockopt", "getsockopt", "sendto", "recvfrom", "sendmsg",
	"recvmsg", "sendmmsg", "recvmmsg", "shutdown",
	/* time, entropy, identity */
	"clock_gettime", "clock_getres", "gettimeofday", "time",
	"nanosleep", "clock_nanosleep", "getrandom", "uname", "sysinfo",
	"getuid", "geteuid", "getgid", "getegid", "prlimit64",
	/* whether a file exists (glibc, OpenSSL): Landlock governs opens */
	"access", "faccessat", "faccessat2",
};
#endif /* !WRK_SANITIZED */

static int
set_limit(int res, rlim_t n)
{
	struct rlimit	rl = { .rlim_cur = n, .rlim_max = n };

	return setrlimit(res, &rl);
}

/*
 * No core, a descriptor budget, and no new process.  RLIMIT_NPROC counts
 * threads too, per user: with curl's threaded resolver (AsynchDNS) it
 * would stop every lookup, so then the filter forbids forks instead.
 */
static int
limits_apply(unsigned conns, char *err, size_t errlen)
{
	curl_version_info_data	*cv = curl_version_info(CURLVERSION_NOW);
	rlim_t			 nofile = WRK_NOFILE_BASE + (rlim_t)conns;

	if (set_limit(RLIMIT_NOFILE, nofile) == -1) {
		snprintf(err, errlen, "setrlimit RLIMIT_NOFILE %llu: %s",
		    (unsigned long long)nofile, strerror(errno));
		return -1;
	}
	if (cv != NULL && (cv->features & CURL_VERSION_ASYNCHDNS))
		log_debug("sandbox: curl resolves in threads: RLIMIT_NPROC "
		    "left, the filter forbids forks");
	else if (set_limit(RLIMIT_NPROC, 0) == -1) {
		snprintf(err, errlen, "setrlimit RLIMIT_NPROC: %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}

#ifndef WRK_SANITIZED
static int
landlock_allow_all(int rfd, char *err, size_t errlen)
{
	const char	*p;
	glob_t		 g;

	for (size_t i = 0; i < sizeof(ro_paths) / sizeof(ro_paths[0]); i++)
		if (sandbox_landlock_allow(rfd, ro_paths[i]) == -1)
			goto fail;
	for (size_t i = 0; i < sizeof(ro_env) / sizeof(ro_env[0]); i++)
		if ((p = getenv(ro_env[i])) != NULL && *p == '/' &&
		    sandbox_landlock_allow(rfd, p) == -1)
			goto fail;
	for (size_t i = 0; i < sizeof(ro_globs) / sizeof(ro_globs[0]); i++) {
		if (glob(ro_globs[i], 0, NULL, &g) != 0)
			continue;
		for (size_t j = 0; j < g.gl_pathc; j++)
			if (sandbox_landlock_allow(rfd, g.gl_pathv[j]) == -1) {
				globfree(&g);
				goto fail;
			}
		globfree(&g);
	}
	return 0;
fail:
	snprintf(err, errlen, "landlock_add_rule: %s", strerror(errno));
	return -1;
}

/* Read-only access to ro_paths, nothing else; a kernel without it: said. */
static int
landlock_apply(char *err, size_t errlen)
{
	int	abi, rfd;

	if ((rfd = sandbox_landlock_open(&abi)) == -2) {
		log_warnx("sandbox: this kernel has no Landlock (%s): the "
		    "filesystem is limited by the user and the filter's "
		    "read-only opens only", strerror(errno));
		return 0;
	}
	if (rfd == -1) {
		snprintf(err, errlen, "landlock_create_ruleset: %s",
		    strerror(errno));
		return -1;
	}
	if (landlock_allow_all(rfd, err, errlen) == -1) {
		close(rfd);
		return -1;
	}
	if (sandbox_landlock_restrict(rfd) == -1) {
		snprintf(err, errlen, "landlock_restrict_self: %s",
		    strerror(errno));
		return -1;
	}
	log_debug("sandbox: Landlock ABI %d: filesystem read-only to TLS and "
	    "name resolution files", abi);
	return 0;
}

/*
 * Calls allowed with some arguments only: opens read-only, sockets of
 * the Internet and of the resolver's netlink, threads but not processes,
 * the ioctls of stdio and of curl, and SIOCOUTQ (what the supervisor has
 * yet to read: wrk_main.c holds bulk answers back by it).  A Unix socket is refused (EACCES):
 * nscd and a reconnecting syslog(3) fall back without it, and nothing
 * reaches the control socket.  clone3 says ENOSYS: glibc then uses clone.
 */
static int
allow_with_args(scmp_filter_ctx ctx)
{
	const unsigned long	writes = O_ACCMODE | O_CREAT | O_TRUNC |
	    O_APPEND | O_TMPFILE;
	int			rc = 0;

	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
	    SCMP_A2(SCMP_CMP_MASKED_EQ, writes, 0));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
	    SCMP_A0(SCMP_CMP_EQ, AF_INET));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
	    SCMP_A0(SCMP_CMP_EQ, AF_INET6));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
	    SCMP_A0(SCMP_CMP_EQ, AF_NETLINK));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket),
	    1, SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3),
	    0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_EQ, TCGETS));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_EQ, FIONREAD));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_EQ, FIONBIO));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_EQ, SIOCOUTQ));
	return rc == 0 ? 0 : -1;
}

#endif /* !WRK_SANITIZED */

int
wrk_sandbox_apply(const struct wrk_sandbox *sb, char *err, size_t errlen)
{
	if (sandbox_basics(err, errlen) == -1 || limits_apply(sb->conns, err, errlen) == -1)
		return -1;
#ifdef WRK_SANITIZED
	(void)sb;
	log_info("built with sanitizers: sandbox relaxed (no Landlock, no "
	    "seccomp filter; no new privileges, not dumpable, limits kept)");
	return 0;
#else
	if (sandbox_trap(sb->tag, sb->report_fd, sb->gen) == -1) {
		snprintf(err, errlen, "sigaction SIGSYS: %s", strerror(errno));
		return -1;
	}
	if (!log_tostderr())
		sandbox_trap_syslog("chainwatch-worker");
	if (landlock_apply(err, errlen) == -1 ||
	    sandbox_seccomp(allowed, sizeof(allowed) / sizeof(allowed[0]),
	    allow_with_args, err, errlen) == -1)
		return -1;
	return 0;
#endif
}
