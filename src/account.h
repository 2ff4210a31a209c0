/*
 * Miner accounts: the Quantus account derived from the PreRuntime rewards
 * preimage, and SS58 addresses.
 */
#ifndef CW_ACCOUNT_H
#define CW_ACCOUNT_H

#include <stddef.h>
#include <stdint.h>

#define SS58_PREFIX_QUANTUS	189
#define SS58_MAX		64	/* buffer size that holds any address */

/* 0 and the account, or -1 when a limb of the preimage is >= p. */
int	account_from_preimage(const uint8_t preimage[32], uint8_t account[32]);

/* SS58 of a 32-byte account with the given prefix (0..16383). */
int	ss58_encode(uint16_t prefix, const uint8_t account[32], char *out,
	    size_t outlen);
/*
 * Reverse: 0, *prefix and the account if the checksum matches and the
 * prefix is validly encoded, else -1.  The caller checks *prefix.
 */
int	ss58_decode(const char *s, uint16_t *prefix, uint8_t account[32]);

#endif
