/*
 * chainwatch reload's side without a daemon (cli/cli_reload.c,
 * cli/cli_daemon.c): the line it prints, and what it says and exits with
 * when nothing answers on the control socket.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <jansson.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli.h"
#include "util.h"
#include "view_ctl.h"

/*
 * What cli_err() says goes to stderr: between said_start() and said(),
 * stderr is a temporary file, which said() reads back.
 */
static FILE	*said_fp;
static int	 said_saved = -1;
static char	 said_buf[4096];

static void
said_start(void)
{
	fflush(stderr);
	assert_non_null(said_fp = tmpfile());
	assert_true((said_saved = dup(STDERR_FILENO)) != -1);
	assert_true(dup2(fileno(said_fp), STDERR_FILENO) != -1);
}

static const char *
said(void)
{
	size_t	n;

	fflush(stderr);
	assert_true(dup2(said_saved, STDERR_FILENO) != -1);
	close(said_saved);
	rewind(said_fp);
	n = fread(said_buf, 1, sizeof(said_buf) - 1, said_fp);
	said_buf[n] = '\0';
	fclose(said_fp);
	return said_buf;
}

static void
test_line(void **state)
{
	char	buf[160];

	(void)state;
	cli_reload_line(buf, sizeof(buf), 1, 1, 0, 2);
	assert_string_equal(buf, "reloaded: 1 endpoint added, 1 changed, "
	    "2 kept");
	cli_reload_line(buf, sizeof(buf), 0, 0, 0, 3);
	assert_string_equal(buf, "reloaded: 0 endpoints added, 0 changed, "
	    "3 kept");
	cli_reload_line(buf, sizeof(buf), 2, 0, 1, 1);
	assert_string_equal(buf, "reloaded: 2 endpoints added, 0 changed, "
	    "1 removed, 1 kept");
	cli_reload_line(buf, sizeof(buf), 12, 10, 11, 0);
	assert_string_equal(buf, "reloaded: 12 endpoints added, 10 changed, "
	    "11 removed, 0 kept");
}

/* No socket, and a socket file nobody listens on: not running. */
static void
test_not_running(void **state)
{
	struct sockaddr_un	 sun;
	char			 dir[] = "/tmp/cw-clireload.XXXXXX";
	char			 path[64], conf[64];
	json_t			*status = (json_t *)1;
	FILE			*fp;
	int			 fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sock", dir);
	assert_int_equal(view_daemon_state(path, &status), 0);
	assert_null(status);
	said_start();
	assert_int_equal(cli_reload(NULL, path, 0), CLI_EXIT_NOT_RUNNING);
	assert_non_null(strstr(said(), "chainwatch: chainwatchd is not "
	    "running (nothing answers on "));

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(fd);
	assert_int_equal(view_daemon_state(path, &status), 0);
	assert_int_equal(cli_reload(NULL, path, 1), CLI_EXIT_NOT_RUNNING);

	/* The socket named by a configuration, as without -s. */
	snprintf(conf, sizeof(conf), "%s/c.conf", dir);
	assert_non_null(fp = fopen(conf, "w"));
	fprintf(fp, "[daemon]\ncontrol_socket = %s\n[chain c]\nendpoint = "
	    "a http://127.0.0.1:9 ws://127.0.0.1:9\n", path);
	fclose(fp);
	assert_int_equal(cli_reload(conf, NULL, 0), CLI_EXIT_NOT_RUNNING);
	/* One with errors is not sent. */
	assert_non_null(fp = fopen(conf, "a"));
	fprintf(fp, "bogus = 1\n");
	fclose(fp);
	assert_int_equal(cli_reload(conf, NULL, 0), CW_EXIT_CONFIG);
	unlink(conf);
	said_start();
	assert_int_equal(cli_reload(conf, NULL, 0), CW_EXIT_SYSTEM);
	assert_non_null(strstr(said(), "-s socket"));

	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_not_running),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
