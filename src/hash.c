/*
 * blake2b (libsodium) for substrate headers and SS58 checksums, twox
 * (xxhash XXH64) for storage keys.
 */
#include "config.h"

#include <string.h>

#include <sodium.h>
#include <xxhash.h>

#include "hash.h"

/*
 * sodium_init picks the fastest blake2b for this CPU; without it libsodium
 * runs the portable code.  It is idempotent and thread-safe; the flag only
 * spares its lock on every hash.
 */
static void
hash_init(void)
{
	static int	done;
	int		rc;

	if (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		rc = sodium_init();
		(void)rc;	/* even -1 leaves the portable code, correct */
		__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	}
}

void
blake2b_256(const void *in, size_t len, uint8_t out[32])
{
	hash_init();
	crypto_generichash(out, 32, in, len, NULL, 0);
}

void
blake2b_512(const void *in, size_t len, uint8_t out[64])
{
	hash_init();
	crypto_generichash(out, 64, in, len, NULL, 0);
}

static void
hash_put_le64(uint64_t v, uint8_t *out)
{
	int	i;

	for (i = 0; i < 8; i++)
		out[i] = (uint8_t)(v >> (8 * i));
}

void
twox64(const void *in, size_t len, uint8_t out[8])
{
	hash_put_le64(XXH64(in, len, 0), out);
}

void
twox128(const void *in, size_t len, uint8_t out[16])
{
	hash_put_le64(XXH64(in, len, 0), out);
	hash_put_le64(XXH64(in, len, 1), out + 8);
}

void
storage_key(const char *pallet, const char *item, uint8_t out[32])
{
	twox128(pallet, strlen(pallet), out);
	twox128(item, strlen(item), out + 16);
}
