/*
 * The scheduler (sup_sched.c, sup_tick.c): leases due queue items to
 * workers as the router decides, sends the requests, hedges and expires
 * them; answers are matched to their requests in sup_reply.c.  What the
 * rest of the daemon tells it is here.
 */
#ifndef CW_SUP_SCHED_H
#define CW_SUP_SCHED_H

struct endpoint;
struct worker;

void	sched_stop(void);
/* After a rollback: forget requests and leases; the store releases them. */
void	sched_reset(void);
void	sched_kick(void);
void	sched_back(const struct endpoint *);
void	sched_worker_gone(struct worker *);
void	sched_health(struct worker *, unsigned health_act);
/* Parts of the daemon's turn (chainwatchd.c's main_turn). */
void	sched_release_owed(void);

#endif
