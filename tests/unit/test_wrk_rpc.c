/*
 * wrk_rpc's pure parts: the outcome class of every kind of answer, the
 * matching of batch answers by id, hex quantities as nodes send them, and
 * the batch limit learned from an endpoint's refusals.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "hex.h"
#include "wrk_rpc.h"

static enum outcome
http_class(CURLcode code, long status, int too_large)
{
	struct wrk_http_reply	r;

	memset(&r, 0, sizeof(r));
	r.curl_code = code;
	r.status = status;
	r.too_large = too_large;
	r.body = "";
	r.error = "";
	return wrk_rpc_classify_http(&r);
}

static void
test_classify_http(void **state)
{
	assert_int_equal(http_class(CURLE_OK, 200, 0), OUTCOME_OK);
	assert_int_equal(http_class(CURLE_OK, 204, 0), OUTCOME_OK);
	assert_int_equal(http_class(CURLE_OK, 429, 0), OUTCOME_RATE_LIMITED);
	assert_int_equal(http_class(CURLE_OK, 400, 0), OUTCOME_HTTP_4XX);
	assert_int_equal(http_class(CURLE_OK, 401, 0), OUTCOME_HTTP_4XX);
	assert_int_equal(http_class(CURLE_OK, 404, 0), OUTCOME_HTTP_4XX);
	assert_int_equal(http_class(CURLE_OK, 500, 0), OUTCOME_HTTP_5XX);
	assert_int_equal(http_class(CURLE_OK, 503, 0), OUTCOME_HTTP_5XX);
	assert_int_equal(http_class(CURLE_OK, 301, 0), OUTCOME_MALFORMED);
	assert_int_equal(http_class(CURLE_OPERATION_TIMEDOUT, 0, 0),
	    OUTCOME_TIMEOUT);
	assert_int_equal(http_class(CURLE_COULDNT_CONNECT, 0, 0),
	    OUTCOME_TRANSPORT);
	assert_int_equal(http_class(CURLE_COULDNT_RESOLVE_HOST, 0, 0),
	    OUTCOME_TRANSPORT);
	assert_int_equal(http_class(CURLE_RECV_ERROR, 0, 0),
	    OUTCOME_TRANSPORT);
	assert_int_equal(http_class(CURLE_SEND_ERROR, 0, 0),
	    OUTCOME_TRANSPORT);
	assert_int_equal(http_class(CURLE_GOT_NOTHING, 0, 0),
	    OUTCOME_TRANSPORT);
	assert_int_equal(http_class(CURLE_SSL_CONNECT_ERROR, 0, 0),
	    OUTCOME_TRANSPORT);
	assert_int_equal(http_class(CURLE_PEER_FAILED_VERIFICATION, 0, 0),
	    OUTCOME_TRANSPORT);
	assert_int_equal(http_class(CURLE_PARTIAL_FILE, 200, 0),
	    OUTCOME_TRANSPORT);
	/* The cap wins over whatever curl made of the aborted transfer. */
	assert_int_equal(http_class(CURLE_WRITE_ERROR, 200, 1),
	    OUTCOME_TOO_LARGE);
	assert_int_equal(http_class(CURLE_FILESIZE_EXCEEDED, 200, 0),
	    OUTCOME_TOO_LARGE);
	/* A status with a body past the cap is still too large. */
	assert_int_equal(http_class(CURLE_WRITE_ERROR, 503, 1),
	    OUTCOME_TOO_LARGE);
}

static void
test_classify_error(void **state)
{
	assert_int_equal(wrk_rpc_classify_error(1, -32999, "Too many"),
	    OUTCOME_RATE_LIMITED);
	assert_int_equal(wrk_rpc_classify_error(1, 4003, "whatever"),
	    OUTCOME_ABSENT);
	assert_int_equal(wrk_rpc_classify_error(1, -32000,
	    "State already discarded for BlockId::Hash(0x12)"), OUTCOME_ABSENT);
	assert_int_equal(wrk_rpc_classify_error(1, 4003, NULL), OUTCOME_ABSENT);
	assert_int_equal(wrk_rpc_classify_error(1, -32603,
	    "Client error: UnknownBlock: header not found"), OUTCOME_ABSENT);
	assert_int_equal(wrk_rpc_classify_error(0, 0,
	    "state already discarded"), OUTCOME_ABSENT);
	assert_int_equal(wrk_rpc_classify_error(1, -32601, "Method not found"),
	    OUTCOME_RPC_ERROR);
	assert_int_equal(wrk_rpc_classify_error(0, 0, "boom"),
	    OUTCOME_RPC_ERROR);
	assert_int_equal(wrk_rpc_classify_error(0, 0, NULL), OUTCOME_RPC_ERROR);
	/* -32999 only counts as a code, not as text. */
	assert_int_equal(wrk_rpc_classify_error(0, 0, "-32999"),
	    OUTCOME_RPC_ERROR);
}

static void
answer(const char *text, unsigned flags, struct wrk_rpc_result *r,
    json_t **doc)
{
	json_error_t	e;

	*doc = json_loads(text, 0, &e);
	assert_non_null(*doc);
	memset(r, 0, sizeof(*r));
	wrk_rpc_classify_answer(*doc, flags, r);
}

static void
test_classify_answer(void **state)
{
	struct wrk_rpc_result	 r;
	json_t			*d;

	answer("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}",
	    WRK_RPC_NULL_ABSENT, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_ABSENT);
	json_decref(d);

	answer("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}", 0, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_OK);
	assert_true(json_is_null(r.result));
	json_decref(d);

	/* error without a code, keys in another order */
	answer("{\"error\":{\"message\":\"boom\"},\"id\":1,\"jsonrpc\":\"2.0\"}",
	    0, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_RPC_ERROR);
	assert_int_equal(r.has_code, 0);
	assert_string_equal(r.message, "boom");
	json_decref(d);

	/* error with neither code nor message */
	answer("{\"id\":1,\"error\":{}}", 0, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_RPC_ERROR);
	assert_null(r.message);
	json_decref(d);

	answer("{\"id\":1,\"error\":\"rate limited, slow down\"}", 0, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_RPC_ERROR);
	assert_string_equal(r.message, "rate limited, slow down");
	json_decref(d);

	answer("{\"id\":1,\"error\":{\"code\":-32999,\"message\":\"x\"}}", 0,
	    &r, &d);
	assert_int_equal(r.outcome, OUTCOME_RATE_LIMITED);
	assert_int_equal(r.code, -32999);
	json_decref(d);

	/* a code sent as a whole real is a code */
	answer("{\"id\":1,\"error\":{\"code\":-32999.0,\"message\":\"x\"}}",
	    0, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_RATE_LIMITED);
	assert_int_equal(r.has_code, 1);
	assert_int_equal(r.code, -32999);
	json_decref(d);

	/*
	 * Reals no integer holds are no code (found by fuzz/fuzz_rpc: the
	 * cast of 4e301 was undefined; UBSan stopped the worker on it).
	 */
	answer("{\"error\":{\"code\":4e301,\"message\":\"x\"}}", 0, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_RPC_ERROR);
	assert_int_equal(r.has_code, 0);
	json_decref(d);
	answer("{\"error\":{\"code\":-1e19}}", 0, &r, &d);
	assert_int_equal(r.has_code, 0);
	json_decref(d);
	answer("{\"error\":{\"code\":4003.5}}", 0, &r, &d);
	assert_int_equal(r.has_code, 0);
	json_decref(d);

	/* a proxy's "error": null beside the result */
	answer("{\"id\":1,\"error\":null,\"result\":\"0x01\"}", 0, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_OK);
	assert_string_equal(json_string_value(r.result), "0x01");
	json_decref(d);

	answer("{\"jsonrpc\":\"2.0\",\"id\":1}", 0, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_MALFORMED);
	json_decref(d);

	answer("[1,2]", 0, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_MALFORMED);
	json_decref(d);
}

static void
match1(const char *body, uint64_t id, unsigned flags,
    struct wrk_rpc_result *r, json_t **doc)
{
	memset(r, 0, sizeof(*r));
	*doc = wrk_rpc_match(body, strlen(body), 0, id, &flags, 1, r);
}

static void
test_match_single(void **state)
{
	struct wrk_rpc_result	 r;
	json_t			*d;

	match1("{\"jsonrpc\":\"2.0\",\"result\":\"0xab\",\"id\":7}", 7, 0, &r,
	    &d);
	assert_int_equal(r.outcome, OUTCOME_OK);
	assert_string_equal(json_string_value(r.result), "0xab");
	json_decref(d);

	match1("{\"jsonrpc\":\"2.0\",\"result\":\"0xab\",\"id\":8}", 7, 0, &r,
	    &d);
	assert_int_equal(r.outcome, OUTCOME_MALFORMED);
	json_decref(d);

	/* ids echoed as strings */
	match1("{\"jsonrpc\":\"2.0\",\"result\":1,\"id\":\"7\"}", 7, 0, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_OK);
	json_decref(d);

	/* an error for an unreadable request carries a null id */
	match1("{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32999,"
	    "\"message\":\"Too many requests\"},\"id\":null}", 7, 0, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_RATE_LIMITED);
	json_decref(d);

	match1("{\"jsonrpc\":\"2.0\",\"result\":1}", 7, 0, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_MALFORMED);
	json_decref(d);

	match1("<html>502 Bad Gateway</html>", 7, 0, &r, &d);
	assert_null(d);
	assert_int_equal(r.outcome, OUTCOME_MALFORMED);

	match1("{\"jsonrpc\":\"2.0\",\"result\":", 7, 0, &r, &d);
	assert_null(d);
	assert_int_equal(r.outcome, OUTCOME_MALFORMED);

	match1("\"just a string\"", 7, 0, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_MALFORMED);
	json_decref(d);

	match1("{\"hello\":\"world\",\"id\":7}", 7, 0, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_MALFORMED);
	json_decref(d);

	/* a single answer wrapped in an array */
	match1("[{\"jsonrpc\":\"2.0\",\"result\":null,\"id\":7}]", 7,
	    WRK_RPC_NULL_ABSENT, &r, &d);
	assert_int_equal(r.outcome, OUTCOME_ABSENT);
	json_decref(d);
}

#define NB	5

static json_t *
matchn(const char *body, const unsigned *flags, struct wrk_rpc_result *out)
{
	memset(out, 0, NB * sizeof(*out));
	return wrk_rpc_match(body, strlen(body), 1, 10, flags, NB, out);
}

static void
test_match_batch_order(void **state)
{
	static const unsigned	 flags[NB];
	struct wrk_rpc_result	 out[NB];
	json_t			*d;
	const char		*body =
	    "[{\"jsonrpc\":\"2.0\",\"result\":\"r13\",\"id\":13},"
	    "{\"id\":10,\"result\":\"r10\",\"jsonrpc\":\"2.0\"},"
	    "{\"result\":\"r14\",\"jsonrpc\":\"2.0\",\"id\":14},"
	    "{\"jsonrpc\":\"2.0\",\"id\":12,\"result\":\"r12\"},"
	    "{\"jsonrpc\":\"2.0\",\"result\":\"r11\",\"id\":11}]";
	char			 want[8];

	d = matchn(body, flags, out);
	assert_non_null(d);
	for (int i = 0; i < NB; i++) {
		assert_int_equal(out[i].outcome, OUTCOME_OK);
		snprintf(want, sizeof(want), "r%d", 10 + i);
		assert_string_equal(json_string_value(out[i].result), want);
	}
	json_decref(d);
}

static void
test_match_batch_missing(void **state)
{
	static const unsigned	 flags[NB];
	struct wrk_rpc_result	 out[NB];
	json_t			*d;
	/* 12 missing, 99 not ours, 11 twice (the first wins), junk */
	const char		*body =
	    "[{\"jsonrpc\":\"2.0\",\"result\":\"a\",\"id\":11},"
	    "{\"jsonrpc\":\"2.0\",\"result\":\"b\",\"id\":11},"
	    "{\"jsonrpc\":\"2.0\",\"result\":\"x\",\"id\":99},"
	    "42,"
	    "{\"jsonrpc\":\"2.0\",\"result\":\"r10\",\"id\":10},"
	    "{\"jsonrpc\":\"2.0\",\"result\":\"r13\",\"id\":13},"
	    "{\"jsonrpc\":\"2.0\",\"id\":14}]";

	d = matchn(body, flags, out);
	assert_int_equal(out[0].outcome, OUTCOME_OK);
	assert_int_equal(out[1].outcome, OUTCOME_OK);
	assert_string_equal(json_string_value(out[1].result), "a");
	assert_int_equal(out[2].outcome, OUTCOME_MALFORMED);
	assert_non_null(out[2].why);
	assert_int_equal(out[3].outcome, OUTCOME_OK);
	assert_int_equal(out[4].outcome, OUTCOME_MALFORMED);
	json_decref(d);

	d = matchn("[]", flags, out);
	for (int i = 0; i < NB; i++)
		assert_int_equal(out[i].outcome, OUTCOME_MALFORMED);
	json_decref(d);

	d = matchn("{\"jsonrpc\":\"2.0\",\"result\":1,\"id\":10}", flags, out);
	for (int i = 0; i < NB; i++)
		assert_int_equal(out[i].outcome, OUTCOME_MALFORMED);
	json_decref(d);
}

static void
test_match_batch_classes(void **state)
{
	const unsigned		 flags[NB] = { WRK_RPC_NULL_ABSENT, 0,
	    WRK_RPC_NULL_ABSENT, 0, 0 };
	struct wrk_rpc_result	 out[NB];
	json_t			*d;
	const char		*body =
	    "[{\"jsonrpc\":\"2.0\",\"result\":null,\"id\":10},"
	    "{\"jsonrpc\":\"2.0\",\"result\":null,\"id\":11},"
	    "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":4003,\"message\":"
	    "\"State already discarded\"},\"id\":12},"
	    "{\"jsonrpc\":\"2.0\",\"error\":{\"message\":\"no code\"},\"id\":13},"
	    "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32601,\"message\":"
	    "\"Method not found\"},\"id\":14}]";

	d = matchn(body, flags, out);
	assert_int_equal(out[0].outcome, OUTCOME_ABSENT);
	assert_int_equal(out[1].outcome, OUTCOME_OK);
	assert_int_equal(out[2].outcome, OUTCOME_ABSENT);
	assert_int_equal(out[3].outcome, OUTCOME_RPC_ERROR);
	assert_int_equal(out[3].has_code, 0);
	assert_int_equal(out[4].outcome, OUTCOME_RPC_ERROR);
	assert_int_equal(out[4].code, -32601);
	json_decref(d);

	/* A batch refused as a whole gives every call the class. */
	d = matchn("{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32999,"
	    "\"message\":\"rate\"},\"id\":null}", flags, out);
	for (int i = 0; i < NB; i++)
		assert_int_equal(out[i].outcome, OUTCOME_RATE_LIMITED);
	json_decref(d);

	/* An id-less error inside the array answers what is left over. */
	d = matchn("[{\"jsonrpc\":\"2.0\",\"result\":\"r10\",\"id\":10},"
	    "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":"
	    "\"busy\"},\"id\":null}]", flags, out);
	assert_int_equal(out[0].outcome, OUTCOME_OK);
	for (int i = 1; i < NB; i++)
		assert_int_equal(out[i].outcome, OUTCOME_RPC_ERROR);
	json_decref(d);
}

static void
test_hex(void **state)
{
	uint64_t	 v;
	json_t		*j;

	assert_int_equal(hex_parse_u64("0x1f", &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(hex_parse_u64("0x001f", &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(hex_parse_u64("0x0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(hex_parse_u64("0x00000000", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(hex_parse_u64("0X2A", &v), 0);
	assert_int_equal(v, 42);
	/* zero padding longer than 64 bits of digits */
	assert_int_equal(hex_parse_u64(
	    "0x0000000000000000000000000000000000000000000000ff", &v), 0);
	assert_int_equal(v, 255);
	assert_int_equal(hex_parse_u64("0xffffffffffffffff", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(hex_parse_u64("0x10000000000000000", &v), -1);
	assert_int_equal(hex_parse_u64("0x", &v), -1);
	assert_int_equal(hex_parse_u64("1f", &v), -1);
	assert_int_equal(hex_parse_u64("0x1g", &v), -1);
	assert_int_equal(hex_parse_u64("0x 1", &v), -1);

	j = json_loads("{\"a\":\"0x0000001a\",\"b\":26,\"c\":-1,\"d\":1.5,"
	    "\"e\":\"0x1A\"}", 0, NULL);
	assert_int_equal(wrk_rpc_quantity(json_object_get(j, "a"), &v), 0);
	assert_int_equal(v, 26);
	assert_int_equal(wrk_rpc_quantity(json_object_get(j, "b"), &v), 0);
	assert_int_equal(v, 26);
	assert_int_equal(wrk_rpc_quantity(json_object_get(j, "e"), &v), 0);
	assert_int_equal(v, 26);
	assert_int_equal(wrk_rpc_quantity(json_object_get(j, "c"), &v), -1);
	assert_int_equal(wrk_rpc_quantity(json_object_get(j, "d"), &v), -1);
	assert_int_equal(wrk_rpc_quantity(json_object_get(j, "zz"), &v), -1);
	json_decref(j);
}

/* A head as a zero-padding node sends it, through the whole match. */
static void
test_match_padded_head(void **state)
{
	struct wrk_rpc_result	 r;
	json_t			*d;
	uint64_t		 n;
	unsigned		 f = WRK_RPC_NULL_ABSENT;
	const char		*body = "{\"id\":3,\"result\":{\"parentHash\":"
	    "\"0x00\",\"number\":\"0x00000000000004d2\",\"stateRoot\":\"0x00\"},"
	    "\"jsonrpc\":\"2.0\"}";

	d = wrk_rpc_match(body, strlen(body), 0, 3, &f, 1, &r);
	assert_int_equal(r.outcome, OUTCOME_OK);
	assert_int_equal(wrk_rpc_quantity(json_object_get(r.result, "number"),
	    &n), 0);
	assert_int_equal(n, 1234);
	json_decref(d);
}

static void
test_build(void **state)
{
	struct buf		 b = { 0 };
	struct wrk_rpc_call	 c[3] = {
		{ "chain_getHeader", "[\"0xab\"]", WRK_RPC_NULL_ABSENT },
		{ "chain_getBlockHash", "[5]", 0 },
		{ "system_health", NULL, 0 },
	};
	struct wrk_rpc_call	 bad = { "chain_get\"Header", NULL, 0 };
	json_t			*j, *e;

	assert_int_equal(wrk_rpc_build(&b, c, 1, 41), 0);
	j = json_loads(b.p, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "jsonrpc")),
	    "2.0");
	assert_int_equal(json_integer_value(json_object_get(j, "id")), 41);
	assert_string_equal(json_string_value(json_object_get(j, "method")),
	    "chain_getHeader");
	assert_string_equal(json_string_value(json_array_get(
	    json_object_get(j, "params"), 0)), "0xab");
	json_decref(j);

	assert_int_equal(wrk_rpc_build(&b, c, 3, 7), 0);
	j = json_loads(b.p, 0, NULL);
	assert_true(json_is_array(j));
	assert_int_equal(json_array_size(j), 3);
	for (int i = 0; i < 3; i++) {
		e = json_array_get(j, (size_t)i);
		assert_int_equal(json_integer_value(json_object_get(e, "id")),
		    7 + i);
		assert_true(json_is_array(json_object_get(e, "params")));
	}
	json_decref(j);

	assert_int_equal(wrk_rpc_build(&b, &bad, 1, 1), -1);
	assert_int_equal(wrk_rpc_build(&b, c, 0, 1), -1);
	buf_free(&b);
}

/* Substrate's answer to a batch past --rpc-max-batch-request-len. */
static void
test_refused(void **state)
{
	static const unsigned	 flags[NB];
	struct wrk_rpc_result	 out[NB];
	json_t			*d;

	d = matchn("{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32010,"
	    "\"message\":\"The batch request was too large\",\"data\":"
	    "\"Exceeded max limit of 3\"},\"id\":null}", flags, out);
	assert_true(wrk_rpc_refused(out, NB, 200));
	/* One call cannot be cut smaller. */
	assert_false(wrk_rpc_refused(out, 1, 200));
	json_decref(d);
	d = matchn("{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32011,"
	    "\"message\":\"The batch response was too large\"},\"id\":null}",
	    flags, out);
	assert_true(wrk_rpc_refused(out, NB, 200));
	json_decref(d);
	/* Another error for the whole batch says nothing of its size. */
	d = matchn("{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,"
	    "\"message\":\"Invalid request\"},\"id\":null}", flags, out);
	assert_false(wrk_rpc_refused(out, NB, 200));
	json_decref(d);
	/* -32010 for one call of the batch only: not the batch's size. */
	d = matchn("[{\"jsonrpc\":\"2.0\",\"result\":\"a\",\"id\":10},"
	    "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32010,\"message\":"
	    "\"x\"},\"id\":11}]", flags, out);
	assert_false(wrk_rpc_refused(out, NB, 200));
	json_decref(d);
	/* A proxy's 413 Payload Too Large. */
	memset(out, 0, sizeof(out));
	for (int i = 0; i < NB; i++)
		out[i].outcome = OUTCOME_HTTP_4XX;
	assert_true(wrk_rpc_refused(out, NB, 413));
	assert_false(wrk_rpc_refused(out, NB, 404));
}

/*
 * An endpoint that takes 30 calls a batch: refusals halve the limit
 * (100 -> 50 -> 25); full POSTs grow it halfway to the least refused,
 * and a refusal takes it back to the largest POST answered.  It settles
 * at 30, and probes past it only once what it refused is forgotten.
 */
static void
test_batch_limit(void **state)
{
	struct wrk_batch	b;
	uint64_t		now = 1000;
	unsigned		refusals = 0;
	size_t			least = SIZE_MAX;

	memset(&b, 0, sizeof(b));
	assert_int_equal(wrk_batch_size(&b, 100), 100);
	assert_true(wrk_batch_refused(&b, 100, now));
	assert_int_equal(wrk_batch_size(&b, 100), 50);
	assert_int_equal(wrk_batch_size(&b, 7), 7);
	assert_true(wrk_batch_refused(&b, 50, now));
	assert_int_equal(b.limit, 25);
	/* A late refusal of a larger POST changes nothing. */
	assert_false(wrk_batch_refused(&b, 100, now));
	assert_int_equal(b.limit, 25);
	/* Only full POSTs count, WRK_BATCH_GROW of them. */
	for (int i = 0; i < 100; i++)
		assert_false(wrk_batch_answered(&b, 10, now));
	for (int i = 0; i < WRK_BATCH_GROW - 1; i++)
		assert_false(wrk_batch_answered(&b, 25, now));
	assert_true(wrk_batch_answered(&b, 25, now));
	assert_int_equal(b.limit, 37);		/* halfway to 50 */
	/* Refused: back to the 25 it answered, not half of 37. */
	assert_true(wrk_batch_refused(&b, 37, now));
	assert_int_equal(b.limit, 25);
	/* An hour of traffic, a POST every 36 ms. */
	for (int i = 0; i < 100000; i++) {
		size_t k = wrk_batch_size(&b, 100);

		now += 36;
		if (k > 30) {
			(void)wrk_batch_refused(&b, k, now);
			refusals++;
		} else
			(void)wrk_batch_answered(&b, k, now);
		if (i > 10000 && b.limit < least)
			least = b.limit;
	}
	assert_int_equal(b.limit, 30);
	assert_int_equal(least, 30);
	/* A few probes each time a refusal is forgotten, no more. */
	assert_true(refusals <= 4 * (1 + 3600000 / WRK_BATCH_FORGET_MS));
	assert_true(refusals >= 3600000 / WRK_BATCH_FORGET_MS);
	/* An endpoint that lifts its limit is used whole again. */
	for (int i = 0; i < 2000; i++) {
		now += 1000;
		(void)wrk_batch_answered(&b, wrk_batch_size(&b, 100), now);
	}
	assert_int_equal(wrk_batch_size(&b, 100), 100);
	for (int i = 0; i < 4000 && b.limit != 0; i++) {
		now += 1000;
		(void)wrk_batch_answered(&b, b.limit, now);
	}
	assert_int_equal(b.limit, 0);
	/* One that lowers it later: half of what it refused. */
	assert_true(wrk_batch_refused(&b, 100, now));
	assert_int_equal(b.limit, 50);
	/* And one call is never cut. */
	assert_false(wrk_batch_refused(&b, 1, now));
	assert_int_equal(wrk_batch_size(&b, 1), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_http),
		cmocka_unit_test(test_classify_error),
		cmocka_unit_test(test_classify_answer),
		cmocka_unit_test(test_match_single),
		cmocka_unit_test(test_match_batch_order),
		cmocka_unit_test(test_match_batch_missing),
		cmocka_unit_test(test_match_batch_classes),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_match_padded_head),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_batch_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
