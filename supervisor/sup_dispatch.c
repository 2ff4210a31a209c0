/*
 * Messages from workers.  Each one is checked for length, shape, type and
 * generation before it is used; what it reports is applied here, to the
 * chain (heads, fetched headers, state), the endpoint's health and the
 * scheduler, in that order.  A worker that sends anything else is killed
 * by its owner (sup_spawn.c), because nothing it says afterwards can be
 * trusted.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "log.h"
#include "proto.h"
#include "sup_chain.h"
#include "sup_dispatch.h"
#include "sup_forks.h"
#include "sup_health.h"
#include "sup_judge.h"
#include "sup_primary.h"
#include "sup_queue.h"
#include "sup_reply.h"
#include "sup_sched.h"
#include "sup_store.h"
#include "sup_spawn.h"
#include "util.h"

/* A short form of a hash for logs: 0x1234abcd... */
static const char *
short_hash(const uint8_t h[32], char buf[16])
{
	char	full[67];

	hex_encode(h, 32, full);
	snprintf(buf, 16, "%.10s...", full);
	return buf;
}

/*
 * What an endpoint says it is.  An endpoint whose headers do not hash to
 * the hashes it serves them under, in the chain's format, gets no work and
 * sets nothing (not even the chain's genesis): every block hash computed
 * from its headers would be one the chain never had.  An endpoint of
 * another genesis gets no work: it would feed another chain's blocks into
 * this one.  Both are quarantined until facts that fit come (a corrected
 * configuration, a restart).
 */
static void
dispatch_info(struct worker *w, const struct proto_info *in)
{
	struct chain	*ch = w->ep->ch;
	char		 g[67], want[67], why[160];
	unsigned	 act;

	if (ch == NULL || in->outcome != OUTCOME_OK)
		return;
	health_info(w->ep, in);
	if (!in->fits) {
		snprintf(why, sizeof(why), "headers do not hash as %s: is "
		    "`format` right?", chain_format_name(ch->format));
		act = health_wrong_chain(w->ep, why);
		if (act & HEALTH_QUARANTINED)
			log_warnx("w/%s: %s (%s); quarantined: it gets no work "
			    "and nothing it serves is stored", w->name, why,
			    in->why);
		sched_health(w, act);
		return;
	}
	if (sup_chain_genesis(ch, in->genesis) == -1) {
		hex_encode(in->genesis, 32, g);
		hex_encode(ch->genesis, 32, want);
		snprintf(why, sizeof(why), "wrong genesis: serves 0x%.12s..., "
		    "chain %s has 0x%.12s...", g + 2, ch->name, want + 2);
		act = health_wrong_chain(w->ep, why);
		if (act & HEALTH_QUARANTINED)
			log_warnx("w/%s: serves genesis %.18s..., chain %s has "
			    "%.18s...; quarantined: it gets no work", w->name,
			    g, ch->name, want);
		sched_health(w, act);
		return;
	}
	sup_chain_runtime(ch, in->spec_name, in->spec_version, NULL, 0,
	    now_wall_ms());
	sched_health(w, health_facts(w->ep, in->chain));
	sched_kick();
}

/* State answers of up to this many blocks all have one read again. */
#define SAMPLE_BLOCKS	4

/*
 * Can another endpoint of w's chain be asked now, one that is not
 * failing (a sample's read: not worth a failing one's retries)?
 */
static int
another_usable(const struct worker *w)
{
	const struct chain	*ch = w->ep->ch;

	for (size_t i = 0; i < ch->n_workers; i++) {
		const struct worker	*o = ch->workers[i];

		if (o != w && o->proc.fsm.state == CS_RUNNING &&
		    health_usable(o->ep) && !breaker_failing(&o->ep->brk))
			return 1;
	}
	return 0;
}

/*
 * An answer to a request: what it says goes into the chain first.  One
 * that does not answer what was asked (reply_answer checked) applies
 * nothing; one whose range does not link contradicts the chain.
 */
static int
dispatch_answer(struct worker *w, const struct msg *m, char *err,
    size_t errlen)
{
	struct reply		a;
	struct chain_verdicts	vs;
	struct chain_verdict	lie;
	int			r;
	uint64_t		now = now_wall_ms();
	size_t			fresh[PROTO_READS_MAX], nfresh = 0;

	if ((r = reply_answer(w, m, &a, now, err, errlen)) <= 0)
		return r;
	vs.n = 0;
	switch (a.kind) {
	case K_HEADERS:
	case K_PARENT:
		if (!a.settles || a.rejected)
			break;
		for (size_t i = 0; i < a.headers->n; i++)
			if (a.headers->items[i].outcome == OUTCOME_OK)
				sup_chain_fetched(a.ch, a.endpoint_id,
				    &a.headers->items[i].h, now, &vs);
		break;
	case K_STATE:
		for (size_t i = 0; i < a.n; i++)
			if (sup_chain_state(a.ch, a.endpoint_id, a.hashes[i],
			    a.difficulty[i], a.timestamp[i], now, &vs))
				fresh[nfresh++] = i;
		/*
		 * A block whose difficulty it gave first, drawn at random,
		 * is read again elsewhere: of every live answer (a block or
		 * a few), of one backfill range in 12 or so (SAMPLE_BLOCKS),
		 * when another endpoint can be asked now.  Never of a read
		 * again (a sample's own answer): it would be drawn anew.
		 */
		if (nfresh > 0 && arc4random_uniform((uint32_t)a.n) <
		    SAMPLE_BLOCKS && another_usable(w))
			sup_chain_sample(a.ch, a.endpoint_id, a.hashes[
			    fresh[arc4random_uniform((uint32_t)nfresh)]], &vs);
		break;
	case K_RUNTIME:
		if (!a.settles)
			break;
		if (a.done)
			sup_chain_runtime(a.ch, a.runtime->spec_name,
			    a.runtime->spec_version, a.hashes[0], a.number,
			    now);
		else if (!sup_chain_canonical(a.ch, a.hashes[0]))
			a.done = 1;	/* left the chain: nothing owed */
		break;
	}
	if (a.contradicts) {
		lie.endpoint_id = w->ep->id;
		lie.kind = CV_CONTRADICTED;
		snprintf(lie.reason, sizeof(lie.reason), "%s", a.why);
	}
	reply_settle(&a);
	/* After the settling: they may give back this endpoint's leases. */
	judge_verdicts(a.ch, &vs);
	if (a.contradicts)
		judge_verdict(a.ch, &lie);
	return 0;
}

/* "; retry after 6 s" for a log line, or "". */
static const char *
retry_words(uint64_t ms, char *buf, size_t len)
{
	if (ms == 0)
		return "";
	snprintf(buf, len, "; retry after %llu s",
	    (unsigned long long)(ms / 1000 + (ms % 1000 != 0)));
	return buf;
}

/* The endpoint's facts (genesis, runtime, best), or why none. */
static int
report_info(struct worker *w, const struct msg *m, char *err, size_t errlen)
{
	struct proto_info	info;
	char			hb[16];

	if (proto_unpack_info(m, &info, err, errlen) == -1)
		return -1;
	sched_health(w, health_probe(w->ep, info.outcome, 0));
	dispatch_info(w, &info);
	if (info.outcome != OUTCOME_OK)
		log_info("w/%s: endpoint facts: %s (%s)", w->name,
		    outcome_name(info.outcome), info.why);
	else
		log_info("w/%s: chain \"%s\" genesis %s runtime %s %llu "
		    "best #%llu", w->name, info.chain,
		    short_hash(info.genesis, hb), info.spec_name,
		    (unsigned long long)info.spec_version,
		    (unsigned long long)info.best);
	return 0;
}

static int
report_head(struct worker *w, const struct msg *m, char *err, size_t errlen)
{
	struct proto_head	head;
	struct chain		*ch;
	struct chain_verdicts	 vs;
	char			 hb[16];
	int64_t			 best;
	uint8_t			 best_hash[32];

	if (proto_unpack_head(m, &head, err, errlen) == -1)
		return -1;
	log_debug("w/%s: %s head #%llu %s", w->name,
	    head.kind == HEAD_FINALIZED ? "finalized" : "new",
	    (unsigned long long)head.h.number, short_hash(head.h.hash, hb));
	/*
	 * Not before its genesis is known to be the chain's.  An
	 * inconsistent endpoint's heads still come, so that it can agree
	 * again: a new head whose parent is on the chain; and its tip is
	 * shown among the forks.
	 */
	ch = w->ep->ch;
	if (ch != NULL &&
	    reply_figures(w, ch->format, &head.h, err, errlen) == -1)
		return -1;
	sup_primary_head(w, &head);
	if (!health_heard(w->ep) || ch == NULL)
		return 0;
	best = ch->best_number;
	memcpy(best_hash, ch->best_hash, 32);
	vs.n = 0;
	sup_chain_head(ch, w->ep->id, &head, now_wall_ms(), &vs);
	judge_verdicts(ch, &vs);
	sup_forks_head(w->ep->id, &head);
	/*
	 * A new best commits now, not with the batch: its state read is
	 * queued by the commit, and a backfill's batch would hold it back a
	 * loop turn or more.
	 */
	if (ch->best_number != best ||
	    memcmp(ch->best_hash, best_hash, 32) != 0)
		store_flush();
	return 0;
}

static int
report_sub(struct worker *w, const struct msg *m, char *err, size_t errlen)
{
	struct proto_sub	sub;

	if (proto_unpack_sub(m, &sub, err, errlen) == -1)
		return -1;
	log_info("w/%s: subscription %s%s%s", w->name, sub.live ? "live" :
	    "down", sub.why[0] != '\0' ? ": " : "", sub.why);
	health_event(w->ep, sub.live ? "sub_live" : "sub_down", sub.why);
	sup_primary_sub(w, &sub);
	return 0;
}

static int
report_outcome(struct worker *w, const struct msg *m, char *err,
    size_t errlen)
{
	struct proto_outcome	o;
	char			retry[48];

	if (proto_unpack_outcome(m, &o, err, errlen) == -1)
		return -1;
	sched_health(w, health_probe(w->ep, o.outcome, o.retry_ms));
	if (strcmp(o.what, "poll") == 0)
		health_polled(w->ep, o.outcome, o.latency_ms);
	stats_request(&w->ep->stats, o.outcome, o.latency_ms);
	log_debug("w/%s: %s %s in %llu ms%s%s%s", w->name, o.what,
	    outcome_name(o.outcome), (unsigned long long)o.latency_ms,
	    o.why[0] != '\0' ? ": " : "", o.why,
	    retry_words(o.retry_ms, retry, sizeof(retry)));
	return 0;
}

/*
 * Reports from the worker about its endpoint.  Returns -1 with err set
 * when the message does not unpack.
 */
static int
dispatch_report(struct worker *w, const struct msg *m, char *err,
    size_t errlen)
{
	switch (m->type) {
	case MSG_INFO:
		return report_info(w, m, err, errlen);
	case MSG_HEAD:
		return report_head(w, m, err, errlen);
	case MSG_SUB:
		return report_sub(w, m, err, errlen);
	case MSG_OUTCOME:
		return report_outcome(w, m, err, errlen);
	case MSG_RES_HEADERS:
	case MSG_RES_STORAGE:
	case MSG_RES_RUNTIME:
		return dispatch_answer(w, m, err, errlen);
	default:
		snprintf(err, errlen, "unexpected %s message",
		    msg_type_name(m->type));
		return -1;
	}
}

enum dispatch_verdict
sup_dispatch_worker(struct worker *w, const void *buf, long len,
    uint64_t *rss_kb, uint64_t *heap_kb, char *why, size_t whylen)
{
	struct msg		m;
	enum dispatch_verdict	v = DV_OK;

	if (len > MSG_MAX) {
		snprintf(why, whylen, "%ld bytes, over the %d byte limit",
		    len, MSG_MAX);
		return DV_BAD;
	}
	if (msg_parse(buf, (size_t)len, &m, why, whylen) == -1)
		return DV_BAD;
	switch (msg_check_gen(m.gen, w->gen)) {
	case MSG_GEN_OK:
		break;
	case MSG_GEN_STALE:
		log_debug("w/%s: dropped %s of stale generation %u (now %u)",
		    w->name, msg_type_name(m.type), m.gen, w->gen);
		msg_free(&m);
		return DV_STALE;
	case MSG_GEN_BAD:
		snprintf(why, whylen, "generation %u, expected %u", m.gen,
		    w->gen);
		msg_free(&m);
		return DV_BAD;
	}
	switch (m.type) {
	case MSG_HELLO:
		/* One that started as it was asked to stop: nothing to do. */
		if (sup_fsm_stopping(&w->proc.fsm))
			break;
		if (w->proc.fsm.state != CS_STARTING) {
			snprintf(why, whylen, "a second hello");
			v = DV_BAD;
		} else
			v = DV_HELLO;
		break;
	case MSG_HEARTBEAT:
		/* heap_kb: not from a worker built without mallinfo2. */
		if (msg_get_uint(&m, "rss_kb", rss_kb) == -1) {
			snprintf(why, whylen, "heartbeat without rss_kb");
			v = DV_BAD;
		} else {
			if (msg_get_uint(&m, "heap_kb", heap_kb) == -1)
				*heap_kb = 0;
			v = DV_HEARTBEAT;
		}
		break;
	default:
		/* A worker asked to stop may still be answering: drop it. */
		if (sup_fsm_stopping(&w->proc.fsm))
			break;
		if (w->proc.fsm.state != CS_RUNNING) {
			snprintf(why, whylen, "%s before hello",
			    msg_type_name(m.type));
			v = DV_BAD;
		} else if (dispatch_report(w, &m, why, whylen) == -1)
			v = DV_BAD;
		else if (queue_added())
			sched_kick();
		break;
	}
	msg_free(&m);
	return v;
}

enum dispatch_class
sup_dispatch_class(struct worker *w, const void *buf, long len)
{
	struct msg		m;
	char			why[8];
	uint64_t		id;
	enum dispatch_class	c = DC_NOW;

	/* A bad one is told at once, when it is dispatched. */
	if (len > MSG_MAX || msg_parse(buf, (size_t)len, &m, why,
	    sizeof(why)) == -1)
		return DC_NOW;
	switch (m.type) {
	case MSG_HEARTBEAT:
		c = DC_HEARTBEAT;
		break;
	case MSG_RES_HEADERS:
	case MSG_RES_STORAGE:
		if (msg_check_gen(m.gen, w->gen) == MSG_GEN_OK &&
		    msg_get_uint(&m, "id", &id) == 0 &&
		    reply_arrived(w, id))
			c = DC_BULK;
		break;
	default:
		break;
	}
	msg_free(&m);
	return c;
}
