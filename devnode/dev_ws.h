/*
 * WebSocket connections (RFC 6455 via wslay, server side) taken over from
 * libmicrohttpd after the upgrade: JSON-RPC over text frames,
 * subscriptions and their notifications, server pings, WebSocket faults.
 * Everything here runs on the main loop's thread, except dev_ws_adopt.
 */
#ifndef DEV_WS_H
#define DEV_WS_H

#include <ev.h>
#include <microhttpd.h>

#include "dev_rpc.h"

void	dev_ws_init(struct ev_loop *);
/* From a libmicrohttpd thread: hand an upgraded socket over. */
void	dev_ws_adopt(MHD_socket, struct MHD_UpgradeResponseHandle *,
	    const char *extra, size_t extra_len);
/* Main thread: take over adopted sockets, apply fault changes. */
void	dev_ws_poll(void);
/* Send a new head (or finalized head) to every subscriber of the kind. */
void	dev_ws_announce(enum dev_sub_kind, const char *header, size_t len);
int	dev_ws_subscribers(void);
unsigned dev_ws_connections(void);
void	dev_ws_shutdown(void);

#endif
