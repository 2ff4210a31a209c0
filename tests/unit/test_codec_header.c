/*
 * Unit tests for block headers: every header of quantus-vectors.json and
 * substrate-vectors.json through RPC JSON, SCALE and the block hash (both
 * ways), the digest window, the miner, and header_from_json's refusals.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "account.h"
#include "hash.h"
#include "header.h"
#include "hex.h"
#include "test_codec_vec.h"

static json_t	*qvec, *svec;

static int
setup(void **state)
{
	qvec = vec_load("quantus-vectors.json");
	svec = vec_load("substrate-vectors.json");
	return qvec == NULL || svec == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	json_decref(qvec);
	json_decref(svec);
	return 0;
}

/*
 * The quantus vectors give number both as an integer and as numberRpc;
 * a node sends the hex string as "number".  A new reference.
 */
static json_t *
quantus_rpc(const json_t *e)
{
	json_t	*h = json_deep_copy(vec_get(e, "header"));

	json_object_set(h, "number", vec_get(h, "numberRpc"));
	json_object_del(h, "numberRpc");
	return h;
}

static void
from_json_ok(enum chain_format fmt, const json_t *j, struct header *h)
{
	char	err[256] = "";

	if (header_from_json(fmt, j, h, err, sizeof(err)) != 0)
		fail_msg("header_from_json: %s", err);
}

static void
check_h256(const uint8_t *got, const json_t *o, const char *key)
{
	uint8_t	want[32];

	vec_hex(vec_str(o, key), want, 32);
	assert_memory_equal(got, want, 32);
}

/* The quantus SCALE layout, built here independently of header_encode. */
static size_t
quantus_scale(const struct header *h, uint8_t *out)
{
	size_t	n = 0;

	memcpy(out + n, h->parent_hash, 32);
	n += 32;
	out[n++] = (uint8_t)h->number;
	out[n++] = (uint8_t)(h->number >> 8);
	out[n++] = (uint8_t)(h->number >> 16);
	out[n++] = (uint8_t)(h->number >> 24);
	memcpy(out + n, h->state_root, 32);
	n += 32;
	memcpy(out + n, h->extrinsics_root, 32);
	n += 32;
	memcpy(out + n, h->zk_tree_root, 32);
	n += 32;
	memcpy(out + n, h->digest, h->digest_len);
	return n + h->digest_len;
}

static void
check_roundtrip(enum chain_format fmt, const struct header *h,
    const uint8_t *scale, size_t scale_len, const uint8_t want_hash[32])
{
	static struct header	h2;
	static uint8_t		buf[HEADER_SCALE_MAX];
	uint8_t			hash[32];
	long			n;

	n = header_encode(fmt, h, buf, sizeof(buf));
	assert_int_equal(n, (long)scale_len);
	assert_memory_equal(buf, scale, scale_len);
	/* Exactly enough room is enough; one byte less is not. */
	assert_int_equal(header_encode(fmt, h, buf, scale_len), n);
	assert_int_equal(header_encode(fmt, h, buf, scale_len - 1), -1);

	assert_int_equal(header_decode(fmt, scale, scale_len, &h2), 0);
	assert_int_equal(h2.n_logs, h->n_logs);
	assert_int_equal(h2.digest_len, h->digest_len);
	assert_memory_equal(h2.logs, h->logs, h->n_logs * sizeof(h->logs[0]));
	n = header_encode(fmt, &h2, buf, sizeof(buf));
	assert_int_equal(n, (long)scale_len);
	assert_memory_equal(buf, scale, scale_len);
	header_hash(fmt, &h2, hash);
	assert_memory_equal(hash, want_hash, 32);

	/* Truncated or with a byte more, the encoding is refused. */
	assert_int_equal(header_decode(fmt, scale, scale_len - 1, &h2), -1);
	memcpy(buf, scale, scale_len);
	buf[scale_len] = 0;
	assert_int_equal(header_decode(fmt, buf, scale_len + 1, &h2), -1);
}

static void
check_to_json(enum chain_format fmt, const struct header *h,
    const json_t *want)
{
	json_t	*j = header_to_json(fmt, h);
	char	*a, *b;

	assert_non_null(j);
	if (!json_equal(j, (json_t *)want)) {
		a = json_dumps(j, JSON_COMPACT);
		b = json_dumps(want, JSON_COMPACT);
		fail_msg("header_to_json\n got  %s\n want %s", a, b);
	}
	json_decref(j);
}

static void
test_quantus_headers(void **state)
{
	static struct header	 h;
	static uint8_t		 scale[HEADER_SCALE_MAX];
	json_t			*a = vec_array(qvec, "headers"), *e, *rpc, *f;
	uint8_t			 want_digest[HEADER_DIGEST_MAX], want[32];
	uint8_t			 hash[32];
	uint64_t		 felts[QUANTUS_HEADER_FELTS];
	uint64_t		 want_felts[QUANTUS_HEADER_FELTS], num;
	size_t			 i, n, with_felts = 0, updated = 0;

	json_array_foreach(a, i, e) {
		rpc = quantus_rpc(e);
		from_json_ok(FORMAT_QUANTUS, rpc, &h);

		check_h256(h.parent_hash, rpc, "parentHash");
		check_h256(h.state_root, rpc, "stateRoot");
		check_h256(h.extrinsics_root, rpc, "extrinsicsRoot");
		check_h256(h.zk_tree_root, rpc, "zkTreeRoot");
		num = (uint64_t)json_integer_value(vec_get(vec_get(e, "header"),
		    "number"));
		assert_true(h.number == num);
		assert_int_equal(h.n_logs, json_array_size(vec_array(
		    vec_get(rpc, "digest"), "logs")));

		n = vec_hexvar(vec_str(e, "digest_scale"), want_digest,
		    sizeof(want_digest));
		assert_int_equal(n, json_integer_value(vec_get(e,
		    "digest_scale_len")));
		assert_int_equal(h.digest_len, n);
		assert_memory_equal(h.digest, want_digest, n);

		if ((f = json_object_get(e, "felts")) != NULL) {
			assert_int_equal(vec_felts(f, want_felts,
			    QUANTUS_HEADER_FELTS), QUANTUS_HEADER_FELTS);
			header_quantus_felts(&h, felts);
			assert_memory_equal(felts, want_felts, sizeof(felts));
			with_felts++;
		}

		vec_hex(vec_str(e, "hash"), want, 32);
		header_hash(FORMAT_QUANTUS, &h, hash);
		if (memcmp(hash, want, 32) != 0)
			fail_msg("hash of \"%s\" differs", vec_str(e, "name"));

		n = quantus_scale(&h, scale);
		check_roundtrip(FORMAT_QUANTUS, &h, scale, n, want);
		check_to_json(FORMAT_QUANTUS, &h, rpc);
		if (header_runtime_updated(&h))
			updated++;
		json_decref(rpc);
	}
	assert_int_equal(i, 15);
	assert_int_equal(with_felts, 2);
	assert_int_equal(updated, 1);
}

static json_t *
quantus_entry(const char *prefix)
{
	json_t	*a = vec_array(qvec, "headers"), *e;
	size_t	 i;

	json_array_foreach(a, i, e)
		if (strncmp(vec_str(e, "name"), prefix, strlen(prefix)) == 0)
			return e;
	fail_msg("no quantus header vector \"%s\"", prefix);
	return NULL;
}

/*
 * The PoW pre_hash is the hash of the header without its Seal: rebuild it
 * from the sealed block #4 and compare with the pre_hash vector.
 */
static void
test_quantus_pre_hash(void **state)
{
	static struct header	 sealed, pre;
	json_t			*rpc, *e;
	uint8_t			 hash[32], want[32];
	const struct digest_item *it;

	e = quantus_entry("devnet block #4, pre-seal");
	vec_hex(vec_str(e, "hash"), want, 32);

	rpc = quantus_rpc(quantus_entry("devnet block #4"));
	from_json_ok(FORMAT_QUANTUS, rpc, &sealed);
	json_decref(rpc);
	assert_int_equal(sealed.n_logs, 2);
	assert_int_equal(sealed.logs[1].kind, DIGEST_SEAL);

	header_init(&pre);
	memcpy(pre.parent_hash, sealed.parent_hash, 32);
	pre.number = sealed.number;
	memcpy(pre.state_root, sealed.state_root, 32);
	memcpy(pre.extrinsics_root, sealed.extrinsics_root, 32);
	memcpy(pre.zk_tree_root, sealed.zk_tree_root, 32);
	it = &sealed.logs[0];
	assert_int_equal(header_add_log(&pre, it->kind, it->engine,
	    sealed.digest + it->off, it->len), 0);
	assert_int_equal(pre.digest_len, 39);
	header_hash(FORMAT_QUANTUS, &pre, hash);
	assert_memory_equal(hash, want, 32);
}

/* Any one byte changed changes the hash, except past the 110-byte window. */
static void
test_quantus_one_byte_off(void **state)
{
	static struct header	 h, x;
	json_t			*rpc;
	uint8_t			 base[32], hash[32];
	uint8_t			*fields[4];
	size_t			 i, k;

	rpc = quantus_rpc(quantus_entry("devnet block #4"));
	from_json_ok(FORMAT_QUANTUS, rpc, &h);
	json_decref(rpc);
	header_hash(FORMAT_QUANTUS, &h, base);

	fields[0] = x.parent_hash;
	fields[1] = x.state_root;
	fields[2] = x.extrinsics_root;
	fields[3] = x.zk_tree_root;
	for (k = 0; k < 4; k++)
		for (i = 0; i < 32; i++) {
			x = h;
			fields[k][i] ^= 0x01;
			header_hash(FORMAT_QUANTUS, &x, hash);
			if (memcmp(hash, base, 32) == 0)
				fail_msg("field %zu byte %zu not hashed", k, i);
		}
	for (i = 0; i < h.digest_len; i++) {
		x = h;
		x.digest[i] ^= 0x80;
		header_hash(FORMAT_QUANTUS, &x, hash);
		if (memcmp(hash, base, 32) == 0)
			fail_msg("digest byte %zu not hashed", i);
	}
	x = h;
	x.number++;
	header_hash(FORMAT_QUANTUS, &x, hash);
	assert_memory_not_equal(hash, base, 32);

	/* The 111-byte digest: its last byte is outside the window. */
	rpc = quantus_rpc(quantus_entry("111-byte digest"));
	from_json_ok(FORMAT_QUANTUS, rpc, &h);
	json_decref(rpc);
	assert_int_equal(h.digest_len, 111);
	header_hash(FORMAT_QUANTUS, &h, base);
	x = h;
	x.digest[110] ^= 0xff;
	header_hash(FORMAT_QUANTUS, &x, hash);
	assert_memory_equal(hash, base, 32);
	x = h;
	x.digest[109] ^= 0x01;
	header_hash(FORMAT_QUANTUS, &x, hash);
	assert_memory_not_equal(hash, base, 32);
}

/* Zero-padded numbers, upper-case hex and another key order decode alike. */
static void
test_quantus_json_variants(void **state)
{
	static struct header	 h, v;
	json_t			*rpc, *alt, *digest, *logs;
	const char		*keys[] = { "digest", "zkTreeRoot",
	    "extrinsicsRoot", "stateRoot", "number", "parentHash" };
	uint8_t			 a[32], b[32];
	char			 up[80];
	size_t			 i;

	rpc = quantus_rpc(quantus_entry("pseudo-random sealed header 0"));
	from_json_ok(FORMAT_QUANTUS, rpc, &h);
	header_hash(FORMAT_QUANTUS, &h, a);

	alt = json_object();
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		json_object_set(alt, keys[i], vec_get(rpc, keys[i]));
	json_object_set_new(alt, "number", json_string("0x000d07900a"));
	snprintf(up, sizeof(up), "0x%s", vec_str(rpc, "stateRoot") + 2);
	for (i = 2; up[i] != '\0'; i++)
		if (up[i] >= 'a' && up[i] <= 'f')
			up[i] = (char)(up[i] - 'a' + 'A');
	json_object_set_new(alt, "stateRoot", json_string(up));
	json_object_set_new(alt, "extra", json_string("ignored"));
	from_json_ok(FORMAT_QUANTUS, alt, &v);
	header_hash(FORMAT_QUANTUS, &v, b);
	assert_memory_equal(a, b, 32);
	assert_true(v.number == 0xd07900a);

	/* The same object as substrate: no zkTreeRoot needed, other hash. */
	json_object_del(alt, "zkTreeRoot");
	from_json_ok(FORMAT_SUBSTRATE, alt, &v);
	digest = vec_get(alt, "digest");
	logs = vec_array(digest, "logs");
	assert_int_equal(v.n_logs, json_array_size(logs));
	json_decref(alt);
	json_decref(rpc);
}

static void
test_substrate_headers(void **state)
{
	static struct header	 h;
	static uint8_t		 scale[HEADER_SCALE_MAX];
	json_t			*a = vec_array(svec, "headers"), *e, *rpc;
	uint8_t			 want[32], hash[32];
	size_t			 i, n, updated = 0;

	json_array_foreach(a, i, e) {
		rpc = vec_get(e, "rpc");
		from_json_ok(FORMAT_SUBSTRATE, rpc, &h);
		n = vec_hexvar(vec_str(e, "scale"), scale, sizeof(scale));
		vec_hex(vec_str(e, "hash"), want, 32);

		header_hash(FORMAT_SUBSTRATE, &h, hash);
		if (memcmp(hash, want, 32) != 0)
			fail_msg("hash of \"%s\" differs", vec_str(e, "name"));
		blake2b_256(scale, n, hash);
		assert_memory_equal(hash, want, 32);
		check_roundtrip(FORMAT_SUBSTRATE, &h, scale, n, want);
		check_to_json(FORMAT_SUBSTRATE, &h, rpc);
		if (header_runtime_updated(&h))
			updated++;
	}
	assert_int_equal(i, 11);
	assert_int_equal(updated, 2);
}

/*
 * header_judge: every vector is served under its own hash in its own
 * format; in the other format it hashes elsewhere (quantus read as
 * substrate) or does not decode (substrate read as quantus: no
 * zkTreeRoot); and a hash one bit off is refused in any format.
 */
static void
test_judge(void **state)
{
	static struct header	 h;
	json_t			*e, *rpc;
	uint8_t			 want[32], got[32];
	char			 err[160], hx[67];
	size_t			 i;

	json_array_foreach(vec_array(qvec, "headers"), i, e) {
		rpc = quantus_rpc(e);
		vec_hex(vec_str(e, "hash"), want, 32);
		err[0] = '\0';
		if (header_judge(FORMAT_QUANTUS, rpc, want, &h, got, err,
		    sizeof(err)) != 0)
			fail_msg("\"%s\": %s", vec_str(e, "name"), err);
		assert_memory_equal(got, want, 32);
		assert_int_equal(header_judge(FORMAT_SUBSTRATE, rpc, want, &h,
		    got, err, sizeof(err)), -1);
		assert_memory_not_equal(got, want, 32);
		hex_encode(got, 32, hx);
		assert_non_null(strstr(err, " as substrate, not 0x"));
		assert_int_equal(strncmp(strstr(err, "hashes to ") + 10, hx, 12),
		    0);
		want[31] ^= 1;
		assert_int_equal(header_judge(FORMAT_QUANTUS, rpc, want, &h,
		    got, err, sizeof(err)), -1);
		assert_non_null(strstr(err, " as quantus, not 0x"));
		json_decref(rpc);
	}
	json_array_foreach(vec_array(svec, "headers"), i, e) {
		rpc = vec_get(e, "rpc");
		vec_hex(vec_str(e, "hash"), want, 32);
		assert_int_equal(header_judge(FORMAT_SUBSTRATE, rpc, want, &h,
		    got, err, sizeof(err)), 0);
		assert_memory_equal(got, want, 32);
		assert_int_equal(header_judge(FORMAT_QUANTUS, rpc, want, &h,
		    got, err, sizeof(err)), -1);
		assert_string_equal(err, "does not decode as quantus: "
		    "zkTreeRoot: missing");
		memset(want, 0, sizeof(want));
		assert_memory_equal(got, want, 32);
	}
	/* Not a header at all: refused, whatever the hash. */
	rpc = json_string("0x00");
	assert_int_equal(header_judge(FORMAT_SUBSTRATE, rpc, want, &h, got,
	    err, sizeof(err)), -1);
	assert_string_equal(err, "does not decode as substrate: header: not a "
	    "JSON object");
	json_decref(rpc);
}

static void
test_miner(void **state)
{
	static struct header	 h;
	json_t			*rpc, *e, *f;
	uint8_t			 acc[32], want[32], pre[32], seal[64];
	size_t			 i;

	/* Quantus block #4: the account of its PreRuntime preimage. */
	rpc = quantus_rpc(quantus_entry("devnet block #4"));
	from_json_ok(FORMAT_QUANTUS, rpc, &h);
	json_decref(rpc);
	e = NULL;
	json_array_foreach(vec_array(qvec, "miner_accounts"), i, f)
		if (strcmp(vec_str(f, "name"),
		    "devnet block #4 PreRuntime preimage") == 0)
			e = f;
	assert_non_null(e);
	vec_hex(vec_str(e, "account"), want, 32);
	assert_int_equal(header_miner(FORMAT_QUANTUS, &h, acc), 1);
	assert_memory_equal(acc, want, 32);
	assert_int_equal(header_runtime_updated(&h), 0);

	memset(pre, 0x01, sizeof(pre));
	memset(seal, 0x02, sizeof(seal));
	vec_hex("2d4548afcac311cdb847e9f39e4d5255bf746eddd86b714032d92d6c0ed708d1",
	    want, 32);

	/* No PreRuntime, or another engine's: no miner. */
	header_init(&h);
	assert_int_equal(header_miner(FORMAT_QUANTUS, &h, acc), 0);
	assert_int_equal(header_add_log(&h, DIGEST_PRERUNTIME,
	    (const uint8_t *)"aura", pre, 32), 0);
	assert_int_equal(header_add_log(&h, DIGEST_CONSENSUS, ENGINE_POW, pre,
	    32), 0);
	assert_int_equal(header_miner(FORMAT_QUANTUS, &h, acc), 0);
	/* Then a pow_ PreRuntime: it counts. */
	assert_int_equal(header_add_log(&h, DIGEST_PRERUNTIME, ENGINE_POW, pre,
	    32), 0);
	assert_int_equal(header_miner(FORMAT_QUANTUS, &h, acc), 1);
	assert_memory_equal(acc, want, 32);
	assert_int_equal(header_miner(FORMAT_SUBSTRATE, &h, acc), 1);
	assert_memory_equal(acc, pre, 32);

	/* Only the first pow_ PreRuntime counts, even when it is unusable. */
	header_init(&h);
	assert_int_equal(header_add_log(&h, DIGEST_PRERUNTIME, ENGINE_POW, pre,
	    31), 0);
	assert_int_equal(header_add_log(&h, DIGEST_PRERUNTIME, ENGINE_POW, pre,
	    32), 0);
	assert_int_equal(header_miner(FORMAT_QUANTUS, &h, acc), 0);
	assert_int_equal(header_miner(FORMAT_SUBSTRATE, &h, acc), 0);

	/* A preimage with a limb >= p: the chain has no author. */
	header_init(&h);
	memset(pre, 0xff, sizeof(pre));
	assert_int_equal(header_add_log(&h, DIGEST_PRERUNTIME, ENGINE_POW, pre,
	    32), 0);
	assert_int_equal(header_miner(FORMAT_QUANTUS, &h, acc), 0);
	assert_int_equal(header_miner(FORMAT_SUBSTRATE, &h, acc), 1);
}

static void
test_add_log(void **state)
{
	static struct header	h;
	static uint8_t		big[HEADER_DIGEST_MAX];
	uint8_t			want[64], data[3] = { 0xaa, 0xbb, 0xcc };
	size_t			n, len, i;

	header_init(&h);
	assert_int_equal(h.digest_len, 1);
	assert_int_equal(h.digest[0], 0);
	assert_int_equal(h.n_logs, 0);

	assert_int_equal(header_add_log(&h, DIGEST_PRERUNTIME, ENGINE_POW,
	    data, 3), 0);
	assert_int_equal(header_add_log(&h, DIGEST_OTHER, NULL, data, 2), 0);
	assert_int_equal(header_add_log(&h, DIGEST_RUNTIME_UPDATED, NULL,
	    NULL, 0), 0);
	assert_int_equal(header_add_log(&h, DIGEST_CONSENSUS,
	    (const uint8_t *)"FRNK", data, 1), 0);
	assert_int_equal(header_add_log(&h, DIGEST_SEAL, ENGINE_POW, NULL, 0),
	    0);
	n = vec_hexvar("14" "06706f775f0caabbcc" "0008aabb" "08"
	    "0446524e4b04aa" "05706f775f00", want, sizeof(want));
	assert_int_equal(h.digest_len, n);
	assert_memory_equal(h.digest, want, n);
	assert_int_equal(h.n_logs, 5);
	assert_int_equal(h.logs[0].off, 7);
	assert_int_equal(h.logs[0].len, 3);
	assert_memory_equal(h.logs[0].engine, "pow_", 4);
	assert_int_equal(h.logs[1].off, 12);
	assert_int_equal(h.logs[2].kind, DIGEST_RUNTIME_UPDATED);
	assert_int_equal(h.logs[2].len, 0);
	assert_memory_equal(h.logs[3].engine, "FRNK", 4);
	assert_int_equal(header_runtime_updated(&h), 1);

	/* Refusals leave the digest as it was. */
	assert_int_equal(header_add_log(&h, DIGEST_RUNTIME_UPDATED, NULL,
	    data, 1), -1);
	assert_int_equal(header_add_log(&h, (enum digest_kind)7, ENGINE_POW,
	    data, 1), -1);
	assert_int_equal(header_add_log(&h, DIGEST_SEAL, NULL, data, 1), -1);
	assert_int_equal(header_add_log(&h, DIGEST_OTHER, NULL, big,
	    sizeof(big) - n), -1);
	assert_int_equal(h.digest_len, n);
	assert_memory_equal(h.digest, want, n);
	assert_int_equal(h.n_logs, 5);

	/* Filling the digest to exactly HEADER_DIGEST_MAX works. */
	len = sizeof(big) - n - 1 - 2;		/* kind, compact(len) */
	assert_int_equal(header_add_log(&h, DIGEST_OTHER, NULL, big, len), 0);
	assert_int_equal(h.digest_len, HEADER_DIGEST_MAX);
	assert_int_equal(header_add_log(&h, DIGEST_RUNTIME_UPDATED, NULL,
	    NULL, 0), -1);

	/* At most HEADER_LOGS_MAX items. */
	header_init(&h);
	for (i = 0; i < HEADER_LOGS_MAX; i++)
		assert_int_equal(header_add_log(&h, DIGEST_RUNTIME_UPDATED,
		    NULL, NULL, 0), 0);
	assert_int_equal(h.digest[0], HEADER_LOGS_MAX << 2);
	assert_int_equal(header_add_log(&h, DIGEST_RUNTIME_UPDATED, NULL,
	    NULL, 0), -1);
	assert_int_equal(h.digest_len, 1 + HEADER_LOGS_MAX);
}

static void
test_encode_decode_edges(void **state)
{
	static struct header	h;
	static uint8_t		buf[HEADER_SCALE_MAX];
	long			n;
	size_t			i;

	header_init(&h);
	h.number = 0x100000000ULL;
	assert_int_equal(header_encode(FORMAT_QUANTUS, &h, buf, sizeof(buf)),
	    -1);
	n = header_encode(FORMAT_SUBSTRATE, &h, buf, sizeof(buf));
	assert_int_equal(n, 32 + 6 + 64 + 1);
	assert_int_equal(header_decode(FORMAT_SUBSTRATE, buf, (size_t)n, &h),
	    0);
	assert_true(h.number == 0x100000000ULL);

	/* 33 logs, an unknown item kind, a non-canonical number. */
	header_init(&h);
	n = header_encode(FORMAT_QUANTUS, &h, buf, sizeof(buf));
	assert_int_equal(n, 32 + 4 + 96 + 1);
	buf[n - 1] = (HEADER_LOGS_MAX + 1) << 2;
	for (i = 0; i <= HEADER_LOGS_MAX; i++)
		buf[n + i] = DIGEST_RUNTIME_UPDATED;
	assert_int_equal(header_decode(FORMAT_QUANTUS, buf,
	    (size_t)n + HEADER_LOGS_MAX + 1, &h), -1);
	buf[n - 1] = HEADER_LOGS_MAX << 2;
	assert_int_equal(header_decode(FORMAT_QUANTUS, buf,
	    (size_t)n + HEADER_LOGS_MAX, &h), 0);
	assert_int_equal(h.n_logs, HEADER_LOGS_MAX);
	buf[n - 1] = 1 << 2;
	buf[n] = 0x07;
	assert_int_equal(header_decode(FORMAT_QUANTUS, buf, (size_t)n + 1,
	    &h), -1);

	header_init(&h);
	n = header_encode(FORMAT_SUBSTRATE, &h, buf, sizeof(buf));
	buf[32] = 0x01;		/* number 0 as a two-byte compact */
	memmove(buf + 34, buf + 33, (size_t)n - 33);
	buf[33] = 0x00;
	assert_int_equal(header_decode(FORMAT_SUBSTRATE, buf, (size_t)n + 1,
	    &h), -1);
	assert_int_equal(header_decode(FORMAT_SUBSTRATE, buf, 0, &h), -1);
}

/*
 * header_from_json refusals: each case edits a valid quantus header and
 * names the exact message, which must name the field.
 */
static void
expect_json_error(const json_t *j, enum chain_format fmt, const char *want)
{
	static struct header	h;
	char			err[256] = "";

	if (header_from_json(fmt, j, &h, err, sizeof(err)) != -1)
		fail_msg("accepted, wanted \"%s\"", want);
	if (strcmp(err, want) != 0)
		fail_msg("error \"%s\", wanted \"%s\"", err, want);
}

static json_t *
logs_of(json_t *j)
{
	return json_object_get(json_object_get(j, "digest"), "logs");
}

static void
test_json_errors(void **state)
{
	static char	 big[2 * HEADER_DIGEST_MAX + 16];
	json_t		*base, *j;
	size_t		 i;

	base = quantus_rpc(quantus_entry("devnet block #4"));

	j = json_array();
	expect_json_error(j, FORMAT_QUANTUS, "header: not a JSON object");
	json_decref(j);

#define MUTATE(stmt, fmt, msg) do {					\
	j = json_deep_copy(base);					\
	stmt;								\
	expect_json_error(j, fmt, msg);					\
	json_decref(j);							\
} while (0)

	MUTATE(json_object_del(j, "parentHash"), FORMAT_QUANTUS,
	    "parentHash: missing");
	MUTATE(json_object_set_new(j, "parentHash", json_integer(1)),
	    FORMAT_QUANTUS, "parentHash: not a string");
	MUTATE(json_object_set_new(j, "parentHash", json_string("0x12")),
	    FORMAT_QUANTUS, "parentHash: not 32 bytes of hex");
	MUTATE(json_object_set_new(j, "stateRoot", json_string("0x"
	    "1688817041c572d6c971681465f401f06d0fdcfaed61d28c06d42dc2d07816dg")),
	    FORMAT_QUANTUS, "stateRoot: not 32 bytes of hex");
	MUTATE(json_object_set_new(j, "extrinsicsRoot", json_stringn("0x00\0"
	    "0", 5)), FORMAT_QUANTUS, "extrinsicsRoot: not a string");
	MUTATE(json_object_del(j, "extrinsicsRoot"), FORMAT_QUANTUS,
	    "extrinsicsRoot: missing");
	MUTATE(json_object_del(j, "zkTreeRoot"), FORMAT_QUANTUS,
	    "zkTreeRoot: missing");

	MUTATE(json_object_del(j, "number"), FORMAT_QUANTUS,
	    "number: missing");
	MUTATE(json_object_set_new(j, "number", json_integer(4)),
	    FORMAT_QUANTUS, "number: not a string");
	MUTATE(json_object_set_new(j, "number", json_string("4")),
	    FORMAT_QUANTUS, "number: not a hex quantity of at most 64 bits");
	MUTATE(json_object_set_new(j, "number", json_string("0x")),
	    FORMAT_QUANTUS, "number: not a hex quantity of at most 64 bits");
	MUTATE(json_object_set_new(j, "number",
	    json_string("0x10000000000000000")), FORMAT_SUBSTRATE,
	    "number: not a hex quantity of at most 64 bits");
	MUTATE(json_object_set_new(j, "number", json_string("0x100000000")),
	    FORMAT_QUANTUS, "number: 0x100000000 does not fit in u32 (quantus)");

	MUTATE(json_object_del(j, "digest"), FORMAT_QUANTUS,
	    "digest: missing");
	MUTATE(json_object_set_new(j, "digest", json_array()), FORMAT_QUANTUS,
	    "digest: not an object");
	MUTATE(json_object_del(json_object_get(j, "digest"), "logs"),
	    FORMAT_QUANTUS, "digest.logs: missing");
	MUTATE(json_object_set_new(json_object_get(j, "digest"), "logs",
	    json_string("0x")), FORMAT_QUANTUS, "digest.logs: not an array");
	MUTATE(for (i = 0; i < HEADER_LOGS_MAX - 1; i++)
	    json_array_append_new(logs_of(j), json_string("0x08")),
	    FORMAT_QUANTUS, "digest.logs: 33 items, at most 32");

	MUTATE(json_array_set_new(logs_of(j), 1, json_string("0x07706f775f00")),
	    FORMAT_QUANTUS, "digest.logs[1]: bad item kind 0x07");
	MUTATE(json_array_set_new(logs_of(j), 1, json_integer(8)),
	    FORMAT_QUANTUS, "digest.logs[1]: not a string");
	MUTATE(json_array_set_new(logs_of(j), 0, json_string("0x")),
	    FORMAT_QUANTUS, "digest.logs[0]: empty item");
	MUTATE(json_array_set_new(logs_of(j), 0, json_string("0x080")),
	    FORMAT_QUANTUS, "digest.logs[0]: not a hex byte string");
	MUTATE(json_array_set_new(logs_of(j), 0, json_string("0x0800")),
	    FORMAT_QUANTUS, "digest.logs[0]: 1 bytes after the item");
	MUTATE(json_array_set_new(logs_of(j), 0, json_string("0x06706f77")),
	    FORMAT_QUANTUS, "digest.logs[0]: truncated engine id");
	MUTATE(json_array_set_new(logs_of(j), 0, json_string("0x06706f775f")),
	    FORMAT_QUANTUS,
	    "digest.logs[0]: truncated or non-canonical length");
	MUTATE(json_array_set_new(logs_of(j), 0, json_string("0x000100")),
	    FORMAT_QUANTUS,
	    "digest.logs[0]: truncated or non-canonical length");
	MUTATE(json_array_set_new(logs_of(j), 0, json_string("0x06706f775f80"
	    "e9b6b76b9e017313db7efd561ed0b046152db4e5093e5b040635f53430267b")),
	    FORMAT_QUANTUS, "digest.logs[0]: payload of 32 bytes but 31 left");

	/* One item over the digest bound, then two that only add up over. */
	memcpy(big, "0x00fd7f", 8);		/* Other, compact(8191) */
	memset(big + 8, 'a', 2 * 8191);
	MUTATE(json_array_set_new(logs_of(j), 0, json_string(big)),
	    FORMAT_QUANTUS, "digest.logs[0]: over 8192 bytes");
	memcpy(big, "0x00214e", 8);		/* Other, compact(5000) */
	big[8 + 2 * 5000] = '\0';
	MUTATE(json_array_set_new(logs_of(j), 0, json_string(big));
	    json_array_set_new(logs_of(j), 1, json_string(big)),
	    FORMAT_QUANTUS, "digest.logs[1]: digest over 8192 bytes");
#undef MUTATE

	/* The bounds themselves are accepted: 32 logs. */
	j = json_deep_copy(base);
	for (i = 0; i < HEADER_LOGS_MAX - 2; i++)
		json_array_append_new(logs_of(j), json_string("0x08"));
	{
		static struct header	h;
		char			err[256] = "";

		assert_int_equal(header_from_json(FORMAT_QUANTUS, j, &h, err,
		    sizeof(err)), 0);
		assert_int_equal(h.n_logs, HEADER_LOGS_MAX);
		/* A NULL err is allowed. */
		assert_int_equal(header_from_json(FORMAT_QUANTUS, base, &h,
		    NULL, 0), 0);
		json_object_del(j, "parentHash");
		assert_int_equal(header_from_json(FORMAT_QUANTUS, j, &h,
		    NULL, 0), -1);
	}
	json_decref(j);
	json_decref(base);
}

static void
test_chain_format(void **state)
{
	enum chain_format	f;

	assert_int_equal(chain_format_parse("quantus", &f), 0);
	assert_int_equal(f, FORMAT_QUANTUS);
	assert_int_equal(chain_format_parse("substrate", &f), 0);
	assert_int_equal(f, FORMAT_SUBSTRATE);
	assert_int_equal(chain_format_parse("Quantus", &f), -1);
	assert_int_equal(chain_format_parse("", &f), -1);
	assert_string_equal(chain_format_name(FORMAT_QUANTUS), "quantus");
	assert_string_equal(chain_format_name(FORMAT_SUBSTRATE), "substrate");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantus_headers),
		cmocka_unit_test(test_quantus_pre_hash),
		cmocka_unit_test(test_quantus_one_byte_off),
		cmocka_unit_test(test_quantus_json_variants),
		cmocka_unit_test(test_substrate_headers),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_miner),
		cmocka_unit_test(test_add_log),
		cmocka_unit_test(test_encode_decode_edges),
		cmocka_unit_test(test_json_errors),
		cmocka_unit_test(test_chain_format),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
