/*
 * sandbox_probe: the worker's sandbox (workers/wrk_sandbox.c) applied for
 * real, in a child per action, which then tries the action.  One line per
 * action: "ACTION: allowed", "ACTION: denied (REASON)", or the
 * supervisor's line when the filter stopped it, built the same way from
 * the MSG_SANDBOX packet the child's trap sent.
 *
 * Run by chainwatchd as its worker (descriptor 3 its socket), it takes
 * the configuration, applies the sandbox and calls execve: chainwatchd
 * must then log which call its sandbox stopped.
 *
 * Usage: sandbox_probe DIR CONTROL_SOCKET
 *   read	open /etc/hosts read-only (TLS and resolution need it)
 *   open	open /etc/passwd read-only
 *   create	create DIR/created
 *   exec	execve /bin/true
 *   fork	fork
 *   connect	connect to CONTROL_SOCKET
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "msg.h"
#include "sandbox.h"
#include "wrk_sandbox.h"

#define DENIED	2

static const char	*dir, *ctl;

static int
denied(const char *what)
{
	printf("%s: denied (%s)\n", what, strerror(errno));
	return DENIED;
}

static int
try_action(const char *what)
{
	char			path[512];
	struct sockaddr_un	sun;
	pid_t			pid;
	int			fd;

	if (strcmp(what, "read") == 0 || strcmp(what, "open") == 0) {
		fd = open(strcmp(what, "read") == 0 ? "/etc/hosts" :
		    "/etc/passwd", O_RDONLY);
		return fd == -1 ? denied(what) : 0;
	}
	if (strcmp(what, "create") == 0) {
		snprintf(path, sizeof(path), "%s/created", dir);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		return fd == -1 ? denied(what) : 0;
	}
	if (strcmp(what, "exec") == 0) {
		execl("/bin/true", "true", (char *)NULL);
		return denied(what);
	}
	if (strcmp(what, "fork") == 0) {
		if ((pid = fork()) == 0)
			_exit(0);
		if (pid == -1)
			return denied(what);
		waitpid(pid, NULL, 0);
		return 0;
	}
	if (strcmp(what, "connect") == 0) {
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", ctl);
		if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
		    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
			return denied(what);
		return 0;
	}
	fprintf(stderr, "sandbox_probe: unknown action %s\n", what);
	return 100;
}

/* One action in a sandboxed child; its outcome on one line. */
static int
probe(const char *what)
{
	struct wrk_sandbox	sb = { .tag = what, .gen = 1 };
	char			err[160], line[128], pkt[SANDBOX_REPORT_MAX];
	int			sv[2], status, nr = -1;
	long			n;
	pid_t			pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == -1) {
		perror("socketpair");
		return -1;
	}
	fflush(stdout);
	if ((pid = fork()) == 0) {
		close(sv[0]);
		sb.report_fd = sv[1];
		if (wrk_sandbox_apply(&sb, err, sizeof(err)) == -1) {
			printf("%s: sandbox not applied: %s\n", what, err);
			_exit(100);
		}
		status = try_action(what);
		if (status == 0)
			printf("%s: allowed\n", what);
		fflush(stdout);
		_exit(status);
	}
	close(sv[1]);
	if (pid == -1 || waitpid(pid, &status, 0) == -1) {
		perror("fork/waitpid");
		return -1;
	}
	if ((n = recv(sv[0], pkt, sizeof(pkt), MSG_DONTWAIT)) > 0)
		nr = sandbox_report_parse(pkt, (size_t)n);
	close(sv[0]);
	if (WIFEXITED(status) && WEXITSTATUS(status) == CW_EXIT_SANDBOX) {
		sandbox_describe(nr, line, sizeof(line));
		printf("%s: %s\n", what, line);
	} else if (WIFSIGNALED(status))
		printf("%s: killed by signal %d\n", what, WTERMSIG(status));
	else if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 &&
	    WEXITSTATUS(status) != DENIED))
		printf("%s: exited with status %d\n", what,
		    WEXITSTATUS(status));
	fflush(stdout);
	return 0;
}

/* As chainwatchd's worker: the sandbox, then a call outside it. */
static int
as_worker(void)
{
	static char		 buf[MSG_MAX];
	struct wrk_sandbox	 sb = { .tag = "sandbox_probe", .report_fd = MSG_FD };
	struct msg		 m;
	char			 err[160];
	long			 n;

	if ((n = msg_recv(MSG_FD, buf)) <= 0 || n > MSG_MAX ||
	    msg_parse(buf, (size_t)n, &m, err, sizeof(err)) == -1) {
		fprintf(stderr, "sandbox_probe: no configuration\n");
		return 100;
	}
	sb.gen = m.gen;
	msg_free(&m);
	if (wrk_sandbox_apply(&sb, err, sizeof(err)) == -1) {
		fprintf(stderr, "sandbox_probe: %s\n", err);
		return 100;
	}
	execl("/bin/true", "true", (char *)NULL);
	return 100;
}

int
main(int argc, char *argv[])
{
	int		type;
	socklen_t	len = sizeof(type);

	if (getsockopt(MSG_FD, SOL_SOCKET, SO_TYPE, &type, &len) == 0 &&
	    type == SOCK_SEQPACKET)
		return as_worker();
	static const char *const actions[] = {
		"read", "open", "create", "exec", "fork", "connect"
	};

	if (argc != 3) {
		fprintf(stderr, "usage: sandbox_probe DIR CONTROL_SOCKET\n");
		return 100;
	}
	dir = argv[1];
	ctl = argv[2];
	log_init(1, LOG_LEVEL_INFO, "sandbox_probe");
	for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (probe(actions[i]) == -1)
			return 1;
	return 0;
}
