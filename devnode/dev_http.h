/*
 * The HTTP side of the devnode: one listening socket shared by JSON-RPC
 * POSTs and WebSocket upgrades (accepted here, served by libmicrohttpd),
 * a separate control listener, and the HTTP faults.
 */
#ifndef DEV_HTTP_H
#define DEV_HTTP_H

#include <ev.h>

#include "dev.h"

int	dev_http_init(struct ev_loop *);	/* -1: could not listen */
/* 0 if spec is a listening address we can use ("ADDR:PORT"). */
int	dev_http_check_listen(const char *spec);
int	dev_http_port(void);
int	dev_http_control_port(void);
/* Main thread: faults changed or a held request may be due. */
void	dev_http_poll(void);
/* Stop: quiesce (no new work, held requests let go), then shut down. */
void	dev_http_quiesce(void);
void	dev_http_shutdown(void);
/* Make the socket's close a TCP reset (the reset fault). */
void	dev_sock_reset(int);

/*
 * The streaming body of the oversized fault: {"jsonrpc":"2.0","id":ID,
 * "result":[UNIT,UNIT,...]} of at least `bytes` bytes, generated as it
 * is read and never held in memory.
 */
struct dev_oversized;
struct dev_oversized *dev_oversized_new(const char *id_json,
	    const char *unit, size_t unit_len, uint64_t bytes);
size_t	dev_oversized_read(struct dev_oversized *, char *, size_t);
int	dev_oversized_done(const struct dev_oversized *);
uint64_t dev_oversized_total(const struct dev_oversized *);
void	dev_oversized_free(struct dev_oversized *);
/* The id of a single JSON-RPC call as JSON text ("null" otherwise). */
void	dev_request_id(const char *body, size_t len, char *out, size_t outlen);
/* A broken copy of an answer for the malformed fault. */
char	*dev_malform(const char *body, size_t len, size_t *outlen);

#endif
