/*
 * JSON-RPC over HTTP for one endpoint: a curl multi handle driven by the
 * worker's libev loop, and a pool of easy handles that are reused so that
 * a request costs no allocation once the pool and its buffers have grown.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ev.h>
#include <curl/curl.h>

#include "buf.h"
#include "log.h"
#include "util.h"
#include "wrk_http.h"

/* ------------------------------------------------------------------ */
/* libev <-> curl multi                                                */

struct multi_sock {
	ev_io			 io;
	curl_socket_t		 fd;
	struct wrk_multi	*m;
	struct multi_sock	*next;
	struct multi_sock	*prev;
};

struct wrk_multi {
	struct ev_loop		*loop;
	CURLM			*multi;
	ev_timer		 timer;
	wrk_multi_done_cb	*done;
	wrk_multi_destroy_cb	*destroy;
	void			*owner;
	struct multi_sock	*socks;
	int			 busy;
	int			 released;
};

static void	multi_destroy(struct wrk_multi *);

static void
multi_sock_free(struct wrk_multi *m, struct multi_sock *ms)
{
	ev_io_stop(m->loop, &ms->io);
	if (ms->prev != NULL)
		ms->prev->next = ms->next;
	else
		m->socks = ms->next;
	if (ms->next != NULL)
		ms->next->prev = ms->prev;
	free(ms);
}

/* Hands every finished transfer to the owner, until it releases us. */
static void
multi_check_done(struct wrk_multi *m)
{
	CURLMsg		*msg;
	CURL		*easy;
	CURLcode	 code;
	int		 left;

	while (!m->released && (msg = curl_multi_info_read(m->multi,
	    &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		easy = msg->easy_handle;
		code = msg->data.result;
		m->done(m->owner, easy, code);
	}
}

void
wrk_multi_enter(struct wrk_multi *m)
{
	m->busy++;
}

void
wrk_multi_leave(struct wrk_multi *m)
{
	if (--m->busy == 0 && m->released)
		multi_destroy(m);
}

static void
multi_action(struct wrk_multi *m, curl_socket_t fd, int flags)
{
	int	running;

	wrk_multi_enter(m);
	curl_multi_socket_action(m->multi, fd, flags, &running);
	multi_check_done(m);
	wrk_multi_leave(m);
}

static void
multi_io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct multi_sock	*ms = w->data;
	int			 flags = 0;

	if (revents & EV_READ)
		flags |= CURL_CSELECT_IN;
	if (revents & EV_WRITE)
		flags |= CURL_CSELECT_OUT;
	/* ms may be gone after the action: use nothing of it afterwards. */
	multi_action(ms->m, ms->fd, flags);
}

static void
multi_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	multi_action(w->data, CURL_SOCKET_TIMEOUT, 0);
}

/* CURLMOPT_TIMERFUNCTION: curl asks for one timer, or for none. */
static int
multi_timer_set(CURLM *multi, long timeout_ms, void *arg)
{
	struct wrk_multi	*m = arg;

	ev_timer_stop(m->loop, &m->timer);
	if (timeout_ms >= 0) {
		/* Never act from inside curl: a zero timeout runs next turn. */
		ev_timer_set(&m->timer, (double)timeout_ms / 1000.0, 0.0);
		ev_timer_start(m->loop, &m->timer);
	}
	return 0;
}

/* CURLMOPT_SOCKETFUNCTION: curl says which socket to watch for what. */
static int
multi_sock_set(CURL *easy, curl_socket_t fd, int what, void *arg,
    void *sockp)
{
	struct wrk_multi	*m = arg;
	struct multi_sock	*ms = sockp;
	int			 events = 0;

	if (what == CURL_POLL_REMOVE) {
		if (ms != NULL) {
			multi_sock_free(m, ms);
			curl_multi_assign(m->multi, fd, NULL);
		}
		return 0;
	}
	if (ms == NULL) {
		ms = xcalloc(1, sizeof(*ms));
		ms->fd = fd;
		ms->m = m;
		ms->io.data = ms;
		ms->next = m->socks;
		if (m->socks != NULL)
			m->socks->prev = ms;
		m->socks = ms;
		ev_init(&ms->io, multi_io_cb);
		curl_multi_assign(m->multi, fd, ms);
	}
	if (what & CURL_POLL_IN)
		events |= EV_READ;
	if (what & CURL_POLL_OUT)
		events |= EV_WRITE;
	ev_io_stop(m->loop, &ms->io);
	ev_io_set(&ms->io, fd, events);
	ev_io_start(m->loop, &ms->io);
	return 0;
}

struct wrk_multi *
wrk_multi_new(struct ev_loop *loop, wrk_multi_done_cb *done,
    wrk_multi_destroy_cb *destroy, void *owner)
{
	struct wrk_multi	*m;

	m = xcalloc(1, sizeof(*m));
	if ((m->multi = curl_multi_init()) == NULL) {
		free(m);
		return NULL;
	}
	m->loop = loop;
	m->done = done;
	m->destroy = destroy;
	m->owner = owner;
	ev_init(&m->timer, multi_timer_cb);
	m->timer.data = m;
	curl_multi_setopt(m->multi, CURLMOPT_SOCKETFUNCTION, multi_sock_set);
	curl_multi_setopt(m->multi, CURLMOPT_SOCKETDATA, m);
	curl_multi_setopt(m->multi, CURLMOPT_TIMERFUNCTION, multi_timer_set);
	curl_multi_setopt(m->multi, CURLMOPT_TIMERDATA, m);
	return m;
}

CURLM *
wrk_multi_handle(struct wrk_multi *m)
{
	return m->multi;
}

static void
multi_destroy(struct wrk_multi *m)
{
	/* The owner removes its easy handles while the multi still exists. */
	if (m->destroy != NULL)
		m->destroy(m->owner);
	curl_multi_cleanup(m->multi);
	while (m->socks != NULL)
		multi_sock_free(m, m->socks);
	ev_timer_stop(m->loop, &m->timer);
	free(m);
}

void
wrk_multi_release(struct wrk_multi *m)
{
	if (m->released)
		return;
	m->released = 1;
	if (m->busy == 0)
		multi_destroy(m);
}

/* ------------------------------------------------------------------ */
/* the endpoint's requests                                             */

/* Buffers above this are given back when their request is done. */
#define HTTP_KEEP_BUF	(1024 * 1024)
/*
 * Every this often, the slots beyond the most in use at once since are
 * freed: a burst's slots (each an easy handle, its connection's buffers
 * and up to two HTTP_KEEP_BUF) do not stay for the worker's life.
 */
#define HTTP_TRIM_S	30.
#define HTTP_DEFAULT_DEADLINE_MS	30000

struct http_slot {
	struct wrk_http		*h;
	struct http_slot	*next_free;
	struct http_slot	*next_all;
	struct http_slot	*next_ready;
	CURL			*easy;
	ev_timer		 deadline;
	wrk_http_cb		*cb;
	void			*arg;
	uint64_t		 start_ms;
	uint64_t		 done_ms;	/* when curl finished it */
	uint32_t		 deadline_ms;
	struct buf		 req;
	struct buf		 resp;
	int			 too_large;
	int			 active;
	int			 ready;		/* finished, its answer not taken */
	CURLcode		 code;		/* how it finished */
	char			 errbuf[CURL_ERROR_SIZE];
};

struct wrk_http {
	struct ev_loop		*loop;
	struct wrk_multi	*m;
	struct curl_slist	*headers;
	char			*url;
	char			*ca_file;
	uint32_t		 connect_timeout_ms;
	size_t			 max_response;
	int			 https;
	struct http_slot	*free_slots;
	struct http_slot	*all_slots;
	unsigned		 n_slots;
	unsigned		 in_use;	/* slots not free */
	unsigned		 peak;		/* most in use since the trim */
	ev_timer		 trim;
	struct http_slot	*ready;		/* finished, waiting their turn */
	ev_timer		 turn;		/* takes one of them a loop turn */
	unsigned		 inflight;
	long			 connects;
};

/*
 * CURLOPT_WRITEFUNCTION.  Past the cap the transfer is aborted at once,
 * so a hostile answer costs at most max_response bytes of memory.
 */
static size_t
http_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct http_slot	*s = arg;
	size_t			 len = size * nmemb;

	if (buf_add_max(&s->resp, data, len, s->h->max_response) == -1) {
		s->too_large = 1;
		return 0;
	}
	return len;
}

static void
slot_put(struct wrk_http *h, struct http_slot *s)
{
	s->cb = NULL;
	s->arg = NULL;
	if (s->resp.cap > HTTP_KEEP_BUF)
		buf_free(&s->resp);
	if (s->req.cap > HTTP_KEEP_BUF)
		buf_free(&s->req);
	s->next_free = h->free_slots;
	h->free_slots = s;
	h->in_use--;
}

static void
slot_free(struct http_slot *s)
{
	ev_timer_stop(s->h->loop, &s->deadline);
	curl_easy_cleanup(s->easy);
	buf_free(&s->req);
	buf_free(&s->resp);
	free(s);
}

/* Free slots beyond the most in use at once since the last trim. */
static void
http_trim_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct wrk_http		*h = t->data;
	struct http_slot	**pp, *s;
	unsigned		  freed = 0;

	(void)loop;
	(void)revents;
	while (h->n_slots > h->peak && (s = h->free_slots) != NULL) {
		h->free_slots = s->next_free;
		for (pp = &h->all_slots; *pp != s; pp = &(*pp)->next_all)
			;
		*pp = s->next_all;
		slot_free(s);
		h->n_slots--;
		freed++;
	}
	if (freed > 0)
		log_debug("http: %u idle request slot%s freed, %u kept", freed,
		    freed == 1 ? "" : "s", h->n_slots);
	h->peak = h->in_use;
}

/* Ends a request: the reply is built from the slot, then cb runs. */
static void
slot_finish(struct http_slot *s, CURLcode code, const char *why)
{
	struct wrk_http		*h = s->h;
	struct wrk_http_reply	 r;
	long			 status = 0, nconn = 0;
	curl_off_t		 retry = 0;
	wrk_http_cb		*cb = s->cb;
	void			*arg = s->arg;

	ev_timer_stop(h->loop, &s->deadline);
	curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(s->easy, CURLINFO_NUM_CONNECTS, &nconn);
	/* Seconds or an HTTP date, as curl reads either. */
	if (curl_easy_getinfo(s->easy, CURLINFO_RETRY_AFTER, &retry) != CURLE_OK)
		retry = 0;
	curl_multi_remove_handle(wrk_multi_handle(h->m), s->easy);
	s->active = 0;
	h->inflight--;
	h->connects += nconn;

	buf_reserve(&s->resp, 0);	/* a string even when empty */
	memset(&r, 0, sizeof(r));
	r.curl_code = code;
	r.status = status;
	r.too_large = s->too_large || code == CURLE_FILESIZE_EXCEEDED;
	r.body = s->resp.p;
	r.len = s->resp.len;
	if (why != NULL)
		r.error = why;
	else if (s->errbuf[0] != '\0')
		r.error = s->errbuf;
	else
		r.error = code == CURLE_OK ? "" : curl_easy_strerror(code);
	/* The endpoint's time: not the turns its answer waited here. */
	r.latency_ms = (s->ready ? s->done_ms : now_mono_ms()) - s->start_ms;
	s->ready = 0;
	if (retry > 0)
		r.retry_after_ms = (uint64_t)(retry < 86400 ? retry : 86400) *
		    1000;

	/* The slot stays out of the pool while cb reads its body. */
	cb(arg, &r);
	slot_put(h, s);
}

/*
 * A finished transfer waits for its turn: one answer is taken a loop
 * turn, the smallest first.  Taking every answer that finished together
 * in one turn (a backfill's 100-header answers, each parsed, checked and
 * hashed) kept the loop from its other sockets for 20 to 100 ms, and a
 * head on the WebSocket, or a live read's small answer, waited for all of
 * them; now it waits for one at most.
 */
static void
http_done(void *owner, CURL *easy, CURLcode code)
{
	struct wrk_http		*h = owner;
	struct http_slot	*s;
	char			*priv = NULL;

	curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
	s = (struct http_slot *)(void *)priv;
	if (s == NULL || !s->active || s->ready)
		return;
	ev_timer_stop(h->loop, &s->deadline);
	s->ready = 1;
	s->done_ms = now_mono_ms();
	s->code = code;
	s->next_ready = h->ready;
	h->ready = s;
	if (!ev_is_active(&h->turn)) {
		ev_timer_set(&h->turn, 0.0, 0.0);
		ev_timer_start(h->loop, &h->turn);
	}
}

static void
http_turn_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct wrk_http		*h = w->data;
	struct wrk_multi	*m = h->m;
	struct http_slot	**pp, **least = NULL, *s;

	for (pp = &h->ready; *pp != NULL; pp = &(*pp)->next_ready)
		if (least == NULL || (*pp)->resp.len < (*least)->resp.len)
			least = pp;
	if (least == NULL)
		return;
	s = *least;
	*least = s->next_ready;
	wrk_multi_enter(m);
	if (h->ready != NULL) {
		ev_timer_set(&h->turn, 0.0, 0.0);
		ev_timer_start(loop, &h->turn);
	}
	slot_finish(s, s->code, NULL);	/* may free h: not used after */
	wrk_multi_leave(m);
}

static void
http_deadline_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct http_slot	*s = w->data;
	struct wrk_multi	*m = s->h->m;
	curl_socket_t		 fd = CURL_SOCKET_BAD;
	char			 why[64];

	if (!s->active || s->ready)
		return;
	wrk_multi_enter(m);
	/* An answer that waits in the socket first (wrk_ws_read_waiting). */
	if (curl_easy_getinfo(s->easy, CURLINFO_ACTIVESOCKET, &fd) ==
	    CURLE_OK && fd != CURL_SOCKET_BAD)
		multi_action(m, fd, CURL_CSELECT_IN);
	if (s->active && !s->ready) {
		snprintf(why, sizeof(why), "no answer within the %u ms "
		    "deadline", (unsigned)s->deadline_ms);
		slot_finish(s, CURLE_OPERATION_TIMEDOUT, why);
	}
	wrk_multi_leave(m);
}

static void
http_destroy(void *owner)
{
	struct wrk_http		*h = owner;
	struct http_slot	*s, *next;

	ev_timer_stop(h->loop, &h->turn);
	ev_timer_stop(h->loop, &h->trim);
	for (s = h->all_slots; s != NULL; s = next) {
		next = s->next_all;
		if (s->active)
			curl_multi_remove_handle(wrk_multi_handle(h->m),
			    s->easy);
		slot_free(s);
	}
	curl_slist_free_all(h->headers);
	free(h->url);
	free(h->ca_file);
	free(h);
}

static struct http_slot *
slot_new(struct wrk_http *h)
{
	struct http_slot	*s;
	CURL			*e;

	if ((e = curl_easy_init()) == NULL)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->h = h;
	s->easy = e;
	ev_init(&s->deadline, http_deadline_cb);
	s->deadline.data = s;

	/* Everything that does not change between requests is set once. */
	curl_easy_setopt(e, CURLOPT_URL, h->url);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(e, CURLOPT_PROTOCOLS,
	    (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(e, CURLOPT_POST, 1L);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, h->headers);
	curl_easy_setopt(e, CURLOPT_USERAGENT, PACKAGE_NAME "/" PACKAGE_VERSION);
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	/* Over TLS, wait for ALPN rather than open a second connection. */
	if (h->https)
		curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE,
	    (curl_off_t)h->max_response);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, http_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(e, CURLOPT_PRIVATE, s);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, s->errbuf);

	if (h->ca_file != NULL)
		curl_easy_setopt(e, CURLOPT_CAINFO, h->ca_file);

	s->next_all = h->all_slots;
	h->all_slots = s;
	h->n_slots++;
	return s;
}

struct wrk_http *
wrk_http_new(struct ev_loop *loop, const struct wrk_http_conf *conf)
{
	struct wrk_http		*h;
	struct curl_slist	*l = NULL, *t;
	const char		*hdr[] = {
		"Content-Type: application/json",
		"Accept: application/json",
		"Expect:",	/* no 100-continue round trip for big batches */
	};
	long			 conns;

	for (size_t i = 0; i < nitems(hdr); i++) {
		if ((t = curl_slist_append(l, hdr[i])) == NULL) {
			curl_slist_free_all(l);
			return NULL;
		}
		l = t;
	}
	h = xcalloc(1, sizeof(*h));
	h->loop = loop;
	h->headers = l;
	h->url = xstrdup(conf->url);
	h->ca_file = conf->ca_file != NULL ? xstrdup(conf->ca_file) : NULL;
	h->https = strncasecmp(conf->url, "https:", 6) == 0;
	h->connect_timeout_ms = conf->connect_timeout_ms;
	h->max_response = conf->max_response > 0 ? conf->max_response :
	    16 * 1024 * 1024;
	ev_init(&h->turn, http_turn_cb);
	h->turn.data = h;
	ev_timer_init(&h->trim, http_trim_cb, HTTP_TRIM_S, HTTP_TRIM_S);
	h->trim.data = h;
	if ((h->m = wrk_multi_new(loop, http_done, http_destroy, h)) == NULL) {
		curl_slist_free_all(l);
		free(h->url);
		free(h->ca_file);
		free(h);
		return NULL;
	}
	conns = conf->max_conns > 0 ? (long)conf->max_conns : 4;
	curl_multi_setopt(wrk_multi_handle(h->m), CURLMOPT_MAX_HOST_CONNECTIONS,
	    conns);
	curl_multi_setopt(wrk_multi_handle(h->m), CURLMOPT_MAXCONNECTS, conns);
	curl_multi_setopt(wrk_multi_handle(h->m), CURLMOPT_PIPELINING,
	    (long)CURLPIPE_MULTIPLEX);
	ev_timer_start(loop, &h->trim);
	return h;
}

void
wrk_http_free(struct wrk_http *h)
{
	if (h != NULL)
		wrk_multi_release(h->m);
}

int
wrk_http_post(struct wrk_http *h, const char *body, size_t len,
    uint32_t deadline_ms, wrk_http_cb *cb, void *arg)
{
	struct http_slot	*s;
	uint32_t		 ct;
	double			 lag;

	if ((s = h->free_slots) != NULL)
		h->free_slots = s->next_free;
	else if ((s = slot_new(h)) == NULL)
		return -1;
	if (++h->in_use > h->peak)
		h->peak = h->in_use;
	if (deadline_ms == 0)
		deadline_ms = HTTP_DEFAULT_DEADLINE_MS;
	ct = h->connect_timeout_ms;
	if (ct == 0 || ct > deadline_ms)
		ct = deadline_ms;

	buf_reset(&s->req);
	buf_add(&s->req, body, len);
	buf_reset(&s->resp);
	s->too_large = 0;
	s->errbuf[0] = '\0';
	s->cb = cb;
	s->arg = arg;
	curl_easy_setopt(s->easy, CURLOPT_POSTFIELDS, s->req.p);
	curl_easy_setopt(s->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(s->easy, CURLOPT_TIMEOUT_MS, (long)deadline_ms);
	curl_easy_setopt(s->easy, CURLOPT_CONNECTTIMEOUT_MS, (long)ct);

	/*
	 * Our own timer backs curl's: a request that curl keeps queued for a
	 * free connection must still end at its deadline.  The loop's cached
	 * time may lag; the lag is added so the timer is not early.
	 */
	lag = ev_time() - ev_now(h->loop);
	if (lag < 0)
		lag = 0;
	ev_timer_set(&s->deadline, (double)deadline_ms / 1000.0 + lag, 0.0);
	s->deadline_ms = deadline_ms;
	if (curl_multi_add_handle(wrk_multi_handle(h->m), s->easy) != CURLM_OK) {
		slot_put(h, s);
		return -1;
	}
	s->start_ms = now_mono_ms();
	s->active = 1;
	h->inflight++;
	ev_timer_start(h->loop, &s->deadline);
	return 0;
}

unsigned
wrk_http_inflight(const struct wrk_http *h)
{
	return h->inflight;
}

long
wrk_http_connects(const struct wrk_http *h)
{
	return h->connects;
}
