/*
 * Talking to the running daemon: connect to its control socket, send one
 * line, read the answer until the daemon closes.  Every step, connect
 * included, has the same deadline, so a stopped daemon cannot hang the CLI
 * or a scrape.  And whether chainwatchd runs, from its "status" answer,
 * or its pidfile when the socket cannot tell.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "util.h"
#include "view.h"
#include "view_ctl.h"

/* Wait for fd to be ready for events, until the deadline; 0 if it is. */
static int
ctl_wait(int fd, short events, uint64_t deadline)
{
	struct pollfd	pfd = { .fd = fd, .events = events };
	uint64_t	now;
	int		r;

	for (;;) {
		now = now_mono_ms();
		if (now >= deadline)
			return -1;
		r = poll(&pfd, 1, (int)(deadline - now));
		if (r > 0)
			return 0;
		if (r == -1 && errno != EINTR)
			return -1;
	}
}

int
view_ctl_request(const char *path, const char *cmd, json_t **answer,
    int *down, char *err, size_t errlen)
{
	struct sockaddr_un	 sun;
	uint64_t		 deadline = now_mono_ms() + VIEW_CTL_TIMEOUT_MS;
	json_t			*j;
	struct buf		 ans = { 0 };
	char			*req = NULL;
	size_t			 len = 0, off = 0;
	json_error_t		 je;
	ssize_t			 n;
	int			 fd = -1, rc = -1;

	*answer = NULL;
	*down = 0;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, errlen, "%s: path too long for a socket", path);
		return -1;
	}
	strcpy(sun.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	/*
	 * Non-blocking: a blocking connect to a daemon whose backlog is full
	 * (stopped, or hung) would wait for ever.  A Unix socket says EAGAIN
	 * then, and there is nothing to poll for but time.
	 */
	while (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN && now_mono_ms() + 50 < deadline) {
			(void)poll(NULL, 0, 50);
			continue;
		}
		*down = errno == ENOENT || errno == ECONNREFUSED;
		if (errno == EAGAIN)
			snprintf(err, errlen, "%s: the daemon accepted no "
			    "connection in %d s", path,
			    VIEW_CTL_TIMEOUT_MS / 1000);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if ((j = json_pack("{s:s}", "cmd", cmd)) != NULL)
		req = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (req == NULL) {
		snprintf(err, errlen, "cannot encode the request");
		goto out;
	}
	req = xrealloc(req, strlen(req) + 2);
	strcat(req, "\n");
	len = strlen(req);
	while (off < len) {
		if (ctl_wait(fd, POLLOUT, deadline) == -1) {
			snprintf(err, errlen, "%s: the daemon took no request "
			    "in %d s", path, VIEW_CTL_TIMEOUT_MS / 1000);
			goto out;
		}
		n = send(fd, req + off, len - off, MSG_NOSIGNAL);
		if (n == -1 && (errno == EPIPE || errno == ECONNRESET))
			break;	/* it closed: read what it said first */
		if (n == -1 && errno != EAGAIN && errno != EINTR) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (n > 0)
			off += (size_t)n;
	}
	(void)shutdown(fd, SHUT_WR);
	for (;;) {
		buf_reserve(&ans, 4096);
		if (ctl_wait(fd, POLLIN, deadline) == -1) {
			snprintf(err, errlen, "%s: no answer from the daemon "
			    "in %d s", path, VIEW_CTL_TIMEOUT_MS / 1000);
			goto out;
		}
		n = read(fd, ans.p + ans.len, ans.cap - ans.len - 1);
		if (n == 0)
			break;
		if (n == -1) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			/*
			 * A daemon that closed without reading all we
			 * sent resets the stream after its answer.
			 */
			if (errno == ECONNRESET && ans.len > 0)
				break;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto out;
		}
		buf_added(&ans, (size_t)n);
		if (ans.len > VIEW_CTL_ANSWER_MAX) {
			snprintf(err, errlen, "%s: answer larger than %d bytes",
			    path, VIEW_CTL_ANSWER_MAX);
			goto out;
		}
	}
	if (ans.len == 0) {
		snprintf(err, errlen, "%s: the daemon closed without an "
		    "answer", path);
		goto out;
	}
	if ((*answer = json_loads(ans.p, 0, &je)) == NULL ||
	    !json_is_object(*answer)) {
		snprintf(err, errlen, "%s: the answer is not a JSON object: %s",
		    path, *answer == NULL ? je.text : "another type");
		json_decref(*answer);
		*answer = NULL;
		goto out;
	}
	rc = 0;
out:
	free(req);
	buf_free(&ans);
	if (fd != -1)
		close(fd);
	return rc;
}

int
view_ctl_count(const json_t *answer, const char *key, uint64_t *v)
{
	const json_t	*j = json_object_get(answer, key);

	if (!json_is_integer(j) || json_integer_value(j) < 0)
		return -1;
	*v = (uint64_t)json_integer_value(j);
	return 0;
}

int
view_daemon_state(const char *socket_path, json_t **status)
{
	json_t	*answer;
	char	 err[512];
	int	 down;

	*status = NULL;
	if (view_ctl_request(socket_path, "status", &answer, &down, err,
	    sizeof(err)) == -1) {
		if (down)
			return 0;
		view_err("%s", err);
		return -1;
	}
	if (!json_is_true(json_object_get(answer, "ok"))) {
		const char *e = json_string_value(json_object_get(answer,
		    "error"));

		view_err("%s: chainwatchd refused the status request: %s",
		    socket_path, e != NULL ? e : "(no reason given)");
		json_decref(answer);
		return -1;
	}
	*status = answer;
	return 1;
}

/*
 * Whether the process named in a pidfile lives: 1 yes, 0 no (no pidfile,
 * which chainwatchd removes when it exits; no such process; a zombie), -1
 * cannot tell (the file unreadable or not a pid), after saying why.
 */
static int
pidfile_alive(const char *path)
{
	char		 buf[32], stat_path[64], st[512], *end, *p;
	long		 pid;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		if (errno == ENOENT)
			return 0;
		view_err("%s: %s", path, strerror(errno));
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		/* Empty: the daemon between its open and its write. */
		if (n == 0)
			return -1;
		view_err("%s: %s", path, strerror(errno));
		return -1;
	}
	buf[n] = '\0';
	errno = 0;
	pid = strtol(buf, &end, 10);
	if (errno != 0 || end == buf || (*end != '\n' && *end != '\0') ||
	    pid <= 1 || pid > INT32_MAX) {
		view_err("%s: not a process id", path);
		return -1;
	}
	if (kill((pid_t)pid, 0) == -1 && errno == ESRCH)
		return 0;
	/* Killed and not reaped yet: as gone, it answers nothing. */
	snprintf(stat_path, sizeof(stat_path), "/proc/%ld/stat", pid);
	if ((fd = open(stat_path, O_RDONLY | O_CLOEXEC)) != -1) {
		n = read(fd, st, sizeof(st) - 1);
		close(fd);
		if (n > 0) {
			st[n] = '\0';
			if ((p = strrchr(st, ')')) != NULL && p[1] == ' ' &&
			    (p[2] == 'Z' || p[2] == 'X'))
				return 0;
		}
	}
	return 1;
}

int
view_daemon_ask(struct view_db *c)
{
	json_t	*status = NULL;
	int	 r;

	if (c->daemon_asked)
		return c->daemon_running;
	c->daemon_asked = 1;
	if (c->socket == NULL) {
		c->daemon_running = -1;
		return -1;
	}
	/*
	 * Nothing listening on the socket (refused, or no socket) is
	 * decisive: a pid in a pidfile that a crash left behind may be
	 * another process's by now.  The pidfile only settles what the
	 * socket cannot: no permission on it, no answer in time.
	 */
	r = view_daemon_state(c->socket, &status);
	if (r == -1 && c->pidfile != NULL)
		r = pidfile_alive(c->pidfile);
	c->daemon_running = r;
	c->daemon_status = status;
	return r;
}
