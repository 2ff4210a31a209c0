/*
 * chainwatch status: each chain's status as libcwview.a judges it
 * (view_status.c), for people, one headline per chain with the endpoints
 * that are down, behind or stuck, why and since when, in local time; or
 * as --json.  First whether chainwatchd runs: a store nobody writes is
 * not ok, however fresh its last heads.  The exit status is the worst
 * thing found (cli.h), so that a script can tell them apart.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli.h"
#include "cli_fmt.h"
#include "view_ctl.h"
#include "util.h"

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
 * the breaker writes: "3 timeouts in a row since ...", "62% timeouts over
 * 60 s ..." (or "... failures ..., most timeouts (13)") and "timeout on
 * trial at ..." are "timeout".  Else the reason itself.
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
	/* "62% timeouts over 60 s (31 of 50)", or "85% failures over 60 s
	 * (17 of 20), most timeouts (13)": "timeout". */
	if (*p >= '0' && *p <= '9' && (p = strchr(p, '%')) != NULL &&
	    p[1] == ' ' && (q = strstr(p, " over ")) != NULL) {
		p += 2;
		if (strncmp(p, "failures over ", 14) == 0 &&
		    (p = strstr(q, ", most ")) != NULL &&
		    (q = strstr(p, " (")) != NULL)
			p += 7;
		if (p != NULL && q > p + 1) {
			n = (size_t)(q - p);
			if (p[n - 1] == 's')
				n--;
			snprintf(out, outlen, "%.*s", (int)n, p);
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
down_item(const struct view_endpoint *e, int64_t now, char *out,
    size_t outlen)
{
	char	 cls[256], t[32];

	if (e->lagging) {
		time_local(e->lag_since, now, t, sizeof(t));
		if (e->lag == VIEW_LAG_STUCK)
			snprintf(out, outlen, "%s, stuck at #%lld since %s",
			    e->name, (long long)e->head.best_number, t);
		else
			snprintf(out, outlen, "%s, %lld blocks behind since %s",
			    e->name, (long long)e->lag_blocks, t);
		return;
	}
	/* An inconsistency's reason is long: it is in the endpoint's line. */
	if (e->doubted)
		snprintf(cls, sizeof(cls), "%s", e->state);
	else if (e->reason != NULL)
		reason_class(e->reason, cls, sizeof(cls));
	else
		snprintf(cls, sizeof(cls), "%s", e->state);
	if (e->has_since) {
		time_local(e->since, now, t, sizeof(t));
		snprintf(out, outlen, "%s, %s since %s", e->name, cls, t);
	} else
		snprintf(out, outlen, "%s, %s", e->name, cls);
}

/*
 * The daemon's object of this chain in its status answer (NULL when it is
 * not running, or does not know the chain): who holds the subscription.
 */
static const json_t *
daemon_chain(const json_t *daemon, const char *name)
{
	const json_t	*a = json_object_get(daemon, "chains"), *c;
	size_t		 i;

	json_array_foreach(a, i, c)
		if (json_is_string(json_object_get(c, "chain")) &&
		    strcmp(json_string_value(json_object_get(c, "chain")),
		    name) == 0)
			return c;
	return NULL;
}

/*
 * "  subscription on a1-planck since 12:03:07" under subscribe = primary,
 * "(connecting)" until its first notification; nothing under all, where
 * every endpoint holds its own.
 */
static void
print_subscription(const json_t *dc, int64_t now)
{
	const json_t	*h = json_object_get(dc, "subscription");
	const char	*mode = json_string_value(json_object_get(dc,
			    "subscribe"));
	char		 line[256], t[32];

	if (mode == NULL || strcmp(mode, "primary") != 0)
		return;
	if (!json_is_object(h) ||
	    !json_is_string(json_object_get(h, "endpoint"))) {
		cli_put_line("  subscription: none held; heads come from the "
		    "endpoints' polls");
		return;
	}
	time_local(json_integer_value(json_object_get(h, "since")), now, t,
	    sizeof(t));
	snprintf(line, sizeof(line), "  subscription on %s since %s%s",
	    json_string_value(json_object_get(h, "endpoint")), t,
	    json_is_true(json_object_get(h, "live")) ? "" : " (connecting)");
	cli_put_line(line);
}

static void
print_human(const struct view_verdict *s, const json_t *daemon, int64_t now)
{
	const struct view_chain		*ch = s->ch;
	const struct view_endpoint	*e;
	char				 line[1024], item[512], a[48], t[32];
	size_t				 i, len, w = 0, sw = 9;
	int				 first = 1;

	/*
	 * The headline, then the endpoints down or inconsistent, as many
	 * lines as needed.
	 */
	len = (size_t)snprintf(line, sizeof(line), "%s: %s: %s", ch->name,
	    view_status_name(s->status), s->headline);
	for (i = 0; i < s->n_eps; i++) {
		e = &s->eps[i];
		/*
		 * A stalled chain's trouble is its heads, not these; unless
		 * no endpoint is believed.
		 */
		if ((!e->down && !e->doubted && !e->mute && !e->lagging) ||
		    (s->status == VIEW_STATUS_STALLED && s->n_doubted == 0))
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
			view_ago(now - ch->updated_at, a, sizeof(a));
			len += (size_t)snprintf(line + len, sizeof(line) - len,
			    " (%s)", a);
		}
		if (ch->has_final)
			snprintf(line + len, sizeof(line) - len,
			    ", final #%lld", (long long)ch->final_number);
		cli_put_line(line);
	} else
		cli_put_line("  no best block yet");
	print_subscription(daemon_chain(daemon, ch->name), now);
	if (s->status == VIEW_STATUS_UNREACHABLE) {
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
			view_ago(now - e->trouble_at, a, sizeof(a));
			snprintf(line, sizeof(line), "    worker %s %s%s%s",
			    e->trouble_kind, a, e->trouble_detail != NULL ?
			    ": " : "", e->trouble_detail != NULL ?
			    e->trouble_detail : "");
			cli_put_line(line);
		}
	}
}

/* The daemon's status answer, kept in c; NULL unless it answered. */
static json_t *
daemon_status(struct view_db *c)
{
	(void)view_daemon_ask(c);
	return c->daemon_status;
}

/*
 * chainwatchd: not running (nothing answers on /run/chainwatchd.sock);
 * the store as of 2 min ago
 */
static void
print_not_running(struct view_db *c, int64_t now)
{
	char	 line[1024], a[VIEW_AGE_LEN];
	int64_t	 t = cli_store_time(c);

	if (t > 0)
		view_ago(now - t, a, sizeof(a));
	snprintf(line, sizeof(line), "chainwatchd: not running (nothing "
	    "answers on %s); the store as of %s", c->socket, t > 0 ? a :
	    "an unknown time");
	cli_put_line(line);
}

/* The exit status for a chain's status. */
static int
status_rc(enum view_status st)
{
	switch (st) {
	case VIEW_STATUS_OK:
		return CW_EXIT_OK;
	case VIEW_STATUS_DEGRADED:
		return CLI_EXIT_DEGRADED;
	case VIEW_STATUS_STALLED:
		return CLI_EXIT_STALLED;
	case VIEW_STATUS_UNREACHABLE:
	default:
		return CLI_EXIT_UNREACHABLE;
	}
}

/* The worse of two exit statuses: not running, unreachable, ... ok. */
static int
worse(int a, int b)
{
	return a > b ? a : b;
}

/*
 * The daemon's store: NULL when it is running and writing, else its
 * "store" object (a reference to free), whose reason says why it is
 * blocked.  Not running or not asked: NULL too.
 */
static json_t *
store_blocked(const json_t *status)
{
	json_t	*store = json_object_get(status, "store");

	if (!json_is_object(store) || !json_is_string(json_object_get(store,
	    "state")) || strcmp(json_string_value(json_object_get(store,
	    "state")), "store-blocked") != 0)
		return NULL;
	json_incref(store);
	return store;
}

/* --json: the status of a chain by its name, as the view judged it. */
static enum view_status
json_status(const json_t *c)
{
	const char	*st = json_string_value(json_object_get(c, "status"));

	for (int i = VIEW_STATUS_OK; st != NULL &&
	    i <= VIEW_STATUS_UNREACHABLE; i++)
		if (strcmp(st, view_status_name((enum view_status)i)) == 0)
			return (enum view_status)i;
	return VIEW_STATUS_UNREACHABLE;
}

/* --json: "subscribe" and "subscription" of each chain, null unknown. */
static void
json_subscriptions(json_t *root, const json_t *daemon)
{
	json_t		*c;
	const json_t	*dc;
	size_t		 i;

	json_array_foreach(json_object_get(root, "chains"), i, c) {
		dc = daemon_chain(daemon, json_string_value(json_object_get(c,
		    "name")));
		json_object_set(c, "subscribe", dc != NULL &&
		    json_object_get(dc, "subscribe") != NULL ?
		    json_object_get(dc, "subscribe") : json_null());
		json_object_set(c, "subscription", dc != NULL &&
		    json_object_get(dc, "subscription") != NULL ?
		    json_object_get(dc, "subscription") : json_null());
	}
}

/*
 * chainwatchd: store-blocked: disk full on /var/lib/chainwatch/..., 0.0 MB
 * free, since 12:03:07; 42 messages from workers wait in memory
 */
static void
print_store_blocked(json_t *store, int64_t now)
{
	const char	*why = json_string_value(json_object_get(store,
			    "reason"));
	json_t		*since = json_object_get(store, "since");
	char		 line[1024], t[32];

	if (json_is_integer(since))
		time_local(json_integer_value(since), now, t, sizeof(t));
	else
		snprintf(t, sizeof(t), "?");
	snprintf(line, sizeof(line), "chainwatchd: store-blocked: %s, since "
	    "%s; %lld messages from workers wait in memory", why != NULL ?
	    why : "?", t, (long long)json_integer_value(json_object_get(store,
	    "waiting_messages")));
	cli_put_line(line);
}

int
cli_status(struct view_db *c, const struct cli_opts *o)
{
	struct view_chain	*chains;
	struct view_verdict	*ss;
	json_t			*root, *ch;
	size_t			 n, nc, i;
	int64_t			 now = (int64_t)now_wall_ms();
	int			 rc, worst = CW_EXIT_OK;
	json_t			*daemon = daemon_status(c);
	json_t			*blocked = store_blocked(daemon);
	int			 running = c->daemon_running;

	/* The daemon's store blocked: new blocks are not stored. */
	if (blocked != NULL)
		worst = CLI_EXIT_DEGRADED;
	if (running == 0)
		worst = CLI_EXIT_NOT_RUNNING;
	if (o->json) {
		if ((rc = view_status_json(c, o->chain, &root)) != CW_EXIT_OK) {
			json_decref(blocked);
			return rc;
		}
		json_subscriptions(root, daemon);
		json_object_set_new(root, "daemon_running",
		    cli_jrunning(running));
		/* Only a daemon that answered can say how its store is. */
		json_object_set_new(root, "daemon_store", blocked != NULL ?
		    blocked : daemon != NULL ? json_pack("{s:s}", "state",
		    "ok") : json_null());
		json_array_foreach(json_object_get(root, "chains"), i, ch) {
			worst = worse(worst, status_rc(json_status(ch)));
			/* Nobody writes it: what it shows is as of then. */
			if (running == 0)
				json_object_set(ch, "stale", json_true());
		}
		cli_json_print(root);
		return worst;
	}
	if ((rc = view_status_judge(c, o->chain, &chains, &nc, &ss, &n)) !=
	    CW_EXIT_OK) {
		json_decref(blocked);
		return rc;
	}
	if (running == 0) {
		print_not_running(c, now);
		if (n > 0 || blocked != NULL)
			putchar('\n');
	}
	if (blocked != NULL) {
		print_store_blocked(blocked, now);
		if (n > 0)
			putchar('\n');
	}
	if (n == 0)
		printf("no chains stored yet\n");
	for (i = 0; i < n; i++) {
		worst = worse(worst, status_rc(ss[i].status));
		if (i > 0)
			putchar('\n');
		print_human(&ss[i], daemon, now);
		/* What the chain shows is the store's, as of the block. */
		if (blocked != NULL)
			cli_put_line("  store-blocked: new blocks wait in "
			    "chainwatchd's memory");
	}
	json_decref(blocked);
	view_verdicts_free(ss, n, chains, nc);
	return worst;
}
