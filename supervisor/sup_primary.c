/*
 * subscribe = primary: each tick, for each chain so configured, gather its
 * workers in configuration order, ask sup_subs.c which one holds the
 * subscription, and tell the one that gives it up and the one that takes
 * it.  Heads announced while it moves are not lost: the workers without
 * it send their probe's best header as a head, and the chain fills any
 * hole between its stored best and a head with catch-up work.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "chainwatchd.h"
#include "log.h"
#include "proto.h"
#include "sup_chain.h"
#include "sup_health.h"
#include "sup_primary.h"
#include "sup_spawn.h"
#include "sup_subs.h"
#include "util.h"

#define PRIMARY_MAX	64	/* endpoints of one chain looked at */
/*
 * At start, the first endpoint in order is waited for this long before
 * another takes the subscription: they all start at once, and whichever
 * happened to answer first would hold it for a stable period.
 */
#define PRIMARY_SETTLE_MS	2000

static uint64_t	primary_started;	/* mono ms of the first tick */

static int
worker_running(const struct worker *w)
{
	return w->proc.fsm.state == CS_RUNNING && w->proc.pid != 0;
}

/*
 * It may work: running, ready (not down, quarantined, inconsistent,
 * unresponsive), breaker closed.
 */
static int
worker_usable(const struct worker *w)
{
	return worker_running(w) && health_usable(w->ep) &&
	    w->ep->brk.state == BRK_CLOSED;
}

static void
tell(struct worker *w, int on)
{
	struct proto_subscribe	s = { .on = on };
	struct msgbuf		mb;

	proto_pack_subscribe(&mb, w->gen, &s);
	chan_send(&w->chan, &mb);
	w->sub.told_gen = on ? w->gen : 0;
}

/* Why the holder w gives the subscription up (back: to one before it). */
static const char *
leaving(const struct worker *w, int back, char *buf, size_t len)
{
	const struct endpoint	*e = w->ep;

	if (back)
		snprintf(buf, len, "the endpoint before it has been healthy "
		    "for the stable period");
	else if (!worker_running(w))
		snprintf(buf, len, "its worker is not running");
	else if (!health_usable(e))
		snprintf(buf, len, "endpoint %s%s%s", ep_state_name(e->av.state),
		    e->av.reason[0] != '\0' ? ": " : "", e->av.reason);
	else if (e->brk.state != BRK_CLOSED)
		snprintf(buf, len, "breaker %s%s%s",
		    breaker_state_name(e->brk.state),
		    e->brk.reason[0] != '\0' ? ": " : "", e->brk.reason);
	else
		snprintf(buf, len, "%s", w->sub.why[0] != '\0' ? w->sub.why :
		    "its subscription failed");
	return buf;
}

static void
hand_over(const struct conf_chain *cc, struct worker *from, struct worker *to,
    int back, uint64_t now)
{
	char	why[PROTO_WHY_MAX + 128];

	if (from != NULL) {
		from->sub.held = 0;
		from->sub.live = 0;
		if (worker_running(from) && from->sub.told_gen == from->gen)
			tell(from, 0);
		from->sub.told_gen = 0;
	}
	if (to != NULL) {
		to->sub.held = 1;
		to->sub.held_at = now_wall_ms();
		to->sub.since = now;
		to->sub.live = 0;
		to->sub.have_best = 0;
		tell(to, 1);
	}
	if (from != NULL && to != NULL)
		log_info("chain %s: subscription moves from %s to %s: %s",
		    cc->name, from->name, to->name,
		    leaving(from, back, why, sizeof(why)));
	else if (to != NULL)
		log_info("chain %s: subscription on %s", cc->name, to->name);
	else if (from != NULL)
		log_warnx("chain %s: no endpoint may hold the subscription "
		    "(%s: %s); heads come from the probes", cc->name,
		    from->name, leaving(from, 0, why, sizeof(why)));
}

/* The holder delivers nothing while the chain moves on: it failed. */
static void
check_stall(const struct conf_chain *cc, struct worker *h, uint64_t now)
{
	struct chain	*ch = sup_chain_find(cc->name);
	uint64_t	 limit = cc->stall_factor * cc->block_time;

	if (ch == NULL || !h->sub.held || h->sub.told_gen != h->gen)
		return;
	if (!subs_stalled(now, h->sub.since, limit, h->sub.have_best,
	    h->sub.best, ch->have_best, (uint64_t)ch->best_number))
		return;
	snprintf(h->sub.why, sizeof(h->sub.why), "no head for %.1f s while "
	    "the chain is at #%" PRId64, (double)(now - h->sub.since) / 1000.0,
	    ch->best_number);
	h->sub.failed = now;
	/* Kept when no other may take it: judged again a limit later. */
	h->sub.since = now;
	log_warnx("w/%s: subscription stalled: %s", h->name, h->sub.why);
}

static void
primary_chain(const struct conf_chain *cc, uint64_t now)
{
	struct chain		*ch = sup_chain_find(cc->name);
	struct worker		*ws[PRIMARY_MAX];
	struct subs_cand	 c[PRIMARY_MAX];
	size_t			 n = 0;
	uint64_t		 stable;
	int			 holder = -1, pick;

	memset(ws, 0, sizeof(ws));
	for (size_t i = 0; ch != NULL && i < ch->n_workers; i++) {
		struct worker	*w = ch->workers[i];
		int		 pos = w->ep->position;

		if (pos < 0 || pos >= PRIMARY_MAX)
			continue;
		ws[pos] = w;
		if ((size_t)pos + 1 > n)
			n = (size_t)pos + 1;
	}
	for (size_t i = 0; i < n; i++) {
		struct worker	*w = ws[i];

		memset(&c[i], 0, sizeof(c[i]));
		if (w == NULL)
			continue;
		if (w->sub.held)
			holder = (int)i;
		c[i].usable = worker_usable(w);
		if (c[i].usable && !w->sub.usable)
			w->sub.usable_since = now;
		w->sub.usable = c[i].usable;
		c[i].usable_since = w->sub.usable_since;
		c[i].failed = w->sub.failed;
	}
	if (holder >= 0) {
		check_stall(cc, ws[holder], now);
		c[holder].failed = ws[holder]->sub.failed;
	}
	/* At start, the first in order first. */
	if (holder < 0 && now - primary_started < PRIMARY_SETTLE_MS &&
	    n > 0 && !c[0].usable)
		return;
	stable = subs_stable_ms(cc->block_time);
	pick = subs_choose(c, n, holder, now, stable);
	if (pick != holder)
		hand_over(cc, holder >= 0 ? ws[holder] : NULL,
		    pick >= 0 ? ws[pick] : NULL, pick >= 0 && pick < holder &&
		    subs_may_keep(&c[holder], now, stable), now);
	else if (pick >= 0 && ws[pick]->sub.told_gen != ws[pick]->gen &&
	    worker_running(ws[pick]))
		tell(ws[pick], 1);	/* its worker was restarted */
}

void
sup_primary_tick(void)
{
	uint64_t	now = now_mono_ms();

	/* Stopping, every worker leaves: nothing to hand on. */
	if (sup_conf == NULL || sup_stopping)
		return;
	if (primary_started == 0)
		primary_started = now;
	for (size_t i = 0; i < sup_conf->n_chains; i++)
		if (sup_conf->chains[i].subscribe == SUBSCRIBE_PRIMARY)
			primary_chain(&sup_conf->chains[i], now);
}

/*
 * The holder's subscription went live, or down: down is a failure, and
 * the next tick moves the subscription on.  What a worker that no longer
 * holds it says is old news.
 */
void
sup_primary_sub(struct worker *w, const struct proto_sub *s)
{
	if (!w->sub.held || w->sub.told_gen != w->gen)
		return;
	if (s->live) {
		w->sub.live = 1;
		w->sub.since = now_mono_ms();
		return;
	}
	w->sub.live = 0;
	w->sub.failed = now_mono_ms();
	snprintf(w->sub.why, sizeof(w->sub.why), "its subscription failed: %s",
	    s->why[0] != '\0' ? s->why : "down");
}

/* A new head from the holder: its subscription delivers. */
void
sup_primary_head(struct worker *w, const struct proto_head *hd)
{
	if (!w->sub.held || hd->kind != HEAD_NEW)
		return;
	if (!w->sub.have_best || hd->h.number > w->sub.best) {
		w->sub.best = hd->h.number;
		w->sub.have_best = 1;
		w->sub.since = now_mono_ms();
	}
}

void
sup_primary_json(const char *chain, json_t *j)
{
	const struct conf_chain	*cc = NULL;
	const struct chain	*ch;
	json_t			*h = json_null();

	for (size_t i = 0; sup_conf != NULL && i < sup_conf->n_chains; i++)
		if (strcmp(sup_conf->chains[i].name, chain) == 0)
			cc = &sup_conf->chains[i];
	if (cc == NULL) {	/* stored, no longer configured */
		json_object_set_new(j, "subscribe", json_null());
		json_object_set_new(j, "subscription", h);
		return;
	}
	json_object_set_new(j, "subscribe", json_string(cc->subscribe ==
	    SUBSCRIBE_PRIMARY ? "primary" : "all"));
	ch = sup_chain_find(chain);
	for (size_t i = 0; ch != NULL && cc->subscribe == SUBSCRIBE_PRIMARY &&
	    i < ch->n_workers; i++) {
		struct worker	*w = ch->workers[i];

		if (w->sub.held) {
			h = json_pack("{s:s, s:b, s:I}", "endpoint", w->name,
			    "live", w->sub.live && w->sub.told_gen == w->gen,
			    "since", (json_int_t)w->sub.held_at);
			break;
		}
	}
	json_object_set_new(j, "subscription", h);
}
