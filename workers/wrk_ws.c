/*
 * WebSocket client: libcurl (connect-only, through a multi handle so that
 * DNS, TCP and TLS never block the loop) gives us a connected socket, we
 * speak the RFC 6455 opening handshake over curl_easy_send/recv, and
 * wslay frames messages, answers pings and runs the closing handshake.
 */
#include "config.h"

#include <sys/random.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ev.h>
#include <curl/curl.h>
#include <wslay/wslay.h>

#include "log.h"
#include "util.h"
#include "wrk_http.h"
#include "wskey.h"
#include "wrk_ws.h"

#define WS_HS_MAX	16384		/* bytes of handshake answer */
#define WS_CLOSE_WAIT	2.0		/* s to wait for the peer's close */
/* Bytes read in one turn of the loop, so a flood cannot starve HTTP. */
#define WS_READ_BUDGET	(1024 * 1024)
#define WS_DEFAULT_MAX	(16 * 1024 * 1024)

enum ws_state {
	WS_CONNECTING,		/* curl: DNS, TCP, TLS, proxy */
	WS_HANDSHAKE,		/* our GET out, the 101 in */
	WS_OPEN,
	WS_CLOSING,		/* our close frame queued, waiting for theirs */
	WS_CLOSED,		/* closed reported; only wrk_ws_free is left */
};

struct wrk_ws {
	struct ev_loop		*loop;
	struct wrk_multi	*m;
	CURL			*easy;
	int			 added;
	ev_io			 io;
	ev_timer		 timer;		/* handshake deadline, close wait */
	ev_timer		 kick;		/* next turn: read on, or report */
	enum ws_state		 state;
	wslay_event_context_ptr	 ctx;
	struct wrk_ws_cbs	 cbs;
	void			*arg;
	char			*req;		/* the GET request */
	size_t			 req_len;
	size_t			 req_off;
	char			*in;		/* the answer, then the frames after it */
	size_t			 in_len;
	size_t			 in_off;
	char			 accept[WS_ACCEPT_LEN + 1];
	size_t			 max_message;
	uint32_t		 hs_timeout_ms;
	size_t			 budget;
	int			 more;		/* reading stopped for the budget */
	int			 eof;
	CURLcode		 io_err;
	int			 dead;
	int			 in_wslay;
	int			 pending;	/* a closed report waits for kick */
	unsigned		 pending_code;
	char			 reason[128];	/* the peer's close reason */
	char			 errbuf[CURL_ERROR_SIZE];
	char			 why[256];
};

/* ------------------------------------------------------------------ */
/* handshake helpers                                                   */


static int
random_fill(void *buf, size_t len)
{
	uint8_t	*p = buf;
	ssize_t	 n;

	while (len > 0) {
		if ((n = getrandom(p, len, 0)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Does the comma-separated header value hold token (any case)? */
static int
has_token(const char *v, size_t len, const char *token)
{
	size_t	tl = strlen(token), i = 0, s, e;

	while (i < len) {
		while (i < len && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		s = i;
		while (i < len && v[i] != ',')
			i++;
		e = i;
		while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e - s == tl && strncasecmp(v + s, token, tl) == 0)
			return 1;
	}
	return 0;
}

/* NULL when the answer upgrades the connection, else why not. */
static const char *
ws_check_answer(struct wrk_ws *ws, const char *p, size_t len)
{
	const char	*end = p + len, *eol, *colon, *v;
	size_t		 vl;
	int		 status, upgrade = 0, connection = 0, accept = 0;

	if (len < 12 || strncmp(p, "HTTP/1.", 7) != 0 ||
	    sscanf(p + 9, "%3d", &status) != 1)
		return "handshake answer is not HTTP";
	if (status != 101) {
		eol = memchr(p, '\r', len);
		snprintf(ws->why, sizeof(ws->why), "handshake refused: %.*s",
		    (int)(eol != NULL && eol - p < 80 ? eol - p : 80), p);
		return ws->why;
	}
	if ((eol = memchr(p, '\n', len)) == NULL)
		return "handshake answer is not HTTP";
	for (p = eol + 1; p < end; p = eol + 2) {
		if ((eol = memmem(p, (size_t)(end - p), "\r\n", 2)) == NULL ||
		    eol == p)
			break;
		if ((colon = memchr(p, ':', (size_t)(eol - p))) == NULL)
			return "handshake answer has a bad header line";
		for (v = colon + 1; v < eol && (*v == ' ' || *v == '\t'); v++)
			;
		vl = (size_t)(eol - v);
		while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
			vl--;
#define IS(name) ((size_t)(colon - p) == strlen(name) && \
    strncasecmp(p, name, strlen(name)) == 0)
		if (IS("Upgrade"))
			upgrade = has_token(v, vl, "websocket");
		else if (IS("Connection"))
			connection = has_token(v, vl, "upgrade");
		else if (IS("Sec-WebSocket-Accept"))
			accept = vl == WS_ACCEPT_LEN &&
			    memcmp(v, ws->accept, vl) == 0;
		else if ((IS("Sec-WebSocket-Extensions") ||
		    IS("Sec-WebSocket-Protocol")) && vl > 0)
			return "handshake answer names an extension or "
			    "subprotocol we did not ask for";
#undef IS
	}
	if (!upgrade || !connection)
		return "handshake answer does not upgrade to websocket";
	if (!accept)
		return "handshake answer has a wrong Sec-WebSocket-Accept";
	return NULL;
}

/*
 * From the ws:// URL: the http(s):// URL curl connects to, and our GET
 * request with a fresh key.  Credentials in the URL become Basic auth.
 */
static int
ws_prepare(struct wrk_ws *ws, const char *url, char **curl_urlp)
{
	CURLU		*u;
	char		*scheme = NULL, *host = NULL, *port = NULL, *path = NULL;
	char		*query = NULL, *user = NULL, *pass = NULL;
	char		 key[25], *auth = NULL, *cred = NULL;
	uint8_t		 nonce[16];
	size_t		 n;
	int		 tls, rv = -1;

	if ((u = curl_url()) == NULL)
		return -1;
	if (curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) !=
	    CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK)
		goto out;
	if (strcasecmp(scheme, "wss") == 0)
		tls = 1;
	else if (strcasecmp(scheme, "ws") == 0)
		tls = 0;
	else
		goto out;
	curl_url_get(u, CURLUPART_PORT, &port, 0);
	curl_url_get(u, CURLUPART_PATH, &path, 0);
	curl_url_get(u, CURLUPART_QUERY, &query, 0);
	curl_url_get(u, CURLUPART_USER, &user, CURLU_URLDECODE);
	curl_url_get(u, CURLUPART_PASSWORD, &pass, CURLU_URLDECODE);
	if (random_fill(nonce, sizeof(nonce)) == -1)
		goto out;
	base64_encode(nonce, sizeof(nonce), key);
	ws_accept_key(key, ws->accept);

	if (user != NULL) {
		n = strlen(user) + 1 + (pass != NULL ? strlen(pass) : 0);
		cred = xmalloc(n + 1);
		snprintf(cred, n + 1, "%s:%s", user, pass != NULL ? pass : "");
		auth = xmalloc(4 * ((n + 2) / 3) + 1);
		base64_encode((const uint8_t *)cred, n, auth);
	}
	n = (size_t)snprintf(NULL, 0, "%s://%s%s%s/", tls ? "https" : "http",
	    host, port != NULL ? ":" : "", port != NULL ? port : "") + 1;
	*curl_urlp = xmalloc(n);
	snprintf(*curl_urlp, n, "%s://%s%s%s/", tls ? "https" : "http", host,
	    port != NULL ? ":" : "", port != NULL ? port : "");

#define REQ_FMT "GET %s%s%s HTTP/1.1\r\n" \
	"Host: %s%s%s\r\n" \
	"Upgrade: websocket\r\n" \
	"Connection: Upgrade\r\n" \
	"Sec-WebSocket-Key: %s\r\n" \
	"Sec-WebSocket-Version: 13\r\n" \
	"User-Agent: " PACKAGE_NAME "/" PACKAGE_VERSION "\r\n" \
	"%s%s%s" \
	"\r\n"
#define REQ_ARGS path != NULL ? path : "/", query != NULL ? "?" : "", \
	query != NULL ? query : "", host, port != NULL ? ":" : "", \
	port != NULL ? port : "", key, auth != NULL ? "Authorization: Basic " \
	: "", auth != NULL ? auth : "", auth != NULL ? "\r\n" : ""
	n = (size_t)snprintf(NULL, 0, REQ_FMT, REQ_ARGS) + 1;
	ws->req = xmalloc(n);
	ws->req_len = (size_t)snprintf(ws->req, n, REQ_FMT, REQ_ARGS);
#undef REQ_FMT
#undef REQ_ARGS
	rv = 0;
out:
	if (cred != NULL)
		explicit_bzero(cred, strlen(cred));
	free(cred);
	free(auth);
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_free(query);
	curl_free(user);
	curl_free(pass);
	curl_url_cleanup(u);
	return rv;
}

/* ------------------------------------------------------------------ */
/* the connection                                                      */

/* Reports closed once: the connection is gone from here on. */
static void
ws_finish(struct wrk_ws *ws, unsigned code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
ws_finish(struct wrk_ws *ws, unsigned code, const char *fmt, ...)
{
	char	why[sizeof(ws->why)];
	va_list	ap;

	if (ws->state == WS_CLOSED)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	memcpy(ws->why, why, sizeof(why));
	ws->state = WS_CLOSED;
	ev_io_stop(ws->loop, &ws->io);
	ev_timer_stop(ws->loop, &ws->timer);
	ev_timer_stop(ws->loop, &ws->kick);
	/* Removing a connect-only handle closes its connection. */
	if (ws->added) {
		curl_multi_remove_handle(wrk_multi_handle(ws->m), ws->easy);
		ws->added = 0;
	}
	if (!ws->dead && ws->cbs.closed != NULL)
		ws->cbs.closed(ws->arg, code, ws->why);
}

static void
ws_set_events(struct wrk_ws *ws, int events)
{
	if (ws->io.events == events && ev_is_active(&ws->io))
		return;
	ev_io_stop(ws->loop, &ws->io);
	ev_io_set(&ws->io, ws->io.fd, events);
	if (events != 0)
		ev_io_start(ws->loop, &ws->io);
}

/* Both closing frames are through (or read is off): report the codes. */
static void
ws_done(struct wrk_ws *ws)
{
	unsigned	code;

	if (wslay_event_get_close_received(ws->ctx)) {
		code = wslay_event_get_status_code_received(ws->ctx);
		if (ws->reason[0] != '\0')
			ws_finish(ws, code, "closed by the server: %s",
			    ws->reason);
		else
			ws_finish(ws, code, "closed by the server");
	} else if (wslay_event_get_close_sent(ws->ctx)) {
		code = wslay_event_get_status_code_sent(ws->ctx);
		if (code == WRK_WS_TOO_BIG)
			ws_finish(ws, code, "message larger than %zu bytes",
			    ws->max_message);
		else
			ws_finish(ws, code, "closed by us (%u)", code);
	} else
		ws_finish(ws, WRK_WS_ABNORMAL, "connection ended");
}

static void
ws_update(struct wrk_ws *ws)
{
	int	rd, wr, ev = 0;

	rd = wslay_event_want_read(ws->ctx);
	wr = wslay_event_want_write(ws->ctx);
	if (!rd && !wr) {
		ws_done(ws);
		return;
	}
	if (rd)
		ev |= EV_READ;
	if (wr)
		ev |= EV_WRITE;
	ws_set_events(ws, ev);
	if (ws->more && rd && !ev_is_active(&ws->kick)) {
		ev_timer_set(&ws->kick, 0.0, 0.0);
		ev_timer_start(ws->loop, &ws->kick);
	}
}

static void
ws_fail_io(struct wrk_ws *ws)
{
	if (ws->eof) {
		if (wslay_event_get_close_received(ws->ctx))
			ws_done(ws);
		else
			ws_finish(ws, WRK_WS_ABNORMAL,
			    "connection dropped by the server");
	} else if (ws->io_err != CURLE_OK)
		ws_finish(ws, WRK_WS_ABNORMAL, "connection failed: %s",
		    ws->errbuf[0] != '\0' ? ws->errbuf :
		    curl_easy_strerror(ws->io_err));
	else
		ws_finish(ws, WRK_WS_ABNORMAL, "WebSocket failure");
}

static void
ws_pump(struct wrk_ws *ws, int do_read)
{
	int	r;

	if (do_read && wslay_event_want_read(ws->ctx)) {
		ws->budget = 0;
		ws->more = 0;
		ws->in_wslay = 1;
		r = wslay_event_recv(ws->ctx);
		ws->in_wslay = 0;
		if (ws->dead || ws->state == WS_CLOSED)
			return;
		if (r != 0) {
			ws_fail_io(ws);
			return;
		}
	}
	if (wslay_event_want_write(ws->ctx)) {
		ws->in_wslay = 1;
		r = wslay_event_send(ws->ctx);
		ws->in_wslay = 0;
		if (ws->dead || ws->state == WS_CLOSED)
			return;
		if (r != 0) {
			ws_fail_io(ws);
			return;
		}
	}
	ws_update(ws);
}

static ssize_t
ws_recv_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags,
    void *user)
{
	struct wrk_ws	*ws = user;
	CURLcode	 rc;
	size_t		 n = 0;

	if (ws->dead) {
		wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
		return -1;
	}
	/* Frames that came in with the handshake answer go first. */
	if (ws->in != NULL && ws->in_off < ws->in_len) {
		n = ws->in_len - ws->in_off;
		if (n > len)
			n = len;
		memcpy(buf, ws->in + ws->in_off, n);
		ws->in_off += n;
		if (ws->in_off == ws->in_len) {
			free(ws->in);
			ws->in = NULL;
			ws->in_len = ws->in_off = 0;
		}
		return (ssize_t)n;
	}
	if (ws->budget >= WS_READ_BUDGET) {
		ws->more = 1;
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	rc = curl_easy_recv(ws->easy, buf, len, &n);
	if (rc == CURLE_AGAIN) {
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	if (rc != CURLE_OK || n == 0) {
		if (rc == CURLE_OK)
			ws->eof = 1;
		else
			ws->io_err = rc;
		wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
		return -1;
	}
	ws->budget += n;
	return (ssize_t)n;
}

static ssize_t
ws_send_cb(wslay_event_context_ptr ctx, const uint8_t *data, size_t len,
    int flags, void *user)
{
	struct wrk_ws	*ws = user;
	CURLcode	 rc;
	size_t		 n = 0;

	rc = curl_easy_send(ws->easy, data, len, &n);
	if (rc == CURLE_AGAIN || (rc == CURLE_OK && n == 0 && len > 0)) {
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	if (rc != CURLE_OK) {
		ws->io_err = rc;
		wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
		return -1;
	}
	return (ssize_t)n;
}

static int
ws_genmask_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len,
    void *user)
{
	if (random_fill(buf, len) == -1) {
		wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
		return -1;
	}
	return 0;
}

static void
ws_msg_cb(wslay_event_context_ptr ctx,
    const struct wslay_event_on_msg_recv_arg *a, void *user)
{
	struct wrk_ws	*ws = user;
	size_t		 i, n;

	if (a->opcode == WSLAY_TEXT_FRAME || a->opcode == WSLAY_BINARY_FRAME) {
		if (!ws->dead && ws->cbs.message != NULL)
			ws->cbs.message(ws->arg, a->msg != NULL ?
			    (const char *)a->msg : "", a->msg_length);
	} else if (a->opcode == WSLAY_CONNECTION_CLOSE && a->msg_length > 2) {
		/* The reason is untrusted text headed for the log. */
		n = a->msg_length - 2;
		if (n > sizeof(ws->reason) - 1)
			n = sizeof(ws->reason) - 1;
		for (i = 0; i < n; i++) {
			uint8_t c = a->msg[2 + i];
			ws->reason[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
		}
		ws->reason[n] = '\0';
	}
}

static void
ws_upgrade(struct wrk_ws *ws, size_t hdr_len)
{
	struct wslay_event_callbacks	 cb = {
		.recv_callback = ws_recv_cb,
		.send_callback = ws_send_cb,
		.genmask_callback = ws_genmask_cb,
		.on_msg_recv_callback = ws_msg_cb,
	};
	const char			*err;

	if ((err = ws_check_answer(ws, ws->in, hdr_len)) != NULL) {
		ws_finish(ws, WRK_WS_ABNORMAL, "%s", err);
		return;
	}
	if (wslay_event_context_client_init(&ws->ctx, &cb, ws) != 0) {
		ws_finish(ws, WRK_WS_ABNORMAL, "out of memory for wslay");
		return;
	}
	wslay_event_config_set_max_recv_msg_length(ws->ctx, ws->max_message);
	ws->in_off = hdr_len;
	if (ws->in_off == ws->in_len) {
		free(ws->in);
		ws->in = NULL;
		ws->in_len = ws->in_off = 0;
	}
	ws->state = WS_OPEN;
	ev_timer_stop(ws->loop, &ws->timer);
	ws_set_events(ws, EV_READ);
	if (ws->cbs.open != NULL)
		ws->cbs.open(ws->arg);
	if (ws->dead || ws->state == WS_CLOSED)
		return;
	ws_pump(ws, 1);
}

static void
ws_hs_send(struct wrk_ws *ws)
{
	CURLcode	rc;
	size_t		n = 0;

	rc = curl_easy_send(ws->easy, ws->req + ws->req_off,
	    ws->req_len - ws->req_off, &n);
	if (rc == CURLE_AGAIN)
		return;
	if (rc != CURLE_OK) {
		ws_finish(ws, WRK_WS_ABNORMAL, "handshake failed: %s",
		    curl_easy_strerror(rc));
		return;
	}
	ws->req_off += n;
	if (ws->req_off == ws->req_len)
		ws_set_events(ws, EV_READ);
}

static void
ws_hs_recv(struct wrk_ws *ws)
{
	CURLcode	 rc;
	size_t		 n;
	char		*end;

	if (ws->in == NULL)
		ws->in = xmalloc(WS_HS_MAX + 1);
	for (;;) {
		if (ws->in_len == WS_HS_MAX) {
			ws_finish(ws, WRK_WS_ABNORMAL, "handshake answer "
			    "longer than %d bytes", WS_HS_MAX);
			return;
		}
		n = 0;
		rc = curl_easy_recv(ws->easy, ws->in + ws->in_len,
		    WS_HS_MAX - ws->in_len, &n);
		if (rc == CURLE_AGAIN)
			return;
		if (rc != CURLE_OK) {
			ws_finish(ws, WRK_WS_ABNORMAL, "handshake failed: %s",
			    curl_easy_strerror(rc));
			return;
		}
		if (n == 0) {
			ws_finish(ws, WRK_WS_ABNORMAL, "connection closed "
			    "during the handshake");
			return;
		}
		ws->in_len += n;
		ws->in[ws->in_len] = '\0';
		if ((end = memmem(ws->in, ws->in_len, "\r\n\r\n", 4)) != NULL) {
			ws_upgrade(ws, (size_t)(end + 4 - ws->in));
			return;
		}
	}
}

static void
ws_io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct wrk_ws		*ws = w->data;
	struct wrk_multi	*m = ws->m;

	wrk_multi_enter(m);
	if (ws->state == WS_HANDSHAKE) {
		if ((revents & EV_WRITE) && ws->req_off < ws->req_len)
			ws_hs_send(ws);
		if (ws->state == WS_HANDSHAKE && (revents & EV_READ))
			ws_hs_recv(ws);
	} else if (ws->state == WS_OPEN || ws->state == WS_CLOSING)
		ws_pump(ws, revents & EV_READ);
	wrk_multi_leave(m);
}

/*
 * What waits in the socket is read now, before a timeout is judged: a
 * loop turn may run a timer that came due without the I/O that came with
 * it (after SIGSTOP and SIGCONT epoll_wait fails with EINTR and the turn
 * runs its timers alone; libev runs a turn's timers before its I/O).
 */
void
wrk_ws_read_waiting(struct wrk_ws *ws)
{
	struct wrk_multi	*m = ws->m;

	if (ws->dead)
		return;
	wrk_multi_enter(m);
	if (ws->state == WS_HANDSHAKE)
		ws_hs_recv(ws);
	else if (ws->state == WS_OPEN || ws->state == WS_CLOSING)
		ws_pump(ws, 1);
	wrk_multi_leave(m);
}

static void
ws_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct wrk_ws		*ws = w->data;
	struct wrk_multi	*m = ws->m;

	wrk_multi_enter(m);
	wrk_ws_read_waiting(ws);
	/* Not if what it read closed it. */
	if (!ws->dead && (ws->state == WS_CONNECTING ||
	    ws->state == WS_HANDSHAKE))
		ws_finish(ws, WRK_WS_ABNORMAL, "no WebSocket handshake within "
		    "%u ms", (unsigned)ws->hs_timeout_ms);
	else if (!ws->dead && ws->state == WS_CLOSING)
		ws_finish(ws, WRK_WS_ABNORMAL, "no close answer within %.0f s",
		    WS_CLOSE_WAIT);
	wrk_multi_leave(m);
}

static void
ws_kick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct wrk_ws		*ws = w->data;
	struct wrk_multi	*m = ws->m;

	wrk_multi_enter(m);
	if (ws->pending)
		ws_finish(ws, ws->pending_code, "closed before the handshake "
		    "completed");
	else if (ws->state == WS_OPEN || ws->state == WS_CLOSING)
		ws_pump(ws, 1);
	wrk_multi_leave(m);
}

/* The glue's done callback: curl has connected, or has given up. */
static void
ws_connected(void *owner, CURL *easy, CURLcode code)
{
	struct wrk_ws	*ws = owner;
	curl_socket_t	 fd = CURL_SOCKET_BAD;

	if (ws->state != WS_CONNECTING)
		return;
	if (code != CURLE_OK) {
		ws_finish(ws, WRK_WS_ABNORMAL, "connect failed: %s",
		    ws->errbuf[0] != '\0' ? ws->errbuf :
		    curl_easy_strerror(code));
		return;
	}
	if (curl_easy_getinfo(easy, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK ||
	    fd == CURL_SOCKET_BAD) {
		ws_finish(ws, WRK_WS_ABNORMAL, "no socket after connect");
		return;
	}
	ws->state = WS_HANDSHAKE;
	ev_io_set(&ws->io, fd, EV_READ | EV_WRITE);
	ev_io_start(ws->loop, &ws->io);
}

static void
ws_destroy(void *owner)
{
	struct wrk_ws	*ws = owner;

	ev_io_stop(ws->loop, &ws->io);
	ev_timer_stop(ws->loop, &ws->timer);
	ev_timer_stop(ws->loop, &ws->kick);
	if (ws->ctx != NULL)
		wslay_event_context_free(ws->ctx);
	if (ws->added)
		curl_multi_remove_handle(wrk_multi_handle(ws->m), ws->easy);
	if (ws->easy != NULL)
		curl_easy_cleanup(ws->easy);
	free(ws->req);
	free(ws->in);
	free(ws);
}

struct wrk_ws *
wrk_ws_open(struct ev_loop *loop, const struct wrk_ws_conf *conf,
    const struct wrk_ws_cbs *cbs, void *arg)
{
	struct wrk_ws	*ws;
	char		*curl_url = NULL;
	CURL		*e;

	ws = xcalloc(1, sizeof(*ws));
	ws->loop = loop;
	ws->cbs = *cbs;
	ws->arg = arg;
	ws->max_message = conf->max_message > 0 ? conf->max_message :
	    WS_DEFAULT_MAX;
	ws->hs_timeout_ms = conf->handshake_timeout_ms > 0 ?
	    conf->handshake_timeout_ms : 10000;
	ev_init(&ws->io, ws_io_cb);
	ws->io.data = ws;
	ev_init(&ws->timer, ws_timer_cb);
	ws->timer.data = ws;
	ev_init(&ws->kick, ws_kick_cb);
	ws->kick.data = ws;
	if (ws_prepare(ws, conf->url, &curl_url) == -1 ||
	    (ws->easy = e = curl_easy_init()) == NULL) {
		free(curl_url);
		free(ws->req);
		free(ws);
		return NULL;
	}
	curl_easy_setopt(e, CURLOPT_URL, curl_url);
	free(curl_url);
	curl_easy_setopt(e, CURLOPT_CONNECT_ONLY, 1L);
	/* ALPN must not pick h2: the upgrade is an HTTP/1.1 request. */
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	/* Through an HTTP proxy, the connection must be a CONNECT tunnel. */
	curl_easy_setopt(e, CURLOPT_HTTPPROXYTUNNEL, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
	    (long)(conf->connect_timeout_ms > 0 ? conf->connect_timeout_ms :
	    ws->hs_timeout_ms));
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, ws->errbuf);
	curl_easy_setopt(e, CURLOPT_PRIVATE, ws);
	/* curl copies the string: conf may go away after this call. */
	if (conf->ca_file != NULL)
		curl_easy_setopt(e, CURLOPT_CAINFO, conf->ca_file);

	if ((ws->m = wrk_multi_new(loop, ws_connected, ws_destroy, ws)) ==
	    NULL) {
		curl_easy_cleanup(e);
		free(ws->req);
		free(ws);
		return NULL;
	}
	ws->state = WS_CONNECTING;
	/* From here on, every failure is reported through closed. */
	if (curl_multi_add_handle(wrk_multi_handle(ws->m), e) == CURLM_OK)
		ws->added = 1;
	else {
		ws->pending = 1;
		ws->pending_code = WRK_WS_ABNORMAL;
		ev_timer_set(&ws->kick, 0.0, 0.0);
		ev_timer_start(loop, &ws->kick);
	}
	ev_timer_set(&ws->timer, (double)ws->hs_timeout_ms / 1000.0, 0.0);
	ev_timer_start(loop, &ws->timer);
	return ws;
}

int
wrk_ws_send(struct wrk_ws *ws, const char *data, size_t len)
{
	struct wslay_event_msg	msg = {
		.opcode = WSLAY_TEXT_FRAME,
		.msg = (const uint8_t *)data,
		.msg_length = len,
	};

	if (ws->dead || ws->state != WS_OPEN)
		return -1;
	if (wslay_event_queue_msg(ws->ctx, &msg) != 0)
		return -1;
	/* Sent when the socket says it is writable, next turn at the latest. */
	ws_set_events(ws, (ws->io.events & EV_READ) | EV_WRITE);
	return 0;
}

void
wrk_ws_close(struct wrk_ws *ws, unsigned code, const char *reason)
{
	size_t	len = reason != NULL ? strlen(reason) : 0;

	if (ws->dead)
		return;
	switch (ws->state) {
	case WS_OPEN:
		if (len > 122)
			len = 122;
		wslay_event_queue_close(ws->ctx, (uint16_t)code,
		    (const uint8_t *)reason, len);
		ws->state = WS_CLOSING;
		ev_timer_stop(ws->loop, &ws->timer);
		ev_timer_set(&ws->timer, WS_CLOSE_WAIT, 0.0);
		ev_timer_start(ws->loop, &ws->timer);
		ws_set_events(ws, (ws->io.events & EV_READ) | EV_WRITE);
		break;
	case WS_CONNECTING:
	case WS_HANDSHAKE:
		/* Report from the loop, never from inside this call. */
		ws->pending = 1;
		ws->pending_code = WRK_WS_ABNORMAL;
		ev_timer_set(&ws->kick, 0.0, 0.0);
		ev_timer_start(ws->loop, &ws->kick);
		break;
	default:
		break;
	}
}

void
wrk_ws_free(struct wrk_ws *ws)
{
	if (ws == NULL || ws->dead)
		return;
	/* A courtesy close frame, if it can go out without waiting. */
	if (ws->state == WS_OPEN && !ws->in_wslay &&
	    wslay_event_queue_close(ws->ctx, WRK_WS_GOING_AWAY, NULL, 0) == 0)
		wslay_event_send(ws->ctx);
	ws->dead = 1;
	ev_io_stop(ws->loop, &ws->io);
	ev_timer_stop(ws->loop, &ws->timer);
	ev_timer_stop(ws->loop, &ws->kick);
	wrk_multi_release(ws->m);
}

int
wrk_ws_is_open(const struct wrk_ws *ws)
{
	return ws->state == WS_OPEN;
}
