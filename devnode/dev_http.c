/*
 * HTTP for the devnode.  The main port is accepted here and each socket
 * handed to libmicrohttpd (MHD_add_connection): owning the listening
 * socket is what lets the refuse fault close it, so that connections are
 * refused rather than left hanging, and reopen it on the same port.
 * Requests that a fault delays (slow) or swallows (blackhole) are
 * suspended, never slept on, so one held request costs no thread; the
 * main loop resumes them when they are due or the fault is lifted.
 * WebSocket upgrades are answered here and the socket passed to dev_ws.
 * The control listener is a second, fault-free libmicrohttpd daemon.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>
#include <microhttpd.h>

#include "http_log.h"
#include "listen_addr.h"
#include "log.h"
#include "util.h"

#include "dev_http.h"
#include "dev_json.h"
#include "dev_rpc.h"
#include "wskey.h"
#include "dev_ws.h"

#define ACCEPT_BURST		64
#define CONNECTION_TIMEOUT	600	/* s of idle keep-alive */
#define RELISTEN_RETRY		0.2	/* s between tries to reopen */
#define OVERSIZED_BLOCK		65536

enum req_kind {
	REQ_RPC,
	REQ_CONTROL,
	REQ_UPGRADE,
	REQ_HEALTH,
	REQ_OTHER,
};

struct http_req {
	enum req_kind		 kind;
	struct buf		 body;
	int			 too_big;
	int			 slowed;	/* the slow delay is behind us */
	/* While suspended, on the held list (under held_lock). */
	struct MHD_Connection	*conn;
	enum dev_transport	 hold_tr;
	uint64_t		 due;		/* 0: until blackhole lifts */
	struct http_req		*next;
};

static struct MHD_Daemon	*mhd, *mhd_ctl;
static struct ev_loop		*loop;
static ev_io			 accept_w;
static ev_timer			 held_timer, relisten_timer;
static int			 listen_fd = -1;
static struct sockaddr_storage	 listen_ss;
static socklen_t		 listen_sslen;
static int			 main_port, ctl_port;
static char			 ctl_marker;	/* cls of the control daemon */

static pthread_mutex_t		 held_lock = PTHREAD_MUTEX_INITIALIZER;
static struct http_req		*held_head;
static int			 http_stopping;

static void	listener_update(void);

/*
 * --listen and --control-listen: an address as listen_addr_parse() takes
 * it, or a bare port (or ":PORT") on 127.0.0.1.
 */
static int
parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *len)
{
	char		 buf[80], addr[64];
	unsigned	 port;

	if (spec[0] == ':' || strspn(spec, "0123456789") == strlen(spec)) {
		if (snprintf(buf, sizeof(buf), "127.0.0.1:%s", spec +
		    (spec[0] == ':')) >= (int)sizeof(buf))
			return -1;
		spec = buf;
	}
	if (listen_addr_parse(spec, addr, sizeof(addr), &port) == -1)
		return -1;
	return listen_addr_sockaddr(addr, port, ss, len);
}

int
dev_http_check_listen(const char *spec)
{
	struct sockaddr_storage	ss;
	socklen_t		len;

	return parse_listen(spec, &ss, &len);
}

static int
listen_on(const struct sockaddr_storage *ss, socklen_t len)
{
	int	fd, one = 1;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd == -1)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, len) == -1 ||
	    listen(fd, 1024) == -1) {
		int	saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

static int
sock_port(int fd, struct sockaddr_storage *ss, socklen_t *len)
{
	*len = sizeof(*ss);
	if (getsockname(fd, (struct sockaddr *)ss, len) == -1)
		return -1;
	if (ss->ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)ss)->sin_port);
}

/*
 * The reset fault: close with a zero linger, so that the peer gets a TCP
 * RST (ECONNRESET) rather than an orderly end.
 */
void
dev_sock_reset(int fd)
{
	struct linger	lg = { 1, 0 };

	if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) == -1)
		log_warn("SO_LINGER on port %d", main_port);
}

/* Reset a connection libmicrohttpd holds; the caller then answers MHD_NO. */
static enum MHD_Result
conn_reset(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo	*ci;

	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (ci != NULL)
		dev_sock_reset(ci->connect_fd);
	return MHD_NO;
}

/* A reset on both transports takes a connection before its first byte. */
static int
reset_at_accept(void)
{
	struct dev_fault_view	http, ws;

	dev_fault_snapshot(TR_HTTP, &http);
	dev_fault_snapshot(TR_WS, &ws);
	return dev_fault_on(&ws, FAULT_RESET) &&
	    dev_fault_hit(&http, FAULT_RESET);
}

static void
accept_cb(struct ev_loop *l, ev_io *w, int revents)
{
	struct sockaddr_storage	ss;
	socklen_t		len;
	int			fd, i, one = 1;

	for (i = 0; i < ACCEPT_BURST; i++) {
		len = sizeof(ss);
		fd = accept4(w->fd, (struct sockaddr *)&ss, &len,
		    SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd == -1) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				log_warn("accept on port %d", main_port);
			return;
		}
		/*
		 * As real nodes do: answers and WebSocket frames go out at
		 * once, not held by Nagle against the client's delayed ACK
		 * (~40 ms a call).  The WebSocket keeps this socket.
		 */
		if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
		    sizeof(one)) == -1)
			log_warn("TCP_NODELAY on port %d", main_port);
		if (reset_at_accept()) {
			dev_sock_reset(fd);
			close(fd);
			continue;
		}
		/* On failure libmicrohttpd has closed the socket itself. */
		if (MHD_add_connection(mhd, fd, (struct sockaddr *)&ss, len) !=
		    MHD_YES)
			log_warnx("connection on port %d dropped: %s",
			    main_port, "libmicrohttpd is at its limit");
	}
}

static void
relisten_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	listener_update();
}

/* Close or reopen the main listener as the refuse fault says. */
static void
listener_update(void)
{
	struct dev_fault_view	fv;
	int			fd;

	dev_fault_snapshot(TR_HTTP, &fv);
	if ((dev_fault_on(&fv, FAULT_REFUSE) || http_stopping) &&
	    listen_fd != -1) {
		ev_io_stop(loop, &accept_w);
		close(listen_fd);
		listen_fd = -1;
		if (!http_stopping)
			log_info("refuse: port %d closed, connections are "
			    "refused", main_port);
		return;
	}
	if (dev_fault_on(&fv, FAULT_REFUSE) || http_stopping ||
	    listen_fd != -1)
		return;
	if ((fd = listen_on(&listen_ss, listen_sslen)) == -1) {
		log_warn("reopening port %d; trying again", main_port);
		ev_timer_stop(loop, &relisten_timer);
		ev_timer_set(&relisten_timer, RELISTEN_RETRY, 0.);
		ev_timer_start(loop, &relisten_timer);
		return;
	}
	listen_fd = fd;
	ev_io_set(&accept_w, listen_fd, EV_READ);
	ev_io_start(loop, &accept_w);
	log_info("refuse lifted: listening on port %d again", main_port);
}

/* Suspend a request on the held list; -1 when stopping. */
static int
hold(struct MHD_Connection *conn, struct http_req *r, enum dev_transport tr,
    uint64_t due)
{
	pthread_mutex_lock(&held_lock);
	if (http_stopping) {
		pthread_mutex_unlock(&held_lock);
		return -1;
	}
	MHD_suspend_connection(conn);
	r->conn = conn;
	r->hold_tr = tr;
	r->due = due;
	r->next = held_head;
	held_head = r;
	pthread_mutex_unlock(&held_lock);
	dev_main_wakeup();
	return 0;
}

static void
held_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	dev_http_poll();
}

void
dev_http_poll(void)
{
	struct dev_fault_view	 fv[TR__COUNT];
	struct http_req		**pp, *r;
	uint64_t		 now = now_mono_ms(), next = 0;
	int			 go;

	dev_fault_snapshot(TR_HTTP, &fv[TR_HTTP]);
	dev_fault_snapshot(TR_WS, &fv[TR_WS]);
	pthread_mutex_lock(&held_lock);
	for (pp = &held_head; (r = *pp) != NULL; ) {
		if (http_stopping)
			go = 1;
		else if (r->due != 0)
			go = r->due <= now;
		else
			go = !dev_fault_on(&fv[r->hold_tr], FAULT_BLACKHOLE);
		if (!go) {
			if (r->due != 0 && (next == 0 || r->due < next))
				next = r->due;
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		r->next = NULL;
		/* The handler runs again and answers (or closes). */
		MHD_resume_connection(r->conn);
	}
	pthread_mutex_unlock(&held_lock);
	ev_timer_stop(loop, &held_timer);
	if (next != 0) {
		ev_timer_set(&held_timer, (double)(next - now) / 1000., 0.);
		ev_timer_start(loop, &held_timer);
	}
	listener_update();
}

/*
 * Queue body (malloc'ed, taken over) with a status and a content type,
 * and Retry-After: retry_s unless it is 0.
 */
static enum MHD_Result
respond(struct MHD_Connection *conn, unsigned status, const char *ctype,
    char *body, size_t len, uint64_t retry_s)
{
	char			 secs[24];
	struct MHD_Response	*resp;
	enum MHD_Result		 ret;

	resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (resp == NULL) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	if (retry_s > 0) {
		snprintf(secs, sizeof(secs), "%llu", (unsigned long long)retry_s);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, secs);
	}
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result
respond_text(struct MHD_Connection *conn, unsigned status, const char *text)
{
	return respond(conn, status, "text/plain; charset=utf-8",
	    xstrdup(text), strlen(text),
	    status == MHD_HTTP_SERVICE_UNAVAILABLE ? 1 : 0);
}

static enum MHD_Result
respond_buf(struct MHD_Connection *conn, unsigned status, struct buf *b)
{
	size_t	len;
	char	*p = buf_release(b, &len);

	return respond(conn, status, "application/json; charset=utf-8", p,
	    len, 0);
}

static enum MHD_Result
answer_control(struct MHD_Connection *conn, struct http_req *r,
    const char *method)
{
	struct buf	 out;
	json_t		*req;
	json_error_t	 jerr;
	char		 err[200];

	buf_init(&out);
	if (strcmp(method, "POST") == 0 && r->body.len > 0) {
		if (r->too_big ||
		    (req = json_loadb(r->body.p, r->body.len, 0, &jerr)) ==
		    NULL) {
			buf_adds(&out, "{\"error\":");
			dev_json_str(&out, "the body is not JSON");
			buf_addc(&out, '}');
			return respond_buf(conn, MHD_HTTP_BAD_REQUEST, &out);
		}
		if (dev_fault_control(req, err, sizeof(err)) == -1) {
			json_decref(req);
			buf_adds(&out, "{\"error\":");
			dev_json_str(&out, err);
			buf_addc(&out, '}');
			return respond_buf(conn, MHD_HTTP_BAD_REQUEST, &out);
		}
		json_decref(req);
	} else if (strcmp(method, "GET") != 0 && strcmp(method, "POST") != 0)
		return respond_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
		    "GET or POST\n");
	dev_status_json(&out);
	return respond_buf(conn, MHD_HTTP_OK, &out);
}

static void
ws_upgraded(void *cls, struct MHD_Connection *conn, void *req_cls,
    const char *extra, size_t extra_len, MHD_socket sock,
    struct MHD_UpgradeResponseHandle *urh)
{
	dev_ws_adopt(sock, urh, extra, extra_len);
}

static enum MHD_Result
answer_upgrade(struct MHD_Connection *conn, struct http_req *r)
{
	struct dev_fault_view	 fv;
	struct MHD_Response	*resp;
	const char		*key, *ver;
	char			 accept[WS_ACCEPT_LEN + 1];
	enum MHD_Result		 ret;

	dev_fault_snapshot(TR_WS, &fv);
	if (dev_fault_on(&fv, FAULT_REFUSE))
		return MHD_NO;
	if (dev_fault_hit(&fv, FAULT_RESET))
		return conn_reset(conn);
	if (dev_fault_hit(&fv, FAULT_BLACKHOLE))
		return hold(conn, r, TR_WS, 0) == 0 ? MHD_YES : MHD_NO;
	if (!r->slowed && dev_fault_hit(&fv, FAULT_SLOW)) {
		r->slowed = 1;
		if (fv.arg[FAULT_SLOW] > 0 && hold(conn, r, TR_WS,
		    now_mono_ms() + fv.arg[FAULT_SLOW]) == 0)
			return MHD_YES;
	}
	key = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    "Sec-WebSocket-Key");
	ver = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    "Sec-WebSocket-Version");
	if (key == NULL || strlen(key) != 24 || ver == NULL ||
	    strcmp(ver, "13") != 0) {
		resp = MHD_create_response_from_buffer(0, NULL,
		    MHD_RESPMEM_PERSISTENT);
		MHD_add_response_header(resp, "Sec-WebSocket-Version", "13");
		ret = MHD_queue_response(conn, MHD_HTTP_BAD_REQUEST, resp);
		MHD_destroy_response(resp);
		return ret;
	}
	ws_accept_key(key, accept);
	if ((resp = MHD_create_response_for_upgrade(ws_upgraded, NULL)) ==
	    NULL)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_UPGRADE, "websocket");
	MHD_add_response_header(resp, "Sec-WebSocket-Accept", accept);
	ret = MHD_queue_response(conn, MHD_HTTP_SWITCHING_PROTOCOLS, resp);
	MHD_destroy_response(resp);
	return ret;
}

struct truncated {
	char	*body;
	size_t	 len;
	size_t	 send;
};

static ssize_t
truncated_cb(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct truncated	*t = cls;
	size_t			 n;

	if (pos >= t->send)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	n = t->send - pos < max ? t->send - pos : max;
	memcpy(buf, t->body + pos, n);
	return (ssize_t)n;
}

static void
truncated_free(void *cls)
{
	struct truncated	*t = cls;

	free(t->body);
	free(t);
}

static ssize_t
oversized_cb(void *cls, uint64_t pos, char *buf, size_t max)
{
	size_t	n = dev_oversized_read(cls, buf, max);

	return n == 0 ? MHD_CONTENT_READER_END_OF_STREAM : (ssize_t)n;
}

static void
oversized_free(void *cls)
{
	dev_oversized_free(cls);
}

static enum MHD_Result
respond_callback(struct MHD_Connection *conn, uint64_t size,
    MHD_ContentReaderCallback cb, void *cls, MHD_ContentReaderFreeCallback fr)
{
	struct MHD_Response	*resp;
	enum MHD_Result		 ret;

	resp = MHD_create_response_from_callback(size, OVERSIZED_BLOCK, cb, cls,
	    fr);
	if (resp == NULL) {
		fr(cls);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
	    "application/json; charset=utf-8");
	ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result
answer_rpc(struct MHD_Connection *conn, struct http_req *r)
{
	struct dev_fault_view	 fv;
	struct dev_rpc_ctx	 ctx;
	struct buf		 out;
	struct truncated	*t;
	struct dev_oversized	*o;
	struct dev_blkref	 ref;
	char			 id[128], *bad;
	size_t			 len;
	int			 control;

	buf_init(&out);
	if (r->too_big) {
		dev_rpc_error(&out, RPC_INVALID_REQUEST, "Request is too big");
		return respond_buf(conn, MHD_HTTP_CONTENT_TOO_LARGE, &out);
	}
	/* The control path works whatever the HTTP faults. */
	control = dev_rpc_is_control(r->body.p, r->body.len);
	dev_fault_snapshot(TR_HTTP, &fv);
	if (control)
		fv.on &= (1u << FAULT_STALL) | (1u << FAULT_WRONG_GENESIS) |
		    (1u << FAULT_SPLIT);
	if (dev_fault_on(&fv, FAULT_REFUSE))
		return MHD_NO;
	if (dev_fault_hit(&fv, FAULT_RESET))
		return conn_reset(conn);
	if (dev_fault_hit(&fv, FAULT_BLACKHOLE))
		return hold(conn, r, TR_HTTP, 0) == 0 ? MHD_YES : MHD_NO;
	if (!r->slowed && dev_fault_hit(&fv, FAULT_SLOW)) {
		r->slowed = 1;
		if (fv.arg[FAULT_SLOW] > 0 && hold(conn, r, TR_HTTP,
		    now_mono_ms() + fv.arg[FAULT_SLOW]) == 0)
			return MHD_YES;
	}
	if (dev_fault_hit(&fv, FAULT_HTTP_500))
		return respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
		    "Internal Server Error\n");
	if (dev_fault_hit(&fv, FAULT_HTTP_503))
		return respond_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
		    "Service Unavailable\n");
	if (dev_fault_hit(&fv, FAULT_RATE_LIMIT)) {
		dev_rpc_error(&out, RPC_RATE_LIMITED, "Too many requests");
		bad = buf_release(&out, &len);
		return respond(conn, MHD_HTTP_TOO_MANY_REQUESTS,
		    "application/json; charset=utf-8", bad, len,
		    fv.arg[FAULT_RATE_LIMIT]);
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.tr = TR_HTTP;
	dev_view_get(&fv, &ctx.view);
	ctx.fv = &fv;
	dev_rpc_handle(&ctx, r->body.p != NULL ? r->body.p : "", r->body.len,
	    &out);
	if (dev_fault_hit(&fv, FAULT_TRUNCATED) && out.len > 1) {
		t = xcalloc(1, sizeof(*t));
		t->body = buf_release(&out, &t->len);
		t->send = t->len / 2;
		return respond_callback(conn, t->len, truncated_cb, t,
		    truncated_free);
	}
	if (dev_fault_hit(&fv, FAULT_OVERSIZED)) {
		/* Valid-looking JSON: the best header, over and over. */
		dev_request_id(r->body.p, r->body.len, id, sizeof(id));
		buf_reset(&out);
		dev_view_block_at(&ctx.view, ctx.view.head, &ref);
		dev_chain_header_json(ctx.view.chain, &ref, &out);
		o = dev_oversized_new(id, out.p, out.len,
		    fv.arg[FAULT_OVERSIZED] << 20);
		buf_free(&out);
		return respond_callback(conn, MHD_SIZE_UNKNOWN, oversized_cb, o,
		    oversized_free);
	}
	if (dev_fault_hit(&fv, FAULT_MALFORMED)) {
		bad = dev_malform(out.p != NULL ? out.p : "", out.len, &len);
		buf_free(&out);
		return respond(conn, MHD_HTTP_OK,
		    "application/json; charset=utf-8", bad, len, 0);
	}
	return respond_buf(conn, MHD_HTTP_OK, &out);
}

static enum req_kind
classify(struct MHD_Connection *conn, const char *url, const char *method)
{
	const char	*up;

	if (strcmp(url, "/control") == 0)
		return REQ_CONTROL;
	if (strcmp(method, "GET") == 0) {
		up = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
		    MHD_HTTP_HEADER_UPGRADE);
		if (up != NULL && strcasestr(up, "websocket") != NULL)
			return REQ_UPGRADE;
		if (strcmp(url, "/health") == 0)
			return REQ_HEALTH;
		return REQ_OTHER;
	}
	if (strcmp(method, "POST") == 0)
		return REQ_RPC;
	return REQ_OTHER;
}

static enum MHD_Result
http_access(void *cls, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **req_cls)
{
	struct http_req		*r = *req_cls;
	struct dev_fault_view	 fv;
	struct dev_rpc_ctx	 ctx;
	struct buf		 out;

	if (r == NULL) {
		r = xcalloc(1, sizeof(*r));
		buf_init(&r->body);
		r->kind = cls == &ctl_marker ? REQ_CONTROL :
		    classify(conn, url, method);
		*req_cls = r;
		return MHD_YES;
	}
	if (*upload_size > 0) {
		if (!r->too_big && r->body.len + *upload_size >
		    dev_conf.max_request) {
			r->too_big = 1;
			buf_free(&r->body);
		} else if (!r->too_big)
			buf_add(&r->body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	if (http_stopping)
		return MHD_NO;
	switch (r->kind) {
	case REQ_CONTROL:
		return answer_control(conn, r, method);
	case REQ_UPGRADE:
		return answer_upgrade(conn, r);
	case REQ_RPC:
		return answer_rpc(conn, r);
	case REQ_HEALTH:
		dev_fault_snapshot(TR_HTTP, &fv);
		if (dev_fault_on(&fv, FAULT_REFUSE))
			return MHD_NO;
		if (dev_fault_hit(&fv, FAULT_RESET))
			return conn_reset(conn);
		memset(&ctx, 0, sizeof(ctx));
		dev_view_get(&fv, &ctx.view);
		buf_init(&out);
		buf_addf(&out, "{\"peers\":3,\"isSyncing\":%s,"
		    "\"shouldHavePeers\":true}",
		    ctx.view.syncing ? "true" : "false");
		return respond_buf(conn, MHD_HTTP_OK, &out);
	case REQ_OTHER:
		break;
	}
	return respond_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
	    "Used HTTP Method is not allowed. POST or OPTIONS is required\n");
}

static void
req_done(void *cls, struct MHD_Connection *conn, void **req_cls,
    enum MHD_RequestTerminationCode toe)
{
	struct http_req	*r = *req_cls;

	if (r == NULL)
		return;
	buf_free(&r->body);
	free(r);
	*req_cls = NULL;
}

int
dev_http_init(struct ev_loop *l)
{
	struct MHD_OptionItem	 opts[8];
	struct sockaddr_storage	 ss;
	socklen_t		 sslen;
	unsigned		 n = 0;
	int			 ctl_fd;

	loop = l;
	if (parse_listen(dev_conf.listen, &listen_ss, &listen_sslen) == -1) {
		log_warnx("--listen %s: not ADDR:PORT with a numeric address",
		    dev_conf.listen);
		return -1;
	}
	if ((listen_fd = listen_on(&listen_ss, listen_sslen)) == -1) {
		log_warn("listen on %s", dev_conf.listen);
		return -1;
	}
	/* Port 0 picked a port: reopen on that one after a refuse. */
	main_port = sock_port(listen_fd, &listen_ss, &listen_sslen);
	if (parse_listen(dev_conf.control_listen, &ss, &sslen) == -1) {
		log_warnx("--control-listen %s: not ADDR:PORT with a numeric "
		    "address", dev_conf.control_listen);
		return -1;
	}
	if ((ctl_fd = listen_on(&ss, sslen)) == -1) {
		log_warn("listen on %s", dev_conf.control_listen);
		return -1;
	}
	ctl_port = sock_port(ctl_fd, &ss, &sslen);

	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED,
	    (intptr_t)req_done, NULL };
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT,
	    CONNECTION_TIMEOUT, NULL };
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT,
	    4000, NULL };
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_EXTERNAL_LOGGER,
	    (intptr_t)http_mhd_log, NULL };
	if (dev_conf.threads > 1)
		opts[n++] = (struct MHD_OptionItem){
		    MHD_OPTION_THREAD_POOL_SIZE, dev_conf.threads, NULL };
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	mhd = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD |
	    MHD_USE_NO_LISTEN_SOCKET | MHD_ALLOW_SUSPEND_RESUME |
	    MHD_ALLOW_UPGRADE | MHD_USE_ERROR_LOG | MHD_USE_TURBO, 0, NULL,
	    NULL, http_access, NULL, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
	if (mhd == NULL) {
		log_warnx("libmicrohttpd did not start");
		close(ctl_fd);
		return -1;
	}
	mhd_ctl = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD |
	    MHD_USE_ERROR_LOG, 0, NULL, NULL, http_access, &ctl_marker,
	    MHD_OPTION_LISTEN_SOCKET, ctl_fd,
	    MHD_OPTION_NOTIFY_COMPLETED, req_done, NULL,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT,
	    MHD_OPTION_EXTERNAL_LOGGER, http_mhd_log, NULL,
	    MHD_OPTION_END);
	if (mhd_ctl == NULL) {
		log_warnx("libmicrohttpd did not start (control port)");
		close(ctl_fd);
		return -1;
	}
	ev_io_init(&accept_w, accept_cb, listen_fd, EV_READ);
	ev_io_start(loop, &accept_w);
	ev_timer_init(&held_timer, held_cb, 0., 0.);
	ev_timer_init(&relisten_timer, relisten_cb, 0., 0.);
	return 0;
}

int
dev_http_port(void)
{
	return main_port;
}

int
dev_http_control_port(void)
{
	return ctl_port;
}

void
dev_http_quiesce(void)
{
	pthread_mutex_lock(&held_lock);
	http_stopping = 1;
	pthread_mutex_unlock(&held_lock);
	/* Held requests resume and are closed: the handler sees stopping. */
	dev_http_poll();
	ev_timer_stop(loop, &held_timer);
	ev_timer_stop(loop, &relisten_timer);
}

void
dev_http_shutdown(void)
{
	if (mhd != NULL)
		MHD_stop_daemon(mhd);
	if (mhd_ctl != NULL)
		MHD_stop_daemon(mhd_ctl);
	mhd = mhd_ctl = NULL;
}

struct dev_oversized {
	char		*prefix;
	size_t		 plen;
	char		*unit;
	size_t		 ulen;
	uint64_t	 nunits;
	uint64_t	 total;
	uint64_t	 pos;
};

struct dev_oversized *
dev_oversized_new(const char *id_json, const char *unit, size_t unit_len,
    uint64_t bytes)
{
	struct dev_oversized	*o;
	struct buf		 b;
	uint64_t		 room;

	o = xcalloc(1, sizeof(*o));
	buf_init(&b);
	buf_addf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":[", id_json);
	o->prefix = buf_release(&b, &o->plen);
	o->unit = xmalloc(unit_len + 1);
	memcpy(o->unit, unit, unit_len);
	o->ulen = unit_len;
	room = bytes > o->plen + 2 ? bytes - o->plen - 2 : 0;
	/* n units and n-1 commas: at least `bytes` in all. */
	o->nunits = (room + 1 + unit_len) / (unit_len + 1);
	if (o->nunits == 0)
		o->nunits = 1;
	o->total = o->plen + o->nunits * (unit_len + 1) - 1 + 2;
	return o;
}

size_t
dev_oversized_read(struct dev_oversized *o, char *buf, size_t len)
{
	uint64_t	body = o->nunits * (o->ulen + 1) - 1, off, k;
	size_t		n = 0, m;

	while (n < len && o->pos < o->total) {
		if (o->pos < o->plen) {
			m = o->plen - o->pos;
			m = m < len - n ? m : len - n;
			memcpy(buf + n, o->prefix + o->pos, m);
		} else if (o->pos < o->plen + body) {
			off = o->pos - o->plen;
			k = off % (o->ulen + 1);
			if (k == o->ulen) {
				buf[n] = ',';
				m = 1;
			} else {
				m = o->ulen - k;
				m = m < len - n ? m : len - n;
				memcpy(buf + n, o->unit + k, m);
			}
		} else {
			m = o->total - o->pos;
			m = m < len - n ? m : len - n;
			memcpy(buf + n, "]}" + (o->pos - o->plen - body), m);
		}
		n += m;
		o->pos += m;
	}
	return n;
}

int
dev_oversized_done(const struct dev_oversized *o)
{
	return o->pos >= o->total;
}

uint64_t
dev_oversized_total(const struct dev_oversized *o)
{
	return o->total;
}

void
dev_oversized_free(struct dev_oversized *o)
{
	if (o == NULL)
		return;
	free(o->prefix);
	free(o->unit);
	free(o);
}

void
dev_request_id(const char *body, size_t len, char *out, size_t outlen)
{
	json_t		*req;
	const json_t	*id;
	char		*s = NULL;

	snprintf(out, outlen, "null");
	if (body == NULL || (req = json_loadb(body, len, 0, NULL)) == NULL)
		return;
	id = json_object_get(req, "id");
	if ((json_is_integer(id) || json_is_string(id)) &&
	    (s = json_dumps(id, JSON_ENCODE_ANY | JSON_COMPACT)) != NULL &&
	    strlen(s) < outlen)
		snprintf(out, outlen, "%s", s);
	free(s);
	json_decref(req);
}

char *
dev_malform(const char *body, size_t len, size_t *outlen)
{
	static const char	 tail[] = "\n<!-- devnode: malformed -->";
	char			*p;
	size_t			 keep = len / 2;

	/* Half an answer and some HTML: no JSON parser accepts it. */
	p = xmalloc(keep + sizeof(tail));
	memcpy(p, body, keep);
	memcpy(p + keep, tail, sizeof(tail));
	*outlen = keep + sizeof(tail) - 1;
	return p;
}
