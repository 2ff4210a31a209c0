/*
 * Unit tests for Poseidon2 and the qp-poseidon sponge: every permutation,
 * sponge and byte-encoding vector of quantus-vectors.json, plus the strict
 * and lossy 32-byte digest readers.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "poseidon2.h"
#include "test_codec_vec.h"

#define P		GOLDILOCKS_P
#define MAX_FELTS	64
#define MAX_BYTES	256

static json_t	*vectors;

static int
setup(void **state)
{
	vectors = vec_load("quantus-vectors.json");
	return vectors == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	json_decref(vectors);
	return 0;
}

/* Each section must be there and not empty: a lost section is a failure. */
static json_t *
section(const char *name)
{
	json_t	*a = vec_array(vectors, name);

	if (json_array_size(a) == 0)
		fail_msg("section %s is empty", name);
	return a;
}

static void
test_permutation(void **state)
{
	json_t		*a = section("permutation"), *e;
	uint64_t	 in[P2_WIDTH], want[P2_WIDTH];
	size_t		 i;

	json_array_foreach(a, i, e) {
		assert_int_equal(vec_felts(vec_get(e, "input"), in, P2_WIDTH),
		    P2_WIDTH);
		assert_int_equal(vec_felts(vec_get(e, "output"), want,
		    P2_WIDTH), P2_WIDTH);
		p2_permute(in);
		if (memcmp(in, want, sizeof(in)) != 0)
			fail_msg("permutation \"%s\" differs",
			    vec_str(e, "name"));
	}
	assert_int_equal(i, 8);
}

static void
test_hash_to_bytes(void **state)
{
	json_t		*a = section("hash_to_bytes"), *e;
	uint64_t	 m[MAX_FELTS], felts[4], wantf[4];
	uint8_t		 out[32], want[32];
	size_t		 i, n;

	json_array_foreach(a, i, e) {
		n = vec_felts(vec_get(e, "felts"), m, MAX_FELTS);
		assert_int_equal(vec_felts(vec_get(e, "hash_to_felts"), wantf,
		    4), 4);
		vec_hex(vec_str(e, "hash_to_bytes"), want, 32);
		p2_hash_felts(m, n, felts);
		assert_memory_equal(felts, wantf, sizeof(felts));
		p2_hash_to_bytes(m, n, out);
		assert_memory_equal(out, want, 32);
	}
}

/*
 * Two hashes sharing a prefix, hashed together, are each what it is
 * alone: every length around the rate, every shared length up to it,
 * the second differing right after what they share.
 */
static void
test_hash_pair(void **state)
{
	uint64_t	a[40], b[40];
	uint8_t		oa[32], ob[32], wa[32], wb[32];

	(void)state;
	for (size_t i = 0; i < 40; i++)
		a[i] = (uint64_t)i * 0x9e3779b97f4a7c15ULL % 0xffffffff00000001ULL;
	for (size_t n = 0; n <= 40; n++)
		for (size_t common = 0; common <= n; common++) {
			memcpy(b, a, sizeof(b));
			for (size_t k = common; k < n; k++)
				b[k] = a[k] ^ 1;
			p2_hash_to_bytes(a, n, wa);
			p2_hash_to_bytes(b, n, wb);
			p2_hash_to_bytes_pair(a, b, n, common, oa, ob);
			assert_memory_equal(oa, wa, 32);
			assert_memory_equal(ob, wb, 32);
		}
}

static void
check_hash_bytes(json_t *e)
{
	uint8_t		in[MAX_BYTES], out[32], want[32];
	size_t		len;

	len = vec_hexvar(vec_str(e, "input"), in, sizeof(in));
	vec_hex(vec_str(e, "hash_bytes"), want, 32);
	p2_hash_bytes(in, len, out);
	if (memcmp(out, want, 32) != 0)
		fail_msg("hash_bytes of %zu bytes \"%.20s\" differs", len,
		    vec_str(e, "input"));
}

static void
test_hash_bytes_published(void **state)
{
	json_t	*a = section("hash_bytes_published"), *e;
	size_t	 i;

	json_array_foreach(a, i, e)
		check_hash_bytes(e);
}

static void
test_hash_bytes(void **state)
{
	json_t		*a = section("hash_bytes"), *e;
	uint8_t		 in[MAX_BYTES];
	uint64_t	 want[MAX_FELTS], got[MAX_FELTS];
	size_t		 i, len, n;

	json_array_foreach(a, i, e) {
		check_hash_bytes(e);
		len = vec_hexvar(vec_str(e, "input"), in, sizeof(in));
		n = vec_felts(vec_get(e, "felts"), want, MAX_FELTS);
		assert_int_equal(p2_bytes_to_felts(in, len, got), n);
		assert_int_equal(n, len / 4 + 1);
		assert_memory_equal(got, want, n * sizeof(uint64_t));
	}
}

static void
test_hash_twice(void **state)
{
	json_t		*a = section("hash_twice_published"), *e;
	uint64_t	 m[MAX_FELTS];
	uint8_t		 out[32], want[32];
	size_t		 i, n;

	json_array_foreach(a, i, e) {
		n = vec_felts(vec_get(e, "felts"), m, MAX_FELTS);
		vec_hex(vec_str(e, "hash_twice"), want, 32);
		p2_hash_twice(m, n, out);
		assert_memory_equal(out, want, 32);
	}
}

/* Streaming p2_hash_bytes agrees with felts-then-hash at every length. */
static void
test_hash_bytes_lengths(void **state)
{
	uint8_t		in[80], a[32], b[32];
	uint64_t	f[80 / 4 + 1];
	size_t		len, n;

	for (len = 0; len < sizeof(in); len++)
		in[len] = (uint8_t)(len * 37 + 11);
	for (len = 0; len <= sizeof(in); len++) {
		n = p2_bytes_to_felts(in, len, f);
		p2_hash_to_bytes(f, n, a);
		p2_hash_bytes(in, len, b);
		if (memcmp(a, b, 32) != 0)
			fail_msg("p2_hash_bytes differs at length %zu", len);
	}
}

/* The terminator: aligned input ends in felt 1, and 0..3 leftovers. */
static void
test_bytes_to_felts(void **state)
{
	const uint8_t	b[] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77 };
	uint64_t	f[4];

	assert_int_equal(p2_bytes_to_felts(b, 0, f), 1);
	assert_true(f[0] == 0x01);
	assert_int_equal(p2_bytes_to_felts(b, 4, f), 2);
	assert_true(f[0] == 0x44332211 && f[1] == 0x01);
	assert_int_equal(p2_bytes_to_felts(b, 5, f), 2);
	assert_true(f[1] == 0x0155);
	assert_int_equal(p2_bytes_to_felts(b, 6, f), 2);
	assert_true(f[1] == 0x016655);
	assert_int_equal(p2_bytes_to_felts(b, 7, f), 2);
	assert_true(f[1] == 0x01776655);
}

static void
put_le64(uint8_t *p, uint64_t v)
{
	int	i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void
test_bytes_to_digest(void **state)
{
	uint8_t		b[32];
	uint64_t	f[4], g[4];
	const uint64_t	limbs[4] = { 0, P - 1, 0x0123456789abcdefULL, 42 };
	int		i;

	for (i = 0; i < 4; i++)
		put_le64(b + 8 * i, limbs[i]);
	assert_int_equal(p2_bytes_to_digest(b, f), 0);
	assert_memory_equal(f, limbs, sizeof(f));
	p2_bytes_to_digest_lossy(b, g);
	assert_memory_equal(g, limbs, sizeof(g));

	/* Each limb at p and at 2^64 - 1: strict refuses, lossy reduces. */
	for (i = 0; i < 4; i++) {
		put_le64(b + 8 * i, P);
		assert_int_equal(p2_bytes_to_digest(b, f), -1);
		p2_bytes_to_digest_lossy(b, g);
		assert_true(g[i] == 0);
		put_le64(b + 8 * i, UINT64_MAX);
		assert_int_equal(p2_bytes_to_digest(b, f), -1);
		p2_bytes_to_digest_lossy(b, g);
		assert_true(g[i] == 0xfffffffeULL);
		put_le64(b + 8 * i, limbs[i]);
	}
}

/*
 * The sponge adds (does not overwrite) the rate, and pads with 1 then
 * zeros: [] and [1] must differ, and 8 felts need a second block.
 */
static void
test_sponge_padding(void **state)
{
	uint64_t	m[9] = { 1, 0, 0, 0, 0, 0, 0, 0, 0 }, a[4], b[4];
	uint64_t	s[P2_WIDTH];

	p2_hash_felts(m, 0, a);
	memset(s, 0, sizeof(s));
	s[0] = 1;
	p2_permute(s);
	assert_memory_equal(a, s, sizeof(a));
	p2_hash_felts(m, 1, b);
	assert_memory_not_equal(a, b, sizeof(a));
	/* A non-canonical input felt means the same as its residue. */
	m[1] = P + 5;
	p2_hash_felts(m, 2, a);
	m[1] = 5;
	p2_hash_felts(m, 2, b);
	assert_memory_equal(a, b, sizeof(a));
}

/*
 * The field arithmetic against plain 128-bit remainders: every pair of
 * edge values (including products whose low word is below their top 32
 * bits, the rare borrow in the reduction) and many pseudo-random pairs.
 */
static uint64_t
ref_mul(uint64_t a, uint64_t b)
{
	return (uint64_t)(((unsigned __int128)a * b) % P);
}

static uint64_t
ref_add(uint64_t a, uint64_t b)
{
	return (uint64_t)(((unsigned __int128)a + b) % P);
}

static uint64_t
xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void
check_arith(uint64_t a, uint64_t b)
{
	if (p2_mul(a, b) != ref_mul(a, b))
		fail_msg("p2_mul(%#llx, %#llx) = %#llx, want %#llx",
		    (unsigned long long)a, (unsigned long long)b,
		    (unsigned long long)p2_mul(a, b),
		    (unsigned long long)ref_mul(a, b));
	if (p2_add(a, b) != ref_add(a, b))
		fail_msg("p2_add(%#llx, %#llx) = %#llx, want %#llx",
		    (unsigned long long)a, (unsigned long long)b,
		    (unsigned long long)p2_add(a, b),
		    (unsigned long long)ref_add(a, b));
}

static void
test_field_arith(void **state)
{
	static const uint64_t edge[] = {
		0, 1, 2, 0x7fffffffULL, 0xffffffffULL, 0x100000000ULL,
		0x100000001ULL, 1ULL << 63, (1ULL << 63) + 1, P - 2, P - 1,
		P, P + 1, 0xffffffff00000000ULL - 1, UINT64_MAX - 1,
		UINT64_MAX, 0x8000000080000000ULL, 0x00000001ffffffffULL,
	};
	uint64_t	x = 0x9e3779b97f4a7c15ULL, a, b;
	size_t		i, j;
	int		borrow = 0;

	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		for (j = 0; j < sizeof(edge) / sizeof(edge[0]); j++)
			check_arith(edge[i], edge[j]);
	for (i = 0; i < 200000; i++) {
		a = xorshift(&x);
		b = xorshift(&x);
		switch (i % 4) {
		case 1:		/* product with a zero low word */
			a <<= 32;
			b <<= 32;
			break;
		case 2:		/* small low word, large top */
			a = (a | 1ULL << 63) & ~0xffffffffULL;
			b = 1ULL << (b % 64);
			break;
		}
		if ((uint64_t)((unsigned __int128)a * b) <
		    (uint64_t)(((unsigned __int128)a * b) >> 96))
			borrow++;
		check_arith(a, b);
	}
	assert_true(borrow > 1000);	/* the rare path was taken */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field_arith),
		cmocka_unit_test(test_permutation),
		cmocka_unit_test(test_hash_to_bytes),
		cmocka_unit_test(test_hash_pair),
		cmocka_unit_test(test_hash_bytes_published),
		cmocka_unit_test(test_hash_bytes),
		cmocka_unit_test(test_hash_twice),
		cmocka_unit_test(test_hash_bytes_lengths),
		cmocka_unit_test(test_bytes_to_felts),
		cmocka_unit_test(test_bytes_to_digest),
		cmocka_unit_test(test_sponge_padding),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
