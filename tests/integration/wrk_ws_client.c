/*
 * Drives one wrk_ws connection against tests/integration/ws_server.py and
 * checks what a peer would see: messages whole, pongs, close codes.
 *   wrk_ws_client WS-BASE RAW-BASE SCENARIO    (prints PASS/FAIL, exit 0/1)
 * WS-BASE may be wss://; WRK_TEST_CA then names the server's certificate.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ev.h>
#include <curl/curl.h>

#include "log.h"
#include "util.h"
#include "wrk_client.h"
#include "wrk_ws.h"

#define BIG	200000
#define NMSG	8

struct st {
	const char	*scenario;
	struct wrk_ws	*ws;
	int		 opened;
	int		 closed;
	unsigned	 code;
	char		 why[256];
	int		 nmsg;
	char		*msg[NMSG];
	size_t		 len[NMSG];
	uint64_t	 t0;
	uint64_t	 t_closed;
	char		*big;
};

static int
is(const char *scenario, const char *name)
{
	return strcmp(scenario, name) == 0;
}

static void
on_open(void *arg)
{
	struct st	*s = arg;

	s->opened = 1;
	if (is(s->scenario, "big"))
		wrk_ws_send(s->ws, s->big, BIG);
	else if (is(s->scenario, "masking"))
		wrk_ws_send(s->ws, "check", 5);
	else if (strncmp(s->scenario, "close_", 6) == 0 ||
	    is(s->scenario, "drop") || is(s->scenario, "client_close") ||
	    is(s->scenario, "free_in_cb"))
		wrk_ws_send(s->ws, "hello", 5);
}

static void
on_message(void *arg, const char *data, size_t len)
{
	struct st	*s = arg;

	if (s->nmsg < NMSG) {
		s->msg[s->nmsg] = xmalloc(len + 1);
		memcpy(s->msg[s->nmsg], data, len);
		s->msg[s->nmsg][len] = '\0';
		s->len[s->nmsg] = len;
		s->nmsg++;
	}
	if (is(s->scenario, "client_close"))
		wrk_ws_close(s->ws, WRK_WS_NORMAL, "bye");
	else if ((is(s->scenario, "big") && s->nmsg == 2) ||
	    (is(s->scenario, "fragments") && s->nmsg == 2) ||
	    ((is(s->scenario, "ping") || is(s->scenario, "masking") ||
	    is(s->scenario, "split")) && s->nmsg == 1))
		wrk_ws_close(s->ws, WRK_WS_NORMAL, "done");
	else if (is(s->scenario, "free_in_cb")) {
		/* Freeing from inside a callback must be safe. */
		wrk_ws_free(s->ws);
		s->ws = NULL;
		s->closed = 1;
		s->t_closed = now_mono_ms();
	}
}

static void
on_closed(void *arg, unsigned code, const char *why)
{
	struct st	*s = arg;

	s->closed = 1;
	s->code = code;
	s->t_closed = now_mono_ms();
	snprintf(s->why, sizeof(s->why), "%s", why);
}

static void
run(struct st *s, double limit)
{
	ev_timer	t;
	int		expired = 0;

	ev_timer_init(&t, client_stop_cb, limit, 0.0);
	t.data = &expired;
	ev_timer_start(loop, &t);
	while (!s->closed && !expired)
		ev_run(loop, EVRUN_ONCE);
	ev_timer_stop(loop, &t);
}

/* Lets the loop turn a while: nothing may fire after a free. */
static void
idle(double secs)
{
	ev_timer	t;
	int		expired = 0;

	ev_timer_init(&t, client_stop_cb, secs, 0.0);
	t.data = &expired;
	ev_timer_start(loop, &t);
	while (!expired)
		ev_run(loop, EVRUN_ONCE);
}

static int
is_pattern(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != 'a' + (char)(i % 26))
			return 0;
	return 1;
}

int
main(int argc, char *argv[])
{
	struct st		 s;
	struct wrk_ws_conf	 c = { 0 };
	struct wrk_ws_cbs	 cb = { on_open, on_message, on_closed };
	const char		*ws, *raw, *sc;
	char			 url[512];
	unsigned		 want;

	if (argc != 4) {
		fprintf(stderr, "usage: wrk_ws_client ws-base raw-base "
		    "scenario\n");
		return CW_EXIT_USAGE;
	}
	ws = argv[1];
	raw = argv[2];
	sc = argv[3];
	client_init("wrk_ws_client", NULL);

	memset(&s, 0, sizeof(s));
	s.scenario = sc;
	s.big = xmalloc(BIG);
	for (size_t i = 0; i < BIG; i++)
		s.big[i] = (char)('a' + i % 26);
	c.connect_timeout_ms = 2000;
	c.handshake_timeout_ms = 5000;
	c.max_message = 1 << 20;
	c.ca_file = getenv("WRK_TEST_CA");

	if (is(sc, "big"))
		snprintf(url, sizeof(url), "%s/big", ws);
	else if (is(sc, "fragments") || is(sc, "ping") || is(sc, "masking") ||
	    is(sc, "drop") || is(sc, "toolarge") || is(sc, "reject"))
		snprintf(url, sizeof(url), "%s/%s", ws, sc);
	else if (strncmp(sc, "close_", 6) == 0)
		snprintf(url, sizeof(url), "%s/close/%s", ws, sc + 6);
	else if (is(sc, "client_close") || is(sc, "free_in_cb"))
		snprintf(url, sizeof(url), "%s/echo", ws);
	else if (is(sc, "badaccept") || is(sc, "split") || is(sc, "notws"))
		snprintf(url, sizeof(url), "%s/%s", raw, sc);
	else if (is(sc, "hs_timeout")) {
		snprintf(url, sizeof(url), "%s/silent", raw);
		c.handshake_timeout_ms = 1000;
	} else if (is(sc, "untrusted")) {
		snprintf(url, sizeof(url), "%s/echo", ws);
		c.ca_file = NULL;
	} else if (is(sc, "refused"))
		snprintf(url, sizeof(url), "ws://127.0.0.1:%d/",
		    client_free_port());
	else {
		fprintf(stderr, "unknown scenario %s\n", sc);
		return CW_EXIT_USAGE;
	}
	if (is(sc, "toolarge"))
		c.max_message = 64 * 1024;
	c.url = url;

	s.t0 = now_mono_ms();
	if ((s.ws = wrk_ws_open(loop, &c, &cb, &s)) == NULL) {
		check(0, "wrk_ws_open %s", url);
		return 1;
	}
	run(&s, 15);
	check(s.closed, "%s: connection ended (%u, %s)", sc, s.code, s.why);

	if (is(sc, "big")) {
		check(s.nmsg >= 1 && strcmp(s.msg[0], "big-ok 200000") == 0,
		    "server got our 200000-byte message intact: %s",
		    s.nmsg >= 1 ? s.msg[0] : "(nothing)");
		check(s.nmsg >= 2 && s.len[1] == BIG &&
		    is_pattern(s.msg[1], s.len[1]), "we got the server's "
		    "200000-byte message intact (%zu bytes)",
		    s.nmsg >= 2 ? s.len[1] : 0);
		check(s.code == WRK_WS_NORMAL, "closed with 1000");
	} else if (is(sc, "fragments")) {
		check(s.nmsg >= 1 && strcmp(s.msg[0], "frag-1|frag-2|frag-3") ==
		    0, "3 fragments became one message: %s",
		    s.nmsg >= 1 ? s.msg[0] : "(nothing)");
		check(s.nmsg >= 2 && s.len[1] == 210000 &&
		    is_pattern(s.msg[1], s.len[1]), "7 fragments of 30000 "
		    "became one message of %zu bytes", s.nmsg >= 2 ? s.len[1] :
		    0);
	} else if (is(sc, "ping")) {
		check(s.nmsg >= 1 && strcmp(s.msg[0], "pong-ok") == 0,
		    "server's ping answered with a pong: %s",
		    s.nmsg >= 1 ? s.msg[0] : "(nothing)");
	} else if (is(sc, "masking")) {
		check(s.nmsg >= 1 && strcmp(s.msg[0], "masked-ok") == 0,
		    "server accepted our masked frame: %s",
		    s.nmsg >= 1 ? s.msg[0] : "(nothing)");
	} else if (strncmp(sc, "close_", 6) == 0) {
		want = (unsigned)atoi(sc + 6);
		check(s.code == want && strstr(s.why, "closing as asked") !=
		    NULL, "server's close %u reported as %u (%s)", want, s.code,
		    s.why);
	} else if (is(sc, "drop")) {
		check(s.opened && s.code == WRK_WS_ABNORMAL, "dropped TCP "
		    "connection reported as %u (%s)", s.code, s.why);
	} else if (is(sc, "toolarge")) {
		check(s.code == WRK_WS_TOO_BIG && s.nmsg == 0, "200000-byte "
		    "message over a 65536 cap: %u, %d message(s) delivered",
		    s.code, s.nmsg);
	} else if (is(sc, "client_close")) {
		check(s.nmsg == 1 && strcmp(s.msg[0], "hello") == 0, "echo");
		check(s.code == WRK_WS_NORMAL, "our close 1000 answered: %u "
		    "(%s)", s.code, s.why);
	} else if (is(sc, "reject")) {
		check(s.code == WRK_WS_ABNORMAL && strstr(s.why, "403") != NULL,
		    "refused upgrade: %u (%s)", s.code, s.why);
	} else if (is(sc, "badaccept")) {
		check(s.code == WRK_WS_ABNORMAL && !s.opened &&
		    strstr(s.why, "Sec-WebSocket-Accept") != NULL,
		    "wrong accept key refused: %u (%s)", s.code, s.why);
	} else if (is(sc, "notws")) {
		check(s.code == WRK_WS_ABNORMAL && !s.opened,
		    "plain HTTP answer refused: %u (%s)", s.code, s.why);
	} else if (is(sc, "split")) {
		check(s.nmsg >= 1 && strcmp(s.msg[0], "early-frame") == 0,
		    "frame in the same segment as the 101 delivered: %s",
		    s.nmsg >= 1 ? s.msg[0] : "(nothing)");
	} else if (is(sc, "hs_timeout")) {
		check(s.code == WRK_WS_ABNORMAL && !s.opened &&
		    s.t_closed - s.t0 >= 990 && s.t_closed - s.t0 <= 2000,
		    "silent server: handshake deadline 1000 ms, ended after "
		    "%llu ms (%s)", (unsigned long long)(s.t_closed - s.t0),
		    s.why);
	} else if (is(sc, "untrusted")) {
		check(s.code == WRK_WS_ABNORMAL && !s.opened &&
		    strstr(s.why, "connect failed") != NULL,
		    "untrusted certificate refused: %u (%s)", s.code, s.why);
	} else if (is(sc, "refused")) {
		check(s.code == WRK_WS_ABNORMAL && !s.opened,
		    "refused port: %u (%s)", s.code, s.why);
	} else if (is(sc, "free_in_cb")) {
		idle(0.3);
		check(s.nmsg == 1, "freed inside the message callback");
	}

	if (s.ws != NULL)
		wrk_ws_free(s.ws);
	idle(0.05);
	for (int i = 0; i < s.nmsg; i++)
		free(s.msg[i]);
	free(s.big);
	return client_finish();
}
