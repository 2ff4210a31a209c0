/*
 * Hex strings of JSON-RPC: "0x"-prefixed byte strings (hashes, logs) and
 * quantities (block numbers).  Everything here is strict about length and
 * digits, lenient only where real nodes differ (case, zero padding).
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "hex.h"

static const char hex_digits[] = "0123456789abcdef";

static int
hex_nibble(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Byte strings may omit the prefix; quantities may not (see below). */
static const char *
hex_skip_prefix(const char *s)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return s + 2;
	return s;
}

static int
hex_digits_decode(const char *d, size_t ndigits, uint8_t *out)
{
	size_t	i;
	int	hi, lo;

	for (i = 0; i < ndigits / 2; i++) {
		hi = hex_nibble((unsigned char)d[2 * i]);
		lo = hex_nibble((unsigned char)d[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

void
hex_encode(const uint8_t *in, size_t len, char *out)
{
	size_t	i;

	*out++ = '0';
	*out++ = 'x';
	for (i = 0; i < len; i++) {
		*out++ = hex_digits[in[i] >> 4];
		*out++ = hex_digits[in[i] & 0xf];
	}
	*out = '\0';
}

int
hex_decode(const char *s, uint8_t *out, size_t len)
{
	const char	*d = hex_skip_prefix(s);

	/* strnlen: a long string is refused without walking all of it. */
	if (strnlen(d, 2 * len + 1) != 2 * len)
		return -1;
	return hex_digits_decode(d, 2 * len, out);
}

int
hex_decode_var(const char *s, uint8_t *out, size_t cap, size_t *outlen)
{
	const char	*d = hex_skip_prefix(s);
	size_t		 n, maxdigits;

	maxdigits = cap > SIZE_MAX / 2 - 1 ? SIZE_MAX - 1 : 2 * cap;
	n = strnlen(d, maxdigits + 1);
	if (n % 2 != 0 || n > maxdigits)
		return -1;
	if (hex_digits_decode(d, n, out) == -1)
		return -1;
	*outlen = n / 2;
	return 0;
}

int
hex_parse_u64(const char *s, uint64_t *out)
{
	uint64_t	v = 0;
	int		nib;

	/* A quantity always carries the prefix and at least one digit. */
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || s[2] == '\0')
		return -1;
	for (s += 2; *s != '\0'; s++) {
		if ((nib = hex_nibble((unsigned char)*s)) < 0)
			return -1;
		if (v >> 60 != 0)
			return -1;	/* a 17th significant digit */
		v = v << 4 | (uint64_t)nib;
	}
	*out = v;
	return 0;
}

void
hex_format_u64(uint64_t v, char *out)
{
	int	shift = 60;

	*out++ = '0';
	*out++ = 'x';
	while (shift > 0 && (v >> shift & 0xf) == 0)
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		*out++ = hex_digits[v >> shift & 0xf];
	*out = '\0';
}
