/*
 * Endpoint health: each endpoint's breaker (sup_breaker.c) is fed the
 * outcome of every request, one outcome a request however many items it
 * carried, plus its worker's hangs and deaths; its changes are logged,
 * recorded as endpoint events and stored, so that a restart does not
 * flood a host known to be bad.
 */
#include "config.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "sup.h"
#include "util.h"

static struct store_stmt s_get = { "SELECT state, state_since, state_reason "
    "FROM endpoints WHERE id = ?", NULL, NULL };
static struct store_stmt s_put = { "UPDATE endpoints SET state = ?, "
    "state_since = ?, state_reason = ? WHERE id = ?", NULL, NULL };

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

/*
 * What people see: a quarantine or a worker that is down outweighs the
 * breaker, which only judges answers.
 */
static void
health_store(struct worker *w)
{
	if (w->endpoint_id <= 0)
		return;
	if (w->quarantine[0] != '\0')
		store_run(store_bind(&s_put, "titi", "quarantined",
		    (int64_t)w->quarantine_since, w->quarantine,
		    w->endpoint_id));
	else if (w->down_reason[0] != '\0')
		store_run(store_bind(&s_put, "titi", "down",
		    (int64_t)w->down_since, w->down_reason, w->endpoint_id));
	else
		store_run(store_bind(&s_put, "titi",
		    breaker_state_name(w->brk.state), (int64_t)w->brk.since,
		    w->brk.reason, w->endpoint_id));
}

/* Its worker hung, died or failed its setup: no use until it is back. */
void
sup_health_down(struct worker *w, const char *why)
{
	if (w->down_reason[0] == '\0')
		w->down_since = now_wall_ms();
	snprintf(w->down_reason, sizeof(w->down_reason), "%s", why);
	health_store(w);
}

/* Its worker is back and serves the chain's genesis. */
void
sup_health_up(struct worker *w)
{
	int	changed = w->down_reason[0] != '\0' || w->quarantine[0] != '\0';

	if (w->quarantine[0] != '\0') {
		log_info("w/%s: serves the chain's genesis again; "
		    "quarantine over", w->name);
		sup_endpoint_event(w, "released", "genesis matches");
	}
	w->down_reason[0] = '\0';
	w->quarantine[0] = '\0';
	if (changed)
		health_store(w);
}

/* It serves another chain: no work at all until that changes. */
void
sup_health_quarantine(struct worker *w, const char *why)
{
	if (w->quarantine[0] == '\0')
		w->quarantine_since = now_wall_ms();
	snprintf(w->quarantine, sizeof(w->quarantine), "%s", why);
	w->down_reason[0] = '\0';
	health_store(w);
}

/* After any breaker call: say and keep what changed. */
static void
health_note(struct worker *w, enum brk_state before)
{
	if (w->brk.state == before)
		return;
	switch (w->brk.state) {
	case BRK_OPEN:
		log_warnx("w/%s: endpoint unhealthy: %s; requests go elsewhere "
		    "for %.0f s", w->name, w->brk.reason,
		    (double)w->brk.cooldown / 1000.0);
		break;
	case BRK_HALF_OPEN:
		log_info("w/%s: trying the endpoint again with one request",
		    w->name);
		break;
	case BRK_CLOSED:
		log_info("w/%s: endpoint healthy again", w->name);
		sup_queue_endpoint_back(w);
		break;
	}
	sup_endpoint_event(w, breaker_state_name(w->brk.state), w->brk.reason);
	health_store(w);
}

/* A breaker for a new worker, as the store last saw its endpoint. */
void
sup_health_init(struct worker *w, const struct conf_chain *cc)
{
	struct breaker_conf	 bc;
	sqlite3_stmt		*st;
	enum brk_state		 state;
	uint64_t		 now = now_wall_ms();

	health_conf(cc, &bc);
	breaker_init(&w->brk, &bc, now);
	if (w->endpoint_id <= 0)
		return;
	st = store_bind(&s_get, "i", w->endpoint_id);
	if (store_row(st) && sqlite3_column_type(st, 0) == SQLITE_TEXT &&
	    breaker_state_parse((const char *)sqlite3_column_text(st, 0),
	    &state) == 0 && state != BRK_CLOSED) {
		const char *reason = (const char *)sqlite3_column_text(st, 2);

		breaker_restore(&w->brk, &bc, state,
		    (uint64_t)sqlite3_column_int64(st, 1), bc.cooldown,
		    reason != NULL ? reason : "", now);
		log_info("w/%s: endpoint was %s at the last run (%s); kept so",
		    w->name, breaker_state_name(state), w->brk.reason);
		sqlite3_reset(st);
		return;
	}
	sqlite3_reset(st);
	/* Judged from now on: say so, rather than "unknown". */
	health_store(w);
}

/* New settings on reload: a fresh breaker in the same state. */
void
sup_health_reconf(struct worker *w, const struct conf_chain *cc)
{
	struct breaker_conf	bc;
	enum brk_state		state = w->brk.state;
	char			reason[BRK_REASON_MAX];

	health_conf(cc, &bc);
	if (memcmp(&bc, &w->brk.conf, sizeof(bc)) == 0)
		return;
	snprintf(reason, sizeof(reason), "%s", w->brk.reason);
	if (state == BRK_CLOSED)
		breaker_init(&w->brk, &bc, now_wall_ms());
	else
		breaker_restore(&w->brk, &bc, state, w->brk.since, bc.cooldown,
		    reason, now_wall_ms());
}

/* The outcome of a request sent at breaker generation gen. */
void
sup_health_outcome(struct worker *w, uint32_t gen, enum outcome o)
{
	enum brk_state	before = w->brk.state;

	breaker_outcome(&w->brk, gen, o, now_wall_ms());
	health_note(w, before);
}

/*
 * The outcome of a request the worker made on its own (its best-head
 * probe, its start-up facts).  It counts while the breaker is closed,
 * so that an endpoint with no queued work still trips; it cannot stand
 * in for the trial of an open one.
 */
void
sup_health_probe(struct worker *w, enum outcome o)
{
	if (w->brk.state == BRK_CLOSED)
		sup_health_outcome(w, w->brk.gen, o);
}

/*
 * May the queue lease work to w now?  1 if so, with *limit the requests
 * it may have out and *deadline perhaps shortened.
 */
int
sup_health_allow(struct worker *w, int all_open, unsigned *limit,
    uint32_t *deadline)
{
	enum brk_state	 before = w->brk.state;
	uint64_t	 now = now_wall_ms();

	switch (breaker_peek(&w->brk, now)) {
	case BRK_ALLOW:
		return 1;
	case BRK_TRIAL:
		/* One real request is the trial, and nothing else. */
		if (w->inflight > 0)
			return 0;
		(void)breaker_allow(&w->brk, now);
		health_note(w, before);
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
