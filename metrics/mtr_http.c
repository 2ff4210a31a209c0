/*
 * The HTTP side: libmicrohttpd with a thread per connection, a cap on
 * connections and an idle timeout, so that a scraper that stalls holds
 * one thread for at most MTR_CONN_TIMEOUT and nobody else waits for it.
 * Scrapes share one snapshot at a time: a burst of scrapes asks
 * chainwatchd at most once per MTR_CACHE_MS.  API answers are kept per
 * request until the store changes (mtr_apicache.c).
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <microhttpd.h>

#include "http_log.h"
#include "log.h"
#include "mtr.h"
#include "mtr_apicache.h"
#include "util.h"

#define MTR_CONN_MAX		64
#define MTR_CONN_TIMEOUT	10	/* seconds without progress */
#define MTR_CACHE_MS		1000

#define API_KEY_PARAMS		8	/* more: answered, not kept */
#define API_KEY_MAX		1024	/* longer: the same */

#define CTYPE_METRICS	"text/plain; version=0.0.4; charset=utf-8"
#define CTYPE_JSON	"application/json"
#define CTYPE_TEXT	"text/plain; charset=utf-8"
#define CTYPE_HTML	"text/html; charset=utf-8"

static struct MHD_Daemon	*mhd;
static const char		*cors_origin;	/* for /api/, or NULL */

/* The last snapshot, rendered; under cache_lock (and mem_give_back). */
static pthread_mutex_t		 cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int		valid;
	uint64_t	at;		/* monotonic ms */
	struct buf	metrics, health;
	unsigned	health_code;
	/* The status page, rendered only when asked for. */
	int		page_valid;
	uint64_t	page_at;
	struct buf	page;
	unsigned	page_code;
} cache;
/* The answers of /api/v1/; under cache_lock too. */
static struct mtr_apicache	 apicache;

/* Under cache_lock: gather again unless the snapshot is fresh. */
static void
cache_refresh(void)
{
	struct mtr_snap	s;

	if (cache.valid && now_mono_ms() - cache.at < MTR_CACHE_MS)
		return;
	mtr_gather(&s);
	buf_free(&cache.metrics);
	buf_free(&cache.health);
	mtr_expo(&s, &cache.metrics);
	cache.health_code = mtr_health(&s, &cache.health);
	mtr_snap_free(&s);
	cache.at = now_mono_ms();
	cache.valid = 1;
}

static enum MHD_Result
respond(struct MHD_Connection *conn, unsigned code, const char *ctype,
    const char *body, size_t len)
{
	struct MHD_Response	*resp;
	enum MHD_Result		 ret;

	resp = MHD_create_response_from_buffer(len, (void *)body,
	    MHD_RESPMEM_MUST_COPY);
	if (resp == NULL)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
	    "no-store");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
		    "GET, HEAD");
	ret = MHD_queue_response(conn, code, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result
respond_text(struct MHD_Connection *conn, unsigned code, const char *text)
{
	return respond(conn, code, CTYPE_TEXT, text, strlen(text));
}

/* Under cache_lock: render the status page again unless it is fresh. */
static void
cache_refresh_page(void)
{
	if (cache.page_valid && now_mono_ms() - cache.page_at < MTR_CACHE_MS)
		return;
	buf_free(&cache.page);
	cache.page_code = mtr_gather_page(&cache.page);
	cache.page_at = now_mono_ms();
	cache.page_valid = 1;
}

static enum MHD_Result
respond_page(struct MHD_Connection *conn, const char *method,
    const char *url)
{
	struct MHD_Response	*resp;
	enum MHD_Result		 ret;
	unsigned		 code;

	pthread_mutex_lock(&cache_lock);
	cache_refresh_page();
	code = cache.page_code;
	resp = MHD_create_response_from_buffer(cache.page.len, cache.page.p,
	    MHD_RESPMEM_MUST_COPY);
	mem_give_back(now_mono_ms());
	pthread_mutex_unlock(&cache_lock);
	if (resp == NULL)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
	    CTYPE_HTML);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
	    "no-store");
	/* Nothing on the page comes from elsewhere, and nothing may. */
	MHD_add_response_header(resp, "Content-Security-Policy",
	    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'");
	ret = MHD_queue_response(conn, code, resp);
	MHD_destroy_response(resp);
	log_debug("%s %s: %u", method, url, code);
	return ret;
}

/* The rendered snapshot, copied out under the lock. */
static enum MHD_Result
respond_snapshot(struct MHD_Connection *conn, const char *method,
    const char *url, int health)
{
	struct MHD_Response	*resp;
	enum MHD_Result		 ret;
	const struct buf	*b;
	unsigned		 code;

	pthread_mutex_lock(&cache_lock);
	cache_refresh();
	b = health ? &cache.health : &cache.metrics;
	code = health ? cache.health_code : MHD_HTTP_OK;
	resp = MHD_create_response_from_buffer(b->len, b->p,
	    MHD_RESPMEM_MUST_COPY);
	mem_give_back(now_mono_ms());
	pthread_mutex_unlock(&cache_lock);
	if (resp == NULL)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
	    health ? CTYPE_JSON : CTYPE_METRICS);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
	    "no-store");
	ret = MHD_queue_response(conn, code, resp);
	MHD_destroy_response(resp);
	log_debug("%s %s: %u", method, url, code);
	return ret;
}

/* The query parameters of an API request, through libmicrohttpd. */
static const char *
api_param(void *cls, const char *name)
{
	return MHD_lookup_connection_value(cls, MHD_GET_ARGUMENT_KIND, name);
}

struct api_unknown {
	const char *const	*known;
	const char		*bad;
};

static enum MHD_Result
api_unknown_one(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	struct api_unknown	*u = cls;
	size_t			 i;

	(void)kind;
	(void)value;
	for (i = 0; u->known[i] != NULL; i++)
		if (strcmp(key, u->known[i]) == 0)
			return MHD_YES;
	u->bad = key;
	return MHD_NO;
}

static const char *
api_unknown(void *cls, const char *const *known)
{
	struct api_unknown	 u = { known, NULL };

	MHD_get_connection_values(cls, MHD_GET_ARGUMENT_KIND, api_unknown_one,
	    &u);
	return u.bad;
}

/* An entity tag of the body: FNV-1a, 64 bits, quoted. */
static void
api_etag(const char *body, size_t len, char *out, size_t outlen)
{
	uint64_t	h = 0xcbf29ce484222325ULL;
	size_t		i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)body[i];
		h *= 0x100000001b3ULL;
	}
	snprintf(out, outlen, "\"%016llx\"", (unsigned long long)h);
}

/* Whether If-None-Match (a list of tags, or *) names etag. */
static int
api_etag_matches(const char *inm, const char *etag)
{
	size_t	 n = strlen(etag);
	const char *p;

	if (inm == NULL)
		return 0;
	if (strcmp(inm, "*") == 0)
		return 1;
	for (p = inm; (p = strstr(p, etag)) != NULL; p += n)
		if ((p == inm || p[-1] == ' ' || p[-1] == ',' ||
		    p[-1] == '/') && (p[n] == '\0' || p[n] == ',' ||
		    p[n] == ' '))
			return 1;
	return 0;
}

/*
 * The parameters of a request, for its cache key: at most API_KEY_PARAMS
 * (a request with more is answered, not kept).
 */
struct api_args {
	const char	*k[API_KEY_PARAMS], *v[API_KEY_PARAMS];
	size_t		 n;
	int		 over;
};

static enum MHD_Result
api_arg_one(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	struct api_args	*a = cls;

	(void)kind;
	if (a->n == API_KEY_PARAMS) {
		a->over = 1;
		return MHD_NO;
	}
	a->k[a->n] = key;
	a->v[a->n++] = value;
	return MHD_YES;
}

/*
 * The cache key of a request: its path, then its parameters by name, as
 * libmicrohttpd decoded them (?a=1&b=2, ?b=2&a=%31: one key).  The sort
 * is stable, so a name given twice keeps the order that says which value
 * counts; lengths go first, so that no value can pass for another.
 * Returns 0, or -1 for a request too long to keep.
 */
static int
api_key(struct MHD_Connection *conn, const char *url, char *key,
    size_t keylen)
{
	struct api_args	 a;
	const char	*t;
	size_t		 i, j, o;
	int		 n;

	memset(&a, 0, sizeof(a));
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, api_arg_one,
	    &a);
	if (a.over)
		return -1;
	for (i = 1; i < a.n; i++)
		for (j = i; j > 0 && strcmp(a.k[j - 1], a.k[j]) > 0; j--) {
			t = a.k[j], a.k[j] = a.k[j - 1], a.k[j - 1] = t;
			t = a.v[j], a.v[j] = a.v[j - 1], a.v[j - 1] = t;
		}
	n = snprintf(key, keylen, "%s", url);
	for (i = 0, o = 0; n >= 0 && (size_t)n < keylen - o && i < a.n; i++) {
		o += (size_t)n;
		if (a.v[i] != NULL)
			n = snprintf(key + o, keylen - o, "?%zu:%s=%zu:%s",
			    strlen(a.k[i]), a.k[i], strlen(a.v[i]), a.v[i]);
		else
			n = snprintf(key + o, keylen - o, "?%zu:%s",
			    strlen(a.k[i]), a.k[i]);
	}
	return n >= 0 && (size_t)n < keylen - o ? 0 : -1;
}

/* Answer a request from the store, into r (its body to free). */
static int
api_build(struct MHD_Connection *conn, const char *url,
    struct mtr_api_reply *r)
{
	struct mtr_api_answer	 a;
	char			*body;
	size_t			 len;

	memset(&a, 0, sizeof(a));
	a.req.path = url;
	a.req.now = (int64_t)now_wall_ms();
	a.req.cls = conn;
	a.req.param = api_param;
	a.req.unknown = api_unknown;
	r->status = mtr_gather_api(&a);
	body = json_dumps(a.body, JSON_COMPACT);
	json_decref(a.body);
	if (body == NULL)
		return -1;
	len = strlen(body);
	body[len++] = '\n';	/* over the NUL: sent by length */
	api_etag(body, len, r->etag, sizeof(r->etag));
	r->body = body;
	r->len = len;
	r->max_age = a.max_age;
	return 0;
}

/* The response to r, or 304 without a body if the client has its tag. */
static struct MHD_Response *
api_response(struct MHD_Connection *conn, const struct mtr_api_reply *r,
    unsigned *code)
{
	struct MHD_Response	*resp;
	char			 cc[48];

	*code = r->status;
	if (*code == MHD_HTTP_OK && api_etag_matches(
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_IF_NONE_MATCH), r->etag))
		*code = MHD_HTTP_NOT_MODIFIED;
	resp = MHD_create_response_from_buffer(*code ==
	    MHD_HTTP_NOT_MODIFIED ? 0 : r->len, r->body,
	    MHD_RESPMEM_MUST_COPY);
	if (resp == NULL)
		return NULL;
	if (*code != MHD_HTTP_NOT_MODIFIED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
		    CTYPE_JSON);
	if (*code == MHD_HTTP_OK || *code == MHD_HTTP_NOT_MODIFIED) {
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, r->etag);
		snprintf(cc, sizeof(cc), "public, max-age=%lld",
		    (long long)r->max_age);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
		    cc);
	} else
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
		    "no-store");
	if (cors_origin != NULL)
		MHD_add_response_header(resp,
		    MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN, cors_origin);
	return resp;
}

/*
 * An API request: the answer kept for it while the store's data_version
 * stays (mtr_apicache.h), else built and kept.  The version is read
 * before the answer, so an answer is never older than the version it is
 * kept under.  Errors of the request (400) are cheap and not kept; 503
 * is not an answer about the store.
 */
static enum MHD_Result
respond_api(struct MHD_Connection *conn, const char *method,
    const char *url)
{
	struct mtr_store_version	 v;
	struct mtr_api_reply		 built;
	const struct mtr_api_reply	*r = NULL;
	struct MHD_Response		*resp = NULL;
	enum MHD_Result			 ret;
	char				 key[API_KEY_MAX];
	uint64_t			 now = 0;
	unsigned			 code = 0;
	int				 keep;

	memset(&built, 0, sizeof(built));
	keep = api_key(conn, url, key, sizeof(key)) == 0;
	pthread_mutex_lock(&cache_lock);
	if (keep && mtr_gather_store_version(&v) == -1)
		keep = 0;
	if (keep) {
		now = now_mono_ms();
		r = mtr_apicache_find(&apicache, key, &v, now);
	}
	if (r == NULL && api_build(conn, url, &built) == 0) {
		r = &built;
		if (keep && (built.status == MHD_HTTP_OK ||
		    built.status == MHD_HTTP_NOT_FOUND)) {
			r = mtr_apicache_put(&apicache, key, &v, now, &built);
			built.body = NULL;	/* the cache's now */
		}
	}
	if (r != NULL)
		resp = api_response(conn, r, &code);
	/* A window's sort may have taken megabytes: back within 30 s. */
	mem_give_back(now_mono_ms());
	pthread_mutex_unlock(&cache_lock);
	free(built.body);
	if (resp == NULL)
		return MHD_NO;
	ret = MHD_queue_response(conn, code, resp);
	MHD_destroy_response(resp);
	log_debug("%s %s: %u", method, url, code);
	return ret;
}

static enum MHD_Result
http_answer(void *cls, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_len, void **req_cls)
{
	static int	seen;

	/* Refuse other methods at once, without reading a body. */
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return respond_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
		    "method not allowed: use GET\n");
	/* The first call has only the headers; answer once all came. */
	if (*req_cls == NULL) {
		*req_cls = &seen;
		return MHD_YES;
	}
	if (*upload_len != 0) {
		*upload_len = 0;	/* a GET body means nothing: drop it */
		return MHD_YES;
	}
	if (strcmp(url, "/") == 0)
		return respond_page(conn, method, url);
	if (strncmp(url, "/api/", 5) == 0)
		return respond_api(conn, method, url);
	if (strcmp(url, "/metrics") == 0)
		return respond_snapshot(conn, method, url, 0);
	if (strcmp(url, "/health") == 0)
		return respond_snapshot(conn, method, url, 1);
	return respond_text(conn, MHD_HTTP_NOT_FOUND,
	    "not found: try /, /metrics, /health or /api/v1/chains\n");
}

int
mtr_http_start(int listen_fd, int ipv6, const char *cors)
{
	cors_origin = cors;
	mhd = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION |
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO |
	    MHD_USE_ERROR_LOG | (ipv6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL,
	    http_answer, NULL,
	    MHD_OPTION_EXTERNAL_LOGGER, http_mhd_log, NULL,	/* first, or lost */
	    MHD_OPTION_LISTEN_SOCKET, listen_fd,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)MTR_CONN_MAX,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)MTR_CONN_TIMEOUT,
	    MHD_OPTION_END);
	return mhd != NULL ? 0 : -1;
}

void
mtr_http_stop(void)
{
	if (mhd != NULL)
		MHD_stop_daemon(mhd);
	mhd = NULL;
	buf_free(&cache.metrics);
	buf_free(&cache.health);
	buf_free(&cache.page);
	cache.valid = 0;
	cache.page_valid = 0;
	mtr_apicache_free(&apicache);
}
