/*
 * Floods of one log line, held back (src/logflood.c): each message
 * template (its format string) may log LOGFLOOD_BURST lines per
 * LOGFLOOD_WINDOW_MS; the lines beyond are counted, not printed, and told
 * in one line ("... 967 more like ... in 10 ms") once that window is over
 * and a line is logged, or when the program flushes.  The first lines of
 * a flood go out at once.  Pure: the clock is passed in.
 */
#ifndef CW_LOGFLOOD_H
#define CW_LOGFLOOD_H

#include <stdint.h>

#define LOGFLOOD_BURST		20
#define LOGFLOOD_WINDOW_MS	1000
#define LOGFLOOD_SLOTS		32	/* templates followed at once */
#define LOGFLOOD_SAMPLE		72	/* bytes of a line kept, NUL included */

struct logflood_slot {
	uint64_t	 key;
	int		 used;
	int		 level;		/* of its lines */
	uint64_t	 start_ms;	/* of its window */
	unsigned	 lines;		/* that went out in the window */
	unsigned	 held;		/* held back, not told yet */
	uint64_t	 held_first_ms, held_last_ms;
	uint64_t	 last_ms;	/* its last line, for eviction */
	char		 sample[LOGFLOOD_SAMPLE];	/* its last line out */
};

struct logflood {
	struct logflood_slot slot[LOGFLOOD_SLOTS];
};

/* Lines held back, to be told: how many, over what span, like what. */
struct logflood_report {
	int		 level;
	unsigned	 n;
	uint64_t	 span_ms;
	char		 sample[LOGFLOOD_SAMPLE];
};

/* The key of a template: its text, or the line itself for "%s". */
uint64_t	logflood_key(const char *fmt, const char *line, int level);
/*
 * 1: the line goes out now; 0: it is held back and counted.  A template
 * not followed yet may take the slot of another whose held lines are
 * then in *evicted (n = 0 when none) and must be told first.
 */
int		logflood_pass(struct logflood *, uint64_t key, int level,
		    const char *line, uint64_t now_ms,
		    struct logflood_report *evicted);
/*
 * One report of lines held in a window that is over by now_ms (or of any
 * held lines, if all is set); 0 when there is none left.  Call until 0.
 */
int		logflood_take(struct logflood *, uint64_t now_ms, int all,
		    struct logflood_report *);

#endif
