/*
 * A worker's load as the scheduler keeps it: its requests out, its
 * adaptive window, and its place in the route pass, the usable endpoints
 * of a chain as the router sees them, kept exact through a pass.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "sup_chain.h"
#include "sup_health.h"
#include "sup_load.h"
#include "sup_queue.h"
#include "sup_route.h"
#include "sup_spawn.h"
#include "util.h"

/* The window keeps one class of latency per kind of item. */
_Static_assert(DEPTH_CLASSES >= ITEM_KINDS, "a depth class per item kind");

/*
 * w's window, started at its first scheduling and following the chain's
 * max_inflight (a reload changes it) after that.
 */
struct depth *
load_depth(struct worker *w, const struct chain *ch)
{
	unsigned	cap = load_of(ch)->max_inflight;

	if (w->load.depth.cap == 0)
		depth_init(&w->load.depth, cap, now_mono_ms());
	else if (w->load.depth.cap != cap)
		depth_set_cap(&w->load.depth, cap);
	return &w->load.depth;
}

/* What the scheduler keeps of each chain, made at its first use. */
static struct chain_load	**loads;
static size_t			 n_loads;
unsigned			 load_pass = 1;

struct chain_load *
load_of(const struct chain *ch)
{
	struct chain_load	*l;

	for (size_t i = 0; i < n_loads; i++)
		if (loads[i]->ch == ch)
			return loads[i];
	loads = xrealloc(loads, (n_loads + 1) * sizeof(*loads));
	l = loads[n_loads++] = xcalloc(1, sizeof(*l));
	l->ch = ch;
	return l;
}

void
load_conf(const struct conf *conf)
{
	for (size_t i = 0; i < conf->n_chains; i++) {
		const struct conf_chain	*cc = &conf->chains[i];
		struct chain		*ch = sup_chain_find(cc->name);
		struct chain_load	*l;

		if (ch == NULL)
			continue;
		l = load_of(ch);
		l->request_timeout = cc->request_timeout;
		l->max_inflight = (unsigned)cc->max_inflight;
		route_hedging_conf(&l->hedging, (unsigned)cc->hedge_quantile,
		    cc->hedge_after);
	}
}

/* After a rollback: the route passes are built again; the rest is kept. */
void
load_forget(void)
{
	for (size_t i = 0; i < n_loads; i++) {
		struct route_pass	*rp = &loads[i]->pass;

		free(rp->e);
		free(rp->ws);
		memset(rp, 0, sizeof(*rp));
	}
}

/* w's requests out changed: its place in this pass's route follows. */
void
load_changed(struct worker *w)
{
	for (size_t i = 0; i < n_loads; i++) {
		struct route_pass *rp = &loads[i]->pass;

		if (rp->pass == load_pass && w->load.pass == load_pass &&
		    w->load.slot < rp->n && rp->ws[w->load.slot] == w) {
			rp->e[w->load.slot].inflight = w->load.inflight;
			rp->e[w->load.slot].live = w->load.live;
		}
	}
}

/* The usable endpoints of ch as the router sees them; *self is w's. */
size_t
load_route_eps(const struct chain *ch, const struct worker *w, uint64_t now,
    struct route_ep **eps, struct worker ***who, size_t *self)
{
	struct route_pass	*rp = &load_of(ch)->pass;
	uint64_t		 mono = now_mono_ms();

	if (rp->pass != load_pass) {
		rp->pass = load_pass;
		rp->n = 0;
		rp->due = -1;
		for (size_t i = 0; i < ch->n_workers; i++) {
			struct worker	*o = ch->workers[i];
			struct route_ep *e;

			if (o->proc.fsm.state != CS_RUNNING ||
			    !health_usable(o->ep))
				continue;
			if (rp->n == rp->cap) {
				rp->cap = rp->cap == 0 ? 16 : rp->cap * 2;
				rp->e = xrealloc(rp->e, rp->cap *
				    sizeof(*rp->e));
				rp->ws = xrealloc(rp->ws, rp->cap *
				    sizeof(*rp->ws));
			}
			e = &rp->e[rp->n];
			e->id = o->ep->id;
			e->position = o->ep->position;
			e->inflight = o->load.inflight;
			e->live = o->load.live;
			e->window = depth_window(load_depth(o, ch), mono);
			e->verdict = breaker_peek(&o->ep->brk, now);
			e->failing = breaker_failing(&o->ep->brk);
			e->pruning_bound = o->ep->pruning_bound;
			o->load.pass = load_pass;
			o->load.slot = rp->n;
			rp->ws[rp->n++] = o;
		}
	}
	*self = w != NULL && w->load.pass == load_pass &&
	    w->load.slot < rp->n && rp->ws[w->load.slot] == w ?
	    w->load.slot : SIZE_MAX;
	/*
	 * Its own entry as of now: a trial it took changes its verdict, an
	 * answer whether it is failing.
	 */
	if (*self != SIZE_MAX) {
		rp->e[*self].verdict = breaker_peek(&w->ep->brk, now);
		rp->e[*self].failing = breaker_failing(&w->ep->brk);
	}
	*eps = rp->e;
	*who = rp->ws;
	return rp->n;
}

/* Has ch work due?  Asked of the queue once a pass and after leases. */
int
load_has_due(struct chain *ch)
{
	struct route_pass	*rp = &load_of(ch)->pass;

	if (rp->pass != load_pass) {
		struct route_ep	*eps;
		struct worker	**who;
		size_t		 self;

		(void)load_route_eps(ch, NULL, now_wall_ms(), &eps, &who,
		    &self);
	}
	if (rp->due == -1)
		rp->due = queue_has_due(ch->id, now_wall_ms());
	return rp->due;
}
