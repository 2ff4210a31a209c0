/*
 * Unsigned 512-bit integers: a Quantus difficulty (the chain's U512, stored
 * as 64 bytes little-endian) and work, the sum of difficulties, which the
 * store keeps as an exact decimal string.  Pure functions, no allocation.
 */
#ifndef CW_U512_H
#define CW_U512_H

#include <stddef.h>
#include <stdint.h>

#define U512_BYTES	64
#define U512_LIMBS	8
/* 2^512 - 1 has 155 decimal digits; plus the NUL. */
#define U512_DEC_LEN	156

/* w[0] is the least significant 64 bits. */
struct u512 {
	uint64_t	w[U512_LIMBS];
};

void	u512_zero(struct u512 *);
void	u512_from_u64(struct u512 *, uint64_t);
int	u512_is_zero(const struct u512 *);

/* From/to the 64-byte little-endian form of blocks.difficulty. */
void	u512_from_le(struct u512 *, const uint8_t in[U512_BYTES]);
void	u512_to_le(const struct u512 *, uint8_t out[U512_BYTES]);

/* From/to 64 bytes big-endian: a Quantus nonce or proof-of-work hash. */
void	u512_from_be(struct u512 *, const uint8_t in[U512_BYTES]);
void	u512_to_be(const struct u512 *, uint8_t out[U512_BYTES]);

/* 2^512 - 1, the chain's U512::MAX. */
void	u512_max(struct u512 *);

/*
 * acc += x.  Returns 0, or -1 if the sum does not fit in 512 bits; acc is
 * then left unchanged.
 */
int	u512_add(struct u512 *acc, const struct u512 *x);

/*
 * acc -= x, to take blocks that left the chain back out of a sum.
 * Returns 0, or -1 if x > acc; acc is then left unchanged.
 */
int	u512_sub(struct u512 *acc, const struct u512 *x);

/*
 * out = a * b.  Returns 0, or -1 if the product is 2^512 or more; out is
 * then left unchanged.  out may be a or b.
 */
int	u512_mul(const struct u512 *a, const struct u512 *b, struct u512 *out);

/*
 * q = floor(a / b), r = a mod b; either may be NULL, and either may be a
 * or b.  Returns 0, or -1 if b is zero; q and r are then left unchanged.
 */
int	u512_divmod(const struct u512 *a, const struct u512 *b,
	    struct u512 *q, struct u512 *r);

/* -1, 0 or 1 as a is less than, equal to or greater than b. */
int	u512_cmp(const struct u512 *a, const struct u512 *b);

/*
 * The exact decimal form, no leading zeros ("0" for zero).  out must hold
 * U512_DEC_LEN bytes.  Returns the number of digits written.
 */
size_t	u512_to_dec(const struct u512 *, char out[U512_DEC_LEN]);

/*
 * Parse a decimal string as u512_to_dec writes it: one or more ASCII
 * digits and nothing else (leading zeros are accepted).  Returns 0, or -1
 * on NULL, an empty string, any other character, or a value of 2^512 or
 * more; out is then left unchanged.
 */
int	u512_from_dec(struct u512 *out, const char *s);

/* The nearest double (round to nearest, ties to even), for work_f. */
double	u512_to_double(const struct u512 *);

#endif
