/*
 * Part of libcwview.a (see view.h): the client side of chainwatchd's
 * control socket, one request, one answer, both a single line of JSON.
 */
#ifndef CW_VIEW_CTL_H
#define CW_VIEW_CTL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define VIEW_CTL_TIMEOUT_MS	5000
#define VIEW_CTL_ANSWER_MAX	(4 << 20)

/*
 * Send {"cmd": cmd} to the daemon at path and parse its answer into
 * *answer.  0 on success.  -1 with err set if there is no daemon there
 * (ENOENT, ECONNREFUSED: *down is set to 1) or it did not answer in
 * VIEW_CTL_TIMEOUT_MS or answered nonsense (*down is 0).
 */
int	view_ctl_request(const char *path, const char *cmd, json_t **answer,
	    int *down, char *err, size_t errlen);
/*
 * A count or gauge in an answer: key's value into *v when it is a whole
 * number, 0 or more; else -1 and *v untouched.
 */
int	view_ctl_count(const json_t *answer, const char *key, uint64_t *v);
/*
 * Whether chainwatchd answers on socket_path: 1, with its "status" answer
 * in *status for json_decref; 0 if nothing answers there (no socket, or
 * a stale one); -1 if that cannot be told (no permission, no answer in
 * time, a bad answer), after saying why through view_err.  *status is
 * NULL unless 1.
 */
int	view_daemon_state(const char *socket_path, json_t **status);

#endif
