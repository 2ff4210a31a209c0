/*
 * A control-socket request: one JSON object {"cmd": "status" | "metrics" |
 * "reload"} on one line, nothing else in it.  Pure: bytes in, a command or
 * a reason out; sup_control.c does the socket and the answering.
 */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "sup_ctlreq.h"

static const struct {
	const char	*name;
	enum ctl_cmd	 cmd;
} ctl_cmds[] = {
	{ "status",	CTL_CMD_STATUS },
	{ "metrics",	CTL_CMD_METRICS },
	{ "reload",	CTL_CMD_RELOAD },
};

int
sup_ctlreq_parse(const char *line, size_t len, enum ctl_cmd *cmd, char *err,
    size_t errlen)
{
	json_error_t	 je;
	json_t		*req, *v;
	const char	*key, *name;
	int		 rc = -1;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	if ((req = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je)) ==
	    NULL) {
		snprintf(err, errlen, "bad JSON at byte %d: %s", je.position,
		    je.text);
		return -1;
	}
	if (!json_is_object(req)) {
		snprintf(err, errlen, "the request is not a JSON object");
		goto out;
	}
	json_object_foreach(req, key, v) {
		if (strcmp(key, "cmd") != 0) {
			snprintf(err, errlen, "unknown member \"%s\" in the "
			    "request (it has \"cmd\" only)", key);
			goto out;
		}
	}
	if ((name = json_string_value(json_object_get(req, "cmd"))) == NULL) {
		snprintf(err, errlen, "no \"cmd\" string in the request");
		goto out;
	}
	for (size_t i = 0; i < sizeof(ctl_cmds) / sizeof(ctl_cmds[0]); i++)
		if (strcmp(name, ctl_cmds[i].name) == 0) {
			*cmd = ctl_cmds[i].cmd;
			rc = 0;
			goto out;
		}
	snprintf(err, errlen, "unknown command \"%s\" (status, metrics or "
	    "reload)", name);
out:
	json_decref(req);
	return rc;
}
