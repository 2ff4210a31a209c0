/*
 * A chain's reach and the windows of ranges queued above and below it
 * (sup_window.c).
 */
#ifndef CW_SUP_WINDOW_H
#define CW_SUP_WINDOW_H

#include <stdint.h>

struct chain;

int64_t		 window_growth(const struct chain *, uint64_t at, uint64_t now);
int64_t		 window_reach(const struct chain *, uint64_t now);
void		 window_shrink(struct chain *);
void		 window_up(struct chain *);
void		 window_down(struct chain *);

#endif
