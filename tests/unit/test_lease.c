/*
 * The catch-up queue's timing with a fake clock: leases expire after
 * their deadline, failed items come back after 1 s, 2 s, 4 s ... capped
 * at 5 minutes, and an item is retried forever, never dropped.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sup_lease.h"
#include "sup_route.h"

static void
test_deadline(void **state)
{
	uint64_t	t = 1764400000000ULL;
	uint64_t	d = lease_deadline(t, 10000);

	assert_int_equal(d, t + 2 * 10000 + LEASE_MARGIN_MS);
	assert_false(lease_expired(d, t));
	assert_false(lease_expired(d, d));
	assert_true(lease_expired(d, d + 1));
}

static void
test_backoff(void **state)
{
	uint64_t	now = 5000;

	assert_int_equal(lease_retry_at(now, 0), now + 1000);
	assert_int_equal(lease_retry_at(now, 1), now + 1000);
	assert_int_equal(lease_retry_at(now, 2), now + 2000);
	assert_int_equal(lease_retry_at(now, 3), now + 4000);
	assert_int_equal(lease_retry_at(now, 9), now + 256000);
	assert_int_equal(lease_retry_at(now, 10), now + 300000);
	assert_int_equal(lease_retry_at(now, 1000000), now + 300000);
}

/* A day of an item failing at every attempt: it keeps coming back. */
static void
test_day_of_failures(void **state)
{
	uint64_t	t = 0, next;
	unsigned	attempts = 0, capped = 0;

	while (t < 24ULL * 3600 * 1000) {
		attempts++;
		/* leased at t, its worker never answers: */
		t = lease_deadline(t, 10000) + 1;
		next = lease_retry_at(t, attempts);
		assert_true(next > t);
		assert_true(next - t <= LEASE_BACKOFF_MAX_MS);
		if (next - t == LEASE_BACKOFF_MAX_MS)
			capped++;
		t = next;
	}
	/* 9 doublings, then every 5 minutes and 22 s (the lease). */
	assert_true(attempts > 250);
	assert_int_equal(capped, attempts - 9);
}

/* The hedging delay: hedge_after until the quantile is known, then it. */
static void
test_hedge_delay(void **state)
{
	uint32_t	lat[LAT_RING];

	(void)state;
	/* Too few samples: hedge_after. */
	for (size_t i = 0; i < LAT_RING; i++)
		lat[i] = 200;
	assert_int_equal(hedge_delay_ms(lat, HEDGE_MIN_SAMPLES - 1, 95, 1000),
	    1000);
	assert_int_equal(hedge_delay_ms(lat, HEDGE_MIN_SAMPLES, 95, 1000), 200);
	/* Off. */
	assert_int_equal(hedge_delay_ms(lat, LAT_RING, 0, 1000), 1000);
	/* 1..100 ms in a ring of 64 (37..100 kept): p95 is the 61st. */
	for (size_t i = 0; i < LAT_RING; i++)
		lat[i] = (uint32_t)(100 - i);
	assert_int_equal(hedge_delay_ms(lat, LAT_RING, 95, 1000), 97);
	assert_int_equal(hedge_delay_ms(lat, LAT_RING, 50, 1000), 68);
	/* Capped by hedge_after, floored at HEDGE_MIN_MS. */
	assert_int_equal(hedge_delay_ms(lat, LAT_RING, 95, 90), 90);
	for (size_t i = 0; i < LAT_RING; i++)
		lat[i] = 3;
	assert_int_equal(hedge_delay_ms(lat, LAT_RING, 95, 1000),
	    HEDGE_MIN_MS);
	/* More samples than the ring: only the ring counts. */
	assert_int_equal(hedge_delay_ms(lat, 5000, 95, 1000), HEDGE_MIN_MS);
	/* One slow outlier in 64 does not move p95. */
	for (size_t i = 0; i < LAT_RING; i++)
		lat[i] = i == 7 ? 30000 : 120;
	assert_int_equal(hedge_delay_ms(lat, LAT_RING, 95, 1000), 120);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_day_of_failures),
		cmocka_unit_test(test_hedge_delay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
