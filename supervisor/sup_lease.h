/*
 * A lease: one queue item out to endpoints, as an explicit state machine
 * with its timing rules (sup_lease.c).  Pure: the monotonic clock is
 * passed in, and what a transition asks for is returned as actions that
 * sup_sched.c carries out.
 */
#ifndef CW_SUP_LEASE_H
#define CW_SUP_LEASE_H

#include <stdint.h>

#include "outcome.h"

#define LEASE_MARGIN_MS		2000
#define LEASE_BACKOFF_MIN_MS	1000
#define LEASE_BACKOFF_MAX_MS	300000
#define HEDGES_MAX		3	/* hedge requests for one request */
#define ABSENT_RETRY_MS		250	/* a live block not there yet */
#define AT_ONCE_MAX		4	/* tries sent on at once, at most */

enum lease_state {
	LS_OUT,		/* its request is out and may be hedged */
	LS_HEDGED,	/* its request and a hedge of it are out */
	LS_ALONE,	/* one request is out and will not be hedged */
	LS_SETTLED,	/* answered: the item is done */
	LS_BACK,	/* failed or expired: the item is pending again */
};

enum lease_event {
	LE_OK,		/* a request of it answered in full */
	LE_FAIL,	/* a request of it failed, or its worker died */
	LE_HEDGE,	/* a hedge of its request was sent */
	LE_NO_HEDGE,	/* a hedge found nothing left to ask */
	LE_EXPIRE,	/* its deadline passed */
};

/* Actions, carried out by the caller. */
#define LA_DONE		0x01	/* the item is done: delete it */
#define LA_BACK		0x02	/* pending again, due in back_in ms */
#define LA_STRAGGLE	0x04	/* the other request is a straggler now */
#define LA_WON		0x08	/* a hedge settled it */
#define LA_DROP		0x10	/* its requests are forgotten */

struct lease {
	enum lease_state state;
	int		 live;		/* a state read of a live block */
	unsigned	 attempts;	/* this one included */
	uint64_t	 sent;		/* its first request */
	uint64_t	 deadline;
	unsigned	 hedges;	/* hedges sent, not counting absents */
	uint64_t	 hedge_at;	/* no hedge before */
	uint64_t	 back_in;	/* LA_BACK: ms until due again */
};

/* What an event needs besides the lease and the clock. */
struct lease_in {
	int		 hedge;		/* the event's request is the hedge */
	enum outcome	 outcome;	/* LE_FAIL */
	int		 at_once;	/* LE_FAIL: retry elsewhere now */
	uint64_t	 hedge_delay;	/* the chain's, for this kind */
	uint64_t	 block_time;	/* ms */
	uint64_t	 request_timeout;	/* ms, LE_HEDGE */
};

void		 lease_start(struct lease *, int live, unsigned attempts,
		    uint64_t request_timeout, uint64_t now);
unsigned	 lease_step(struct lease *, enum lease_event,
		    const struct lease_in *, uint64_t now);
int		 lease_may_hedge(const struct lease *, uint64_t delay,
		    uint64_t now);
int		 lease_active(const struct lease *);
const char	*lease_state_name(enum lease_state);
const char	*lease_event_name(enum lease_event);

uint64_t	 lease_deadline(uint64_t now, uint64_t request_timeout);
int		 lease_expired(uint64_t deadline, uint64_t now);
uint64_t	 lease_retry_at(uint64_t now, unsigned attempts);
uint64_t	 lease_retry_in(int live, unsigned attempts, enum outcome,
		    int at_once, uint64_t block_time);

#endif
