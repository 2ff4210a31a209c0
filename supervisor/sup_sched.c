/*
 * The scheduler's requests and leases: each request out to a worker and
 * the lease it serves, from sending to settling; what the rest of the
 * daemon tells the scheduler (kick, an endpoint back, a worker gone, a
 * rollback); and the timer that runs the tick (sup_tick.c).
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainwatchd.h"
#include "log.h"
#include "sup_chain.h"
#include "sup_health.h"
#include "sup_lease.h"
#include "sup_load.h"
#include "sup_queue.h"
#include "sup_route.h"
#include "sup_sched.h"
#include "sup_sched_int.h"
#include "sup_spawn.h"
#include "util.h"

#define QUEUE_TICK	0.05	/* seconds */

static struct request	*requests;
struct held		*sched_helds;
uint64_t		 sched_next_req = 1;
static ev_timer		 tick;
/* Leases forgotten (sched_reset); the store's to release at the tick. */
int			 sched_reset_owed;

struct request *
sched_request_new(struct worker *w, struct chain *ch, enum item_kind kind)
{
	struct request	*r = xcalloc(1, sizeof(*r));

	r->id = sched_next_req++;
	r->w = w;
	r->ch = ch;
	r->kind = kind;
	r->brk_gen = w->ep->brk.gen;
	r->sent = now_mono_ms();
	r->next = requests;
	requests = r;
	w->load.inflight++;
	load_changed(w);
	return r;
}

void
sched_request_free(struct request *r)
{
	struct request	**pp;

	for (pp = &requests; *pp != NULL; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	if (r->held != NULL)
		r->held->req[r->hedge] = NULL;
	if (r->w->load.inflight > 0)
		r->w->load.inflight--;
	if (r->live && r->w->load.live > 0)
		r->w->load.live--;
	load_changed(r->w);
	free(r->hashes);
	free(r->numbers);
	free(r);
}

/* r reads a live block: it takes the live reads' slot (sup_route.c). */
void
sched_request_live(struct request *r)
{
	r->live = 1;
	r->w->load.live++;
	load_changed(r->w);
}

static void
held_free(struct held *h)
{
	struct held	**pp;

	for (pp = &sched_helds; *pp != NULL; pp = &(*pp)->next)
		if (*pp == h) {
			*pp = h->next;
			break;
		}
	for (int i = 0; i < 2; i++)
		if (h->req[i] != NULL)
			h->req[i]->held = NULL;
	free(h);
}

/* The wall-clock deadline the store shows people for a lease. */
uint64_t
sched_shown_deadline(const struct lease *l)
{
	uint64_t	now = now_mono_ms();

	return now_wall_ms() + (l->deadline > now ? l->deadline - now : 0);
}

/* Carry out what a lease transition asks for. */
void
sched_lease_apply(struct held *h, unsigned act, enum outcome o, const char *why,
    int64_t endpoint)
{
	if (act & LA_DONE)
		queue_done(h->it.id);
	if (act & LA_BACK)
		queue_back(h->it.id, now_wall_ms() + h->l.back_in, o, why,
		    endpoint);
	if (act & LA_WON)
		route_hedged(&load_of(h->ch)->hedging, 1);
	if (act & LA_DROP)
		for (int i = 0; i < 2; i++)
			if (h->req[i] != NULL)
				sched_request_free(h->req[i]);
	/* LA_STRAGGLE: what is still out answers for its endpoint only. */
	if (!lease_active(&h->l))
		held_free(h);
}

/*
 * w's endpoint may no longer work, and its worker still runs: its leases
 * go back at once, with no failure counted.  Its requests answer on as
 * stragglers, for the endpoint's health only.
 */
static void
release(struct worker *w)
{
	struct request	*r, *next;

	for (r = requests; r != NULL; r = next) {
		struct held	*h = r->held;
		struct lease_in	 in;
		unsigned	 act;

		next = r->next;
		if (r->w != w || h == NULL)
			continue;
		h->req[r->hedge] = NULL;
		r->held = NULL;
		memset(&in, 0, sizeof(in));
		in.hedge = r->hedge;
		in.outcome = OUTCOME_OK;
		in.at_once = 1;
		in.hedge_delay = load_of(h->ch)->hedging.delay[h->it.kind];
		in.block_time = h->ch->block_time;
		act = lease_step(&h->l, LE_FAIL, &in, now_mono_ms());
		log_info("w/%s: %s item %lld given back: the endpoint is %s",
		    w->name, queue_kind_name(h->it.kind),
		    (long long)h->it.id, ep_state_name(w->ep->av.state));
		sched_lease_apply(h, act, OUTCOME_OK, "endpoint not usable",
		    w->ep->id);
		next = requests;	/* its twin may have gone with it */
	}
}

/* Since when w waits for an answer, monotonic ms; 0: it does not. */
uint64_t
sched_waiting(const struct worker *w)
{
	uint64_t	t = health_waiting(w->ep, now_mono_ms());

	for (const struct request *r = requests; r != NULL; r = r->next)
		if (r->w == w && r->arrived == 0 && (t == 0 || r->sent < t))
			t = r->sent;
	return t;
}

/* Run the scheduler soon: new work or a free worker. */
void
sched_kick(void)
{
	/* Before sched_init the first tick comes from it anyway. */
	if (sup_loop == NULL || ev_cb(&tick) == NULL)
		return;
	/*
	 * Not later than it comes already: a kick at every answer stored
	 * would put it off turn after turn while a backfill's answers are
	 * taken, and nothing would be leased meanwhile, live reads included.
	 */
	if (ev_is_pending(&tick) || (ev_is_active(&tick) &&
	    ev_timer_remaining(sup_loop, &tick) <= 0.001))
		return;
	ev_timer_stop(sup_loop, &tick);
	ev_timer_set(&tick, 0.001, QUEUE_TICK);
	ev_timer_start(sup_loop, &tick);
}

/*
 * An endpoint is usable again (its breaker closed, its worker is back):
 * what waits out a backoff earned while endpoints failed is due now.
 */
void
sched_back(const struct endpoint *e)
{
	struct chain	*ch = e->ch;

	if (ch == NULL)
		return;
	queue_retry_now(ch->id, now_wall_ms());
	sched_kick();
}

/*
 * What a change of an endpoint's health asks of the scheduler: every
 * action of sup_health.c's comes here.  Not usable any more: its leases
 * go back (a worker that died had its requests failed already, in
 * sched_worker_gone); usable again: what waits out a backoff is due.
 */
void
sched_health(struct worker *w, unsigned act)
{
	if (act & HEALTH_GONE)
		release(w);
	if (act & HEALTH_BACK)
		sched_back(w->ep);
}

/* A worker died or was restarted: its requests fail now. */
void
sched_worker_gone(struct worker *w)
{
	struct request	*r, *next;

	for (r = requests; r != NULL; r = next) {
		next = r->next;
		if (r->w != w)
			continue;
		if (r->held != NULL) {
			struct held	*h = r->held;
			struct lease_in	 in;
			unsigned	 act;

			memset(&in, 0, sizeof(in));
			in.hedge = r->hedge;
			in.outcome = OUTCOME_TRANSPORT;
			in.hedge_delay = load_of(h->ch)->hedging.delay[h->it.kind];
			in.block_time = h->ch->block_time;
			act = lease_step(&h->l, LE_FAIL, &in, now_mono_ms());
			/* Its twin may be next: free it first if dropped. */
			sched_request_free(r);
			sched_lease_apply(h, act, OUTCOME_TRANSPORT,
			    "worker died", w->ep->id);
			next = requests;	/* the list may have changed */
			continue;
		}
		sched_request_free(r);
	}
	w->load.inflight = 0;
}

struct request *
sched_request_find(struct worker *w, uint64_t id)
{
	for (struct request *r = requests; r != NULL; r = r->next)
		if (r->id == id && r->w == w)
			return r;
	return NULL;
}

/* One of h's requests has its answer waiting in the daemon. */
int
sched_held_arrived(const struct held *h)
{
	return (h->req[0] != NULL && h->req[0]->arrived != 0) ||
	    (h->req[1] != NULL && h->req[1]->arrived != 0);
}


/* Run cb every QUEUE_TICK, and soon when kicked. */
void
sched_start(void (*cb)(struct ev_loop *, ev_timer *, int))
{
	ev_init(&tick, cb);
	tick.repeat = QUEUE_TICK;
	ev_timer_again(sup_loop, &tick);
}

/*
 * A transaction was rolled back: the leases it took or settled are not
 * what the store holds.  Forget every request and lease (answers still
 * coming are dropped as late) and, once the store takes writes again,
 * give every leased item back: it is asked for again.
 */
void
sched_reset(void)
{
	while (requests != NULL)
		sched_request_free(requests);
	while (sched_helds != NULL)
		held_free(sched_helds);
	for (struct worker *w = sup_workers; w != NULL; w = w->next)
		w->load.inflight = 0;
	sched_reset_owed = 1;
}

/* Leases a rollback left owed go back, once the store takes writes. */
void
sched_release_owed(void)
{
	if (!sched_reset_owed)
		return;
	queue_release_leases();
	sched_reset_owed = 0;
}

void
sched_stop(void)
{
	ev_timer_stop(sup_loop, &tick);
	while (requests != NULL)
		sched_request_free(requests);
	while (sched_helds != NULL)
		held_free(sched_helds);
	load_forget();
}
