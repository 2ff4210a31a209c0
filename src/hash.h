/*
 * The non-Poseidon hashes Substrate uses: blake2b (libsodium) for headers
 * and SS58 checksums, twox (xxhash) for storage keys.
 */
#ifndef CW_HASH_H
#define CW_HASH_H

#include <stddef.h>
#include <stdint.h>

void	blake2b_256(const void *in, size_t len, uint8_t out[32]);
void	blake2b_512(const void *in, size_t len, uint8_t out[64]);
/* twox128 = xxh64 seed 0 ‖ xxh64 seed 1, each little-endian. */
void	twox128(const void *in, size_t len, uint8_t out[16]);
void	twox64(const void *in, size_t len, uint8_t out[8]);
/* A plain storage value key: twox128(pallet) ‖ twox128(item). */
void	storage_key(const char *pallet, const char *item, uint8_t out[32]);

#endif
