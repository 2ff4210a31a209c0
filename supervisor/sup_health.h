/*
 * Endpoints as the supervisor judges them (sup_health.c): each one's
 * availability (sup_endpoint.c), its breaker (sup_breaker.c), its
 * pruning bound and counters, kept in the store's endpoints table so that
 * a restart does not flood a host known to be bad.  This file owns
 * struct endpoint; the others read it and ask here for every change.
 */
#ifndef CW_SUP_HEALTH_H
#define CW_SUP_HEALTH_H

#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "proto.h"
#include "sup_breaker.h"
#include "sup_endpoint.h"
#include "sup_stats.h"

struct chain;

#define HEALTH_SHORT_TIMEOUT_MS	2000	/* when every endpoint is open */

struct endpoint {
	char		 name[CONF_NAME_MAX + 1];
	struct chain	*ch;		/* the chain it serves */
	int64_t		 id;		/* its row in the store */
	int		 position;	/* in its chain's config: preference */
	struct ep_avail	 av;
	struct breaker	 brk;
	int64_t		 pruning_bound;	/* no state at or below; -1 none */
	struct wstats	 stats;
	uint64_t	 answered;	/* monotonic ms: the latest sent of
					 * what it answered (facts, probes,
					 * the scheduler's requests) */
	uint64_t	 answered_in;	/* ms that answer took */
	uint64_t	 started;	/* its worker's start, until its facts:
					 * it has answered nothing yet */
	uint64_t	 poll_ms;	/* how often its worker probes it */
	uint64_t	 poll_ok;	/* its last probe answered then */
	uint64_t	 poll_lost;	/* the first probe unanswered since
					 * went out then; 0: none */
};

/* What a change means for the caller: see EPA_* in sup_endpoint.h. */
#define HEALTH_BACK	EPA_READY	/* usable again: due work now */
#define HEALTH_GONE	EPA_GONE	/* not usable: release its leases */
#define HEALTH_QUARANTINED EPA_QUARANTINE	/* newly: say why */

struct endpoint	*health_new(const struct conf_chain *,
		    const struct conf_endpoint *);
void		 health_free(struct endpoint *);
void		 health_reconf(struct endpoint *, const struct conf_chain *,
		    const struct conf_endpoint *);
int		 health_usable(const struct endpoint *);
int		 health_heard(const struct endpoint *);

/* Its claims against the others' (sup_chain.c's evidence, and answers). */
unsigned	 sup_health_contradicted(struct endpoint *, const char *reason);
unsigned	 sup_health_agrees(struct endpoint *);
unsigned	 health_doubted(struct endpoint *const *, size_t,
		    const char *chain, uint64_t patience);

unsigned	 health_overdue(struct endpoint *, uint64_t waiting,
		    uint64_t age);
uint64_t	 health_waiting(const struct endpoint *, uint64_t now);
void		 health_polled(struct endpoint *, enum outcome,
		    uint64_t latency);
/* retry_ms: a rate_limited answer's Retry-After, 0 for none. */
unsigned	 health_outcome(struct endpoint *, uint32_t gen, enum outcome,
		    uint64_t retry_ms);
unsigned	 health_probe(struct endpoint *, enum outcome, uint64_t retry_ms);
void		 health_peer(const struct endpoint *, struct brk_peer *);
unsigned	 health_peers(struct endpoint *, const struct brk_peer *,
		    size_t n);
int		 health_allow(struct endpoint *, int all_open, int idle,
		    unsigned *limit, uint32_t *deadline);

unsigned	 health_spawned(struct endpoint *);
void		 health_info(struct endpoint *, const struct proto_info *);
unsigned	 health_facts(struct endpoint *, const char *system_chain);
unsigned	 health_wrong_chain(struct endpoint *, const char *why);
unsigned	 health_lost(struct endpoint *, const char *why);
unsigned	 health_exited(struct endpoint *);

void		 health_event(struct endpoint *, const char *kind,
		    const char *detail);
void		 health_restarts(struct endpoint *, unsigned);
void		 health_pruned(struct endpoint *, int64_t number);

int64_t		 health_sync(const struct conf *);

#endif
