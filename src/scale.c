/*
 * SCALE encoding and decoding over caller-owned buffers.  The writer
 * records an overflow instead of failing each call, so an encoder checks
 * once at the end; the reader refuses short and non-canonical input.
 */
#include "config.h"

#include <string.h>

#include "scale.h"

void
scale_wr_init(struct scale_wr *w, uint8_t *buf, size_t cap)
{
	w->buf = buf;
	w->cap = cap;
	w->len = 0;
	w->overflow = 0;
}

void
scale_put_bytes(struct scale_wr *w, const void *p, size_t n)
{
	/* After one overflow nothing more is written: no holes in buf. */
	if (w->overflow || n > w->cap - w->len) {
		w->overflow = 1;
		return;
	}
	if (n > 0)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

void
scale_put_u8(struct scale_wr *w, uint8_t v)
{
	scale_put_bytes(w, &v, 1);
}

static void
scale_put_le(struct scale_wr *w, uint64_t v, size_t n)
{
	uint8_t	b[8];
	size_t	i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	scale_put_bytes(w, b, n);
}

void
scale_put_u32(struct scale_wr *w, uint32_t v)
{
	scale_put_le(w, v, 4);
}

void
scale_put_u64(struct scale_wr *w, uint64_t v)
{
	scale_put_le(w, v, 8);
}

size_t
scale_compact_len(uint64_t v)
{
	size_t	n;

	if (v < 1ULL << 6)
		return 1;
	if (v < 1ULL << 14)
		return 2;
	if (v < 1ULL << 30)
		return 4;
	for (n = 4; n < 8 && v >> (8 * n) != 0; n++)
		;
	return 1 + n;
}

/*
 * Modes by the two low bits: 00 one byte, 01 two, 10 four, 11 a length
 * byte ((n - 4) << 2 | 3) then n little-endian bytes, n minimal.
 */
void
scale_put_compact(struct scale_wr *w, uint64_t v)
{
	size_t	n = scale_compact_len(v);

	switch (n) {
	case 1:
		scale_put_u8(w, (uint8_t)(v << 2));
		break;
	case 2:
		scale_put_le(w, v << 2 | 1, 2);
		break;
	case 4:
		scale_put_le(w, v << 2 | 2, 4);
		break;
	default:
		scale_put_u8(w, (uint8_t)((n - 1 - 4) << 2 | 3));
		scale_put_le(w, v, n - 1);
		break;
	}
}

void
scale_rd_init(struct scale_rd *r, const uint8_t *buf, size_t len)
{
	r->buf = buf;
	r->len = len;
	r->pos = 0;
}

int
scale_get_bytes(struct scale_rd *r, void *p, size_t n)
{
	if (n > r->len - r->pos)
		return -1;
	if (n > 0)
		memcpy(p, r->buf + r->pos, n);
	r->pos += n;
	return 0;
}

int
scale_get_u8(struct scale_rd *r, uint8_t *v)
{
	return scale_get_bytes(r, v, 1);
}

static int
scale_get_le(struct scale_rd *r, uint64_t *v, size_t n)
{
	uint8_t	b[8];
	size_t	i;

	if (scale_get_bytes(r, b, n) == -1)
		return -1;
	*v = 0;
	for (i = 0; i < n; i++)
		*v |= (uint64_t)b[i] << (8 * i);
	return 0;
}

int
scale_get_u32(struct scale_rd *r, uint32_t *v)
{
	uint64_t	x;

	if (scale_get_le(r, &x, 4) == -1)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

int
scale_get_u64(struct scale_rd *r, uint64_t *v)
{
	return scale_get_le(r, v, 8);
}

/*
 * Canonical means the shortest mode and, in big-integer mode, no zero top
 * byte, as parity-scale-codec requires; else one value would have several
 * encodings and re-encoding a header would change its hash.  On failure
 * the reader does not move.
 */
int
scale_get_compact(struct scale_rd *r, uint64_t *v)
{
	size_t		save = r->pos, n;
	uint64_t	x;
	uint8_t		b0;

	if (scale_get_u8(r, &b0) == -1)
		return -1;
	switch (b0 & 3) {
	case 0:
		*v = b0 >> 2;
		return 0;
	case 1:
		r->pos = save;
		if (scale_get_le(r, &x, 2) == -1 || (x >> 2) < 1ULL << 6)
			goto bad;
		*v = x >> 2;
		return 0;
	case 2:
		r->pos = save;
		if (scale_get_le(r, &x, 4) == -1 || (x >> 2) < 1ULL << 14)
			goto bad;
		*v = x >> 2;
		return 0;
	default:
		n = (size_t)(b0 >> 2) + 4;
		if (n > 8)
			goto bad;	/* does not fit in 64 bits */
		if (scale_get_le(r, &x, n) == -1)
			goto bad;
		if (x < 1ULL << 30 || x >> (8 * (n - 1)) == 0)
			goto bad;
		*v = x;
		return 0;
	}
bad:
	r->pos = save;
	return -1;
}
