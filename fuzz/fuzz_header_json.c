/*
 * Headers as JSON (src/header.c), as the worker takes them from
 * chain_getHeader answers and new-heads notifications: parsed for either
 * format, judged against a served hash, hashed, the miner account and
 * the runtime-updated flag read, and written back to JSON that parses to
 * the same header.  Input: a format byte, then JSON text.
 */
#include "config.h"

#include <jansson.h>

#include "fuzz.h"
#include "header.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_log_init("fuzz_header_json");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct header	h, h2;
	enum chain_format	fmt;
	json_t			*j, *back;
	json_error_t		e;
	uint8_t			hash[32], got[32], miner[32];
	char			err[160];

	if (size < 1)
		return 0;
	fmt = data[0] & 1 ? FORMAT_SUBSTRATE : FORMAT_QUANTUS;
	if ((j = json_loadb((const char *)data + 1, size - 1,
	    JSON_DECODE_ANY, &e)) == NULL)
		return 0;
	memset(hash, 0xab, sizeof(hash));
	(void)header_judge(fmt, j, hash, &h, got, err, sizeof(err));
	if (header_from_json(fmt, j, &h, err, sizeof(err)) == 0) {
		header_hash(fmt, &h, hash);
		(void)header_miner(fmt, &h, miner);
		(void)header_runtime_updated(&h);
		/* The JSON written back is a header that hashes the same. */
		if ((back = header_to_json(fmt, &h)) == NULL)
			abort();
		if (header_judge(fmt, back, hash, &h2, got, err,
		    sizeof(err)) != 0)
			abort();
		json_decref(back);
	}
	json_decref(j);
	return 0;
}
