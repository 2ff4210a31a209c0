/*
 * The scheduler's tick (sup_tick.c): leasing, hedging and expiring the
 * queue's work, one part of the daemon's turn (chainwatchd.c).
 */
#ifndef CW_SUP_TICK_H
#define CW_SUP_TICK_H

#include <ev.h>

/* The turn runs at every tick and whenever sched_kick asks for one. */
void	tick_init(void (*turn)(struct ev_loop *, ev_timer *, int));
void	tick_work(void);

#endif
