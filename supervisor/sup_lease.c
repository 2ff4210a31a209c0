/*
 * Leases as one pure transition function, and the queue's timing rules,
 * so that tests can drive hours of leases, hedges and retries in
 * microseconds.  The clock is the monotonic one; wall-clock times are
 * only what the store shows people.
 *
 *   state   event              next     actions
 *   OUT     OK                 SETTLED  DONE
 *   OUT     FAIL               BACK     BACK (lease_retry_in)
 *   OUT     HEDGE              HEDGED   (hedges + 1, deadline extended)
 *   OUT     NO_HEDGE           ALONE
 *   HEDGED  OK                 SETTLED  DONE STRAGGLE (WON from the hedge)
 *   HEDGED  FAIL of the first  ALONE    (its hedge goes on)
 *   HEDGED  FAIL of the hedge  OUT      (next hedge a delay later; one
 *                                       that found the block absent is not
 *                                       counted and the next comes after
 *                                       ABSENT_RETRY_MS)
 *   ALONE   OK                 SETTLED  DONE (WON from the hedge)
 *   ALONE   FAIL               BACK     BACK (lease_retry_in)
 *   OUT+    EXPIRE             BACK     BACK (backoff) DROP
 *   (OUT+ is OUT, HEDGED or ALONE; SETTLED and BACK are final: any event
 *   there changes nothing.)
 */
#include "config.h"

#include "sup_lease.h"

void
lease_start(struct lease *l, int live, unsigned attempts,
    uint64_t request_timeout, uint64_t now)
{
	l->state = LS_OUT;
	l->live = live;
	l->attempts = attempts;
	l->sent = now;
	l->deadline = lease_deadline(now, request_timeout);
	l->hedges = 0;
	l->hedge_at = 0;
	l->back_in = 0;
}

static unsigned
back(struct lease *l, uint64_t in)
{
	l->state = LS_BACK;
	l->back_in = in;
	return LA_BACK;
}

unsigned
lease_step(struct lease *l, enum lease_event ev, const struct lease_in *in,
    uint64_t now)
{
	uint64_t	d;

	if (!lease_active(l))
		return 0;
	switch (ev) {
	case LE_OK:
		if (l->state == LS_HEDGED) {
			l->state = LS_SETTLED;
			return LA_DONE | LA_STRAGGLE | (in->hedge ? LA_WON : 0);
		}
		l->state = LS_SETTLED;
		return LA_DONE | (in->hedge ? LA_WON : 0);
	case LE_FAIL:
		if (l->state != LS_HEDGED)
			return back(l, lease_retry_in(l->live, l->attempts,
			    in->outcome, in->at_once, in->block_time));
		if (!in->hedge) {
			l->state = LS_ALONE;
			return 0;
		}
		/*
		 * A hedge that found the block not there yet (the head came
		 * from a faster endpoint) does not use up the hedges.
		 */
		if (in->outcome == OUTCOME_ABSENT) {
			if (l->hedges > 0)
				l->hedges--;
			l->hedge_at = now + ABSENT_RETRY_MS;
		} else
			l->hedge_at = now + in->hedge_delay;
		l->state = LS_OUT;
		return 0;
	case LE_HEDGE:
		if (l->state != LS_OUT)
			return 0;
		l->state = LS_HEDGED;
		l->hedges++;
		d = lease_deadline(now, in->request_timeout);
		if (d > l->deadline)
			l->deadline = d;
		return 0;
	case LE_NO_HEDGE:
		if (l->state == LS_OUT)
			l->state = LS_ALONE;
		return 0;
	case LE_EXPIRE:
		return back(l, lease_retry_in(0, l->attempts, OUTCOME_TIMEOUT,
		    0, in->block_time)) | LA_DROP;
	}
	return 0;
}

/* Is its request out long enough, and not hedged too often, to hedge? */
int
lease_may_hedge(const struct lease *l, uint64_t delay, uint64_t now)
{
	return l->state == LS_OUT && l->hedges < HEDGES_MAX &&
	    now - l->sent >= delay && now >= l->hedge_at;
}

int
lease_active(const struct lease *l)
{
	return l->state == LS_OUT || l->state == LS_HEDGED ||
	    l->state == LS_ALONE;
}

const char *
lease_state_name(enum lease_state s)
{
	static const char *const names[] = { "out", "hedged", "alone",
	    "settled", "back" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *
lease_event_name(enum lease_event e)
{
	static const char *const names[] = { "ok", "fail", "hedge",
	    "no_hedge", "expire" };

	return (unsigned)e < sizeof(names) / sizeof(names[0]) ? names[e] : "?";
}

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

/*
 * How long a failed item waits.  A read another endpoint should make at
 * once (one that found the state pruned), for its first AT_ONCE_MAX
 * tries, and a live read the first two times, go now; a live block the
 * endpoint has not seen yet (the head came from a faster one) is asked
 * again soon, within a block time, not after a backoff meant for
 * failures; everything else backs off.  (Sent on at once for ever, a read
 * every endpoint found pruned went round them every 2 ms.)
 */
uint64_t
lease_retry_in(int live, unsigned attempts, enum outcome o, int at_once,
    uint64_t block_time)
{
	uint64_t	d;

	if ((at_once && attempts <= AT_ONCE_MAX) || (live && attempts <= 2))
		return 0;
	if (live && o == OUTCOME_ABSENT) {
		d = ABSENT_RETRY_MS * (uint64_t)attempts;
		return d > block_time ? block_time : d;
	}
	return lease_retry_at(0, attempts);
}
