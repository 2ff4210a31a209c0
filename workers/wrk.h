/*
 * chainwatch-worker: its configuration, as the supervisor sent it, and
 * what its files provide to each other.
 */
#ifndef CW_WRK_H
#define CW_WRK_H

#include <stdint.h>

#include "conf.h"
#include "msg.h"
#include "proto.h"

struct ev_loop;

/* The endpoint configuration, and its URLs as logs may show them. */
struct wrk_conf {
	struct proto_config	c;
	char			rpc_shown[CONF_URL_MAX + 16];
	char			ws_shown[CONF_URL_MAX + 16];
};

/* wrk_main.c */
extern uint32_t	wrk_gen;
void	wrk_send(struct msgbuf *);
/*
 * A wakeup that comes anyway (the probe) takes the heartbeat along when
 * it would be due before the next such wakeup, next_ms from now; the
 * heartbeat's own timer then waits a quarter of an interval longer, so
 * that an idle worker wakes once for both.
 */
void	wrk_heartbeat_ride(uint64_t next_ms);

/* wrk_ep.c */
void	wrk_ep_start(struct ev_loop *, const struct wrk_conf *);
void	wrk_ep_stop(void);
/* A request from the supervisor; -1 if m is not a request. */
int	wrk_ep_request(const struct msg *);

#endif
