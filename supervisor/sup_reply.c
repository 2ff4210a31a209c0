/*
 * Answers to the scheduler's requests: each matched to its request,
 * checked against what was asked (sup_answer.c), counted for its
 * endpoint's health, window and the chain's hedging, and its lease
 * settled once the caller (sup_dispatch.c) applied what it says.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "log.h"
#include "sup_answer.h"
#include "sup_chain.h"
#include "sup_health.h"
#include "sup_lease.h"
#include "sup_load.h"
#include "sup_reply.h"
#include "sup_route.h"
#include "sup_sched.h"
#include "sup_sched_int.h"
#include "sup_spawn.h"
#include "sup_store.h"
#include "sup_time.h"
#include "util.h"

/*
 * r was answered in ms: evidence of how quickly its endpoint answers, for
 * the overdue rule, if it went out after the answered ones before it (its
 * probes' and facts' too: one counter, the endpoint's).
 */
static void
answered(struct request *r, uint64_t ms)
{
	struct endpoint	*e = r->w->ep;

	if (r->sent >= e->answered) {
		e->answered = r->sent;
		e->answered_in = ms;
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
reply_arrived(struct worker *w, uint64_t id)
{
	struct request	*r = sched_request_find(w, id);
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
		route_latency(&load_of(r->ch)->hedging, r->kind, came, now_mono_ms());
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
    struct reply *a)
{
	char		what[96];

	count(r, OUTCOME_MALFORMED, 0, 0);
	request_what(r, what, sizeof(what));
	log_warnx("w/%s: answer to request %llu (%s) does not answer it: %s; "
	    "counted malformed, %s", r->w->name, (unsigned long long)r->id,
	    what, what_differed, r->held != NULL ? "its item goes back to the "
	    "queue" : "nothing of it is used");
	snprintf(a->why_buf, sizeof(a->why_buf), "%s: %s", what,
	    what_differed);
	a->worst = OUTCOME_MALFORMED;
	a->why = a->why_buf;
	a->rejected = 1;
	a->contradicts = v == ANSWER_UNLINKED;
	/* Backoff as for any failure: another endpoint may take it before
	 * (sup_route.c), and a lone liar is not asked again at once. */
	a->at_once = 0;
}

static void
answer_headers(struct request *r, const struct proto_res_headers *rh,
    struct reply *a)
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

/*
 * A timestamp later than this clock + 30 s is a lie of its answerer: no
 * node imports that block.  Unless every endpoint of the chain said so
 * within a minute: then this clock is suspected (behind), said once, and
 * their answers are taken (sup_time.h).  1 if the answer was rejected.
 */
static int
clock_ahead(struct request *r, const struct proto_res_storage *rs,
    size_t per, uint64_t now, struct reply *a)
{
	struct chain	*ch = r->ch;
	uint64_t	 ahead = 0;
	long		 k = answer_check_clock(rs, per, now, &ahead);
	char		 why[ANSWER_WHY_MAX], doubt[ANSWER_WHY_MAX];

	if (k < 0) {
		time_kept(ch, TIME_RULE_CLOCK, now);
		return 0;
	}
	snprintf(doubt, sizeof(doubt), "every endpoint's timestamps are "
	    "ahead of this clock (w/%s's by %.0f s): this clock may be behind",
	    r->w->name, (double)ahead / 1000.0);
	if (time_broke(ch, TIME_RULE_CLOCK, r->w->ep->id, now, doubt))
		return 0;
	snprintf(why, sizeof(why), "the timestamp of #%lld is %.0f s ahead "
	    "of this clock (at most %d s)", (long long)r->numbers[(size_t)k /
	    per], (double)ahead / 1000.0, ANSWER_AHEAD_MAX / 1000);
	reject(r, ANSWER_WRONG, why, a);
	return 1;
}

static void
answer_storage(struct request *r, const struct proto_res_storage *rs,
    uint64_t now, struct reply *a)
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
	if (clock_ahead(r, rs, per, now, a))
		return;
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

int
reply_figures(const struct worker *w, enum chain_format fmt,
    const struct proto_header *h, char *err, size_t errlen)
{
	if (fmt != FORMAT_QUANTUS ||
	    arc4random_uniform(REPLY_FIGURES_ODDS) != 0 ||
	    answer_check_figures(h, err, errlen) == 0)
		return 0;
	log_warnx("w/%s: %s", w->name, err);
	return -1;
}

/* The answer's message unpacked into a, and its request's id; -1 with err. */
static int
reply_unpack(const struct msg *m, struct reply *a, uint64_t *id, char *err,
    size_t errlen)
{
	switch (m->type) {
	case MSG_RES_HEADERS:
		if (proto_unpack_res_headers(m, &a->res.headers, err,
		    errlen) == -1)
			return -1;
		*id = a->res.headers.id;
		return 0;
	case MSG_RES_STORAGE:
		if (proto_unpack_res_storage(m, &a->res.storage, err,
		    errlen) == -1)
			return -1;
		*id = a->res.storage.id;
		return 0;
	case MSG_RES_RUNTIME:
		if (proto_unpack_res_runtime(m, &a->res.runtime, err,
		    errlen) == -1)
			return -1;
		*id = a->res.runtime.id;
		return 0;
	default:
		snprintf(err, errlen, "unexpected %s message",
		    msg_type_name(m->type));
		return -1;
	}
}

/*
 * The request an answer of type to id is for: 1 with *rp, 0 for one no
 * longer out (a late answer), -1 with err for one never sent or of
 * another kind.
 */
static int
reply_match(struct worker *w, enum msg_type type, uint64_t id,
    struct request **rp, char *err, size_t errlen)
{
	struct request	*r;
	enum item_kind	 want;

	if (id >= sched_next_req) {
		snprintf(err, errlen, "answer to request %llu, never sent",
		    (unsigned long long)id);
		return -1;
	}
	if ((r = sched_request_find(w, id)) == NULL) {
		log_debug("w/%s: late answer to request %llu dropped", w->name,
		    (unsigned long long)id);
		return 0;
	}
	want = type == MSG_RES_HEADERS ? K_HEADERS :
	    type == MSG_RES_STORAGE ? K_STATE : K_RUNTIME;
	if (r->kind != want && !(r->kind == K_PARENT && want == K_HEADERS)) {
		snprintf(err, errlen, "%s answers request %llu of another kind",
		    msg_type_name(type), (unsigned long long)id);
		return -1;
	}
	*rp = r;
	return 1;
}

/*
 * An answer from a worker, matched to its request: 1 with *a filled, 0
 * for a late answer (dropped), -1 with err if it answers nothing it was
 * asked: the worker is then killed as for any bad message.
 */
int
reply_answer(struct worker *w, const struct msg *m, struct reply *a,
    uint64_t now, char *err, size_t errlen)
{
	struct proto_res_headers	*rh = &a->res.headers;
	struct proto_res_runtime	*rr = &a->res.runtime;
	struct request			*r;
	uint64_t			 id;
	int				 rc;

	if (reply_unpack(m, a, &id, err, errlen) == -1)
		return -1;
	if ((rc = reply_match(w, m->type, id, &r, err, errlen)) <= 0)
		return rc;
	if (m->type == MSG_RES_HEADERS)
		for (size_t i = 0; i < rh->n; i++)
			if (rh->items[i].outcome == OUTCOME_OK &&
			    reply_figures(w, r->ch->format, &rh->items[i].h,
			    err, errlen) == -1)
				return -1;
	/* Everything but the decoded answer, which the reply keeps. */
	memset(a, 0, offsetof(struct reply, res));
	a->why_buf[0] = '\0';
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
		answer_headers(r, rh, a);
		break;
	case K_STATE:
		answer_storage(r, &a->res.storage, now, a);
		break;
	case K_RUNTIME:
		count(r, rr->outcome, rr->latency_ms, 0);
		a->runtime = rr;
		a->hashes = (const uint8_t (*)[32])r->hashes;
		a->number = r->number;
		a->worst = rr->outcome;
		a->why = rr->why;
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
reply_settle(struct reply *a)
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
		in.hedge_delay = load_of(h->ch)->hedging.delay[h->it.kind];
		in.block_time = h->ch->block_time;
		act = lease_step(&h->l, a->done ? LE_OK : LE_FAIL, &in,
		    now_mono_ms());
		sched_request_free(r);
		sched_lease_apply(h, act, a->worst, a->why, a->endpoint_id);
	} else
		sched_request_free(r);
	store_maybe_flush();
	sched_kick();
}
