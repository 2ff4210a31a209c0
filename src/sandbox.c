/*
 * The parts of a sandbox every sandboxed process shares: no new
 * privileges, not dumpable, no core; Landlock through its system calls;
 * the report, a MSG_SANDBOX packet from the process its filter stopped,
 * and the log line naming the system call (libseccomp knows the names,
 * for the architecture this runs on).
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include <linux/landlock.h>

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <syslog.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "sandbox.h"

#define NAMES_MAX	1024	/* syscall numbers the trap can name */

size_t
sandbox_report_encode(void *out, uint32_t gen, int nr)
{
	struct msgbuf	mb;
	size_t		len;

	msg_begin(&mb, MSG_SANDBOX, gen, 1);
	/* Always a uint16 (0xcd hi lo): over 255 even when nr is small. */
	msg_put_uint(&mb, "syscall", 0xffff);
	len = mb.sb.size;
	if (len > SANDBOX_REPORT_MAX)
		len = 0;
	else
		memcpy(out, mb.sb.data, len);
	msgpack_sbuffer_destroy(&mb.sb);
	if (len != 0)
		sandbox_report_patch(out, len, nr);
	return len;
}

/* The last two bytes are the number, big-endian. */
void
sandbox_report_patch(void *pkt, size_t len, int nr)
{
	unsigned char	*p = pkt;

	if (len < 3)
		return;
	p[len - 2] = (unsigned char)((unsigned)nr >> 8);
	p[len - 1] = (unsigned char)nr;
}

int
sandbox_report_parse(const void *buf, size_t len)
{
	struct msg	m;
	uint64_t	nr;
	char		err[64];
	int		rc = -1;

	/* Cheap for the others: a longer packet is not a report. */
	if (len > SANDBOX_REPORT_MAX)
		return -1;
	if (msg_parse(buf, len, &m, err, sizeof(err)) == -1)
		return -1;
	if (m.type == MSG_SANDBOX && msg_get_uint(&m, "syscall", &nr) == 0 &&
	    nr < 0xffff)
		rc = (int)nr;
	msg_free(&m);
	return rc;
}

void
sandbox_describe(int nr, char *out, size_t outlen)
{
	char	*name;

	if (nr < 0) {
		snprintf(out, outlen, "worker killed by its sandbox: "
		    "syscall unknown");
		return;
	}
	name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
	snprintf(out, outlen, "worker killed by its sandbox: syscall %d (%s)",
	    nr, name != NULL ? name : "?");
	free(name);
}

int
sandbox_basics(char *err, size_t errlen)
{
	struct rlimit	rl = { 0, 0 };

	if (setrlimit(RLIMIT_CORE, &rl) == -1) {
		snprintf(err, errlen, "setrlimit RLIMIT_CORE: %s",
		    strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		snprintf(err, errlen, "prctl PR_SET_NO_NEW_PRIVS: %s",
		    strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1) {
		snprintf(err, errlen, "prctl PR_SET_DUMPABLE: %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* The filesystem rights of this kernel's Landlock ABI. */
static uint64_t
landlock_rights(int abi)
{
	uint64_t	r = LANDLOCK_ACCESS_FS_EXECUTE |
	    LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
	    LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR |
	    LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
	    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
	    LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
	    LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;

#ifdef LANDLOCK_ACCESS_FS_REFER
	if (abi >= 2)
		r |= LANDLOCK_ACCESS_FS_REFER;
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
	if (abi >= 3)
		r |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
	return r;
}

int
sandbox_landlock_allow(int rfd, const char *path)
{
	struct landlock_path_beneath_attr	pb;
	struct stat				st;
	int					fd, rc;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1)
		return 0;
	if (fstat(fd, &st) == -1) {
		close(fd);
		return 0;
	}
	pb.parent_fd = fd;
	pb.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE;
	if (S_ISDIR(st.st_mode))
		pb.allowed_access |= LANDLOCK_ACCESS_FS_READ_DIR;
	rc = (int)syscall(SYS_landlock_add_rule, rfd,
	    LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	close(fd);
	return rc;
}


int
sandbox_landlock_open(int *abi)
{
	struct landlock_ruleset_attr	ra;
	int				rfd;

	*abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (*abi < 1)
		return -2;
	memset(&ra, 0, sizeof(ra));
	ra.handled_access_fs = landlock_rights(*abi);
	rfd = (int)syscall(SYS_landlock_create_ruleset, &ra, sizeof(ra), 0);
	return rfd < 0 ? -1 : rfd;
}

int
sandbox_landlock_restrict(int rfd)
{
	int	rc, saved;

	rc = (int)syscall(SYS_landlock_restrict_self, rfd, 0);
	saved = errno;
	close(rfd);
	errno = saved;
	return rc == 0 ? 0 : -1;
}

static char	 trap_tag[64];
static char	*trap_names[NAMES_MAX];
static char	 trap_pkt[SANDBOX_REPORT_MAX];
static size_t	 trap_len;
static int	 trap_fd = -1;
static int	 trap_syslog_fd = -1;
static char	 trap_syslog_head[96];

static size_t
put(char *buf, size_t at, size_t size, const char *s)
{
	while (*s != '\0' && at + 1 < size)
		buf[at++] = *s++;
	return at;
}

/* Only async-signal-safe calls from here: write, sendto, _exit. */
static void
trap_handler(int sig, siginfo_t *si, void *uc)
{
	char	line[192], num[16];
	int	nr = si->si_syscall, i = (int)sizeof(num) - 1;
	size_t	at = 0, head;
	unsigned u = nr < 0 ? 0 : (unsigned)nr;

	num[i] = '\0';
	do
		num[--i] = (char)('0' + u % 10);
	while ((u /= 10) != 0 && i > 0);
	at = put(line, at, sizeof(line), trap_syslog_head);
	head = at;
	at = put(line, at, sizeof(line), trap_tag);
	at = put(line, at, sizeof(line), "killed by its sandbox: syscall ");
	at = put(line, at, sizeof(line), num + i);
	at = put(line, at, sizeof(line), " (");
	at = put(line, at, sizeof(line), nr >= 0 && nr < NAMES_MAX &&
	    trap_names[nr] != NULL ? trap_names[nr] : "?");
	at = put(line, at, sizeof(line), ")\n");
	(void)write(STDERR_FILENO, line + head, at - head);
	if (trap_syslog_fd != -1)
		(void)send(trap_syslog_fd, line, at - 1,
		    MSG_DONTWAIT | MSG_NOSIGNAL);
	if (trap_fd != -1 && trap_len != 0) {
		sandbox_report_patch(trap_pkt, trap_len, nr);
		(void)send(trap_fd, trap_pkt, trap_len,
		    MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	_exit(CW_EXIT_SANDBOX);
}

/*
 * For a process that logs to syslog: the trap's line goes to /dev/log
 * too, through a socket connected now.  Best effort: without it, stderr.
 */
void
sandbox_trap_syslog(const char *ident)
{
	struct sockaddr_un	sun;
	int			fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "/dev/log");
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		close(fd);
		return;
	}
	/* LOG_DAEMON | LOG_WARNING, as syslog(3) would write it. */
	snprintf(trap_syslog_head, sizeof(trap_syslog_head), "<%d>%s[%d]: ",
	    LOG_DAEMON | LOG_WARNING, ident, (int)getpid());
	trap_syslog_fd = fd;
}

/* The trap names the call without malloc: the names are looked up now. */
int
sandbox_trap(const char *tag, int report_fd, uint32_t gen)
{
	struct sigaction	sa;

	snprintf(trap_tag, sizeof(trap_tag), "%s%s", tag != NULL ? tag : "",
	    tag != NULL ? ": " : "");
	for (int nr = 0; nr < NAMES_MAX; nr++)
		if (trap_names[nr] == NULL)
			trap_names[nr] = seccomp_syscall_resolve_num_arch(
			    SCMP_ARCH_NATIVE, nr);
	trap_fd = report_fd;
	trap_len = trap_fd == -1 ? 0 : sandbox_report_encode(trap_pkt, gen, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = trap_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) == -1)
		return -1;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGSYS);
	return sigprocmask(SIG_UNBLOCK, &sa.sa_mask, NULL);
}

static int
allow_by_name(scmp_filter_ctx ctx, const char *name)
{
	int	nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR)
		return 0;	/* not on this architecture */
	return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
}

int
sandbox_seccomp(const char *const *allowed, size_t n,
    int (*with_args)(scmp_filter_ctx), char *err, size_t errlen)
{
	scmp_filter_ctx	ctx;
	int		rc;

	if ((ctx = seccomp_init(SCMP_ACT_TRAP)) == NULL) {
		snprintf(err, errlen, "seccomp_init failed");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if ((rc = allow_by_name(ctx, allowed[i])) != 0) {
			snprintf(err, errlen, "seccomp: allowing %s: %s",
			    allowed[i], strerror(-rc));
			goto fail;
		}
	if (with_args != NULL && with_args(ctx) == -1) {
		snprintf(err, errlen, "seccomp: rules with arguments refused");
		goto fail;
	}
	if ((rc = seccomp_load(ctx)) != 0) {
		snprintf(err, errlen, "seccomp_load: %s", strerror(-rc));
		goto fail;
	}
	seccomp_release(ctx);
	return 0;
fail:
	seccomp_release(ctx);
	return -1;
}
