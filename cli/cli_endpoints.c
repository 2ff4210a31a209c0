/*
 * chainwatch endpoints: every configured endpoint of every chain (or of
 * one), with the state chainwatchd judged it in, how far behind the chain
 * it is (and whether it is behind or stuck, as status judges it), how
 * often it brought a head first, and its URLs.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cli_fmt.h"
#include "util.h"

struct ep {
	const struct view_chain *ch;
	char		*name, *state, *reason, *rpc_url, *ws_url;
	char		*spec_name, *system_chain;
	int64_t		 position;
	int		 has_since, has_best, has_best_at, has_lag, has_bound;
	int		 has_spec;
	int64_t		 since, best, best_at, lag_ms, pruning_bound;
	int64_t		 spec_version;
	int64_t		 heads_first, heads_seen, restarts;
	int64_t		 block_time;	/* the chain's, ms */
	struct view_head head;
	enum view_lag	 lag;		/* view_lag_judge as of now */
	int64_t		 lag_blocks, lag_since;
};

struct eps {
	struct ep	*v;
	size_t		 n;
};

static void
eps_free(struct eps *e)
{
	size_t	 i;

	for (i = 0; i < e->n; i++) {
		free(e->v[i].name);
		free(e->v[i].state);
		free(e->v[i].reason);
		free(e->v[i].rpc_url);
		free(e->v[i].ws_url);
		free(e->v[i].spec_name);
		free(e->v[i].system_chain);
	}
	free(e->v);
}

/* Endpoints no longer configured are history, as in status. */
static const char q_endpoints[] =
    "SELECT name, state, state_since, state_reason, best_number, best_at,"
    "  lag_ms, heads_first, heads_seen, pruning_bound, restarts, rpc_url,"
    "  ws_url, position, spec_name, spec_version, system_chain,"
    "  (SELECT block_time FROM chains WHERE id = e.chain_id), "
    VIEW_SQL_HEAD_AT ", " VIEW_SQL_PASSED_AT
    " FROM endpoints e WHERE chain_id = ?1 AND configured = 1"
    " ORDER BY position, name";

static int
eps_load(struct view_db *c, const struct view_chain *ch, int64_t now,
    struct eps *e)
{
	sqlite3_stmt	*st;
	struct ep	*p;
	int64_t		 highest = -1;
	int		 rc;

	if (view_db_prepare(c, "reading endpoints", q_endpoints, &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, ch->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		e->v = xrealloc(e->v, (e->n + 1) * sizeof(*e->v));
		p = &e->v[e->n++];
		memset(p, 0, sizeof(*p));
		p->ch = ch;
		if ((p->name = view_col_dup(st, 0)) == NULL)
			p->name = xstrdup("?");
		if ((p->state = view_col_dup(st, 1)) == NULL)
			p->state = xstrdup("unknown");
		p->has_since = view_col_int(st, 2, &p->since);
		p->reason = view_col_dup(st, 3);
		if (p->reason != NULL && p->reason[0] == '\0') {
			free(p->reason);
			p->reason = NULL;
		}
		p->has_best = view_col_int(st, 4, &p->best);
		p->has_best_at = view_col_int(st, 5, &p->best_at);
		p->has_lag = view_col_int(st, 6, &p->lag_ms);
		p->heads_first = sqlite3_column_int64(st, 7);
		p->heads_seen = sqlite3_column_int64(st, 8);
		p->has_bound = view_col_int(st, 9, &p->pruning_bound);
		p->restarts = sqlite3_column_int64(st, 10);
		if ((p->rpc_url = view_col_dup(st, 11)) == NULL)
			p->rpc_url = xstrdup("");
		if ((p->ws_url = view_col_dup(st, 12)) == NULL)
			p->ws_url = xstrdup("");
		p->position = sqlite3_column_int64(st, 13);
		p->spec_name = view_col_dup(st, 14);
		p->has_spec = view_col_int(st, 15, &p->spec_version);
		p->system_chain = view_col_dup(st, 16);
		p->block_time = sqlite3_column_int64(st, 17);
		p->head.has_best = p->has_best;
		p->head.best_number = p->best;
		p->head.has_head_at = view_col_int(st, 18, &p->head.head_at);
		p->head.has_passed = view_col_int(st, 19, &p->head.passed_at);
	}
	if (view_db_finish(c, "reading endpoints", st, rc == SQLITE_DONE) == -1)
		return CW_EXIT_SYSTEM;
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].has_best && e->v[i].best > highest)
			highest = e->v[i].best;
	for (size_t i = 0; i < e->n; i++) {
		p = &e->v[i];
		p->lag = view_lag_judge(ch, highest, p->block_time, &p->head,
		    now, &p->lag_blocks, &p->lag_since);
	}
	return CW_EXIT_OK;
}

/* How many blocks the endpoint's last head is below the chain's best. */
static int
ep_behind(const struct ep *p, int64_t *behind)
{
	if (!p->has_best || !p->ch->has_best)
		return 0;
	*behind = p->ch->best_number - p->best;
	return 1;
}

static void
print_chain(const struct view_chain *ch, const struct eps *e, int64_t now)
{
	struct cli_table	 t;
	const struct ep		*p;
	char			 line[CLI_COLS * 4], a[VIEW_AGE_LEN];
	int64_t			 behind;
	size_t			 i, len, n;

	len = (size_t)snprintf(line, sizeof(line), "%s: ", ch->name);
	if (ch->has_best) {
		len += (size_t)snprintf(line + len, sizeof(line) - len,
		    "best #%lld", (long long)ch->best_number);
		if (ch->has_updated) {
			view_ago(now - ch->updated_at, a, sizeof(a));
			len += (size_t)snprintf(line + len, sizeof(line) - len,
			    " (%s)", a);
		}
	} else
		len += (size_t)snprintf(line + len, sizeof(line) - len,
		    "no best block yet");
	snprintf(line + len, sizeof(line) - len, ", %zu endpoint%s", e->n,
	    e->n == 1 ? "" : "s");
	cli_put_line(line);
	if (e->n == 0)
		return;

	cli_table_init(&t, "llrrrrrrr", 2, 2);
	cli_table_line(&t, "endpoint  rpc url  ws url");
	cli_table_head(&t, "state", "since", "best", "behind", "lag", "first",
	    "seen", "pruned", "restarts", NULL);
	for (i = 0; i < e->n; i++) {
		p = &e->v[i];
		/*
		 * The URLs on the name's line when they fit, else the
		 * WebSocket one under the HTTP one, else each on a line.
		 */
		n = strlen(p->name);
		if (n + strlen(p->rpc_url) + strlen(p->ws_url) + 4 <= CLI_COLS)
			cli_table_line(&t, "%s  %s  %s", p->name, p->rpc_url,
			    p->ws_url);
		else if (n + strlen(p->rpc_url) + 2 <= CLI_COLS) {
			cli_table_line(&t, "%s  %s", p->name, p->rpc_url);
			cli_table_line(&t, "%*s%s", (int)n + 2, "", p->ws_url);
		} else {
			cli_table_line(&t, "%s", p->name);
			cli_table_line(&t, "  %s", p->rpc_url);
			cli_table_line(&t, "  %s", p->ws_url);
		}
		cli_table_cell(&t, "%s", p->state);
		if (p->has_since) {
			view_ago(now - p->since, a, sizeof(a));
			cli_table_cell(&t, "%s", a);
		} else
			cli_table_cell(&t, "-");
		if (p->has_best)
			cli_table_cell(&t, "%lld", (long long)p->best);
		else
			cli_table_cell(&t, "-");
		if (ep_behind(p, &behind))
			cli_table_cell(&t, "%lld", (long long)behind);
		else
			cli_table_cell(&t, "-");
		if (p->has_lag) {
			cli_ms(p->lag_ms, a, sizeof(a));
			cli_table_cell(&t, "%s", a);
		} else
			cli_table_cell(&t, "-");
		cli_table_cell(&t, "%lld", (long long)p->heads_first);
		cli_table_cell(&t, "%lld", (long long)p->heads_seen);
		if (p->has_bound)
			cli_table_cell(&t, "%lld", (long long)p->pruning_bound);
		else
			cli_table_cell(&t, "-");
		cli_table_cell(&t, "%lld", (long long)p->restarts);
		if (p->reason != NULL)
			cli_table_wrap(&t, 4, p->reason);
		if (p->lag == VIEW_LAG_BEHIND || p->lag == VIEW_LAG_STUCK) {
			char	 w[CLI_COLS * 2];

			view_lag_text(p->lag, p->lag_blocks, p->best,
			    p->lag_since, now, w, sizeof(w));
			cli_table_wrap(&t, 4, w);
		}
	}
	cli_table_print(&t);
	cli_table_free(&t);
}

static json_t *
ep_json(const struct ep *p)
{
	json_t	*o = json_object();
	int64_t	 behind = 0;
	int	 has_behind;

	has_behind = ep_behind(p, &behind);
	json_object_set_new(o, "chain", view_jstr(p->ch->name));
	json_object_set_new(o, "name", view_jstr(p->name));
	json_object_set_new(o, "position", json_integer(p->position));
	json_object_set_new(o, "state", view_jstr(p->state));
	view_jtime(o, "since", p->has_since, p->since);
	json_object_set_new(o, "reason", view_jstr(p->reason));
	json_object_set_new(o, "best_number", view_jint(p->has_best, p->best));
	view_jtime(o, "best_at", p->has_best_at, p->best_at);
	json_object_set_new(o, "behind", view_jint(has_behind, behind));
	json_object_set_new(o, "condition", view_jstr(view_lag_name(p->lag)));
	view_jtime(o, "condition_since", p->lag_since != 0, p->lag_since);
	json_object_set_new(o, "lag_ms", view_jint(p->has_lag, p->lag_ms));
	json_object_set_new(o, "heads_first", json_integer(p->heads_first));
	json_object_set_new(o, "heads_seen", json_integer(p->heads_seen));
	json_object_set_new(o, "pruning_bound",
	    view_jint(p->has_bound, p->pruning_bound));
	json_object_set_new(o, "restarts", json_integer(p->restarts));
	json_object_set_new(o, "rpc_url", view_jstr(p->rpc_url));
	json_object_set_new(o, "ws_url", view_jstr(p->ws_url));
	json_object_set_new(o, "system_chain", view_jstr(p->system_chain));
	json_object_set_new(o, "spec_name", view_jstr(p->spec_name));
	json_object_set_new(o, "spec_version",
	    view_jint(p->has_spec, p->spec_version));
	return o;
}

int
cli_endpoints(struct view_db *c, const struct cli_opts *o)
{
	struct view_chain	*chains;
	const struct view_chain	*ch;
	struct eps		*e;
	json_t			*arr;
	int64_t			 now = (int64_t)now_wall_ms();
	size_t			 nc, i, k, shown = 0;
	int			 rc, running;

	if ((rc = view_chains_begin(c, o->chain, &chains, &nc, &ch)) !=
	    CW_EXIT_OK)
		return rc;
	e = xcalloc(nc > 0 ? nc : 1, sizeof(*e));
	for (i = 0; i < nc && rc == CW_EXIT_OK; i++)
		if (ch == NULL || &chains[i] == ch)
			rc = eps_load(c, &chains[i], now, &e[i]);
	running = rc == CW_EXIT_OK ? cli_daemon_note(c) : -1;
	view_db_end(c);

	if (rc == CW_EXIT_OK && o->json) {
		arr = json_array();
		for (i = 0; i < nc; i++)
			for (k = 0; k < e[i].n; k++)
				json_array_append_new(arr, ep_json(&e[i].v[k]));
		cli_json_list(running, "endpoints", arr);
	} else if (rc == CW_EXIT_OK) {
		if (nc == 0)
			printf("no chains stored yet\n");
		for (i = 0; i < nc; i++) {
			if (ch != NULL && &chains[i] != ch)
				continue;
			if (shown++ > 0)
				putchar('\n');
			print_chain(&chains[i], &e[i], now);
		}
	}
	for (i = 0; i < nc; i++)
		eps_free(&e[i]);
	free(e);
	view_chains_free(chains, nc);
	return rc;
}
