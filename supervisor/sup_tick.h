/*
 * The scheduler's tick (sup_tick.c): the supervisor's periodic work.
 */
#ifndef CW_SUP_TICK_H
#define CW_SUP_TICK_H

void	tick_init(void);

#endif
