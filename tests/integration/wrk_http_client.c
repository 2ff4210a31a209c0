/*
 * Drives wrk_rpc/wrk_http against tests/integration/wrk_http_server.py
 * (or chainwatch-devnode) and checks the outcome of each fault.  One
 * scenario per run; prints PASS/FAIL lines and exits 0 or 1.
 *   wrk_http_client BASE-URL classes|blackhole|oversized|batch|keepalive
 *   wrk_http_client HTTPS-BASE-URL tls       (WRK_TEST_CA: the server's cert)
 *   wrk_http_client DEVNODE-URL devnode CONTROL-URL
 *   wrk_http_client BASE-URL bench N CONCURRENCY [BATCH]  (figures only)
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ev.h>
#include <curl/curl.h>
#include <jansson.h>

#include "log.h"
#include "util.h"
#include "wrk_client.h"
#include "wrk_http.h"
#include "wrk_rpc.h"

#define MAXN	1024

static const char	*base;

struct got {
	int		 done;
	size_t		 n;
	enum outcome	 o[MAXN];
	json_t		*res[MAXN];	/* copies of the results */
	char		 why[200];
	uint64_t	 latency_ms;
	uint64_t	 order;		/* completion sequence number */
};

static uint64_t	completions;

static void
got_cb(void *arg, const struct wrk_rpc_result *r, size_t n)
{
	struct got	*g = arg;

	g->n = n;
	for (size_t i = 0; i < n && i < MAXN; i++) {
		g->o[i] = r[i].outcome;
		g->res[i] = r[i].result != NULL ? json_deep_copy(r[i].result) :
		    NULL;
	}
	snprintf(g->why, sizeof(g->why), "%s", r[0].why != NULL ? r[0].why :
	    "");
	g->latency_ms = r[0].latency_ms;
	g->order = ++completions;
	g->done = 1;
}

static void
got_clear(struct got *g)
{
	for (size_t i = 0; i < g->n && i < MAXN; i++)
		json_decref(g->res[i]);
	memset(g, 0, sizeof(*g));
}

/* Runs the loop until every flag in done[] is set, or limit_s passes. */
static int
run_until(int **done, size_t n, double limit_s)
{
	ev_timer	t;
	int		expired = 0, all;

	ev_timer_init(&t, client_stop_cb, limit_s, 0.0);
	t.data = &expired;
	ev_timer_start(loop, &t);
	for (;;) {
		all = 1;
		for (size_t i = 0; i < n; i++)
			if (!*done[i])
				all = 0;
		if (all || expired)
			break;
		ev_run(loop, EVRUN_ONCE);
	}
	ev_timer_stop(loop, &t);
	return all;
}

static struct wrk_rpc *
rpc_for(const char *path, size_t cap)
{
	struct wrk_http_conf	c = { 0 };
	char			url[512];

	snprintf(url, sizeof(url), "%s%s", base, path);
	c.url = url;
	c.connect_timeout_ms = 2000;
	c.max_response = cap;
	c.ca_file = getenv("WRK_TEST_CA");
	return wrk_rpc_new(loop, &c);
}

/* One call on path; returns its outcome (and the got for details). */
static enum outcome
call1(struct wrk_rpc *rpc, const char *method, const char *params,
    unsigned flags, uint32_t deadline, struct got *g)
{
	struct wrk_rpc_call	c = { method, params, flags };
	int			*d = &g->done;

	got_clear(g);
	if (wrk_rpc_send(rpc, &c, 1, deadline, got_cb, g) == -1)
		return OUTCOME_COUNT;
	if (!run_until(&d, 1, deadline / 1000.0 + 5))
		return OUTCOME_COUNT;
	return g->o[0];
}

/*
 * One call through a client of its own (no CA file) to url, which must
 * fail as a transport error: what names the case in the line printed.
 */
static void
check_transport(const char *url, const char *what, struct got *g)
{
	struct wrk_http_conf	 c = { .url = url, .connect_timeout_ms = 2000 };
	struct wrk_rpc		*rpc = wrk_rpc_new(loop, &c);
	enum outcome		 o;

	o = call1(rpc, "echo", "[1]", 0, 5000, g);
	check(o == OUTCOME_TRANSPORT, "%s -> %s (%s)", what, outcome_name(o),
	    g->why);
	wrk_rpc_free(rpc);
}

/* ---- /stats, read with the raw HTTP API ---- */

struct raw {
	int	 done;
	json_t	*doc;
};

static void
raw_cb(void *arg, const struct wrk_http_reply *r)
{
	struct raw	*x = arg;

	x->doc = r->curl_code == CURLE_OK ? json_loadb(r->body, r->len, 0,
	    NULL) : NULL;
	x->done = 1;
}

static long
stat_get(const char *kind, const char *path)
{
	struct wrk_http_conf	 c = { 0 };
	struct wrk_http		*h;
	struct raw		 x = { 0 };
	int			*d = &x.done;
	char			 url[512];
	long			 v = -1;

	snprintf(url, sizeof(url), "%s/stats", base);
	c.url = url;
	h = wrk_http_new(loop, &c);
	if (wrk_http_post(h, "{}", 2, 5000, raw_cb, &x) == 0 &&
	    run_until(&d, 1, 10) && x.doc != NULL)
		v = (long)json_integer_value(json_object_get(json_object_get(
		    x.doc, kind), path));
	json_decref(x.doc);
	wrk_http_free(h);
	return v;
}

/* ---- scenarios ---- */

static void
scenario_classes(void)
{
	static const struct {
		const char	*path;
		const char	*method;
		const char	*params;
		unsigned	 flags;
		enum outcome	 want;
	} t[] = {
		{ "/ok", "echo", "[\"0xab\"]", 0, OUTCOME_OK },
		{ "/ok", "null", NULL, WRK_RPC_NULL_ABSENT, OUTCOME_ABSENT },
		{ "/ok", "null", NULL, 0, OUTCOME_OK },
		{ "/ok", "pruned", NULL, 0, OUTCOME_ABSENT },
		{ "/ok", "discarded", NULL, 0, OUTCOME_ABSENT },
		{ "/ok", "nocode", NULL, 0, OUTCOME_RPC_ERROR },
		{ "/ok", "ratelimit", NULL, 0, OUTCOME_RATE_LIMITED },
		{ "/ok", "nosuchmethod", NULL, 0, OUTCOME_RPC_ERROR },
		{ "/ok", "noresult", NULL, 0, OUTCOME_MALFORMED },
		{ "/malformed", "echo", "[1]", 0, OUTCOME_MALFORMED },
		{ "/http_500", "echo", "[1]", 0, OUTCOME_HTTP_5XX },
		{ "/http_503", "echo", "[1]", 0, OUTCOME_HTTP_5XX },
		{ "/http_404", "echo", "[1]", 0, OUTCOME_HTTP_4XX },
		{ "/rate_limit", "echo", "[1]", 0, OUTCOME_RATE_LIMITED },
		{ "/truncated", "echo", "[1]", 0, OUTCOME_TRANSPORT },
	};
	struct wrk_rpc	*rpc;
	struct got	*g = xcalloc(1, sizeof(*g));
	enum outcome	 o;
	char		 path[64];
	uint64_t	 n;

	for (size_t i = 0; i < nitems(t); i++) {
		rpc = rpc_for(t[i].path, 1 << 20);
		o = call1(rpc, t[i].method, t[i].params, t[i].flags, 5000, g);
		check(o == t[i].want, "%s %s -> %s (want %s) %s", t[i].path,
		    t[i].method, outcome_name(o), outcome_name(t[i].want),
		    g->why);
		wrk_rpc_free(rpc);
	}

	/* A zero-padded number in a real answer. */
	rpc = rpc_for("/ok", 1 << 20);
	o = call1(rpc, "padded", "[4660]", 0, 5000, g);
	if (o != OUTCOME_OK || wrk_rpc_quantity(json_object_get(g->res[0],
	    "number"), &n) == -1)
		n = 0;
	check(o == OUTCOME_OK && n == 4660, "/ok \"0x0000000000001234\" -> %s, "
	    "number %" PRIu64, outcome_name(o), n);
	wrk_rpc_free(rpc);

	/* A port where nothing listens. */
	snprintf(path, sizeof(path), "http://127.0.0.1:%d/",
	    client_free_port());
	check_transport(path, "refused port", g);
	got_clear(g);
	free(g);
}

/*
 * A black-holed request ends at its deadline, and requests to a healthy
 * path sent after it complete first: nothing waits on the black hole.
 */
static void
scenario_blackhole(void)
{
	struct wrk_rpc		*bh = rpc_for("/blackhole", 1 << 20);
	struct wrk_rpc		*ok = rpc_for("/slow/50", 1 << 20);
	struct wrk_rpc_call	 c = { "echo", "[1]", 0 };
	struct got		*g = xcalloc(6, sizeof(*g));
	int			*d[6];
	const uint32_t		 deadline = 1500;
	int			 fine = 1;

	wrk_rpc_send(bh, &c, 1, deadline, got_cb, &g[0]);
	for (int i = 1; i < 6; i++)
		wrk_rpc_send(ok, &c, 1, 5000, got_cb, &g[i]);
	for (int i = 0; i < 6; i++)
		d[i] = &g[i].done;
	check(run_until(d, 6, 10), "all requests answered");
	check(g[0].o[0] == OUTCOME_TIMEOUT, "blackhole -> %s (%s)",
	    outcome_name(g[0].o[0]), g[0].why);
	/* The deadline holds: not early, and not long after. */
	/* (The slack is for a loaded machine; the server holds for 60 s.) */
	check(g[0].latency_ms >= deadline - 20 &&
	    g[0].latency_ms <= deadline + 1000, "blackhole ended after %" PRIu64
	    " ms for a %u ms deadline", g[0].latency_ms, deadline);
	for (int i = 1; i < 6; i++)
		if (g[i].o[0] != OUTCOME_OK || g[i].order > g[0].order)
			fine = 0;
	check(fine, "5 healthy requests done before the black hole timed out");
	for (int i = 0; i < 6; i++)
		got_clear(&g[i]);
	free(g);
	wrk_rpc_free(bh);
	wrk_rpc_free(ok);
}

static long
vm_hwm_kb(void)
{
	FILE	*f = fopen("/proc/self/status", "r");
	char	 line[256];
	long	 kb = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* 64 MiB answers against a 1 MiB cap: too_large, and memory stays flat. */
static void
scenario_oversized(void)
{
	const char	*paths[] = { "/oversized", "/oversized_cl" };
	struct got	*g = xcalloc(1, sizeof(*g));
	struct wrk_rpc	*rpc;
	enum outcome	 o;
	long		 before, after;

	/* Warm up curl and the allocator before the first measurement. */
	rpc = rpc_for("/ok", 1 << 20);
	call1(rpc, "echo", "[1]", 0, 5000, g);
	wrk_rpc_free(rpc);
	before = vm_hwm_kb();
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < nitems(paths); i++) {
			rpc = rpc_for(paths[i], 1 << 20);
			o = call1(rpc, "echo", "[1]", 0, 20000, g);
			check(o == OUTCOME_TOO_LARGE, "%s -> %s (%s)", paths[i],
			    outcome_name(o), g->why);
			wrk_rpc_free(rpc);
		}
	after = vm_hwm_kb();
	/* Without the cap a 64 MiB answer would add at least 64 MiB. */
	check(before > 0 && after - before < 24 * 1024, "peak RSS grew by "
	    "%ld kB over 6 answers of 64 MiB with a 1 MiB cap", after - before);
	got_clear(g);
	free(g);
}

static void
scenario_batch(int n)
{
	struct wrk_rpc		*rpc = rpc_for("/ok", 4 << 20);
	struct wrk_rpc_call	*c = xcalloc((size_t)n, sizeof(*c));
	char			(*params)[32] = xcalloc((size_t)n, 32);
	struct got		*g = xcalloc(1, sizeof(*g));
	int			*d = &g->done, right = 0;
	long			 posts0, calls0, posts1, calls1;

	posts0 = stat_get("posts", "/ok");
	calls0 = stat_get("calls", "/ok");
	for (int i = 0; i < n; i++) {
		snprintf(params[i], 32, "[%d]", i * 7);
		c[i].method = "echo";
		c[i].params = params[i];
	}
	wrk_rpc_send(rpc, c, (size_t)n, 10000, got_cb, g);
	check(run_until(&d, 1, 15), "batch of %d answered", n);
	for (int i = 0; i < n; i++)
		if (g->o[i] == OUTCOME_OK && json_integer_value(g->res[i]) ==
		    i * 7)
			right++;
	check(right == n, "%d of %d calls matched to their own answers "
	    "(server shuffles the batch)", right, n);
	posts1 = stat_get("posts", "/ok");
	calls1 = stat_get("calls", "/ok");
	check(posts1 - posts0 == 1 && calls1 - calls0 == n, "one POST carried "
	    "them: %ld POST(s), %ld calls", posts1 - posts0, calls1 - calls0);
	got_clear(g);
	free(g);
	free(c);
	free(params);
	wrk_rpc_free(rpc);
}

static void
scenario_keepalive(int n)
{
	struct wrk_rpc	*rpc = rpc_for("/ok", 1 << 20);
	struct got	*g = xcalloc(1, sizeof(*g));
	long		 conns0, conns1;
	int		 ok = 0;

	conns0 = stat_get("connections", "/ok");
	if (conns0 < 0)
		conns0 = 0;
	for (int i = 0; i < n; i++)
		if (call1(rpc, "echo", "[1]", 0, 5000, g) == OUTCOME_OK)
			ok++;
	conns1 = stat_get("connections", "/ok");
	check(ok == n, "%d of %d sequential requests ok", ok, n);
	check(wrk_http_connects(wrk_rpc_http(rpc)) == 1, "curl opened %ld "
	    "connection(s) for %d requests", wrk_http_connects(wrk_rpc_http(rpc)),
	    n);
	check(conns1 - conns0 == 1, "server saw %ld connection(s) for %d "
	    "requests", conns1 - conns0, n);
	got_clear(g);
	free(g);
	wrk_rpc_free(rpc);
}

/*
 * Over HTTPS (base is https://, WRK_TEST_CA the server's certificate):
 * answers come, on one connection; without the CA the answer is refused.
 */
static void
scenario_tls(int n)
{
	struct wrk_rpc		*rpc = rpc_for("/ok", 1 << 20);
	struct got		*g = xcalloc(1, sizeof(*g));
	char			 url[512];
	int			 ok = 0;

	for (int i = 0; i < n; i++)
		if (call1(rpc, "echo", "[1]", 0, 5000, g) == OUTCOME_OK)
			ok++;
	check(ok == n, "%d of %d requests over TLS ok", ok, n);
	check(wrk_http_connects(wrk_rpc_http(rpc)) == 1, "one TLS connection "
	    "for %d requests (%ld)", n, wrk_http_connects(wrk_rpc_http(rpc)));
	wrk_rpc_free(rpc);

	snprintf(url, sizeof(url), "%s/ok", base);
	check_transport(url, "untrusted certificate", g);
	got_clear(g);
	free(g);
}

/*
 * Against chainwatch-devnode: each fault switched on through its control
 * port (ctl), then a real call, whose class must match.
 */
static int
devnode_fault(const char *ctl, const char *spec)
{
	struct wrk_http_conf	 c = { 0 };
	struct wrk_http		*h;
	struct raw		 x = { 0 };
	int			*d = &x.done;
	char			 url[512], body[256];
	int			 ok;

	snprintf(url, sizeof(url), "%s/control", ctl);
	if (*spec != '\0')
		snprintf(body, sizeof(body), "{\"clear\":true,\"enable\":"
		    "[\"%s\"]}", spec);
	else
		snprintf(body, sizeof(body), "{\"clear\":true}");
	c.url = url;
	h = wrk_http_new(loop, &c);
	ok = wrk_http_post(h, body, strlen(body), 5000, raw_cb, &x) == 0 &&
	    run_until(&d, 1, 10) && x.doc != NULL;
	json_decref(x.doc);
	wrk_http_free(h);
	return ok ? 0 : -1;
}

static void
scenario_devnode(const char *ctl)
{
	static const struct {
		const char	*spec;
		uint32_t	 deadline;
		enum outcome	 want;
	} t[] = {
		{ "", 3000, OUTCOME_OK },
		{ "blackhole@http", 1000, OUTCOME_TIMEOUT },
		{ "slow:2000@http", 800, OUTCOME_TIMEOUT },
		{ "slow:100@http", 3000, OUTCOME_OK },
		{ "http_500@http", 3000, OUTCOME_HTTP_5XX },
		{ "http_503@http", 3000, OUTCOME_HTTP_5XX },
		{ "rate_limit@http", 3000, OUTCOME_RATE_LIMITED },
		{ "malformed@http", 3000, OUTCOME_MALFORMED },
		{ "truncated@http", 3000, OUTCOME_TRANSPORT },
		{ "oversized:4@http", 10000, OUTCOME_TOO_LARGE },
		{ "refuse@http", 3000, OUTCOME_TRANSPORT },
	};
	struct wrk_rpc		*rpc;
	struct wrk_rpc_call	 calls[100];
	char			 params[100][16];
	struct got		*g = xcalloc(1, sizeof(*g));
	int			*d = &g->done, right = 0;
	enum outcome		 o;

	for (size_t i = 0; i < nitems(t); i++) {
		if (devnode_fault(ctl, t[i].spec) == -1) {
			check(0, "devnode control: %s", t[i].spec);
			continue;
		}
		/* A fresh client: a kept-alive connection would dodge refuse. */
		rpc = rpc_for("/", 1 << 20);
		o = call1(rpc, "chain_getHeader", NULL, WRK_RPC_NULL_ABSENT,
		    t[i].deadline, g);
		check(o == t[i].want && g->latency_ms <= t[i].deadline + 1000,
		    "devnode fault \"%s\" -> %s (want %s) after %" PRIu64
		    " ms, deadline %u: %s", t[i].spec, outcome_name(o),
		    outcome_name(t[i].want), g->latency_ms,
		    (unsigned)t[i].deadline, g->why);
		wrk_rpc_free(rpc);
	}
	devnode_fault(ctl, "");
	/*
	 * The devnode reopens its port in its event loop, just after it
	 * answered the control request: wait for that, as a client would.
	 */
	for (int i = 0; i < 30; i++) {
		rpc = rpc_for("/", 1 << 20);
		o = call1(rpc, "system_health", NULL, 0, 1000, g);
		wrk_rpc_free(rpc);
		if (o == OUTCOME_OK)
			break;
		usleep(100000);
	}

	/* backfill's shape: 100 block hashes in one batch */
	rpc = rpc_for("/", 4 << 20);
	for (int i = 0; i < 100; i++) {
		snprintf(params[i], sizeof(params[i]), "[%d]", i);
		calls[i] = (struct wrk_rpc_call){ "chain_getBlockHash",
		    params[i], 0 };
	}
	got_clear(g);
	wrk_rpc_send(rpc, calls, 100, 10000, got_cb, g);
	run_until(&d, 1, 15);
	for (int i = 0; i < 100; i++)
		if (g->o[i] == OUTCOME_OK)
			right++;
	check(right == 100, "devnode: %d of 100 batched calls ok", right);
	/* keep-alive with libmicrohttpd */
	for (int i = 0; i < 30; i++)
		call1(rpc, "system_health", NULL, 0, 3000, g);
	check(wrk_http_connects(wrk_rpc_http(rpc)) == 1, "devnode: one "
	    "connection for 31 POSTs (%ld)",
	    wrk_http_connects(wrk_rpc_http(rpc)));
	wrk_rpc_free(rpc);
	got_clear(g);
	free(g);
}

/* ---- bench: figures only ---- */

struct bench {
	struct wrk_rpc	*rpc;
	int		 batch;
	int		 left;
	int		 inflight;
	int		 ok;
	uint64_t	 lat_sum;
	int		 done;
};

static void	bench_one(struct bench *);

static void
bench_cb(void *arg, const struct wrk_rpc_result *r, size_t n)
{
	struct bench	*b = arg;

	b->inflight--;
	for (size_t i = 0; i < n; i++)
		if (r[i].outcome == OUTCOME_OK)
			b->ok++;
	b->lat_sum += r[0].latency_ms;
	if (b->left > 0)
		bench_one(b);
	else if (b->inflight == 0)
		b->done = 1;
}

static void
bench_one(struct bench *b)
{
	static struct wrk_rpc_call	c[MAXN];

	for (int i = 0; i < b->batch; i++)
		c[i] = (struct wrk_rpc_call){ "echo",
		    "[\"0x0123456789abcdef\"]", 0 };
	b->left--;
	b->inflight++;
	wrk_rpc_send(b->rpc, c, (size_t)b->batch, 10000, bench_cb, b);
}

static void
scenario_bench(int n, int conc, int batch)
{
	struct bench	b = { 0 };
	int		*d = &b.done;
	uint64_t	 t0, t1;
	double		 cpu0, cpu1;

	b.rpc = rpc_for("/ok", 1 << 20);
	b.batch = batch < 1 ? 1 : batch > MAXN ? MAXN : batch;
	b.left = n;
	t0 = now_mono_ms();
	cpu0 = (double)clock() / CLOCKS_PER_SEC;
	for (int i = 0; i < conc && b.left > 0; i++)
		bench_one(&b);
	run_until(&d, 1, 120);
	t1 = now_mono_ms();
	cpu1 = (double)clock() / CLOCKS_PER_SEC;
	printf("bench: %d POSTs of %d call(s), %d in flight: %d calls ok, "
	    "%.0f POST/s, mean latency %.2f ms, client CPU %.1f us/POST "
	    "(%.1f us/call), %ld connections\n", n, b.batch, conc, b.ok,
	    n * 1000.0 / (double)(t1 - t0 ? t1 - t0 : 1),
	    (double)b.lat_sum / n, (cpu1 - cpu0) * 1e6 / n,
	    (cpu1 - cpu0) * 1e6 / n / b.batch,
	    wrk_http_connects(wrk_rpc_http(b.rpc)));
	wrk_rpc_free(b.rpc);
}

int
main(int argc, char *argv[])
{
	const char	*what;

	if (argc < 3) {
		fprintf(stderr, "usage: wrk_http_client base-url scenario "
		    "[args]\n");
		return CW_EXIT_USAGE;
	}
	client_init("wrk_http_client", "http-test");
	base = argv[1];
	what = argv[2];
	if (strcmp(what, "classes") == 0)
		scenario_classes();
	else if (strcmp(what, "blackhole") == 0)
		scenario_blackhole();
	else if (strcmp(what, "oversized") == 0)
		scenario_oversized();
	else if (strcmp(what, "batch") == 0)
		scenario_batch(argc > 3 ? atoi(argv[3]) : 100);
	else if (strcmp(what, "keepalive") == 0)
		scenario_keepalive(argc > 3 ? atoi(argv[3]) : 50);
	else if (strcmp(what, "devnode") == 0 && argc > 3)
		scenario_devnode(argv[3]);
	else if (strcmp(what, "tls") == 0)
		scenario_tls(argc > 3 ? atoi(argv[3]) : 20);
	else if (strcmp(what, "bench") == 0)
		scenario_bench(argc > 3 ? atoi(argv[3]) : 2000,
		    argc > 4 ? atoi(argv[4]) : 4, argc > 5 ? atoi(argv[5]) : 1);
	else {
		fprintf(stderr, "unknown scenario %s\n", what);
		return CW_EXIT_USAGE;
	}
	return client_finish();
}
