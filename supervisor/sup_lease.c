/*
 * The catch-up queue's timing rules as pure functions of the clock, so
 * that tests can drive hours of leases and retries in microseconds.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sup.h"

/* A lease outlives the request it covers by a margin for the worker. */
uint64_t
lease_deadline(uint64_t now, uint64_t request_timeout)
{
	return now + 2 * request_timeout + LEASE_MARGIN_MS;
}

int
lease_expired(uint64_t deadline, uint64_t now)
{
	return now > deadline;
}

/*
 * When an item that failed its attempts-th attempt may be tried again:
 * 1 s, 2 s, 4 s ... up to 5 minutes.  It is never dropped.
 */
uint64_t
lease_retry_at(uint64_t now, unsigned attempts)
{
	uint64_t	delay = LEASE_BACKOFF_MIN_MS;

	for (unsigned i = 1; i < attempts && delay < LEASE_BACKOFF_MAX_MS; i++)
		delay *= 2;
	if (delay > LEASE_BACKOFF_MAX_MS)
		delay = LEASE_BACKOFF_MAX_MS;
	return now + delay;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * How long a request may be out before it is hedged: hedge_after, or
 * sooner the quantile (percent, 0: none) of the n latest latencies lat[]
 * of such requests, once there are HEDGE_MIN_SAMPLES; never below
 * HEDGE_MIN_MS, since then every request would go out twice.
 */
uint64_t
hedge_delay_ms(const uint32_t *lat, size_t n, unsigned quantile,
    uint64_t hedge_after)
{
	uint32_t	v[LAT_RING];
	size_t		i;

	if (n > LAT_RING)
		n = LAT_RING;
	if (quantile == 0 || n < HEDGE_MIN_SAMPLES)
		return hedge_after;
	memcpy(v, lat, n * sizeof(v[0]));
	qsort(v, n, sizeof(v[0]), cmp_u32);
	/* The nearest-rank quantile: the smallest value with at least
	 * quantile % of the samples at or below it. */
	i = (n * quantile + 99) / 100;
	if (i > 0)
		i--;
	if (v[i] >= hedge_after)
		return hedge_after;
	return v[i] < HEDGE_MIN_MS ? HEDGE_MIN_MS : v[i];
}
