/*
 * A WebSocket client connection on the worker's libev loop: libcurl
 * connects (DNS, TCP, TLS, proxies) without blocking, we do the RFC 6455
 * handshake, and wslay does the framing.
 */
#ifndef CW_WRK_WS_H
#define CW_WRK_WS_H

#include <stddef.h>
#include <stdint.h>

struct ev_loop;
struct wrk_ws;

/* Close codes of RFC 6455 that the client reports or sends itself. */
#define WRK_WS_NORMAL		1000
#define WRK_WS_GOING_AWAY	1001
#define WRK_WS_NO_STATUS	1005
#define WRK_WS_ABNORMAL		1006	/* no close frame: dropped, refused */
#define WRK_WS_TOO_BIG		1009

struct wrk_ws_conf {
	const char	*url;			/* ws:// or wss:// */
	uint32_t	 connect_timeout_ms;	/* DNS, TCP and TLS */
	uint32_t	 handshake_timeout_ms;	/* from open to the 101 answer */
	size_t		 max_message;		/* larger ones close with 1009 */
	const char	*ca_file;		/* PEM CAs to trust; NULL: system */
};

/*
 * Callbacks, all from the loop.  closed comes exactly once, also when
 * the connection never opened; code is the peer's close code, the code we
 * sent when the peer never answered it (1009), or 1006.  Any callback may
 * call wrk_ws_free.
 */
struct wrk_ws_cbs {
	void	(*open)(void *arg);
	void	(*message)(void *arg, const char *data, size_t len);
	void	(*closed)(void *arg, unsigned code, const char *why);
};

/* NULL when the URL is not a ws:// or wss:// URL. */
struct wrk_ws *wrk_ws_open(struct ev_loop *, const struct wrk_ws_conf *,
	    const struct wrk_ws_cbs *, void *arg);
/* Queues a text message; -1 unless the connection is open. */
int	 wrk_ws_send(struct wrk_ws *, const char *, size_t);
/*
 * Reads what waits in the socket now, as if the loop had seen it: a
 * timer that judges the connection calls it first (after SIGSTOP and
 * SIGCONT, or in a turn whose timers run before its I/O, an answer can
 * be there unread).  It may close the connection.
 */
void	 wrk_ws_read_waiting(struct wrk_ws *);
/* Starts the closing handshake; closed follows (at most 2 s later). */
void	 wrk_ws_close(struct wrk_ws *, unsigned code, const char *reason);
/* Drops the connection (a courtesy close frame if open), no callbacks. */
void	 wrk_ws_free(struct wrk_ws *);
int	 wrk_ws_is_open(const struct wrk_ws *);


#endif
