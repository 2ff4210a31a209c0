/*
 * The catch-up queue's timing rules as pure functions of the clock, so
 * that tests can drive hours of leases and retries in microseconds.
 */
#include "config.h"

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
