/*
 * JSON-RPC 2.0 over wrk_http for one endpoint: builds single calls and
 * batches, matches answers to calls by id in any order, and gives every
 * call its outcome class (src/outcome.h) and latency.
 */
#ifndef CW_WRK_RPC_H
#define CW_WRK_RPC_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "buf.h"
#include "outcome.h"
#include "wrk_http.h"

struct ev_loop;

/* A null result is an answer that the state is not there (ABSENT). */
#define WRK_RPC_NULL_ABSENT	0x01

struct wrk_rpc_call {
	const char	*method;	/* letters, digits and '_' only */
	const char	*params;	/* JSON text of the params; NULL: [] */
	unsigned	 flags;		/* WRK_RPC_* */
};

/*
 * One call's outcome.  Pointers are borrowed from the answer and are only
 * valid during the callback.
 */
struct wrk_rpc_result {
	enum outcome	 outcome;
	uint64_t	 latency_ms;	/* of the whole POST */
	json_t		*result;	/* when OK, or the null of ABSENT */
	int		 has_code;	/* the error object had a code */
	json_int_t	 code;
	const char	*message;	/* the error's message, or NULL */
	const char	*why;		/* when not OK, for logs: "HTTP 503" */
	uint64_t	 retry_after_ms; /* the answer's Retry-After, 0: none */
};

/*
 * The most calls the endpoint takes in one POST, learned from its
 * refusals (JSON-RPC -32010 or -32011 for the whole batch, as Substrate
 * nodes answer past --rpc-max-batch-request-len or their response size,
 * or HTTP 413): a refused batch of n is sent again at once as POSTs of
 * n / 2 or the largest it answered if more; after WRK_BATCH_GROW full POSTs
 * answered the limit grows halfway to the least size refused in the last
 * WRK_BATCH_FORGET_MS, or by a quarter, and past WRK_BATCH_UNBOUNDED it
 * is gone.  Evidence only: the number an error message may carry is not
 * believed.
 */
#define WRK_BATCH_GROW		32
#define WRK_BATCH_FORGET_MS	(10 * 60 * 1000)
#define WRK_BATCH_UNBOUNDED	1024

struct wrk_batch {
	size_t		 limit;		/* 0: none known */
	size_t		 refused;	/* the least refused; 0: none */
	size_t		 answered;	/* the most answered; 0: none */
	uint64_t	 refused_at;	/* mono ms */
	unsigned	 good;		/* full POSTs answered since */
};

/* How many of n calls go in one POST. */
size_t	 wrk_batch_size(const struct wrk_batch *, size_t n);
/* A POST of n calls was refused; 1 if the limit changed. */
int	 wrk_batch_refused(struct wrk_batch *, size_t n, uint64_t now);
/* A POST of n calls was answered; 1 if the limit changed. */
int	 wrk_batch_answered(struct wrk_batch *, size_t n, uint64_t now);
/* Do these n results (HTTP status, 0: none) refuse the batch's size? */
int	 wrk_rpc_refused(const struct wrk_rpc_result *, size_t n,
	    long status);

/* Results come in the order of the calls. */
typedef void	wrk_rpc_cb(void *arg, const struct wrk_rpc_result *, size_t n);

struct wrk_rpc;

/* The endpoint's client; it owns its wrk_http. */
struct wrk_rpc *wrk_rpc_new(struct ev_loop *, const struct wrk_http_conf *);
/* Calls in flight are dropped unanswered.  Safe inside a callback. */
void	 wrk_rpc_free(struct wrk_rpc *);
struct wrk_http *wrk_rpc_http(struct wrk_rpc *);
const struct wrk_batch *wrk_rpc_batch(const struct wrk_rpc *);

/*
 * Sends n calls in one POST (more if the endpoint's batch limit is
 * lower: struct wrk_batch): one call as a JSON-RPC object, more as a
 * batch.  cb runs once, from the loop, with n results, when every POST
 * is answered.  -1 on a bad method name or when curl refuses the request.
 */
int	 wrk_rpc_send(struct wrk_rpc *, const struct wrk_rpc_call *, size_t n,
	    uint32_t deadline_ms, wrk_rpc_cb *cb, void *arg);

/* ---- the pure parts, exposed for tests and for wrk_sub ---- */

/* The request text for n calls with ids first_id, first_id + 1, ... */
int	 wrk_rpc_build(struct buf *, const struct wrk_rpc_call *, size_t n,
	    uint64_t first_id);

/* The class of a reply that carried no usable body, or OUTCOME_OK. */
enum outcome wrk_rpc_classify_http(const struct wrk_http_reply *);

/* The class of a JSON-RPC error object's code and message. */
enum outcome wrk_rpc_classify_error(int has_code, json_int_t code,
	    const char *message);

/* Fills r from one JSON-RPC answer object (its id is not looked at). */
void	 wrk_rpc_classify_answer(json_t *answer, unsigned flags,
	    struct wrk_rpc_result *r);

/*
 * Parses body and fills out[0..n-1] for calls with ids first_id + i and
 * the given flags; batch says whether the request was an array.  Returns
 * the parsed document, which out[] points into (json_decref it after),
 * or NULL when the body is not JSON (every call is then MALFORMED).
 */
json_t	*wrk_rpc_match(const char *body, size_t len, int batch,
	    uint64_t first_id, const unsigned *flags, size_t n,
	    struct wrk_rpc_result *out);

/* The same from JSON, where a plain non-negative integer is also taken. */
int	 wrk_rpc_quantity(const json_t *, uint64_t *);

#endif
