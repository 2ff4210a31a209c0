/*
 * What a worker does for its endpoint: learns what the endpoint is
 * (genesis, chain, runtime, whether its headers fit the chain's format),
 * keeps its head subscription, polls its best head over HTTP, and answers
 * the supervisor's requests.  Every header is decoded and hashed here, and
 * one fetched by a hash must hash to it; every outcome goes back with its
 * class.  The worker decides nothing: it reports.
 */
#include "config.h"

#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "header.h"
#include "hex.h"
#include "log.h"
#include "proto.h"
#include "qpow.h"
#include "u512.h"
#include "util.h"
#include "wrk.h"
#include "wrk_rpc.h"
#include "wrk_sub.h"

#define INFO_RETRY_MIN_MS	1000
#define INFO_RETRY_MAX_MS	60000
#define HELD_MAX		8	/* heads held during a genesis check */
#define EARLY_MAX		16	/* the last heads held until the facts */
#define FIT_HASHES		2	/* headers judged: genesis, best */

/*
 * Whether the endpoint's headers fit the configured format, as the last
 * facts sent said: a header it serves under a hash must decode and hash to
 * that hash here.  A wrong `format` makes every one miss, and every block
 * hash computed from its heads wrong: heads go to the supervisor only
 * while they fit.
 */
enum wrk_fit {
	FIT_UNKNOWN,	/* no facts sent yet */
	FIT_YES,
	FIT_NO,
};

struct wrk_ep {
	struct ev_loop		*loop;
	const struct wrk_conf	*wc;
	struct wrk_rpc		*rpc;
	struct wrk_sub		*sub;		/* NULL: not subscribed */
	/* subscribe = primary: the subscription is held only while the
	 * supervisor says so (MSG_SUBSCRIBE); meanwhile the probe's best
	 * header goes on as a head, so the chain's head stays fresh. */
	int			 primary;
	ev_timer		 info_timer;
	ev_timer		 poll_timer;
	unsigned		 info_failures;
	int			 poll_busy;
	double			 poll_every;	/* s: proto_poll_ms() */
	unsigned		 repolls;	/* quick ones left after a failure */
	/* The genesis of the last facts sent; a poll that sees another
	 * sends the facts again, and heads wait until it has. */
	uint8_t			 genesis[32];
	int			 have_genesis;
	int			 recheck;
	enum wrk_fit		 fit;
	int			 fit_busy;	/* a probe's check is out */
	/* The best hash of the probe's last check, unless it had no
	 * verdict: a best judged to fit is not fetched again each probe. */
	uint8_t			 fit_judged[32];
	int			 have_fit_judged;
	/* A head that does not follow the last one (a reorg, or the node
	 * now follows another chain) waits, with those after it, for a
	 * check of the genesis hash. */
	uint8_t			 last_head[32];
	int			 have_last;
	int			 checking;
	struct proto_head	 held[HELD_MAX];
	size_t			 n_held;
	/* Heads that came before the first facts wait for them (the last
	 * EARLY_MAX): dropped, the first of them would reach the daemon
	 * as a gap, to be fetched by hash, perhaps from another endpoint
	 * that lacks it. */
	struct proto_head	 early[EARLY_MAX];
	size_t			 n_early;
};

static struct wrk_ep	ep;

static uint32_t
deadline(uint32_t asked)
{
	return asked != 0 ? asked : (uint32_t)ep.wc->c.request_timeout;
}

static void
set_why(char *why, const struct wrk_rpc_result *r)
{
	snprintf(why, PROTO_WHY_MAX, "%s", r->outcome == OUTCOME_OK ? "" :
	    r->why != NULL ? r->why : outcome_name(r->outcome));
}

/* A result that is a "0x..." hash. */
static int
result_hash(const struct wrk_rpc_result *r, uint8_t out[32])
{
	const char	*s = json_string_value(r->result);

	return s != NULL && hex_decode(s, out, 32) == 0 ? 0 : -1;
}

/*
 * The seal of a quantus header other than genesis: its shape, and the
 * largest difficulty its nonce hash meets, for the supervisor to check
 * against the difficulty at its parent.  Hashing here spreads the cost
 * over the endpoints' processes; the verdict is the supervisor's, which
 * alone knows the difficulty and whether every endpoint's seals fail.
 */
static void
seal_judge(enum chain_format fmt, const struct header *h,
    const uint8_t *pre, struct proto_header *p)
{
	uint8_t		nonce[QPOW_NONCE_LEN];
	struct u512	hv, dmax;
	long		n;

	p->seal = QPOW_SEAL_OK;
	p->has_pow = 0;
	p->raw_len = 0;
	if (fmt != FORMAT_QUANTUS || h->number == 0)
		return;
	/* Its bytes, for the supervisor to check a sample itself. */
	if ((n = header_encode(fmt, h, p->raw, sizeof(p->raw))) > 0)
		p->raw_len = (size_t)n;
	if ((p->seal = qpow_seal_shape(h, nonce)) != QPOW_SEAL_OK)
		return;
	if (pre == NULL)		/* with a seal there is an item */
		fatalx(CW_EXIT_INTERNAL, "seal_judge: no pre-hash");
	qpow_nonce_hash(pre, nonce, &hv);
	qpow_max_difficulty(&hv, &dmax);
	u512_to_le(&dmax, p->pow_max);
	p->has_pow = 1;
}

/*
 * Decode a header from its JSON, hash it locally, and fill p.  A header
 * fetched by a hash (served) must hash to it.  On failure the reason goes
 * to why and the outcome is MALFORMED.
 */
static enum outcome
decode_header(json_t *j, const uint8_t *served, struct proto_header *p,
    char *why)
{
	struct header	*h;
	char		 err[PROTO_WHY_MAX];
	enum chain_format fmt = (enum chain_format)ep.wc->c.format;
	uint8_t		 hash[32], pre[32];
	int		 rc, has_pre = 0;

	/* A quantus header's hash and its seal's pre-hash, together. */
	h = xmalloc(sizeof(*h));
	if (served != NULL)
		rc = header_judge_pre(fmt, j, served, h, hash, pre, &has_pre,
		    err, sizeof(err));
	else if ((rc = header_from_json(fmt, j, h, err, sizeof(err))) == 0) {
		if (fmt == FORMAT_QUANTUS)
			has_pre = header_quantus_pre(h, pre, hash) == 0;
		else
			header_hash(fmt, h, hash);
	}
	if (rc == -1) {
		snprintf(why, PROTO_WHY_MAX, "header: %.100s", err);
		free(h);
		return OUTCOME_MALFORMED;
	}
	memcpy(p->hash, hash, 32);
	memcpy(p->parent, h->parent_hash, 32);
	p->number = h->number;
	p->has_miner = header_miner(fmt, h, p->miner) == 1;
	p->runtime_updated = header_runtime_updated(h);
	seal_judge(fmt, h, has_pre ? pre : NULL, p);
	free(h);
	return OUTCOME_OK;
}

static void
send_outcome(const char *what, const struct wrk_rpc_result *r)
{
	struct proto_outcome	o;
	struct msgbuf		mb;

	memset(&o, 0, sizeof(o));
	snprintf(o.what, sizeof(o.what), "%s", what);
	o.outcome = r->outcome;
	o.latency_ms = r->latency_ms;
	o.retry_ms = r->retry_after_ms;
	set_why(o.why, r);
	proto_pack_outcome(&mb, wrk_gen, &o);
	wrk_send(&mb);
}

/* ---- the format check: a header served under a hash hashes to it ---- */

/*
 * The verdict, with why (the evidence of a misfit) and failed (the first
 * request that failed, when nothing came to judge).
 */
typedef void	fit_cb(void *arg, enum wrk_fit, const char *why,
		    const struct wrk_rpc_result *failed);

struct fit_req {
	uint8_t		 hashes[FIT_HASHES][32];
	fit_cb		*cb;
	void		*arg;
};

/*
 * Headers fetched by the hashes the endpoint served them under: NO at the
 * first that does not decode or hashes elsewhere, YES if one fits and none
 * misses, UNKNOWN if none came.  A null (absent) header proves nothing.
 */
static void
fit_done(void *arg, const struct wrk_rpc_result *r, size_t n)
{
	struct fit_req		*fr = arg;
	const struct wrk_rpc_result *failed = NULL;
	struct proto_header	 p;
	enum wrk_fit		 v = FIT_UNKNOWN;
	char			 why[PROTO_WHY_MAX] = "";

	for (size_t i = 0; i < n && i < FIT_HASHES && v != FIT_NO; i++) {
		if (r[i].outcome == OUTCOME_ABSENT)
			continue;
		if (r[i].outcome != OUTCOME_OK) {
			if (failed == NULL)
				failed = &r[i];
			continue;
		}
		v = decode_header(r[i].result, fr->hashes[i], &p, why) ==
		    OUTCOME_OK ? FIT_YES : FIT_NO;
	}
	fr->cb(fr->arg, v, why, failed);
	free(fr);
}

/* Fetch the headers of the genesis and best hashes, and judge them. */
static int
fit_fetch(const uint8_t genesis[32], const uint8_t best[32], fit_cb *cb,
    void *arg)
{
	struct fit_req		*fr = xcalloc(1, sizeof(*fr));
	struct wrk_rpc_call	 calls[FIT_HASHES];
	char			 params[FIT_HASHES][72], h[67];

	memcpy(fr->hashes[0], genesis, 32);
	memcpy(fr->hashes[1], best, 32);
	fr->cb = cb;
	fr->arg = arg;
	for (size_t k = 0; k < FIT_HASHES; k++) {
		hex_encode(fr->hashes[k], 32, h);
		snprintf(params[k], sizeof(params[k]), "[\"%s\"]", h);
		calls[k].method = "chain_getHeader";
		calls[k].params = params[k];
		calls[k].flags = WRK_RPC_NULL_ABSENT;
	}
	if (wrk_rpc_send(ep.rpc, calls, FIT_HASHES, deadline(0), fit_done,
	    fr) == -1) {
		free(fr);
		return -1;
	}
	return 0;
}

/* ---- endpoint facts, fetched at start until they all come ---- */

static void	info_fetch(void);
static void	head_forward(const struct proto_head *);

static void
info_timer_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	info_fetch();
}

/* Send the facts; those that did not all come are fetched again later. */
static void
info_send(const struct proto_info *in)
{
	struct msgbuf	mb;
	uint64_t	delay = INFO_RETRY_MIN_MS;
	char		g[67];

	proto_pack_info(&mb, wrk_gen, in);
	wrk_send(&mb);
	if (in->outcome == OUTCOME_OK) {
		hex_encode(in->genesis, 32, g);
		log_info("%s: chain \"%s\", genesis %.18s..., runtime %s %llu, "
		    "best #%llu", ep.wc->rpc_shown, in->chain, g, in->spec_name,
		    (unsigned long long)in->spec_version,
		    (unsigned long long)in->best);
		if (!in->fits)
			log_warnx("%s: headers do not hash as %s (%s): is "
			    "`format` right?  No head from here goes on",
			    ep.wc->rpc_shown, chain_format_name(
			    (enum chain_format)ep.wc->c.format), in->why);
		ep.info_failures = 0;
		memcpy(ep.genesis, in->genesis, 32);
		ep.have_genesis = 1;
		ep.recheck = 0;
		ep.fit = in->fits ? FIT_YES : FIT_NO;
		ep.have_fit_judged = 0;
		for (size_t i = 0; i < ep.n_early; i++)
			head_forward(&ep.early[i]);
		ep.n_early = 0;
		return;
	}
	for (unsigned i = 0; i < ep.info_failures && delay < INFO_RETRY_MAX_MS;
	    i++)
		delay *= 2;
	if (delay > INFO_RETRY_MAX_MS)
		delay = INFO_RETRY_MAX_MS;
	ep.info_failures++;
	log_warnx("%s: endpoint facts: %s (%s); retrying in %.1f s",
	    ep.wc->rpc_shown, outcome_name(in->outcome), in->why,
	    (double)delay / 1000.0);
	ev_timer_set(&ep.info_timer, (double)delay / 1000.0, 0.);
	ev_timer_start(ep.loop, &ep.info_timer);
}

/* Facts waiting for the format check. */
struct info_req {
	struct proto_info	in;
	char			best_why[PROTO_WHY_MAX];  /* undecodable */
};

/*
 * The last of the facts: do its headers fit the format?  A best header
 * that did not decode is judged here too: with the wrong format it is one
 * more misfit, with the right one a malformed answer.
 */
static void
info_fit_done(void *arg, enum wrk_fit v, const char *why,
    const struct wrk_rpc_result *failed)
{
	struct info_req		*ir = arg;
	struct proto_info	*in = &ir->in;

	if (v == FIT_YES && ir->best_why[0] != '\0') {
		in->outcome = OUTCOME_MALFORMED;
		snprintf(in->why, sizeof(in->why), "best %.100s", ir->best_why);
		v = FIT_UNKNOWN;
	}
	switch (v) {
	case FIT_UNKNOWN:
		if (in->outcome != OUTCOME_OK)
			break;
		in->outcome = failed != NULL ? failed->outcome : OUTCOME_ABSENT;
		snprintf(in->why, sizeof(in->why), "format check: %.100s",
		    failed == NULL ? "no header under the genesis or best "
		    "hash" : failed->why != NULL ? failed->why :
		    outcome_name(failed->outcome));
		break;
	case FIT_YES:
		in->fits = 1;
		break;
	case FIT_NO:
		in->fits = 0;
		snprintf(in->why, sizeof(in->why), "%s", why);
		break;
	}
	info_send(in);
	free(ir);
}

/* genesis, system_chain, runtime, properties, best header, best hash */
static void
info_done(void *arg, const struct wrk_rpc_result *r, size_t n)
{
	struct info_req		*ir = xcalloc(1, sizeof(*ir));
	struct proto_info	*in = &ir->in;
	const struct wrk_rpc_result *worst = NULL;
	struct proto_header	 h;
	uint8_t			 best[32];
	const char		*chain;
	json_t			*v;

	for (size_t i = 0; i < n; i++) {
		if (r[i].outcome != OUTCOME_OK && worst == NULL)
			worst = &r[i];
		if (r[i].latency_ms > in->latency_ms)
			in->latency_ms = r[i].latency_ms;
	}
	if (worst != NULL) {
		in->outcome = worst->outcome;
		set_why(in->why, worst);
	} else if (result_hash(&r[0], in->genesis) == -1) {
		in->outcome = OUTCOME_MALFORMED;
		snprintf(in->why, sizeof(in->why), "genesis is not a hash");
	} else if (result_hash(&r[5], best) == -1) {
		in->outcome = OUTCOME_MALFORMED;
		snprintf(in->why, sizeof(in->why), "best hash is not a hash");
	}
	if (in->outcome != OUTCOME_OK) {
		info_send(in);
		free(ir);
		return;
	}
	chain = json_string_value(r[1].result);
	snprintf(in->chain, sizeof(in->chain), "%s", chain != NULL ? chain :
	    "");
	v = json_object_get(r[2].result, "specName");
	snprintf(in->spec_name, sizeof(in->spec_name), "%s",
	    json_is_string(v) ? json_string_value(v) : "");
	v = json_object_get(r[2].result, "specVersion");
	in->spec_version = json_is_integer(v) && json_integer_value(v) >= 0 ?
	    (uint64_t)json_integer_value(v) : 0;
	v = json_object_get(r[3].result, "ss58Format");
	in->ss58_format = json_is_integer(v) && json_integer_value(v) >= 0 ?
	    (uint64_t)json_integer_value(v) : 42;
	if (decode_header(r[4].result, NULL, &h, ir->best_why) == OUTCOME_OK) {
		ir->best_why[0] = '\0';
		in->best = h.number;
		if (ep.sub != NULL)
			wrk_sub_http_best(ep.sub, h.number);
	}
	if (fit_fetch(in->genesis, best, info_fit_done, ir) == -1)
		fatalx(CW_EXIT_INTERNAL, "cannot send the format check");
}

static void
info_fetch(void)
{
	static const struct wrk_rpc_call calls[] = {
		{ "chain_getBlockHash", "[0]", WRK_RPC_NULL_ABSENT },
		{ "system_chain", NULL, 0 },
		{ "state_getRuntimeVersion", NULL, 0 },
		{ "system_properties", NULL, 0 },
		{ "chain_getHeader", NULL, WRK_RPC_NULL_ABSENT },
		{ "chain_getBlockHash", NULL, WRK_RPC_NULL_ABSENT },
	};

	if (wrk_rpc_send(ep.rpc, calls, nitems(calls), deadline(0), info_done,
	    NULL) == -1)
		fatalx(CW_EXIT_INTERNAL, "cannot send the endpoint requests");
}

/* ---- the best head over HTTP: a health probe and the stall rule ---- */

/*
 * A probe's format check.  A verdict other than the one the last facts
 * carried (a node swapped behind the URL, or a lie that stopped) means the
 * facts are fetched again, and so judged again, before one more head goes
 * on from here.
 */
static void
poll_fit_done(void *arg, enum wrk_fit v, const char *why,
    const struct wrk_rpc_result *failed)
{
	const char	*fmt = chain_format_name((enum chain_format)
			    ep.wc->c.format);

	ep.fit_busy = 0;
	if (v == FIT_UNKNOWN)
		ep.have_fit_judged = 0;
	if (v == FIT_UNKNOWN || v == ep.fit || ep.recheck)
		return;
	if (v == FIT_NO)
		log_warnx("%s: headers no longer hash as %s (%s); fetching "
		    "the endpoint's facts again", ep.wc->rpc_shown, fmt, why);
	else
		log_info("%s: headers hash as %s again; fetching the "
		    "endpoint's facts again", ep.wc->rpc_shown, fmt);
	ep.recheck = 1;
	info_fetch();
}

static void	head_forward(const struct proto_head *);

/*
 * Without the subscription (subscribe = primary, held elsewhere) the
 * probe's best header is this endpoint's head: once per new best.  The
 * same probe checked the genesis (recheck is set when it changed).
 */
static void
probe_head(const struct proto_header *h)
{
	struct proto_head	hd;

	if (ep.have_last && memcmp(ep.last_head, h->hash, 32) == 0)
		return;
	memset(&hd, 0, sizeof(hd));
	hd.kind = HEAD_NEW;
	hd.seen_ms = now_wall_ms();
	hd.h = *h;
	head_forward(&hd);
}

static void	poll_after(int);

/* best header, genesis hash, best hash */
static void
poll_done(void *arg, const struct wrk_rpc_result *r, size_t n)
{
	struct proto_header	h;
	struct wrk_rpc_result	res = r[0];
	char			why[PROTO_WHY_MAX];
	uint8_t			g[32], best[32];

	ep.poll_busy = 0;
	/*
	 * The same URL serving another chain (a load balancer moved, a node
	 * was reset to another spec): the supervisor must hear it before it
	 * takes one more head from here.
	 */
	if (n > 1 && r[1].outcome == OUTCOME_OK && ep.have_genesis &&
	    !ep.recheck && result_hash(&r[1], g) == 0 &&
	    memcmp(g, ep.genesis, 32) != 0) {
		log_warnx("%s: the genesis hash changed; fetching the "
		    "endpoint's facts again", ep.wc->rpc_shown);
		ep.recheck = 1;
		info_fetch();
	}
	/*
	 * The same chain: do its headers still hash as they are served?
	 * Asked again of each new best, and at every probe while they do
	 * not fit (a lie that stopped shows at once); at 12 s blocks and
	 * a probe every 2 s, a check at every probe was a second request
	 * each time, five times in six about the same header.
	 */
	if (n > 2 && r[2].outcome == OUTCOME_OK && ep.fit != FIT_UNKNOWN &&
	    !ep.recheck && !ep.fit_busy && result_hash(&r[2], best) == 0 &&
	    (ep.fit != FIT_YES || !ep.have_fit_judged ||
	    memcmp(best, ep.fit_judged, 32) != 0) &&
	    fit_fetch(ep.genesis, best, poll_fit_done, NULL) == 0) {
		memcpy(ep.fit_judged, best, 32);
		ep.have_fit_judged = 1;
		ep.fit_busy = 1;
	}
	if (res.outcome == OUTCOME_OK) {
		if (decode_header(res.result, NULL, &h, why) == OUTCOME_OK) {
			if (ep.sub != NULL)
				wrk_sub_http_best(ep.sub, h.number);
			else if (ep.primary && !ep.recheck)
				probe_head(&h);
		} else {
			res.outcome = OUTCOME_MALFORMED;
			res.why = why;
		}
	}
	send_outcome("poll", &res);
	poll_after(outcome_is_failure(res.outcome));
}

/*
 * The next probe (src/proto.h): after a failure, PROTO_REPOLL_N quick
 * ones in a row; after a success, or once they are spent, every
 * poll_every.  A failure that follows a success starts a new series.
 */
static void
poll_after(int failed)
{
	double	next = ep.poll_every;

	if (!failed)
		ep.repolls = PROTO_REPOLL_N;
	else if (ep.repolls > 0) {
		ep.repolls--;
		next = PROTO_REPOLL_MS / 1000.0;
	}
	ev_timer_stop(ep.loop, &ep.poll_timer);
	ev_timer_set(&ep.poll_timer, next, ep.poll_every);
	ev_timer_start(ep.loop, &ep.poll_timer);
}

static void
poll_timer_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	static const struct wrk_rpc_call calls[] = {
		{ "chain_getHeader", NULL, WRK_RPC_NULL_ABSENT },
		{ "chain_getBlockHash", "[0]", WRK_RPC_NULL_ABSENT },
		{ "chain_getBlockHash", NULL, WRK_RPC_NULL_ABSENT },
	};

	wrk_heartbeat_ride((uint64_t)(ep.poll_every * 1000.0));
	/* One at a time: a slow endpoint gets no pile of probes. */
	if (ep.poll_busy)
		return;
	if (wrk_rpc_send(ep.rpc, calls, nitems(calls), deadline(0), poll_done,
	    NULL) == 0)
		ep.poll_busy = 1;
}

/* ---- the subscription ---- */

/* A head goes on only from an endpoint whose headers fit the format. */
static void
head_forward(const struct proto_head *hd)
{
	struct msgbuf	mb;

	if (ep.fit != FIT_YES || ep.recheck) {
		log_debug("%s: head #%llu dropped: %s", ep.wc->ws_shown,
		    (unsigned long long)hd->h.number, ep.recheck ? "the facts "
		    "are fetched again" : ep.fit == FIT_NO ? "headers do not "
		    "fit the format" : "no facts yet");
		return;
	}
	proto_pack_head(&mb, wrk_gen, hd);
	wrk_send(&mb);
	if (hd->kind == HEAD_NEW) {
		memcpy(ep.last_head, hd->h.hash, 32);
		ep.have_last = 1;
	}
}

static void
check_done(void *arg, const struct wrk_rpc_result *r, size_t n)
{
	uint8_t	g[32];
	size_t	held = ep.n_held;

	ep.checking = 0;
	ep.n_held = 0;
	if (n == 1 && r[0].outcome == OUTCOME_OK &&
	    result_hash(&r[0], g) == 0 && memcmp(g, ep.genesis, 32) != 0) {
		log_warnx("%s: the genesis hash changed; %zu head%s dropped, "
		    "fetching the endpoint's facts again", ep.wc->rpc_shown,
		    held, held == 1 ? "" : "s");
		ep.recheck = 1;
		ep.have_last = 0;
		info_fetch();
		return;
	}
	/* The same chain (a reorg), or no answer: the heads go on. */
	for (size_t i = 0; i < held; i++)
		head_forward(&ep.held[i]);
}

static void
sub_head(void *arg, const struct wrk_sub_head *sh)
{
	struct proto_head	hd;
	char			why[PROTO_WHY_MAX];

	if (ep.recheck) {
		log_debug("%s: head dropped until the facts are fetched "
		    "again", ep.wc->ws_shown);
		return;
	}
	/* Known not to fit: the facts said so once, not every head again. */
	if (ep.fit == FIT_NO) {
		log_debug("%s: head dropped: headers do not fit the format",
		    ep.wc->ws_shown);
		return;
	}
	memset(&hd, 0, sizeof(hd));
	hd.kind = sh->kind == WRK_SUB_FINALIZED ? HEAD_FINALIZED : HEAD_NEW;
	hd.seen_ms = now_wall_ms();
	/* Its hash is ours alone: whether it fits is the facts' to say. */
	if (decode_header(sh->header, NULL, &hd.h, why) != OUTCOME_OK) {
		struct wrk_rpc_result r;

		log_warnx("%s: undecodable head from the subscription: %s",
		    ep.wc->ws_shown, why);
		memset(&r, 0, sizeof(r));
		r.outcome = OUTCOME_MALFORMED;
		r.why = why;
		send_outcome("head", &r);
		return;
	}
	if (ep.fit == FIT_UNKNOWN) {
		if (ep.n_early == EARLY_MAX)
			memmove(ep.early, ep.early + 1,
			    --ep.n_early * sizeof(ep.early[0]));
		ep.early[ep.n_early++] = hd;
		log_debug("%s: head #%llu held until the facts come",
		    ep.wc->ws_shown, (unsigned long long)hd.h.number);
		return;
	}
	if (ep.checking) {
		if (ep.n_held < HELD_MAX)
			ep.held[ep.n_held++] = hd;
		return;
	}
	if (hd.kind == HEAD_NEW && ep.have_last && ep.have_genesis &&
	    memcmp(hd.h.parent, ep.last_head, 32) != 0) {
		static const struct wrk_rpc_call call = { "chain_getBlockHash",
		    "[0]", WRK_RPC_NULL_ABSENT };

		if (wrk_rpc_send(ep.rpc, &call, 1, deadline(0), check_done,
		    NULL) == 0) {
			ep.checking = 1;
			ep.held[0] = hd;
			ep.n_held = 1;
			return;
		}
	}
	head_forward(&hd);
}

static void
sub_status(void *arg, int live, const char *why)
{
	struct proto_sub	s;
	struct msgbuf		mb;

	/*
	 * Down: is it the endpoint, or only its WebSocket?  A probe now
	 * tells the supervisor, rather than the next one a block time on.
	 */
	if (!live && !ep.poll_busy)
		poll_timer_cb(ep.loop, &ep.poll_timer, 0);
	memset(&s, 0, sizeof(s));
	s.live = live;
	s.reconnects = ep.sub != NULL ? wrk_sub_reconnects(ep.sub) : 0;
	snprintf(s.why, sizeof(s.why), "%s", why != NULL ? why : "");
	proto_pack_sub(&mb, wrk_gen, &s);
	wrk_send(&mb);
}

/* A WebSocket message held against the endpoint, as a failed request. */
static void
sub_bad(void *arg, enum outcome o, const char *why)
{
	struct wrk_rpc_result	r;

	(void)arg;
	memset(&r, 0, sizeof(r));
	r.outcome = o;
	r.why = why;
	send_outcome("ws", &r);
}

/* ---- requests from the supervisor ---- */

/*
 * Headers by number are two stages, chain_getBlockHash then
 * chain_getHeader by that hash; by hash, only the second.  Either way a
 * header is fetched by the hash the endpoint served it under (served),
 * and must hash to it: one that does not is MALFORMED, never a header.
 */
struct hdr_req {
	struct proto_req_headers	q;
	struct proto_res_headers	r;
	uint8_t				served[PROTO_BATCH_MAX][32];
	size_t				idx[PROTO_BATCH_MAX];	/* stage 2 */
};

static void
hdr_send(struct hdr_req *hr)
{
	struct msgbuf	mb;

	hr->r.id = hr->q.id;
	hr->r.n = hr->q.n;
	proto_pack_res_headers(&mb, wrk_gen, &hr->r);
	wrk_send(&mb);
	free(hr);
}

/* chain_getHeader answers, for the items still open, in idx order. */
static void
hdr_headers_done(void *arg, const struct wrk_rpc_result *r, size_t n)
{
	struct hdr_req	*hr = arg;

	for (size_t k = 0; k < n; k++) {
		struct proto_item *it = &hr->r.items[hr->idx[k]];
		size_t i = hr->idx[k];

		it->outcome = r[k].outcome;
		it->latency_ms += r[k].latency_ms;
		if (r[k].retry_after_ms > hr->r.retry_ms)
			hr->r.retry_ms = r[k].retry_after_ms;
		set_why(it->why, &r[k]);
		if (r[k].outcome != OUTCOME_OK)
			continue;
		/* What came must be what was asked for. */
		it->outcome = decode_header(r[k].result, hr->served[i],
		    &it->h, it->why);
		if (it->outcome != OUTCOME_OK)
			continue;
		if (hr->q.by == BY_NUMBER &&
		    it->h.number != hr->q.numbers[i]) {
			it->outcome = OUTCOME_MALFORMED;
			snprintf(it->why, sizeof(it->why), "header #%llu for "
			    "number %llu", (unsigned long long)it->h.number,
			    (unsigned long long)hr->q.numbers[i]);
		}
	}
	hdr_send(hr);
}

/* The headers of the n items in idx, by their served hashes. */
static void
hdr_fetch(struct hdr_req *hr, size_t n)
{
	struct wrk_rpc_call	*calls;
	char			(*params)[72];

	if (n == 0) {
		hdr_send(hr);
		return;
	}
	calls = xcalloc(n, sizeof(*calls));
	params = xcalloc(n, sizeof(*params));
	for (size_t k = 0; k < n; k++) {
		char h[67];

		hex_encode(hr->served[hr->idx[k]], 32, h);
		snprintf(params[k], sizeof(params[k]), "[\"%s\"]", h);
		calls[k].method = "chain_getHeader";
		calls[k].params = params[k];
		calls[k].flags = WRK_RPC_NULL_ABSENT;
	}
	if (wrk_rpc_send(ep.rpc, calls, n, deadline(hr->q.deadline_ms),
	    hdr_headers_done, hr) == -1)
		fatalx(CW_EXIT_INTERNAL, "cannot send a header batch");
	free(calls);
	free(params);
}

/* chain_getBlockHash answers: fetch the headers of those that came. */
static void
hdr_hashes_done(void *arg, const struct wrk_rpc_result *r, size_t n)
{
	struct hdr_req	*hr = arg;
	size_t		 m = 0;

	for (size_t i = 0; i < n; i++) {
		struct proto_item *it = &hr->r.items[i];

		it->outcome = r[i].outcome;
		it->latency_ms = r[i].latency_ms;
		if (r[i].retry_after_ms > hr->r.retry_ms)
			hr->r.retry_ms = r[i].retry_after_ms;
		set_why(it->why, &r[i]);
		if (r[i].outcome != OUTCOME_OK)
			continue;
		if (result_hash(&r[i], hr->served[i]) == -1) {
			it->outcome = OUTCOME_MALFORMED;
			snprintf(it->why, sizeof(it->why), "block hash is not "
			    "a hash");
			continue;
		}
		hr->idx[m++] = i;
	}
	hdr_fetch(hr, m);
}

static void
req_headers(const struct msg *m)
{
	struct hdr_req		*hr = xcalloc(1, sizeof(*hr));
	char			 err[128];

	if (proto_unpack_req_headers(m, &hr->q, err, sizeof(err)) == -1)
		fatalx(CW_EXIT_INTERNAL, "bad request from the supervisor: %s",
		    err);
	if (hr->q.by == BY_HASH) {
		memcpy(hr->served, hr->q.hashes, hr->q.n * 32);
		for (size_t i = 0; i < hr->q.n; i++)
			hr->idx[i] = i;
		hdr_fetch(hr, hr->q.n);
		return;
	}
	{
		struct wrk_rpc_call	*calls = xcalloc(hr->q.n + 1,
					    sizeof(*calls));
		char			(*params)[24] = xcalloc(hr->q.n + 1,
					    sizeof(*params));

		for (size_t i = 0; i < hr->q.n; i++) {
			snprintf(params[i], sizeof(params[i]), "[%llu]",
			    (unsigned long long)hr->q.numbers[i]);
			calls[i].method = "chain_getBlockHash";
			calls[i].params = params[i];
			calls[i].flags = WRK_RPC_NULL_ABSENT;
		}
		if (hr->q.n == 0)
			hdr_send(hr);
		else if (wrk_rpc_send(ep.rpc, calls, hr->q.n,
		    deadline(hr->q.deadline_ms), hdr_hashes_done, hr) == -1)
			fatalx(CW_EXIT_INTERNAL, "cannot send a hash batch");
		free(calls);
		free(params);
	}
}

struct storage_req {
	struct proto_req_storage	q;
	struct proto_res_storage	r;
};

static void
storage_done(void *arg, const struct wrk_rpc_result *r, size_t n)
{
	struct storage_req	*sr = arg;
	struct msgbuf		 mb;
	const char		*v;

	sr->r.id = sr->q.id;
	sr->r.n = n;
	for (size_t i = 0; i < n; i++) {
		struct proto_value *pv = &sr->r.items[i];

		pv->outcome = r[i].outcome;
		pv->latency_ms = r[i].latency_ms;
		if (r[i].retry_after_ms > sr->r.retry_ms)
			sr->r.retry_ms = r[i].retry_after_ms;
		set_why(pv->why, &r[i]);
		if (pv->outcome != OUTCOME_OK)
			continue;
		v = json_string_value(r[i].result);
		if (v == NULL || hex_decode_var(v, pv->value, sizeof(pv->value),
		    &pv->value_len) == -1) {
			pv->outcome = OUTCOME_MALFORMED;
			pv->value_len = 0;
			snprintf(pv->why, sizeof(pv->why), "storage value is not "
			    "hex of at most %d bytes", PROTO_VALUE_MAX);
		}
	}
	proto_pack_res_storage(&mb, wrk_gen, &sr->r);
	wrk_send(&mb);
	free(sr);
}

static void
req_storage(const struct msg *m)
{
	struct storage_req	*sr = xcalloc(1, sizeof(*sr));
	struct wrk_rpc_call	*calls;
	char			 err[128], (*params)[2 * PROTO_KEY_MAX + 80];

	if (proto_unpack_req_storage(m, &sr->q, err, sizeof(err)) == -1)
		fatalx(CW_EXIT_INTERNAL, "bad request from the supervisor: %s",
		    err);
	if (sr->q.n == 0) {
		storage_done(sr, NULL, 0);
		return;
	}
	calls = xcalloc(sr->q.n, sizeof(*calls));
	params = xcalloc(sr->q.n, sizeof(*params));
	for (size_t i = 0; i < sr->q.n; i++) {
		char key[2 * PROTO_KEY_MAX + 3], at[67];

		hex_encode(sr->q.items[i].key, sr->q.items[i].key_len, key);
		hex_encode(sr->q.items[i].at, 32, at);
		snprintf(params[i], sizeof(params[i]), "[\"%s\",\"%s\"]", key,
		    at);
		calls[i].method = "state_getStorage";
		calls[i].params = params[i];
		calls[i].flags = WRK_RPC_NULL_ABSENT;
	}
	if (wrk_rpc_send(ep.rpc, calls, sr->q.n, deadline(sr->q.deadline_ms),
	    storage_done, sr) == -1)
		fatalx(CW_EXIT_INTERNAL, "cannot send a storage batch");
	free(calls);
	free(params);
}

static void
runtime_done(void *arg, const struct wrk_rpc_result *r, size_t n)
{
	struct proto_res_runtime *rr = arg;
	struct msgbuf		 mb;
	json_t			*name, *spec, *impl;

	rr->outcome = r[0].outcome;
	rr->latency_ms = r[0].latency_ms;
	set_why(rr->why, &r[0]);
	if (rr->outcome == OUTCOME_OK) {
		name = json_object_get(r[0].result, "specName");
		spec = json_object_get(r[0].result, "specVersion");
		impl = json_object_get(r[0].result, "implVersion");
		if (!json_is_string(name) || !json_is_integer(spec) ||
		    json_integer_value(spec) < 0 ||
		    strlen(json_string_value(name)) >= sizeof(rr->spec_name)) {
			rr->outcome = OUTCOME_MALFORMED;
			snprintf(rr->why, sizeof(rr->why), "runtime version "
			    "without specName/specVersion");
		} else {
			snprintf(rr->spec_name, sizeof(rr->spec_name), "%s",
			    json_string_value(name));
			rr->spec_version = (uint64_t)json_integer_value(spec);
			rr->impl_version = json_is_integer(impl) &&
			    json_integer_value(impl) >= 0 ?
			    (uint64_t)json_integer_value(impl) : 0;
		}
	}
	proto_pack_res_runtime(&mb, wrk_gen, rr);
	wrk_send(&mb);
	free(rr);
}

static void
req_runtime(const struct msg *m)
{
	struct proto_req_runtime q;
	struct proto_res_runtime *rr;
	struct wrk_rpc_call	 call;
	char			 err[128], params[72], at[67];

	if (proto_unpack_req_runtime(m, &q, err, sizeof(err)) == -1)
		fatalx(CW_EXIT_INTERNAL, "bad request from the supervisor: %s",
		    err);
	rr = xcalloc(1, sizeof(*rr));
	rr->id = q.id;
	call.method = "state_getRuntimeVersion";
	call.params = NULL;
	call.flags = WRK_RPC_NULL_ABSENT;
	if (q.has_at) {
		hex_encode(q.at, 32, at);
		snprintf(params, sizeof(params), "[\"%s\"]", at);
		call.params = params;
	}
	if (wrk_rpc_send(ep.rpc, &call, 1, deadline(q.deadline_ms),
	    runtime_done, rr) == -1)
		fatalx(CW_EXIT_INTERNAL, "cannot send a runtime request");
}

static void
genesis_done(void *arg, const struct wrk_rpc_result *r, size_t n)
{
	struct proto_res_genesis *rg = arg;
	struct msgbuf		 mb;

	rg->outcome = r[0].outcome;
	rg->latency_ms = r[0].latency_ms;
	set_why(rg->why, &r[0]);
	if (rg->outcome == OUTCOME_OK && result_hash(&r[0], rg->hash) == -1) {
		rg->outcome = OUTCOME_MALFORMED;
		snprintf(rg->why, sizeof(rg->why), "genesis is not a hash");
	}
	proto_pack_res_genesis(&mb, wrk_gen, rg);
	wrk_send(&mb);
	free(rg);
}

static void
req_genesis(const struct msg *m)
{
	struct proto_req_genesis q;
	struct proto_res_genesis *rg;
	struct wrk_rpc_call	 call = { "chain_getBlockHash", "[0]",
				    WRK_RPC_NULL_ABSENT };
	char			 err[128];

	if (proto_unpack_req_genesis(m, &q, err, sizeof(err)) == -1)
		fatalx(CW_EXIT_INTERNAL, "bad request from the supervisor: %s",
		    err);
	rg = xcalloc(1, sizeof(*rg));
	rg->id = q.id;
	if (wrk_rpc_send(ep.rpc, &call, 1, deadline(q.deadline_ms),
	    genesis_done, rg) == -1)
		fatalx(CW_EXIT_INTERNAL, "cannot send a genesis request");
}

static void
sub_start(void)
{
	struct wrk_sub_conf	sc;
	struct wrk_sub_cbs	cbs = { sub_head, sub_status, sub_bad };
	const struct wrk_conf	*wc = ep.wc;

	memset(&sc, 0, sizeof(sc));
	sc.url = wc->c.ws_url;
	sc.block_time_ms = (uint32_t)wc->c.block_time;
	sc.stall_factor = (double)wc->c.stall_factor;
	sc.connect_timeout_ms = (uint32_t)wc->c.connect_timeout;
	sc.handshake_timeout_ms = (uint32_t)wc->c.request_timeout;
	sc.max_message = (size_t)wc->c.max_response;
	sc.finalized = 1;
	if ((ep.sub = wrk_sub_start(ep.loop, &sc, &cbs, NULL)) == NULL)
		fatalx(CW_EXIT_SETUP, "%s: cannot set up the subscription",
		    wc->ws_shown);
}

/*
 * subscribe = primary: take or give up the chain's one subscription.  A
 * subscription given up reports nothing more (wrk_sub_stop); one taken
 * reports live or down as ever.  Told so under subscribe = all, the
 * supervisor is broken.
 */
static void
req_subscribe(const struct msg *m)
{
	struct proto_subscribe	q;
	char			err[128];

	if (proto_unpack_subscribe(m, &q, err, sizeof(err)) == -1)
		fatalx(CW_EXIT_INTERNAL, "bad message from the supervisor: %s",
		    err);
	if (!ep.primary)
		fatalx(CW_EXIT_INTERNAL, "told to %s the subscription under "
		    "subscribe = all", q.on ? "take" : "give up");
	if (q.on && ep.sub == NULL) {
		log_info("%s: this endpoint holds the chain's subscription "
		    "now", ep.wc->ws_shown);
		sub_start();
	} else if (!q.on && ep.sub != NULL) {
		log_info("%s: subscription handed on; heads come from the "
		    "probe meanwhile", ep.wc->ws_shown);
		wrk_sub_stop(ep.sub);
		ep.sub = NULL;
	}
}

int
wrk_ep_request(const struct msg *m)
{
	switch (m->type) {
	case MSG_SUBSCRIBE:
		req_subscribe(m);
		return 0;
	case MSG_REQ_HEADERS:
		req_headers(m);
		return 0;
	case MSG_REQ_STORAGE:
		req_storage(m);
		return 0;
	case MSG_REQ_RUNTIME:
		req_runtime(m);
		return 0;
	case MSG_REQ_GENESIS:
		req_genesis(m);
		return 0;
	default:
		return -1;
	}
}

void
wrk_ep_start(struct ev_loop *loop, const struct wrk_conf *wc)
{
	struct wrk_http_conf	hc;
	double			poll;

	memset(&ep, 0, sizeof(ep));
	ep.loop = loop;
	ep.wc = wc;
	memset(&hc, 0, sizeof(hc));
	hc.url = wc->c.rpc_url;
	hc.connect_timeout_ms = (uint32_t)wc->c.connect_timeout;
	hc.max_response = (size_t)wc->c.max_response;
	/* A connection for each request the supervisor may have out, and
	 * one for this worker's own polls and probes. */
	hc.max_conns = (unsigned)wc->c.max_inflight + 1;
	if ((ep.rpc = wrk_rpc_new(loop, &hc)) == NULL)
		fatalx(CW_EXIT_SETUP, "%s: cannot set up HTTP", wc->rpc_shown);
	ep.primary = wc->c.subscribe == SUBSCRIBE_PRIMARY;
	if (!ep.primary)
		sub_start();
	else
		log_info("%s: subscribe = primary: subscribing when the "
		    "supervisor says so", wc->ws_shown);
	ev_init(&ep.info_timer, info_timer_cb);
	poll = (double)proto_poll_ms(wc->c.block_time) / 1000.0;
	ep.poll_every = poll;
	ep.repolls = PROTO_REPOLL_N;
	ev_timer_init(&ep.poll_timer, poll_timer_cb, poll, poll);
	ev_timer_start(loop, &ep.poll_timer);
	info_fetch();
}

void
wrk_ep_stop(void)
{
	ev_timer_stop(ep.loop, &ep.info_timer);
	ev_timer_stop(ep.loop, &ep.poll_timer);
	if (ep.sub != NULL)
		wrk_sub_stop(ep.sub);
	if (ep.rpc != NULL)
		wrk_rpc_free(ep.rpc);
	ep.sub = NULL;
	ep.rpc = NULL;
}
