/*
 * chainwatch reload: ask the running daemon, over its control socket, to
 * reread its configuration (as SIGHUP does), and print what it did, or
 * the errors that made it keep the configuration it runs.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "conf.h"
#include "util.h"
#include "view_ctl.h"

void
cli_reload_line(char *out, size_t outlen, uint64_t added, uint64_t changed,
    uint64_t removed, uint64_t kept)
{
	char	rm[32] = "";

	if (removed > 0)
		snprintf(rm, sizeof(rm), ", %" PRIu64 " removed", removed);
	snprintf(out, outlen, "reloaded: %" PRIu64 " endpoint%s added, %"
	    PRIu64 " changed%s, %" PRIu64 " kept", added, added == 1 ? "" : "s",
	    changed, rm, kept);
}

/* Every string of the array key, on stderr as prefix + string. */
static int
answer_lines(const json_t *answer, const char *key, const char *prefix)
{
	const json_t	*a = json_object_get(answer, key), *s;
	size_t		 i;

	if (a == NULL)
		return 0;
	if (!json_is_array(a))
		return -1;
	json_array_foreach(a, i, s) {
		if (!json_is_string(s))
			return -1;
		fprintf(stderr, "%s%s\n", prefix, json_string_value(s));
	}
	return 0;
}

/*
 * The socket named by the configuration.  A file with errors is not sent
 * to the daemon, which would refuse it with the same errors.
 */
static int
reload_socket(const char *conf_path, char *out, size_t outlen)
{
	if (access(conf_path, R_OK) == -1) {
		cli_err("%s: %s (give the control socket with -s socket)",
		    conf_path, strerror(errno));
		return CW_EXIT_SYSTEM;
	}
	if (cli_socket_path(conf_path, out, outlen, 0) == -1) {
		cli_err("not reloaded: %s has errors, which chainwatchd would "
		    "refuse too", conf_path);
		return CW_EXIT_CONFIG;
	}
	return CW_EXIT_OK;
}

int
cli_reload(const char *conf_path, const char *socket_path, int json)
{
	json_t		*answer;
	const json_t	*ok;
	const char	*e;
	char		 conf_sock[CONF_URL_MAX + 1], err[512], line[160];
	uint64_t	 added = 0, changed = 0, removed = 0, kept = 0;
	int		 down, rc;

	if (socket_path == NULL) {
		if ((rc = reload_socket(conf_path, conf_sock,
		    sizeof(conf_sock))) != CW_EXIT_OK)
			return rc;
		socket_path = conf_sock;
	}
	if (view_ctl_request(socket_path, "reload", &answer, &down, err,
	    sizeof(err)) == -1) {
		if (down) {
			cli_err("chainwatchd is not running (nothing "
			    "answers on %s)", socket_path);
			return CLI_EXIT_NOT_RUNNING;
		}
		cli_err("%s", err);
		return CW_EXIT_SYSTEM;
	}
	ok = json_object_get(answer, "ok");
	if (json_is_true(ok) &&
	    (view_ctl_count(answer, "added", &added) == -1 ||
	    view_ctl_count(answer, "changed", &changed) == -1 ||
	    view_ctl_count(answer, "removed", &removed) == -1 ||
	    view_ctl_count(answer, "kept", &kept) == -1))
		ok = NULL;
	if (!json_is_boolean(ok)) {
		cli_err("%s: chainwatchd gave an answer to reload that this "
		    "chainwatch does not understand", socket_path);
		json_decref(answer);
		return CW_EXIT_SYSTEM;
	}
	fflush(stdout);
	if (json) {
		json_dumpf(answer, stdout, JSON_INDENT(2));
		putchar('\n');
		rc = json_is_true(ok) ? CW_EXIT_OK :
		    json_object_get(answer, "errors") != NULL ?
		    CW_EXIT_CONFIG : CW_EXIT_SYSTEM;
	} else if (json_is_true(ok)) {
		cli_reload_line(line, sizeof(line), added, changed, removed,
		    kept);
		puts(line);
		fflush(stdout);
		(void)answer_lines(answer, "warnings", "chainwatch: warning: ");
		rc = CW_EXIT_OK;
	} else if (json_object_get(answer, "errors") != NULL) {
		/* The lines are "FILE:LINE: message", as chainwatchd -n. */
		if (answer_lines(answer, "errors", "") == -1)
			cli_err("%s: the daemon's list of errors is garbled",
			    socket_path);
		cli_err("not reloaded: chainwatchd keeps running its "
		    "configuration as it was");
		rc = CW_EXIT_CONFIG;
	} else {
		e = json_string_value(json_object_get(answer, "error"));
		cli_err("reload refused: %s", e != NULL ? e :
		    "(no reason given)");
		rc = CW_EXIT_SYSTEM;
	}
	json_decref(answer);
	return rc;
}
