/*
 * An endpoint's availability as one transition function: no clock of its
 * own, no store, no I/O.  sup_health.c carries out the actions.
 *
 *   state        event        next         actions
 *   STARTING     SPAWNED      STARTING
 *   STARTING     FACTS        READY        READY
 *   STARTING     WRONG_CHAIN  QUARANTINED  QUARANTINE STORE
 *   STARTING     LOST         DOWN         STORE
 *   STARTING     EXITED       STARTING
 *   READY        SPAWNED      STARTING
 *   READY        FACTS        READY
 *   READY        WRONG_CHAIN  QUARANTINED  GONE QUARANTINE STORE
 *   READY        LOST         DOWN         GONE STORE
 *   READY        EXITED       STARTING     GONE
 *   DOWN         SPAWNED      DOWN         (until its facts: a worker that
 *                                          only starts is no cure)
 *   DOWN         FACTS        READY        READY STORE
 *   DOWN         WRONG_CHAIN  QUARANTINED  QUARANTINE STORE
 *   DOWN         LOST         DOWN         STORE (the new reason; since kept)
 *   DOWN         EXITED       DOWN
 *   QUARANTINED  FACTS        READY        RELEASE READY STORE
 *   QUARANTINED  WRONG_CHAIN  QUARANTINED  STORE (the new reason; since kept)
 *   QUARANTINED  SPAWNED, LOST, EXITED     QUARANTINED (it serves another
 *                                          chain until it says otherwise)
 *   STARTING     CONTRADICTED INCONSISTENT DOUBT STORE
 *   READY        CONTRADICTED INCONSISTENT GONE DOUBT STORE
 *   INCONSISTENT CONTRADICTED INCONSISTENT STORE (the new reason; since
 *                                          kept; agreements start over)
 *   DOWN, QUARANTINED  CONTRADICTED        unchanged (they outweigh it)
 *   INCONSISTENT AGREES       INCONSISTENT (one more agreement) or, the
 *                                          EP_AGREE_N-th in a row, READY
 *                                          TRUST READY STORE
 *   others       AGREES       unchanged
 *   INCONSISTENT SPAWNED, FACTS, EXITED    INCONSISTENT (its claims are the
 *                                          endpoint's, not its worker's)
 *   INCONSISTENT LOST         DOWN         STORE (no leases to give back)
 *   INCONSISTENT WRONG_CHAIN  QUARANTINED  QUARANTINE STORE
 *   INCONSISTENT ABSOLVED     READY        ABSOLVE READY STORE
 *   others       ABSOLVED     unchanged
 *
 * ABSOLVED comes when every endpoint of a chain that could work is
 * inconsistent, and has been for a claim's patience (ep_doubted): no one
 * is sent work, so no claim can connect and no one can agree again.
 * When everyone breaks a rule, the rule is suspected (a best the chain
 * has left far behind, a reach computed from it): they get work again,
 * and a liar among them is judged again by what it then serves.
 *
 * WRONG_CHAIN is both another genesis and headers that do not hash, in the
 * chain's format, to the hashes the endpoint serves them under (a wrong
 * `format`): either way nothing it serves belongs in the store.  Only
 * facts that fit (after a reload with a corrected configuration restarts
 * its worker, or a restart of the daemon) end it.
 *
 *   READY        OVERDUE      UNRESPONSIVE GONE MUTE STORE (back: READY)
 *   STARTING     OVERDUE      UNRESPONSIVE MUTE STORE (back: STARTING; its
 *                                          worker never answered anything)
 *   UNRESPONSIVE OVERDUE      UNRESPONSIVE STORE (the new reason; since kept)
 *   others       OVERDUE      unchanged (they outweigh it, or it answers)
 *   UNRESPONSIVE ANSWERED     back         HEARD STORE, and READY if back
 *                                          is READY
 *   UNRESPONSIVE JUDGED       back         STORE, and READY if back is
 *                                          READY (its breaker opened: it
 *                                          decides from now on, trials
 *                                          included)
 *   others       ANSWERED, JUDGED          unchanged
 *   UNRESPONSIVE FACTS        READY        HEARD READY STORE
 *   UNRESPONSIVE SPAWNED      STARTING     STORE (a new worker: its wait
 *                                          starts over)
 *   UNRESPONSIVE EXITED       STARTING     STORE
 *   UNRESPONSIVE LOST         DOWN         STORE (no leases to give back)
 *   UNRESPONSIVE WRONG_CHAIN  QUARANTINED  QUARANTINE STORE
 *   UNRESPONSIVE CONTRADICTED INCONSISTENT DOUBT STORE
 *
 * UNRESPONSIVE is a state, not a flag beside the breaker: an endpoint
 * that does not answer gets no work, like one that is down, and what
 * people see is one state with one reason and one start.  Its `since` is
 * when the wait began (the overdue request went out), passed as now.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "sup_endpoint.h"

void
ep_init(struct ep_avail *a)
{
	memset(a, 0, sizeof(*a));
	a->state = EP_STARTING;
}

static unsigned
trouble(struct ep_avail *a, enum ep_state to, const char *why, uint64_t now)
{
	if (a->state != to)
		a->since = now;
	a->state = to;
	a->agreed = 0;
	snprintf(a->reason, sizeof(a->reason), "%s", why != NULL ? why : "");
	return EPA_STORE;
}

/* Out of trouble, to state to; READY asks for due work. */
static unsigned
settle(struct ep_avail *a, enum ep_state to)
{
	a->state = to;
	a->reason[0] = '\0';
	a->since = 0;
	a->agreed = 0;
	return to == EP_READY ? EPA_READY : 0;
}

unsigned
ep_step(struct ep_avail *a, enum ep_event ev, const char *why, uint64_t now)
{
	enum ep_state	was = a->state;
	unsigned	act = 0;

	switch (ev) {
	case EPE_CONTRADICTED:
		if (was == EP_DOWN || was == EP_QUARANTINED)
			return 0;
		if (was == EP_READY)
			act |= EPA_GONE;
		if (was != EP_INCONSISTENT)
			act |= EPA_DOUBT;
		return act | trouble(a, EP_INCONSISTENT, why, now);
	case EPE_AGREES:
		if (was != EP_INCONSISTENT || ++a->agreed < EP_AGREE_N)
			return 0;
		a->state = EP_READY;
		a->reason[0] = '\0';
		a->since = 0;
		a->agreed = 0;
		return EPA_TRUST | EPA_READY | EPA_STORE;
	case EPE_SPAWNED:
		if (was == EP_UNRESPONSIVE)
			return settle(a, EP_STARTING) | EPA_STORE;
		if (was == EP_READY)
			a->state = EP_STARTING;
		return 0;
	case EPE_EXITED:
		if (was == EP_UNRESPONSIVE)
			return settle(a, EP_STARTING) | EPA_STORE;
		if (was != EP_READY)
			return 0;
		a->state = EP_STARTING;
		return EPA_GONE;
	case EPE_OVERDUE:
		if (was == EP_READY)
			act |= EPA_GONE;
		if (was == EP_READY || was == EP_STARTING) {
			a->back = was;
			act |= EPA_MUTE;
		} else if (was != EP_UNRESPONSIVE)
			return 0;
		return act | trouble(a, EP_UNRESPONSIVE, why, now);
	case EPE_ANSWERED:
	case EPE_JUDGED:
		if (was != EP_UNRESPONSIVE)
			return 0;
		if (ev == EPE_ANSWERED)
			act |= EPA_HEARD;
		return act | settle(a, a->back) | EPA_STORE;
	case EPE_FACTS:
		if (was == EP_READY || was == EP_INCONSISTENT)
			return 0;
		if (was == EP_QUARANTINED)
			act |= EPA_RELEASE;
		if (was == EP_UNRESPONSIVE)
			act |= EPA_HEARD;
		if (was == EP_DOWN || was == EP_QUARANTINED ||
		    was == EP_UNRESPONSIVE)
			act |= EPA_STORE;
		a->state = EP_READY;
		a->reason[0] = '\0';
		a->since = 0;
		return act | EPA_READY;
	case EPE_WRONG_CHAIN:
		if (was == EP_READY)
			act |= EPA_GONE;
		if (was != EP_QUARANTINED)
			act |= EPA_QUARANTINE;
		return act | trouble(a, EP_QUARANTINED, why, now);
	case EPE_ABSOLVED:
		if (was != EP_INCONSISTENT)
			return 0;
		return settle(a, EP_READY) | EPA_ABSOLVE | EPA_STORE;
	case EPE_LOST:
		if (was == EP_QUARANTINED)
			return 0;
		if (was == EP_READY)
			act |= EPA_GONE;
		return act | trouble(a, EP_DOWN, why, now);
	}
	return 0;
}

int
ep_doubted(const struct ep_avail *const *av, size_t n, uint64_t patience,
    uint64_t now)
{
	uint64_t	latest = 0;
	int		doubted = 0;

	for (size_t i = 0; i < n; i++) {
		if (av[i]->state == EP_READY)
			return 0;
		if (av[i]->state != EP_INCONSISTENT)
			continue;
		doubted = 1;
		if (av[i]->since > latest)
			latest = av[i]->since;
	}
	return doubted && now >= latest && now - latest >= patience;
}

const char *
ep_shown(const struct ep_avail *a, const struct breaker *b, uint64_t *since,
    const char **reason)
{
	switch (a->state) {
	case EP_DOWN:
	case EP_QUARANTINED:
	case EP_INCONSISTENT:
	case EP_UNRESPONSIVE:
		*since = a->since;
		*reason = a->reason;
		return ep_state_name(a->state);
	default:
		/* One outage, one start, however often it was tried. */
		*since = b->state == BRK_CLOSED ? b->since : b->down_since;
		*reason = b->reason;
		return breaker_state_name(b->state);
	}
}

const char *
ep_state_name(enum ep_state s)
{
	static const char *const names[] = { "starting", "ready", "down",
	    "quarantined", "inconsistent", "unresponsive" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *
ep_event_name(enum ep_event e)
{
	static const char *const names[] = { "spawned", "facts",
	    "wrong_chain", "lost", "exited", "contradicted", "agrees",
	    "overdue", "answered", "judged", "absolved" };

	return (unsigned)e < sizeof(names) / sizeof(names[0]) ? names[e] : "?";
}
