/*
 * What the worker's integration test programs (wrk_http_client,
 * wrk_ws_client, wrk_sub_client) share: one libev loop with curl set up,
 * PASS/FAIL lines, and the exit status they add up to.
 */
#ifndef WRK_CLIENT_H
#define WRK_CLIENT_H

#include <ev.h>

extern struct ev_loop	*loop;

/* Logging to stderr as prog (tagged tag unless NULL), curl, the loop. */
void	client_init(const char *prog, const char *tag);
/* Tears down what client_init set up; returns the exit status, 0 or 1. */
int	client_finish(void);

/* Prints a PASS or FAIL line; any FAIL makes the exit status 1. */
void	check(int ok, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* A timer callback that sets the int w->data points to, and stops ev_run. */
void	client_stop_cb(struct ev_loop *, ev_timer *, int);

/* A port of 127.0.0.1 where nothing listens (1 if none was found). */
int	client_free_port(void);

#endif
