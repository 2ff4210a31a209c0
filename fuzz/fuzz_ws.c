/*
 * The worker's WebSocket client (workers/wrk_ws.c) on what a server sends:
 * the answer to the opening handshake, then frames, which wslay takes
 * apart and wrk_ws.c turns into messages and a close reason.  The file is
 * included so that its static parser and callbacks run as they are; the
 * connection is the input, then an end of stream.  The accept key
 * matches the fixed Sec-WebSocket-Key of RFC 6455, section 1.3.  The
 * easy handle is one that never connected: when the input is all read,
 * curl_easy_recv fails on it and the connection ends as a failed read.
 */
#include "config.h"

#include "fuzz.h"

#include "../workers/wrk_ws.c"

#define FUZZ_KEY	"dGhlIHNhbXBsZSBub25jZQ=="
#define FUZZ_MAX_MSG	(64 * 1024)

static struct ev_loop	*loop;
static CURL		*easy;
static size_t		 got_bytes;
static unsigned		 got_closed;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_log_init("fuzz_ws");
	loop = ev_loop_new(EVFLAG_AUTO);
	if ((easy = curl_easy_init()) == NULL)
		abort();
	curl_easy_setopt(easy, CURLOPT_CONNECT_ONLY, 1L);
	return 0;
}

static void
on_message(void *arg, const char *data, size_t len)
{
	/* Touch every byte: ASan checks the message is all there. */
	for (size_t i = 0; i < len; i++)
		got_bytes += (unsigned char)data[i] & 1;
}

static void
on_closed(void *arg, unsigned code, const char *why)
{
	got_closed++;
	if (why == NULL || strlen(why) >= sizeof(((struct wrk_ws *)0)->why))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wrk_ws	*ws;
	const char	*end;

	if (size == 0 || size > WS_HS_MAX * 4)
		return 0;
	ws = xcalloc(1, sizeof(*ws));
	ws->loop = loop;
	ws->easy = easy;
	ws->cbs.message = on_message;
	ws->cbs.closed = on_closed;
	ws->arg = ws;
	ws->max_message = FUZZ_MAX_MSG;
	ws->hs_timeout_ms = 1000;
	ev_init(&ws->io, ws_io_cb);
	ws->io.data = ws;
	ev_io_set(&ws->io, 0, EV_READ);
	ev_init(&ws->timer, ws_timer_cb);
	ws->timer.data = ws;
	ev_init(&ws->kick, ws_kick_cb);
	ws->kick.data = ws;
	ws_accept_key(FUZZ_KEY, ws->accept);
	ws->state = WS_HANDSHAKE;
	/* What ws_hs_recv leaves: the bytes read, NUL-terminated. */
	ws->in = xmalloc(size + 1);
	memcpy(ws->in, data, size);
	ws->in[size] = '\0';
	ws->in_len = size;
	if ((end = memmem(ws->in, ws->in_len, "\r\n\r\n", 4)) != NULL) {
		ws_upgrade(ws, (size_t)(end + 4 - ws->in));
		/* Nothing is left to read: the stream ends, closed follows. */
		if (ws->state != WS_CLOSED)
			ws_pump(ws, 1);
		if (ws->state != WS_CLOSED)
			abort();
	}
	ws->easy = NULL;		/* shared by every input */
	ws_destroy(ws);
	return 0;
}
