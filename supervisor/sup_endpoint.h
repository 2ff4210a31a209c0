/*
 * An endpoint's availability (sup_endpoint.c): whether its worker runs
 * and serves the chain, as one pure state machine.  Together with its
 * breaker (sup_breaker.c), which judges its answers, it says whether the
 * endpoint may be sent work and what people are shown.
 */
#ifndef CW_SUP_ENDPOINT_H
#define CW_SUP_ENDPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "sup_breaker.h"

enum ep_state {
	EP_STARTING,	/* its worker starts or stops: no facts yet */
	EP_READY,	/* its worker runs and serves the chain's genesis, in
			 * headers that fit the chain's format */
	EP_DOWN,	/* its worker hung, died or misbehaved */
	EP_QUARANTINED,	/* it serves another chain, or headers that do not
			 * hash as the chain's format says (a wrong
			 * `format`): until facts that fit come */
	EP_INCONSISTENT,	/* others contradict its claims, or they never
				 * connect: no work until they agree again */
	EP_UNRESPONSIVE,	/* its oldest request is overdue while others
				 * answer (sup_overdue.c): no work until its
				 * next answer or its breaker's verdict */
};

enum ep_event {
	EPE_SPAWNED,	/* a new worker process: facts to come */
	EPE_FACTS,	/* facts with the chain's genesis, headers that fit */
	EPE_WRONG_CHAIN,	/* facts with another genesis, or headers that
				 * do not hash as served in the chain's
				 * format */
	EPE_LOST,	/* its worker hung, died, failed its setup or sent a bad
			 * message */
	EPE_EXITED,	/* its worker stopped as asked (reload, shutdown) */
	EPE_CONTRADICTED,	/* a claim of it contradicted or never
				 * connected */
	EPE_AGREES,	/* a head of it connected, no claim of it held */
	EPE_OVERDUE,	/* its oldest request overdue while others answer */
	EPE_ANSWERED,	/* it answered something (any outcome but timeout
			 * or transport) */
	EPE_JUDGED,	/* its breaker left closed: the breaker speaks now */
	EPE_ABSOLVED,	/* every endpoint of its chain that is heard has been
			 * inconsistent for a claim's patience: the rule is
			 * suspected, not they (ep_doubted) */
};

/* Actions, carried out by sup_health.c and its callers. */
#define EPA_STORE	0x01	/* what is shown changed: store it */
#define EPA_READY	0x02	/* usable now: work waiting out a backoff is
				 * due at once */
#define EPA_GONE	0x04	/* no longer usable: its leases come back */
#define EPA_QUARANTINE	0x08	/* newly quarantined: say so */
#define EPA_RELEASE	0x10	/* quarantine over: say so */
#define EPA_DOUBT	0x20	/* newly inconsistent: say so */
#define EPA_TRUST	0x40	/* inconsistency over: say so */
#define EPA_MUTE	0x80	/* newly unresponsive: say so */
#define EPA_HEARD	0x100	/* unresponsive no more: say so */
#define EPA_ABSOLVE	0x200	/* inconsistency lifted with the others': say
				 * so */

#define EP_REASON_MAX	160
#define EP_AGREE_N	5	/* agreeing heads in a row that end an
				 * inconsistency */

struct ep_avail {
	enum ep_state	 state;
	char		 reason[EP_REASON_MAX];	/* DOWN, QUARANTINED,
						 * INCONSISTENT */
	uint64_t	 since;			/* wall ms, of the trouble */
	unsigned	 agreed;		/* INCONSISTENT: agreeing heads
						 * since the last contradiction */
	enum ep_state	 back;			/* UNRESPONSIVE: where an
						 * answer takes it (READY, or
						 * STARTING before facts) */
};

void		 ep_init(struct ep_avail *);
unsigned	 ep_step(struct ep_avail *, enum ep_event, const char *why,
		    uint64_t now);
/*
 * What people are shown: a quarantine, a worker that is down, an
 * inconsistency or an overdue request outweighs the breaker, which only
 * judges answers.  An open or half-open breaker is shown since its
 * outage began (down_since), however often it flipped since.
 */
const char	*ep_shown(const struct ep_avail *, const struct breaker *,
		    uint64_t *since, const char **reason);
/*
 * Of a chain's n endpoints, none ready and at least one inconsistent, the
 * latest of them for patience ms or more by now: nothing is fetched and
 * nothing can connect, so they are all absolved (EPE_ABSOLVED).
 */
int		 ep_doubted(const struct ep_avail *const *, size_t n,
		    uint64_t patience, uint64_t now);
const char	*ep_state_name(enum ep_state);
const char	*ep_event_name(enum ep_event);

#endif
