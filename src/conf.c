/*
 * Parsing chainwatch.conf with inih, driven by conf_keys[].  Every error
 * is collected with its line so that `chainwatchd -n` can print them all;
 * a file with errors never replaces a running configuration.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "listen_addr.h"
#include "util.h"

static const char *const format_choices[] = { "quantus", "substrate", NULL };
static const char *const subscribe_choices[] = { "all", "primary", NULL };
static const char *const sync_choices[] = { "normal", "full", NULL };
static const char *const level_choices[] = { "error", "warn", "info", "debug",
    NULL };

#define D(f)	offsetof(struct conf_daemon, f)
#define C(f)	offsetof(struct conf_chain, f)
#define DAY_MS	(24ULL * 3600 * 1000)

const struct conf_key conf_keys[] = {
	{ CONF_DAEMON, "database", CT_PATH,
	    CW_LOCALSTATEDIR "/lib/chainwatch/chainwatch.db", 0, 0, NULL,
	    D(database) },
	{ CONF_DAEMON, "synchronous", CT_ENUM, "normal", 0, 0, sync_choices,
	    D(synchronous) },
	{ CONF_DAEMON, "store_reserve", CT_SIZE, "2M", 0, 1ULL << 40, NULL,
	    D(store_reserve) },
	{ CONF_DAEMON, "store_cache", CT_SIZE, "64M", 1ULL << 20, 64ULL << 30,
	    NULL, D(store_cache) },
	{ CONF_DAEMON, "pidfile", CT_PATH, CW_RUNSTATEDIR "/chainwatchd.pid",
	    0, 0, NULL, D(pidfile) },
	{ CONF_DAEMON, "user", CT_STRING, "chainwatch", 0, 0, NULL, D(user) },
	{ CONF_DAEMON, "worker", CT_PATH, CW_LIBEXECDIR "/chainwatch-worker",
	    0, 0, NULL, D(worker) },
	{ CONF_DAEMON, "log_level", CT_ENUM, "info", 0, 0, level_choices,
	    D(log_level) },
	{ CONF_DAEMON, "worker_memory_limit", CT_SIZE, "512M", 0,
	    64ULL << 30, NULL, D(worker_memory_limit) },
	{ CONF_DAEMON, "heartbeat_interval", CT_DURATION, "2s", 100, 60000,
	    NULL, D(heartbeat_interval) },
	{ CONF_DAEMON, "stop_timeout", CT_DURATION, "5s", 100, 300000, NULL,
	    D(stop_timeout) },
	{ CONF_DAEMON, "control_socket", CT_PATH,
	    CW_RUNSTATEDIR "/chainwatchd.sock", 0, 0, NULL, D(control_socket) },
	{ CONF_DAEMON, "control_owner", CT_STRING, "", 0, 0, NULL,
	    D(control_owner) },
	{ CONF_DAEMON, "control_group", CT_STRING, "", 0, 0, NULL,
	    D(control_group) },
	{ CONF_DAEMON, "metrics_listen", CT_LISTEN, "127.0.0.1:9616", 0, 0,
	    NULL, D(metrics_listen) },
	{ CONF_DAEMON, "metrics_cors_origin", CT_STRING, "", 0, 0, NULL,
	    D(metrics_cors_origin) },
	{ CONF_DAEMON, "metrics_server", CT_PATH,
	    CW_LIBEXECDIR "/chainwatch-metrics", 0, 0, NULL,
	    D(metrics_server) },
	{ CONF_DAEMON, "secret_params", CT_WORDS, "", 0, 0, NULL,
	    D(secret_params) },

	{ CONF_CHAIN, "format", CT_ENUM, "quantus", 0, 0, format_choices,
	    C(format) },
	{ CONF_CHAIN, "block_time", CT_DURATION, "12s", 10, DAY_MS, NULL,
	    C(block_time) },
	{ CONF_CHAIN, "backfill_from", CT_UINT, "0", 0, UINT32_MAX, NULL,
	    C(backfill_from) },
	{ CONF_CHAIN, "subscribe", CT_ENUM, "all", 0, 0, subscribe_choices,
	    C(subscribe) },
	{ CONF_CHAIN, "stall_factor", CT_UINT, "3", 2, 100, NULL,
	    C(stall_factor) },
	{ CONF_CHAIN, "connect_timeout", CT_DURATION, "5s", 100, 120000, NULL,
	    C(connect_timeout) },
	{ CONF_CHAIN, "request_timeout", CT_DURATION, "10s", 100, 600000, NULL,
	    C(request_timeout) },
	{ CONF_CHAIN, "max_response", CT_SIZE, "16M", 4096, 1ULL << 30, NULL,
	    C(max_response) },
	{ CONF_CHAIN, "breaker_failure_rate", CT_UINT, "50", 1, 100, NULL,
	    C(breaker_failure_rate) },
	{ CONF_CHAIN, "breaker_window", CT_DURATION, "60s", 1000, DAY_MS, NULL,
	    C(breaker_window) },
	{ CONF_CHAIN, "breaker_min_samples", CT_UINT, "20", 1, 100000, NULL,
	    C(breaker_min_samples) },
	{ CONF_CHAIN, "breaker_consecutive", CT_UINT, "5", 1, 1000, NULL,
	    C(breaker_consecutive) },
	{ CONF_CHAIN, "breaker_min_span", CT_DURATION, "10s", 0, 3600000, NULL,
	    C(breaker_min_span) },
	{ CONF_CHAIN, "breaker_cooldown", CT_DURATION, "5s", 100, 3600000, NULL,
	    C(breaker_cooldown) },
	{ CONF_CHAIN, "breaker_cooldown_max", CT_DURATION, "5m", 100, DAY_MS,
	    NULL, C(breaker_cooldown_max) },
	{ CONF_CHAIN, "max_inflight", CT_UINT, "64", 1, CONF_INFLIGHT_MAX, NULL,
	    C(max_inflight) },
	{ CONF_CHAIN, "hedge_after", CT_DURATION, "1s", 50, 60000, NULL,
	    C(hedge_after) },
	{ CONF_CHAIN, "hedge_quantile", CT_UINT, "95", 0, 99, NULL,
	    C(hedge_quantile) },
	{ CONF_CHAIN, "difficulty_floor", CT_UINT, "131072", 1,
	    1000000000000000000ULL, NULL, C(difficulty_floor) },
	{ CONF_CHAIN, "endpoint", CT_ENDPOINT, NULL, 0, 0, NULL, 0 },
	{ CONF_CHAIN, "rpc_url", CT_URL, NULL, 0, 0, NULL, C(rpc_url) },
	{ CONF_CHAIN, "ws_url", CT_URL, NULL, 0, 0, NULL, C(ws_url) },
};
const size_t conf_nkeys = nitems(conf_keys);

#define LINE_MAX_LEN	4096

struct parse_ctx {
	struct conf		*conf;
	const char		*name;		/* file name in messages */
	FILE			*fp;		/* file input, or */
	const char		*text;		/* string input */
	int			 lineno;
	/* The section the reader last opened. */
	enum { SEC_NONE, SEC_DAEMON, SEC_CHAIN, SEC_BAD } sec;
	struct conf_chain	*chain;
	int			 daemon_seen;
	/* Line of the first occurrence of each key in the current section. */
	int			 key_line[64];
};

static void conf_error(struct parse_ctx *, int, const char *, ...)
    __attribute__((format(printf, 3, 4)));

static void
conf_error(struct parse_ctx *ctx, int line, const char *fmt, ...)
{
	struct conf	*conf = ctx->conf;
	char		 msg[1024], *full;
	va_list		 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0) {
		if (asprintf(&full, "%s:%d: %s", ctx->name, line, msg) == -1)
			fatal(CW_EXIT_SYSTEM, "asprintf");
	} else if (asprintf(&full, "%s: %s", ctx->name, msg) == -1)
		fatal(CW_EXIT_SYSTEM, "asprintf");
	conf->errors = xrealloc(conf->errors,
	    (conf->n_errors + 1) * sizeof(*conf->errors));
	conf->errors[conf->n_errors++] = full;
}

int
conf_parse_duration(const char *s, uint64_t *ms)
{
	char		*end;
	unsigned long long v;
	uint64_t	 mult;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	if (strcmp(end, "ms") == 0)
		mult = 1;
	else if (*end == '\0' || strcmp(end, "s") == 0)
		mult = 1000;
	else if (strcmp(end, "m") == 0)
		mult = 60 * 1000;
	else if (strcmp(end, "h") == 0)
		mult = 3600 * 1000;
	else
		return -1;
	if (v > UINT64_MAX / mult)
		return -1;
	*ms = v * mult;
	return 0;
}

int
conf_parse_size(const char *s, uint64_t *bytes)
{
	char		*end;
	unsigned long long v;
	unsigned	 shift = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	if (end[0] != '\0' && end[1] != '\0')
		return -1;
	switch (*end) {
	case '\0':
		break;
	case 'K': case 'k':
		shift = 10;
		break;
	case 'M': case 'm':
		shift = 20;
		break;
	case 'G': case 'g':
		shift = 30;
		break;
	default:
		return -1;
	}
	if (v > (UINT64_MAX >> shift))
		return -1;
	*bytes = (uint64_t)v << shift;
	return 0;
}

void
conf_fmt_value(enum conf_type type, uint64_t v, char *out, size_t outlen)
{
	unsigned long long	u = (unsigned long long)v;

	/* The largest unit that says it exactly; minutes never (5m is 300s). */
	if (v == 0 || (type != CT_DURATION && type != CT_SIZE))
		snprintf(out, outlen, "%llu", u);
	else if (type == CT_DURATION && v % 3600000 == 0)
		snprintf(out, outlen, "%lluh", u / 3600000);
	else if (type == CT_DURATION && v % 1000 == 0)
		snprintf(out, outlen, "%llus", u / 1000);
	else if (type == CT_DURATION)
		snprintf(out, outlen, "%llums", u);
	else if (v % (1ULL << 30) == 0)
		snprintf(out, outlen, "%lluG", u >> 30);
	else if (v % (1ULL << 20) == 0)
		snprintf(out, outlen, "%lluM", u >> 20);
	else if (v % (1ULL << 10) == 0)
		snprintf(out, outlen, "%lluK", u >> 10);
	else
		snprintf(out, outlen, "%llu", u);
}

static int
valid_name(const char *s)
{
	size_t	n = strlen(s);

	if (n == 0 || n > CONF_NAME_MAX)
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && strchr("._-", *s) == NULL)
			return 0;
	return 1;
}

int
conf_check_url(const char *url, const char *const *schemes, char *host,
    size_t hostlen, char *err, size_t errlen)
{
	const char	*p, *auth, *end, *at, *h, *hend, *port;
	size_t		 n;
	int		 ok = 0;

	if (strlen(url) > CONF_URL_MAX) {
		snprintf(err, errlen, "URL longer than %d characters",
		    CONF_URL_MAX);
		return -1;
	}
	for (p = url; *p != '\0'; p++)
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p)) {
			snprintf(err, errlen, "URL contains white space or "
			    "control characters");
			return -1;
		}
	if ((p = strstr(url, "://")) == NULL) {
		snprintf(err, errlen, "not a URL (expected %s://HOST...)",
		    schemes[0]);
		return -1;
	}
	n = (size_t)(p - url);
	for (const char *const *s = schemes; *s != NULL; s++)
		if (strlen(*s) == n && strncasecmp(url, *s, n) == 0)
			ok = 1;
	if (!ok) {
		snprintf(err, errlen, "scheme '%.*s' not allowed here (use %s%s%s)",
		    (int)n, url, schemes[0], schemes[1] != NULL ? " or " : "",
		    schemes[1] != NULL ? schemes[1] : "");
		return -1;
	}
	auth = p + 3;
	end = auth + strcspn(auth, "/?#");
	at = NULL;
	for (p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	h = at != NULL ? at + 1 : auth;
	if (*h == '[') {
		if ((hend = memchr(h, ']', (size_t)(end - h))) == NULL) {
			snprintf(err, errlen, "unterminated IPv6 address");
			return -1;
		}
		port = hend + 1;
		h++;
	} else {
		hend = memchr(h, ':', (size_t)(end - h));
		if (hend == NULL)
			hend = end;
		port = hend;
	}
	if (hend == h) {
		snprintf(err, errlen, "URL has no host");
		return -1;
	}
	if (port < end) {
		char		*pend;
		unsigned long	 v;

		if (*port != ':' || port + 1 == end ||
		    !isdigit((unsigned char)port[1])) {
			snprintf(err, errlen, "bad port");
			return -1;
		}
		v = strtoul(port + 1, &pend, 10);
		if (pend != end || v == 0 || v > 65535) {
			snprintf(err, errlen, "bad port");
			return -1;
		}
	}
	for (p = h; p < hend; p++)
		if (!isalnum((unsigned char)*p) && strchr(".-_:%", *p) == NULL) {
			snprintf(err, errlen, "bad character in host name");
			return -1;
		}
	if ((size_t)(hend - h) >= hostlen) {
		snprintf(err, errlen, "host name too long");
		return -1;
	}
	memcpy(host, h, (size_t)(hend - h));
	host[hend - h] = '\0';
	return 0;
}

static const char *const rpc_schemes[] = { "http", "https", NULL };
static const char *const ws_schemes[] = { "ws", "wss", NULL };

static int
check_url(struct parse_ctx *ctx, const char *what, const char *url,
    const char *const *schemes, char *host, size_t hostlen)
{
	char	err[256], shown[CONF_URL_MAX + 16];

	if (conf_check_url(url, schemes, host, hostlen, err,
	    sizeof(err)) == 0)
		return 0;
	url_redact(url, shown, sizeof(shown));
	conf_error(ctx, ctx->lineno, "%s '%s': %s", what, shown, err);
	return -1;
}

static void
parse_endpoint(struct parse_ctx *ctx, const char *value)
{
	struct conf_chain	*ch = ctx->chain;
	struct conf_endpoint	 ep;
	char			 buf[3 * (CONF_URL_MAX + 1)], *f[4], *save;
	char			 host[256];
	int			 n = 0, bad = 0;

	if (strlen(value) >= sizeof(buf)) {
		conf_error(ctx, ctx->lineno, "endpoint line too long");
		ch->n_rejected++;
		return;
	}
	strcpy(buf, value);
	for (char *t = strtok_r(buf, " \t", &save); t != NULL;
	    t = strtok_r(NULL, " \t", &save)) {
		if (n == 4)
			break;
		f[n++] = t;
	}
	if (n != 3) {
		conf_error(ctx, ctx->lineno,
		    "endpoint: expected NAME RPC_URL WS_URL, got %d field%s",
		    n == 4 ? 4 : n, n == 1 ? "" : "s");
		ch->n_rejected++;
		return;
	}
	memset(&ep, 0, sizeof(ep));
	if (!valid_name(f[0])) {
		conf_error(ctx, ctx->lineno, "endpoint name '%.40s': use 1 to "
		    "%d letters, digits, '.', '_' or '-'", f[0], CONF_NAME_MAX);
		bad = 1;
	}
	if (check_url(ctx, "rpc url", f[1], rpc_schemes, host,
	    sizeof(host)) == -1)
		bad = 1;
	if (check_url(ctx, "ws url", f[2], ws_schemes, host,
	    sizeof(host)) == -1)
		bad = 1;
	if (bad) {
		ch->n_rejected++;
		return;
	}
	snprintf(ep.name, sizeof(ep.name), "%s", f[0]);
	snprintf(ep.rpc_url, sizeof(ep.rpc_url), "%s", f[1]);
	snprintf(ep.ws_url, sizeof(ep.ws_url), "%s", f[2]);
	ep.line = ctx->lineno;
	ch->endpoints = xrealloc(ch->endpoints,
	    (ch->n_endpoints + 1) * sizeof(*ch->endpoints));
	ch->endpoints[ch->n_endpoints++] = ep;
}

/* A listening address (listen_addr.h), or "none". */
int
conf_parse_listen(const char *s, char *addr, size_t addrlen, unsigned *port)
{
	if (strcmp(s, "none") == 0) {
		if (addrlen > 0)
			addr[0] = '\0';
		*port = 0;
		return 0;
	}
	return listen_addr_parse(s, addr, addrlen, port);
}

/* Store one typed value at its offset; returns -1 after logging. */
static int
set_value(struct parse_ctx *ctx, const struct conf_key *k, void *base,
    const char *value)
{
	uint64_t	 v = 0;
	char		*end;

	switch (k->type) {
	case CT_STRING:
	case CT_PATH:
		if (strlen(value) > (k->type == CT_STRING ? CONF_NAME_MAX :
		    CONF_URL_MAX)) {
			conf_error(ctx, ctx->lineno, "%s: value too long",
			    k->key);
			return -1;
		}
		if (k->type == CT_PATH && value[0] != '/') {
			conf_error(ctx, ctx->lineno,
			    "%s: '%s' is not an absolute path", k->key, value);
			return -1;
		}
		strcpy((char *)base + k->offset, value);
		return 0;
	case CT_WORDS: {
		const char	*w = value;
		size_t		 n;

		if (strlen(value) > CONF_URL_MAX) {
			conf_error(ctx, ctx->lineno, "%s: value too long",
			    k->key);
			return -1;
		}
		for (; *w != '\0'; w += n) {
			w += strspn(w, " ,");
			n = strcspn(w, " ,");
			for (size_t i = 0; i < n; i++)
				if (!isalnum((unsigned char)w[i]) &&
				    w[i] != '_' && w[i] != '-') {
					conf_error(ctx, ctx->lineno, "%s: "
					    "'%.*s' is not a word (letters, "
					    "digits, '_' or '-')", k->key,
					    (int)n, w);
					return -1;
				}
		}
		strcpy((char *)base + k->offset, value);
		return 0;
	}
	case CT_LISTEN: {
		char		a[64];
		unsigned	port;

		if (conf_parse_listen(value, a, sizeof(a), &port) == -1) {
			conf_error(ctx, ctx->lineno, "%s: '%s' is not ADDRESS:PORT "
			    "(an IPv4 address or [IPv6] address and a port up to "
			    "65535) or 'none'", k->key, value);
			return -1;
		}
		strcpy((char *)base + k->offset, value);
		return 0;
	}
	case CT_URL: {
		char	host[256];

		if (check_url(ctx, k->key, value, strcmp(k->key, "rpc_url") == 0 ?
		    rpc_schemes : ws_schemes, host, sizeof(host)) == -1)
			return -1;
		strcpy((char *)base + k->offset, value);
		return 0;
	}
	case CT_ENUM:
		for (unsigned i = 0; k->choices[i] != NULL; i++)
			if (strcmp(value, k->choices[i]) == 0) {
				*(unsigned *)((char *)base + k->offset) = i;
				return 0;
			}
		{
			char	list[256];
			size_t	len = 0;

			list[0] = '\0';
			for (unsigned i = 0; k->choices[i] != NULL &&
			    len < sizeof(list); i++)
				len += (size_t)snprintf(list + len,
				    sizeof(list) - len, "%s%s", i == 0 ? "" : ", ",
				    k->choices[i]);
			conf_error(ctx, ctx->lineno,
			    "%s: '%s' is not one of %s", k->key, value, list);
		}
		return -1;
	case CT_UINT:
		errno = 0;
		v = isdigit((unsigned char)value[0]) ?
		    strtoull(value, &end, 10) : 0;
		if (!isdigit((unsigned char)value[0]) || *end != '\0' ||
		    errno != 0) {
			conf_error(ctx, ctx->lineno,
			    "%s: '%s' is not a whole number", k->key, value);
			return -1;
		}
		break;
	case CT_DURATION:
		if (conf_parse_duration(value, &v) == -1) {
			conf_error(ctx, ctx->lineno, "%s: '%s' is not a "
			    "duration (e.g. 500ms, 12s, 5m, 1h)", k->key, value);
			return -1;
		}
		break;
	case CT_SIZE:
		if (conf_parse_size(value, &v) == -1) {
			conf_error(ctx, ctx->lineno, "%s: '%s' is not a size "
			    "(e.g. 65536, 512K, 256M, 1G)", k->key, value);
			return -1;
		}
		break;
	case CT_ENDPOINT:
		return -1;	/* handled by parse_endpoint */
	}
	if (v < k->min || v > k->max) {
		char	lo[CONF_VALUE_LEN], hi[CONF_VALUE_LEN];

		conf_fmt_value(k->type, k->min, lo, sizeof(lo));
		conf_fmt_value(k->type, k->max, hi, sizeof(hi));
		conf_error(ctx, ctx->lineno, "%s: %s is out of range "
		    "(%s to %s)", k->key, value, lo, hi);
		return -1;
	}
	*(uint64_t *)((char *)base + k->offset) = v;
	return 0;
}

static void
set_defaults(struct parse_ctx *ctx, enum conf_section sec, void *base)
{
	for (size_t i = 0; i < conf_nkeys; i++) {
		const struct conf_key *k = &conf_keys[i];

		if (k->section != sec || k->dflt == NULL)
			continue;
		if (set_value(ctx, k, base, k->dflt) == -1)
			fatalx(CW_EXIT_INTERNAL, "default of %s is invalid",
			    k->key);
	}
}

/* inih calls this for every key; sections were opened by the reader. */
static int
conf_handler(void *user, const char *section, const char *name,
    const char *value)
{
	struct parse_ctx	*ctx = user;
	enum conf_section	 sec;
	void			*base;
	size_t			 i;

	(void)section;
	switch (ctx->sec) {
	case SEC_NONE:
		conf_error(ctx, ctx->lineno, "'%s' outside of any section "
		    "(start with [daemon] or [chain NAME])", name);
		return 1;
	case SEC_BAD:
		return 1;	/* the section header was already reported */
	case SEC_DAEMON:
		sec = CONF_DAEMON;
		base = &ctx->conf->daemon;
		break;
	case SEC_CHAIN:
	default:
		sec = CONF_CHAIN;
		base = ctx->chain;
		break;
	}
	for (i = 0; i < conf_nkeys; i++)
		if (conf_keys[i].section == sec &&
		    strcmp(conf_keys[i].key, name) == 0)
			break;
	if (i == conf_nkeys) {
		conf_error(ctx, ctx->lineno, "unknown key '%s' in [%s]", name,
		    sec == CONF_DAEMON ? "daemon" : "chain");
		return 1;
	}
	if (conf_keys[i].type == CT_ENDPOINT) {
		parse_endpoint(ctx, value);
		return 1;
	}
	if (ctx->key_line[i] != 0) {
		conf_error(ctx, ctx->lineno, "%s given twice in this section "
		    "(first on line %d)", name, ctx->key_line[i]);
		return 1;
	}
	ctx->key_line[i] = ctx->lineno;
	if (sec == CONF_DAEMON)
		ctx->conf->daemon_line[i] = ctx->lineno;
	if (set_value(ctx, &conf_keys[i], base, value) == 0 &&
	    conf_keys[i].type == CT_URL) {
		if (strcmp(name, "rpc_url") == 0)
			ctx->chain->rpc_url_line = ctx->lineno;
		else
			ctx->chain->ws_url_line = ctx->lineno;
	}
	return 1;
}

/* A section header line "[...]": open the section it names. */
static void
open_section(struct parse_ctx *ctx, const char *line)
{
	struct conf	*conf = ctx->conf;
	const char	*close = strchr(line, ']');
	char		 name[128];
	size_t		 n;

	memset(ctx->key_line, 0, sizeof(ctx->key_line));
	ctx->sec = SEC_BAD;
	ctx->chain = NULL;
	if (close == NULL) {
		conf_error(ctx, ctx->lineno, "section header without ']'");
		return;
	}
	n = (size_t)(close - line - 1);
	if (n >= sizeof(name)) {
		conf_error(ctx, ctx->lineno, "section name too long");
		return;
	}
	memcpy(name, line + 1, n);
	name[n] = '\0';
	if (strcmp(name, "daemon") == 0) {
		if (ctx->daemon_seen) {
			conf_error(ctx, ctx->lineno, "duplicate section "
			    "[daemon] (first on line %d)", ctx->daemon_seen);
			return;
		}
		ctx->daemon_seen = ctx->lineno;
		ctx->sec = SEC_DAEMON;
		return;
	}
	if (strncmp(name, "chain", 5) == 0 &&
	    (name[5] == ' ' || name[5] == '\t')) {
		const char		*cn = name + 6;
		struct conf_chain	*ch;

		while (*cn == ' ' || *cn == '\t')
			cn++;
		if (!valid_name(cn)) {
			conf_error(ctx, ctx->lineno, "chain name '%s': use 1 "
			    "to %d letters, digits, '.', '_' or '-'", cn,
			    CONF_NAME_MAX);
			return;
		}
		for (size_t i = 0; i < conf->n_chains; i++)
			if (strcmp(conf->chains[i].name, cn) == 0) {
				conf_error(ctx, ctx->lineno, "duplicate chain "
				    "'%s' (first on line %d)", cn,
				    conf->chains[i].line);
				return;
			}
		conf->chains = xrealloc(conf->chains,
		    (conf->n_chains + 1) * sizeof(*conf->chains));
		ch = &conf->chains[conf->n_chains++];
		memset(ch, 0, sizeof(*ch));
		snprintf(ch->name, sizeof(ch->name), "%.*s", CONF_NAME_MAX, cn);
		ch->line = ctx->lineno;
		set_defaults(ctx, CONF_CHAIN, ch);
		ctx->chain = ch;
		ctx->sec = SEC_CHAIN;
		return;
	}
	conf_error(ctx, ctx->lineno, "unknown section [%s] (expected [daemon] "
	    "or [chain NAME])", name);
}

/*
 * inih's line reader.  It counts lines (Debian builds inih without line
 * numbers in the handler), strips leading white space so that indented
 * keys are keys and never continuation lines, opens sections itself so
 * that empty and repeated sections are seen, and reports lines inih
 * would reject or cut.
 */
static char *
conf_reader(char *str, int num, void *stream)
{
	struct parse_ctx	*ctx = stream;
	char			 line[LINE_MAX_LEN], *p;
	size_t			 n;

	for (;;) {
		if (ctx->fp != NULL) {
			if (fgets(line, sizeof(line), ctx->fp) == NULL)
				return NULL;
		} else {
			if (*ctx->text == '\0')
				return NULL;
			n = strcspn(ctx->text, "\n");
			if (n >= sizeof(line))
				n = sizeof(line) - 2;
			memcpy(line, ctx->text, n);
			ctx->text += n;
			if (*ctx->text == '\n') {
				line[n++] = '\n';
				ctx->text++;
			}
			line[n] = '\0';
		}
		ctx->lineno++;
		n = strlen(line);
		if (n > 0 && line[n - 1] != '\n' && ctx->fp != NULL &&
		    !feof(ctx->fp)) {
			int c;

			while ((c = fgetc(ctx->fp)) != EOF && c != '\n')
				;
			conf_error(ctx, ctx->lineno, "line too long");
			continue;
		}
		line[strcspn(line, "\r\n")] = '\0';
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if ((int)strlen(p) >= num - 1) {
			conf_error(ctx, ctx->lineno, "line longer than %d "
			    "characters", num - 2);
			continue;
		}
		if (*p == '[')
			open_section(ctx, p);
		else if (*p != '\0' && *p != '#' && *p != ';' &&
		    strpbrk(p, "=:") == NULL) {
			conf_error(ctx, ctx->lineno, "expected KEY = VALUE");
			continue;
		}
		snprintf(str, (size_t)num, "%s\n", p);
		return str;
	}
}

/* Whole-file checks that no single line can make. */
static void
conf_validate(struct parse_ctx *ctx)
{
	struct conf	*conf = ctx->conf;

	if (conf->n_chains == 0)
		conf_error(ctx, 0, "no [chain NAME] section: nothing to watch");
	for (size_t i = 0; i < conf->n_chains; i++) {
		struct conf_chain *ch = &conf->chains[i];
		int	has_rpc = ch->rpc_url[0] != '\0';
		int	has_ws = ch->ws_url[0] != '\0';

		if (has_rpc || has_ws) {
			struct conf_endpoint	ep;
			char			host[256], err[64];

			if (ch->n_endpoints > 0) {
				conf_error(ctx, has_rpc ? ch->rpc_url_line :
				    ch->ws_url_line, "chain %s: rpc_url/ws_url "
				    "cannot be combined with endpoint lines",
				    ch->name);
				continue;
			}
			if (!has_rpc || !has_ws) {
				conf_error(ctx, has_rpc ? ch->rpc_url_line :
				    ch->ws_url_line, "chain %s: %s without %s",
				    ch->name, has_rpc ? "rpc_url" : "ws_url",
				    has_rpc ? "ws_url" : "rpc_url");
				continue;
			}
			/* The legacy pair is one endpoint named after its host. */
			memset(&ep, 0, sizeof(ep));
			conf_check_url(ch->rpc_url, rpc_schemes, host,
			    sizeof(host), err, sizeof(err));
			for (char *p = host; *p != '\0'; p++)
				if (*p == ':' || *p == '%')
					*p = '-';
			if (!valid_name(host)) {
				conf_error(ctx, ch->rpc_url_line, "chain %s: "
				    "host '%s' cannot name an endpoint; use an "
				    "endpoint line", ch->name, host);
				continue;
			}
			snprintf(ep.name, sizeof(ep.name), "%.*s", CONF_NAME_MAX, host);
			snprintf(ep.rpc_url, sizeof(ep.rpc_url), "%s",
			    ch->rpc_url);
			snprintf(ep.ws_url, sizeof(ep.ws_url), "%s",
			    ch->ws_url);
			ep.line = ch->rpc_url_line;
			ch->endpoints = xmalloc(sizeof(*ch->endpoints));
			ch->endpoints[0] = ep;
			ch->n_endpoints = 1;
		}
		/* Rejected endpoint lines were reported already. */
		if (ch->n_endpoints == 0 && ch->n_rejected == 0)
			conf_error(ctx, ch->line, "chain %s has no endpoints "
			    "(add endpoint = NAME RPC_URL WS_URL)", ch->name);
	}
	/* Endpoint names are global: they name worker processes and logs. */
	for (size_t i = 0; i < conf->n_chains; i++)
		for (size_t j = 0; j < conf->chains[i].n_endpoints; j++) {
			struct conf_endpoint *a = &conf->chains[i].endpoints[j];
			int dup = 0;

			for (size_t k = 0; k <= i && !dup; k++)
				for (size_t l = 0; l < conf->chains[k].n_endpoints;
				    l++) {
					struct conf_endpoint *b =
					    &conf->chains[k].endpoints[l];

					if (b == a)
						break;
					if (strcmp(a->name, b->name) == 0) {
						conf_error(ctx, a->line,
						    "duplicate endpoint name "
						    "'%s' (first on line %d)",
						    a->name, b->line);
						dup = 1;
						break;
					}
				}
		}
}

static struct conf *
conf_parse(struct parse_ctx *ctx)
{
	struct conf	*conf = ctx->conf;
	int		 rc;

	set_defaults(ctx, CONF_DAEMON, &conf->daemon);
	rc = ini_parse_stream(conf_reader, ctx, conf_handler, ctx);
	if (rc == -2)
		fatalx(CW_EXIT_SYSTEM, "inih: out of memory");
	else if (rc > 0 && conf->n_errors == 0)
		conf_error(ctx, rc, "syntax error");
	if (conf->n_errors == 0 || conf->n_chains > 0)
		conf_validate(ctx);
	return conf;
}

static struct conf *
conf_new(const char *name)
{
	struct conf	*conf = xcalloc(1, sizeof(*conf));

	snprintf(conf->path, sizeof(conf->path), "%s", name);
	return conf;
}

struct conf *
conf_load(const char *path)
{
	struct parse_ctx	 ctx;
	struct conf		*conf = conf_new(path);

	memset(&ctx, 0, sizeof(ctx));
	ctx.conf = conf;
	ctx.name = conf->path;
	if ((ctx.fp = fopen(path, "r")) == NULL) {
		conf_error(&ctx, 0, "cannot open: %s", strerror(errno));
		return conf;
	}
	conf_parse(&ctx);
	if (ferror(ctx.fp))
		conf_error(&ctx, 0, "read error");
	fclose(ctx.fp);
	return conf;
}

struct conf *
conf_load_string(const char *name, const char *text)
{
	struct parse_ctx	 ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.conf = conf_new(name);
	ctx.name = ctx.conf->path;
	ctx.text = text;
	return conf_parse(&ctx);
}

void
conf_free(struct conf *conf)
{
	if (conf == NULL)
		return;
	for (size_t i = 0; i < conf->n_chains; i++)
		free(conf->chains[i].endpoints);
	free(conf->chains);
	for (size_t i = 0; i < conf->n_errors; i++)
		free(conf->errors[i]);
	free(conf->errors);
	free(conf);
}

static void
dump_value(FILE *fp, const struct conf_key *k, const void *base)
{
	const char	*p = (const char *)base + k->offset;
	char		 num[CONF_VALUE_LEN];
	uint64_t	 v;

	switch (k->type) {
	case CT_STRING:
	case CT_PATH:
	case CT_LISTEN:
	case CT_WORDS:
		fprintf(fp, "%s = %s\n", k->key, p);
		return;
	case CT_ENUM:
		fprintf(fp, "%s = %s\n", k->key,
		    k->choices[*(const unsigned *)p]);
		return;
	case CT_URL:
	case CT_ENDPOINT:
		return;		/* shown as endpoints */
	default:
		break;
	}
	v = *(const uint64_t *)p;
	conf_fmt_value(k->type, v, num, sizeof(num));
	fprintf(fp, "%s = %s\n", k->key, num);
}

void
conf_dump(const struct conf *conf, FILE *fp)
{
	char	rpc[CONF_URL_MAX + 16], ws[CONF_URL_MAX + 16];

	/* What is shown is redacted as the daemon would. */
	url_secret_words(conf->daemon.secret_params);
	fprintf(fp, "[daemon]\n");
	for (size_t i = 0; i < conf_nkeys; i++)
		if (conf_keys[i].section == CONF_DAEMON)
			dump_value(fp, &conf_keys[i], &conf->daemon);
	for (size_t c = 0; c < conf->n_chains; c++) {
		const struct conf_chain *ch = &conf->chains[c];

		fprintf(fp, "\n[chain %s]\n", ch->name);
		for (size_t i = 0; i < conf_nkeys; i++)
			if (conf_keys[i].section == CONF_CHAIN)
				dump_value(fp, &conf_keys[i], ch);
		for (size_t e = 0; e < ch->n_endpoints; e++) {
			url_redact(ch->endpoints[e].rpc_url, rpc, sizeof(rpc));
			url_redact(ch->endpoints[e].ws_url, ws, sizeof(ws));
			fprintf(fp, "endpoint = %s %s %s\n",
			    ch->endpoints[e].name, rpc, ws);
		}
	}
}

int
conf_daemon_line(const struct conf *conf, const char *key)
{
	for (size_t i = 0; i < conf_nkeys && i < nitems(conf->daemon_line); i++)
		if (conf_keys[i].section == CONF_DAEMON &&
		    strcmp(conf_keys[i].key, key) == 0)
			return conf->daemon_line[i];
	return 0;
}

void
conf_daemon_where(const struct conf *conf, const char *key, const char *value,
    char *out, size_t outlen)
{
	int	line = conf_daemon_line(conf, key);

	if (line > 0)
		snprintf(out, outlen, "%s:%d: %s %s", conf->path, line, key,
		    value);
	else
		snprintf(out, outlen, "%s: %s %s (the default; no %s line in "
		    "[daemon])", conf->path, key, value, key);
}
