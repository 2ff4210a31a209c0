/*
 * Messages from workers.  Each one is checked for length, shape, type and
 * generation before it is used; a worker that sends anything else is
 * killed, because nothing it says afterwards can be trusted.
 */
#include "config.h"

#include <stdio.h>

#include "hex.h"
#include "log.h"
#include "proto.h"
#include "sup.h"
#include "util.h"

static void
bad_message(struct worker *w, const char *why)
{
	log_warnx("w/%s: pid %d sent a bad message (%s); killing it", w->name,
	    (int)w->pid, why);
	sup_health_down(w, "worker sent a bad message");
	sup_worker_event(w, CE_BAD_MSG);
}

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
 * Reports from the worker about its endpoint.  They are validated here;
 * until the store keeps them (DESIGN.md, "Data flow") they are logged.
 * Returns -1 with err set when the message does not unpack.
 */
static int
dispatch_report(struct worker *w, const struct msg *m, char *err,
    size_t errlen)
{
	union {
		struct proto_info	info;
		struct proto_head	head;
		struct proto_sub	sub;
		struct proto_outcome	outcome;
	} u;
	struct chain	*ch;
	char		 hb[16];

	switch (m->type) {
	case MSG_INFO:
		if (proto_unpack_info(m, &u.info, err, errlen) == -1)
			return -1;
		sup_health_probe(w, u.info.outcome);
		sup_endpoint_info(w, &u.info);
		if (u.info.outcome != OUTCOME_OK)
			log_info("w/%s: endpoint facts: %s (%s)", w->name,
			    outcome_name(u.info.outcome), u.info.why);
		else
			log_info("w/%s: chain \"%s\" genesis %s runtime %s %llu "
			    "best #%llu", w->name, u.info.chain,
			    short_hash(u.info.genesis, hb), u.info.spec_name,
			    (unsigned long long)u.info.spec_version,
			    (unsigned long long)u.info.best);
		return 0;
	case MSG_HEAD:
		if (proto_unpack_head(m, &u.head, err, errlen) == -1)
			return -1;
		log_debug("w/%s: %s head #%llu %s", w->name,
		    u.head.kind == HEAD_FINALIZED ? "finalized" : "new",
		    (unsigned long long)u.head.h.number,
		    short_hash(u.head.h.hash, hb));
		/* Not before its genesis is known to be the chain's. */
		if (w->ready && (ch = sup_chain_find(w->chain)) != NULL)
			sup_chain_head(ch, w->endpoint_id, &u.head);
		return 0;
	case MSG_SUB:
		if (proto_unpack_sub(m, &u.sub, err, errlen) == -1)
			return -1;
		log_info("w/%s: subscription %s%s%s", w->name,
		    u.sub.live ? "live" : "down", u.sub.why[0] != '\0' ?
		    ": " : "", u.sub.why);
		sup_endpoint_event(w, u.sub.live ? "sub_live" : "sub_down",
		    u.sub.why);
		return 0;
	case MSG_OUTCOME:
		if (proto_unpack_outcome(m, &u.outcome, err, errlen) == -1)
			return -1;
		sup_health_probe(w, u.outcome.outcome);
		sup_stats_request(w, u.outcome.outcome, u.outcome.latency_ms);
		log_debug("w/%s: %s %s in %llu ms%s%s", w->name, u.outcome.what,
		    outcome_name(u.outcome.outcome),
		    (unsigned long long)u.outcome.latency_ms,
		    u.outcome.why[0] != '\0' ? ": " : "", u.outcome.why);
		return 0;
	case MSG_RES_HEADERS:
	case MSG_RES_STORAGE:
	case MSG_RES_RUNTIME:
		return sup_queue_result(w, m, err, errlen);
	default:
		snprintf(err, errlen, "unexpected %s message",
		    msg_type_name(m->type));
		return -1;
	}
}

void
sup_dispatch_worker(struct worker *w, const void *buf, long len)
{
	struct msg	m;
	char		err[128];
	uint64_t	v;

	if (len > MSG_MAX) {
		snprintf(err, sizeof(err), "%ld bytes, over the %d byte limit",
		    len, MSG_MAX);
		bad_message(w, err);
		return;
	}
	if (msg_parse(buf, (size_t)len, &m, err, sizeof(err)) == -1) {
		bad_message(w, err);
		return;
	}
	switch (msg_check_gen(m.gen, w->gen)) {
	case MSG_GEN_OK:
		break;
	case MSG_GEN_STALE:
		log_debug("w/%s: dropped %s of stale generation %u (now %u)",
		    w->name, msg_type_name(m.type), m.gen, w->gen);
		msg_free(&m);
		return;
	case MSG_GEN_BAD:
		snprintf(err, sizeof(err), "generation %u, expected %u", m.gen,
		    w->gen);
		msg_free(&m);
		bad_message(w, err);
		return;
	}
	w->last_msg = now_mono_ms();
	switch (m.type) {
	case MSG_HELLO:
		if (w->fsm.state != CS_STARTING) {
			msg_free(&m);
			bad_message(w, "a second hello");
			return;
		}
		log_info("w/%s: worker pid %d ready (generation %u)", w->name,
		    (int)w->pid, w->gen);
		msg_free(&m);
		sup_worker_event(w, CE_HELLO);
		return;
	case MSG_HEARTBEAT:
		if (msg_get_uint(&m, "rss_kb", &v) == -1) {
			msg_free(&m);
			bad_message(w, "heartbeat without rss_kb");
			return;
		}
		w->rss_kb = v;
		break;
	default:
		/* A worker asked to stop may still be answering: drop it. */
		if (w->fsm.state == CS_STOPPING)
			break;
		if (w->fsm.state != CS_RUNNING)
			snprintf(err, sizeof(err), "%s before hello",
			    msg_type_name(m.type));
		else if (dispatch_report(w, &m, err, sizeof(err)) == 0)
			break;
		msg_free(&m);
		bad_message(w, err);
		return;
	}
	msg_free(&m);
}
