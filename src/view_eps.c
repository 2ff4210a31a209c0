/*
 * The configured endpoints of a chain as the store has them, each judged
 * behind or stuck as of now as status judges it: chainwatch endpoints and
 * /api/v1/.../endpoints.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util.h"
#include "view.h"

void
view_eps_free(struct view_eps *e)
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
    VIEW_SQL_HEAD_AT ", " VIEW_SQL_PASSED_AT ", seals_failed"
    " FROM endpoints e WHERE chain_id = ?1 AND configured = 1"
    " ORDER BY position, name";

int
view_eps_load(struct view_db *c, const struct view_chain *ch, int64_t now,
    struct view_eps *e)
{
	sqlite3_stmt	*st;
	struct view_ep	*p;
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
		p->seals_failed = sqlite3_column_int64(st, 20);
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
int
view_ep_behind(const struct view_ep *p, int64_t *behind)
{
	if (!p->has_best || !p->ch->has_best)
		return 0;
	*behind = p->ch->best_number - p->best;
	return 1;
}

json_t *
view_ep_json(const struct view_ep *p)
{
	json_t	*o = json_object();
	int64_t	 behind = 0;
	int	 has_behind;

	has_behind = view_ep_behind(p, &behind);
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
	json_object_set_new(o, "seals_failed", json_integer(p->seals_failed));
	json_object_set_new(o, "rpc_url", view_jstr(p->rpc_url));
	json_object_set_new(o, "ws_url", view_jstr(p->ws_url));
	json_object_set_new(o, "system_chain", view_jstr(p->system_chain));
	json_object_set_new(o, "spec_name", view_jstr(p->spec_name));
	json_object_set_new(o, "spec_version",
	    view_jint(p->has_spec, p->spec_version));
	return o;
}


json_t *
view_eps_json(const struct view_eps *e, size_t n, json_t *running)
{
	json_t	*root = json_object(), *arr = json_array();
	size_t	 i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < e[i].n; k++)
			json_array_append_new(arr, view_ep_json(&e[i].v[k]));
	json_object_set_new(root, "daemon_running", running);
	json_object_set_new(root, "endpoints", arr);
	return root;
}
