/*
 * The devnode's JSON-RPC requests (devnode/dev_rpc.c), over HTTP or a
 * WebSocket, against a small real chain: single calls and batches, every
 * method with any params, dev_fault calls included (faults are cleared
 * before each input so that runs repeat).  dev_main.c is included, its
 * main() renamed, for its option parsing and the state dev_rpc.c reads.
 * Input: a transport byte, then the request body.
 */
#include "config.h"

#include "fuzz.h"

int	devnode_main(int, char **);

#define main devnode_main
#include "../devnode/dev_main.c"
#undef main

#define FUZZ_SUBS	8

static struct {
	char			id[RPC_SUB_ID_LEN + 1];
	enum dev_sub_kind	kind;
} subs[FUZZ_SUBS];
static unsigned	nsubs, sub_seq;

/* The subscriptions of one connection, as dev_ws.c keeps them. */
static int
fuzz_sub_add(void *arg, enum dev_sub_kind kind, char *id)
{
	if (nsubs == FUZZ_SUBS)
		return -1;
	snprintf(id, RPC_SUB_ID_LEN + 1, "%0*u", RPC_SUB_ID_LEN, ++sub_seq);
	memcpy(subs[nsubs].id, id, RPC_SUB_ID_LEN + 1);
	subs[nsubs++].kind = kind;
	return 0;
}

static int
fuzz_sub_remove(void *arg, enum dev_sub_kind kind, const char *id)
{
	for (unsigned i = 0; i < nsubs; i++)
		if (subs[i].kind == kind && strcmp(subs[i].id, id) == 0) {
			subs[i] = subs[--nsubs];
			return 0;
		}
	return -1;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* Reorgs, pruning, a spec change: every kind of answer exists. */
	char	*args[] = { "chainwatch-devnode", "--backlog", "60",
	    "--block-time", "1000", "--cache-dir", "none",
	    "--reorg-every", "12", "--reorg-depth", "2", "--finality-lag",
	    "5", "--state-pruning", "30", "--spec-change", "20", NULL };
	/* No alternative chain: making it is a thread, not a request. */
	struct dev_fault_hooks	hooks = { hook_view_head, hook_changed,
				    NULL, hook_split, hook_forge };
	int	n = (int)(sizeof(args) / sizeof(args[0])) - 1, selftest = 0;

	fuzz_log_init("fuzz_devnode");
	optind = 1;
	parse_options(n, args, &selftest);
	dev_fault_init(&hooks);
	main_chain = dev_chain_new(&dev_conf.params, &dev_conf.timing, NULL,
	    "main");
	atomic_init(&cancel_sync, 0);
	dev_chain_sync(main_chain, &cancel_sync, NULL);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dev_fault_view	fv;
	struct dev_rpc_ctx	ctx;
	struct buf		out;

	if (size < 1)
		return 0;
	dev_fault_clear();
	nsubs = 0;
	memset(&ctx, 0, sizeof(ctx));
	ctx.tr = data[0] & 1 ? TR_WS : TR_HTTP;
	if (ctx.tr == TR_WS) {
		ctx.subscribe = fuzz_sub_add;
		ctx.unsubscribe = fuzz_sub_remove;
	}
	dev_fault_snapshot(ctx.tr, &fv);
	dev_view_get(&fv, &ctx.view);
	ctx.fv = &fv;
	buf_init(&out);
	(void)dev_rpc_is_control((const char *)data + 1, size - 1);
	dev_rpc_handle(&ctx, (const char *)data + 1, size - 1, &out);
	buf_free(&out);
	return 0;
}
