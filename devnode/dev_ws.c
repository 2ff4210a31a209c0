/*
 * WebSocket connections after the upgrade.  Each connection is a wslay
 * server context driven by two libev watchers on the main loop; RPC
 * requests are answered through dev_rpc with the WebSocket view, and
 * subscribers get one notification per new best block (and one per newly
 * finalized block), starting with the current head.
 *
 * Outgoing text goes through one function so that the WebSocket faults
 * act on every message the same way: slow delays it (order kept),
 * ws_silent drops notifications, blackhole stops the connection dead,
 * malformed/truncated/oversized corrupt answers.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wslay/wslay.h>

#include "log.h"
#include "util.h"

#include "dev_http.h"
#include "dev_ws.h"

#define WS_MAX_MSG		(16u << 20)	/* a request, like jsonrpsee */
#define WS_MAX_QUEUED		(64u << 20)	/* a reader that far behind */
#define WS_SUBS_MAX		1024

struct ws_sub {
	char			 id[RPC_SUB_ID_LEN + 1];
	enum dev_sub_kind	 kind;
	int			 fresh;		/* owes its first notification */
};

/* A message held back by the slow fault. */
struct ws_pending {
	struct ws_pending	*next;
	uint64_t		 due;
	size_t			 len;
	char			 msg[];
};

/*
 * An oversized answer being sent: wslay holds it until its last fragment,
 * and drops it unread when the connection ends first (a client that
 * closes with 1009), so the connection frees what is left.
 */
struct ws_big {
	struct ws_big			*next;
	struct dev_oversized		*o;	/* NULL once sent */
};

struct ws_conn {
	struct ws_conn			*next, *prev;
	unsigned			 serial;
	int				 fd;
	struct MHD_UpgradeResponseHandle *urh;
	wslay_event_context_ptr		 ctx;
	ev_io				 rio, wio;
	ev_timer			 slow_timer, drop_timer;
	char				*extra;
	size_t				 extra_len, extra_off;
	struct ws_sub			*subs;
	unsigned			 nsubs;
	struct ws_pending		*pend_head, *pend_tail;
	struct ws_big			*bigs;
	uint64_t			 opened_ms;
	int				 paused;	/* blackhole */
	int				 reset;		/* closed by the reset fault */
	int				 closing;
};

struct ws_adopted {
	struct ws_adopted		*next;
	MHD_socket			 fd;
	struct MHD_UpgradeResponseHandle *urh;
	size_t				 extra_len;
	char				 extra[];
};

static struct ev_loop		*loop;
static struct ws_conn		*conns;
static unsigned			 nconns, serial;
static ev_timer			 ping_timer;
static uint64_t			 sub_counter, sub_salt;
static uint64_t			 seen_generation;

static struct ws_conn		*graveyard;	/* closed, to be freed */

static pthread_mutex_t		 adopt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ws_adopted	*adopt_head;
static int			 ws_stopping;

static void	conn_close(struct ws_conn *, const char *);
static void	conn_update(struct ws_conn *);
static void	conn_read(struct ws_conn *);
static void	graveyard_empty(void);

static void
conn_faults(struct dev_fault_view *fv)
{
	dev_fault_snapshot(TR_WS, fv);
}

static ssize_t
ws_recv_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags,
    void *user)
{
	struct ws_conn	*c = user;
	ssize_t		 n;
	size_t		 m;

	/* Bytes that came with the upgrade request go first. */
	if (c->extra_off < c->extra_len) {
		m = c->extra_len - c->extra_off;
		m = m < len ? m : len;
		memcpy(buf, c->extra + c->extra_off, m);
		c->extra_off += m;
		return (ssize_t)m;
	}
	while ((n = recv(c->fd, buf, len, 0)) == -1 && errno == EINTR)
		;
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	if (n <= 0) {
		wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
		return -1;
	}
	return n;
}

static ssize_t
ws_send_cb(wslay_event_context_ptr ctx, const uint8_t *data, size_t len,
    int flags, void *user)
{
	struct ws_conn	*c = user;
	ssize_t		 n;

	while ((n = send(c->fd, data, len, MSG_NOSIGNAL)) == -1 &&
	    errno == EINTR)
		;
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	if (n == -1) {
		wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
		return -1;
	}
	return n;
}

static ssize_t
oversized_read_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len,
    const union wslay_event_msg_source *src, int *eof, void *user)
{
	struct ws_big	*b = src->data;
	size_t		 n;

	if (b->o == NULL) {
		*eof = 1;
		return 0;
	}
	n = dev_oversized_read(b->o, (char *)buf, len);
	if (dev_oversized_done(b->o)) {
		*eof = 1;
		dev_oversized_free(b->o);
		b->o = NULL;
	}
	return (ssize_t)n;
}

/* Write a text frame that stops halfway, then drop the connection. */
static void
send_truncated(struct ws_conn *c, const char *msg, size_t len)
{
	uint8_t		hdr[10];
	size_t		hlen, i;

	hdr[0] = 0x81;
	if (len < 126) {
		hdr[1] = (uint8_t)len;
		hlen = 2;
	} else if (len < 65536) {
		hdr[1] = 126;
		hdr[2] = (uint8_t)(len >> 8);
		hdr[3] = (uint8_t)len;
		hlen = 4;
	} else {
		hdr[1] = 127;
		for (i = 0; i < 8; i++)
			hdr[2 + i] = (uint8_t)((uint64_t)len >> (56 - 8 * i));
		hlen = 10;
	}
	/* Only between frames: wslay must have nothing half-sent. */
	wslay_event_send(c->ctx);
	if (!wslay_event_want_write(c->ctx) &&
	    send(c->fd, hdr, hlen, MSG_NOSIGNAL) == (ssize_t)hlen)
		(void)send(c->fd, msg, len / 2, MSG_NOSIGNAL);
	conn_close(c, "truncated fault");
}

static void
queue_text(struct ws_conn *c, const char *msg, size_t len)
{
	struct wslay_event_msg	m = { WSLAY_TEXT_FRAME, (const uint8_t *)msg,
				    len };

	if (wslay_event_queue_msg(c->ctx, &m) != 0)
		return;		/* closing: nothing more goes out */
	if (wslay_event_get_queued_msg_length(c->ctx) > WS_MAX_QUEUED) {
		conn_close(c, "the client reads too slowly");
		return;
	}
}

static void
slow_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	struct ws_conn		*c = w->data;
	struct ws_pending	*p;
	uint64_t		 now = now_mono_ms();

	while ((p = c->pend_head) != NULL && p->due <= now) {
		c->pend_head = p->next;
		if (c->pend_head == NULL)
			c->pend_tail = NULL;
		queue_text(c, p->msg, p->len);
		free(p);
		if (c->closing) {
			graveyard_empty();
			return;
		}
	}
	if (p != NULL) {
		ev_timer_set(&c->slow_timer, (double)(p->due - now) / 1000., 0.);
		ev_timer_start(loop, &c->slow_timer);
	}
	conn_update(c);
	graveyard_empty();
}

/*
 * Every outgoing text message goes through here: answers (notification
 * 0) and subscription notifications (1).
 */
static void
send_text(struct ws_conn *c, const char *msg, size_t len, int notification,
    const char *req, size_t req_len)
{
	struct dev_fault_view	 fv;
	struct ws_pending	*p;
	struct dev_oversized	*o;
	struct ws_big		*big;
	struct wslay_event_fragmented_msg fm;
	char			*bad = NULL, id[128];
	uint64_t		 due, now;

	if (c->closing)
		return;
	conn_faults(&fv);
	if (dev_fault_on(&fv, FAULT_BLACKHOLE))
		return;
	if (notification && dev_fault_on(&fv, FAULT_WS_SILENT))
		return;
	if (!notification && dev_fault_hit(&fv, FAULT_TRUNCATED)) {
		send_truncated(c, msg, len);
		return;
	}
	if (!notification && dev_fault_hit(&fv, FAULT_OVERSIZED)) {
		dev_request_id(req, req_len, id, sizeof(id));
		o = dev_oversized_new(id, msg, len,
		    fv.arg[FAULT_OVERSIZED] << 20);
		big = xmalloc(sizeof(*big));
		big->o = o;
		big->next = c->bigs;
		c->bigs = big;
		fm.opcode = WSLAY_TEXT_FRAME;
		fm.source.data = big;
		fm.read_callback = oversized_read_cb;
		if (wslay_event_queue_fragmented_msg(c->ctx, &fm) != 0) {
			dev_oversized_free(o);
			big->o = NULL;
		}
		conn_update(c);
		return;
	}
	if (dev_fault_hit(&fv, FAULT_MALFORMED)) {
		bad = dev_malform(msg, len, &len);
		msg = bad;
	}
	due = 0;
	if (dev_fault_hit(&fv, FAULT_SLOW))
		due = now_mono_ms() + fv.arg[FAULT_SLOW];
	/* Once something waits, everything after it waits: order is kept. */
	if (due != 0 || c->pend_head != NULL) {
		if (c->pend_tail != NULL && c->pend_tail->due > due)
			due = c->pend_tail->due;
		p = xmalloc(sizeof(*p) + len);
		p->next = NULL;
		p->due = due;
		p->len = len;
		memcpy(p->msg, msg, len);
		if (c->pend_tail != NULL)
			c->pend_tail->next = p;
		else
			c->pend_head = p;
		c->pend_tail = p;
		if (!ev_is_active(&c->slow_timer)) {
			now = now_mono_ms();
			ev_timer_set(&c->slow_timer, c->pend_head->due > now ?
			    (double)(c->pend_head->due - now) / 1000. : 0., 0.);
			ev_timer_start(loop, &c->slow_timer);
		}
	} else
		queue_text(c, msg, len);
	free(bad);
}

static struct ws_sub *
sub_find(struct ws_conn *c, enum dev_sub_kind kind, const char *id)
{
	unsigned	i;

	for (i = 0; i < c->nsubs; i++)
		if (c->subs[i].kind == kind && strcmp(c->subs[i].id, id) == 0)
			return &c->subs[i];
	return NULL;
}

static int
sub_add(void *arg, enum dev_sub_kind kind, char *id)
{
	static const char	 alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789";
	struct ws_conn		*c = arg;
	uint64_t		 x;
	unsigned		 i;

	if (c->nsubs >= WS_SUBS_MAX)
		return -1;
	/* Unguessable-looking ids, as jsonrpsee's, unique per process. */
	x = (++sub_counter) * 0x9e3779b97f4a7c15ULL ^ sub_salt;
	for (i = 0; i < RPC_SUB_ID_LEN; i++) {
		x ^= x >> 29;
		x *= 0xbf58476d1ce4e5b9ULL;
		id[i] = alnum[(x >> 32) % (sizeof(alnum) - 1)];
	}
	id[RPC_SUB_ID_LEN] = '\0';
	c->subs = xrealloc(c->subs, (c->nsubs + 1) * sizeof(*c->subs));
	snprintf(c->subs[c->nsubs].id, sizeof(c->subs[0].id), "%s", id);
	c->subs[c->nsubs].kind = kind;
	c->subs[c->nsubs].fresh = 1;
	c->nsubs++;
	return 0;
}

static int
sub_remove(void *arg, enum dev_sub_kind kind, const char *id)
{
	struct ws_conn	*c = arg;
	struct ws_sub	*s;

	if ((s = sub_find(c, kind, id)) == NULL)
		return -1;
	*s = c->subs[--c->nsubs];
	return 0;
}

static void
notify_ref(struct ws_conn *c, const struct ws_sub *sub,
    const struct dev_view *v, const struct dev_blkref *ref)
{
	struct buf	hdr, note;

	buf_init(&hdr);
	buf_init(&note);
	dev_chain_header_json(v->chain, ref, &hdr);
	dev_rpc_notification(&note, sub->kind, sub->id, hdr.p, hdr.len);
	send_text(c, note.p, note.len, 1, NULL, 0);
	buf_free(&hdr);
	buf_free(&note);
}

/*
 * The header a fresh subscription starts with: best (and a forged head
 * if a lie is on) or finalized (or the lie in its place).
 */
static void
first_notifications(struct ws_conn *c, const struct dev_view *v,
    const struct dev_fault_view *fv)
{
	struct dev_blkref	ref;
	unsigned		i;

	for (i = 0; i < c->nsubs && !c->closing; i++) {
		if (!c->subs[i].fresh)
			continue;
		c->subs[i].fresh = 0;
		if (c->subs[i].kind == SUB_NEW_HEADS) {
			dev_view_block_at(v, v->head, &ref);
			notify_ref(c, &c->subs[i], v, &ref);
			if (dev_view_forged_head(v, fv, &ref))
				notify_ref(c, &c->subs[i], v, &ref);
		} else {
			dev_view_finalized_ref(v, fv, &ref);
			notify_ref(c, &c->subs[i], v, &ref);
		}
	}
}

static void
on_msg(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg
    *arg, void *user)
{
	struct ws_conn		*c = user;
	struct dev_fault_view	 fv;
	struct dev_rpc_ctx	 rc;
	struct buf		 out;
	const char		*req = (const char *)arg->msg;

	if (arg->opcode != WSLAY_TEXT_FRAME &&
	    arg->opcode != WSLAY_BINARY_FRAME)
		return;		/* pings are answered by wslay */
	conn_faults(&fv);
	memset(&rc, 0, sizeof(rc));
	rc.tr = TR_WS;
	if (!dev_rpc_is_control(req, arg->msg_length))
		rc.rate_limited = dev_fault_hit(&fv, FAULT_RATE_LIMIT);
	dev_view_get(&fv, &rc.view);
	rc.fv = &fv;
	rc.subscribe = sub_add;
	rc.unsubscribe = sub_remove;
	rc.sub_arg = c;
	buf_init(&out);
	dev_rpc_handle(&rc, req, arg->msg_length, &out);
	if (out.len > 0)
		send_text(c, out.p, out.len, 0, req, arg->msg_length);
	buf_free(&out);
	/* After the answer that carries the id, the current head. */
	first_notifications(c, &rc.view, &fv);
}

static const struct wslay_event_callbacks ws_callbacks = {
	ws_recv_cb,
	ws_send_cb,
	NULL,
	NULL,
	NULL,
	NULL,
	on_msg,
};

static void
conn_free(struct ws_conn *c)
{
	struct ws_pending	*p;
	struct ws_big		*b;

	while ((p = c->pend_head) != NULL) {
		c->pend_head = p->next;
		free(p);
	}
	while ((b = c->bigs) != NULL) {
		c->bigs = b->next;
		if (b->o != NULL)
			dev_oversized_free(b->o);
		free(b);
	}
	free(c->subs);
	free(c->extra);
	free(c);
}

/*
 * Close now, with no close frame, as a dropped connection would.  The
 * connection leaves the list at once, but its wslay context may be on the
 * stack (we get here from inside wslay callbacks), so it is released by
 * graveyard_empty() when the loop callback returns.
 */
static void
conn_close(struct ws_conn *c, const char *why)
{
	if (c->closing)
		return;
	c->closing = 1;
	log_debug("ws #%u: closed (%s)", c->serial, why);
	ev_io_stop(loop, &c->rio);
	ev_io_stop(loop, &c->wio);
	ev_timer_stop(loop, &c->slow_timer);
	ev_timer_stop(loop, &c->drop_timer);
	if (c->reset)
		dev_sock_reset(c->fd);
	else
		shutdown(c->fd, SHUT_RDWR);
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		conns = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	nconns--;
	c->prev = NULL;
	c->next = graveyard;
	graveyard = c;
}

static void
graveyard_empty(void)
{
	struct ws_conn	*c;

	while ((c = graveyard) != NULL) {
		graveyard = c->next;
		MHD_upgrade_action(c->urh, MHD_UPGRADE_ACTION_CLOSE);
		wslay_event_context_free(c->ctx);
		conn_free(c);
	}
}

static void
conn_update(struct ws_conn *c)
{
	if (c->closing)
		return;
	if (c->paused) {
		ev_io_stop(loop, &c->rio);
		ev_io_stop(loop, &c->wio);
		return;
	}
	if (wslay_event_want_read(c->ctx))
		ev_io_start(loop, &c->rio);
	else
		ev_io_stop(loop, &c->rio);
	if (wslay_event_want_write(c->ctx))
		ev_io_start(loop, &c->wio);
	else
		ev_io_stop(loop, &c->wio);
	if (!wslay_event_want_read(c->ctx) && !wslay_event_want_write(c->ctx)
	    && c->pend_head == NULL)
		conn_close(c, "closed by the client");
}

static void
conn_read(struct ws_conn *c)
{
	if (wslay_event_recv(c->ctx) != 0) {
		conn_close(c, "read error or end of stream");
		return;
	}
	if (c->closing)
		return;
	if (wslay_event_want_write(c->ctx) && wslay_event_send(c->ctx) != 0) {
		conn_close(c, "write error");
		return;
	}
	conn_update(c);
}

static void
rio_cb(struct ev_loop *l, ev_io *w, int revents)
{
	conn_read(w->data);
	graveyard_empty();
}

static void
wio_cb(struct ev_loop *l, ev_io *w, int revents)
{
	struct ws_conn	*c = w->data;

	if (wslay_event_send(c->ctx) != 0)
		conn_close(c, "write error");
	else
		conn_update(c);
	graveyard_empty();
}

static void
drop_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	struct ws_conn	*c = w->data;

	conn_close(c, "ws_drop fault");
	graveyard_empty();
}

static void
conn_new(struct ws_adopted *a)
{
	struct ws_conn	*c;

	c = xcalloc(1, sizeof(*c));
	c->serial = ++serial;
	c->fd = a->fd;
	c->urh = a->urh;
	c->opened_ms = now_mono_ms();
	if (a->extra_len > 0) {
		c->extra = xmalloc(a->extra_len);
		memcpy(c->extra, a->extra, a->extra_len);
		c->extra_len = a->extra_len;
	}
	if (wslay_event_context_server_init(&c->ctx, &ws_callbacks, c) != 0)
		fatalx(CW_EXIT_SYSTEM, "wslay: out of memory");
	wslay_event_config_set_max_recv_msg_length(c->ctx, WS_MAX_MSG);
	ev_io_init(&c->rio, rio_cb, c->fd, EV_READ);
	ev_io_init(&c->wio, wio_cb, c->fd, EV_WRITE);
	ev_timer_init(&c->slow_timer, slow_cb, 0., 0.);
	ev_timer_init(&c->drop_timer, drop_cb, 0., 0.);
	c->rio.data = c->wio.data = c->slow_timer.data = c->drop_timer.data = c;
	c->next = conns;
	if (conns != NULL)
		conns->prev = c;
	conns = c;
	nconns++;
	log_debug("ws #%u: open", c->serial);
}

void
dev_ws_adopt(MHD_socket fd, struct MHD_UpgradeResponseHandle *urh,
    const char *extra, size_t extra_len)
{
	struct ws_adopted	*a;
	int			 on = 1, off = 0;

	/*
	 * libmicrohttpd corks and uncorks the socket around its own sends
	 * and leaves it as it was after the upgrade: frames must go out at
	 * once, as real nodes send them, not wait out Nagle and the
	 * client's delayed ACK (~40 ms a call).
	 */
	if (setsockopt(fd, IPPROTO_TCP, TCP_CORK, &off, sizeof(off)) == -1 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on)) == -1)
		log_warn("ws: TCP_NODELAY");
	pthread_mutex_lock(&adopt_lock);
	if (ws_stopping) {
		pthread_mutex_unlock(&adopt_lock);
		MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
		return;
	}
	a = xmalloc(sizeof(*a) + extra_len);
	a->fd = fd;
	a->urh = urh;
	a->extra_len = extra_len;
	if (extra_len > 0)
		memcpy(a->extra, extra, extra_len);
	a->next = adopt_head;
	adopt_head = a;
	pthread_mutex_unlock(&adopt_lock);
	dev_main_wakeup();
}

/* Bring every connection in line with the WebSocket faults. */
static void
apply_faults(int force)
{
	struct dev_fault_view	 fv;
	struct ws_conn		*c, *next;
	uint64_t		 now = now_mono_ms(), left;
	int			 drop, refuse, reset;

	conn_faults(&fv);
	if (!force && fv.generation == seen_generation)
		return;
	seen_generation = fv.generation;
	drop = dev_fault_on(&fv, FAULT_WS_DROP);
	refuse = dev_fault_on(&fv, FAULT_REFUSE);
	reset = dev_fault_on(&fv, FAULT_RESET);
	for (c = conns; c != NULL; c = next) {
		next = c->next;
		if (reset && dev_fault_hit(&fv, FAULT_RESET)) {
			c->reset = 1;
			conn_close(c, "reset fault");
			continue;
		}
		if (refuse || (drop && fv.arg[FAULT_WS_DROP] == 0)) {
			conn_close(c, refuse ? "refuse fault" : "ws_drop fault");
			continue;
		}
		if (drop && !ev_is_active(&c->drop_timer)) {
			left = c->opened_ms + fv.arg[FAULT_WS_DROP] > now ?
			    c->opened_ms + fv.arg[FAULT_WS_DROP] - now : 0;
			ev_timer_set(&c->drop_timer, (double)left / 1000., 0.);
			ev_timer_start(loop, &c->drop_timer);
		} else if (!drop)
			ev_timer_stop(loop, &c->drop_timer);
		c->paused = dev_fault_on(&fv, FAULT_BLACKHOLE);
		conn_update(c);
		if (!c->paused && !c->closing && c->extra_off < c->extra_len)
			conn_read(c);
	}
	graveyard_empty();
}

void
dev_ws_poll(void)
{
	struct ws_adopted	*a, *list;
	struct ws_conn		*c;

	pthread_mutex_lock(&adopt_lock);
	list = adopt_head;
	adopt_head = NULL;
	pthread_mutex_unlock(&adopt_lock);
	for (; (a = list) != NULL; free(a)) {
		list = a->next;
		conn_new(a);
	}
	/* New connections get the faults that are on; old ones changes. */
	apply_faults(1);
	for (c = conns; c != NULL; c = c->next)
		if (!c->paused && !c->closing && c->extra_off < c->extra_len)
			conn_read(c);
	graveyard_empty();
}

static void
ping_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	struct wslay_event_msg	 m = { WSLAY_PING, NULL, 0 };
	struct ws_conn		*c, *next;

	for (c = conns; c != NULL; c = next) {
		next = c->next;
		if (c->paused)
			continue;
		wslay_event_queue_msg(c->ctx, &m);
		conn_update(c);
	}
	graveyard_empty();
}

void
dev_ws_init(struct ev_loop *l)
{
	loop = l;
	sub_salt = now_wall_ms() ^ ((uint64_t)getpid() << 32);
	if (dev_conf.ping_ms > 0) {
		ev_timer_init(&ping_timer, ping_cb,
		    (double)dev_conf.ping_ms / 1000.,
		    (double)dev_conf.ping_ms / 1000.);
		ev_timer_start(loop, &ping_timer);
	}
}

void
dev_ws_announce(enum dev_sub_kind kind, const char *header, size_t len)
{
	struct ws_conn	*c, *next;
	struct buf	 note;
	unsigned	 i;

	buf_init(&note);
	for (c = conns; c != NULL; c = next) {
		next = c->next;
		for (i = 0; i < c->nsubs && !c->closing; i++) {
			/* A fresh one gets the head right after its answer. */
			if (c->subs[i].kind != kind || c->subs[i].fresh)
				continue;
			buf_reset(&note);
			dev_rpc_notification(&note, kind, c->subs[i].id, header,
			    len);
			send_text(c, note.p, note.len, 1, NULL, 0);
		}
		if (!c->closing)
			conn_update(c);
	}
	buf_free(&note);
	graveyard_empty();
}

int
dev_ws_subscribers(void)
{
	struct ws_conn	*c;

	for (c = conns; c != NULL; c = c->next)
		if (c->nsubs > 0)
			return 1;
	return 0;
}

unsigned
dev_ws_connections(void)
{
	return nconns;
}

void
dev_ws_shutdown(void)
{
	struct ws_adopted	*a;

	pthread_mutex_lock(&adopt_lock);
	ws_stopping = 1;
	while ((a = adopt_head) != NULL) {
		adopt_head = a->next;
		MHD_upgrade_action(a->urh, MHD_UPGRADE_ACTION_CLOSE);
		free(a);
	}
	pthread_mutex_unlock(&adopt_lock);
	while (conns != NULL) {
		struct ws_conn	*c = conns;

		conn_close(c, "shutting down");
	}
	graveyard_empty();
	if (ev_is_active(&ping_timer))
		ev_timer_stop(loop, &ping_timer);
}
