/*
 * Repeated log lines, rate-limited (src/ratelimit.c): at most one line of
 * a kind per interval; the lines held back meanwhile are counted, and told
 * in one line ("... 967 more in 10 ms") when the next line may go out or
 * when the caller's timer asks.  Pure: the clock is passed in.
 */
#ifndef CW_RATELIMIT_H
#define CW_RATELIMIT_H

#include <stdint.h>

struct ratelimit {
	uint64_t	 interval_ms;
	int		 logged;	/* a line went out at last_ms */
	uint64_t	 last_ms;
	unsigned	 held;		/* lines held back since */
	uint64_t	 held_first_ms;
	uint64_t	 held_last_ms;
};

#define RATELIMIT_INIT(ms)	{ (ms), 0, 0, 0, 0, 0 }

/* 1: this line may go out now; 0: it is held back and counted. */
int		 ratelimit_pass(struct ratelimit *, uint64_t now_ms);
/*
 * The lines held back and the span from the first to the last of them
 * (span_ms may be NULL); forgets them.  0 if none.
 */
unsigned	 ratelimit_take(struct ratelimit *, uint64_t *span_ms);
/* When the caller should call ratelimit_take, if lines are held. */
uint64_t	 ratelimit_due(const struct ratelimit *);

#endif
