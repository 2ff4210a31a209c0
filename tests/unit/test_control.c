/*
 * The control socket (supervisor/sup_control.c) linked alone, the rest of
 * the supervisor stubbed: the protocol and its errors, the socket file's
 * life, and that clients which never send or never read are dropped
 * after CONTROL_TIMEOUT_MS while others are answered.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "chainwatchd.h"
#include "sup_control.h"
#include "sup_reload.h"
#include "sup_snapshot.h"
#include "util.h"

/* What sup_control.c takes from the rest of the supervisor. */
struct conf	*sup_conf;
int		 sup_stopping;
int		 sup_verbose;
struct ev_loop	*sup_loop;

static size_t	 stats_pad;	/* makes the stats answer this much larger */
static int	 reload_bad;
static unsigned	 reloads;

json_t *
sup_snapshot_json(void)
{
	json_t	*j = json_pack("{s:[], s:[]}", "endpoints", "chains");

	if (stats_pad > 0) {
		char *pad = xmalloc(stats_pad + 1);

		memset(pad, 'x', stats_pad);
		pad[stats_pad] = '\0';
		json_object_set_new(j, "pad", json_string(pad));
		free(pad);
	}
	return j;
}

void
sup_reload(struct reload_result *r)
{
	memset(r, 0, sizeof(*r));
	reloads++;
	if (reload_bad) {
		r->errors = xcalloc(2, sizeof(char *));
		r->errors[0] = xstrdup("/x.conf:3: block_time: 'never' is not "
		    "a duration");
		r->errors[1] = xstrdup("/x.conf:9: duplicate chain");
		r->n_errors = 2;
		return;
	}
	r->ok = 1;
	r->added = 1;
	r->changed = 2;
	r->kept = 3;
	r->warnings = xcalloc(1, sizeof(char *));
	r->warnings[0] = xstrdup("control_socket changed: that takes a "
	    "restart");
	r->n_warnings = 1;
}

static char	dir[64];

static void
sun_set(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	assert_true(strlen(path) < sizeof(sun->sun_path));
	memcpy(sun->sun_path, path, strlen(path) + 1);
}

static void
stop_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ONE);
}

/* Run the daemon's loop for s seconds. */
static void
pump(double s)
{
	ev_timer	t;

	ev_timer_init(&t, stop_cb, s, 0.);
	ev_timer_start(sup_loop, &t);
	ev_run(sup_loop, 0);
	ev_timer_stop(sup_loop, &t);
}

static int
cl_connect(void)
{
	struct sockaddr_un	sun;
	int			fd;

	sun_set(&sun, sup_conf->daemon.control_socket);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	return fd;
}

static void
cl_send(int fd, const char *s, size_t len)
{
	assert_int_equal(send(fd, s, len, MSG_NOSIGNAL), (ssize_t)len);
}

/*
 * Read until the daemon closes, running its loop meanwhile, for at most
 * limit seconds.  The bytes read, NUL-terminated in a buffer to free;
 * *eof says whether the daemon closed.
 */
static char *
cl_read(int fd, double limit, size_t *len, int *eof)
{
	struct buf	 b = { 0 };
	ssize_t		 n;

	*eof = 0;
	for (double t = 0; t < limit; t += 0.01) {
		pump(0.01);
		for (;;) {
			buf_reserve(&b, 4096);
			n = read(fd, b.p + b.len, b.cap - b.len - 1);
			if (n > 0) {
				buf_added(&b, (size_t)n);
				continue;
			}
			if (n == 0 || errno == ECONNRESET)
				*eof = 1;
			break;
		}
		if (*eof)
			break;
	}
	return buf_release(&b, len);
}

/* One request, its answer parsed. */
static json_t *
ask(const char *req, size_t len)
{
	json_error_t	 je;
	json_t		*j;
	char		*buf;
	size_t		 n;
	int		 fd = cl_connect(), eof;

	cl_send(fd, req, len);
	(void)shutdown(fd, SHUT_WR);	/* as chainwatch does */
	buf = cl_read(fd, 3, &n, &eof);
	close(fd);
	assert_true(eof);
	assert_true(n > 0);
	/* One line: the object and a newline. */
	assert_int_equal(buf[n - 1], '\n');
	assert_null(memchr(buf, '\n', n - 1));
	j = json_loads(buf, 0, &je);
	free(buf);
	assert_non_null(j);
	assert_true(json_is_object(j));
	assert_true(json_is_boolean(json_object_get(j, "ok")));
	return j;
}

static json_t *
ask_str(const char *req)
{
	return ask(req, strlen(req));
}

static void
assert_error(json_t *j, const char *part)
{
	const char	*e = json_string_value(json_object_get(j, "error"));

	assert_true(json_is_false(json_object_get(j, "ok")));
	assert_non_null(e);
	if (strstr(e, part) == NULL)
		fail_msg("error '%s' does not say '%s'", e, part);
	json_decref(j);
}

static int
setup(void **state)
{
	struct conf	*conf = xcalloc(1, sizeof(*conf));

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/cw-control.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(conf->path, sizeof(conf->path), "/x.conf");
	snprintf(conf->daemon.control_socket,
	    sizeof(conf->daemon.control_socket), "%s/sock", dir);
	sup_conf = conf;
	sup_stopping = 0;
	stats_pad = 0;
	reload_bad = 0;
	reloads = 0;
	sup_loop = ev_loop_new(EVFLAG_AUTO);
	assert_non_null(sup_loop);
	return 0;
}

static int
teardown(void **state)
{
	struct stat	st;

	(void)state;
	sup_control_stop();
	/* Removed at exit. */
	assert_int_equal(stat(sup_conf->daemon.control_socket, &st), -1);
	ev_loop_destroy(sup_loop);
	free(sup_conf);
	assert_int_equal(rmdir(dir), 0);
	return 0;
}

static void
test_socket_file(void **state)
{
	struct stat	st;

	(void)state;
	assert_int_equal(sup_control_init(sup_conf), 0);
	assert_int_equal(stat(sup_conf->daemon.control_socket, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0660);
}

/* A socket left by a killed daemon is replaced; a live one is not. */
static void
test_stale(void **state)
{
	struct sockaddr_un	sun;
	const char		*path = sup_conf->daemon.control_socket;
	int			fd;

	(void)state;
	sun_set(&sun, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(sup_control_init(sup_conf), -1);
	close(fd);		/* now nothing answers on it */
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(sup_control_init(sup_conf), 0);
	json_decref(ask_str("{\"cmd\":\"status\"}\n"));
}

static void
test_not_a_socket(void **state)
{
	const char	*path = sup_conf->daemon.control_socket;
	int		 fd;

	(void)state;
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sup_control_init(sup_conf), -1);
	assert_int_equal(access(path, F_OK), 0);	/* left alone */
	assert_int_equal(unlink(path), 0);
}

static void
test_owner_group(void **state)
{
	struct group	*gr = getgrgid(getegid());

	(void)state;
	snprintf(sup_conf->daemon.control_owner,
	    sizeof(sup_conf->daemon.control_owner), "cw-no-such-user");
	assert_int_equal(sup_control_check(sup_conf), -1);
	assert_int_equal(sup_control_init(sup_conf), -1);
	sup_conf->daemon.control_owner[0] = '\0';
	snprintf(sup_conf->daemon.control_group,
	    sizeof(sup_conf->daemon.control_group), "cw-no-such-group");
	assert_int_equal(sup_control_check(sup_conf), -1);
	/* Our own group, by name, is always ours to give. */
	assert_non_null(gr);
	snprintf(sup_conf->daemon.control_group,
	    sizeof(sup_conf->daemon.control_group), "%s", gr->gr_name);
	assert_int_equal(sup_control_check(sup_conf), 0);
	assert_int_equal(sup_control_init(sup_conf), 0);
}

static void
test_status_metrics(void **state)
{
	json_t	*j;

	(void)state;
	assert_int_equal(sup_control_init(sup_conf), 0);
	j = ask_str("{\"cmd\": \"status\"}\n");
	assert_true(json_is_true(json_object_get(j, "ok")));
	assert_int_equal(json_integer_value(json_object_get(j, "pid")),
	    getpid());
	assert_string_equal(json_string_value(json_object_get(j, "config")),
	    "/x.conf");
	assert_string_equal(json_string_value(json_object_get(j, "version")),
	    PACKAGE_VERSION);
	assert_true(json_integer_value(json_object_get(j, "started_at")) >
	    1600000000000LL);
	assert_true(json_is_array(json_object_get(j, "endpoints")));
	assert_true(json_is_array(json_object_get(j, "chains")));
	json_decref(j);
	j = ask_str("{\"cmd\":\"metrics\"}\n");
	assert_true(json_is_true(json_object_get(j, "ok")));
	assert_true(json_is_array(json_object_get(j, "endpoints")));
	assert_null(json_object_get(j, "pid"));
	json_decref(j);
	/* The end of the stream ends a line; CRLF is a newline. */
	json_decref(ask_str("{\"cmd\":\"metrics\"}"));
	json_decref(ask_str("{\"cmd\":\"metrics\"}\r\n"));
}

static void
test_errors(void **state)
{
	char	*big;
	json_t	*j;
	int	 fd, eof;
	size_t	 n;
	char	*buf;

	(void)state;
	assert_int_equal(sup_control_init(sup_conf), 0);
	assert_error(ask_str("nonsense\n"), "bad JSON");
	assert_error(ask_str("\n"), "bad JSON");
	assert_error(ask_str("[\"status\"]\n"), "not a JSON object");
	assert_error(ask_str("{\"cmd\":\"stop\"}\n"),
	    "unknown command \"stop\"");
	assert_error(ask_str("{\"cmd\":\"status\",\"chain\":\"x\"}\n"),
	    "unknown member \"chain\"");
	assert_error(ask_str("{\"cmd\":7}\n"), "no \"cmd\" string");
	assert_error(ask_str("{\"cmd\":\"a\",\"cmd\":\"b\"}\n"), "bad JSON");
	/* Bytes that are not UTF-8 are answered too. */
	assert_error(ask_str("{\"cmd\":\"\xff\xfe\"}\n"), "bad JSON");
	assert_error(ask_str("\xff\xfe\n"), "bad JSON");
	/* Up to CONTROL_LINE_MAX with the newline, and not one byte more. */
	big = xmalloc(CONTROL_LINE_MAX + 2);
	memset(big, ' ', CONTROL_LINE_MAX + 1);
	memcpy(big, "{\"cmd\":\"status\"}", 16);
	big[CONTROL_LINE_MAX - 1] = '\n';
	j = ask(big, CONTROL_LINE_MAX);
	assert_true(json_is_true(json_object_get(j, "ok")));
	json_decref(j);
	big[CONTROL_LINE_MAX - 1] = ' ';
	big[CONTROL_LINE_MAX] = '\n';
	assert_error(ask(big, CONTROL_LINE_MAX + 1), "longer than 4096");
	free(big);
	/* A request in pieces. */
	fd = cl_connect();
	cl_send(fd, "{\"cmd\":", 7);
	pump(0.05);
	cl_send(fd, "\"status\"}\n", 10);
	buf = cl_read(fd, 3, &n, &eof);
	assert_true(eof);
	assert_non_null(strstr(buf, "\"ok\":true"));
	free(buf);
	close(fd);
}

static void
test_reload(void **state)
{
	json_t	*j;

	(void)state;
	assert_int_equal(sup_control_init(sup_conf), 0);
	j = ask_str("{\"cmd\":\"reload\"}\n");
	assert_int_equal(reloads, 1);
	assert_true(json_is_true(json_object_get(j, "ok")));
	assert_int_equal(json_integer_value(json_object_get(j, "added")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "changed")), 2);
	assert_int_equal(json_integer_value(json_object_get(j, "removed")), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "kept")), 3);
	assert_int_equal(json_array_size(json_object_get(j, "warnings")), 1);
	json_decref(j);

	reload_bad = 1;
	j = ask_str("{\"cmd\":\"reload\"}\n");
	assert_true(json_is_false(json_object_get(j, "ok")));
	assert_int_equal(json_array_size(json_object_get(j, "errors")), 2);
	assert_string_equal(json_string_value(json_array_get(
	    json_object_get(j, "errors"), 1)), "/x.conf:9: duplicate chain");
	json_decref(j);

	sup_stopping = 1;
	assert_error(ask_str("{\"cmd\":\"reload\"}\n"), "stopping");
	assert_int_equal(reloads, 2);
}

/*
 * CONTROL_CLIENTS_MAX clients that send nothing: one more is told the
 * daemon is busy, at once; they are dropped after the timeout, and then
 * a new client is answered.
 */
static void
test_idle_clients(void **state)
{
	int	 fds[CONTROL_CLIENTS_MAX], fd, eof;
	char	*buf;
	size_t	 n;
	json_t	*j;

	(void)state;
	assert_int_equal(sup_control_init(sup_conf), 0);
	for (int i = 0; i < CONTROL_CLIENTS_MAX; i++)
		fds[i] = cl_connect();
	pump(0.1);
	fd = cl_connect();
	buf = cl_read(fd, 1, &n, &eof);
	assert_true(eof);
	assert_non_null(strstr(buf, "busy"));
	free(buf);
	close(fd);
	/* Still connected, not answered. */
	buf = cl_read(fds[0], 0.5, &n, &eof);
	assert_false(eof);
	free(buf);
	buf = cl_read(fds[0], CONTROL_TIMEOUT_MS / 1000.0 + 1, &n, &eof);
	assert_true(eof);
	assert_int_equal(n, 0);
	free(buf);
	for (int i = 0; i < CONTROL_CLIENTS_MAX; i++)
		close(fds[i]);
	j = ask_str("{\"cmd\":\"status\"}\n");
	assert_true(json_is_true(json_object_get(j, "ok")));
	json_decref(j);
}

/*
 * A client that never reads an answer larger than the socket holds is
 * dropped after the timeout; meanwhile others are answered at once.
 */
static void
test_slow_reader(void **state)
{
	char	*buf;
	size_t	 n;
	int	 slow, eof;
	json_t	*j;

	(void)state;
	assert_int_equal(sup_control_init(sup_conf), 0);
	stats_pad = 8 << 20;
	slow = cl_connect();
	cl_send(slow, "{\"cmd\":\"metrics\"}\n", 18);
	pump(0.2);
	stats_pad = 0;
	j = ask_str("{\"cmd\":\"status\"}\n");
	assert_true(json_is_true(json_object_get(j, "ok")));
	json_decref(j);
	j = ask_str("{\"cmd\":\"reload\"}\n");
	assert_true(json_is_true(json_object_get(j, "ok")));
	json_decref(j);
	pump(CONTROL_TIMEOUT_MS / 1000.0 + 0.5);
	/* What it gets now is a part of the answer, then the end. */
	buf = cl_read(slow, 2, &n, &eof);
	assert_true(eof);
	assert_true(n < (size_t)(8 << 20));
	free(buf);
	close(slow);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_socket_file, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_socket, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_owner_group, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_status_metrics, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reload, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_clients, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_slow_reader, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
