/*
 * The control socket: chainwatch(1) and the metrics server ask the running
 * daemon for its live state and to reload.  One JSON line in, one JSON
 * object and a newline out, then close.  Every client is non-blocking and
 * has a deadline, so a slow or hostile one can never stall the loop.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <grp.h>
#include <jansson.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "ratelimit.h"
#include "chainwatchd.h"
#include "sup_control.h"
#include "sup_ctlreq.h"
#include "sup_reload.h"
#include "sup_snapshot.h"
#include "util.h"

#define CONTROL_BACKLOG		32
#define CONTROL_PAUSE_MS	1000	/* out of descriptors: stop accepting */

struct ctl_client {
	struct ctl_client	*next;
	int			 fd;
	pid_t			 pid;		/* the peer's, for the log */
	uid_t			 uid;
	char			 in[CONTROL_LINE_MAX];
	size_t			 in_len;
	char			*out;		/* the answer, being written */
	size_t			 out_len, out_off;
	ev_io			 io;
	ev_timer		 timer;
};

static int			 ctl_fd = -1;
static ev_io			 ctl_accept_io;
static ev_timer			 ctl_pause;
static struct ctl_client	*ctl_clients;
static unsigned			 ctl_nclients;
static struct sockaddr_un	 ctl_sun;
static dev_t			 ctl_dev;	/* what we bound, to remove */
static ino_t			 ctl_ino;
static uint64_t			 ctl_started_at;	/* wall clock, ms */
/* Clients turned away: one line a second, the rest counted. */
static struct ratelimit		 ctl_refused = RATELIMIT_INIT(1000);
static ev_timer			 ctl_refused_timer;

static void	ctl_accept_cb(struct ev_loop *, ev_io *, int);
static void	ctl_pause_cb(struct ev_loop *, ev_timer *, int);
static void	ctl_io_cb(struct ev_loop *, ev_io *, int);
static void	ctl_timer_cb(struct ev_loop *, ev_timer *, int);
static void	ctl_refused_cb(struct ev_loop *, ev_timer *, int);

/* A user or group by name, or by number as a fallback. */
static int
ctl_id(const char *name, int group, unsigned *id)
{
	struct passwd	*pw;
	struct group	*gr;
	char		*end;
	unsigned long	 n;

	if (group && (gr = getgrnam(name)) != NULL) {
		*id = gr->gr_gid;
		return 0;
	}
	if (!group && (pw = getpwnam(name)) != NULL) {
		*id = pw->pw_uid;
		return 0;
	}
	errno = 0;
	n = strtoul(name, &end, 10);
	if (name[0] >= '0' && name[0] <= '9' && *end == '\0' &&
	    errno == 0 && n < (unsigned long)(unsigned)-1) {
		*id = (unsigned)n;
		return 0;
	}
	return -1;
}

/*
 * What -n checks too: the owner and group exist and the path fits a
 * socket address.  Errors go to stderr with the line of the key.
 */
int
sup_control_check(const struct conf *conf)
{
	const struct conf_daemon	*d = &conf->daemon;
	unsigned			 id;
	int				 bad = 0;

	if (strlen(d->control_socket) >= sizeof(ctl_sun.sun_path)) {
		fprintf(stderr, "%s:%d: control_socket: longer than %zu "
		    "bytes, too long for a socket\n", conf->path,
		    conf_daemon_line(conf, "control_socket"),
		    sizeof(ctl_sun.sun_path) - 1);
		bad = 1;
	}
	if (d->control_owner[0] != '\0' &&
	    ctl_id(d->control_owner, 0, &id) == -1) {
		fprintf(stderr, "%s:%d: control_owner: no user '%s'\n",
		    conf->path, conf_daemon_line(conf, "control_owner"),
		    d->control_owner);
		bad = 1;
	}
	if (d->control_group[0] != '\0' &&
	    ctl_id(d->control_group, 1, &id) == -1) {
		fprintf(stderr, "%s:%d: control_group: no group '%s'\n",
		    conf->path, conf_daemon_line(conf, "control_group"),
		    d->control_group);
		bad = 1;
	}
	return bad ? -1 : 0;
}

/*
 * A socket file left at our path.  One that answers belongs to a running
 * daemon: refuse to take it over.  One that does not is stale (a daemon
 * killed without its cleanup): remove it.  Anything but a socket is left
 * alone.  0 when the path is free.
 */
static int
ctl_clear(const char *path)
{
	struct stat	st;
	int		fd, rc;

	if (lstat(path, &st) == -1) {
		if (errno == ENOENT)
			return 0;
		log_warn("control socket %s", path);
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		log_warnx("control socket %s: the path exists and is not a "
		    "socket; not touching it", path);
		return -1;
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1) {
		log_warn("control socket: socket");
		return -1;
	}
	rc = connect(fd, (struct sockaddr *)&ctl_sun, sizeof(ctl_sun));
	if (rc == 0 || errno == EAGAIN) {
		/* EAGAIN: its backlog is full, which is also alive. */
		log_warnx("control socket %s: another daemon answers on it "
		    "(another chainwatchd with another pidfile?)", path);
		close(fd);
		return -1;
	}
	close(fd);
	if (errno != ECONNREFUSED) {
		log_warn("control socket %s: connect", path);
		return -1;
	}
	if (unlink(path) == -1 && errno != ENOENT) {
		log_warn("control socket %s: removing a stale socket", path);
		return -1;
	}
	log_info("control socket %s: removed a stale socket that nothing "
	    "answered on", path);
	return 0;
}

long
sup_control_gid(const struct conf *conf)
{
	const struct conf_daemon	*d = &conf->daemon;
	struct passwd			*pw;
	unsigned			 gid;

	if (d->control_group[0] != '\0')
		return ctl_id(d->control_group, 1, &gid) == -1 ? -1 :
		    (long)gid;
	if (geteuid() != 0 || d->user[0] == '\0' ||
	    (pw = getpwnam(d->user)) == NULL)
		return -1;
	return (long)pw->pw_gid;
}

/*
 * Give the socket to control_owner and the operators' group
 * (sup_control_gid), when set.
 */
static int
ctl_chown(const struct conf *conf)
{
	const struct conf_daemon	*d = &conf->daemon;
	const char			*path = ctl_sun.sun_path;
	unsigned			 uid = (unsigned)-1, gid = (unsigned)-1;
	long				 ogid = sup_control_gid(conf);

	if (d->control_owner[0] == '\0' && ogid == -1)
		return 0;
	if (d->control_group[0] == '\0' && ogid != -1)
		gid = (unsigned)ogid;
	if (d->control_owner[0] != '\0' &&
	    ctl_id(d->control_owner, 0, &uid) == -1) {
		log_warnx("control_owner: no user '%s'", d->control_owner);
		return -1;
	}
	if (d->control_group[0] != '\0' &&
	    ctl_id(d->control_group, 1, &gid) == -1) {
		log_warnx("control_group: no group '%s'", d->control_group);
		return -1;
	}
	if (chown(path, (uid_t)uid, (gid_t)gid) == 0)
		return 0;
	if (errno == EPERM && geteuid() != 0) {
		/* Only root may give files away: keep going as we are. */
		log_warnx("control socket %s: cannot give it to %s%s%s (not "
		    "root); it stays with uid %u gid %u, mode 0660", path,
		    d->control_owner, d->control_group[0] != '\0' ? ":" : "",
		    d->control_group, (unsigned)geteuid(),
		    (unsigned)getegid());
		return 0;
	}
	log_warn("control socket %s: chown", path);
	return -1;
}

/*
 * Create the socket, mode 0660 from the moment it exists (bind under a
 * umask), owned as configured, and start accepting.  After the pidfile
 * lock: a second daemon of the same configuration stops there, before it
 * could take our socket.  -1 after saying why.
 */
int
sup_control_init(const struct conf *conf)
{
	const char	*path = conf->daemon.control_socket;
	struct stat	 st;
	mode_t		 mask;
	int		 rc;

	ctl_started_at = now_wall_ms();
	memset(&ctl_sun, 0, sizeof(ctl_sun));
	ctl_sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(ctl_sun.sun_path)) {
		log_warnx("control_socket %s: longer than %zu bytes", path,
		    sizeof(ctl_sun.sun_path) - 1);
		return -1;
	}
	strcpy(ctl_sun.sun_path, path);
	if (ctl_clear(path) == -1)
		return -1;
	if ((ctl_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1) {
		log_warn("control socket: socket");
		return -1;
	}
	mask = umask(0117);
	rc = bind(ctl_fd, (struct sockaddr *)&ctl_sun, sizeof(ctl_sun));
	umask(mask);
	if (rc == -1) {
		log_warn("control socket %s: bind", path);
		goto fail;
	}
	if (stat(path, &st) == -1 || chmod(path, 0660) == -1) {
		log_warn("control socket %s", path);
		goto fail_unlink;
	}
	ctl_dev = st.st_dev;
	ctl_ino = st.st_ino;
	if (ctl_chown(conf) == -1)
		goto fail_unlink;
	if (listen(ctl_fd, CONTROL_BACKLOG) == -1) {
		log_warn("control socket %s: listen", path);
		goto fail_unlink;
	}
	ev_io_init(&ctl_accept_io, ctl_accept_cb, ctl_fd, EV_READ);
	ev_io_start(sup_loop, &ctl_accept_io);
	ev_timer_init(&ctl_pause, ctl_pause_cb, CONTROL_PAUSE_MS / 1000.0, 0.);
	ev_timer_init(&ctl_refused_timer, ctl_refused_cb, 0., 0.);
	log_debug("control socket %s: listening", path);
	return 0;

fail_unlink:
	(void)unlink(path);
fail:
	close(ctl_fd);
	ctl_fd = -1;
	return -1;
}

static void
ctl_close(struct ctl_client *c)
{
	struct ctl_client	**pp;

	for (pp = &ctl_clients; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	ctl_nclients--;
	ev_io_stop(sup_loop, &c->io);
	ev_timer_stop(sup_loop, &c->timer);
	close(c->fd);
	free(c->out);
	free(c);
}

/* At exit: drop every client, and remove the socket if it is still ours. */
void
sup_control_stop(void)
{
	struct stat	st;

	while (ctl_clients != NULL)
		ctl_close(ctl_clients);
	if (ctl_fd == -1)
		return;
	ev_io_stop(sup_loop, &ctl_accept_io);
	ev_timer_stop(sup_loop, &ctl_pause);
	ev_timer_stop(sup_loop, &ctl_refused_timer);
	ctl_refused_cb(sup_loop, &ctl_refused_timer, 0);
	close(ctl_fd);
	ctl_fd = -1;
	if (stat(ctl_sun.sun_path, &st) == 0 && st.st_dev == ctl_dev &&
	    st.st_ino == ctl_ino)
		(void)unlink(ctl_sun.sun_path);
}

static void
ctl_peer(int fd, pid_t *pid, uid_t *uid)
{
	struct ucred	cred;
	socklen_t	len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
		*pid = cred.pid;
		*uid = cred.uid;
	} else {
		*pid = -1;
		*uid = (uid_t)-1;
	}
}

static void
ctl_timer_restart(struct ctl_client *c)
{
	ev_timer_stop(sup_loop, &c->timer);
	ev_timer_set(&c->timer, CONTROL_TIMEOUT_MS / 1000.0, 0.);
	ev_timer_start(sup_loop, &c->timer);
}

/*
 * Too many clients at once: say so if the socket takes it at once, and
 * close.  Nothing here may wait.
 */
static void
ctl_refuse(int fd)
{
	static const char	msg[] = "{\"ok\":false,\"error\":\"busy: too "
	    "many control clients at once; try again\"}\n";
	pid_t			pid;
	uid_t			uid;

	uint64_t		now = now_mono_ms();

	ctl_peer(fd, &pid, &uid);
	(void)send(fd, msg, sizeof(msg) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
	if (!ratelimit_pass(&ctl_refused, now)) {
		if (!ev_is_active(&ctl_refused_timer)) {
			ev_timer_set(&ctl_refused_timer,
			    (double)(ratelimit_due(&ctl_refused) - now) /
			    1000.0, 0.);
			ev_timer_start(sup_loop, &ctl_refused_timer);
		}
		return;
	}
	ctl_refused_cb(sup_loop, &ctl_refused_timer, 0);
	log_warnx("control socket: %u clients already; turned away pid %ld "
	    "(uid %ld)", ctl_nclients, (long)pid, (long)uid);
}

/* Tell how many were turned away without a line of their own. */
static void
ctl_refused_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	uint64_t	span;
	unsigned	n;

	(void)revents;
	ev_timer_stop(loop, w);
	if ((n = ratelimit_take(&ctl_refused, &span)) > 0)
		log_warnx("control socket: ... %u more clients turned away "
		    "in %llu ms", n, (unsigned long long)span);
}

static void
ctl_accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ctl_client	*c;
	int			 fd;

	(void)w;
	(void)revents;
	for (;;) {
		fd = accept4(ctl_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				/* Level-triggered: waiting is all we can do. */
				log_warn("control socket: accept; pausing "
				    "for %d ms", CONTROL_PAUSE_MS);
				ev_io_stop(loop, &ctl_accept_io);
				ev_timer_start(loop, &ctl_pause);
				return;
			}
			log_warn("control socket: accept");
			return;
		}
		if (ctl_nclients >= CONTROL_CLIENTS_MAX) {
			ctl_refuse(fd);
			continue;
		}
		c = xcalloc(1, sizeof(*c));
		c->fd = fd;
		ctl_peer(fd, &c->pid, &c->uid);
		ev_io_init(&c->io, ctl_io_cb, fd, EV_READ);
		c->io.data = c;
		ev_init(&c->timer, ctl_timer_cb);
		c->timer.data = c;
		c->next = ctl_clients;
		ctl_clients = c;
		ctl_nclients++;
		ev_io_start(loop, &c->io);
		ctl_timer_restart(c);
	}
}

static void
ctl_pause_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	if (ctl_fd != -1)
		ev_io_start(loop, &ctl_accept_io);
}

/*
 * A JSON string of s, which a configuration file may have filled with
 * bytes that are not UTF-8: those become '?' rather than lose the line.
 */
static json_t *
ctl_string(const char *s)
{
	json_t	*j;
	char	*t;

	if ((j = json_string(s)) != NULL)
		return j;
	t = xstrdup(s);
	for (char *p = t; *p != '\0'; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(t);
	free(t);
	return j;
}

static json_t *
ctl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static json_t *
ctl_error(const char *fmt, ...)
{
	char	msg[CONTROL_LINE_MAX + 256];	/* never cuts what was sent */
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* What was sent is valid UTF-8; jansson's messages quote bytes. */
	return json_pack("{s:b, s:o}", "ok", 0, "error", ctl_string(msg));
}

/* {"ok": true} and the snapshot of sup_stats.c, for status and metrics. */
static json_t *
ctl_stats(void)
{
	json_t	*j = json_object(), *stats = sup_snapshot_json();

	json_object_set_new(j, "ok", json_true());
	json_object_update(j, stats);
	json_decref(stats);
	return j;
}

static json_t *
ctl_status(void)
{
	json_t	*j = json_pack("{s:b, s:I, s:I, s:s, s:o, s:b}", "ok", 1,
	    "pid", (json_int_t)getpid(), "started_at",
	    (json_int_t)ctl_started_at, "version", PACKAGE_VERSION,
	    "config", ctl_string(sup_conf->path), "stopping", sup_stopping);
	json_t	*stats = sup_snapshot_json();

	json_object_update(j, stats);
	json_decref(stats);
	return j;
}

static json_t *
ctl_strv(char **v, size_t n)
{
	json_t	*a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, ctl_string(v[i]));
	return a;
}

static json_t *
ctl_reload(const struct ctl_client *c)
{
	struct reload_result	 r;
	json_t			*j;

	if (sup_stopping)
		return ctl_error("chainwatchd is stopping");
	log_info("control socket: reload asked by pid %ld (uid %ld): "
	    "reloading %s", (long)c->pid, (long)c->uid, sup_conf->path);
	sup_reload(&r);
	if (!r.ok)
		j = json_pack("{s:b, s:s, s:o}", "ok", 0, "error",
		    "not reloaded: the configuration has errors; the running "
		    "one stays", "errors", ctl_strv(r.errors, r.n_errors));
	else
		j = json_pack("{s:b, s:i, s:i, s:i, s:i, s:o}", "ok", 1,
		    "added", (int)r.added, "changed", (int)r.changed,
		    "removed", (int)r.removed, "kept", (int)r.kept,
		    "warnings", ctl_strv(r.warnings, r.n_warnings));
	sup_reload_result_free(&r);
	return j;
}

/* The answer to one request line: always an object with "ok". */
static json_t *
ctl_dispatch(const struct ctl_client *c, const char *line, size_t len)
{
	char		 err[CTLREQ_ERR_MAX];
	enum ctl_cmd	 cmd;

	/* A bad request is not logged: it may hold anything, newlines too. */
	if (sup_ctlreq_parse(line, len, &cmd, err, sizeof(err)) == -1)
		return ctl_error("%s", err);
	if (cmd == CTL_CMD_RELOAD)
		return ctl_reload(c);		/* logged there */
	log_debug("control socket: %s from pid %ld (uid %ld)",
	    cmd == CTL_CMD_STATUS ? "status" : "metrics", (long)c->pid,
	    (long)c->uid);
	return cmd == CTL_CMD_STATUS ? ctl_status() : ctl_stats();
}

static void
ctl_write(struct ctl_client *c)
{
	ssize_t	n;

	while (c->out_off < c->out_len) {
		n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
		    MSG_NOSIGNAL);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			log_debug("control socket: pid %ld left before its "
			    "answer: %s", (long)c->pid, strerror(errno));
			break;
		}
		c->out_off += (size_t)n;
	}
	ctl_close(c);
}

/* Answer, then wait only for the socket to take the answer. */
static void
ctl_answer(struct ctl_client *c, json_t *answer)
{
	char	*s;

	s = answer != NULL ? json_dumps(answer, JSON_COMPACT) : NULL;
	json_decref(answer);
	if (s == NULL) {
		log_warnx("control socket: cannot encode an answer");
		ctl_close(c);
		return;
	}
	c->out_len = strlen(s) + 1;
	c->out = xrealloc(s, c->out_len + 1);
	c->out[c->out_len - 1] = '\n';
	ev_io_stop(sup_loop, &c->io);
	ev_io_set(&c->io, c->fd, EV_WRITE);
	ev_io_start(sup_loop, &c->io);
	ctl_timer_restart(c);
	ctl_write(c);
}

static void
ctl_read(struct ctl_client *c)
{
	ssize_t	 n;
	char	*nl;

	n = read(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len);
	if (n == -1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		log_debug("control socket: pid %ld: read: %s", (long)c->pid,
		    strerror(errno));
		ctl_close(c);
		return;
	}
	if (n == 0) {
		/* The end of the stream ends a line too. */
		if (c->in_len == 0) {
			ctl_close(c);
			return;
		}
		ctl_answer(c, ctl_dispatch(c, c->in, c->in_len));
		return;
	}
	nl = memchr(c->in + c->in_len, '\n', (size_t)n);
	c->in_len += (size_t)n;
	if (nl != NULL)
		ctl_answer(c, ctl_dispatch(c, c->in, (size_t)(nl - c->in)));
	else if (c->in_len == sizeof(c->in))
		ctl_answer(c, ctl_error("request longer than %d bytes",
		    CONTROL_LINE_MAX));
}

static void
ctl_io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ctl_client	*c = w->data;

	(void)loop;
	if (c->out != NULL) {
		if (revents & EV_WRITE)
			ctl_write(c);
	} else if (revents & EV_READ)
		ctl_read(c);
}

static void
ctl_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct ctl_client	*c = w->data;

	(void)loop;
	(void)revents;
	if (c->out == NULL)
		log_warnx("control socket: pid %ld (uid %ld) sent no request "
		    "in %d s; dropped", (long)c->pid, (long)c->uid,
		    CONTROL_TIMEOUT_MS / 1000);
	else
		log_warnx("control socket: pid %ld (uid %ld) took %zu of the "
		    "%zu bytes of its answer in %d s; dropped", (long)c->pid,
		    (long)c->uid, c->out_off, c->out_len,
		    CONTROL_TIMEOUT_MS / 1000);
	ctl_close(c);
}
