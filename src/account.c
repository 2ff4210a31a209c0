/*
 * Miner accounts: Quantus derives the account from the 32-byte rewards
 * preimage of the PreRuntime digest (tests/vectors/quantus-poseidon2.md
 * section 5), and shows it as SS58 (Base58 of prefix, account, checksum).
 */
#include "config.h"

#include <string.h>

#include "account.h"
#include "hash.h"
#include "poseidon2.h"

#define SS58_PREFIX_MAX	16383
#define SS58_CHECKSUM	2	/* bytes of checksum for a 32-byte account */
#define SS58_RAW_MAX	(2 + 32 + SS58_CHECKSUM)

static const char b58_alphabet[] =
    "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

int
account_from_preimage(const uint8_t preimage[32], uint8_t account[32])
{
	uint64_t	limbs[4];

	/* Strict: the chain finds no author for a limb >= p. */
	if (p2_bytes_to_digest(preimage, limbs) == -1)
		return -1;
	p2_hash_to_bytes(limbs, 4, account);
	return 0;
}

/*
 * Base58 by repeated division of a big-endian number held in digits; the
 * inputs are at most SS58_RAW_MAX bytes, so quadratic time is nothing.
 * Leading zero bytes become '1's.  -1 if out (NUL included) is too small.
 */
static int
b58_encode(const uint8_t *in, size_t len, char *out, size_t outlen)
{
	uint8_t	digits[SS58_RAW_MAX * 138 / 100 + 1];
	size_t	ndigits = 0, zeros = 0, i, j, n;
	int	carry;

	while (zeros < len && in[zeros] == 0)
		zeros++;
	for (i = zeros; i < len; i++) {
		carry = in[i];
		for (j = 0; j < ndigits; j++) {
			carry += digits[j] << 8;
			digits[j] = carry % 58;
			carry /= 58;
		}
		while (carry > 0) {
			digits[ndigits++] = carry % 58;
			carry /= 58;
		}
	}
	n = zeros + ndigits;
	if (n + 1 > outlen)
		return -1;
	for (i = 0; i < zeros; i++)
		out[i] = '1';
	for (j = 0; j < ndigits; j++)
		out[zeros + j] = b58_alphabet[digits[ndigits - 1 - j]];
	out[n] = '\0';
	return 0;
}

/* The reverse; -1 on a character outside the alphabet or over cap bytes. */
static int
b58_decode(const char *s, uint8_t *out, size_t cap, size_t *outlen)
{
	uint8_t		 bytes[SS58_RAW_MAX];	/* little-endian while built */
	size_t		 nbytes = 0, zeros = 0, i, j;
	const char	*p;
	int		 carry;

	if (cap > sizeof(bytes))
		cap = sizeof(bytes);
	while (s[zeros] == '1')
		zeros++;
	if (zeros > cap)
		return -1;
	for (i = zeros; s[i] != '\0'; i++) {
		if ((p = strchr(b58_alphabet, s[i])) == NULL)
			return -1;
		carry = (int)(p - b58_alphabet);
		for (j = 0; j < nbytes; j++) {
			carry += bytes[j] * 58;
			bytes[j] = carry & 0xff;
			carry >>= 8;
		}
		while (carry > 0) {
			if (nbytes == sizeof(bytes))
				return -1;
			bytes[nbytes++] = carry & 0xff;
			carry >>= 8;
		}
	}
	if (zeros + nbytes > cap)
		return -1;
	memset(out, 0, zeros);
	for (j = 0; j < nbytes; j++)
		out[zeros + j] = bytes[nbytes - 1 - j];
	*outlen = zeros + nbytes;
	return 0;
}

/* blake2b-512("SS58PRE" || prefix || account), first two bytes. */
static void
ss58_checksum(const uint8_t *payload, size_t len, uint8_t sum[SS58_CHECKSUM])
{
	uint8_t	buf[7 + SS58_RAW_MAX], h[64];

	memcpy(buf, "SS58PRE", 7);
	memcpy(buf + 7, payload, len);
	blake2b_512(buf, 7 + len, h);
	memcpy(sum, h, SS58_CHECKSUM);
}

int
ss58_encode(uint16_t prefix, const uint8_t account[32], char *out,
    size_t outlen)
{
	uint8_t	raw[SS58_RAW_MAX];
	size_t	n;

	if (prefix > SS58_PREFIX_MAX)
		return -1;
	if (prefix < 64) {
		raw[0] = (uint8_t)prefix;
		n = 1;
	} else {
		/* Substrate's two-byte layout (sp-core Ss58Codec). */
		raw[0] = (uint8_t)(((prefix & 0xfc) >> 2) | 0x40);
		raw[1] = (uint8_t)((prefix >> 8) | ((prefix & 3) << 6));
		n = 2;
	}
	memcpy(raw + n, account, 32);
	n += 32;
	ss58_checksum(raw, n, raw + n);
	n += SS58_CHECKSUM;
	return b58_encode(raw, n, out, outlen);
}

int
ss58_decode(const char *s, uint16_t *prefix, uint8_t account[32])
{
	uint8_t		raw[SS58_RAW_MAX], sum[SS58_CHECKSUM];
	size_t		n, plen;
	uint16_t	pfx;

	if (strnlen(s, SS58_MAX) >= SS58_MAX)
		return -1;
	if (b58_decode(s, raw, sizeof(raw), &n) == -1 || n < 1)
		return -1;
	if (raw[0] < 64) {
		pfx = raw[0];
		plen = 1;
	} else if (raw[0] < 128 && n >= 2) {
		pfx = (uint16_t)(((raw[0] & 0x3f) << 2) | (raw[1] >> 6) |
		    ((raw[1] & 0x3f) << 8));
		plen = 2;
		if (pfx < 64)
			return -1;	/* one value, one encoding */
	} else
		return -1;
	if (n != plen + 32 + SS58_CHECKSUM)
		return -1;
	ss58_checksum(raw, plen + 32, sum);
	if (memcmp(sum, raw + plen + 32, SS58_CHECKSUM) != 0)
		return -1;
	*prefix = pfx;
	memcpy(account, raw + plen, 32);
	return 0;
}
