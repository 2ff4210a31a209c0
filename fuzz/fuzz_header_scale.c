/*
 * SCALE-encoded headers (src/header.c) of either format: decoded, and
 * what decodes encodes back to bytes that decode to the same header;
 * then its hash, miner account and runtime-updated flag, as the worker
 * and the supervisor read them.  Input: a format byte, then the bytes.
 */
#include "config.h"

#include "fuzz.h"
#include "header.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_log_init("fuzz_header_scale");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct header	h, h2;
	static uint8_t		enc[HEADER_SCALE_MAX];
	enum chain_format	fmt;
	uint8_t			hash[32], miner[32];
	long			len;

	if (size < 1)
		return 0;
	fmt = data[0] & 1 ? FORMAT_SUBSTRATE : FORMAT_QUANTUS;
	if (header_decode(fmt, data + 1, size - 1, &h) == -1)
		return 0;
	header_hash(fmt, &h, hash);
	(void)header_miner(fmt, &h, miner);
	(void)header_runtime_updated(&h);
	/* What was taken must go out again and come back the same. */
	if ((len = header_encode(fmt, &h, enc, sizeof(enc))) == -1)
		abort();
	if (header_decode(fmt, enc, (size_t)len, &h2) == -1)
		abort();
	if (h2.number != h.number || h2.n_logs != h.n_logs ||
	    h2.digest_len != h.digest_len ||
	    memcmp(h2.parent_hash, h.parent_hash, 32) != 0 ||
	    memcmp(h2.digest, h.digest, h.digest_len) != 0)
		abort();
	return 0;
}
