/*
 * JSON-RPC answers as the worker gets them in an HTTP body: matched to
 * their calls and classified (workers/wrk_rpc.c), then the results read
 * as the worker reads them: hashes, storage values and quantities as
 * hex (src/hex.c), headers as JSON of either format (src/header.c).
 * Input: one selector byte (batch or not, how many calls, their flags,
 * the HTTP status), then the body.
 */
#include "config.h"

#include <jansson.h>

#include "fuzz.h"
#include "header.h"
#include "hex.h"
#include "proto.h"
#include "wrk_rpc.h"

#define FUZZ_CALLS_MAX	8

static const long statuses[] = { 200, 204, 301, 429, 404, 500, 503, 101 };

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_log_init("fuzz_rpc");
	return 0;
}

static void
read_result(const json_t *v)
{
	uint8_t		 hash[32], value[PROTO_VALUE_MAX];
	uint64_t	 q;
	size_t		 len;
	struct header	*h;
	char		 err[PROTO_WHY_MAX];
	uint8_t		 miner[32], got[32];

	if (json_is_string(v)) {
		(void)hex_decode(json_string_value(v), hash, sizeof(hash));
		(void)hex_decode_var(json_string_value(v), value,
		    sizeof(value), &len);
	}
	(void)wrk_rpc_quantity(v, &q);
	if (!json_is_object(v))
		return;
	h = malloc(sizeof(*h));
	for (int f = FORMAT_QUANTUS; f <= FORMAT_SUBSTRATE; f++) {
		memset(hash, 0, sizeof(hash));
		if (header_judge((enum chain_format)f, v, hash, h, got, err,
		    sizeof(err)) == 0 || header_from_json((enum chain_format)f,
		    v, h, err, sizeof(err)) == 0) {
			header_hash((enum chain_format)f, h, got);
			(void)header_miner((enum chain_format)f, h, miner);
			(void)header_runtime_updated(h);
		}
	}
	free(h);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wrk_rpc_result	 out[FUZZ_CALLS_MAX];
	struct wrk_http_reply	 reply;
	unsigned		 flags[FUZZ_CALLS_MAX];
	json_t			*doc;
	size_t			 n;
	int			 batch;

	if (size < 1)
		return 0;
	batch = data[0] & 1;
	n = batch ? 1 + ((data[0] >> 1) & 7) : 1;
	for (size_t i = 0; i < n; i++)
		flags[i] = (data[0] >> 4) & 1 ? WRK_RPC_NULL_ABSENT : 0;
	memset(&reply, 0, sizeof(reply));
	reply.status = statuses[(data[0] >> 5) & 7];
	reply.body = (const char *)data + 1;
	reply.len = size - 1;
	if (wrk_rpc_classify_http(&reply) != OUTCOME_OK)
		return 0;
	doc = wrk_rpc_match((const char *)data + 1, size - 1, batch, 1, flags,
	    n, out);
	for (size_t i = 0; i < n; i++) {
		if (out[i].outcome != OUTCOME_OK)
			continue;
		read_result(out[i].result);
	}
	json_decref(doc);
	return 0;
}
