/*
 * Head subscriptions of one endpoint over wrk_ws.  One transition function
 * (wrk_sub_transition) decides what every event leads to; the rest opens
 * the WebSocket, subscribes, delivers heads and times the reconnections.
 */
#include "config.h"

#include <sys/random.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ev.h>
#include <jansson.h>

#include "log.h"
#include "util.h"
#include "wrk_rpc.h"
#include "wrk_sub.h"
#include "wrk_ws.h"

#define SUB_ID_NEW	1
#define SUB_ID_FIN	2

/* ------------------------------------------------------------------ */
/* the rules                                                           */

struct wrk_sub_step
wrk_sub_transition(enum wrk_sub_state s, enum wrk_sub_event ev)
{
	struct wrk_sub_step	stay = { s, WRK_SUB_DO_NOTHING };
	struct wrk_sub_step	retry = { WRK_SUB_BACKOFF, WRK_SUB_DO_RETRY };

	if (s == WRK_SUB_STOPPED)
		return stay;
	if (ev == WRK_SUB_EV_STOP)
		return (struct wrk_sub_step){ WRK_SUB_STOPPED, WRK_SUB_DO_STOP };
	switch (s) {
	case WRK_SUB_CONNECTING:
		if (ev == WRK_SUB_EV_OPEN)
			return (struct wrk_sub_step){ WRK_SUB_SUBSCRIBING,
			    WRK_SUB_DO_SUBSCRIBE };
		if (ev == WRK_SUB_EV_CLOSED)
			return retry;
		break;
	case WRK_SUB_SUBSCRIBING:
		if (ev == WRK_SUB_EV_SUBSCRIBED)
			return (struct wrk_sub_step){ WRK_SUB_LIVE,
			    WRK_SUB_DO_GO_LIVE };
		if (ev == WRK_SUB_EV_FAILED || ev == WRK_SUB_EV_CLOSED)
			return retry;
		break;
	case WRK_SUB_LIVE:
		if (ev == WRK_SUB_EV_CLOSED || ev == WRK_SUB_EV_STALLED ||
		    ev == WRK_SUB_EV_FAILED)
			return retry;
		break;
	case WRK_SUB_BACKOFF:
		if (ev == WRK_SUB_EV_TIMER)
			return (struct wrk_sub_step){ WRK_SUB_CONNECTING,
			    WRK_SUB_DO_CONNECT };
		break;
	default:
		break;
	}
	return stay;
}

const char *
wrk_sub_state_name(enum wrk_sub_state s)
{
	static const char *const names[WRK_SUB_NSTATES] = {
		"connecting", "subscribing", "live", "backoff", "stopped",
	};

	return (unsigned)s < WRK_SUB_NSTATES ? names[s] : "?";
}

uint32_t
wrk_sub_backoff_ms(unsigned attempt, uint32_t rnd)
{
	uint64_t	hi = 2 * WRK_SUB_BACKOFF_MIN_MS, lo;

	while (attempt-- > 0 && hi < WRK_SUB_BACKOFF_MAX_MS)
		hi *= 2;
	if (hi > WRK_SUB_BACKOFF_MAX_MS)
		hi = WRK_SUB_BACKOFF_MAX_MS;
	lo = hi / 2;
	if (lo < WRK_SUB_BACKOFF_MIN_MS)
		lo = WRK_SUB_BACKOFF_MIN_MS;
	return (uint32_t)(lo + (hi - lo) * (uint64_t)rnd / UINT32_MAX);
}

int
wrk_sub_backoff_over(uint64_t now_ms, uint64_t live_ms, uint64_t last_head_ms,
    uint64_t limit_ms)
{
	return live_ms != 0 && last_head_ms > live_ms && now_ms >= live_ms &&
	    now_ms - live_ms >= limit_ms;
}

int
wrk_sub_stalled(uint64_t now_ms, uint64_t since_ms, uint64_t limit_ms,
    int have_ws, uint64_t ws_best, int have_http, uint64_t http_best)
{
	if (!have_http || now_ms < since_ms || now_ms - since_ms < limit_ms)
		return 0;
	return !have_ws || http_best > ws_best;
}

uint64_t
wrk_sub_next_check(enum wrk_sub_state state, uint64_t now_ms,
    uint64_t since_ms, uint64_t limit_ms, uint64_t subscribing_ms,
    uint64_t hs_timeout_ms, uint64_t every_ms)
{
	uint64_t	due;

	if (state == WRK_SUB_SUBSCRIBING)
		due = subscribing_ms + hs_timeout_ms;
	else if (state == WRK_SUB_LIVE)
		due = since_ms + limit_ms;
	else
		return 0;
	return due > now_ms ? due : now_ms + every_ms;
}

/* ------------------------------------------------------------------ */
/* the subscription                                                    */

struct wrk_sub {
	struct ev_loop		*loop;
	struct wrk_sub_conf	 conf;
	char			*url;
	char			*ca_file;
	char			 name[256];	/* the URL without its password */
	struct wrk_sub_cbs	 cbs;
	void			*arg;
	enum wrk_sub_state	 state;
	struct wrk_ws		*ws;
	ev_timer		 backoff;
	ev_timer		 check;		/* stall and subscribe deadlines */
	unsigned		 attempt;	/* reconnections since a good run */
	uint64_t		 live_ms;	/* went live, 0 when not live */
	unsigned		 reconnects;
	uint64_t		 since_ms;	/* live, or the last new head */
	uint64_t		 subscribing_ms;
	uint64_t		 limit_ms;
	uint64_t		 every_ms;	/* checks once past the limit */
	int			 have_ws;
	uint64_t		 ws_best;
	int			 have_http;
	uint64_t		 http_best;
	char			 new_id[80];
	char			 fin_id[80];
	int			 busy;
	int			 dead;
};

static void	sub_event(struct wrk_sub *, enum wrk_sub_event, const char *);

/* The check's timer set for the next deadline (wrk_sub_next_check). */
static void
sub_check_arm(struct wrk_sub *sub)
{
	uint64_t	now = now_mono_ms(), at;

	ev_timer_stop(sub->loop, &sub->check);
	if (sub->dead)
		return;
	at = wrk_sub_next_check(sub->state, now, sub->since_ms, sub->limit_ms,
	    sub->subscribing_ms, sub->conf.handshake_timeout_ms,
	    sub->every_ms);
	if (at == 0)
		return;
	ev_timer_set(&sub->check, (double)(at - now) / 1000.0, 0.0);
	ev_timer_start(sub->loop, &sub->check);
}

static void
sub_enter(struct wrk_sub *sub)
{
	sub->busy++;
}

static void
sub_leave(struct wrk_sub *sub)
{
	if (--sub->busy == 0 && sub->dead) {
		free(sub->url);
		free(sub->ca_file);
		free(sub);
	}
}

static uint32_t
sub_random(struct wrk_sub *sub)
{
	uint32_t	r;

	if (sub->conf.random != NULL)
		return sub->conf.random(sub->conf.random_arg);
	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r = (uint32_t)now_mono_ms() * 2654435761u;
	return r;
}

static void
sub_status(struct wrk_sub *sub, int live, const char *why)
{
	if (sub->cbs.status != NULL && !sub->dead)
		sub->cbs.status(sub->arg, live, why);
}

/* A subscription id as text: nodes send strings, some proxies numbers. */
/* A message held against the endpoint (see wrk_sub_cbs). */
static void
sub_bad(struct wrk_sub *sub, enum outcome o, const char *fmt, ...)
{
	char	why[200];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	log_debug("ws %s: %s", sub->name, why);
	if (sub->cbs.bad != NULL && !sub->dead)
		sub->cbs.bad(sub->arg, o, why);
}

static int
sub_id_text(json_t *v, char *out, size_t len)
{
	if (json_is_string(v) && json_string_length(v) > 0 &&
	    json_string_length(v) < len) {
		snprintf(out, len, "%s", json_string_value(v));
		return 0;
	}
	if (json_is_integer(v)) {
		snprintf(out, len, "%" JSON_INTEGER_FORMAT,
		    json_integer_value(v));
		return 0;
	}
	return -1;
}

static const char *
sub_error_text(json_t *doc, char *buf, size_t len)
{
	json_t	*e = json_object_get(doc, "error");
	json_t	*m = json_object_get(e, "message");
	json_t	*c = json_object_get(e, "code");

	if (json_is_integer(c) && json_is_string(m))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT " %s",
		    json_integer_value(c), json_string_value(m));
	else if (json_is_string(m))
		snprintf(buf, len, "%s", json_string_value(m));
	else if (e != NULL && !json_is_null(e))
		snprintf(buf, len, "an error without a message");
	else
		snprintf(buf, len, "no subscription id in the answer");
	return buf;
}

static void
sub_answer(struct wrk_sub *sub, json_int_t id, json_t *doc)
{
	json_t	*res = json_object_get(doc, "result");
	json_t	*err = json_object_get(doc, "error");
	char	 buf[160], why[200];
	int	 ok;

	ok = (err == NULL || json_is_null(err));
	if (id == SUB_ID_NEW) {
		if (ok && sub_id_text(res, sub->new_id, sizeof(sub->new_id))
		    == 0)
			sub_event(sub, WRK_SUB_EV_SUBSCRIBED, NULL);
		else {
			snprintf(why, sizeof(why), "chain_subscribeNewHeads "
			    "refused (%s)", sub_error_text(doc, buf,
			    sizeof(buf)));
			sub_event(sub, WRK_SUB_EV_FAILED, why);
		}
	} else if (id == SUB_ID_FIN) {
		if (ok && sub_id_text(res, sub->fin_id, sizeof(sub->fin_id))
		    == 0)
			log_debug("ws %s: finalized heads subscribed",
			    sub->name);
		else
			log_warnx("ws %s: chain_subscribeFinalizedHeads refused "
			    "(%s), following new heads only", sub->name,
			    sub_error_text(doc, buf, sizeof(buf)));
	}
}

static void
sub_notification(struct wrk_sub *sub, const char *method, json_t *params)
{
	struct wrk_sub_head	 h;
	json_t			*header;
	char			 id[80];

	header = json_object_get(params, "result");
	if (!json_is_object(header)) {
		sub_bad(sub, OUTCOME_MALFORMED, "%s notification without a "
		    "header", method);
		return;
	}
	/* By subscription id; by method name while the id is unknown. */
	if (sub_id_text(json_object_get(params, "subscription"), id,
	    sizeof(id)) == -1)
		id[0] = '\0';
	if (sub->new_id[0] != '\0' && strcmp(id, sub->new_id) == 0)
		h.kind = WRK_SUB_NEW;
	else if (sub->fin_id[0] != '\0' && strcmp(id, sub->fin_id) == 0)
		h.kind = WRK_SUB_FINALIZED;
	else if (strcmp(method, "chain_newHead") == 0)
		h.kind = WRK_SUB_NEW;
	else if (strcmp(method, "chain_finalizedHead") == 0 ||
	    strcmp(method, "chain_finalisedHead") == 0)
		h.kind = WRK_SUB_FINALIZED;
	else {
		sub_bad(sub, OUTCOME_MALFORMED, "%s notification for no "
		    "subscription of ours", method);
		return;
	}
	h.header = header;
	h.has_number = wrk_rpc_quantity(json_object_get(header, "number"),
	    &h.number) == 0;
	if (h.kind == WRK_SUB_NEW) {
		sub->since_ms = now_mono_ms();
		sub_check_arm(sub);
		if (h.has_number && (!sub->have_ws || h.number > sub->ws_best)) {
			sub->ws_best = h.number;
			sub->have_ws = 1;
		}
	}
	if (sub->cbs.head != NULL)
		sub->cbs.head(sub->arg, &h);
}

static void
sub_ws_message(void *arg, const char *data, size_t len)
{
	struct wrk_sub	*sub = arg;
	json_t		*doc, *id, *method, *params;
	json_error_t	 e;

	sub_enter(sub);
	if ((doc = json_loadb(data, len, 0, &e)) == NULL) {
		sub_bad(sub, OUTCOME_MALFORMED, "message is not JSON (%s)",
		    e.text);
		goto out;
	}
	id = json_object_get(doc, "id");
	method = json_object_get(doc, "method");
	params = json_object_get(doc, "params");
	if (json_is_integer(id))
		sub_answer(sub, json_integer_value(id), doc);
	else if (json_is_string(method) && json_is_object(params))
		sub_notification(sub, json_string_value(method), params);
	else
		sub_bad(sub, OUTCOME_MALFORMED, "message is not JSON-RPC");
	json_decref(doc);
out:
	sub_leave(sub);
}

static void
sub_ws_open(void *arg)
{
	struct wrk_sub	*sub = arg;

	sub_enter(sub);
	sub_event(sub, WRK_SUB_EV_OPEN, NULL);
	sub_leave(sub);
}

static void
sub_ws_closed(void *arg, unsigned code, const char *why)
{
	struct wrk_sub	*sub = arg;
	char		 buf[300];

	sub_enter(sub);
	if (code == WRK_WS_TOO_BIG)
		sub_bad(sub, OUTCOME_TOO_LARGE, "%s", why);
	snprintf(buf, sizeof(buf), "ws closed (%u, %s)", code, why);
	sub_event(sub, WRK_SUB_EV_CLOSED, buf);
	sub_leave(sub);
}

static void
sub_connect(struct wrk_sub *sub)
{
	struct wrk_ws_conf	c = {
		.url = sub->url,
		.connect_timeout_ms = sub->conf.connect_timeout_ms,
		.handshake_timeout_ms = sub->conf.handshake_timeout_ms,
		.max_message = sub->conf.max_message,
		.ca_file = sub->ca_file,
	};
	struct wrk_ws_cbs	cb = {
		.open = sub_ws_open,
		.message = sub_ws_message,
		.closed = sub_ws_closed,
	};

	sub->new_id[0] = sub->fin_id[0] = '\0';
	log_debug("ws %s: connecting", sub->name);
	if ((sub->ws = wrk_ws_open(sub->loop, &c, &cb, sub)) == NULL)
		sub_event(sub, WRK_SUB_EV_CLOSED, "ws could not be opened");
}

static void
sub_subscribe(struct wrk_sub *sub)
{
	static const char	 new_req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"chain_subscribeNewHeads\",\"params\":[]}";
	static const char	 fin_req[] = "{\"jsonrpc\":\"2.0\",\"id\":2,"
	    "\"method\":\"chain_subscribeFinalizedHeads\",\"params\":[]}";

	sub->subscribing_ms = now_mono_ms();
	sub_check_arm(sub);
	if (wrk_ws_send(sub->ws, new_req, sizeof(new_req) - 1) == -1 ||
	    (sub->conf.finalized &&
	    wrk_ws_send(sub->ws, fin_req, sizeof(fin_req) - 1) == -1))
		sub_event(sub, WRK_SUB_EV_FAILED, "subscribe request not sent");
}

static void
sub_retry(struct wrk_sub *sub, const char *why)
{
	uint32_t	delay;

	wrk_ws_free(sub->ws);
	sub->ws = NULL;
	if (wrk_sub_backoff_over(now_mono_ms(), sub->live_ms, sub->since_ms,
	    sub->limit_ms))
		sub->attempt = 0;
	sub->live_ms = 0;
	delay = wrk_sub_backoff_ms(sub->attempt, sub_random(sub));
	if (sub->attempt < 64)
		sub->attempt++;
	log_warnx("ws %s: %s, reconnecting in %.1f s", sub->name,
	    why != NULL ? why : "failed", (double)delay / 1000.0);
	sub_status(sub, 0, why);
	ev_timer_set(&sub->backoff, (double)delay / 1000.0, 0.0);
	ev_timer_start(sub->loop, &sub->backoff);
}

/* The one place where events change the state and act. */
static void
sub_event(struct wrk_sub *sub, enum wrk_sub_event ev, const char *why)
{
	struct wrk_sub_step	step;
	enum wrk_sub_state	prev = sub->state;

	step = wrk_sub_transition(sub->state, ev);
	sub->state = step.next;
	log_debug("ws %s: %s -> %s", sub->name, wrk_sub_state_name(prev),
	    wrk_sub_state_name(step.next));
	switch (step.action) {
	case WRK_SUB_DO_NOTHING:
		break;
	case WRK_SUB_DO_CONNECT:
		if (prev == WRK_SUB_BACKOFF)
			sub->reconnects++;
		sub_connect(sub);
		break;
	case WRK_SUB_DO_SUBSCRIBE:
		sub_subscribe(sub);
		break;
	case WRK_SUB_DO_GO_LIVE:
		sub->since_ms = sub->live_ms = now_mono_ms();
		sub_check_arm(sub);
		log_info("ws %s: following new heads%s", sub->name,
		    sub->conf.finalized ? " and finalized heads" : "");
		sub_status(sub, 1, "subscribed");
		break;
	case WRK_SUB_DO_RETRY:
		sub_retry(sub, why);
		break;
	case WRK_SUB_DO_STOP:
		wrk_ws_free(sub->ws);
		sub->ws = NULL;
		ev_timer_stop(sub->loop, &sub->backoff);
		ev_timer_stop(sub->loop, &sub->check);
		sub->dead = 1;
		break;
	}
}

static void
sub_backoff_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct wrk_sub	*sub = w->data;

	sub_enter(sub);
	sub_event(sub, WRK_SUB_EV_TIMER, NULL);
	sub_leave(sub);
}

static void
sub_check_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct wrk_sub	*sub = w->data;
	uint64_t	 now = now_mono_ms();
	char		 why[200];

	sub_enter(sub);
	/* Heads that wait in the socket first (wrk_ws_read_waiting). */
	if (sub->ws != NULL && (sub->state == WRK_SUB_SUBSCRIBING ||
	    sub->state == WRK_SUB_LIVE)) {
		wrk_ws_read_waiting(sub->ws);
		now = now_mono_ms();
	}
	if (sub->state == WRK_SUB_SUBSCRIBING && now - sub->subscribing_ms >=
	    sub->conf.handshake_timeout_ms) {
		snprintf(why, sizeof(why), "no answer to chain_subscribeNewHeads "
		    "within %u ms", (unsigned)sub->conf.handshake_timeout_ms);
		sub_event(sub, WRK_SUB_EV_FAILED, why);
	} else if (sub->state == WRK_SUB_LIVE && wrk_sub_stalled(now,
	    sub->since_ms, sub->limit_ms, sub->have_ws, sub->ws_best,
	    sub->have_http, sub->http_best)) {
		if (sub->have_ws)
			snprintf(why, sizeof(why), "no head for %.1f s while "
			    "HTTP is at #%" PRIu64 " (ws at #%" PRIu64 "), "
			    "subscription dead",
			    (double)(now - sub->since_ms) / 1000.0,
			    sub->http_best, sub->ws_best);
		else
			snprintf(why, sizeof(why), "no head for %.1f s while "
			    "HTTP is at #%" PRIu64 ", subscription dead",
			    (double)(now - sub->since_ms) / 1000.0,
			    sub->http_best);
		sub_event(sub, WRK_SUB_EV_STALLED, why);
	}
	sub_check_arm(sub);
	sub_leave(sub);
}

struct wrk_sub *
wrk_sub_start(struct ev_loop *loop, const struct wrk_sub_conf *conf,
    const struct wrk_sub_cbs *cbs, void *arg)
{
	struct wrk_sub	*sub;
	uint64_t	 every;

	if (conf->url == NULL || (strncasecmp(conf->url, "ws://", 5) != 0 &&
	    strncasecmp(conf->url, "wss://", 6) != 0))
		return NULL;
	sub = xcalloc(1, sizeof(*sub));
	sub->loop = loop;
	sub->conf = *conf;
	sub->url = xstrdup(conf->url);
	sub->conf.url = sub->url;
	sub->ca_file = conf->ca_file != NULL ? xstrdup(conf->ca_file) : NULL;
	sub->conf.ca_file = sub->ca_file;
	if (sub->conf.block_time_ms == 0)
		sub->conf.block_time_ms = 12000;
	if (sub->conf.stall_factor <= 0)
		sub->conf.stall_factor = 3.0;
	if (sub->conf.handshake_timeout_ms == 0)
		sub->conf.handshake_timeout_ms = 10000;
	sub->limit_ms = (uint64_t)(sub->conf.stall_factor *
	    sub->conf.block_time_ms);
	url_redact(conf->url, sub->name, sizeof(sub->name));
	sub->cbs = *cbs;
	sub->arg = arg;
	ev_init(&sub->backoff, sub_backoff_cb);
	sub->backoff.data = sub;
	/*
	 * Past the stall limit with HTTP not ahead (the chain itself may
	 * have stopped), it looks again within a quarter of the limit, and
	 * at once when HTTP's head passes the subscription's.
	 */
	every = sub->limit_ms / 4;
	sub->every_ms = every > 1000 ? 1000 : every < 50 ? 50 : every;
	ev_init(&sub->check, sub_check_cb);
	sub->check.data = sub;

	sub->state = WRK_SUB_CONNECTING;
	sub_enter(sub);
	sub_connect(sub);
	sub_leave(sub);
	return sub;
}

void
wrk_sub_stop(struct wrk_sub *sub)
{
	if (sub == NULL || sub->dead)
		return;
	sub_enter(sub);
	sub_event(sub, WRK_SUB_EV_STOP, NULL);
	sub_leave(sub);
}

void
wrk_sub_http_best(struct wrk_sub *sub, uint64_t number)
{
	if (!sub->have_http || number > sub->http_best) {
		sub->http_best = number;
		sub->have_http = 1;
		/* Ahead of a subscription past its limit: judged next turn. */
		if (sub->state == WRK_SUB_LIVE && wrk_sub_stalled(now_mono_ms(),
		    sub->since_ms, sub->limit_ms, sub->have_ws, sub->ws_best,
		    sub->have_http, sub->http_best)) {
			ev_timer_stop(sub->loop, &sub->check);
			ev_timer_set(&sub->check, 0.0, 0.0);
			ev_timer_start(sub->loop, &sub->check);
		}
	}
}

unsigned
wrk_sub_reconnects(const struct wrk_sub *sub)
{
	return sub->reconnects;
}
