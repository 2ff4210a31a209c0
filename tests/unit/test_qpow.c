/*
 * Unit tests for the Quantus proof of work: every entry of
 * quantus-qpow-vectors.json (nonce hashes, seal checks, headers, retarget
 * steps and sequences, step ranges, storage, targets, cumulative work),
 * counted per section, and the seal verdicts no vector reaches.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hash.h"
#include "header.h"
#include "qpow.h"
#include "u512.h"
#include "test_codec_vec.h"

/* What quantus-qpow.md section 8 says the file holds. */
#define QPOW_VECTORS	182

enum section {
	SEC_NONCE_HASH, SEC_SEAL_CHECKS, SEC_HEADERS, SEC_ADJUSTMENT,
	SEC_SEQUENCES, SEC_STEP_BOUNDS, SEC_STORAGE, SEC_TARGETS, SEC_WORK,
	SEC_COUNT
};

static const char *const sec_names[SEC_COUNT] = {
	"nonce_hash", "seal_checks", "headers", "difficulty_adjustment",
	"difficulty_sequences", "step_bounds", "storage", "targets",
	"cumulative_work",
};

static json_t	*vectors;
static size_t	 checked[SEC_COUNT];

static int
setup(void **state)
{
	(void)state;
	vectors = vec_load("quantus-qpow-vectors.json");
	return vectors == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	json_decref(vectors);
	return 0;
}

static json_t *
section(enum section s)
{
	json_t	*a = vec_array(vectors, sec_names[s]);

	if (json_array_size(a) == 0)
		fail_msg("section %s is empty", sec_names[s]);
	return a;
}

/* Every entry of the section was checked, none skipped. */
static void
section_done(enum section s, size_t n)
{
	checked[s] = n;
	if (n != json_array_size(section(s)))
		fail_msg("%s: checked %zu of %zu vectors", sec_names[s], n,
		    json_array_size(section(s)));
}

static void
vec_dec(const json_t *o, const char *key, struct u512 *out)
{
	const char	*s = vec_str(o, key);

	if (u512_from_dec(out, s) != 0)
		fail_msg("vector %s \"%s\" is not a U512", key, s);
}

/* 64 bytes big-endian, converted here rather than by u512_from_be. */
static void
vec_be512(const json_t *o, const char *key, struct u512 *out)
{
	uint8_t	b[U512_BYTES];
	size_t	i, j;

	vec_hex(vec_str(o, key), b, sizeof(b));
	for (i = 0; i < U512_LIMBS; i++) {
		out->w[U512_LIMBS - 1 - i] = 0;
		for (j = 0; j < 8; j++)
			out->w[U512_LIMBS - 1 - i] =
			    out->w[U512_LIMBS - 1 - i] << 8 | b[8 * i + j];
	}
}

static void
assert_u512(const struct u512 *got, const struct u512 *want,
    const char *what, const json_t *e)
{
	char	g[U512_DEC_LEN], w[U512_DEC_LEN];

	if (u512_cmp(got, want) == 0)
		return;
	u512_to_dec(got, g);
	u512_to_dec(want, w);
	fail_msg("%s: %s is %s, want %s", vec_str(e, "name"), what, g, w);
}

static int
is_zero(const uint8_t *p, size_t n)
{
	while (n-- > 0)
		if (*p++ != 0)
			return 0;
	return 1;
}

static void
inc(struct u512 *a)
{
	struct u512	one;

	u512_from_u64(&one, 1);
	assert_int_equal(u512_add(a, &one), 0);
}

/* max_valid passes and max_valid + 1 fails (unless max_valid is MAX). */
static void
check_boundary(const struct u512 *h, const struct u512 *max_valid,
    const json_t *e)
{
	struct u512	above = *max_valid, max;

	u512_max(&max);
	if (!u512_is_zero(max_valid) && !qpow_meets(h, max_valid))
		fail_msg("%s: fails at its max_valid", vec_str(e, "name"));
	if (u512_cmp(max_valid, &max) == 0)
		return;
	inc(&above);
	if (qpow_meets(h, &above))
		fail_msg("%s: passes above its max_valid", vec_str(e, "name"));
}

static void
test_nonce_hash(void **state)
{
	json_t		*a = section(SEC_NONCE_HASH), *e;
	uint8_t		 pre[32], nonce[QPOW_NONCE_LEN];
	struct u512	 h, want, got, max;
	size_t		 i;

	(void)state;
	u512_max(&max);
	json_array_foreach(a, i, e) {
		vec_hex(vec_str(e, "pre_hash"), pre, sizeof(pre));
		vec_hex(vec_str(e, "nonce"), nonce, sizeof(nonce));
		qpow_nonce_hash(pre, nonce, &h);
		vec_be512(e, "hash", &want);
		assert_u512(&h, &want, "hash", e);

		/* achieved = floor(MAX / H), MAX for H = 0 */
		if (u512_is_zero(&h))
			got = max;
		else
			assert_int_equal(u512_divmod(&max, &h, &got, NULL), 0);
		vec_dec(e, "achieved_difficulty", &want);
		assert_u512(&got, &want, "achieved", e);

		qpow_max_difficulty(&h, &got);
		vec_dec(e, "max_valid_difficulty", &want);
		assert_u512(&got, &want, "max_valid", e);
		check_boundary(&h, &got, e);
	}
	section_done(SEC_NONCE_HASH, i);
}

static void
test_seal_checks(void **state)
{
	json_t		*a = section(SEC_SEAL_CHECKS), *e;
	uint8_t		 pre[32], nonce[QPOW_NONCE_LEN];
	struct u512	 h, d;
	size_t		 i;
	int		 valid;

	(void)state;
	json_array_foreach(a, i, e) {
		vec_hex(vec_str(e, "pre_hash"), pre, sizeof(pre));
		vec_hex(vec_str(e, "nonce"), nonce, sizeof(nonce));
		vec_dec(e, "difficulty", &d);
		qpow_nonce_hash(pre, nonce, &h);
		/* A zero nonce fails first (quantus-qpow.md section 4.1). */
		valid = !is_zero(nonce, sizeof(nonce)) && qpow_meets(&h, &d);
		if (valid != json_is_true(vec_get(e, "valid")))
			fail_msg("%s: judged %s", vec_str(e, "name"),
			    valid ? "valid" : "invalid");
	}
	section_done(SEC_SEAL_CHECKS, i);
}

/* The rejection reasons of the headers section, as the node words them. */
static enum qpow_seal
rejected_as(const char *why)
{
	if (strcmp(why, "commitment window") == 0)
		return QPOW_SEAL_WINDOW;
	if (strcmp(why, "is not pow_") == 0)
		return QPOW_SEAL_ENGINE;
	if (strcmp(why, "not a Seal") == 0)
		return QPOW_SEAL_UNSEALED;
	fail_msg("unknown rejection \"%s\"", why);
	return QPOW_SEAL_COUNT;
}

static void
check_header(const json_t *e, const struct header *hd)
{
	uint8_t		 pre[32], nonce[QPOW_NONCE_LEN], want[QPOW_NONCE_LEN];
	struct u512	 h, d, wantd;
	enum qpow_seal	 s, expect;
	json_t		*c;
	size_t		 k;
	int		 valid;

	vec_hex(vec_str(e, "nonce"), want, sizeof(want));
	expect = is_zero(want, sizeof(want)) ? QPOW_SEAL_ZERO : QPOW_SEAL_OK;
	if ((s = qpow_seal_of(hd, nonce, pre)) != expect)
		fail_msg("%s: seal %s, want %s", vec_str(e, "name"),
		    qpow_seal_name(s), qpow_seal_name(expect));
	assert_memory_equal(nonce, want, sizeof(want));
	vec_hex(vec_str(e, "pre_hash"), want, 32);
	assert_memory_equal(pre, want, 32);

	qpow_nonce_hash(pre, nonce, &h);
	vec_be512(e, "pow_hash", &wantd);
	assert_u512(&h, &wantd, "pow_hash", e);
	qpow_max_difficulty(&h, &d);
	vec_dec(e, "max_valid_difficulty", &wantd);
	assert_u512(&d, &wantd, "max_valid", e);

	json_array_foreach(vec_array(e, "checks"), k, c) {
		vec_dec(c, "difficulty", &d);
		valid = s == QPOW_SEAL_OK && qpow_meets(&h, &d);
		if (valid != json_is_true(vec_get(c, "valid")))
			fail_msg("%s: check %zu judged %s", vec_str(e, "name"),
			    k, valid ? "valid" : "invalid");
	}
}

static void
test_headers(void **state)
{
	json_t		*a = section(SEC_HEADERS), *e;
	struct header	 hd;
	uint8_t		 bh[32], want[32], nonce[QPOW_NONCE_LEN], pre[32];
	enum qpow_seal	 s, expect;
	char		 err[256] = "";
	size_t		 i;

	(void)state;
	json_array_foreach(a, i, e) {
		if (header_from_json(FORMAT_QUANTUS, vec_get(e, "header"), &hd,
		    err, sizeof(err)) != 0)
			fail_msg("%s: %s", vec_str(e, "name"), err);
		if (json_object_get(e, "block_hash") != NULL) {
			header_hash(FORMAT_QUANTUS, &hd, bh);
			vec_hex(vec_str(e, "block_hash"), want, sizeof(want));
			assert_memory_equal(bh, want, sizeof(want));
		}
		/*
		 * The pre-hash computed in place, with the header's own
		 * hash: as a copy with its last item popped would hash.
		 */
		if (hd.n_logs > 0) {
			struct header	bare = hd;
			uint8_t		h2[32];

			header_pop_log(&bare);
			header_hash(FORMAT_QUANTUS, &bare, want);
			header_hash(FORMAT_QUANTUS, &hd, bh);
			assert_int_equal(header_quantus_pre(&hd, pre, h2), 0);
			assert_memory_equal(pre, want, 32);
			assert_memory_equal(h2, bh, 32);
			memset(pre, 0, sizeof(pre));
			assert_int_equal(header_quantus_pre(&hd, pre, NULL), 0);
			assert_memory_equal(pre, want, 32);
		} else
			assert_int_equal(header_quantus_pre(&hd, pre, bh), -1);
		if (json_object_get(e, "rejected") == NULL) {
			check_header(e, &hd);
			continue;
		}
		expect = rejected_as(vec_str(e, "rejected"));
		if ((s = qpow_seal_of(&hd, nonce, pre)) != expect)
			fail_msg("%s: seal %s, want %s", vec_str(e, "name"),
			    qpow_seal_name(s), qpow_seal_name(expect));
	}
	section_done(SEC_HEADERS, i);
}

static uint64_t
vec_uint(const json_t *o, const char *key)
{
	json_t	*v = vec_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		fail_msg("vector member \"%s\" is not a natural number", key);
	return (uint64_t)json_integer_value(v);
}

/* The rule of an entry: the chain's min, the rest from its fields. */
static void
vec_rule(const json_t *e, uint64_t target_ms, struct qpow_rule *r)
{
	json_t	*div = vec_array(e, "divisor");

	qpow_rule_default(r, target_ms);
	if (json_array_size(div) != 2)
		fail_msg("%s: divisor is not [num, den]", vec_str(e, "name"));
	r->div_num = (uint32_t)json_integer_value(json_array_get(div, 0));
	r->div_den = (uint32_t)json_integer_value(json_array_get(div, 1));
}

static void
test_adjustment(void **state)
{
	json_t		 *a = section(SEC_ADJUSTMENT), *e;
	struct qpow_rule  r;
	struct u512	  d, next, want;
	size_t		  i;

	(void)state;
	json_array_foreach(a, i, e) {
		vec_rule(e, vec_uint(e, "target_ms"), &r);
		r.floor_ms = vec_uint(e, "floor_ms");
		vec_dec(e, "parent", &d);
		qpow_retarget(&r, &d, vec_uint(e, "block_time_ms"), &next);
		vec_dec(e, "next", &want);
		assert_u512(&next, &want, "next", e);
	}
	section_done(SEC_ADJUSTMENT, i);
}

/* Planck's 12 s target; block 1 passes it as its block time. */
#define SEQ_TARGET_MS	12000

static void
test_sequences(void **state)
{
	json_t		 *a = section(SEC_SEQUENCES), *e, *b;
	struct qpow_rule  r;
	struct u512	  s, want;
	uint64_t	  t, prev = 0, bt;
	size_t		  i, k;

	(void)state;
	json_array_foreach(a, i, e) {
		vec_rule(e, SEQ_TARGET_MS, &r);
		vec_dec(e, "genesis_difficulty", &s);
		json_array_foreach(vec_array(e, "blocks"), k, b) {
			if (vec_uint(b, "number") != k + 1)
				fail_msg("%s: block %zu out of order",
				    vec_str(e, "name"), k);
			vec_dec(b, "difficulty_to_meet", &want);
			assert_u512(&s, &want, "difficulty_to_meet", e);
			t = vec_uint(b, "timestamp_ms");
			bt = k == 0 ? SEQ_TARGET_MS : t > prev ? t - prev : 0;
			qpow_retarget(&r, &s, bt, &s);
			vec_dec(b, "stored_difficulty_after", &want);
			assert_u512(&s, &want, "stored_difficulty_after", e);
			prev = t;
		}
		if (k == 0)
			fail_msg("%s: no blocks", vec_str(e, "name"));
	}
	section_done(SEC_SEQUENCES, i);
}

static void
test_step_bounds(void **state)
{
	json_t		 *a = section(SEC_STEP_BOUNDS), *e;
	struct qpow_rule  r;
	struct u512	  d, lo, hi, want;
	size_t		  i;

	(void)state;
	qpow_rule_default(&r, SEQ_TARGET_MS);
	json_array_foreach(a, i, e) {
		vec_dec(e, "parent", &d);
		qpow_step_bounds(&r, &d, &lo, &hi);
		vec_dec(e, "lo", &want);
		assert_u512(&lo, &want, "lo", e);
		vec_dec(e, "hi", &want);
		assert_u512(&hi, &want, "hi", e);
	}
	section_done(SEC_STEP_BOUNDS, i);
}

/* Keys through storage_key; values as SCALE U512 or u64, little-endian. */
static void
test_storage(void **state)
{
	json_t		*a = section(SEC_STORAGE), *e;
	uint8_t		 key[32], want[32], val[U512_BYTES], back[U512_BYTES];
	struct u512	 got, d;
	size_t		 i, n;
	uint64_t	 v;

	(void)state;
	json_array_foreach(a, i, e) {
		if (json_object_get(e, "key") != NULL) {
			storage_key(vec_str(e, "pallet"), vec_str(e, "item"),
			    key);
			vec_hex(vec_str(e, "key"), want, sizeof(want));
			assert_memory_equal(key, want, sizeof(want));
			continue;
		}
		n = vec_hexvar(vec_str(e, "value"), val, sizeof(val));
		if (n == U512_BYTES) {
			u512_from_le(&got, val);
			vec_dec(e, "decoded", &d);
			assert_u512(&got, &d, "decoded", e);
			u512_to_le(&got, back);
			assert_memory_equal(back, val, sizeof(val));
		} else if (n == 8) {
			for (v = 0; n-- > 0;)
				v = v << 8 | val[n];
			assert_int_equal(v, strtoull(vec_str(e, "decoded"),
			    NULL, 10));
		} else
			fail_msg("%s: a value of %zu bytes", vec_str(e, "name"),
			    n);
	}
	section_done(SEC_STORAGE, i);
}

/* target = floor(MAX / D): the first hash that fails, the one below passes. */
static void
test_targets(void **state)
{
	json_t		*a = section(SEC_TARGETS), *e;
	struct u512	 d, target, below, max, q;
	size_t		 i;

	(void)state;
	u512_max(&max);
	json_array_foreach(a, i, e) {
		vec_dec(e, "difficulty", &d);
		vec_be512(e, "target", &target);
		assert_int_equal(u512_divmod(&max, &d, &q, NULL), 0);
		assert_u512(&q, &target, "MAX / D", e);
		if (qpow_meets(&target, &d))
			fail_msg("%s: the target passes", vec_str(e, "name"));
		below = target;
		if (u512_is_zero(&below))
			fail_msg("%s: a zero target", vec_str(e, "name"));
		assert_int_equal(u512_sub(&below, &(struct u512){ .w = { 1 } }),
		    0);
		if (!qpow_meets(&below, &d))
			fail_msg("%s: target - 1 fails", vec_str(e, "name"));
	}
	section_done(SEC_TARGETS, i);
}

/* W = 1 + the difficulties met; the first sequence's, block by block. */
static void
test_work(void **state)
{
	json_t		*a = section(SEC_WORK), *e, *ds, *ws, *blocks;
	struct u512	 w, d, want;
	size_t		 i, k;

	(void)state;
	blocks = vec_array(json_array_get(section(SEC_SEQUENCES), 0),
	    "blocks");
	json_array_foreach(a, i, e) {
		ds = vec_array(e, "difficulties");
		ws = vec_array(e, "work");
		assert_int_equal(json_array_size(ds), json_array_size(ws));
		assert_int_equal(json_array_size(ds), json_array_size(blocks));
		u512_from_u64(&w, 1);
		for (k = 0; k < json_array_size(ds); k++) {
			if (!json_is_string(json_array_get(ds, k)) ||
			    u512_from_dec(&d, json_string_value(
			    json_array_get(ds, k))) != 0)
				fail_msg("difficulties[%zu] is not a U512", k);
			vec_dec(json_array_get(blocks, k),
			    "difficulty_to_meet", &want);
			assert_u512(&d, &want, "difficulty", e);
			assert_int_equal(u512_add(&w, &d), 0);
			if (u512_from_dec(&want, json_string_value(
			    json_array_get(ws, k))) != 0)
				fail_msg("work[%zu] is not a U512", k);
			assert_u512(&w, &want, "work", e);
		}
	}
	section_done(SEC_WORK, i);
}

/* Runs last: every section was checked, and the file is all there. */
static void
test_counts(void **state)
{
	size_t	n = 0, s;

	(void)state;
	for (s = 0; s < SEC_COUNT; s++) {
		if (checked[s] == 0)
			fail_msg("section %s was not checked", sec_names[s]);
		n += checked[s];
	}
	if (n != QPOW_VECTORS)
		fail_msg("%zu vectors checked, the file has %d", n,
		    QPOW_VECTORS);
}

/* A sealed header: PreRuntime(pow_, pre bytes), [updates x 08], Seal. */
static void
build(struct header *h, size_t pre, int updates, const uint8_t *engine,
    size_t seal, uint8_t fill)
{
	uint8_t	data[128];

	header_init(h);
	h->number = 7;
	memset(h->parent_hash, 0x11, 32);
	memset(data, 0xaa, sizeof(data));
	assert_int_equal(header_add_log(h, DIGEST_PRERUNTIME, ENGINE_POW, data,
	    pre), 0);
	while (updates-- > 0)
		assert_int_equal(header_add_log(h, DIGEST_RUNTIME_UPDATED,
		    NULL, NULL, 0), 0);
	memset(data, fill, sizeof(data));
	assert_int_equal(header_add_log(h, DIGEST_SEAL, engine, data, seal),
	    0);
}

/* The verdicts and window edges no vector reaches, in the node's order. */
static void
test_seal_verdicts(void **state)
{
	static const uint8_t	 other[4] = { 'a', 'u', 'r', 'a' };
	struct header		 h, bare;
	uint8_t			 nonce[QPOW_NONCE_LEN], pre[32], want[32];
	int			 s;

	(void)state;
	/* 1 + 37 + 72 bytes: in the window, a 65-byte payload */
	build(&h, 31, 0, ENGINE_POW, 65, 1);
	assert_int_equal(h.digest_len, 110);
	assert_int_equal(qpow_seal_of(&h, nonce, pre), QPOW_SEAL_LENGTH);
	/* two RuntimeEnvironmentUpdated items in 111 bytes */
	build(&h, 31, 2, ENGINE_POW, 64, 1);
	assert_int_equal(h.digest_len, 111);
	assert_int_equal(qpow_seal_of(&h, nonce, pre), QPOW_SEAL_WINDOW);
	/* 111 bytes without one */
	build(&h, 33, 0, ENGINE_POW, 64, 1);
	assert_int_equal(h.digest_len, 111);
	assert_int_equal(qpow_seal_of(&h, nonce, pre), QPOW_SEAL_WINDOW);
	/* the window comes before the engine */
	build(&h, 33, 0, other, 64, 1);
	assert_int_equal(qpow_seal_of(&h, nonce, pre), QPOW_SEAL_WINDOW);
	/* the engine before the length */
	build(&h, 31, 0, other, 65, 1);
	assert_int_equal(qpow_seal_of(&h, nonce, pre), QPOW_SEAL_ENGINE);
	/* no logs at all: outside the window */
	header_init(&h);
	assert_int_equal(qpow_seal_of(&h, nonce, pre), QPOW_SEAL_WINDOW);

	/* OK: the pre-hash is the header built without its seal */
	build(&h, 32, 0, ENGINE_POW, 64, 0x5a);
	assert_int_equal(qpow_seal_of(&h, nonce, pre), QPOW_SEAL_OK);
	memset(want, 0x5a, sizeof(want));
	assert_memory_equal(nonce, want, sizeof(want));
	header_init(&bare);
	bare.number = 7;
	memset(bare.parent_hash, 0x11, 32);
	memset(nonce, 0xaa, 32);
	assert_int_equal(header_add_log(&bare, DIGEST_PRERUNTIME, ENGINE_POW,
	    nonce, 32), 0);
	header_hash(FORMAT_QUANTUS, &bare, want);
	assert_memory_equal(pre, want, 32);
	/* and the sealed header's own hash is another */
	header_hash(FORMAT_QUANTUS, &h, want);
	assert_memory_not_equal(pre, want, 32);

	for (s = 0; s < QPOW_SEAL_COUNT; s++) {
		assert_non_null(qpow_seal_name(s));
		assert_non_null(qpow_seal_words(s));
	}
	assert_string_equal(qpow_seal_name(QPOW_SEAL_WINDOW), "window");
	assert_string_equal(qpow_seal_words(QPOW_SEAL_WINDOW),
	    "digest outside the 110/111-byte window");
	assert_string_equal(qpow_seal_name(QPOW_SEAL_COUNT), "?");
}

/* The edges of the rule the vectors leave out: D = 0, a zero divisor. */
static void
test_rule_edges(void **state)
{
	struct qpow_rule	r;
	struct u512		zero, min, next, lo, hi, max;

	(void)state;
	qpow_rule_default(&r, 12000);
	assert_int_equal(r.div_num, 2);
	assert_int_equal(r.div_den, 3);
	assert_int_equal(r.floor_ms, 500);
	u512_from_u64(&min, QPOW_MIN_DIFFICULTY);
	assert_int_equal(u512_cmp(&r.min, &min), 0);

	/* a stored 0 is the min: 131072 + 64 after a fast block */
	u512_zero(&zero);
	qpow_retarget(&r, &zero, 1, &next);
	u512_from_u64(&min, QPOW_MIN_DIFFICULTY + QPOW_MIN_DIFFICULTY / 2048);
	assert_int_equal(u512_cmp(&next, &min), 0);
	qpow_step_bounds(&r, &zero, &lo, &hi);
	assert_int_equal(u512_cmp(&hi, &min), 0);
	assert_int_equal(u512_cmp(&lo, &r.min), 0);

	/* a divisor of 0 (target 0) reads as 1 ms: every block is slow */
	r.target_ms = 0;
	u512_max(&max);
	qpow_retarget(&r, &max, 0, &next);
	qpow_step_bounds(&r, &max, &lo, &hi);
	assert_int_equal(u512_cmp(&next, &lo), 0);
	r.div_den = 0;
	r.target_ms = UINT64_MAX;
	r.div_num = UINT32_MAX;
	qpow_retarget(&r, &max, UINT64_MAX, &next);
	assert_int_equal(u512_cmp(&next, &max), 0);
	assert_int_equal(u512_cmp(&hi, &max), 0);

	/* floor(1001 * 2 / 3) = 667, not 666: 1333 ms is not two divisors */
	qpow_rule_default(&r, 1001);
	u512_from_u64(&min, 1189189);
	qpow_retarget(&r, &min, 1333, &next);
	assert_int_equal(u512_cmp(&next, &min), 0);
	qpow_retarget(&r, &min, 1334, &next);
	assert_int_equal(u512_cmp(&next, &min), -1);

	/* a fast block from MAX - 1 saturates at MAX, as does the range */
	qpow_rule_default(&r, 12000);
	u512_max(&min);
	min.w[0]--;
	qpow_retarget(&r, &min, 1, &next);
	assert_int_equal(u512_cmp(&next, &max), 0);
	qpow_step_bounds(&r, &min, &lo, &hi);
	assert_int_equal(u512_cmp(&hi, &max), 0);

	/* D = 0 never passes, H = MAX never does */
	assert_false(qpow_meets(&zero, &zero));
	u512_from_u64(&min, 1);
	assert_false(qpow_meets(&max, &min));
	qpow_max_difficulty(&max, &next);
	assert_true(u512_is_zero(&next));
}

/*
 * The minimum period between a block's time and its parent's: 100 ms at
 * Quantus's 12 s and above, scaled down with shorter targets, never 0.
 */
static void
test_min_period(void **state)
{
	(void)state;
	assert_int_equal(qpow_min_period(12000), 100);
	assert_int_equal(qpow_min_period(600000), 100);
	assert_int_equal(qpow_min_period(6000), 50);
	assert_int_equal(qpow_min_period(1000), 8);
	assert_int_equal(qpow_min_period(100), 1);
	assert_int_equal(qpow_min_period(0), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nonce_hash),
		cmocka_unit_test(test_seal_checks),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_adjustment),
		cmocka_unit_test(test_sequences),
		cmocka_unit_test(test_step_bounds),
		cmocka_unit_test(test_storage),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_work),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_seal_verdicts),
		cmocka_unit_test(test_rule_edges),
		cmocka_unit_test(test_min_period),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
