/*
 * Overdue endpoints as one pure judgement (sup_overdue.c): which endpoint
 * of a chain has waited too long for an answer while another answered,
 * before any breaker can know, and when the whole chain is merely slow.
 * No clock of its own, no store, no I/O: sup_judge.c asks and
 * sup_health.c carries out the verdict.
 */
#ifndef CW_SUP_OVERDUE_H
#define CW_SUP_OVERDUE_H

#include <stddef.h>
#include <stdint.h>

#define OVERDUE_MIN_MS		2000	/* never sooner than this */
#define OVERDUE_FACTOR		5	/* times the chain's latency */
#define OVERDUE_QUANTILE	50	/* which latency: the median */
#define OVERDUE_MEDIAN_MAX	64	/* endpoints in the answers' median */
#define OVERDUE_GAP_MS		500	/* a check this late: we were not
					 * watching (the machine starved) */

/* One endpoint of the chain at one instant; times are monotonic ms. */
struct overdue_ep {
	uint64_t	 waiting;	/* its oldest unanswered request went
					 * out (or its worker started and has
					 * not yet answered anything); 0: none */
	uint64_t	 answered;	/* the latest sent of the requests it
					 * answered; 0: none */
	uint64_t	 answered_in;	/* how long that answer took, ms */
};

enum overdue_verdict {
	OV_FINE,	/* nothing overdue, or not yet judged */
	OV_OVERDUE,	/* unresponsive: overdue while another answered */
	OV_SLOW,	/* overdue, but so is every other: the chain is slow */
};

uint64_t	overdue_bound(uint64_t hedge_delay);
enum overdue_verdict overdue_judge(const struct overdue_ep *, size_t n,
		    size_t self, uint64_t bound, uint64_t watched_since,
		    uint64_t now, uint64_t *age);
int		overdue_slow(const struct overdue_ep *, size_t n,
		    uint64_t bound, uint64_t watched_since, uint64_t now,
		    uint64_t *age);
int		overdue_chain_slow(const struct overdue_ep *, size_t n,
		    uint64_t bound, uint64_t watched_since, uint64_t now,
		    uint64_t latency, char *why, size_t len);
uint64_t	overdue_chain_bound(uint64_t latency, uint64_t hedge_after);
uint64_t	overdue_answers_median(const struct overdue_ep *, size_t n);
uint64_t	overdue_watched(uint64_t watched_since, uint64_t last_check,
		    uint64_t now);

#endif
