/*
 * Drives wrk_sub against the chain emulation of ws_server.py: heads
 * arrive with their numbers, a dropped or silent subscription comes back
 * by itself, and a chain that merely stalled is left alone.
 *   wrk_sub_client WS-BASE normal|drop|silent|stalled_chain|nofinal
 *   wrk_sub_client DEVNODE-WS-URL devnode DEVNODE-CONTROL-URL
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ev.h>
#include <curl/curl.h>

#include "log.h"
#include "util.h"
#include "wrk_client.h"
#include "wrk_http.h"
#include "wrk_sub.h"

struct st {
	const char	*mode;
	struct wrk_sub	*sub;
	int		 heads;
	int		 finalized;
	int		 unnumbered;
	int		 backwards;	/* numbers going down within a connection */
	uint64_t	 last;
	unsigned	 last_reconnects;
	int		 heads_since_reconnect;
	int		 lives;
	int		 downs;
	int		 done;
	int		 tell_http_ahead;
	/* devnode mode: faults switched through the control port */
	const char	*ctl;
	struct wrk_http	*ctl_http;
	int		 phase;
	int		 ctl_busy;
	unsigned	 mark;
};

static void
on_head(void *arg, const struct wrk_sub_head *h)
{
	struct st	*s = arg;
	unsigned	 rc = wrk_sub_reconnects(s->sub);

	if (!h->has_number) {
		s->unnumbered++;
		return;
	}
	if (h->kind == WRK_SUB_FINALIZED) {
		s->finalized++;
		return;
	}
	if (rc != s->last_reconnects) {
		s->last_reconnects = rc;
		s->heads_since_reconnect = 0;
	} else if (s->heads > 0 && h->number <= s->last)
		s->backwards++;
	s->heads++;
	s->heads_since_reconnect++;
	s->last = h->number;
	/* What the worker's HTTP reads would report: ahead, or level. */
	wrk_sub_http_best(s->sub, s->tell_http_ahead ? h->number + 5 :
	    h->number);
	if ((strcmp(s->mode, "drop") == 0 || strcmp(s->mode, "silent") == 0) &&
	    rc >= 2 && s->heads_since_reconnect >= 2)
		s->done = 1;
	if (strcmp(s->mode, "nofinal") == 0 && s->heads >= 5)
		s->done = 1;
	if (strcmp(s->mode, "normal") == 0 && s->heads >= 10 &&
	    s->finalized >= 2)
		s->done = 1;
}

static void
on_status(void *arg, int live, const char *why)
{
	struct st	*s = arg;

	if (live)
		s->lives++;
	else
		s->downs++;
}

static void
ctl_cb(void *arg, const struct wrk_http_reply *r)
{
	struct st	*s = arg;

	if (r->curl_code != CURLE_OK || r->status != 200)
		check(0, "devnode control answered %ld (%s)", r->status,
		    r->error);
	s->ctl_busy = 0;
}

static void
ctl_post(struct st *s, const char *spec)
{
	char	body[200];

	if (*spec != '\0')
		snprintf(body, sizeof(body), "{\"clear\":true,\"enable\":"
		    "[\"%s\"]}", spec);
	else
		snprintf(body, sizeof(body), "{\"clear\":true}");
	s->ctl_busy = 1;
	wrk_http_post(s->ctl_http, body, strlen(body), 5000, ctl_cb, s);
	printf("devnode: faults now: %s\n", *spec ? spec : "none");
	fflush(stdout);
}

/*
 * devnode: heads; ws_drop until a reconnection; heads again; ws_silent
 * (HTTP told it is ahead) until the stall is noticed; heads again.
 */
static void
tick_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	struct st	*s = w->data;
	unsigned	 rc = wrk_sub_reconnects(s->sub);

	if (s->ctl_busy)
		return;
	switch (s->phase) {
	case 0:
		if (s->heads >= 2) {
			s->mark = rc;
			ctl_post(s, "ws_drop@ws");
			s->phase++;
		}
		break;
	case 1:
		if (rc > s->mark) {
			ctl_post(s, "");
			s->phase++;
		}
		break;
	case 2:
		if (s->heads_since_reconnect >= 2 && rc == s->last_reconnects) {
			s->mark = rc;
			ctl_post(s, "ws_silent@ws");
			wrk_sub_http_best(s->sub, s->last + 5);
			s->phase++;
		}
		break;
	case 3:
		if (rc > s->mark) {
			ctl_post(s, "");
			s->phase++;
		}
		break;
	case 4:
		if (rc == s->last_reconnects && s->heads_since_reconnect >= 2)
			s->done = 1;
		break;
	}
}

int
main(int argc, char *argv[])
{
	struct st		s;
	struct wrk_sub_conf	c = { 0 };
	struct wrk_sub_cbs	cb = { on_head, on_status, NULL };
	char			url[512];
	ev_timer		t;
	int			expired = 0;
	double			limit = 20;
	const char		*path;
	ev_timer		 tick;

	if (argc != 3 && !(argc == 4 && strcmp(argv[2], "devnode") == 0)) {
		fprintf(stderr, "usage: wrk_sub_client ws-base mode\n");
		return CW_EXIT_USAGE;
	}
	client_init("wrk_sub_client", "w/test");
	memset(&s, 0, sizeof(s));
	s.mode = argv[2];
	s.tell_http_ahead = 1;
	path = s.mode;
	if (strcmp(s.mode, "stalled_chain") == 0) {
		/* Silent after 3 heads, but HTTP sees nothing newer either. */
		path = "silent";
		s.tell_http_ahead = 0;
		limit = 4;
	}
	snprintf(url, sizeof(url), "%s/chain/%s", argv[1], path);
	c.url = url;
	c.block_time_ms = 200;		/* the emulation sends every 100 ms */
	if (strcmp(s.mode, "devnode") == 0) {
		struct wrk_http_conf	hc = { 0 };
		char			ctl[512];

		snprintf(url, sizeof(url), "%s/", argv[1]);
		snprintf(ctl, sizeof(ctl), "%s/control", argv[3]);
		hc.url = ctl;
		s.ctl_http = wrk_http_new(loop, &hc);
		s.tell_http_ahead = 0;
		c.block_time_ms = 300;	/* run devnode with --block-time 300 */
		limit = 30;
		ev_timer_init(&tick, tick_cb, 0.05, 0.05);
		tick.data = &s;
		ev_timer_start(loop, &tick);
	}
	c.stall_factor = 3;
	c.connect_timeout_ms = 2000;
	c.handshake_timeout_ms = 2000;
	c.finalized = 1;
	if ((s.sub = wrk_sub_start(loop, &c, &cb, &s)) == NULL) {
		check(0, "wrk_sub_start %s", url);
		return 1;
	}
	ev_timer_init(&t, client_stop_cb, limit, 0.0);
	t.data = &expired;
	ev_timer_start(loop, &t);
	while (!s.done && !expired)
		ev_run(loop, EVRUN_ONCE);

	if (strcmp(s.mode, "drop") == 0 || strcmp(s.mode, "silent") == 0) {
		check(s.done, "%s: %u reconnections, %d heads after the last "
		    "(%d heads in all)", s.mode, wrk_sub_reconnects(s.sub),
		    s.heads_since_reconnect, s.heads);
		check(s.lives >= 3 && s.downs >= 2, "status: live %d times, "
		    "down %d times", s.lives, s.downs);
	} else if (strcmp(s.mode, "stalled_chain") == 0) {
		check(s.heads == 3 && wrk_sub_reconnects(s.sub) == 0,
		    "a stalled chain is not a dead subscription: %d heads, "
		    "%u reconnections in %.0f s", s.heads,
		    wrk_sub_reconnects(s.sub), limit);
	} else if (strcmp(s.mode, "nofinal") == 0) {
		check(s.done && wrk_sub_reconnects(s.sub) == 0, "finalized "
		    "heads refused, new heads go on: %d heads, %u "
		    "reconnections", s.heads, wrk_sub_reconnects(s.sub));
	} else if (strcmp(s.mode, "devnode") == 0) {
		check(s.done, "devnode: reconnected after ws_drop and after "
		    "ws_silent, heads after each (phase %d, %u reconnections, "
		    "%d heads)", s.phase, wrk_sub_reconnects(s.sub), s.heads);
		ev_timer_stop(loop, &tick);
		wrk_http_free(s.ctl_http);
	} else if (strcmp(s.mode, "normal") == 0) {
		check(s.done, "%d new heads, %d finalized heads", s.heads,
		    s.finalized);
	}
	check(s.unnumbered == 0, "every head's zero-padded number parsed "
	    "(%d not)", s.unnumbered);
	check(s.backwards == 0, "numbers only go up within a connection");

	/* Stopping from outside a callback; nothing may fire afterwards. */
	wrk_sub_stop(s.sub);
	ev_timer_stop(loop, &t);
	expired = 0;
	ev_timer_set(&t, 0.3, 0.0);
	ev_timer_start(loop, &t);
	while (!expired)
		ev_run(loop, EVRUN_ONCE);
	return client_finish();
}
