/*
 * chainwatch status: is each chain ok, degraded, stalled or unreachable,
 * judged from the heads and the endpoint breaker states that chainwatchd
 * stores.  It says which endpoints are down, why, and since when.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli.h"
#include "cli_fmt.h"
#include "util.h"

#define STALL_BLOCKS	10	/* block times without a head: stalled */
#define TROUBLE_SHOWN	(15 * 60 * 1000)	/* ms: a worker's hang or death */

enum chain_status {
	STATUS_OK,
	STATUS_DEGRADED,
	STATUS_STALLED,
	STATUS_UNREACHABLE,
};

static const char *const status_name[] = {
	[STATUS_OK] = "ok",
	[STATUS_DEGRADED] = "degraded",
	[STATUS_STALLED] = "stalled",
	[STATUS_UNREACHABLE] = "unreachable",
};

struct sendpoint {
	char		*name;
	char		*state;
	char		*reason;	/* NULL: none stored */
	int		 has_since, has_bound;
	int64_t		 since, pruning_bound;
	int		 down;		/* open or half-open */
	/* Its worker's last hang or death, if recent (TROUBLE_SHOWN). */
	char		*trouble_kind, *trouble_detail;
	int64_t		 trouble_at;
};

struct schain {
	const struct cli_chain *ch;
	int64_t		 block_time;	/* ms */
	struct sendpoint *eps;
	size_t		 n_eps, n_down;
	enum chain_status status;
	char		 headline[512];	/* what follows "name: status: " */
};

static void
schain_free(struct schain *s)
{
	size_t	 i;

	for (i = 0; i < s->n_eps; i++) {
		free(s->eps[i].name);
		free(s->eps[i].state);
		free(s->eps[i].trouble_kind);
		free(s->eps[i].trouble_detail);
		free(s->eps[i].reason);
	}
	free(s->eps);
}

/* ?2: since when a worker's hang or death is shown. */
static const char q_endpoints[] =
    "SELECT name, state, state_since, state_reason, pruning_bound, t.kind,"
    "  t.detail, t.at"
    " FROM endpoints e LEFT JOIN endpoint_events t ON t.id ="
    "  (SELECT id FROM endpoint_events WHERE endpoint_id = e.id AND"
    "   kind IN ('hung', 'died') AND at >= ?2 ORDER BY at DESC LIMIT 1)"
    " WHERE chain_id = ?1 AND configured = 1 ORDER BY position, name";

static int
schain_load(struct cli_db *c, const struct cli_chain *ch, struct schain *s)
{
	sqlite3_stmt		*st;
	struct sendpoint	*e;
	int			 rc;

	memset(s, 0, sizeof(*s));
	s->ch = ch;
	if (cli_db_prepare(c, "reading chains", "SELECT block_time FROM "
	    "chains WHERE id = ?1", &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, ch->id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		s->block_time = sqlite3_column_int64(st, 0);
	if (cli_db_finish(c, "reading chains", st, rc == SQLITE_ROW) == -1)
		return CW_EXIT_SYSTEM;

	/* Endpoints no longer configured are history, not health. */
	if (cli_db_prepare(c, "reading endpoints", q_endpoints, &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, ch->id);
	sqlite3_bind_int64(st, 2, (int64_t)now_wall_ms() - TROUBLE_SHOWN);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		s->eps = xrealloc(s->eps, (s->n_eps + 1) * sizeof(*s->eps));
		e = &s->eps[s->n_eps++];
		memset(e, 0, sizeof(*e));
		e->name = cli_col_dup(st, 0);
		if (e->name == NULL)
			e->name = xstrdup("?");
		e->state = cli_col_dup(st, 1);
		if (e->state == NULL)
			e->state = xstrdup("unknown");
		e->has_since = cli_col_int(st, 2, &e->since);
		e->reason = cli_col_dup(st, 3);
		if (e->reason != NULL && e->reason[0] == '\0') {
			free(e->reason);
			e->reason = NULL;
		}
		e->has_bound = cli_col_int(st, 4, &e->pruning_bound);
		e->trouble_kind = cli_col_dup(st, 5);
		e->trouble_detail = cli_col_dup(st, 6);
		e->trouble_at = sqlite3_column_int64(st, 7);
		e->down = strcmp(e->state, "open") == 0 ||
		    strcmp(e->state, "half-open") == 0 ||
		    strcmp(e->state, "down") == 0 ||
		    strcmp(e->state, "quarantined") == 0;
		s->n_down += e->down;
	}
	if (cli_db_finish(c, "reading endpoints", st, rc == SQLITE_DONE) == -1)
		return CW_EXIT_SYSTEM;
	return CW_EXIT_OK;
}

/*
 * A time for people: local HH:MM:SS when it is within the last 20 hours
 * (or a little ahead), else the local date and minute, which a stale store
 * needs to be read right.
 */
static void
time_local(int64_t ms, int64_t now, char *out, size_t outlen)
{
	struct tm	 tm;
	time_t		 t;
	int64_t		 age = now - ms;

	t = (time_t)(ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000));
	if (localtime_r(&t, &tm) == NULL ||
	    strftime(out, outlen, age < 20 * 3600 * 1000LL &&
	    age > -3600 * 1000LL ? "%H:%M:%S" : "%Y-%m-%d %H:%M", &tm) == 0)
		snprintf(out, outlen, "?");
}

/*
 * The kind of failure a breaker reason names, when it is one of the forms
 * the breaker writes: "3 timeouts in a row since ..." is "timeout", and
 * "timeout on trial at ..." is "timeout".  Else the reason itself.
 */
static void
reason_class(const char *reason, char *out, size_t outlen)
{
	const char	*p, *q;
	size_t		 n;

	p = reason;
	if (*p >= '0' && *p <= '9' && (q = strstr(p, " in a row")) != NULL) {
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == ' ' && q > p + 1) {
			n = (size_t)(q - (p + 1));
			/* "timeouts" -> "timeout": one kind, not a count. */
			if (n > 1 && p[n] == 's')
				n--;
			snprintf(out, outlen, "%.*s", (int)n, p + 1);
			return;
		}
	}
	/* "wrong genesis: serves 0x..., chain x has 0x...": the hashes are
	 * in the endpoint's line. */
	if ((q = strchr(reason, ':')) != NULL && strncmp(reason,
	    "wrong genesis", 13) == 0) {
		snprintf(out, outlen, "%.*s", (int)(q - reason), reason);
		return;
	}
	if ((q = strstr(reason, " on trial at ")) != NULL && q > reason) {
		snprintf(out, outlen, "%.*s", (int)(q - reason), reason);
		return;
	}
	snprintf(out, outlen, "%s", reason);
}

/* "a2-planck, timeout since 12:03:07" */
static void
down_item(const struct sendpoint *e, int64_t now, char *out, size_t outlen)
{
	char	 cls[256], t[32];

	if (e->reason != NULL)
		reason_class(e->reason, cls, sizeof(cls));
	else
		snprintf(cls, sizeof(cls), "%s", e->state);
	if (e->has_since) {
		time_local(e->since, now, t, sizeof(t));
		snprintf(out, outlen, "%s, %s since %s", e->name, cls, t);
	} else
		snprintf(out, outlen, "%s, %s", e->name, cls);
}

static void
schain_judge(struct schain *s, int64_t now)
{
	const struct cli_chain	*ch = s->ch;
	char			 a[32], b[32];
	int			 fresh;

	fresh = ch->has_updated &&
	    now - ch->updated_at <= STALL_BLOCKS * s->block_time;
	if (s->n_down == s->n_eps) {
		s->status = STATUS_UNREACHABLE;
		if (s->n_eps == 0)
			snprintf(s->headline, sizeof(s->headline),
			    "no endpoint configured");
		else
			snprintf(s->headline, sizeof(s->headline),
			    "%zu of %zu endpoint%s unreachable", s->n_down,
			    s->n_eps, s->n_eps == 1 ? "" : "s");
	} else if (!fresh) {
		s->status = STATUS_STALLED;
		if (!ch->has_updated)
			snprintf(s->headline, sizeof(s->headline),
			    "no head stored yet");
		else {
			cli_span(now - ch->updated_at, a, sizeof(a));
			cli_span(s->block_time, b, sizeof(b));
			snprintf(s->headline, sizeof(s->headline),
			    "no head stored for %s (block time %s)", a, b);
		}
	} else if (s->n_down > 0) {
		s->status = STATUS_DEGRADED;
		snprintf(s->headline, sizeof(s->headline),
		    "%zu of %zu endpoint%s unreachable", s->n_down, s->n_eps,
		    s->n_eps == 1 ? "" : "s");
	} else {
		s->status = STATUS_OK;
		snprintf(s->headline, sizeof(s->headline),
		    "%zu endpoint%s healthy", s->n_eps,
		    s->n_eps == 1 ? "" : "s");
	}
}

static void
print_human(const struct schain *s, int64_t now)
{
	const struct cli_chain	*ch = s->ch;
	const struct sendpoint	*e;
	char			 line[1024], item[512], a[48], t[32];
	size_t			 i, len, w = 0, sw = 9;
	int			 first = 1;

	/* The headline, then the endpoints down, as many lines as needed. */
	len = (size_t)snprintf(line, sizeof(line), "%s: %s: %s", ch->name,
	    status_name[s->status], s->headline);
	for (i = 0; i < s->n_eps; i++) {
		e = &s->eps[i];
		/* A stalled chain's trouble is its heads, not these. */
		if (!e->down || s->status == STATUS_STALLED)
			continue;
		down_item(e, now, item, sizeof(item));
		if (len + 2 + strlen(item) > CLI_COLS) {
			if (first && len < sizeof(line) - 1)
				strcat(line, ":");
			cli_put_line(line);
			len = (size_t)snprintf(line, sizeof(line), "    %s",
			    item);
		} else
			len += (size_t)snprintf(line + len, sizeof(line) - len,
			    "%s %s", first ? ":" : ";", item);
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		first = 0;
	}
	cli_put_line(line);

	if (ch->has_best) {
		len = (size_t)snprintf(line, sizeof(line), "  best #%lld",
		    (long long)ch->best_number);
		if (ch->has_updated) {
			cli_ago(now - ch->updated_at, a, sizeof(a));
			len += (size_t)snprintf(line + len, sizeof(line) - len,
			    " (%s)", a);
		}
		if (ch->has_final)
			snprintf(line + len, sizeof(line) - len,
			    ", final #%lld", (long long)ch->final_number);
		cli_put_line(line);
	} else
		cli_put_line("  no best block yet");
	if (s->status == STATUS_UNREACHABLE) {
		if (ch->has_updated) {
			time_local(ch->updated_at, now, t, sizeof(t));
			snprintf(line, sizeof(line), "  standings served from "
			    "the store as of %s", t);
			cli_put_line(line);
		} else
			cli_put_line("  no standings: no head stored yet");
	}

	for (i = 0; i < s->n_eps; i++) {
		if (strlen(s->eps[i].name) > w)
			w = strlen(s->eps[i].name);
		if (strlen(s->eps[i].state) > sw)
			sw = strlen(s->eps[i].state);
	}
	for (i = 0; i < s->n_eps; i++) {
		e = &s->eps[i];
		if (e->has_since) {
			time_local(e->since, now, t, sizeof(t));
			snprintf(a, sizeof(a), "since %s", t);
		} else
			snprintf(a, sizeof(a), "never judged");
		len = (size_t)snprintf(line, sizeof(line), "  %-*s  %-*s  %s",
		    (int)w, e->name, (int)sw, e->state, a);
		if (e->reason == NULL)
			cli_put_line(line);
		else if (len + 2 + strlen(e->reason) <= CLI_COLS) {
			snprintf(line + len, sizeof(line) - len, "  %s",
			    e->reason);
			cli_put_line(line);
		} else {
			/* A long reason gets a line of its own. */
			cli_put_line(line);
			snprintf(line, sizeof(line), "    %s", e->reason);
			cli_put_line(line);
		}
		if (e->trouble_kind != NULL) {
			cli_ago(now - e->trouble_at, a, sizeof(a));
			snprintf(line, sizeof(line), "    worker %s %s%s%s",
			    e->trouble_kind, a, e->trouble_detail != NULL ?
			    ": " : "", e->trouble_detail != NULL ?
			    e->trouble_detail : "");
			cli_put_line(line);
		}
	}
}

static json_t *
jtime_iso(int has, int64_t ms)
{
	char	 iso[32];

	if (!has)
		return json_null();
	cli_time_iso(ms, iso, sizeof(iso));
	return json_string(iso);
}

static json_t *
schain_json(const struct schain *s)
{
	const struct cli_chain	*ch = s->ch;
	const struct sendpoint	*e;
	json_t			*o, *eps, *j;
	size_t			 i;

	o = json_object();
	json_object_set_new(o, "name", cli_jstr(ch->name));
	json_object_set_new(o, "status",
	    json_string(status_name[s->status]));
	json_object_set_new(o, "message", cli_jstr(s->headline));
	json_object_set_new(o, "best", cli_jint(ch->has_best,
	    ch->best_number));
	json_object_set_new(o, "final", cli_jint(ch->has_final,
	    ch->final_number));
	json_object_set_new(o, "updated_at", cli_jint(ch->has_updated,
	    ch->updated_at));
	json_object_set_new(o, "updated_at_iso",
	    jtime_iso(ch->has_updated, ch->updated_at));
	json_object_set_new(o, "block_time", json_integer(s->block_time));
	json_object_set_new(o, "stale", json_boolean(
	    s->status == STATUS_UNREACHABLE || s->status == STATUS_STALLED));
	eps = json_array();
	for (i = 0; i < s->n_eps; i++) {
		e = &s->eps[i];
		j = json_object();
		json_object_set_new(j, "name", cli_jstr(e->name));
		json_object_set_new(j, "state", cli_jstr(e->state));
		json_object_set_new(j, "since", cli_jint(e->has_since,
		    e->since));
		json_object_set_new(j, "since_iso",
		    jtime_iso(e->has_since, e->since));
		json_object_set_new(j, "reason", cli_jstr(e->reason));
		json_object_set_new(j, "pruning_bound",
		    cli_jint(e->has_bound, e->pruning_bound));
		if (e->trouble_kind != NULL) {
			json_t *t = json_object();

			json_object_set_new(t, "kind",
			    cli_jstr(e->trouble_kind));
			json_object_set_new(t, "detail",
			    cli_jstr(e->trouble_detail));
			json_object_set_new(t, "at", json_integer(
			    e->trouble_at));
			json_object_set_new(t, "at_iso", jtime_iso(1,
			    e->trouble_at));
			json_object_set_new(j, "worker_trouble", t);
		} else
			json_object_set_new(j, "worker_trouble", json_null());
		json_array_append_new(eps, j);
	}
	json_object_set_new(o, "endpoints", eps);
	return o;
}

/*
 * Judge the chains (all, or the one named) as of now.  On CW_EXIT_OK,
 * *out holds *n judged chains for schains_free().
 */
static int
schains_judge(struct cli_db *c, const char *name, struct cli_chain **chainsp,
    size_t *nchains, struct schain **out, size_t *n)
{
	struct cli_chain	*chains;
	const struct cli_chain	*ch;
	struct schain		*ss;
	size_t			 nc, i, shown = 0;
	int64_t			 now = (int64_t)now_wall_ms();
	int			 rc;

	*out = NULL;
	*n = 0;
	if ((rc = cli_chains_begin(c, name, &chains, &nc, &ch)) != CW_EXIT_OK)
		return rc;
	ss = xcalloc(nc > 0 ? nc : 1, sizeof(*ss));
	for (i = 0; i < nc && rc == CW_EXIT_OK; i++) {
		if (ch != NULL && &chains[i] != ch)
			continue;
		rc = schain_load(c, &chains[i], &ss[shown]);
		shown++;
	}
	cli_db_end(c);
	for (i = 0; i < shown && rc == CW_EXIT_OK; i++)
		schain_judge(&ss[i], now);
	if (rc != CW_EXIT_OK) {
		for (i = 0; i < shown; i++)
			schain_free(&ss[i]);
		free(ss);
		cli_chains_free(chains, nc);
		return rc;
	}
	*chainsp = chains;
	*nchains = nc;
	*out = ss;
	*n = shown;
	return CW_EXIT_OK;
}

static void
schains_free(struct schain *ss, size_t n, struct cli_chain *chains,
    size_t nchains)
{
	for (size_t i = 0; i < n; i++)
		schain_free(&ss[i]);
	free(ss);
	cli_chains_free(chains, nchains);
}

int
cli_status_json(struct cli_db *c, const char *name, json_t **out)
{
	struct cli_chain	*chains;
	struct schain		*ss;
	size_t			 n, nc;
	json_t			*arr;
	int			 rc;

	*out = NULL;
	if ((rc = schains_judge(c, name, &chains, &nc, &ss, &n)) !=
	    CW_EXIT_OK)
		return rc;
	arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, schain_json(&ss[i]));
	*out = json_object();
	json_object_set_new(*out, "chains", arr);
	schains_free(ss, n, chains, nc);
	return CW_EXIT_OK;
}

int
cli_status(struct cli_db *c, const struct cli_opts *o)
{
	struct cli_chain	*chains;
	struct schain		*ss;
	json_t			*root;
	size_t			 n, nc, i;
	int64_t			 now = (int64_t)now_wall_ms();
	int			 rc, bad = 0;

	if (o->json) {
		if ((rc = cli_status_json(c, o->chain, &root)) != CW_EXIT_OK)
			return rc;
		for (i = 0; i < json_array_size(json_object_get(root,
		    "chains")); i++)
			bad |= strcmp(json_string_value(json_object_get(
			    json_array_get(json_object_get(root, "chains"), i),
			    "status")), "ok") != 0;
		cli_json_print(root);
		return bad ? CLI_EXIT_NOT_OK : CW_EXIT_OK;
	}
	if ((rc = schains_judge(c, o->chain, &chains, &nc, &ss, &n)) !=
	    CW_EXIT_OK)
		return rc;
	if (n == 0)
		printf("no chains stored yet\n");
	for (i = 0; i < n; i++) {
		bad |= ss[i].status != STATUS_OK;
		if (i > 0)
			putchar('\n');
		print_human(&ss[i], now);
	}
	schains_free(ss, n, chains, nc);
	return bad ? CLI_EXIT_NOT_OK : CW_EXIT_OK;
}
