/*
 * Whether chainwatchd runs, as the commands need to know: where its
 * control socket is, and whether anything answers there.  The store can
 * be read either way; this only tells live state from a stopped daemon's.
 */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_ctl.h"
#include "conf.h"

int
cli_socket_path(const char *conf_path, char *out, size_t outlen, int quiet)
{
	struct conf	*conf;

	conf = conf_load(conf_path);
	if (conf->n_errors > 0) {
		if (!quiet) {
			fflush(stdout);
			for (size_t i = 0; i < conf->n_errors; i++)
				fprintf(stderr, "%s\n", conf->errors[i]);
		}
		conf_free(conf);
		return -1;
	}
	snprintf(out, outlen, "%s", conf->daemon.control_socket);
	conf_free(conf);
	return 0;
}

int
cli_daemon_state(const char *socket_path, json_t **status)
{
	json_t	*answer;
	char	 err[512];
	int	 down;

	*status = NULL;
	if (cli_ctl_request(socket_path, "status", &answer, &down, err,
	    sizeof(err)) == -1) {
		if (down)
			return 0;
		cli_err("%s", err);
		return -1;
	}
	if (!json_is_true(json_object_get(answer, "ok"))) {
		const char *e = json_string_value(json_object_get(answer,
		    "error"));

		cli_err("%s: chainwatchd refused the status request: %s",
		    socket_path, e != NULL ? e : "(no reason given)");
		json_decref(answer);
		return -1;
	}
	*status = answer;
	return 1;
}
