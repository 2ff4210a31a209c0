/*
 * JSON-RPC 2.0 as a Substrate node (jsonrpsee) answers it: single calls
 * and batches, Substrate's error codes, and the chain_, state_, system_
 * and rpc_ methods the devnode serves, plus dev_ methods for tests.
 * Transport-independent: HTTP and WebSocket both come through here.
 */
#ifndef DEV_RPC_H
#define DEV_RPC_H

#include <stddef.h>

#include "dev.h"
#include "buf.h"
#include "dev_fault.h"

#define RPC_PARSE_ERROR		-32700
#define RPC_INVALID_REQUEST	-32600
#define RPC_METHOD_NOT_FOUND	-32601
#define RPC_INVALID_PARAMS	-32602
#define RPC_INTERNAL_ERROR	-32603
#define RPC_RATE_LIMITED	-32999
#define RPC_BATCH_TOO_LARGE	-32010	/* jsonrpsee's, as Substrate sends */
#define RPC_STATE_ERROR		4003

#define RPC_BATCH_MAX		10000
#define RPC_SUB_ID_LEN		16

enum dev_sub_kind {
	SUB_NEW_HEADS = 0,
	SUB_FINALIZED,
	SUB__COUNT
};

struct dev_rpc_ctx {
	enum dev_transport	 tr;
	struct dev_view		 view;
	const struct dev_fault_view *fv;	/* the lies to tell */
	unsigned		 count_lie;	/* wrong_count mode + 1, or 0 */
	unsigned		 storage_seen;	/* storage calls answered */
	int			 rate_limited;	/* answer -32999 to all */
	/* WebSocket subscriptions; NULL over HTTP. */
	int	(*subscribe)(void *, enum dev_sub_kind, char *id);
	int	(*unsubscribe)(void *, enum dev_sub_kind, const char *id);
	void	*sub_arg;
};

/* Answers body into out; out stays empty if every call was a notification. */
void	dev_rpc_handle(struct dev_rpc_ctx *, const char *body, size_t len,
	    struct buf *out);
/* A JSON-RPC error answer with a null id (for a rejected request). */
void	dev_rpc_error(struct buf *, int code, const char *message);
/* 1 if the body is one dev_fault call: the control path skips faults. */
int	dev_rpc_is_control(const char *body, size_t len);

/* The notification for one subscription: HEADER is raw JSON. */
void	dev_rpc_notification(struct buf *, enum dev_sub_kind,
	    const char *id, const char *header, size_t header_len);

#endif
