/*
 * Endpoint health: each endpoint's breaker is fed the outcome of every
 * request, one outcome a request however many items it carried, and its
 * availability the lifecycle of its worker and the facts it reports.
 * Their changes are logged, recorded as endpoint events and stored.  The
 * callers get back what a change means for them (HEALTH_BACK,
 * HEALTH_GONE): this file calls nothing above it.
 */
#include "config.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "log.h"
#include "sup_chain.h"
#include "sup_health.h"
#include "sup_lease.h"
#include "sup_overdue.h"
#include "sup_store.h"
#include "util.h"

static struct store_stmt s_get = { "SELECT state, state_since, state_reason "
    "FROM endpoints WHERE id = ?", NULL, NULL };
static struct store_stmt s_put = { "UPDATE endpoints SET state = ?, "
    "state_since = ?, state_reason = ? WHERE id = ?", NULL, NULL };
static struct store_stmt s_ep_get = { "SELECT id FROM endpoints WHERE "
    "name = ?", NULL, NULL };
static struct store_stmt s_ep_insert = { "INSERT INTO endpoints (chain_id, "
    "name, rpc_url, ws_url, position) VALUES (?, ?, ?, ?, ?)", NULL, NULL };
static struct store_stmt s_ep_conf = { "UPDATE endpoints SET chain_id = ?, "
    "rpc_url = ?, ws_url = ?, position = ?, configured = 1 WHERE id = ?",
    NULL, NULL };
static struct store_stmt s_ep_unconf = { "UPDATE endpoints SET "
    "configured = 0", NULL, NULL };
static struct store_stmt s_ep_info = { "UPDATE endpoints SET genesis = ?, "
    "system_chain = ?, spec_name = ?, spec_version = ? WHERE id = ?",
    NULL, NULL };
static struct store_stmt s_ep_restarts = { "UPDATE endpoints SET "
    "restarts = ? WHERE id = ?", NULL, NULL };
static struct store_stmt s_pruned = { "UPDATE endpoints SET "
    "pruning_bound = ? WHERE id = ?", NULL, NULL };
static struct store_stmt s_pruned_get = { "SELECT pruning_bound FROM "
    "endpoints WHERE id = ?", NULL, NULL };
static struct store_stmt s_event = { "INSERT INTO endpoint_events "
    "(endpoint_id, at, kind, detail) VALUES (?, ?, ?, ?)", NULL, NULL };

static void
health_conf(const struct conf_chain *cc, struct breaker_conf *bc)
{
	breaker_conf_default(bc);
	bc->failure_pct = (unsigned)cc->breaker_failure_rate;
	bc->window = cc->breaker_window;
	bc->min_samples = (unsigned)cc->breaker_min_samples;
	bc->consecutive = (unsigned)cc->breaker_consecutive;
	bc->min_span = cc->breaker_min_span;
	bc->cooldown = cc->breaker_cooldown;
	bc->cooldown_max = cc->breaker_cooldown_max;
	bc->trial_timeout = lease_deadline(0, cc->request_timeout);
}

/* What people see, stored. */
static void
health_store(struct endpoint *e)
{
	const char	*state, *reason;
	uint64_t	 since;

	if (e->id <= 0)
		return;
	state = ep_shown(&e->av, &e->brk, &since, &reason);
	store_run(store_bind(&s_put, "titi", state, (int64_t)since, reason,
	    e->id));
}

void
health_event(struct endpoint *e, const char *kind, const char *detail)
{
	if (e->id <= 0)
		return;
	store_run(store_bind(&s_event, "iitt", e->id, (int64_t)now_wall_ms(),
	    kind, detail != NULL ? detail : ""));
}

void
health_restarts(struct endpoint *e, unsigned restarts)
{
	if (e->id > 0)
		store_run(store_bind(&s_ep_restarts, "ii", (int64_t)restarts,
		    e->id));
}

/* One event of its availability; what it means goes to the caller. */
static unsigned
avail_at(struct endpoint *e, enum ep_event ev, const char *why,
    const char *detail, uint64_t now)
{
	unsigned	act = ep_step(&e->av, ev, why, now);

	if (act & EPA_QUARANTINE)
		health_event(e, "quarantined", why);
	if (act & EPA_RELEASE) {
		log_info("w/%s: serves the chain's genesis again, in its "
		    "format; quarantine over", e->name);
		health_event(e, "released", "genesis and header format match");
	}
	if (act & EPA_DOUBT) {
		log_warnx("w/%s: endpoint inconsistent: %s; it gets no work "
		    "until %d of its heads in a row connect", e->name, why,
		    EP_AGREE_N);
		health_event(e, "inconsistent", why);
	}
	if (act & EPA_TRUST) {
		log_info("w/%s: %d heads in a row connect; inconsistency over, "
		    "it gets work again", e->name, EP_AGREE_N);
		health_event(e, "consistent", detail);
	}
	if (act & EPA_ABSOLVE) {
		log_info("w/%s: inconsistency lifted: %s; it gets work again",
		    e->name, detail);
		health_event(e, "consistent", detail);
	}
	if (act & EPA_MUTE) {
		log_warnx("w/%s: endpoint unresponsive: %s while others "
		    "answer; it gets no work until it answers", e->name, why);
		health_event(e, "unresponsive", why);
	}
	if (act & EPA_HEARD) {
		log_info("w/%s: answers again; unresponsive no more", e->name);
		health_event(e, "answering", detail);
	}
	if ((act & EPA_READY) && !(act & (EPA_TRUST | EPA_HEARD)))
		health_event(e, "ready", detail);
	if (act & EPA_STORE)
		health_store(e);
	return act & (HEALTH_BACK | HEALTH_GONE | HEALTH_QUARANTINED);
}

static unsigned
avail(struct endpoint *e, enum ep_event ev, const char *why,
    const char *detail)
{
	return avail_at(e, ev, why, detail, now_wall_ms());
}

/* Usable: its worker runs and serves the chain; its breaker aside. */
int
health_usable(const struct endpoint *e)
{
	return e->av.state == EP_READY;
}

/*
 * Heard: its heads are taken in, as claims, while it is ready or
 * inconsistent (so that it can agree again), or unresponsive after its
 * facts came (its requests are overdue, its subscription may be fine).
 */
int
health_heard(const struct endpoint *e)
{
	return e->av.state == EP_READY || e->av.state == EP_INCONSISTENT ||
	    (e->av.state == EP_UNRESPONSIVE && e->av.back == EP_READY);
}

/*
 * A claim of it is contradicted by others or never connected: it is
 * inconsistent, with that reason, and gets no work (HEALTH_GONE, for the
 * scheduler: its leases go back); its worker runs on and its heads still
 * come, so that it can agree again.
 */
unsigned
sup_health_contradicted(struct endpoint *e, const char *reason)
{
	return avail(e, EPE_CONTRADICTED, reason, NULL);
}

/*
 * Evidence it agrees again: a head of it connected with no claim of it
 * held.  EP_AGREE_N of them in a row end an inconsistency.
 */
unsigned
sup_health_agrees(struct endpoint *e)
{
	char	detail[64];

	snprintf(detail, sizeof(detail), "%d heads in a row connect",
	    EP_AGREE_N);
	return avail(e, EPE_AGREES, NULL, detail);
}

/*
 * Of a chain's n endpoints (those whose workers run), none usable and the
 * inconsistent ones so for patience ms (ep_doubted): the rule is
 * suspected, not they, and each gets work again.  What each is owed
 * (HEALTH_BACK) is ORed into the result, for the scheduler.
 */
unsigned
health_doubted(struct endpoint *const *eps, size_t n, const char *chain,
    uint64_t patience)
{
	static const struct ep_avail	**av;
	static size_t			  cap;
	uint64_t			  now = now_wall_ms();
	unsigned			  act = 0;
	char				  why[128];

	if (n > cap) {
		cap = n;
		av = xrealloc(av, cap * sizeof(*av));
	}
	for (size_t i = 0; i < n; i++)
		av[i] = &eps[i]->av;
	if (!ep_doubted(av, n, patience, now))
		return 0;
	log_warnx("chain %s: every endpoint inconsistent for %llu ms or "
	    "more, nothing fetched: the rule is suspected, not them",
	    chain, (unsigned long long)patience);
	snprintf(why, sizeof(why), "every endpoint of the chain inconsistent "
	    "for %llu s", (unsigned long long)(patience / 1000));
	for (size_t i = 0; i < n; i++)
		act |= avail_at(eps[i], EPE_ABSOLVED, NULL, why, now);
	return act;
}

unsigned
health_spawned(struct endpoint *e)
{
	e->started = now_mono_ms();
	e->poll_ok = e->poll_lost = 0;
	return avail(e, EPE_SPAWNED, NULL, NULL);
}

/*
 * Its oldest request went out at waiting (monotonic ms), age ms ago, and
 * another endpoint answered since (sup_overdue.c): unresponsive, unless
 * its breaker already judges it.  Called again while it lasts, with the
 * reason brought up to date (waiting 0: from when it began).
 */
unsigned
health_overdue(struct endpoint *e, uint64_t waiting, uint64_t age)
{
	char		why[64];
	uint64_t	now = now_mono_ms(), wall = now_wall_ms();

	if (e->brk.state != BRK_CLOSED)
		return 0;
	/* Still unresponsive, nothing out any more: since its start. */
	if (waiting == 0) {
		if (e->av.state != EP_UNRESPONSIVE)
			return 0;
		age = wall > e->av.since ? wall - e->av.since : 0;
		waiting = now > age ? now - age : 0;
	}
	snprintf(why, sizeof(why), "no answer for %llu s",
	    (unsigned long long)(age / 1000));
	if (strcmp(why, e->av.reason) == 0)
		return 0;
	/* Since when, on the clock people read. */
	return avail_at(e, EPE_OVERDUE, why, NULL, wall - (now > waiting ?
	    now - waiting : 0));
}

/*
 * Since when it waits for an answer its worker asked on its own,
 * monotonic ms; 0: it does not.  Its facts, if it never answered
 * anything; else its best-head probes: one at a time, the next out at
 * most poll_ms after the last answered.
 */
uint64_t
health_waiting(const struct endpoint *e, uint64_t now)
{
	if (e->started != 0 && (e->av.state == EP_STARTING ||
	    (e->av.state == EP_UNRESPONSIVE && e->av.back == EP_STARTING)))
		return e->started;
	if (e->poll_lost != 0)
		return e->poll_lost;
	if (e->poll_ok != 0 && now > e->poll_ok + e->poll_ms)
		return e->poll_ok + e->poll_ms;
	return 0;
}

/*
 * The outcome of one of its worker's best-head probes, latency ms after
 * it went out.  An answer is evidence of the time it answers in, for the
 * others' judgement (e->answered: the latest sent of its answers).
 */
void
health_polled(struct endpoint *e, enum outcome o, uint64_t latency)
{
	uint64_t	now = now_mono_ms();
	uint64_t	sent = now > latency ? now - latency : 0;

	/*
	 * A transport failure that came back at once (a refused or reset
	 * connection) is no silence: the host says no, and its breaker
	 * judges that (transport, in some 2 s).  Counted as a probe lost,
	 * the unresponsive rule would call a refusing host "no answer for
	 * 2 s" first, now and then (once in four runs at 12 s blocks).  Nor
	 * is it a latency for the others' judgement.
	 */
	if (o == OUTCOME_TRANSPORT && latency < OVERDUE_MIN_MS) {
		e->poll_lost = 0;
		e->poll_ok = now;
		return;
	}
	if (o == OUTCOME_TIMEOUT || o == OUTCOME_TRANSPORT) {
		if (e->poll_lost == 0)
			e->poll_lost = sent != 0 ? sent : 1;
		return;
	}
	e->poll_lost = 0;
	e->poll_ok = now;
	if (sent >= e->answered) {
		e->answered = sent;
		e->answered_in = latency;
	}
}

/* Anything but silence is an answer: it ends an unresponsiveness. */
static unsigned
answered(struct endpoint *e, enum outcome o)
{
	if (o == OUTCOME_TIMEOUT || o == OUTCOME_TRANSPORT)
		return 0;
	return avail(e, EPE_ANSWERED, NULL, outcome_name(o));
}

unsigned
health_lost(struct endpoint *e, const char *why)
{
	return avail(e, EPE_LOST, why, NULL);
}

unsigned
health_exited(struct endpoint *e)
{
	return avail(e, EPE_EXITED, NULL, NULL);
}

/* Another genesis, or headers that do not hash as the chain's format. */
unsigned
health_wrong_chain(struct endpoint *e, const char *why)
{
	return avail(e, EPE_WRONG_CHAIN, why, NULL);
}

/* What the endpoint says it is, stored whatever it is. */
void
health_info(struct endpoint *e, const struct proto_info *in)
{
	store_run(store_bind(&s_ep_info, "bttii", in->genesis, in->chain,
	    in->spec_name, (int64_t)in->spec_version, e->id));
}

/* It serves the chain's genesis, in headers that fit its format. */
unsigned
health_facts(struct endpoint *e, const char *chain)
{
	if (e->started != 0 && e->started >= e->answered) {
		e->answered = e->started;
		e->answered_in = now_mono_ms() - e->started;
	}
	e->started = 0;
	return avail(e, EPE_FACTS, NULL, chain);
}

/* After any breaker call: say and keep what changed. */
static unsigned
breaker_note(struct endpoint *e, enum brk_state before)
{
	unsigned	act = 0;

	if (e->brk.state == before)
		return 0;
	switch (e->brk.state) {
	case BRK_OPEN:
		log_warnx("w/%s: endpoint unhealthy: %s; requests go elsewhere "
		    "for %.0f s", e->name, e->brk.reason,
		    (double)e->brk.cooldown / 1000.0);
		break;
	case BRK_HALF_OPEN:
		log_info("w/%s: trying the endpoint again with one request",
		    e->name);
		break;
	case BRK_CLOSED:
		log_info("w/%s: endpoint healthy again", e->name);
		act = HEALTH_BACK;
		/*
		 * It answered: probes lost during the outage are no wait
		 * of now (else it would be shown unresponsive for them
		 * until its next probe); its next probe is due from now.
		 */
		e->poll_lost = 0;
		if (e->poll_ok != 0)
			e->poll_ok = now_mono_ms();
		break;
	}
	health_event(e, breaker_state_name(e->brk.state), e->brk.reason);
	/* Its breaker knows now, and tries it: no longer merely overdue. */
	if (before == BRK_CLOSED && e->av.state == EP_UNRESPONSIVE)
		act |= avail(e, EPE_JUDGED, NULL, NULL);
	health_store(e);
	return act;
}

static int64_t
endpoint_id(const char *name)
{
	sqlite3_stmt	*st = store_bind(&s_ep_get, "t", name);
	int64_t		 id = 0;

	if (store_row(st))
		id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return id;
}

/* What the store knows of an endpoint's pruning. */
static int64_t
pruning_bound(int64_t id)
{
	sqlite3_stmt	*st = store_bind(&s_pruned_get, "i", id);
	int64_t		 bound = -1;

	if (store_row(st) && sqlite3_column_type(st, 0) != SQLITE_NULL)
		bound = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return bound;
}

/* The chain cc configures: loaded before its endpoints are made. */
static struct chain *
chain_of(const struct conf_chain *cc)
{
	struct chain	*ch = sup_chain_find(cc->name);

	if (ch == NULL)
		fatalx(CW_EXIT_INTERNAL, "chain %s: endpoint before the chain",
		    cc->name);
	return ch;
}

/*
 * An endpoint for a new worker, with its breaker as the store last saw
 * it: an endpoint open at the last run stays open.
 */
struct endpoint *
health_new(const struct conf_chain *cc, const struct conf_endpoint *ep)
{
	struct endpoint		*e = xcalloc(1, sizeof(*e));
	struct breaker_conf	 bc;
	sqlite3_stmt		*st;
	enum brk_state		 state;
	uint64_t		 now = now_wall_ms();

	snprintf(e->name, sizeof(e->name), "%s", ep->name);
	e->ch = chain_of(cc);
	e->poll_ms = proto_poll_ms(cc->block_time);
	e->id = endpoint_id(ep->name);
	e->position = (int)(ep - cc->endpoints);
	e->pruning_bound = pruning_bound(e->id);
	ep_init(&e->av);
	health_conf(cc, &bc);
	breaker_init(&e->brk, &bc, now);
	if (e->id <= 0)
		return e;
	st = store_bind(&s_get, "i", e->id);
	if (store_row(st) && sqlite3_column_type(st, 0) == SQLITE_TEXT &&
	    breaker_state_parse((const char *)sqlite3_column_text(st, 0),
	    &state) == 0 && state != BRK_CLOSED) {
		const char *reason = (const char *)sqlite3_column_text(st, 2);

		breaker_restore(&e->brk, &bc, state,
		    (uint64_t)sqlite3_column_int64(st, 1), bc.cooldown,
		    reason != NULL ? reason : "", now);
		log_info("w/%s: endpoint was %s at the last run (%s); kept so",
		    e->name, breaker_state_name(state), e->brk.reason);
		sqlite3_reset(st);
		return e;
	}
	sqlite3_reset(st);
	/* Judged from now on: say so, rather than "unknown". */
	health_store(e);
	return e;
}

void
health_free(struct endpoint *e)
{
	free(e);
}

/* New settings on reload: a fresh breaker in the same state. */
void
health_reconf(struct endpoint *e, const struct conf_chain *cc,
    const struct conf_endpoint *ep)
{
	struct breaker_conf	bc;
	enum brk_state		state = e->brk.state;
	char			reason[BRK_REASON_MAX];

	e->ch = chain_of(cc);
	e->position = (int)(ep - cc->endpoints);
	e->poll_ms = proto_poll_ms(cc->block_time);
	health_conf(cc, &bc);
	if (memcmp(&bc, &e->brk.conf, sizeof(bc)) == 0)
		return;
	snprintf(reason, sizeof(reason), "%s", e->brk.reason);
	if (state == BRK_CLOSED)
		breaker_init(&e->brk, &bc, now_wall_ms());
	else
		breaker_restore(&e->brk, &bc, state, e->brk.since, bc.cooldown,
		    reason, now_wall_ms());
}

/* An outcome for its breaker: a request's, or a probe's (probe 1). */
static unsigned
counted(struct endpoint *e, uint32_t gen, enum outcome o, uint64_t retry_ms,
    int probe)
{
	enum brk_state	before = e->brk.state;
	unsigned	act;
	uint64_t	now = now_wall_ms();
	int		r;

	r = probe ? breaker_probe(&e->brk, gen, o, now) :
	    breaker_outcome(&e->brk, gen, o, now);
	if (r != -1 && o == OUTCOME_RATE_LIMITED && retry_ms > 0)
		breaker_retry_after(&e->brk, retry_ms, now);
	act = breaker_note(e, before);
	return act | answered(e, o);
}

/* The outcome of a request sent at breaker generation gen. */
unsigned
health_outcome(struct endpoint *e, uint32_t gen, enum outcome o,
    uint64_t retry_ms)
{
	return counted(e, gen, o, retry_ms, 0);
}

/*
 * It as the other endpoints of its chain see it (the peer rule): out if
 * down, quarantined, inconsistent or unresponsive; one whose worker only
 * starts is judged by its breaker, which its start-up facts feed.
 */
void
health_peer(const struct endpoint *e, struct brk_peer *p)
{
	breaker_peer(&e->brk, e->av.state == EP_READY ||
	    e->av.state == EP_STARTING, p);
}

/*
 * The peer rule (sup_breaker.h): peers are the n other endpoints of its
 * chain.  Its breaker may open now, whatever it was last told.
 */
unsigned
health_peers(struct endpoint *e, const struct brk_peer *peers, size_t n)
{
	enum brk_state	before = e->brk.state;

	if (breaker_peers(&e->brk, peers, n, now_wall_ms()) != 1)
		return 0;
	return breaker_note(e, before);
}

/*
 * The outcome of a request the worker made on its own (its best-head
 * probe, its start-up facts).  It counts while the breaker is closed,
 * so that an endpoint with no queued work still trips; it cannot stand
 * in for the trial of an open one, nor its success end a run of wrong
 * answers (breaker_probe).
 */
unsigned
health_probe(struct endpoint *e, enum outcome o, uint64_t retry_ms)
{
	if (e->brk.state == BRK_CLOSED)
		return counted(e, e->brk.gen, o, retry_ms, 1);
	return answered(e, o);
}

/*
 * May it be sent work now?  1 if so, with *limit the requests it may
 * have out and *deadline perhaps shortened.  idle: it has nothing out,
 * so that a trial is the only request of a half-open endpoint.
 */
int
health_allow(struct endpoint *e, int all_open, int idle, unsigned *limit,
    uint32_t *deadline)
{
	enum brk_state	 before = e->brk.state;
	uint64_t	 now = now_wall_ms();

	switch (breaker_peek(&e->brk, now)) {
	case BRK_ALLOW:
		return 1;
	case BRK_TRIAL:
		/* One real request is the trial, and nothing else. */
		if (!idle)
			return 0;
		(void)breaker_allow(&e->brk, now);
		(void)breaker_note(e, before);
		*limit = 1;
		return 1;
	case BRK_DENY_OPEN:
		/* Every endpoint open: failures are often shared; try. */
		if (!all_open)
			return 0;
		*limit = 1;
		if (*deadline > HEALTH_SHORT_TIMEOUT_MS)
			*deadline = HEALTH_SHORT_TIMEOUT_MS;
		return 1;
	case BRK_DENY_SLOW:
	default:
		return 0;
	}
}

/*
 * The endpoint answered that it no longer holds the state of block number:
 * an answer, not a failure.  Older state is read elsewhere from now on.
 */
void
health_pruned(struct endpoint *e, int64_t number)
{
	char	detail[64];

	if (number <= e->pruning_bound)
		return;
	e->pruning_bound = number;
	store_run(store_bind(&s_pruned, "ii", number, e->id));
	snprintf(detail, sizeof(detail), "no state at or below #%lld",
	    (long long)number);
	log_info("w/%s: state pruned at #%lld and below; older state is read "
	    "from other endpoints", e->name, (long long)number);
	health_event(e, "pruned", detail);
}

/* Endpoint rows follow the configuration; removed ones are kept. */
int64_t
health_sync(const struct conf *conf)
{
	store_run(store_prepare(&s_ep_unconf));
	for (size_t i = 0; i < conf->n_chains; i++) {
		struct chain *ch = sup_chain_find(conf->chains[i].name);

		for (size_t j = 0; j < conf->chains[i].n_endpoints; j++) {
			const struct conf_endpoint *ep =
			    &conf->chains[i].endpoints[j];
			char rpc[CONF_URL_MAX + 16], ws[CONF_URL_MAX + 16];
			int64_t id = endpoint_id(ep->name);

			url_redact(ep->rpc_url, rpc, sizeof(rpc));
			url_redact(ep->ws_url, ws, sizeof(ws));
			if (id == 0)
				store_run(store_bind(&s_ep_insert, "ittti",
				    ch->id, ep->name, rpc, ws, (int64_t)j));
			else
				store_run(store_bind(&s_ep_conf, "ittii",
				    ch->id, rpc, ws, (int64_t)j, id));
		}
	}
	store_flush();
	return 0;
}
