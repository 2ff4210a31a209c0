/*
 * Unit tests for miner accounts and SS58: every miner_accounts entry of
 * quantus-vectors.json (the rejected preimages too) and every ss58 entry,
 * both directions, plus the ways an address can be wrong.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "account.h"
#include "hash.h"
#include "test_codec_vec.h"

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

static void
check_ss58(const uint8_t account[32], const char *want)
{
	char		addr[SS58_MAX];
	uint8_t		back[32];
	uint16_t	prefix = 0;

	assert_int_equal(ss58_encode(SS58_PREFIX_QUANTUS, account, addr,
	    sizeof(addr)), 0);
	assert_string_equal(addr, want);
	assert_int_equal(strlen(addr), 49);
	assert_int_equal(ss58_decode(want, &prefix, back), 0);
	assert_int_equal(prefix, SS58_PREFIX_QUANTUS);
	assert_memory_equal(back, account, 32);
}

static void
test_miner_accounts(void **state)
{
	json_t		*a = vec_array(vectors, "miner_accounts"), *e;
	uint8_t		 pre[32], acc[32], want[32];
	size_t		 i, rejected = 0;

	json_array_foreach(a, i, e) {
		vec_hex(vec_str(e, "preimage"), pre, 32);
		if (json_is_null(vec_get(e, "account"))) {
			/* The chain finds no author: a limb is >= p. */
			assert_true(json_is_null(vec_get(e, "ss58")));
			memset(acc, 0xee, sizeof(acc));
			assert_int_equal(account_from_preimage(pre, acc), -1);
			rejected++;
			continue;
		}
		vec_hex(vec_str(e, "account"), want, 32);
		assert_int_equal(account_from_preimage(pre, acc), 0);
		if (memcmp(acc, want, 32) != 0)
			fail_msg("account of \"%s\" differs",
			    vec_str(e, "name"));
		check_ss58(acc, vec_str(e, "ss58"));
	}
	assert_int_equal(i, 16);
	assert_int_equal(rejected, 2);
}

static void
test_ss58_vectors(void **state)
{
	json_t		*a = vec_array(vectors, "ss58"), *e;
	uint8_t		 acc[32];
	size_t		 i;

	json_array_foreach(a, i, e) {
		vec_hex(vec_str(e, "account"), acc, 32);
		check_ss58(acc, vec_str(e, "ss58"));
	}
	assert_int_equal(i, 3);
}

/* One-byte prefixes: Alice on the generic Substrate prefix 42. */
static void
test_ss58_short_prefix(void **state)
{
	const char	*alice = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";
	uint8_t		 acc[32], back[32];
	char		 addr[SS58_MAX];
	uint16_t	 prefix;

	vec_hex("d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d",
	    acc, 32);
	assert_int_equal(ss58_encode(42, acc, addr, sizeof(addr)), 0);
	assert_string_equal(addr, alice);
	assert_int_equal(ss58_decode(alice, &prefix, back), 0);
	assert_int_equal(prefix, 42);
	assert_memory_equal(back, acc, 32);

	/* Prefix 0 makes a leading zero byte, which Base58 writes as '1'. */
	assert_int_equal(ss58_encode(0, acc, addr, sizeof(addr)), 0);
	assert_int_equal(addr[0], '1');
	assert_int_equal(ss58_decode(addr, &prefix, back), 0);
	assert_int_equal(prefix, 0);
	assert_memory_equal(back, acc, 32);

	/* The largest prefix round-trips; one more is refused. */
	assert_int_equal(ss58_encode(16383, acc, addr, sizeof(addr)), 0);
	assert_int_equal(ss58_decode(addr, &prefix, back), 0);
	assert_int_equal(prefix, 16383);
	assert_int_equal(ss58_encode(16384, acc, addr, sizeof(addr)), -1);
}

static void
test_ss58_bad(void **state)
{
	const char	*good = "qzokTZkdWXxMgSXyF86ECHxG8o8yRX5ibrX2Uw8YmqkHRdj1V";
	char		 s[SS58_MAX + 8], addr[SS58_MAX];
	uint8_t		 acc[32];
	uint16_t	 prefix;
	size_t		 i;

	assert_int_equal(ss58_decode(good, &prefix, acc), 0);
	/* Any one character changed breaks the checksum or the length. */
	for (i = 0; i < strlen(good); i++) {
		memcpy(s, good, strlen(good) + 1);
		s[i] = s[i] == 'z' ? 'y' : 'z';
		if (ss58_decode(s, &prefix, acc) != -1)
			fail_msg("changed at %zu, still decodes: %s", i, s);
	}
	assert_int_equal(ss58_decode("", &prefix, acc), -1);
	assert_int_equal(ss58_decode("qzokTZkdWXxMgSXyF86ECHxG8o8yRX5ibrX2Uw8Ym"
	    "qkHRdj1", &prefix, acc), -1);		/* short */
	assert_int_equal(ss58_decode("qzokTZkdWXxMgSXyF86ECHxG8o8yRX5ibrX2Uw8Ym"
	    "qkHRdj1V1", &prefix, acc), -1);		/* long */
	assert_int_equal(ss58_decode("0zokTZkdWXxMgSXyF86ECHxG8o8yRX5ibrX2Uw8Ym"
	    "qkHRdj1V", &prefix, acc), -1);		/* not Base58 */
	assert_int_equal(ss58_decode("qzokTZkdWXxMgSXyF86ECHxG8o8yRX5ibrX2Uw8Ym"
	    "qkHRdj1V ", &prefix, acc), -1);
	memset(s, '1', SS58_MAX + 4);
	s[SS58_MAX + 4] = '\0';
	assert_int_equal(ss58_decode(s, &prefix, acc), -1);
	memset(s, 'z', SS58_MAX + 4);
	assert_int_equal(ss58_decode(s, &prefix, acc), -1);

	/* Too small an output buffer. */
	memset(acc, 0, sizeof(acc));
	assert_int_equal(ss58_encode(189, acc, addr, 49), -1);
	assert_int_equal(ss58_encode(189, acc, addr, 50), 0);
}

/*
 * An address built here from raw prefix bytes, with a right checksum and
 * the test's own Base58, so that only the prefix rule can refuse it.
 */
static void
raw_address(const uint8_t *pfx, size_t plen, const uint8_t acc[32],
    char *out)
{
	static const char alpha[] =
	    "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
	uint8_t	raw[40], pre[48], h[64], num[40];
	char	rev[64];
	size_t	n, i, len, nd = 0;
	int	nonzero, rem;

	memcpy(raw, pfx, plen);
	memcpy(raw + plen, acc, 32);
	memcpy(pre, "SS58PRE", 7);
	memcpy(pre + 7, raw, plen + 32);
	blake2b_512(pre, 7 + plen + 32, h);
	memcpy(raw + plen + 32, h, 2);
	len = plen + 34;

	/* Long division by 58 of the big-endian number in num. */
	memcpy(num, raw, len);
	for (;;) {
		nonzero = 0;
		rem = 0;
		for (i = 0; i < len; i++) {
			rem = rem * 256 + num[i];
			num[i] = (uint8_t)(rem / 58);
			rem %= 58;
			nonzero |= num[i];
		}
		rev[nd++] = alpha[rem];
		if (!nonzero)
			break;
	}
	for (n = 0; n < len && raw[n] == 0; n++)
		rev[nd++] = '1';
	for (i = 0; i < nd; i++)
		out[i] = rev[nd - 1 - i];
	out[nd] = '\0';
}

static void
test_ss58_prefix_encoding(void **state)
{
	const uint8_t	q[2] = { 0x6f, 0x40 };	/* 189, the canonical way */
	const uint8_t	p42[2] = { 0x4a, 0x80 };	/* 42 in two bytes */
	const uint8_t	high[2] = { 0xef, 0x40 };	/* 189 with bit 7 set */
	uint8_t		acc[32], back[32];
	char		addr[80], ref[SS58_MAX];
	uint16_t	prefix;

	memset(acc, 0x5c, sizeof(acc));
	raw_address(q, 2, acc, addr);
	assert_int_equal(ss58_encode(189, acc, ref, sizeof(ref)), 0);
	assert_string_equal(addr, ref);
	assert_int_equal(ss58_decode(addr, &prefix, back), 0);

	raw_address(p42, 2, acc, addr);
	assert_int_equal(ss58_decode(addr, &prefix, back), -1);
	raw_address(high, 2, acc, addr);
	assert_int_equal(ss58_decode(addr, &prefix, back), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_miner_accounts),
		cmocka_unit_test(test_ss58_vectors),
		cmocka_unit_test(test_ss58_short_prefix),
		cmocka_unit_test(test_ss58_bad),
		cmocka_unit_test(test_ss58_prefix_encoding),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
