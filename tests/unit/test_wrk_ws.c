/*
 * The WebSocket handshake's pure parts: SHA-1 (FIPS 180 vectors), base64
 * (RFC 4648 vectors) and the Sec-WebSocket-Accept of RFC 6455's example.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sha1.h"
#include "wskey.h"
#include "wrk_ws.h"

static void
hexof(const uint8_t *d, char *out)
{
	for (int i = 0; i < SHA1_LEN; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void
test_sha1_vectors(void **state)
{
	static const struct {
		const char	*in;
		const char	*out;
	} v[] = {
		{ "", "da39a3ee5e6b4b0d3255bfef95601890afd80709" },
		{ "abc", "a9993e364706816aba3e25717850c26c9cd0d89d" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		    "84983e441c3bd26ebaae4aa1f95129e5e54670f1" },
		{ "The quick brown fox jumps over the lazy dog",
		    "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12" },
	};
	uint8_t	d[SHA1_LEN];
	char	h[2 * SHA1_LEN + 1];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sha1(v[i].in, strlen(v[i].in), d);
		hexof(d, h);
		assert_string_equal(h, v[i].out);
	}
}

/* A million 'a' fed in odd pieces: block boundaries and the length. */
static void
test_sha1_million(void **state)
{
	struct sha1_ctx	 s;
	uint8_t		 d[SHA1_LEN];
	char		 h[2 * SHA1_LEN + 1];
	char		*a = malloc(1000000);
	size_t		 off = 0, step = 1;

	memset(a, 'a', 1000000);
	sha1_init(&s);
	while (off < 1000000) {
		size_t n = step < 1000000 - off ? step : 1000000 - off;
		sha1_update(&s, a + off, n);
		off += n;
		step = step * 7 % 131 + 1;
	}
	sha1_final(&s, d);
	hexof(d, h);
	assert_string_equal(h, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
	free(a);

	/* 55, 56 and 64 bytes: the padding's edge cases */
	sha1("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 55, d);
	hexof(d, h);
	assert_string_equal(h, "c1c8bbdc22796e28c0e15163d20899b65621d65a");
	sha1("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 56,
	    d);
	hexof(d, h);
	assert_string_equal(h, "c2db330f6083854c99d4b5bfb6e8f29f201be699");
}

static void
test_base64(void **state)
{
	static const char *const v[][2] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" },
		{ "foo", "Zm9v" }, { "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
	};
	char	out[16];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		base64_encode((const uint8_t *)v[i][0], strlen(v[i][0]), out);
		assert_string_equal(out, v[i][1]);
	}
}

static void
test_accept_key(void **state)
{
	char	out[WS_ACCEPT_LEN + 1];

	/*
	 * RFC 6455, section 1.3.  The value is sometimes quoted garbled, as
	 * "s3pPLMBiTxaQ9kYGJzzhZRbK+xo="; SHA-1 of key + GUID gives this.
	 */
	ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==", out);
	assert_string_equal(out, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
	assert_int_equal(strlen(out), WS_ACCEPT_LEN);

	ws_accept_key("x3JJHMbDL1EzLkh9GBhXDw==", out);
	assert_string_equal(out, "HSmrc0sMlYUkAGmm5OPpG2HaGWk=");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha1_vectors),
		cmocka_unit_test(test_sha1_million),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_accept_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
