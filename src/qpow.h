/*
 * Quantus proof of work (tests/vectors/quantus-qpow.md): the seal a
 * header's digest carries, its pre-hash and nonce hash, the check against
 * a difficulty, and the difficulty's retarget rule.  Pure, no allocation.
 */
#ifndef CW_QPOW_H
#define CW_QPOW_H

#include <stdint.h>

#include "header.h"
#include "u512.h"

#define QPOW_NONCE_LEN		64
/* The clamp of the retarget rule on chain (section 5). */
#define QPOW_MIN_DIFFICULTY	131072

/* What the seal of a header is, as the node's import judges it (section 3). */
enum qpow_seal {
	QPOW_SEAL_OK = 0,
	QPOW_SEAL_WINDOW,	/* digest neither 110 bytes nor 111 with one
				 * RuntimeEnvironmentUpdated item */
	QPOW_SEAL_UNSEALED,	/* its last item is not a Seal */
	QPOW_SEAL_ENGINE,	/* a Seal of another engine than pow_ */
	QPOW_SEAL_LENGTH,	/* a payload other than 64 bytes */
	QPOW_SEAL_ZERO,		/* a nonce of zeros: invalid at any difficulty */
	QPOW_SEAL_COUNT
};

/* "ok", "window", "unsealed", "engine", "length", "zero". */
const char	*qpow_seal_name(enum qpow_seal);
/* A phrase for a reason: "digest outside the 110/111-byte window", ... */
const char	*qpow_seal_words(enum qpow_seal);

/*
 * The seal of a quantus header: QPOW_SEAL_OK with its 64 nonce bytes and
 * its pre-hash (the header hash with the Seal item removed), else why
 * not.  QPOW_SEAL_ZERO fills nonce and pre_hash too; after the others
 * they are unspecified.  The window is checked before anything is hashed.
 */
enum qpow_seal	 qpow_seal_of(const struct header *,
		    uint8_t nonce[QPOW_NONCE_LEN], uint8_t pre_hash[32]);
/* The same checks, nothing hashed: for a caller that has the pre-hash
 * (header_quantus_pre). */
enum qpow_seal	 qpow_seal_shape(const struct header *,
		    uint8_t nonce[QPOW_NONCE_LEN]);

/*
 * H: Poseidon2 hash_squeeze_twice over pre_hash ‖ nonce, the 64 bytes
 * read as one big-endian integer (section 4).
 */
void	qpow_nonce_hash(const uint8_t pre_hash[32],
	    const uint8_t nonce[QPOW_NONCE_LEN], struct u512 *h);

/*
 * The largest difficulty a hash meets, floor((2^512 - 1) / (H + 1)); 0
 * when H is 2^512 - 1.  A seal is valid at D iff 0 < D <= this (and its
 * nonce is not zero).
 */
void	qpow_max_difficulty(const struct u512 *h, struct u512 *d);

/* 1 if H < floor((2^512 - 1) / D), the node's check; 0, also for D = 0. */
int	qpow_meets(const struct u512 *h, const struct u512 *d);

/*
 * The retarget rule of section 5, its eras as parameters: the chain's
 * target block time, the divisor as a fraction of it (2/3; 10/12 in a
 * later era), the floor on a block's time (500 ms; 0 before dbe640b7)
 * and the smallest difficulty (QPOW_MIN_DIFFICULTY on chain).  A div_den
 * of 0 reads as 1.
 */
struct qpow_rule {
	uint64_t	target_ms;
	uint32_t	div_num;
	uint32_t	div_den;
	uint64_t	floor_ms;
	struct u512	min;
};

/* The rule of Quantus-Network/chain 94c4ca7a at a target block time. */
void	qpow_rule_default(struct qpow_rule *, uint64_t target_ms);

/*
 * The difficulty stored after a block, from the one stored after its
 * parent (d; 0 is read as the rule's min) and the block's time in ms
 * (its timestamp minus its parent's; block 1 passes target_ms).
 */
void	qpow_retarget(const struct qpow_rule *, const struct u512 *d,
	    uint64_t block_ms, struct u512 *next);

/*
 * pallet_timestamp's MinimumPeriod on Quantus: a block's timestamp is at
 * least its parent's + 100 ms, at the 12 s target.  qpow_min_period is
 * that period at a target block time: 100 ms from 12 s up, scaled down
 * below it (a devnode's short blocks), never under 1 ms.
 */
#define QPOW_MIN_PERIOD_MS	100
#define QPOW_TARGET_MS		12000
uint64_t qpow_min_period(uint64_t target_ms);

/* The range one step can reach from d: [lo, hi]. */
void	qpow_step_bounds(const struct qpow_rule *, const struct u512 *d,
	    struct u512 *lo, struct u512 *hi);

#endif
