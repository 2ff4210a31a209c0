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
/* jsonrpsee's (Substrate's): more calls, or a larger answer, than the
 * node allows in a batch (--rpc-max-batch-request-len, and the response
 * size). */
#define RPC_CODE_BATCH_TOO_LARGE	(-32010)
#define RPC_CODE_BATCH_ANSWER_TOO_LARGE	(-32011)

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

/* One call's object, with its id. */
static void
call_text(struct buf *b, const struct wrk_rpc_call *c, uint64_t id)
{
	char	idtext[32];

	snprintf(idtext, sizeof(idtext), "%" PRIu64, id);
	buf_adds(b, "{\"jsonrpc\":\"2.0\",\"id\":");
	buf_adds(b, idtext);
	buf_adds(b, ",\"method\":\"");
	buf_adds(b, c->method);
	buf_adds(b, "\",\"params\":");
	buf_adds(b, c->params != NULL ? c->params : "[]");
	buf_addc(b, '}');
}

int
wrk_rpc_build(struct buf *b, const struct wrk_rpc_call *calls, size_t n,
    uint64_t first_id)
{
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
		call_text(b, &calls[i], first_id + i);
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
/* the batch limit                                                     */

size_t
wrk_batch_size(const struct wrk_batch *b, size_t n)
{
	return b->limit != 0 && b->limit < n ? b->limit : n;
}

int
wrk_batch_refused(struct wrk_batch *b, size_t n, uint64_t now)
{
	size_t	was = b->limit, to;

	if (n < 2)
		return 0;
	/*
	 * Half of what it refused, or the largest it answered if more (a
	 * smaller one shows nothing: the calls were all there were).
	 */
	to = n / 2;
	if (b->answered < n) {
		if (b->answered > to)
			to = b->answered;
	} else
		b->answered = 0;	/* it takes less than it did */
	if (b->limit == 0 || to < b->limit)
		b->limit = to;
	if (b->refused == 0 || n < b->refused)
		b->refused = n;
	b->refused_at = now;
	b->good = 0;
	return b->limit != was;
}

int
wrk_batch_answered(struct wrk_batch *b, size_t n, uint64_t now)
{
	size_t	next, was = b->limit;

	if (n > b->answered)
		b->answered = n;
	/* Only a full POST at the limit shows that the limit holds. */
	if (b->limit == 0 || n != b->limit || ++b->good < WRK_BATCH_GROW)
		return 0;
	b->good = 0;
	if (b->refused != 0 && now - b->refused_at >= WRK_BATCH_FORGET_MS)
		b->refused = 0;
	/* Halfway to what it refused, else by a quarter. */
	if (b->refused != 0)
		next = b->limit + (b->refused - b->limit) / 2;
	else
		next = b->limit + (b->limit / 4 > 1 ? b->limit / 4 : 1);
	if (b->refused != 0 && next >= b->refused)
		next = b->refused - 1;
	if (next > b->limit)
		b->limit = next;
	if (b->refused == 0 && b->limit >= WRK_BATCH_UNBOUNDED)
		b->limit = 0;
	return b->limit != was;
}

int
wrk_rpc_refused(const struct wrk_rpc_result *res, size_t n, long status)
{
	if (n < 2)
		return 0;
	if (status == 413)
		return 1;
	/* One error for the whole batch (every call has it): its size. */
	for (size_t i = 0; i < n; i++)
		if (res[i].outcome != OUTCOME_RPC_ERROR || !res[i].has_code ||
		    (res[i].code != RPC_CODE_BATCH_TOO_LARGE &&
		    res[i].code != RPC_CODE_BATCH_ANSWER_TOO_LARGE))
			return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* the client                                                          */

/*
 * One wrk_rpc_send: its calls' text (to send again in smaller POSTs if
 * the endpoint refuses the batch), their results and the documents
 * those point into, until the last POST is answered.  Kept in a pool.
 */
struct rpc_send {
	struct wrk_rpc		*rpc;
	struct rpc_send		*next_free;
	struct rpc_send		*next_all;
	wrk_rpc_cb		*cb;		/* NULL: not in use */
	void			*arg;
	size_t			 n;
	size_t			 out;		/* POSTs not answered yet */
	uint64_t		 first_id;
	uint64_t		 deadline;	/* mono ms */
	struct buf		 text;		/* the calls, comma-separated */
	size_t			*off;		/* call i at off[i]; off[n] end */
	unsigned		*flags;
	struct wrk_rpc_result	*res;
	size_t			 cap;
	json_t			**docs;
	size_t			 n_docs, docs_cap;
	struct rpc_pending	*done;		/* answered: their why[] */
};

/* One POST in flight: calls [from, from + n) of its send. */
struct rpc_pending {
	struct rpc_send		*send;
	struct rpc_pending	*next_free;
	struct rpc_pending	*next_all;
	struct rpc_pending	*next_done;
	size_t			 from, n;
	char			 why[160];
};

struct wrk_rpc {
	struct wrk_http		*http;
	uint64_t		 next_id;
	struct buf		 body;
	struct wrk_batch	 batch;
	struct rpc_send		*free_sends;
	struct rpc_send		*all_sends;
	struct rpc_pending	*free_pending;
	struct rpc_pending	*all_pending;
	unsigned		 n_sends;
	unsigned		 sends_in_use;
	unsigned		 sends_peak;	/* most in use since the trim */
	uint64_t		 trim_ms;	/* mono ms of the last trim */
	int			 busy;
	int			 dead;
};

/*
 * Every this often (at a send's end) the sends beyond the most in use at
 * once since are freed, as wrk_http.c does its slots: a backfill's
 * sends, each with its calls' text and results, do not stay for the
 * worker's life.
 */
#define RPC_TRIM_MS	30000
/* and the sends left, and the POST's text, are cut back past these */
#define RPC_KEEP_CALLS	16
#define RPC_KEEP_BODY	(64 * 1024)

/* A send's room for calls freed; it grows again with the next batch. */
static void
send_shrink(struct rpc_send *s)
{
	buf_free(&s->text);
	free(s->off);
	free(s->flags);
	free(s->res);
	s->off = NULL;
	s->flags = NULL;
	s->res = NULL;
	s->cap = 0;
}

static void
send_destroy(struct rpc_send *s)
{
	for (size_t i = 0; i < s->n_docs; i++)
		json_decref(s->docs[i]);
	send_shrink(s);
	free(s->docs);
	free(s);
}

static void
rpc_destroy(struct wrk_rpc *rpc)
{
	struct rpc_pending	*p, *pn;
	struct rpc_send		*s, *sn;

	for (p = rpc->all_pending; p != NULL; p = pn) {
		pn = p->next_all;
		free(p);
	}
	for (s = rpc->all_sends; s != NULL; s = sn) {
		sn = s->next_all;
		send_destroy(s);
	}
	buf_free(&rpc->body);
	free(rpc);
}

/* Free sends beyond the most in use at once since the last trim. */
static void
rpc_trim(struct wrk_rpc *rpc, uint64_t now)
{
	struct rpc_send	**pp, *s;
	unsigned	  freed = 0;

	rpc->trim_ms = now;
	while (rpc->n_sends > rpc->sends_peak &&
	    (s = rpc->free_sends) != NULL) {
		rpc->free_sends = s->next_free;
		for (pp = &rpc->all_sends; *pp != s; pp = &(*pp)->next_all)
			;
		*pp = s->next_all;
		send_destroy(s);
		rpc->n_sends--;
		freed++;
	}
	if (freed > 0)
		log_debug("rpc: %u idle batch%s of calls freed, %u kept", freed,
		    freed == 1 ? "" : "es", rpc->n_sends);
	/* What is kept is sized for a probe again, not for a backfill. */
	for (s = rpc->free_sends; s != NULL; s = s->next_free)
		if (s->cap > RPC_KEEP_CALLS)
			send_shrink(s);
	if (rpc->body.cap > RPC_KEEP_BODY)
		buf_free(&rpc->body);
	rpc->sends_peak = rpc->sends_in_use;
}

static void	rpc_reply(void *, const struct wrk_http_reply *);

/* POST calls [from, from + n) of s; -1 if curl refuses it. */
static int
rpc_post(struct rpc_send *s, size_t from, size_t n)
{
	struct wrk_rpc		*rpc = s->rpc;
	struct rpc_pending	*p;
	uint64_t		 now = now_mono_ms();
	size_t			 a = s->off[from], b = s->off[from + n];

	/* The calls' ids are theirs in every POST that carries them. */
	buf_reset(&rpc->body);
	if (n > 1)
		buf_addc(&rpc->body, '[');
	/* Less the comma after the last. */
	buf_add(&rpc->body, s->text.p + a, b - a - 1);
	if (n > 1)
		buf_addc(&rpc->body, ']');
	if ((p = rpc->free_pending) != NULL)
		rpc->free_pending = p->next_free;
	else {
		p = xcalloc(1, sizeof(*p));
		p->next_all = rpc->all_pending;
		rpc->all_pending = p;
	}
	p->send = s;
	p->from = from;
	p->n = n;
	if (wrk_http_post(rpc->http, rpc->body.p, rpc->body.len,
	    (uint32_t)(s->deadline > now ? s->deadline - now : 1), rpc_reply,
	    p) == -1) {
		p->next_free = rpc->free_pending;
		rpc->free_pending = p;
		return -1;
	}
	s->out++;
	return 0;
}

/* Calls [from, from + n) of s in POSTs of the batch limit; -1: none went. */
static int
rpc_post_all(struct rpc_send *s, size_t from, size_t n)
{
	size_t	k, sent = 0;

	while (sent < n) {
		k = wrk_batch_size(&s->rpc->batch, n - sent);
		if (rpc_post(s, from + sent, k) == -1)
			break;
		sent += k;
	}
	if (sent < n) {
		/* What could not go fails as a refused request would. */
		memset(s->res + from + sent, 0, (n - sent) * sizeof(*s->res));
		all_set(s->res + from + sent, n - sent, OUTCOME_TRANSPORT,
		    "request not sent");
		if (sent == 0)
			return -1;
	}
	return 0;
}

static void
send_free(struct rpc_send *s)
{
	struct rpc_pending	*p, *next;

	for (size_t i = 0; i < s->n_docs; i++)
		json_decref(s->docs[i]);
	s->n_docs = 0;
	for (p = s->done; p != NULL; p = next) {
		next = p->next_done;
		p->next_free = s->rpc->free_pending;
		s->rpc->free_pending = p;
	}
	s->done = NULL;
	s->cb = NULL;
	s->arg = NULL;
	s->next_free = s->rpc->free_sends;
	s->rpc->free_sends = s;
	s->rpc->sends_in_use--;
	if (now_mono_ms() - s->rpc->trim_ms >= RPC_TRIM_MS)
		rpc_trim(s->rpc, now_mono_ms());
}

static void
rpc_reply(void *arg, const struct wrk_http_reply *r)
{
	struct rpc_pending	*p = arg;
	struct rpc_send		*s = p->send;
	struct wrk_rpc		*rpc = s->rpc;
	struct wrk_rpc_result	*res = s->res + p->from;
	enum outcome		 o;
	json_t			*doc = NULL;
	size_t			 from = p->from, n = p->n;
	uint64_t		 now = now_mono_ms();
	wrk_rpc_cb		*cb;

	/* Back to the pool with its send: the results name its why[]. */
	p->next_done = s->done;
	s->done = p;
	s->out--;
	memset(res, 0, n * sizeof(*res));
	if ((o = wrk_rpc_classify_http(r)) != OUTCOME_OK) {
		if (r->curl_code == CURLE_OK && !r->too_large)
			snprintf(p->why, sizeof(p->why), "HTTP %ld", r->status);
		else if (r->too_large)
			snprintf(p->why, sizeof(p->why), "answer larger than "
			    "the cap");
		else
			snprintf(p->why, sizeof(p->why), "%s", r->error);
		all_set(res, n, o, p->why);
	} else
		doc = wrk_rpc_match(r->body, r->len, n > 1,
		    s->first_id + from, s->flags + from, n, res);
	for (size_t i = 0; i < n; i++) {
		res[i].latency_ms = r->latency_ms;
		res[i].retry_after_ms = r->retry_after_ms;
	}
	if (wrk_rpc_refused(res, n, r->curl_code == CURLE_OK ? r->status :
	    0) && now < s->deadline) {
		/* Too many calls for it: the same, in smaller POSTs. */
		if (wrk_batch_refused(&rpc->batch, n, now))
			log_info("the endpoint refuses a batch of %zu calls "
			    "(%s): at most %zu a request now", n, res[0].why,
			    rpc->batch.limit);
		json_decref(doc);
		doc = NULL;
		memset(res, 0, n * sizeof(*res));
		if (rpc_post_all(s, from, n) == 0)
			return;
	} else if (o == OUTCOME_OK && wrk_batch_answered(&rpc->batch, n, now))
		log_info("batches of %zu calls answered: at most %zu a "
		    "request now", n, rpc->batch.limit != 0 ?
		    rpc->batch.limit : s->n);
	if (doc != NULL) {
		if (s->n_docs == s->docs_cap) {
			s->docs_cap = s->docs_cap == 0 ? 4 : s->docs_cap * 2;
			s->docs = xrealloc(s->docs, s->docs_cap *
			    sizeof(*s->docs));
		}
		s->docs[s->n_docs++] = doc;
	}
	if (s->out > 0)
		return;
	rpc->busy++;
	cb = s->cb;
	s->cb = NULL;		/* wrk_rpc_free from cb: not told twice */
	cb(s->arg, s->res, s->n);
	rpc->busy--;
	send_free(s);
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
	rpc->trim_ms = now_mono_ms();
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
	for (struct rpc_send *s = rpc->all_sends; s != NULL; s = s->next_all) {
		wrk_rpc_cb	*cb = s->cb;

		if (cb == NULL)
			continue;
		memset(s->res, 0, s->n * sizeof(*s->res));
		all_set(s->res, s->n, OUTCOME_TRANSPORT, "worker stopping");
		s->cb = NULL;
		cb(s->arg, s->res, s->n);
		s->arg = NULL;
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

const struct wrk_batch *
wrk_rpc_batch(const struct wrk_rpc *rpc)
{
	return &rpc->batch;
}

int
wrk_rpc_send(struct wrk_rpc *rpc, const struct wrk_rpc_call *calls, size_t n,
    uint32_t deadline_ms, wrk_rpc_cb *cb, void *arg)
{
	struct rpc_send	*s;

	if (rpc->dead || n == 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!method_ok(calls[i].method))
			return -1;
	if ((s = rpc->free_sends) != NULL)
		rpc->free_sends = s->next_free;
	else {
		s = xcalloc(1, sizeof(*s));
		s->rpc = rpc;
		s->next_all = rpc->all_sends;
		rpc->all_sends = s;
		rpc->n_sends++;
	}
	if (++rpc->sends_in_use > rpc->sends_peak)
		rpc->sends_peak = rpc->sends_in_use;
	if (n > s->cap) {
		s->off = xrealloc(s->off, (n + 1) * sizeof(*s->off));
		s->flags = xrealloc(s->flags, n * sizeof(*s->flags));
		s->res = xrealloc(s->res, n * sizeof(*s->res));
		s->cap = n;
	}
	memset(s->res, 0, n * sizeof(*s->res));
	buf_reset(&s->text);
	for (size_t i = 0; i < n; i++) {
		s->off[i] = s->text.len;
		s->flags[i] = calls[i].flags;
		call_text(&s->text, &calls[i], rpc->next_id + i);
		buf_addc(&s->text, ',');
	}
	s->off[n] = s->text.len;
	s->n = n;
	s->out = 0;
	s->first_id = rpc->next_id;
	s->deadline = now_mono_ms() + deadline_ms;
	s->cb = cb;
	s->arg = arg;
	if (rpc_post_all(s, 0, n) == -1) {
		send_free(s);
		return -1;
	}
	rpc->next_id += n;
	return 0;
}
