/*
 * Hashrate from work and block times: the estimator of hashrate.h, and
 * its text for people.
 */
#include "config.h"

#include <stdio.h>

#include "hashrate.h"

int
hashrate_estimate(const struct u512 *work, const struct u512 *first,
    int64_t first_ms, int64_t last_ms, double *hps)
{
	struct u512	w = *work;

	if (last_ms <= first_ms)
		return -1;
	if (first != NULL && u512_sub(&w, first) == -1)
		return -1;
	*hps = u512_to_double(&w) * 1000.0 / (double)(last_ms - first_ms);
	return 0;
}

/* hps as three significant digits and an SI prefix. */
static void
hashrate_scale(double hps, char *num, size_t numlen, const char **prefix)
{
	static const char *const si[] = {
		"", "k", "M", "G", "T", "P", "E", "Z", "Y",
	};
	size_t	 i = 0;

	while (hps >= 999.5 && i + 1 < sizeof(si) / sizeof(si[0])) {
		hps /= 1000.0;
		i++;
	}
	if (hps < 9.995)
		snprintf(num, numlen, "%.2f", hps);
	else if (hps < 99.95)
		snprintf(num, numlen, "%.1f", hps);
	else
		snprintf(num, numlen, "%.0f", hps);
	*prefix = si[i];
}

void
hashrate_fmt(double hps, char *out, size_t outlen)
{
	char		 num[HASHRATE_LEN];
	const char	*prefix;

	hashrate_scale(hps, num, sizeof(num), &prefix);
	snprintf(out, outlen, "%s %sH/s", num, prefix);
}

void
hashrate_fmt_short(double hps, char *out, size_t outlen)
{
	char		 num[HASHRATE_LEN];
	const char	*prefix;

	hashrate_scale(hps, num, sizeof(num), &prefix);
	snprintf(out, outlen, "%s%s", num, prefix);
}
