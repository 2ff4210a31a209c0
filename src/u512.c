/*
 * Unsigned 512-bit arithmetic for difficulty and work.  Decimal conversion
 * works on 32-bit halves with 64-bit intermediates, so it needs no
 * __int128 and is exact on every platform.
 */
#include "config.h"

#include <string.h>

#include "u512.h"

#define U512_HALVES	(2 * U512_LIMBS)
#define DEC_CHUNK	1000000000U	/* 10^9: nine digits per step */

void
u512_zero(struct u512 *a)
{
	memset(a, 0, sizeof(*a));
}

void
u512_from_u64(struct u512 *a, uint64_t v)
{
	u512_zero(a);
	a->w[0] = v;
}

int
u512_is_zero(const struct u512 *a)
{
	uint64_t	 or = 0;
	size_t		 i;

	for (i = 0; i < U512_LIMBS; i++)
		or |= a->w[i];
	return or == 0;
}

void
u512_from_le(struct u512 *a, const uint8_t in[U512_BYTES])
{
	size_t	 i, j;

	for (i = 0; i < U512_LIMBS; i++) {
		a->w[i] = 0;
		for (j = 8; j-- > 0;)
			a->w[i] = a->w[i] << 8 | in[8 * i + j];
	}
}

void
u512_to_le(const struct u512 *a, uint8_t out[U512_BYTES])
{
	size_t	 i, j;

	for (i = 0; i < U512_LIMBS; i++)
		for (j = 0; j < 8; j++)
			out[8 * i + j] = (uint8_t)(a->w[i] >> (8 * j));
}

void
u512_from_be(struct u512 *a, const uint8_t in[U512_BYTES])
{
	size_t	 i, j;

	for (i = 0; i < U512_LIMBS; i++) {
		a->w[i] = 0;
		for (j = 0; j < 8; j++)
			a->w[i] = a->w[i] << 8 |
			    in[U512_BYTES - 8 * (i + 1) + j];
	}
}

void
u512_to_be(const struct u512 *a, uint8_t out[U512_BYTES])
{
	size_t	 i, j;

	for (i = 0; i < U512_LIMBS; i++)
		for (j = 0; j < 8; j++)
			out[U512_BYTES - 1 - 8 * i - j] =
			    (uint8_t)(a->w[i] >> (8 * j));
}

void
u512_max(struct u512 *a)
{
	memset(a->w, 0xff, sizeof(a->w));
}

int
u512_add(struct u512 *acc, const struct u512 *x)
{
	struct u512	 r;
	uint64_t	 carry = 0, s;
	size_t		 i;

	for (i = 0; i < U512_LIMBS; i++) {
		s = acc->w[i] + x->w[i];
		r.w[i] = s + carry;
		carry = (s < acc->w[i]) | (r.w[i] < s);
	}
	if (carry)
		return -1;
	*acc = r;
	return 0;
}

int
u512_sub(struct u512 *acc, const struct u512 *x)
{
	struct u512	 r;
	uint64_t	 borrow = 0, d;
	size_t		 i;

	for (i = 0; i < U512_LIMBS; i++) {
		d = acc->w[i] - x->w[i];
		r.w[i] = d - borrow;
		borrow = (acc->w[i] < x->w[i]) | (d < borrow);
	}
	if (borrow)
		return -1;
	*acc = r;
	return 0;
}

int
u512_cmp(const struct u512 *a, const struct u512 *b)
{
	size_t	 i;

	for (i = U512_LIMBS; i-- > 0;)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

static uint32_t
half_get(const struct u512 *a, size_t i)
{
	return (uint32_t)(a->w[i / 2] >> (32 * (i % 2)));
}

static void
half_set(struct u512 *a, size_t i, uint32_t v)
{
	unsigned	 sh = 32 * (i % 2);

	a->w[i / 2] = (a->w[i / 2] & ~((uint64_t)0xffffffffU << sh)) |
	    (uint64_t)v << sh;
}

/*
 * Schoolbook on 32-bit halves: each step's (2^32-1)^2 plus two halves
 * fits in 64 bits.  Any half of the product above the 16th overflows.
 */
int
u512_mul(const struct u512 *a, const struct u512 *b, struct u512 *out)
{
	uint32_t	 x[U512_HALVES], y[U512_HALVES], r[2 * U512_HALVES];
	uint64_t	 cur, carry;
	size_t		 i, j;

	for (i = 0; i < U512_HALVES; i++) {
		x[i] = half_get(a, i);
		y[i] = half_get(b, i);
	}
	memset(r, 0, sizeof(r));
	for (i = 0; i < U512_HALVES; i++) {
		if (x[i] == 0)
			continue;
		carry = 0;
		for (j = 0; j < U512_HALVES; j++) {
			cur = (uint64_t)x[i] * y[j] + r[i + j] + carry;
			r[i + j] = (uint32_t)cur;
			carry = cur >> 32;
		}
		r[i + U512_HALVES] = (uint32_t)carry;
	}
	for (i = U512_HALVES; i < 2 * U512_HALVES; i++)
		if (r[i] != 0)
			return -1;
	for (i = 0; i < U512_LIMBS; i++)
		out->w[i] = (uint64_t)r[2 * i + 1] << 32 | r[2 * i];
	return 0;
}

/* The number of significant bits: 0 for zero. */
static unsigned
u512_bits(const struct u512 *a)
{
	size_t	 i;

	for (i = U512_LIMBS; i-- > 0;)
		if (a->w[i] != 0)
			return 64 * (unsigned)i + 64 -
			    (unsigned)__builtin_clzll(a->w[i]);
	return 0;
}

/*
 * Shift and subtract, one bit of a at a time from its highest.  With b
 * below 2^511 the running remainder (< b) doubled still fits; a larger b
 * goes into a at most once.
 */
/* out = a >> n, 0 <= n <= 512. */
static void
shr(const struct u512 *a, unsigned n, struct u512 *out)
{
	unsigned	limbs = n / 64, sh = n % 64;

	for (unsigned i = 0; i < U512_LIMBS; i++) {
		unsigned j = i + limbs;
		uint64_t lo = j < U512_LIMBS ? a->w[j] : 0;
		uint64_t hi = j + 1 < U512_LIMBS ? a->w[j + 1] : 0;

		out->w[i] = sh == 0 ? lo : lo >> sh | hi << (64 - sh);
	}
}

int
u512_divmod(const struct u512 *a, const struct u512 *b, struct u512 *q,
    struct u512 *r)
{
	struct u512	 qq, rr;
	unsigned	 bit, i;

	if (u512_is_zero(b))
		return -1;
	u512_zero(&qq);
	if (b->w[U512_LIMBS - 1] >> 63) {
		rr = *a;
		if (u512_sub(&rr, b) == 0)
			qq.w[0] = 1;
	} else {
		/*
		 * The top bits(b) - 1 bits of a are less than b: they start
		 * the remainder, and only the bits below them are divided
		 * (a few for MAX / (H + 1) at a small difficulty).
		 */
		unsigned na = u512_bits(a), nb = u512_bits(b);

		bit = na >= nb ? na - nb + 1 : 0;
		shr(a, bit, &rr);
		while (bit-- > 0) {
			for (i = U512_LIMBS - 1; i > 0; i--)
				rr.w[i] = rr.w[i] << 1 | rr.w[i - 1] >> 63;
			rr.w[0] = rr.w[0] << 1 |
			    (a->w[bit / 64] >> (bit % 64) & 1);
			if (u512_sub(&rr, b) == 0)
				qq.w[bit / 64] |= (uint64_t)1 << (bit % 64);
		}
	}
	if (q != NULL)
		*q = qq;
	if (r != NULL)
		*r = rr;
	return 0;
}

/* a /= DEC_CHUNK; returns the remainder. */
static uint32_t
divmod_chunk(struct u512 *a)
{
	uint64_t	 rem = 0, cur;
	size_t		 i;

	for (i = U512_HALVES; i-- > 0;) {
		cur = rem << 32 | half_get(a, i);
		half_set(a, i, (uint32_t)(cur / DEC_CHUNK));
		rem = cur % DEC_CHUNK;
	}
	return (uint32_t)rem;
}

size_t
u512_to_dec(const struct u512 *a, char out[U512_DEC_LEN])
{
	struct u512	 q = *a;
	char		 rev[U512_DEC_LEN + 9];	/* whole chunks of nine */
	uint32_t	 chunk;
	size_t		 n = 0, i, k;

	/* Digits come out least significant first, nine at a time. */
	do {
		chunk = divmod_chunk(&q);
		for (k = 0; k < 9; k++) {
			rev[n++] = (char)('0' + chunk % 10);
			chunk /= 10;
		}
	} while (!u512_is_zero(&q));
	while (n > 1 && rev[n - 1] == '0')
		n--;
	for (i = 0; i < n; i++)
		out[i] = rev[n - 1 - i];
	out[n] = '\0';
	return n;
}

/* a = a * mul + add; returns -1 if the result does not fit. */
static int
muladd_small(struct u512 *a, uint32_t mul, uint32_t add)
{
	uint64_t	 carry = add, cur;
	size_t		 i;

	for (i = 0; i < U512_HALVES; i++) {
		cur = (uint64_t)half_get(a, i) * mul + carry;
		half_set(a, i, (uint32_t)cur);
		carry = cur >> 32;
	}
	return carry ? -1 : 0;
}

int
u512_from_dec(struct u512 *out, const char *s)
{
	struct u512	 r;
	uint32_t	 chunk, mul;
	size_t		 len, i, k, n;

	if (s == NULL || (len = strlen(s)) == 0)
		return -1;
	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return -1;
	u512_zero(&r);
	for (i = 0; i < len; i += n) {
		n = len - i < 9 ? len - i : 9;
		chunk = 0;
		mul = 1;
		for (k = 0; k < n; k++) {
			chunk = chunk * 10 + (uint32_t)(s[i + k] - '0');
			mul *= 10;
		}
		if (muladd_small(&r, mul, chunk) == -1)
			return -1;
	}
	*out = r;
	return 0;
}

double
u512_to_double(const struct u512 *a)
{
	uint64_t	 top, sticky = 0;
	size_t		 i, hi;
	double		 d;
	int		 lz;

	for (hi = U512_LIMBS; hi-- > 0;)
		if (a->w[hi] != 0)
			break;
	if (hi == (size_t)-1)
		return 0.0;
	if (hi == 0)
		return (double)a->w[0];

	/*
	 * Take the 64 bits below the highest set bit and fold everything
	 * under them into bit 0 as a sticky bit: converting that to double
	 * rounds exactly as converting the whole number would, since 64 bits
	 * leave 11 bits beyond the 53 of the mantissa.  The scaling after
	 * is by powers of two, which is exact (and needs no libm).
	 */
	lz = __builtin_clzll(a->w[hi]);
	top = lz == 0 ? a->w[hi] :
	    a->w[hi] << lz | a->w[hi - 1] >> (64 - lz);
	if ((a->w[hi - 1] << lz) != 0)
		sticky = 1;
	for (i = 0; i + 1 < hi; i++)
		sticky |= a->w[i] != 0;
	d = (double)(top | sticky) / (double)((uint64_t)1 << lz);
	for (i = 0; i < hi; i++)
		d *= 18446744073709551616.0;	/* 2^64 */
	return d;
}
