/*
 * Endpoint judging, once a tick: who of a chain's endpoints is overdue
 * while the others answer, who fails against what its peers show,
 * whether the whole chain is slow (stored when it changes), and what the
 * chains concluded about endpoints; all of it goes to their health.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sup_block.h"
#include "sup_chain.h"
#include "sup_claim.h"
#include "sup_health.h"
#include "sup_judge.h"
#include "sup_load.h"
#include "sup_overdue.h"
#include "sup_route.h"
#include "sup_sched.h"
#include "sup_sched_int.h"
#include "sup_spawn.h"
#include "sup_store.h"
#include "util.h"

static struct store_stmt s_slow = { "UPDATE chains SET slow_reason = ?1, "
    "slow_since = coalesce(slow_since, ?2) WHERE id = ?3", NULL, NULL };
static struct store_stmt s_fast = { "UPDATE chains SET slow_reason = NULL, "
    "slow_since = NULL WHERE id = ? AND slow_reason IS NOT NULL", NULL,
    NULL };

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
 * run of failures against what the others show.
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
		sched_health(ws[i], health_peers(ws[i]->ep, others, k));
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

	for (size_t j = 0; j < ch->n_workers; j++) {
		struct worker	*o = ch->workers[j];

		if (o->proc.fsm.state != CS_RUNNING)
			continue;
		if (n == cap) {
			cap = cap == 0 ? 16 : cap * 2;
			eps = xrealloc(eps, cap * sizeof(*eps));
			ws = xrealloc(ws, cap * sizeof(*ws));
			es = xrealloc(es, cap * sizeof(*es));
		}
		eps[n].waiting = sched_waiting(o);
		eps[n].answered = o->ep->answered;
		eps[n].answered_in = o->ep->answered_in;
		es[n] = o->ep;
		ws[n++] = o;
	}
	/* Everyone inconsistent, nothing fetched: the rule is suspected. */
	if (n > 0)
		sched_health(ws[0], health_doubted(es, n, ch->name,
		    claim_patience(ch)));
	/* A breaker that knows speaks first: it outweighs overdue. */
	peers_chain(ws, n);
	latency = route_latency_quantile(&load_of(ch)->hedging, OVERDUE_QUANTILE, now);
	/* Quiet: the endpoints' latest answers tell instead (sup_overdue.c). */
	bound = overdue_chain_bound(latency != 0 ? latency :
	    overdue_answers_median(eps, n), load_of(ch)->hedging.after);
	for (size_t i = 0; i < n; i++) {
		/* Overdue, its leases go back; what it has out answers on,
		 * for its health. */
		if (overdue_judge(eps, n, i, bound, watched, now, &age) ==
		    OV_OVERDUE)
			sched_health(ws[i], health_overdue(ws[i]->ep,
			    eps[i].waiting, age));
		else
			sched_health(ws[i], health_overdue(ws[i]->ep, 0, 0));
	}
	slow_store(ch, overdue_chain_slow(eps, n, bound, watched, now,
	    latency, why, sizeof(why)), why);
}

/* Every chain with workers once a tick. */
void
judge_overdue(void)
{
	static uint64_t		 last, watched;
	uint64_t		 now = now_mono_ms();
	struct chain *const	*all;
	size_t			 n;

	watched = overdue_watched(watched, last, now);
	last = now;
	all = sup_chains_all(&n);
	for (size_t i = 0; i < n; i++)
		if (all[i]->n_workers > 0)
			overdue_chain(all[i], watched, now);
}

/*
 * What a chain concluded about one of its endpoints goes to its health:
 * a lie (a head that never connected, a header whose number is not its
 * parent's + 1, a branch below finality, a finalized head off the chain,
 * an answer that contradicts the chain) or an agreement.  The one way
 * for every verdict.
 */
void
judge_verdict(struct chain *ch, const struct chain_verdict *v)
{
	struct worker	*w = NULL;

	for (size_t i = 0; w == NULL && i < ch->n_workers; i++)
		if (ch->workers[i]->ep->id == v->endpoint_id)
			w = ch->workers[i];
	if (w == NULL) {
		char	en[CONF_NAME_MAX + 16];

		if (v->kind == CV_CONTRADICTED)
			log_warnx("%s (gone): contradicted: %s",
			    block_ep_name(v->endpoint_id, en), v->reason);
		return;
	}
	sched_health(w, v->kind == CV_CONTRADICTED ?
	    sup_health_contradicted(w->ep, v->reason) :
	    sup_health_agrees(w->ep));
}

/* Each of the verdicts a chain returned, in order. */
void
judge_verdicts(struct chain *ch, const struct chain_verdicts *vs)
{
	for (size_t i = 0; i < vs->n; i++)
		judge_verdict(ch, &vs->v[i]);
}

/*
 * Each chain's clock (claims judged, ranges queued, finality moved), and
 * what it concluded, to the endpoints' health.
 */
void
judge_chains(uint64_t now)
{
	struct chain *const	*all;
	size_t			 n;

	all = sup_chains_all(&n);
	for (size_t i = 0; i < n; i++) {
		struct chain_verdicts	vs;

		vs.n = 0;
		sup_chain_tick(all[i], now, &vs);
		judge_verdicts(all[i], &vs);
	}
}
