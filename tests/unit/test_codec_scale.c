/*
 * Unit tests for the byte-level codecs: hex strings, SCALE (compact
 * integers at every width boundary, non-canonical input), twox and
 * blake2b, and the storage keys chainwatch reads.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hash.h"
#include "hex.h"
#include "scale.h"
#include "test_codec_vec.h"

static void
test_hex_encode(void **state)
{
	const uint8_t	b[] = { 0x00, 0x1f, 0xab, 0xff };
	char		out[2 * sizeof(b) + 3];

	hex_encode(b, sizeof(b), out);
	assert_string_equal(out, "0x001fabff");
	hex_encode(b, 0, out);
	assert_string_equal(out, "0x");
}

static void
test_hex_decode(void **state)
{
	uint8_t	b[4], big[8];
	size_t	n;

	assert_int_equal(hex_decode("0x001fABff", b, 4), 0);
	assert_memory_equal(b, "\x00\x1f\xab\xff", 4);
	assert_int_equal(hex_decode("0X001FabFF", b, 4), 0);
	assert_memory_equal(b, "\x00\x1f\xab\xff", 4);
	assert_int_equal(hex_decode("001fabff", b, 4), 0);	/* no prefix */
	assert_int_equal(hex_decode("0x", b, 0), 0);
	assert_int_equal(hex_decode("0x001fab", b, 4), -1);	/* short */
	assert_int_equal(hex_decode("0x001fabff00", b, 4), -1);	/* long */
	assert_int_equal(hex_decode("0x001fabf", b, 4), -1);	/* odd */
	assert_int_equal(hex_decode("0x001fabfg", b, 4), -1);	/* digit */
	assert_int_equal(hex_decode("0x001fab f", b, 4), -1);
	assert_int_equal(hex_decode("", b, 4), -1);
	assert_int_equal(hex_decode("0x", b, 4), -1);

	assert_int_equal(hex_decode_var("0x", big, sizeof(big), &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(hex_decode_var("0xAbCd", big, sizeof(big), &n), 0);
	assert_int_equal(n, 2);
	assert_memory_equal(big, "\xab\xcd", 2);
	assert_int_equal(hex_decode_var("0xabc", big, sizeof(big), &n), -1);
	assert_int_equal(hex_decode_var("0x0", big, sizeof(big), &n), -1);
	assert_int_equal(hex_decode_var("0x0011223344556677", big, 8, &n), 0);
	assert_int_equal(n, 8);
	assert_int_equal(hex_decode_var("0x001122334455667788", big, 8, &n),
	    -1);
	assert_int_equal(hex_decode_var("0xzz", big, sizeof(big), &n), -1);
}

static void
test_hex_u64(void **state)
{
	uint64_t	v;
	char		out[19];

	assert_int_equal(hex_parse_u64("0x0", &v), 0);
	assert_true(v == 0);
	assert_int_equal(hex_parse_u64("0x00", &v), 0);
	assert_true(v == 0);
	assert_int_equal(hex_parse_u64("0x1f", &v), 0);
	assert_true(v == 0x1f);
	assert_int_equal(hex_parse_u64("0x001f", &v), 0);	/* padded */
	assert_true(v == 0x1f);
	assert_int_equal(hex_parse_u64("0x1F", &v), 0);	/* upper case */
	assert_true(v == 0x1f);
	assert_int_equal(hex_parse_u64("0xffffffffffffffff", &v), 0);
	assert_true(v == UINT64_MAX);
	/* Zero padding beyond 16 digits is still 64 bits. */
	assert_int_equal(hex_parse_u64("0x00000000ffffffffffffffff", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(hex_parse_u64("0x10000000000000000", &v), -1);
	assert_int_equal(hex_parse_u64("0x", &v), -1);
	assert_int_equal(hex_parse_u64("1f", &v), -1);
	assert_int_equal(hex_parse_u64("", &v), -1);
	assert_int_equal(hex_parse_u64("0x1g", &v), -1);
	assert_int_equal(hex_parse_u64(" 0x1", &v), -1);
	assert_int_equal(hex_parse_u64("0x1 ", &v), -1);
	assert_int_equal(hex_parse_u64("-0x1", &v), -1);
	assert_int_equal(hex_parse_u64("0x+1", &v), -1);

	hex_format_u64(0, out);
	assert_string_equal(out, "0x0");
	hex_format_u64(0x1f, out);
	assert_string_equal(out, "0x1f");
	hex_format_u64(0x100, out);
	assert_string_equal(out, "0x100");
	hex_format_u64(UINT64_MAX, out);
	assert_string_equal(out, "0xffffffffffffffff");
	hex_format_u64(0x8000000000000000ULL, out);
	assert_string_equal(out, "0x8000000000000000");
}

/* Value and its one canonical encoding, at each width boundary. */
static const struct {
	uint64_t	 v;
	const char	*hex;
} compact_cases[] = {
	{ 0, "00" },
	{ 1, "04" },
	{ 63, "fc" },
	{ 64, "0101" },
	{ 16383, "fdff" },
	{ 16384, "02000100" },
	{ (1ULL << 30) - 1, "feffffff" },
	{ 1ULL << 30, "0300000040" },
	{ 0xffffffffULL, "03ffffffff" },
	{ 1ULL << 32, "070000000001" },
	{ (1ULL << 40) - 1, "07ffffffffff" },
	{ 1ULL << 40, "0b000000000001" },
	{ 1ULL << 48, "0f00000000000001" },
	{ 1ULL << 56, "130000000000000001" },
	{ UINT64_MAX, "13ffffffffffffffff" },
};

static void
test_compact(void **state)
{
	uint8_t		buf[16], want[16];
	struct scale_wr	w;
	struct scale_rd	r;
	uint64_t	v;
	size_t		i, n;

	for (i = 0; i < sizeof(compact_cases) / sizeof(compact_cases[0]);
	    i++) {
		n = vec_hexvar(compact_cases[i].hex, want, sizeof(want));
		scale_wr_init(&w, buf, sizeof(buf));
		scale_put_compact(&w, compact_cases[i].v);
		assert_false(w.overflow);
		assert_int_equal(w.len, n);
		assert_memory_equal(buf, want, n);
		assert_int_equal(scale_compact_len(compact_cases[i].v), n);

		scale_rd_init(&r, want, n);
		assert_int_equal(scale_get_compact(&r, &v), 0);
		assert_true(v == compact_cases[i].v);
		assert_int_equal(r.pos, n);

		/* One byte short never decodes, and does not move. */
		scale_rd_init(&r, want, n - 1);
		assert_int_equal(scale_get_compact(&r, &v), -1);
		assert_int_equal(r.pos, 0);
	}
}

static void
test_compact_noncanonical(void **state)
{
	static const char *bad[] = {
		"0100",			/* 0 in two bytes */
		"fd00",			/* 63 in two bytes */
		"02000000",		/* 0 in four bytes */
		"feff0000",		/* 16383 in four bytes */
		"03ffffff3f",		/* 2^30 - 1 in big mode */
		"0300000000",		/* 0 in big mode */
		"07ffffffff00",		/* 2^32 - 1 with a zero top byte */
		"13ffffffffffffff00",	/* 8 bytes, zero top byte */
		"17000000000000000001",	/* 9 bytes: beyond u64 */
		"fbffffffffffffffffffffffffffffffffffffffffffffffff01",
	};
	uint8_t		buf[80];
	struct scale_rd	r;
	uint64_t	v;
	size_t		i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = vec_hexvar(bad[i], buf, sizeof(buf));
		scale_rd_init(&r, buf, n);
		if (scale_get_compact(&r, &v) != -1)
			fail_msg("non-canonical %s decoded to %llu", bad[i],
			    (unsigned long long)v);
		assert_int_equal(r.pos, 0);
	}
	scale_rd_init(&r, buf, 0);
	assert_int_equal(scale_get_compact(&r, &v), -1);
}

static void
test_scale_fixed(void **state)
{
	uint8_t		buf[16];
	struct scale_wr	w;
	struct scale_rd	r;
	uint32_t	v32;
	uint64_t	v64;
	uint8_t		v8, b3[3];

	scale_wr_init(&w, buf, sizeof(buf));
	scale_put_u8(&w, 0xab);
	scale_put_u32(&w, 0x01020304);
	scale_put_u64(&w, 0x1122334455667788ULL);
	scale_put_bytes(&w, "xyz", 3);
	assert_false(w.overflow);
	assert_int_equal(w.len, 16);
	assert_memory_equal(buf, "\xab\x04\x03\x02\x01"
	    "\x88\x77\x66\x55\x44\x33\x22\x11xyz", 16);

	scale_rd_init(&r, buf, 16);
	assert_int_equal(scale_get_u8(&r, &v8), 0);
	assert_int_equal(v8, 0xab);
	assert_int_equal(scale_get_u32(&r, &v32), 0);
	assert_int_equal(v32, 0x01020304);
	assert_int_equal(scale_get_u64(&r, &v64), 0);
	assert_true(v64 == 0x1122334455667788ULL);
	assert_int_equal(scale_get_bytes(&r, b3, 3), 0);
	assert_memory_equal(b3, "xyz", 3);
	assert_int_equal(scale_get_u8(&r, &v8), -1);	/* at the end */
	assert_int_equal(r.pos, 16);

	/* A read that does not fit fails whole. */
	scale_rd_init(&r, buf, 3);
	assert_int_equal(scale_get_u32(&r, &v32), -1);
	assert_int_equal(r.pos, 0);
	assert_int_equal(scale_get_bytes(&r, b3, 3), 0);
	assert_int_equal(scale_get_bytes(&r, b3, 1), -1);
}

static void
test_scale_overflow(void **state)
{
	uint8_t		buf[8];
	struct scale_wr	w;

	memset(buf, 0xee, sizeof(buf));
	scale_wr_init(&w, buf, 3);
	scale_put_u8(&w, 1);
	scale_put_u32(&w, 0x02020202);	/* does not fit */
	assert_true(w.overflow);
	assert_int_equal(w.len, 1);
	scale_put_u8(&w, 3);		/* would fit, but len has stopped */
	assert_int_equal(w.len, 1);
	assert_memory_equal(buf, "\x01\xee\xee\xee", 4);

	scale_wr_init(&w, buf, 0);
	scale_put_bytes(&w, NULL, 0);
	assert_false(w.overflow);
	scale_put_compact(&w, 0);
	assert_true(w.overflow);
}

static void
expect_hex(const uint8_t *got, size_t len, const char *want)
{
	uint8_t	w[64];

	vec_hex(want, w, len);
	assert_memory_equal(got, w, len);
}

static void
test_twox(void **state)
{
	uint8_t	out[32];

	/* Well-known Substrate prefixes. */
	twox128("System", 6, out);
	expect_hex(out, 16, "26aa394eea5630e07c48ae0c9558cef7");
	twox128("Timestamp", 9, out);
	expect_hex(out, 16, "f0c365c3cf59d671eb72da0e7a4113c4");
	twox64("System", 6, out);
	expect_hex(out, 8, "26aa394eea5630e0");

	storage_key("QPoW", "CurrentDifficulty", out);
	expect_hex(out, 32, "0xf70798a3fbcee5a2d178b8c516e36ae5"
	    "59769e16105568cee9f916e870cb6e6f");
	storage_key("Timestamp", "Now", out);
	expect_hex(out, 32, "0xf0c365c3cf59d671eb72da0e7a4113c4"
	    "9f1f0515f462cdcf84e0f1d6045dfcbb");
	storage_key("System", "Account", out);
	expect_hex(out, 32, "26aa394eea5630e07c48ae0c9558cef7"
	    "b99d880ec681799c0cf30e8886371da9");
}

static void
test_blake2b(void **state)
{
	uint8_t	out[64];

	blake2b_256("", 0, out);
	expect_hex(out, 32, "0e5751c026e543b2e8ab2eb06099daa1"
	    "d1e5df47778f7787faab45cdf12fe3a8");
	blake2b_512("abc", 3, out);
	expect_hex(out, 64, "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b7"
	    "4b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925a"
	    "b92386edd4009923");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hex_encode),
		cmocka_unit_test(test_hex_decode),
		cmocka_unit_test(test_hex_u64),
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_compact_noncanonical),
		cmocka_unit_test(test_scale_fixed),
		cmocka_unit_test(test_scale_overflow),
		cmocka_unit_test(test_twox),
		cmocka_unit_test(test_blake2b),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
