/*
 * The scheduler: every QUEUE_TICK, and at once when kicked, it expires
 * leases, hedges requests out longer than their chain's hedging delay,
 * and leases due items to workers with room, as sup_route.c decides.  A
 * lease (sup_lease.c) covers one item and up to two requests, the first
 * and its hedge; a request whose lease is gone is a straggler, whose
 * answer only counts for its endpoint's health.  Trials of half-open
 * breakers are requests of no lease.  How many requests a worker may
 * have out is its endpoint's adaptive window (sup_depth.c), fed every
 * answer, under the chain's max_inflight; the preferred endpoint has
 * one slot more for live reads (sup_route.c).
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainwatchd.h"
#include "hash.h"
#include "hex.h"
#include "log.h"
#include "sup_answer.h"
#include "sup_block.h"
#include "sup_chain.h"
#include "sup_choice.h"
#include "sup_claim.h"
#include "sup_health.h"
#include "sup_lease.h"
#include "sup_overdue.h"
#include "sup_primary.h"
#include "sup_queue.h"
#include "sup_route.h"
#include "sup_sched.h"
#include "sup_spawn.h"
#include "sup_store.h"
#include "util.h"

#define QUEUE_TICK	0.05	/* seconds */

/* The window keeps one class of latency per kind of item. */
_Static_assert(DEPTH_CLASSES >= ITEM_KINDS, "a depth class per item kind");

/* A request out to a worker. */
struct request {
	struct request	*next;
	uint64_t	 id;
	struct worker	*w;
	struct chain	*ch;
	struct held	*held;		/* its lease; NULL: straggler, trial */
	int		 hedge;		/* the hedge of its lease's first */
	int		 live;		/* counted in its worker's load.live */
	enum item_kind	 kind;
	uint32_t	 brk_gen;	/* the breaker's when it was sent */
	uint64_t	 sent;		/* monotonic ms */
	uint64_t	 arrived;	/* its answer came, waits; 0: not yet */
	size_t		 n;		/* state: blocks asked about */
	uint8_t		(*hashes)[32];
	int64_t		*numbers;	/* state: their numbers */
	int64_t		 number;	/* runtime: the block's number */
	int64_t		 from;		/* headers: the first number asked */
	size_t		 keys;		/* state: storage keys asked */
};

/* A lease as the scheduler holds it: its item and its requests out. */
struct held {
	struct held	*next;
	struct lease	 l;
	struct qitem	 it;
	struct chain	*ch;
	struct request	*req[2];	/* the first, and its hedge */
};

static struct request	*requests;
static struct held	*helds;
static uint64_t		 next_req = 1;
static ev_timer		 tick;
static uint8_t		 key_difficulty[32], key_now[32];
static struct store_stmt s_slow = { "UPDATE chains SET slow_reason = ?1, "
    "slow_since = coalesce(slow_since, ?2) WHERE id = ?3", NULL, NULL };
static struct store_stmt s_fast = { "UPDATE chains SET slow_reason = NULL, "
    "slow_since = NULL WHERE id = ? AND slow_reason IS NOT NULL", NULL,
    NULL };

static void	load_changed(struct worker *);

static struct request *
request_new(struct worker *w, struct chain *ch, enum item_kind kind)
{
	struct request	*r = xcalloc(1, sizeof(*r));

	r->id = next_req++;
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

static void
request_free(struct request *r)
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
static void
request_live(struct request *r)
{
	r->live = 1;
	r->w->load.live++;
	load_changed(r->w);
}

static void
held_free(struct held *h)
{
	struct held	**pp;

	for (pp = &helds; *pp != NULL; pp = &(*pp)->next)
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
static uint64_t
shown_deadline(const struct lease *l)
{
	uint64_t	now = now_mono_ms();

	return now_wall_ms() + (l->deadline > now ? l->deadline - now : 0);
}

/* Carry out what a lease transition asks for. */
static void
lease_apply(struct held *h, unsigned act, enum outcome o, const char *why,
    int64_t endpoint)
{
	if (act & LA_DONE)
		queue_done(h->it.id);
	if (act & LA_BACK)
		queue_back(h->it.id, now_wall_ms() + h->l.back_in, o, why,
		    endpoint);
	if (act & LA_WON)
		route_hedged(&h->ch->hedging, 1);
	if (act & LA_DROP)
		for (int i = 0; i < 2; i++)
			if (h->req[i] != NULL)
				request_free(h->req[i]);
	/* LA_STRAGGLE: what is still out answers for its endpoint only. */
	if (!lease_active(&h->l))
		held_free(h);
}

/*
 * w's window, started at its first scheduling and following the chain's
 * max_inflight (a reload changes it) after that.
 */
static struct depth *
load_depth(struct worker *w, const struct chain *ch)
{
	if (w->load.depth.cap == 0)
		depth_init(&w->load.depth, ch->max_inflight, now_mono_ms());
	else if (w->load.depth.cap != ch->max_inflight)
		depth_set_cap(&w->load.depth, ch->max_inflight);
	return &w->load.depth;
}

/*
 * The usable endpoints of a chain as the router sees them, built once a
 * pass of the scheduler (schedule, hedge) and kept exact through it: a
 * worker's requests out are written back as they change (load_changed).
 * Built for every worker that asked, it cost E * E a tick: at 2000
 * endpoints a fifth of the supervisor's time.  Whether the chain has
 * work due is kept the same way, asked again after each lease.
 */
struct route_pass {
	const struct chain	*ch;
	unsigned		 pass;
	size_t			 n, cap;
	struct route_ep		*e;
	struct worker		**ws;
	int			 due;		/* -1: ask the queue */
};

static struct route_pass	*passes;
static size_t			 n_passes;
static unsigned			 pass = 1;

static struct route_pass *
pass_of(const struct chain *ch)
{
	for (size_t i = 0; i < n_passes; i++)
		if (passes[i].ch == ch)
			return &passes[i];
	passes = xrealloc(passes, (n_passes + 1) * sizeof(*passes));
	memset(&passes[n_passes], 0, sizeof(*passes));
	passes[n_passes].ch = ch;
	return &passes[n_passes++];
}

static void
pass_forget(void)
{
	for (size_t i = 0; i < n_passes; i++) {
		free(passes[i].e);
		free(passes[i].ws);
	}
	free(passes);
	passes = NULL;
	n_passes = 0;
}

/* w's requests out changed: its place in this pass's route follows. */
static void
load_changed(struct worker *w)
{
	for (size_t i = 0; i < n_passes; i++) {
		struct route_pass *rp = &passes[i];

		if (rp->pass == pass && w->load.pass == pass &&
		    w->load.slot < rp->n && rp->ws[w->load.slot] == w) {
			rp->e[w->load.slot].inflight = w->load.inflight;
			rp->e[w->load.slot].live = w->load.live;
		}
	}
}

/* The usable endpoints of ch as the router sees them; *self is w's. */
static size_t
route_eps(const struct chain *ch, const struct worker *w, uint64_t now,
    struct route_ep **eps, struct worker ***who, size_t *self)
{
	struct route_pass	*rp = pass_of(ch);
	uint64_t		 mono = now_mono_ms();

	if (rp->pass != pass) {
		rp->pass = pass;
		rp->n = 0;
		rp->due = -1;
		for (struct worker *o = sup_workers; o != NULL; o = o->next) {
			struct route_ep *e;

			if (o->proc.fsm.state != CS_RUNNING ||
			    !health_usable(o->ep) ||
			    strcmp(o->ep->chain, ch->name) != 0)
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
			o->load.pass = pass;
			o->load.slot = rp->n;
			rp->ws[rp->n++] = o;
		}
	}
	*self = w != NULL && w->load.pass == pass && w->load.slot < rp->n &&
	    rp->ws[w->load.slot] == w ? w->load.slot : SIZE_MAX;
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
static int
has_due(struct chain *ch)
{
	struct route_pass	*rp = pass_of(ch);

	if (rp->pass != pass) {
		struct route_ep	*eps;
		struct worker	**who;
		size_t		 self;

		(void)route_eps(ch, NULL, now_wall_ms(), &eps, &who, &self);
	}
	if (rp->due == -1)
		rp->due = queue_has_due(ch->id, now_wall_ms());
	return rp->due;
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

	r = request_new(w, ch, it->kind);
	switch (it->kind) {
	case K_HEADERS:
	case K_PARENT: {
		static struct proto_req_headers q;

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
			for (int64_t n = it->from; n <= it->to &&
			    q.n < PROTO_BATCH_MAX; n++)
				q.numbers[q.n++] = (uint64_t)n;
			r->from = it->from;
		}
		r->n = q.n;
		proto_pack_req_headers(&mb, w->gen, &q);
		break;
	}
	case K_STATE: {
		static struct proto_req_storage q;
		int quantus = ch->format == FORMAT_QUANTUS;
		size_t max = PROTO_READS_MAX / (quantus ? 2 : 1);
		uint8_t cand[32];

		memset(&q, 0, sizeof(q));
		q.id = r->id;
		q.deadline_ms = deadline;
		r->hashes = xcalloc(max, 32);
		r->numbers = xcalloc(max, sizeof(*r->numbers));
		r->n = queue_owed_blocks(ch->id, it->from, it->to, quantus,
		    choice_candidate(ch, cand) ? cand : NULL, r->hashes,
		    r->numbers, max);
		if (r->n == 0) {
			request_free(r);
			return NULL;
		}
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
		proto_pack_req_storage(&mb, w->gen, &q);
		break;
	}
	case K_RUNTIME: {
		struct proto_req_runtime q;

		memset(&q, 0, sizeof(q));
		q.id = r->id;
		q.deadline_ms = deadline;
		q.has_at = 1;
		memcpy(q.at, it->hash, 32);
		r->number = it->number;
		r->hashes = xmalloc(32);
		memcpy(r->hashes[0], it->hash, 32);
		r->n = 1;
		proto_pack_req_runtime(&mb, w->gen, &q);
		break;
	}
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
	pass_of(ch)->due = -1;		/* what is left may be nothing */
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
	queue_lease(it.id, w->ep->id, shown_deadline(&h->l));
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
		request_live(r);
	h->next = helds;
	helds = h;
	if (live)
		log_debug("w/%s: live %s #%lld leased (preferred)", w->name,
		    queue_kind_name(it.kind), (long long)(it.kind == K_STATE ?
		    it.to : it.number));
	else
		log_debug("w/%s: %s item %lld leased", w->name,
		    queue_kind_name(it.kind), (long long)it.id);
	return 1;
}

static int	held_arrived(const struct held *);

/* Leases past their deadline: the item goes back; late answers drop. */
static void
expire(void)
{
	struct held	*h, *next;
	uint64_t	 now = now_mono_ms();

	for (h = helds; h != NULL; h = next) {
		struct lease_in	 in;
		struct request	*r;
		unsigned	 act;

		next = h->next;
		if (!lease_expired(h->l.deadline, now) || held_arrived(h))
			continue;
		r = h->req[0] != NULL ? h->req[0] : h->req[1];
		memset(&in, 0, sizeof(in));
		in.block_time = h->ch->block_time;
		act = lease_step(&h->l, LE_EXPIRE, &in, now);
		lease_apply(h, act, OUTCOME_TIMEOUT, "lease expired",
		    r != NULL ? r->w->ep->id : 0);
	}
}

/* Requests out longer than their chain's hedging delay: ask again. */
static void
hedge(void)
{
	uint64_t	now = now_mono_ms(), wall = now_wall_ms();

	pass++;
	for (struct held *h = helds; h != NULL; h = h->next) {
		struct request	*r = h->req[0], *g;
		struct route_ep	*eps;
		struct worker	**who;
		struct lease_in	 in;
		size_t		 n, self;
		int		 t;

		if (r == NULL || held_arrived(h) || !lease_may_hedge(&h->l,
		    h->ch->hedging.delay[h->it.kind], now))
			continue;
		n = route_eps(h->ch, r->w, wall, &eps, &who, &self);
		t = route_hedge_target(eps, n, self, h->ch->max_inflight,
		    &h->it, h->l.live);
		if (t == -1)
			continue;
		memset(&in, 0, sizeof(in));
		in.request_timeout = h->ch->request_timeout;
		if ((g = item_send(who[t], h->ch, &h->it,
		    (uint32_t)h->ch->request_timeout)) == NULL) {
			/* Read meanwhile in full: the first answer settles. */
			(void)lease_step(&h->l, LE_NO_HEDGE, &in, now);
			continue;
		}
		g->held = h;
		g->hedge = 1;
		if (h->l.live)
			request_live(g);
		h->req[1] = g;
		(void)lease_step(&h->l, LE_HEDGE, &in, now);
		stats_hedge(&who[t]->ep->stats);
		route_hedged(&h->ch->hedging, 0);
		queue_extend(h->it.id, shown_deadline(&h->l));
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

	n = route_eps(ch, w, now_wall_ms(), &eps, &who, &self);
	if (self == SIZE_MAX) {
		/* Not usable: it takes nothing live. */
		memset(f, 0, sizeof(*f));
		f->pruning_bound = w->ep->pruning_bound;
		f->live_from = route_live_from(ch->have_best, ch->best_number);
		f->pref_id = f->not_id = f->wrong_id = f->prune_floor = -1;
		return;
	}
	route_filter(eps, n, self, route_live_from(ch->have_best,
	    ch->best_number), ch->max_inflight, f);
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

	n = route_eps(ch, w, now_wall_ms(), &eps, &who, &self);
	return route_all_open(eps, n);
}

/* How many requests w may have out now: 0 if it is not usable. */
static unsigned
limit_for(struct chain *ch, struct worker *w)
{
	struct route_ep	*eps;
	struct worker	**who;
	size_t		 n, self;

	n = route_eps(ch, w, now_wall_ms(), &eps, &who, &self);
	return self == SIZE_MAX ? 0 : route_limit(eps, n, self,
	    ch->max_inflight);
}

static void
schedule(void)
{
	int	progress = 1;

	pass++;

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
		    (ch = sup_chain_find(w->ep->chain)) == NULL ||
		    (!ch->have_best && !has_due(ch)))
			continue;
		deadline = (uint32_t)ch->request_timeout;
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
			    (ch = sup_chain_find(w->ep->chain)) == NULL ||
			    w->load.inflight >= ch->max_inflight)
				continue;
			deadline = (uint32_t)ch->request_timeout;
			/* No work, no trial taken for nothing. */
			if (!has_due(ch) ||
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

static int	 reset_owed;	/* leases forgotten; the store's to release */

/*
 * Leases of endpoints that may no longer work and whose worker still runs
 * (inconsistent: its health cannot call up here) go back at once.  Their
 * requests answer on as stragglers, for the endpoint's health only.
 */
static void
release_unusable(void)
{
	struct request	*r, *next;

	for (r = requests; r != NULL; r = next) {
		struct held	*h = r->held;
		struct lease_in	 in;
		unsigned	 act;

		next = r->next;
		if (h == NULL || health_usable(r->w->ep))
			continue;
		h->req[r->hedge] = NULL;
		r->held = NULL;
		memset(&in, 0, sizeof(in));
		in.hedge = r->hedge;
		in.outcome = OUTCOME_OK;
		in.at_once = 1;
		in.hedge_delay = h->ch->hedging.delay[h->it.kind];
		in.block_time = h->ch->block_time;
		act = lease_step(&h->l, LE_FAIL, &in, now_mono_ms());
		log_info("w/%s: %s item %lld given back: the endpoint is %s",
		    r->w->name, queue_kind_name(h->it.kind),
		    (long long)h->it.id, ep_state_name(r->w->ep->av.state));
		lease_apply(h, act, OUTCOME_OK, "endpoint not usable",
		    r->w->ep->id);
	}
}

/* Since when w waits for an answer, monotonic ms; 0: it does not. */
static uint64_t
waiting(const struct worker *w)
{
	uint64_t	t = health_waiting(w->ep, now_mono_ms());

	for (const struct request *r = requests; r != NULL; r = r->next)
		if (r->w == w && r->arrived == 0 && (t == 0 || r->sent < t))
			t = r->sent;
	return t;
}

/*
 * The chain's slowness, stored when it changes: what was stored is kept
 * here, by chain id, so that a steady state writes nothing.
 */
static void
slow_store(const struct chain *ch, int slow, const char *why)
{
	static struct {
		int64_t	 id;
		char	 why[64];
	}		*seen;
	static size_t	 n_seen;
	size_t		 i;

	for (i = 0; i < n_seen && seen[i].id != ch->id; i++)
		;
	if (i == n_seen) {
		seen = xrealloc(seen, ++n_seen * sizeof(*seen));
		seen[i].id = ch->id;
		seen[i].why[0] = '\0';
		if (!slow) {
			/* Whatever an earlier run left behind. */
			store_run(store_bind(&s_fast, "i", ch->id));
			return;
		}
	}
	if (!slow) {
		if (seen[i].why[0] != '\0') {
			log_info("chain %s: answers in time again", ch->name);
			store_run(store_bind(&s_fast, "i", ch->id));
		}
		seen[i].why[0] = '\0';
		return;
	}
	/* Changes of its figure only once they are whole seconds. */
	if (strcmp(seen[i].why, why) == 0)
		return;
	if (seen[i].why[0] == '\0')
		log_warnx("chain %s: slow: %s (no endpoint singled out)",
		    ch->name, why);
	store_run(store_bind(&s_slow, "tii", why, (int64_t)now_wall_ms(),
	    ch->id));
	snprintf(seen[i].why, sizeof(seen[i].why), "%s", why);
}

/*
 * The peer rule (sup_breaker.h) for each of the n endpoints ws[]: its
 * run of failures against what the others show.  Its leases go back in
 * release_unusable() if it opens; what it has out answers on.
 */
static void
peers_chain(struct worker **ws, size_t n)
{
	static struct brk_peer	*all, *others;
	static size_t		 cap;

	if (n < 2)
		return;
	if (n > cap) {
		cap = n;
		all = xrealloc(all, cap * sizeof(*all));
		others = xrealloc(others, cap * sizeof(*others));
	}
	for (size_t i = 0; i < n; i++)
		health_peer(ws[i]->ep, &all[i]);
	for (size_t i = 0; i < n; i++) {
		size_t	k = 0;

		/* Most are in no run: the others would be copied for
		 * nothing, n * n a tick. */
		if (!breaker_peer_run(&ws[i]->ep->brk))
			continue;
		for (size_t j = 0; j < n; j++)
			if (j != i)
				others[k++] = all[j];
		(void)health_peers(ws[i]->ep, others, k);
		/* It may count as out for those judged after it. */
		health_peer(ws[i]->ep, &all[i]);
	}
}

/*
 * Who of ch's endpoints is overdue while others answer (sup_overdue.c):
 * unresponsive; whether the whole chain is slow instead; and who fails
 * while the others answer, or with them (the peer rule).
 */
static void
overdue_chain(struct chain *ch, uint64_t watched, uint64_t now)
{
	static struct overdue_ep *eps;
	static struct worker	**ws;
	static struct endpoint	**es;
	static size_t		  cap;
	size_t			  n = 0;
	uint64_t		  bound, latency, age;
	char			  why[64];

	for (struct worker *o = sup_workers; o != NULL; o = o->next) {
		if (o->proc.fsm.state != CS_RUNNING ||
		    strcmp(o->ep->chain, ch->name) != 0)
			continue;
		if (n == cap) {
			cap = cap == 0 ? 16 : cap * 2;
			eps = xrealloc(eps, cap * sizeof(*eps));
			ws = xrealloc(ws, cap * sizeof(*ws));
			es = xrealloc(es, cap * sizeof(*es));
		}
		eps[n].waiting = waiting(o);
		if (o->load.answered > o->ep->answered) {
			eps[n].answered = o->load.answered;
			eps[n].answered_in = o->load.answered_in;
		} else {
			eps[n].answered = o->ep->answered;
			eps[n].answered_in = o->ep->answered_in;
		}
		es[n] = o->ep;
		ws[n++] = o;
	}
	/* Everyone inconsistent, nothing fetched: the rule is suspected. */
	if (health_doubted(es, n, ch->name, claim_patience(ch)) &
	    HEALTH_BACK)
		sched_back(es[0]);
	/* A breaker that knows speaks first: it outweighs overdue. */
	peers_chain(ws, n);
	latency = route_latency_quantile(&ch->hedging, OVERDUE_QUANTILE, now);
	/* Quiet: the endpoints' latest answers tell instead (sup_overdue.c). */
	bound = overdue_chain_bound(latency != 0 ? latency :
	    overdue_answers_median(eps, n), ch->hedging.after);
	for (size_t i = 0; i < n; i++) {
		/* Its leases go back in release_unusable(); what it has
		 * out answers on, for its health. */
		if (overdue_judge(eps, n, i, bound, watched, now, &age) ==
		    OV_OVERDUE)
			(void)health_overdue(ws[i]->ep, eps[i].waiting, age);
		else
			(void)health_overdue(ws[i]->ep, 0, 0);
	}
	slow_store(ch, overdue_chain_slow(eps, n, bound, watched, now,
	    latency, why, sizeof(why)), why);
}

/* Every chain once a tick, in the order of their first workers. */
static void
overdue_check(void)
{
	static uint64_t	last, watched;
	uint64_t	now = now_mono_ms();

	watched = overdue_watched(watched, last, now);
	last = now;
	for (struct worker *w = sup_workers; w != NULL; w = w->next) {
		struct worker	*o;
		struct chain	*ch;

		for (o = sup_workers; o != w; o = o->next)
			if (strcmp(o->ep->chain, w->ep->chain) == 0)
				break;
		if (o != w || (ch = sup_chain_find(w->ep->chain)) == NULL)
			continue;
		overdue_chain(ch, watched, now);
	}
}

/*
 * What the chains concluded about endpoints goes to their health: a lie
 * (a head that never connected, a header whose number is not its
 * parent's + 1, a branch below finality, a finalized head off the chain)
 * or an agreement.
 */
void
sched_verdicts(void)
{
	struct chain_verdict	v;

	while (sup_chains_verdict(&v)) {
		struct worker *w;

		for (w = sup_workers; w != NULL; w = w->next)
			if (w->ep->id == v.endpoint_id)
				break;
		if (w == NULL) {
			char	en[CONF_NAME_MAX + 16];

			if (v.kind == CV_CONTRADICTED)
				log_warnx("%s (gone): contradicted: %s",
				    block_ep_name(v.endpoint_id, en),
				    v.reason);
			continue;
		}
		if (v.kind == CV_CONTRADICTED)
			sup_health_contradicted(w->ep, v.reason);
		else
			sup_health_agrees(w->ep);
	}
}

static void
tick_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	/* A flood of one log line that stopped: tell its count now. */
	log_flood_flush(0);
	/* Who holds a chain's one subscription needs no store. */
	sup_primary_tick();
	/* A blocked store takes no new work: no lease, no request. */
	if (!store_ready())
		return;
	if (reset_owed) {
		queue_release_leases();
		reset_owed = 0;
	}
	sup_chains_tick(now_wall_ms());
	sched_verdicts();
	overdue_check();
	release_unusable();
	expire();
	hedge();
	schedule();
	store_maybe_flush();
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
	struct chain	*ch = sup_chain_find(e->chain);

	if (ch == NULL)
		return;
	queue_retry_now(ch->id, now_wall_ms());
	sched_kick();
}

/* What a change of an endpoint's health asks of the scheduler. */
void
sched_health(struct worker *w, unsigned act)
{
	if (act & HEALTH_GONE)
		sched_worker_gone(w);
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
			in.hedge_delay = h->ch->hedging.delay[h->it.kind];
			in.block_time = h->ch->block_time;
			act = lease_step(&h->l, LE_FAIL, &in, now_mono_ms());
			/* Its twin may be next: free it first if dropped. */
			request_free(r);
			lease_apply(h, act, OUTCOME_TRANSPORT, "worker died",
			    w->ep->id);
			next = requests;	/* the list may have changed */
			continue;
		}
		request_free(r);
	}
	w->load.inflight = 0;
}

static struct request *
find_request(struct worker *w, uint64_t id)
{
	for (struct request *r = requests; r != NULL; r = r->next)
		if (r->id == id && r->w == w)
			return r;
	return NULL;
}

/*
 * r was answered in ms: evidence of how quickly its endpoint answers, for
 * the overdue rule, if it went out after the answered ones before it.
 */
static void
answered(struct request *r, uint64_t ms)
{
	if (r->sent >= r->w->load.answered) {
		r->w->load.answered = r->sent;
		r->w->load.answered_in = ms;
	}
}

/*
 * w's answer to request id came; it may wait in the daemon before it is
 * taken (behind live work, or while the checkpoints catch up).  From now
 * it counts as an answer for the endpoint's health, and its lease neither
 * hedges nor expires: asking again would not bring it sooner.
 *
 * May it wait behind others?  Only a backfill's: a range of headers or a
 * state read of blocks that are not live.  A live read, a claim's parent,
 * a runtime and an id unknown or gone are taken at once.
 */
int
sched_answer_arrived(struct worker *w, uint64_t id)
{
	struct request	*r = find_request(w, id);
	uint64_t	 now = now_mono_ms();

	if (r == NULL)
		return 0;
	if (r->arrived == 0) {
		r->arrived = now;
		answered(r, now - r->sent);
	}
	return r->held != NULL && !r->held->l.live &&
	    (r->kind == K_HEADERS || r->kind == K_STATE);
}

/* One of h's requests has its answer waiting in the daemon. */
static int
held_arrived(const struct held *h)
{
	return (h->req[0] != NULL && h->req[0]->arrived != 0) ||
	    (h->req[1] != NULL && h->req[1]->arrived != 0);
}

/*
 * One outcome a request, for the breaker: its first failure class, else
 * ok (absent and errors are answers).  A batch that timed out is one
 * timeout, not a hundred.
 */
static enum outcome
request_outcome(const void *items, size_t n, size_t size, size_t off)
{
	for (size_t i = 0; i < n; i++) {
		enum outcome o = *(const enum outcome *)((const char *)items +
		    i * size + off);

		if (outcome_is_failure(o) || o == OUTCOME_RATE_LIMITED)
			return o;
	}
	return OUTCOME_OK;
}

/*
 * The endpoint's own latency in an answer: the slowest of its items as
 * the worker timed them (0: none told).  Unlike the time the answer took
 * to reach the scheduler, it leaves out this process's own stalls (a
 * store commit, a busy loop), which more or fewer requests would not
 * change.
 */
static uint64_t
endpoint_ms(const void *items, size_t n, size_t size, size_t off)
{
	uint64_t	worst = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t ms = *(const uint64_t *)((const char *)items +
		    i * size + off);

		if (ms > worst)
			worst = ms;
	}
	return worst;
}

/*
 * Every answer, straggler or not, counts for its endpoint: its breaker,
 * its counters, its window (by the endpoint's own latency, ep_ms, when
 * the worker told it) and the chain's hedging delay.  Its counters and
 * the hedging delay take the time to when the answer came: what it then
 * waited in the daemon is the window's to know, not the endpoint's.
 * retry_ms is the answer's Retry-After (0: none), which holds the window
 * and leaves the endpoint alone that long, within bounds (sup_depth.h,
 * sup_breaker.h).
 */
static void
count(struct request *r, enum outcome o, uint64_t ep_ms, uint64_t retry_ms)
{
	uint64_t	ms = now_mono_ms() - r->sent;
	/* To when its answer came; the rest it waited in the daemon. */
	uint64_t	came = r->arrived != 0 && r->arrived - r->sent < ms ?
	    r->arrived - r->sent : ms;

	if (o != OUTCOME_TIMEOUT && o != OUTCOME_TRANSPORT)
		answered(r, came);
	/*
	 * Its window learns from every answer, a straggler's too: the
	 * endpoint's latency, and the rest, which was the daemon's own.
	 */
	if (ep_ms == 0 || ep_ms > ms)
		ep_ms = ms;
	depth_answer(load_depth(r->w, r->ch), r->kind, o, ep_ms, ms - ep_ms,
	    r->w->load.inflight, retry_ms, now_mono_ms());
	if (health_outcome(r->w->ep, r->brk_gen, o, retry_ms) & HEALTH_BACK)
		sched_back(r->w->ep);
	stats_request(&r->w->ep->stats, o, came);
	if (o == OUTCOME_OK)
		route_latency(&r->ch->hedging, r->kind, came, now_mono_ms());
}

/* What a request asked, for logs: "headers #100..#199". */
static void
request_what(const struct request *r, char *buf, size_t len)
{
	char	hx[67];

	switch (r->kind) {
	case K_HEADERS:
		snprintf(buf, len, "headers #%lld..#%lld", (long long)r->from,
		    (long long)r->from + (long long)r->n - 1);
		break;
	case K_PARENT:
		hex_encode(r->hashes[0], 32, hx);
		snprintf(buf, len, "header %.12s... by hash", hx);
		break;
	case K_STATE:
		if (r->n == 1)
			snprintf(buf, len, "%zu storage keys of block #%lld",
			    r->keys, (long long)r->numbers[0]);
		else
			snprintf(buf, len, "%zu storage keys of %zu blocks "
			    "#%lld..#%lld", r->keys, r->n,
			    (long long)r->numbers[0],
			    (long long)r->numbers[r->n - 1]);
		break;
	case K_RUNTIME:
		snprintf(buf, len, "runtime at #%lld", (long long)r->number);
		break;
	}
}

/*
 * An answer that does not answer its request: malformed for its
 * endpoint, nothing of it is applied, and its item goes back to the
 * queue for another endpoint.  One that contradicts the chain
 * (a range that does not link) makes its endpoint inconsistent too.
 */
static void
reject(struct request *r, enum answer_verdict v, const char *what_differed,
    struct sched_answer *a)
{
	static char	why[ANSWER_WHY_MAX + 160];
	char		what[96];

	count(r, OUTCOME_MALFORMED, 0, 0);
	request_what(r, what, sizeof(what));
	log_warnx("w/%s: answer to request %llu (%s) does not answer it: %s; "
	    "counted malformed, %s", r->w->name, (unsigned long long)r->id,
	    what, what_differed, r->held != NULL ? "its item goes back to the "
	    "queue" : "nothing of it is used");
	snprintf(why, sizeof(why), "%s: %s", what, what_differed);
	a->worst = OUTCOME_MALFORMED;
	a->why = why;
	a->rejected = 1;
	a->contradicts = v == ANSWER_UNLINKED;
	/* Backoff as for any failure: another endpoint may take it before
	 * (sup_route.c), and a lone liar is not asked again at once. */
	a->at_once = 0;
}

static void
answer_headers(struct request *r, const struct proto_res_headers *rh,
    struct sched_answer *a)
{
	struct answer_asked	q;
	enum answer_verdict	v;
	char			differed[ANSWER_WHY_MAX];

	memset(&q, 0, sizeof(q));
	q.by = r->kind == K_PARENT ? BY_HASH : BY_NUMBER;
	q.n = r->n;
	q.from = (uint64_t)r->from;
	q.hashes = (const uint8_t (*)[32])r->hashes;
	if ((v = answer_check_headers(&q, rh, differed, sizeof(differed))) !=
	    ANSWER_OK) {
		reject(r, v, differed, a);
		return;
	}
	count(r, request_outcome(rh->items, rh->n, sizeof(rh->items[0]),
	    offsetof(struct proto_item, outcome)), endpoint_ms(rh->items,
	    rh->n, sizeof(rh->items[0]), offsetof(struct proto_item,
	    latency_ms)), rh->retry_ms);
	a->headers = rh;
	for (size_t i = 0; i < rh->n; i++)
		if (rh->items[i].outcome != OUTCOME_OK &&
		    a->worst == OUTCOME_OK) {
			a->worst = rh->items[i].outcome;
			a->why = rh->items[i].why;
		}
	/*
	 * A block asked for by hash that this endpoint lacks is a block of
	 * a branch it does not follow: the endpoint that announced its child
	 * has it, and another is asked at once (not this one again: see
	 * sup_queue.c), not after a backoff.  Waiting here once left a claim
	 * to wait out its patience and its endpoint without work for good.
	 */
	if (r->kind == K_PARENT && a->worst == OUTCOME_ABSENT)
		a->at_once = 1;
}

/*
 * An absent answer that says the state was discarded: pruning.  (Absent
 * also means a block the endpoint has not seen yet, which is no reason
 * to send it nothing older.)
 */
static int
discarded(const struct proto_value *v)
{
	return v->outcome == OUTCOME_ABSENT &&
	    strstr(v->why, "discarded") != NULL;
}

static void
answer_storage(struct request *r, const struct proto_res_storage *rs,
    struct sched_answer *a)
{
	int		quantus = r->ch->format == FORMAT_QUANTUS;
	size_t		per = quantus ? 2 : 1, k = 0;
	int64_t		pruned = -1;	/* highest block found pruned */
	enum answer_verdict v;
	char		differed[ANSWER_WHY_MAX];
	size_t		size[PROTO_READS_MAX];

	/* Difficulty is a U512, Timestamp.Now a u64. */
	for (size_t i = 0; i < r->keys; i++)
		size[i] = quantus && i % 2 == 0 ? 64 : 8;
	if ((v = answer_check_storage(size, r->keys, rs, differed,
	    sizeof(differed))) != ANSWER_OK) {
		reject(r, v, differed, a);
		return;
	}
	count(r, request_outcome(rs->items, rs->n, sizeof(rs->items[0]),
	    offsetof(struct proto_value, outcome)), endpoint_ms(rs->items,
	    rs->n, sizeof(rs->items[0]), offsetof(struct proto_value,
	    latency_ms)), rs->retry_ms);
	a->hashes = (const uint8_t (*)[32])r->hashes;
	for (size_t i = 0; i < r->n && k + per <= rs->n; i++, k += per) {
		const struct proto_value *d = quantus ? &rs->items[k] : NULL;
		const struct proto_value *t = &rs->items[k + per - 1];
		int64_t ts = -1;

		if (t->outcome == OUTCOME_OK && t->value_len == 8) {
			ts = 0;
			for (int b = 7; b >= 0; b--)
				ts = ts << 8 | t->value[b];
		}
		/*
		 * Discarded state of a block off our chain (a branch whose
		 * work is read to choose) says only that the endpoint dropped
		 * that branch, not that it prunes; and nothing is owed for a
		 * branch the chain did not take: that block is settled, or
		 * its item would go round the endpoints for ever.
		 */
		if ((d != NULL && discarded(d)) || discarded(t)) {
			if (!sup_chain_canonical(r->ch, r->hashes[i])) {
				a->difficulty[i] = NULL;
				a->timestamp[i] = -1;
				a->n = i + 1;
				continue;
			}
			if (r->numbers[i] > pruned)
				pruned = r->numbers[i];
		}
		if (d != NULL && d->outcome != OUTCOME_OK &&
		    a->worst == OUTCOME_OK) {
			a->worst = d->outcome;
			a->why = d->why;
		} else if (t->outcome != OUTCOME_OK && a->worst == OUTCOME_OK) {
			a->worst = t->outcome;
			a->why = t->why;
		}
		/* A straggler's values are as true as its twin's. */
		a->difficulty[i] = d != NULL && d->outcome == OUTCOME_OK &&
		    d->value_len == 64 ? d->value : NULL;
		a->timestamp[i] = ts;
		a->n = i + 1;
	}
	/* Pruned here is an answer, not a failure: the bound is noted. */
	if (pruned >= 0)
		health_pruned(r->w->ep, pruned);
	if (rs->n != r->n * per && a->worst == OUTCOME_OK) {
		a->worst = OUTCOME_MALFORMED;
		a->why = "wrong number of values";
	}
	/* A pruned or dropped read goes to another endpoint at once. */
	a->at_once = a->worst == OUTCOME_ABSENT && (pruned >= 0 || a->at_once);
}

/*
 * An answer from a worker, matched to its request: 1 with *a filled, 0
 * for a late answer (dropped), -1 with err if it answers nothing it was
 * asked: the worker is then killed as for any bad message.
 */
int
sched_answer(struct worker *w, const struct msg *m, struct sched_answer *a,
    char *err, size_t errlen)
{
	static struct proto_res_headers rh;
	static struct proto_res_storage rs;
	static struct proto_res_runtime rr;
	struct request			*r;
	uint64_t			 id;
	enum item_kind			 want;

	switch (m->type) {
	case MSG_RES_HEADERS:
		if (proto_unpack_res_headers(m, &rh, err, errlen) == -1)
			return -1;
		id = rh.id;
		break;
	case MSG_RES_STORAGE:
		if (proto_unpack_res_storage(m, &rs, err, errlen) == -1)
			return -1;
		id = rs.id;
		break;
	case MSG_RES_RUNTIME:
		if (proto_unpack_res_runtime(m, &rr, err, errlen) == -1)
			return -1;
		id = rr.id;
		break;
	default:
		snprintf(err, errlen, "unexpected %s message",
		    msg_type_name(m->type));
		return -1;
	}
	if (id >= next_req) {
		snprintf(err, errlen, "answer to request %llu, never sent",
		    (unsigned long long)id);
		return -1;
	}
	if ((r = find_request(w, id)) == NULL) {
		log_debug("w/%s: late answer to request %llu dropped", w->name,
		    (unsigned long long)id);
		return 0;
	}
	want = m->type == MSG_RES_HEADERS ? K_HEADERS :
	    m->type == MSG_RES_STORAGE ? K_STATE : K_RUNTIME;
	if (r->kind != want && !(r->kind == K_PARENT && want == K_HEADERS)) {
		snprintf(err, errlen, "%s answers request %llu of another kind",
		    msg_type_name(m->type), (unsigned long long)id);
		return -1;
	}
	memset(a, 0, sizeof(*a));
	a->req = r;
	a->ch = r->ch;
	a->endpoint_id = w->ep->id;
	a->kind = r->kind;
	a->settles = r->held != NULL;
	a->worst = OUTCOME_OK;
	a->why = "";
	switch (r->kind) {
	case K_HEADERS:
	case K_PARENT:
		answer_headers(r, &rh, a);
		break;
	case K_STATE:
		answer_storage(r, &rs, a);
		break;
	case K_RUNTIME:
		count(r, rr.outcome, rr.latency_ms, 0);
		a->runtime = &rr;
		a->hashes = (const uint8_t (*)[32])r->hashes;
		a->number = r->number;
		a->worst = rr.outcome;
		a->why = rr.why;
		break;
	}
	a->done = a->worst == OUTCOME_OK;
	/* What the worker found malformed in it, said once per answer. */
	if (a->worst == OUTCOME_MALFORMED && !a->rejected) {
		char	what[96];

		request_what(r, what, sizeof(what));
		log_warnx("w/%s: answer to request %llu (%s) malformed: %s; %s",
		    w->name, (unsigned long long)id, what, a->why,
		    a->settles ? "its item goes back to the queue" :
		    "counted for the endpoint only");
	}
	return 1;
}

/* After the answer was applied: its item settles, or not. */
void
sched_settle(struct sched_answer *a)
{
	struct request	*r = a->req;
	struct held	*h = r->held;

	if (h != NULL) {
		struct lease_in	in;
		unsigned	act;

		memset(&in, 0, sizeof(in));
		in.hedge = r->hedge;
		in.outcome = a->worst;
		in.at_once = a->at_once;
		in.hedge_delay = h->ch->hedging.delay[h->it.kind];
		in.block_time = h->ch->block_time;
		act = lease_step(&h->l, a->done ? LE_OK : LE_FAIL, &in,
		    now_mono_ms());
		request_free(r);
		lease_apply(h, act, a->worst, a->why, a->endpoint_id);
	} else
		request_free(r);
	store_maybe_flush();
	sched_kick();
}

void
sched_init(void)
{
	storage_key("QPoW", "CurrentDifficulty", key_difficulty);
	storage_key("Timestamp", "Now", key_now);
	queue_init();
	ev_init(&tick, tick_cb);
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
		request_free(requests);
	while (helds != NULL)
		held_free(helds);
	for (struct worker *w = sup_workers; w != NULL; w = w->next)
		w->load.inflight = 0;
	reset_owed = 1;
}

void
sched_stop(void)
{
	ev_timer_stop(sup_loop, &tick);
	while (requests != NULL)
		request_free(requests);
	while (helds != NULL)
		held_free(helds);
	pass_forget();
}
