/*
 * The scheduler's part of the daemon's turn (chainwatchd.c's main_turn,
 * every QUEUE_TICK and at once when kicked, sup_sched.c), which ends
 * with the scheduling: it expires leases, hedges requests out
 * longer than their chain's hedging delay, and leases due items to
 * workers with room, as sup_route.c decides.  A lease (sup_lease.c)
 * covers one item and up to two requests, the first and its hedge; a
 * request whose lease is gone is a straggler, whose answer only counts
 * for its endpoint's health.  Trials of half-open breakers are requests
 * of no lease.  How many requests a worker may have out is its
 * endpoint's adaptive window (sup_depth.c), fed every answer, under the
 * chain's max_inflight; the preferred endpoint has one slot more for
 * live reads (sup_route.c).
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "hex.h"
#include "log.h"
#include "sup_chain.h"
#include "sup_choice.h"
#include "sup_health.h"
#include "sup_lease.h"
#include "sup_load.h"
#include "sup_queue.h"
#include "sup_route.h"
#include "sup_sched_int.h"
#include "sup_spawn.h"
#include "sup_store.h"
#include "sup_tick.h"
#include "util.h"

static uint8_t		 key_difficulty[32], key_now[32];

/* A range's headers by number, or a parent's by hash. */
static void
pack_headers(struct msgbuf *mb, struct worker *w, struct request *r,
    const struct qitem *it, uint32_t deadline)
{
	static struct proto_req_headers q;	/* 10 KB: not on the stack */

	memset(&q, 0, sizeof(q));
	q.id = r->id;
	q.deadline_ms = deadline;
	if (it->kind == K_PARENT) {
		q.by = BY_HASH;
		q.n = 1;
		memcpy(q.hashes[0], it->hash, 32);
		r->hashes = xmalloc(32);
		memcpy(r->hashes[0], it->hash, 32);
	} else {
		q.by = BY_NUMBER;
		for (int64_t n = it->from; n <= it->to && q.n < PROTO_BATCH_MAX;
		    n++)
			q.numbers[q.n++] = (uint64_t)n;
		r->from = it->from;
	}
	r->n = q.n;
	proto_pack_req_headers(mb, w->gen, &q);
}

/*
 * The state owed in a range: each block's difficulty (quantus) and
 * timestamp.  0 if no block of it owes any any more.
 */
static int
pack_state(struct msgbuf *mb, struct worker *w, struct chain *ch,
    struct request *r, const struct qitem *it, uint32_t deadline)
{
	static struct proto_req_storage q;
	int	 quantus = ch->format == FORMAT_QUANTUS;
	size_t	 max = PROTO_READS_MAX / (quantus ? 2 : 1);
	uint8_t	 cand[32];

	memset(&q, 0, sizeof(q));
	q.id = r->id;
	q.deadline_ms = deadline;
	r->hashes = xcalloc(max, 32);
	r->numbers = xcalloc(max, sizeof(*r->numbers));
	r->n = queue_owed_blocks(ch->id, it->from, it->to, quantus,
	    choice_candidate(ch, cand) ? cand : NULL, r->hashes, r->numbers,
	    max);
	if (r->n == 0)
		return 0;
	for (size_t i = 0; i < r->n; i++) {
		if (quantus) {
			memcpy(q.items[q.n].at, r->hashes[i], 32);
			memcpy(q.items[q.n].key, key_difficulty, 32);
			q.items[q.n++].key_len = 32;
		}
		memcpy(q.items[q.n].at, r->hashes[i], 32);
		memcpy(q.items[q.n].key, key_now, 32);
		q.items[q.n++].key_len = 32;
	}
	r->keys = q.n;
	proto_pack_req_storage(mb, w->gen, &q);
	return 1;
}

/* The runtime version at a block. */
static void
pack_runtime(struct msgbuf *mb, struct worker *w, struct request *r,
    const struct qitem *it, uint32_t deadline)
{
	struct proto_req_runtime	q;

	memset(&q, 0, sizeof(q));
	q.id = r->id;
	q.deadline_ms = deadline;
	q.has_at = 1;
	memcpy(q.at, it->hash, 32);
	r->number = it->number;
	r->hashes = xmalloc(32);
	memcpy(r->hashes[0], it->hash, 32);
	r->n = 1;
	proto_pack_req_runtime(mb, w->gen, &q);
}

/*
 * Ask w for item it.  NULL if nothing is owed for it any more (a state
 * item whose blocks were read or left the chain); the caller decides
 * what that means for the item.
 */
static struct request *
item_send(struct worker *w, struct chain *ch, const struct qitem *it,
    uint32_t deadline)
{
	struct msgbuf		 mb;
	struct request		*r;

	r = sched_request_new(w, ch, it->kind);
	switch (it->kind) {
	case K_HEADERS:
	case K_PARENT:
		pack_headers(&mb, w, r, it, deadline);
		break;
	case K_STATE:
		if (!pack_state(&mb, w, ch, r, it, deadline)) {
			sched_request_free(r);
			return NULL;
		}
		break;
	case K_RUNTIME:
		pack_runtime(&mb, w, r, it, deadline);
		break;
	}
	chan_send(&w->chan, &mb);
	return r;
}

/*
 * A breaker's trial: the chain's best header by hash.  It belongs to no
 * lease: its answer only counts for the endpoint's health.
 */
static void
trial_send(struct worker *w, struct chain *ch, uint32_t deadline)
{
	struct qitem	it;

	memset(&it, 0, sizeof(it));
	it.kind = K_PARENT;
	memcpy(it.hash, ch->best_hash, 32);
	it.number = ch->best_number;
	(void)item_send(w, ch, &it, deadline);
	log_debug("w/%s: trial: header #%lld by hash", w->name,
	    (long long)ch->best_number);
}

/* Lease one due item of the chain that f allows to w; 0 if none. */
static int
lease_one(struct worker *w, struct chain *ch, const struct queue_filter *f,
    uint32_t deadline)
{
	struct qitem	 it;
	struct request	*r;
	struct held	*h;
	int		 live;

	if (!queue_next(ch->id, now_wall_ms(), f, &it))
		return 0;
	load_of(ch)->pass.due = -1;	/* what is left may be nothing */
	if (it.kind == K_PARENT &&
	    !queue_parent_needed(ch->id, it.hash, it.number,
	    f->live_from)) {
		char	hx[67];

		hex_encode(it.hash, 32, hx);
		log_info("chain %s: block %.18s... no longer needed (only a "
		    "dead branch below #%lld waits for it); dropped after %u "
		    "attempts", ch->name, hx, (long long)f->live_from,
		    it.attempts - 1);
		queue_done(it.id);
		return 1;
	}
	h = xcalloc(1, sizeof(*h));
	live = route_is_live(&it, f->live_from);
	lease_start(&h->l, live, it.attempts, deadline, now_mono_ms());
	queue_lease(it.id, w->ep->id, sched_shown_deadline(&h->l));
	if ((r = item_send(w, ch, &it, deadline)) == NULL) {
		queue_done(it.id);	/* nothing owed any more */
		free(h);
		return 1;
	}
	h->it = it;
	h->ch = ch;
	h->req[0] = r;
	r->held = h;
	if (live)
		sched_request_live(r);
	h->next = sched_helds;
	sched_helds = h;
	if (live)
		log_debug("w/%s: live %s #%lld leased (%s)", w->name,
		    queue_kind_name(it.kind), (long long)(it.kind == K_STATE ?
		    it.to : it.number), it.again ? "read again" : "preferred");
	else
		log_debug("w/%s: %s item %lld leased", w->name,
		    queue_kind_name(it.kind), (long long)it.id);
	return 1;
}


/* Leases past their deadline: the item goes back; late answers drop. */
static void
expire(void)
{
	struct held	*h, *next;
	uint64_t	 now = now_mono_ms();

	for (h = sched_helds; h != NULL; h = next) {
		struct lease_in	 in;
		struct request	*r;
		unsigned	 act;

		next = h->next;
		if (!lease_expired(h->l.deadline, now) || sched_held_arrived(h))
			continue;
		r = h->req[0] != NULL ? h->req[0] : h->req[1];
		memset(&in, 0, sizeof(in));
		in.block_time = h->ch->block_time;
		act = lease_step(&h->l, LE_EXPIRE, &in, now);
		sched_lease_apply(h, act, OUTCOME_TIMEOUT, "lease expired",
		    r != NULL ? r->w->ep->id : 0);
	}
}

/* Requests out longer than their chain's hedging delay: ask again. */
static void
hedge(void)
{
	uint64_t	now = now_mono_ms(), wall = now_wall_ms();

	load_pass++;
	for (struct held *h = sched_helds; h != NULL; h = h->next) {
		struct request	*r = h->req[0], *g;
		struct route_ep	*eps;
		struct worker	**who;
		struct lease_in	 in;
		size_t		 n, self;
		int		 t;

		if (r == NULL || sched_held_arrived(h) ||
		    !lease_may_hedge(&h->l, load_of(h->ch)->hedging.delay[h->it.kind],
		    now))
			continue;
		n = load_route_eps(h->ch, r->w, wall, &eps, &who, &self);
		t = route_hedge_target(eps, n, self, load_of(h->ch)->max_inflight,
		    &h->it, h->l.live);
		if (t == -1)
			continue;
		memset(&in, 0, sizeof(in));
		in.request_timeout = load_of(h->ch)->request_timeout;
		if ((g = item_send(who[t], h->ch, &h->it,
		    (uint32_t)load_of(h->ch)->request_timeout)) == NULL) {
			/* Read meanwhile in full: the first answer settles. */
			(void)lease_step(&h->l, LE_NO_HEDGE, &in, now);
			continue;
		}
		g->held = h;
		g->hedge = 1;
		if (h->l.live)
			sched_request_live(g);
		h->req[1] = g;
		(void)lease_step(&h->l, LE_HEDGE, &in, now);
		stats_hedge(&who[t]->ep->stats);
		route_hedged(&load_of(h->ch)->hedging, 0);
		queue_extend(h->it.id, sched_shown_deadline(&h->l));
		log_debug("w/%s: %s item %lld out for %llu ms on w/%s; "
		    "hedged", who[t]->name, queue_kind_name(h->it.kind),
		    (long long)h->it.id, (unsigned long long)(now - h->l.sent),
		    r->w->name);
	}
}

/* The route for w now, as the due query wants it. */
static void
filter_for(struct worker *w, struct chain *ch, struct queue_filter *f)
{
	struct route_ep	*eps;
	struct worker	**who;
	size_t		 n, self;

	n = load_route_eps(ch, w, now_wall_ms(), &eps, &who, &self);
	if (self == SIZE_MAX) {
		/* Not usable: it takes nothing live. */
		memset(f, 0, sizeof(*f));
		f->pruning_bound = w->ep->pruning_bound;
		f->live_from = route_live_from(ch->have_best, ch->best_number);
		f->pref_id = f->not_id = f->wrong_id = f->prune_floor =
		    f->disputed_id = -1;
		return;
	}
	route_filter(eps, n, self, route_live_from(ch->have_best,
	    ch->best_number), load_of(ch)->max_inflight, f);
	/*
	 * While the checkpoints catch up with the WAL, a backfill's answers
	 * wait (sup_store.c): no more of them is asked for meanwhile, or
	 * they would fill the daemon's memory while a reader holds the WAL.
	 */
	if (store_wal_behind())
		f->live_only = 1;
}

static int
all_open(struct chain *ch, struct worker *w)
{
	struct route_ep	*eps;
	struct worker	**who;
	size_t		 n, self;

	n = load_route_eps(ch, w, now_wall_ms(), &eps, &who, &self);
	return route_all_open(eps, n);
}

/* How many requests w may have out now: 0 if it is not usable. */
static unsigned
limit_for(struct chain *ch, struct worker *w)
{
	struct route_ep	*eps;
	struct worker	**who;
	size_t		 n, self;

	n = load_route_eps(ch, w, now_wall_ms(), &eps, &who, &self);
	return self == SIZE_MAX ? 0 : route_limit(eps, n, self,
	    load_of(ch)->max_inflight);
}

static void
schedule(void)
{
	int	progress = 1;

	load_pass++;

	/*
	 * Trials first, whether or not work is due: an endpoint back from
	 * its cooldown is asked for the chain's best header by hash, a real
	 * request, but not one that owed work waits on.  (Before a best
	 * block is known, a due item is the trial.)
	 */
	for (struct worker *w = sup_workers; w != NULL; w = w->next) {
		struct chain		*ch;
		struct queue_filter	 f;
		unsigned		 limit = 1;
		uint32_t		 deadline;

		if (w->proc.fsm.state != CS_RUNNING || !health_usable(w->ep) ||
		    w->load.inflight > 0 ||
		    breaker_peek(&w->ep->brk, now_wall_ms()) != BRK_TRIAL ||
		    (ch = w->ep->ch) == NULL ||
		    (!ch->have_best && !load_has_due(ch)))
			continue;
		deadline = (uint32_t)load_of(ch)->request_timeout;
		if (!health_allow(w->ep, 0, 1, &limit, &deadline))
			continue;
		if (ch->have_best) {
			trial_send(w, ch, deadline);
			continue;
		}
		filter_for(w, ch, &f);
		f.may_live = 1;
		(void)lease_one(w, ch, &f, deadline);
	}
	while (progress) {
		progress = 0;
		for (struct worker *w = sup_workers; w != NULL; w = w->next) {
			struct chain		*ch;
			struct queue_filter	 f;
			unsigned		 limit;
			uint32_t		 deadline;

			if (w->proc.fsm.state != CS_RUNNING ||
			    !health_usable(w->ep) ||
			    (ch = w->ep->ch) == NULL ||
			    w->load.inflight >= load_of(ch)->max_inflight)
				continue;
			deadline = (uint32_t)load_of(ch)->request_timeout;
			/* No work, no trial taken for nothing. */
			if (!load_has_due(ch) ||
			    w->load.inflight >= (limit = limit_for(ch, w)))
				continue;
			if (!health_allow(w->ep, all_open(ch, w),
			    w->load.inflight == 0, &limit, &deadline) ||
			    w->load.inflight >= limit)
				continue;
			filter_for(w, ch, &f);
			if (lease_one(w, ch, &f, deadline))
				progress = 1;
		}
	}
}

/*
 * Each chain's endpoints usable now and not failing: a branch switch
 * waits for a second endpoint's reads only while there is one.
 */
static void
count_usable(void)
{
	struct chain	*ch;

	sup_chains_usable_reset();
	for (struct worker *w = sup_workers; w != NULL; w = w->next)
		if (w->proc.fsm.state == CS_RUNNING && health_usable(w->ep) &&
		    !breaker_failing(&w->ep->brk) &&
		    (ch = w->ep->ch) != NULL)
			ch->usable++;
}

/*
 * The scheduler's part of the daemon's turn (chainwatchd.c's main_turn
 * says the order): endpoints counted, expired leases back, hedges, new
 * work leased.
 */
void
tick_work(void)
{
	count_usable();
	expire();
	hedge();
	schedule();
}

void
tick_init(void (*turn)(struct ev_loop *, ev_timer *, int))
{
	storage_key("QPoW", "CurrentDifficulty", key_difficulty);
	storage_key("Timestamp", "Now", key_now);
	queue_init();
	sched_start(turn);
}

