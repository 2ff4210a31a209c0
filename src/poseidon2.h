/*
 * Poseidon2 over the Goldilocks field, width 12, as Quantus uses it for
 * block hashes and miner accounts (tests/vectors/quantus-poseidon2.md).
 */
#ifndef CW_POSEIDON2_H
#define CW_POSEIDON2_H

#include <stddef.h>
#include <stdint.h>

#define P2_WIDTH	12
#define P2_RATE		8
#define GOLDILOCKS_P	0xffffffff00000001ULL

/* Field arithmetic on any u64 inputs, canonical results (for tests). */
uint64_t p2_add(uint64_t a, uint64_t b);
uint64_t p2_mul(uint64_t a, uint64_t b);

/* The permutation, in place; inputs must be canonical (< p). */
void	p2_permute(uint64_t s[P2_WIDTH]);

/* The sponge (append 1, zero-pad to the rate): 4 felts out. */
void	p2_hash_felts(const uint64_t *m, size_t n, uint64_t out[4]);

/* The same, serialized as 4 little-endian u64: qp-poseidon hash_to_bytes. */
void	p2_hash_to_bytes(const uint64_t *m, size_t n, uint8_t out[32]);

/*
 * p2_hash_to_bytes of a and of b, n felts each, whose first common felts
 * are the same: the rate blocks they begin with are absorbed once.
 */
void	p2_hash_to_bytes_pair(const uint64_t *a, const uint64_t *b, size_t n,
	    size_t common, uint8_t out_a[32], uint8_t out_b[32]);

/* bytes_to_felts (4 bytes per felt plus terminator), then hash_to_bytes. */
void	p2_hash_bytes(const uint8_t *in, size_t len, uint8_t out[32]);

/*
 * qp-poseidon hash_squeeze_twice over bytes_to_felts(in): the 32 bytes of
 * p2_hash_bytes, then, after one more permutation of the sponge, the
 * first 4 felts serialized the same way (quantus-qpow.md, section 4).
 */
void	p2_hash_bytes_squeeze_twice(const uint8_t *in, size_t len,
	    uint8_t out[64]);

/* hash_to_bytes(hash_to_felts(m)). */
void	p2_hash_twice(const uint64_t *m, size_t n, uint8_t out[32]);

/*
 * bytes_to_felts: floor(len/4)+1 felts into out (caller sizes it).
 * Returns the count.
 */
size_t	p2_bytes_to_felts(const uint8_t *in, size_t len, uint64_t *out);

/* 32 bytes to 4 felts: strict fails (-1) on a limb >= p; lossy reduces. */
int	p2_bytes_to_digest(const uint8_t in[32], uint64_t out[4]);
void	p2_bytes_to_digest_lossy(const uint8_t in[32], uint64_t out[4]);

#endif
