/*
 * Hashrate estimated from proof of work.  QPoW accepts a nonce when its
 * distance falls below max_distance / difficulty (pallet qpow:
 * get_difficulty() = max_distance / distance_threshold), so a block of
 * difficulty D costs D hashes on average and work, the sum of the
 * difficulties, counts expected hashes.  Pure functions, no allocation.
 */
#ifndef CW_HASHRATE_H
#define CW_HASHRATE_H

#include <stddef.h>
#include <stdint.h>

#include "u512.h"

/*
 * The estimator, "work over span": the canonical blocks of a window
 * (by Timestamp.Now) have times t_first <= ... <= t_last; the earliest
 * block's work was done before t_first, so it is left out.  Over the
 * span t_last - t_first the network did
 *	H = (W - D_first) / ((t_last - t_first) / 1000)	hashes per second
 * where W is the work of all the window's blocks and D_first the
 * difficulty of the earliest; a miner did the same with W its own work
 * and D_first counted only if the earliest block is its own.  The
 * miners' estimates add up to the network's.
 *
 * hashrate_estimate: work (less *first, when first is not NULL) per
 * second of the span.  Returns 0 and *hps, or -1 when there is no span
 * (last_ms <= first_ms: fewer than two block times) or first exceeds
 * work (inconsistent input).
 */
int	hashrate_estimate(const struct u512 *work, const struct u512 *first,
	    int64_t first_ms, int64_t last_ms, double *hps);

/*
 * "1.23 TH/s": hps with an SI prefix (H, kH, MH, GH, TH, PH, EH, ZH, YH)
 * and three significant digits.  out must hold HASHRATE_LEN bytes.
 */
#define HASHRATE_LEN	16
void	hashrate_fmt(double hps, char *out, size_t outlen);
/* The same for a table column headed H/s: "1.23T". */
void	hashrate_fmt_short(double hps, char *out, size_t outlen);

#endif
