/*
 * WebSocket messages of the new-heads subscription (workers/wrk_sub.c):
 * subscribe answers and head notifications as JSON, in either state of a
 * connection that takes them; each head is then decoded as the worker
 * does (src/header.c).  The file is included so that its static message
 * handler runs as it is.  Input: a selector byte (state, format, the
 * subscription ids known), then one message.
 */
#include "config.h"

#include "fuzz.h"
#include "header.h"

#include "../workers/wrk_sub.c"

static struct ev_loop	*loop;
static enum chain_format fmt;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_log_init("fuzz_sub");
	loop = ev_loop_new(EVFLAG_AUTO);
	return 0;
}

static void
on_head(void *arg, const struct wrk_sub_head *sh)
{
	static struct header	h;
	uint8_t			hash[32], miner[32];
	char			err[160];

	if (!json_is_object(sh->header))
		abort();
	if (header_from_json(fmt, sh->header, &h, err, sizeof(err)) == 0) {
		header_hash(fmt, &h, hash);
		(void)header_miner(fmt, &h, miner);
		(void)header_runtime_updated(&h);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wrk_sub	*sub;

	if (size < 1)
		return 0;
	sub = xcalloc(1, sizeof(*sub));
	sub->loop = loop;
	sub->conf.block_time_ms = 6000;
	sub->conf.handshake_timeout_ms = 1000;
	sub->conf.finalized = 1;
	sub->limit_ms = 12000;
	snprintf(sub->name, sizeof(sub->name), "ws://fuzz");
	sub->cbs.head = on_head;
	ev_init(&sub->backoff, sub_backoff_cb);
	sub->backoff.data = sub;
	ev_init(&sub->check, sub_check_cb);
	sub->check.data = sub;
	sub->state = data[0] & 1 ? WRK_SUB_LIVE : WRK_SUB_SUBSCRIBING;
	fmt = data[0] & 2 ? FORMAT_SUBSTRATE : FORMAT_QUANTUS;
	if (data[0] & 4)
		snprintf(sub->new_id, sizeof(sub->new_id), "abcdef0123456789");
	if (data[0] & 8)
		snprintf(sub->fin_id, sizeof(sub->fin_id), "fedcba9876543210");
	sub_ws_message(sub, (const char *)data + 1, size - 1);
	ev_timer_stop(loop, &sub->backoff);
	ev_timer_stop(loop, &sub->check);
	free(sub);
	return 0;
}
