/*
 * JSON-RPC 2.0 for one endpoint: request text, matching of answers to
 * calls, and the outcome class of every call.  Classification is pure so
 * that the rules of DESIGN.md "Endpoint health" are tested alone.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "log.h"
#include "util.h"
#include "hex.h"
#include "wrk_rpc.h"

/* JSON-RPC codes and messages with a meaning of their own. */
#define RPC_CODE_RATE_LIMITED	(-32999)
#define RPC_CODE_STATE_PRUNED	4003

/* ------------------------------------------------------------------ */
/* request text                                                        */

static int
method_ok(const char *m)
{
	if (m == NULL || *m == '\0')
		return 0;
	for (; *m != '\0'; m++)
		if (!isalnum((unsigned char)*m) && *m != '_')
			return 0;
	return 1;
}

int
wrk_rpc_build(struct buf *b, const struct wrk_rpc_call *calls, size_t n,
    uint64_t first_id)
{
	char	id[32];

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!method_ok(calls[i].method))
			return -1;
	buf_reset(b);
	if (n > 1)
		buf_addc(b, '[');
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			buf_addc(b, ',');
		snprintf(id, sizeof(id), "%" PRIu64, first_id + i);
		buf_adds(b, "{\"jsonrpc\":\"2.0\",\"id\":");
		buf_adds(b, id);
		buf_adds(b, ",\"method\":\"");
		buf_adds(b, calls[i].method);
		buf_adds(b, "\",\"params\":");
		buf_adds(b, calls[i].params != NULL ? calls[i].params : "[]");
		buf_addc(b, '}');
	}
	if (n > 1)
		buf_addc(b, ']');
	return 0;
}

/* ------------------------------------------------------------------ */
/* classification                                                      */

enum outcome
wrk_rpc_classify_http(const struct wrk_http_reply *r)
{
	if (r->too_large || r->curl_code == CURLE_FILESIZE_EXCEEDED)
		return OUTCOME_TOO_LARGE;
	switch (r->curl_code) {
	case CURLE_OK:
		break;
	case CURLE_OPERATION_TIMEDOUT:
		return OUTCOME_TIMEOUT;
	default:
		/* refused, reset, DNS, TLS, truncated, nothing at all */
		return OUTCOME_TRANSPORT;
	}
	if (r->status == 429)
		return OUTCOME_RATE_LIMITED;
	if (r->status >= 400 && r->status <= 499)
		return OUTCOME_HTTP_4XX;
	if (r->status >= 500 && r->status <= 599)
		return OUTCOME_HTTP_5XX;
	if (r->status >= 200 && r->status <= 299)
		return OUTCOME_OK;
	/* A redirect or an interim status is no JSON-RPC answer. */
	return OUTCOME_MALFORMED;
}

enum outcome
wrk_rpc_classify_error(int has_code, json_int_t code, const char *message)
{
	if (has_code && code == RPC_CODE_RATE_LIMITED)
		return OUTCOME_RATE_LIMITED;
	if (has_code && code == RPC_CODE_STATE_PRUNED)
		return OUTCOME_ABSENT;
	/* Nodes and proxies word pruned or unknown state differently. */
	if (message != NULL && (strcasestr(message, "State already discarded")
	    != NULL || strcasestr(message, "UnknownBlock") != NULL))
		return OUTCOME_ABSENT;
	return OUTCOME_RPC_ERROR;
}

static void
result_set(struct wrk_rpc_result *r, enum outcome o, const char *why)
{
	r->outcome = o;
	r->why = why;
}

/*
 * A code sent as a real (-32000.0, 4.003e3): taken when it is a whole
 * number an integer holds exactly.  The range is checked before the cast,
 * which is undefined for a real like 4e301 (found by fuzz/fuzz_rpc).
 */
static int
real_code(double d, json_int_t *code)
{
	if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) ||
	    d != (double)(json_int_t)d)
		return -1;
	*code = (json_int_t)d;
	return 0;
}

void
wrk_rpc_classify_answer(json_t *a, unsigned flags, struct wrk_rpc_result *r)
{
	json_t	*err, *res, *v;

	r->result = NULL;
	r->has_code = 0;
	r->code = 0;
	r->message = NULL;
	if (!json_is_object(a)) {
		result_set(r, OUTCOME_MALFORMED, "answer is not a JSON object");
		return;
	}
	err = json_object_get(a, "error");
	res = json_object_get(a, "result");
	/* Some proxies send "error": null beside a result. */
	if (err != NULL && !json_is_null(err)) {
		if (json_is_object(err)) {
			v = json_object_get(err, "code");
			if (json_is_integer(v)) {
				r->has_code = 1;
				r->code = json_integer_value(v);
			} else if (json_is_real(v) &&
			    real_code(json_real_value(v), &r->code) == 0)
				r->has_code = 1;
			v = json_object_get(err, "message");
			if (json_is_string(v))
				r->message = json_string_value(v);
		} else if (json_is_string(err))
			r->message = json_string_value(err);
		result_set(r, wrk_rpc_classify_error(r->has_code, r->code,
		    r->message), r->message != NULL ? r->message :
		    "JSON-RPC error without a message");
		return;
	}
	if (res == NULL) {
		result_set(r, OUTCOME_MALFORMED, "answer has no result and "
		    "no error");
		return;
	}
	r->result = res;
	if (json_is_null(res) && (flags & WRK_RPC_NULL_ABSENT))
		result_set(r, OUTCOME_ABSENT, "result is null");
	else
		result_set(r, OUTCOME_OK, NULL);
}

/* The answer's id as a number: an integer, or a string of digits. */
static int
answer_id(json_t *a, uint64_t *id)
{
	json_t		*v = json_object_get(a, "id");
	const char	*s;
	char		*end;
	double		 d;

	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return -1;
		*id = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_real(v)) {
		d = json_real_value(v);
		if (d < 0 || d > 9007199254740992.0 || d != (double)(uint64_t)d)
			return -1;
		*id = (uint64_t)d;
		return 0;
	}
	if (json_is_string(v)) {
		s = json_string_value(v);
		if (!isdigit((unsigned char)s[0]))
			return -1;
		errno = 0;
		*id = strtoull(s, &end, 10);
		return *end == '\0' && errno == 0 ? 0 : -1;
	}
	return -1;
}

static int
is_error_answer(json_t *a)
{
	json_t	*e = json_object_get(a, "error");

	return json_is_object(a) && e != NULL && !json_is_null(e);
}

static void
all_set(struct wrk_rpc_result *out, size_t n, enum outcome o, const char *why)
{
	for (size_t i = 0; i < n; i++)
		result_set(&out[i], o, why);
}

static void
match_batch(json_t *doc, uint64_t first_id, const unsigned *flags, size_t n,
    struct wrk_rpc_result *out)
{
	json_t		*a, *idless = NULL;
	size_t		 k;
	uint64_t	 id;

	if (!json_is_array(doc)) {
		/* A batch refused as a whole: every call gets its class. */
		if (is_error_answer(doc))
			for (size_t i = 0; i < n; i++)
				wrk_rpc_classify_answer(doc, flags[i], &out[i]);
		else
			all_set(out, n, OUTCOME_MALFORMED,
			    "batch answer is not an array");
		return;
	}
	/* OUTCOME_COUNT marks a call that no answer matched yet. */
	all_set(out, n, OUTCOME_COUNT, NULL);
	json_array_foreach(doc, k, a) {
		if (!json_is_object(a))
			continue;
		if (answer_id(a, &id) == -1) {
			if (is_error_answer(a) && idless == NULL)
				idless = a;
			continue;
		}
		if (id < first_id || id - first_id >= n)
			continue;		/* not ours: ignored */
		if (out[id - first_id].outcome != OUTCOME_COUNT)
			continue;		/* a duplicate: the first wins */
		wrk_rpc_classify_answer(a, flags[id - first_id],
		    &out[id - first_id]);
	}
	for (size_t i = 0; i < n; i++) {
		if (out[i].outcome != OUTCOME_COUNT)
			continue;
		/* An error without an id answers every call left over. */
		if (idless != NULL)
			wrk_rpc_classify_answer(idless, flags[i], &out[i]);
		else
			result_set(&out[i], OUTCOME_MALFORMED,
			    "no answer carries the call's id");
	}
}

static void
match_single(json_t *doc, uint64_t want, unsigned flags,
    struct wrk_rpc_result *r)
{
	uint64_t	id;

	/* Some proxies wrap a single answer in an array. */
	if (json_is_array(doc) && json_array_size(doc) == 1)
		doc = json_array_get(doc, 0);
	if (!json_is_object(doc)) {
		result_set(r, OUTCOME_MALFORMED, "answer is not a JSON object");
		return;
	}
	if (answer_id(doc, &id) == 0) {
		if (id != want) {
			result_set(r, OUTCOME_MALFORMED,
			    "answer carries another id");
			return;
		}
	} else if (!is_error_answer(doc)) {
		/* Only an error may lack the id (the request was unreadable). */
		result_set(r, OUTCOME_MALFORMED, "answer has no id");
		return;
	}
	wrk_rpc_classify_answer(doc, flags, r);
}

json_t *
wrk_rpc_match(const char *body, size_t len, int batch, uint64_t first_id,
    const unsigned *flags, size_t n, struct wrk_rpc_result *out)
{
	json_t		*doc;
	json_error_t	 e;

	for (size_t i = 0; i < n; i++) {
		out[i].result = NULL;
		out[i].has_code = 0;
		out[i].code = 0;
		out[i].message = NULL;
		out[i].why = NULL;
	}
	if ((doc = json_loadb(body, len, 0, &e)) == NULL) {
		all_set(out, n, OUTCOME_MALFORMED, "answer is not JSON");
		return NULL;
	}
	if (batch)
		match_batch(doc, first_id, flags, n, out);
	else
		for (size_t i = 0; i < n; i++)
			match_single(doc, first_id + i, flags[i], &out[i]);
	return doc;
}

/* ------------------------------------------------------------------ */
/* quantities                                                          */

int
wrk_rpc_quantity(const json_t *v, uint64_t *out)
{
	if (json_is_string(v))
		return hex_parse_u64(json_string_value(v), out);
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* the client                                                          */

/* One POST in flight; kept in a pool so that a request allocates nothing. */
struct rpc_pending {
	struct wrk_rpc		*rpc;
	struct rpc_pending	*next_free;
	struct rpc_pending	*next_all;
	wrk_rpc_cb		*cb;
	void			*arg;
	uint64_t		 first_id;
	size_t			 n;
	unsigned		*flags;
	size_t			 flags_cap;
	char			 why[160];
};

struct wrk_rpc {
	struct wrk_http		*http;
	uint64_t		 next_id;
	struct buf		 body;
	struct wrk_rpc_result	*res;
	size_t			 res_cap;
	struct rpc_pending	*free_pending;
	struct rpc_pending	*all_pending;
	int			 busy;
	int			 dead;
};

static void
rpc_destroy(struct wrk_rpc *rpc)
{
	struct rpc_pending	*p, *next;

	for (p = rpc->all_pending; p != NULL; p = next) {
		next = p->next_all;
		free(p->flags);
		free(p);
	}
	buf_free(&rpc->body);
	free(rpc->res);
	free(rpc);
}

static void
rpc_reply(void *arg, const struct wrk_http_reply *r)
{
	struct rpc_pending	*p = arg;
	struct wrk_rpc		*rpc = p->rpc;
	struct wrk_rpc_result	*res;
	enum outcome		 o;
	json_t			*doc = NULL;

	if (p->n > rpc->res_cap) {
		rpc->res = xrealloc(rpc->res, p->n * sizeof(*rpc->res));
		rpc->res_cap = p->n;
	}
	res = rpc->res;
	memset(res, 0, p->n * sizeof(*res));
	if ((o = wrk_rpc_classify_http(r)) != OUTCOME_OK) {
		if (r->curl_code == CURLE_OK && !r->too_large)
			snprintf(p->why, sizeof(p->why), "HTTP %ld", r->status);
		else if (r->too_large)
			snprintf(p->why, sizeof(p->why), "answer larger than "
			    "the cap");
		else
			snprintf(p->why, sizeof(p->why), "%s", r->error);
		all_set(res, p->n, o, p->why);
	} else
		doc = wrk_rpc_match(r->body, r->len, p->n > 1, p->first_id,
		    p->flags, p->n, res);
	for (size_t i = 0; i < p->n; i++) {
		res[i].latency_ms = r->latency_ms;
		res[i].retry_after_ms = r->retry_after_ms;
	}

	rpc->busy++;
	p->cb(p->arg, res, p->n);
	rpc->busy--;
	json_decref(doc);
	p->cb = NULL;
	p->arg = NULL;
	p->next_free = rpc->free_pending;
	rpc->free_pending = p;
	if (rpc->dead && rpc->busy == 0)
		rpc_destroy(rpc);
}

struct wrk_rpc *
wrk_rpc_new(struct ev_loop *loop, const struct wrk_http_conf *conf)
{
	struct wrk_rpc	*rpc;

	rpc = xcalloc(1, sizeof(*rpc));
	if ((rpc->http = wrk_http_new(loop, conf)) == NULL) {
		free(rpc);
		return NULL;
	}
	rpc->next_id = 1;
	return rpc;
}

void
wrk_rpc_free(struct wrk_rpc *rpc)
{
	if (rpc == NULL || rpc->dead)
		return;
	rpc->dead = 1;
	/*
	 * What is still out is told it ends, so that its owners free what
	 * they keep for it (a send from a callback now fails).
	 */
	rpc->busy++;
	for (struct rpc_pending *p = rpc->all_pending; p != NULL;
	    p = p->next_all) {
		wrk_rpc_cb	*cb = p->cb;

		if (cb == NULL)
			continue;
		if (p->n > rpc->res_cap) {
			rpc->res = xrealloc(rpc->res, p->n * sizeof(*rpc->res));
			rpc->res_cap = p->n;
		}
		memset(rpc->res, 0, p->n * sizeof(*rpc->res));
		all_set(rpc->res, p->n, OUTCOME_TRANSPORT, "worker stopping");
		p->cb = NULL;
		cb(p->arg, rpc->res, p->n);
		p->arg = NULL;
	}
	rpc->busy--;
	/* No callback of ours runs after this, so pending memory is free. */
	wrk_http_free(rpc->http);
	rpc->http = NULL;
	if (rpc->busy == 0)
		rpc_destroy(rpc);
}

struct wrk_http *
wrk_rpc_http(struct wrk_rpc *rpc)
{
	return rpc->http;
}

int
wrk_rpc_send(struct wrk_rpc *rpc, const struct wrk_rpc_call *calls, size_t n,
    uint32_t deadline_ms, wrk_rpc_cb *cb, void *arg)
{
	struct rpc_pending	*p;

	if (rpc->dead || wrk_rpc_build(&rpc->body, calls, n, rpc->next_id) == -1)
		return -1;
	if ((p = rpc->free_pending) != NULL)
		rpc->free_pending = p->next_free;
	else {
		p = xcalloc(1, sizeof(*p));
		p->rpc = rpc;
		p->next_all = rpc->all_pending;
		rpc->all_pending = p;
	}
	if (n > p->flags_cap) {
		p->flags = xrealloc(p->flags, n * sizeof(*p->flags));
		p->flags_cap = n;
	}
	for (size_t i = 0; i < n; i++)
		p->flags[i] = calls[i].flags;
	p->n = n;
	p->first_id = rpc->next_id;
	p->cb = cb;
	p->arg = arg;
	if (wrk_http_post(rpc->http, rpc->body.p, rpc->body.len, deadline_ms,
	    rpc_reply, p) == -1) {
		p->next_free = rpc->free_pending;
		rpc->free_pending = p;
		return -1;
	}
	rpc->next_id += n;
	return 0;
}
