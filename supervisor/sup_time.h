/*
 * Timestamps are claims (sup_time.c).  A quantus block's time must come
 * at least the minimum period after its parent's (qpow_min_period: 100
 * ms at Quantus's 12 s) and at most 30 s past this clock (sup_reply.c
 * checks that one); no node imports a block that breaks either.
 *
 *   the parent's time was answered by   a child's time breaks the period
 *   the same endpoint                   its answerer judged; the block's
 *                                       state not stored, read again by
 *                                       another endpoint
 *   another endpoint                    one of the two lies: the block's
 *                                       state not stored, read again by
 *                                       another endpoint
 *
 * A block's first time stays (a second read does not replace it).  A
 * child whose time came before its parent's is checked when the
 * parent's comes (time_children): the same two cases, the child's time
 * dropped and read again.
 *
 * When every endpoint of the chain breaks a rule within TIME_WINDOW_MS
 * (these two, or the retarget rule of sup_retarget.h), the rule or this
 * clock is suspected instead: said once (log; chains.rule_doubt for
 * status, or chains.retarget for the retarget rule), nobody judged, the
 * answers taken, until TIME_WINDOW_MS passes without a break.
 */
#ifndef CW_SUP_TIME_H
#define CW_SUP_TIME_H

#include <stdint.h>

#define TIME_WINDOW_MS		60000
#define TIME_BROKE_MAX		64

struct chain;
struct sblock;

enum time_rule {
	TIME_RULE_PERIOD,	/* at least the minimum period after the parent */
	TIME_RULE_CLOCK,	/* at most 30 s past this clock */
	TIME_RULE_RETARGET,	/* the difficulty as sup_retarget.c recomputes */
	TIME_RULE_COUNT
};

struct time_watch {
	/* The time stored last, at which block, from whom: the parent of
	 * the next block of a range, read without the store. */
	int		have_last;
	uint8_t		last_hash[32];
	int64_t		last_ts;
	int64_t		last_ep;
	/* Per rule: the endpoints that broke it since since (ms), and the
	 * last break; doubt: all of them did. */
	struct time_broke {
		int64_t		eps[TIME_BROKE_MAX];
		size_t		n;
		uint64_t	since, last;
		int		doubt;
	}		rule[TIME_RULE_COUNT];
};

/*
 * b's timestamp ts, answered by endpoint_id (0: nobody), about to be
 * stored: 0 to store it, -1 if it breaks the minimum period after its
 * parent's (judged and read again as the table above says).
 */
int	time_check(struct chain *, const struct sblock *b, int64_t ts,
	    int64_t endpoint_id, uint64_t now);
/*
 * ts was stored as b's time, from endpoint_id: a child whose time came
 * first and is too soon after it is read again (its time dropped, and
 * its answerer judged, when that answered b's too).
 */
void	time_children(struct chain *, const struct sblock *b, int64_t ts,
	    int64_t endpoint_id, uint64_t now);
/* ts is stored as b's time, from endpoint_id. */
void	time_stored(struct chain *, const uint8_t hash[32], int64_t ts,
	    int64_t endpoint_id);
/*
 * endpoint_id broke rule at now: 0, or, when every endpoint of the chain
 * has within TIME_WINDOW_MS, the rule in doubt so that nobody is judged
 * for it: 2 when the doubt begins (why is said in the log, and for the
 * timestamps' rules in chains.rule_doubt), 1 while it lasts.
 */
int	time_broke(struct chain *, enum time_rule, int64_t endpoint_id,
	    uint64_t now, const char *why);
/*
 * An answer that keeps rule: a doubt with no break for the window ends
 * (1; said in the log, and chains.rule_doubt cleared when no rule of
 * timestamps is in doubt).
 */
int	time_kept(struct chain *, enum time_rule, uint64_t now);

#endif
