/*
 * Poseidon2 over Goldilocks (width 12, x^7, 4 + 22 + 4 rounds) and the
 * qp-poseidon sponge that Quantus hashes headers and accounts with.  Spec
 * and provenance of every constant: tests/vectors/quantus-poseidon2.md.
 */
#include "config.h"

#include <string.h>

#include "poseidon2.h"

#define P2_HALF_ROUNDS		4	/* external rounds on each side */
#define P2_PARTIAL_ROUNDS	22
#define P2_OUT			4
#define EPSILON			0xffffffffULL	/* 2^64 mod p */

typedef unsigned __int128 u128;

/*
 * Generated once from tests/vectors/quantus-constants.json (qp-poseidon
 * 3.1.0; the diagonal is Plonky3 <= 0.3's).  Plonky3 HEAD ships other
 * width-12 defaults: not those.
 */
static const uint64_t p2_diag[P2_WIDTH] = {
	0xc3b6c08e23ba9300ULL, 0xd84b5de94a324fb6ULL, 0x0d0c371c5b35b84fULL,
	0x7964f570e7188037ULL, 0x5daf18bbd996604bULL, 0x6743bc47b9595257ULL,
	0x5528b9362c59bb70ULL, 0xac45e25b7127b68bULL, 0xa2077d7dfbb606b5ULL,
	0xf3faac6faee378aeULL, 0x0c6388b51545e883ULL, 0xd27dbb6944917b60ULL,
};

static const uint64_t p2_rc_initial[4][P2_WIDTH] = {
	{
	    0xc002e770975b1607ULL, 0xbca51a8dfe14593aULL, 0x72938dfbe774f7f9ULL,
	    0xe4f2fe29e03234acULL, 0xd5e0ba2f541b6449ULL, 0xec33b868f3cc46c1ULL,
	    0x486dcb55419d475aULL, 0x6c1cb2a358cc24f1ULL, 0xe3f30d509a1436bbULL,
	    0xd9a64f068dca7c29ULL, 0xe59b3f57aabba1aeULL, 0x2a3dd4505b478fdcULL,
	},
	{
	    0xada1f8dc7676ed25ULL, 0x2711aa8b5509d516ULL, 0x4ae6acd0c9c92897ULL,
	    0x56eb3d6b5256d67aULL, 0x1f7a9d55923bf51eULL, 0x3600427d397a7f68ULL,
	    0xe5076df75b72c3d0ULL, 0xfcd59aa12c6090adULL, 0xcd895e8c68b57a9eULL,
	    0x41df7ef9d730ae3eULL, 0xee3e2b889abe977dULL, 0xd29bb7edbeb9c405ULL,
	},
	{
	    0x7d5c08eef608e382ULL, 0x89ae889caaf0802cULL, 0xb35a8e976d2af617ULL,
	    0xdb14234eafaf5173ULL, 0x78f04462d48b1c98ULL, 0x265293b0e47ce88aULL,
	    0x999a649b69b9d32fULL, 0x64b0a186698e01d3ULL, 0xee0b22d0dfae8bb8ULL,
	    0x4fd53e50ca04a7eeULL, 0x5762bfe181f25047ULL, 0xf51593e2beb5e3bdULL,
	},
	{
	    0x1e5e2b5760e32477ULL, 0x622462a1f9aaaeedULL, 0xaa284b3ecdb222aeULL,
	    0x63c8e72f542bf3fcULL, 0x3ba588cacb43b5e0ULL, 0x23eda6f3c99150ddULL,
	    0xaad3bea4baac9a5aULL, 0xe9da8d699b94184aULL, 0xcdb13f4cd93e024cULL,
	    0x902cbd0956f655e3ULL, 0x5b4e40ffc759532fULL, 0xde795c20a2357af7ULL,
	},
};

static const uint64_t p2_rc_internal[P2_PARTIAL_ROUNDS] = {
	0x97f7798a784ad863ULL, 0xd1d2bf082f60d4f0ULL, 0x69a377a79f9ad206ULL,
	0xa9d06906a3858e24ULL, 0x295275001eede5b5ULL, 0x5874e441117bd746ULL,
	0x8a084bbba8ed86ccULL, 0x3defd7645cde6425ULL, 0x3998cfe6871cc137ULL,
	0x3e52ef8bca48314aULL, 0x964a209f85dc9eccULL, 0x3fcc9ee82cc4577eULL,
	0x8e79b4a5d0096d6dULL, 0x8492362ad2392556ULL, 0xee72f470262574d6ULL,
	0x1e0e18496da2444aULL, 0x0f3a74bf215eaac6ULL, 0x1b061b76a1c0ded3ULL,
	0x192c42d86803d7a6ULL, 0xf6d49ff997ae0260ULL, 0x3ec372e7a0fa3786ULL,
	0x5538cdf4f23445d3ULL,
};

static const uint64_t p2_rc_terminal[4][P2_WIDTH] = {
	{
	    0x7b72c539e0ea4c6eULL, 0x144573dae2ce9976ULL, 0x802028b68f35fc88ULL,
	    0x6d36c5022c4fe7c2ULL, 0xa205d0ffa9b9def3ULL, 0xf6e7e38b1ea6ba2fULL,
	    0x34f7909ae5258d64ULL, 0xb0464d9d77b97fcaULL, 0x64ddb9d5de7e00a6ULL,
	    0x0ed0d75c27975d97ULL, 0x1cbb36f11127338bULL, 0x6673e505cfd0b6baULL,
	},
	{
	    0x605f902830872e01ULL, 0x3fd5eb927e95fe4fULL, 0xe81025b5a24c69cdULL,
	    0xf7d0ce75de23f74eULL, 0xf39942b6a8585089ULL, 0x6d808a08f7b71df6ULL,
	    0xf8806b6588f49a8bULL, 0x57df2d8c2a32107aULL, 0x16e7c2074d654a2dULL,
	    0x213de241fcf33835ULL, 0xb0f2b8905a0976f6ULL, 0xd8e3cf2bbd355417ULL,
	},
	{
	    0xe498691679d9330fULL, 0x763b45d2a3821b28ULL, 0x0908bf65eb0a1f0dULL,
	    0x7691eb2d194b24f4ULL, 0x0e43551233ae13b2ULL, 0x93c393dbfc2fe76fULL,
	    0x98f607485d48cdeaULL, 0xe3d95f30309819c0ULL, 0x1ef581a93eaf6acfULL,
	    0x0b24c1b7a030fca4ULL, 0x624370be5670b327ULL, 0x5f1e28615a11e486ULL,
	},
	{
	    0xfe04051f909e042bULL, 0x7257e5b147fd3803ULL, 0xe6ae134bb82f2e78ULL,
	    0x5711fd5cf4784511ULL, 0xf83a42660c08c0bcULL, 0x2cd8c96d9a3ce855ULL,
	    0x7d2ffb1bb0e17271ULL, 0x85ae1528caea3811ULL, 0x52a345d5c7adb0b8ULL,
	    0x504c4c51f3faee94ULL, 0xbce34a649cfccaf9ULL, 0xe0a3389266fb6dc9ULL,
	},
};

/*
 * Field arithmetic.  Between steps of the permutation a felt is any u64
 * congruent to it, not necessarily < p: a product of two such values
 * still fits in 128 bits, so only the permutation's output is made
 * canonical.  2^64 = EPSILON and 2^96 = -1 (mod p) do the reductions.
 *
 * On x86-64 the carry and borrow fixes are add/sbb pairs: the compiler
 * turns the C forms into compare, mask and cmov, which costs 10-15% of a
 * permutation.  P2_PORTABLE selects the C forms (a unit test runs them).
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(P2_PORTABLE)
#define P2_X86_ASM	1
#endif

/*
 * a + b (mod p) for any a and b < p.  A carry of 2^64 is EPSILON; after a
 * carry the sum is below b, so adding EPSILON cannot carry again.
 */
static inline uint64_t
gl_add(uint64_t a, uint64_t b)
{
#ifdef P2_X86_ASM
	uint64_t	adj;

	/* sbb on a 32-bit register gives 0 or 0xffffffff = EPSILON. */
	__asm__("add %2, %0\n\tsbb %k1, %k1" : "+r"(a), "=r"(adj) : "r"(b)
	    : "cc");
	return a + adj;
#else
	uint64_t	s = a + b;

	return s + (EPSILON & -(uint64_t)(s < b));
#endif
}

/* Any 128-bit value to a u64 congruent to it (mod p). */
static inline uint64_t
gl_reduce128(u128 x)
{
	uint64_t	lo = (uint64_t)x, hi = (uint64_t)(x >> 64);
	/* hi = hh * 2^32 + hl: hh * 2^96 = -hh, hl * 2^64 = hl * EPSILON. */
	uint64_t	hh = hi >> 32, t1 = (hi & EPSILON) * EPSILON;
#ifdef P2_X86_ASM
	uint64_t	adj;

	/*
	 * lo - hh borrows only if lo < 2^32; the borrowed 2^64 is taken
	 * back as EPSILON, which cannot borrow again.  Then + t1 as gl_add.
	 */
	__asm__("sub %[hh], %[lo]\n\t"
	    "sbb %k[adj], %k[adj]\n\t"
	    "sub %[adj], %[lo]\n\t"
	    "add %[t1], %[lo]\n\t"
	    "sbb %k[adj], %k[adj]\n\t"
	    "add %[adj], %[lo]"
	    : [lo] "+r"(lo), [adj] "=&r"(adj)
	    : [hh] "r"(hh), [t1] "r"(t1) : "cc");
	return lo;
#else
	uint64_t	t0 = lo - hh;

	t0 -= EPSILON & -(uint64_t)(lo < hh);
	return gl_add(t0, t1);	/* t1 <= EPSILON^2 < p */
#endif
}

/* Sums of a few u64 (< 2^96): hi * EPSILON < p, so one gl_add. */
static inline uint64_t
gl_reduce96(u128 x)
{
	return gl_add((uint64_t)x, (uint64_t)(x >> 64) * EPSILON);
}

static inline uint64_t
gl_mul(uint64_t a, uint64_t b)
{
	return gl_reduce128((u128)a * b);
}

static inline uint64_t
gl_canon(uint64_t a)
{
	return a >= GOLDILOCKS_P ? a - GOLDILOCKS_P : a;
}

static inline uint64_t
p2_sbox(uint64_t x)
{
	uint64_t	x2, x3, x4;

	x2 = gl_mul(x, x);
	x3 = gl_mul(x2, x);
	x4 = gl_mul(x2, x2);
	return gl_mul(x3, x4);
}

/*
 * M4 = [2 3 1 1; 1 2 3 1; 1 1 2 3; 3 1 1 2] (Plonky3's addition chain) on
 * inputs below 4 * 2^64; outputs are below 28 * 2^64, reduced once.
 */
static inline void
p2_m4(uint64_t *out, u128 x0, u128 x1, u128 x2, u128 x3)
{
	u128	t01, t23, t0123, t01123, t01233;

	t01 = x0 + x1;
	t23 = x2 + x3;
	t0123 = t01 + t23;
	t01123 = t0123 + x1;
	t01233 = t0123 + x3;
	out[0] = gl_reduce96(t01123 + t01);
	out[1] = gl_reduce96(t01123 + 2 * x2);
	out[2] = gl_reduce96(t01233 + t23);
	out[3] = gl_reduce96(t01233 + 2 * x0);
}

/*
 * E(s): y = M4 on each 4-chunk, then s'[i] = y[i] + sum_k y[4k + i % 4].
 * M4 is linear, so s'_chunk = M4(s_chunk + z) with z_j = s_j + s_4+j +
 * s_8+j: three M4 and no 12-wide 128-bit temporaries (which GCC spills).
 */
static inline void
p2_external(uint64_t s[P2_WIDTH])
{
	u128	z0, z1, z2, z3;
	int	i;

	z0 = (u128)s[0] + s[4] + s[8];
	z1 = (u128)s[1] + s[5] + s[9];
	z2 = (u128)s[2] + s[6] + s[10];
	z3 = (u128)s[3] + s[7] + s[11];
#pragma GCC unroll 3
	for (i = 0; i < P2_WIDTH; i += 4)
		p2_m4(s + i, z0 + s[i], z1 + s[i + 1], z2 + s[i + 2],
		    z3 + s[i + 3]);
}

/* Unrolled element loops save about 10% (loop overhead, registers). */
static inline void
p2_full_round(uint64_t s[P2_WIDTH], const uint64_t rc[P2_WIDTH])
{
	int	i;

#pragma GCC unroll 12
	for (i = 0; i < P2_WIDTH; i++)
		s[i] = p2_sbox(gl_add(s[i], rc[i]));
	p2_external(s);
}

/*
 * One partial round: S-box on s[0], then I(s)[i] = sum + D[i] * s[i].
 * The sum stays unreduced: D[i] < p leaves 2^96 of headroom above the
 * product, and the sum of 12 u64 is below 2^68.
 */
static inline void
p2_partial_round(uint64_t s[P2_WIDTH], uint64_t rc)
{
	u128		sum;
	uint64_t	x;
	int		i;

	x = p2_sbox(gl_add(s[0], rc));
	sum = x;
#pragma GCC unroll 12
	for (i = 1; i < P2_WIDTH; i++)
		sum += s[i];
	s[0] = gl_reduce128((u128)x * p2_diag[0] + sum);
#pragma GCC unroll 12
	for (i = 1; i < P2_WIDTH; i++)
		s[i] = gl_reduce128((u128)s[i] * p2_diag[i] + sum);
}

uint64_t
p2_add(uint64_t a, uint64_t b)
{
	return gl_canon(gl_add(a, gl_canon(b)));
}

uint64_t
p2_mul(uint64_t a, uint64_t b)
{
	return gl_canon(gl_mul(a, b));
}

/* Any u64 inputs work; the output is canonical. */
void
p2_permute(uint64_t s[P2_WIDTH])
{
	int	r, i;

	p2_external(s);
	for (r = 0; r < P2_HALF_ROUNDS; r++)
		p2_full_round(s, p2_rc_initial[r]);
	for (r = 0; r < P2_PARTIAL_ROUNDS; r++)
		p2_partial_round(s, p2_rc_internal[r]);
	for (r = 0; r < P2_HALF_ROUNDS; r++)
		p2_full_round(s, p2_rc_terminal[r]);
	for (i = 0; i < P2_WIDTH; i++)
		s[i] = gl_canon(s[i]);
}

/*
 * The sponge, one felt at a time so that byte input needs no buffer.
 * Absorbing adds into the rate (it does not overwrite); the pad is a 1
 * then zeros to the rate, and zeros need no work.
 */
struct p2_sponge {
	uint64_t	s[P2_WIDTH];
	unsigned	pos;
};

static void
p2_sponge_init(struct p2_sponge *sp)
{
	memset(sp, 0, sizeof(*sp));
}

/* The state is canonical (zero, or p2_permute's output): any f adds. */
static inline void
p2_sponge_absorb(struct p2_sponge *sp, uint64_t f)
{
	sp->s[sp->pos] = gl_add(f, sp->s[sp->pos]);
	if (++sp->pos == P2_RATE) {
		p2_permute(sp->s);
		sp->pos = 0;
	}
}

static void
p2_sponge_finish(struct p2_sponge *sp, uint64_t out[P2_OUT])
{
	p2_sponge_absorb(sp, 1);
	if (sp->pos != 0)
		p2_permute(sp->s);
	memcpy(out, sp->s, P2_OUT * sizeof(uint64_t));
}

static void
p2_felts_to_bytes(const uint64_t f[P2_OUT], uint8_t out[32])
{
	int	i, j;

	for (i = 0; i < P2_OUT; i++)
		for (j = 0; j < 8; j++)
			out[8 * i + j] = (uint8_t)(f[i] >> (8 * j));
}

static uint64_t
p2_le64(const uint8_t *p)
{
	uint64_t	v = 0;
	int		i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t
p2_le32(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	    (uint64_t)p[3] << 24;
}

void
p2_hash_felts(const uint64_t *m, size_t n, uint64_t out[P2_OUT])
{
	struct p2_sponge	sp;
	size_t			i;

	p2_sponge_init(&sp);
	for (i = 0; i < n; i++)
		p2_sponge_absorb(&sp, m[i]);
	p2_sponge_finish(&sp, out);
}

void
p2_hash_to_bytes(const uint64_t *m, size_t n, uint8_t out[32])
{
	uint64_t	f[P2_OUT];

	p2_hash_felts(m, n, f);
	p2_felts_to_bytes(f, out);
}

void
p2_hash_to_bytes_pair(const uint64_t *a, const uint64_t *b, size_t n,
    size_t common, uint8_t out_a[32], uint8_t out_b[32])
{
	struct p2_sponge	sa, sb;
	uint64_t		f[P2_OUT];
	size_t			i, shared;

	shared = (common < n ? common : n) / P2_RATE * P2_RATE;
	p2_sponge_init(&sa);
	for (i = 0; i < shared; i++)
		p2_sponge_absorb(&sa, a[i]);
	sb = sa;
	for (i = shared; i < n; i++) {
		p2_sponge_absorb(&sa, a[i]);
		p2_sponge_absorb(&sb, b[i]);
	}
	p2_sponge_finish(&sa, f);
	p2_felts_to_bytes(f, out_a);
	p2_sponge_finish(&sb, f);
	p2_felts_to_bytes(f, out_b);
}

void
p2_hash_twice(const uint64_t *m, size_t n, uint8_t out[32])
{
	uint64_t	f[P2_OUT];

	p2_hash_felts(m, n, f);
	p2_hash_to_bytes(f, P2_OUT, out);
}

/* The last felt holds the 0-3 leftover bytes and the 0x01 terminator. */
static uint64_t
p2_tail_felt(const uint8_t *in, size_t len)
{
	uint8_t	b[4] = { 0, 0, 0, 0 };
	size_t	r = len % 4;

	if (r > 0)
		memcpy(b, in + len - r, r);
	b[r] = 1;
	return p2_le32(b);
}

size_t
p2_bytes_to_felts(const uint8_t *in, size_t len, uint64_t *out)
{
	size_t	i, n = len / 4;

	for (i = 0; i < n; i++)
		out[i] = p2_le32(in + 4 * i);
	out[n] = p2_tail_felt(in, len);
	return n + 1;
}

/*
 * bytes_to_felts(in) absorbed and padded, the 4 felts serialized into out;
 * sp is left as the last permutation left it.
 */
static void
p2_sponge_bytes(struct p2_sponge *sp, const uint8_t *in, size_t len,
    uint8_t out[32])
{
	uint64_t	f[P2_OUT];
	size_t		i, n = len / 4;

	p2_sponge_init(sp);
	for (i = 0; i < n; i++)
		p2_sponge_absorb(sp, p2_le32(in + 4 * i));
	p2_sponge_absorb(sp, p2_tail_felt(in, len));
	p2_sponge_finish(sp, f);
	p2_felts_to_bytes(f, out);
}

void
p2_hash_bytes(const uint8_t *in, size_t len, uint8_t out[32])
{
	struct p2_sponge	sp;

	p2_sponge_bytes(&sp, in, len, out);
}

/* The squeeze goes on from the state the absorb left (the 5th permutation). */
void
p2_hash_bytes_squeeze_twice(const uint8_t *in, size_t len, uint8_t out[64])
{
	struct p2_sponge	sp;

	p2_sponge_bytes(&sp, in, len, out);
	p2_permute(sp.s);
	p2_felts_to_bytes(sp.s, out + 32);
}

int
p2_bytes_to_digest(const uint8_t in[32], uint64_t out[P2_OUT])
{
	uint64_t	l[P2_OUT];
	int		i;

	for (i = 0; i < P2_OUT; i++) {
		l[i] = p2_le64(in + 8 * i);
		if (l[i] >= GOLDILOCKS_P)
			return -1;
	}
	memcpy(out, l, sizeof(l));
	return 0;
}

void
p2_bytes_to_digest_lossy(const uint8_t in[32], uint64_t out[P2_OUT])
{
	int	i;

	for (i = 0; i < P2_OUT; i++)
		out[i] = gl_canon(p2_le64(in + 8 * i));
}
