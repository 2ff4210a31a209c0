/*
 * A compact SHA-1 (FIPS 180-4) for the WebSocket handshake, client and
 * server side.  Speed does not matter: one 60-byte string a connection.
 */
#include "config.h"

#include <string.h>

#include "sha1.h"

#define ROL(x, n)	(((x) << (n)) | ((x) >> (32 - (n))))

static void
sha1_block(uint32_t h[5], const uint8_t p[64])
{
	uint32_t	w[80], a, b, c, d, e, f, k, t;
	int		i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (; i < 80; i++)
		w[i] = ROL(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);

	a = h[0]; b = h[1]; c = h[2]; d = h[3]; e = h[4];
	for (i = 0; i < 80; i++) {
		if (i < 20) {
			f = (b & c) | (~b & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6;
		}
		t = ROL(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = ROL(b, 30);
		b = a;
		a = t;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e;
}

void
sha1_init(struct sha1_ctx *s)
{
	s->h[0] = 0x67452301;
	s->h[1] = 0xefcdab89;
	s->h[2] = 0x98badcfe;
	s->h[3] = 0x10325476;
	s->h[4] = 0xc3d2e1f0;
	s->nbytes = 0;
	s->nbuf = 0;
}

void
sha1_update(struct sha1_ctx *s, const void *data, size_t len)
{
	const uint8_t	*p = data;
	size_t		 n;

	s->nbytes += len;
	while (len > 0) {
		n = sizeof(s->buf) - s->nbuf;
		if (n > len)
			n = len;
		memcpy(s->buf + s->nbuf, p, n);
		s->nbuf += n;
		p += n;
		len -= n;
		if (s->nbuf == sizeof(s->buf)) {
			sha1_block(s->h, s->buf);
			s->nbuf = 0;
		}
	}
}

void
sha1_final(struct sha1_ctx *s, uint8_t out[SHA1_LEN])
{
	uint64_t	bits = s->nbytes * 8;
	int		i;

	s->buf[s->nbuf++] = 0x80;
	if (s->nbuf > 56) {
		memset(s->buf + s->nbuf, 0, sizeof(s->buf) - s->nbuf);
		sha1_block(s->h, s->buf);
		s->nbuf = 0;
	}
	memset(s->buf + s->nbuf, 0, 56 - s->nbuf);
	for (i = 0; i < 8; i++)
		s->buf[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
	sha1_block(s->h, s->buf);
	for (i = 0; i < 5; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
	memset(s, 0, sizeof(*s));
}

void
sha1(const void *data, size_t len, uint8_t out[SHA1_LEN])
{
	struct sha1_ctx	s;

	sha1_init(&s);
	sha1_update(&s, data, len);
	sha1_final(&s, out);
}
