/*
 * The client side of chainwatchd's control socket: one request, one
 * answer, both a single line of JSON.
 */
#ifndef CW_CLI_CTL_H
#define CW_CLI_CTL_H

#include <jansson.h>
#include <stddef.h>

#define CTL_TIMEOUT_MS	5000
#define CTL_ANSWER_MAX	(4 << 20)

/*
 * Send {"cmd": cmd} to the daemon at path and parse its answer into
 * *answer.  0 on success.  -1 with err set if there is no daemon there
 * (ENOENT, ECONNREFUSED: *down is set to 1) or it did not answer in
 * CTL_TIMEOUT_MS or answered nonsense (*down is 0).
 */
int	cli_ctl_request(const char *path, const char *cmd, json_t **answer,
	    int *down, char *err, size_t errlen);

#endif
