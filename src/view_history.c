/*
 * What happened over a past span, read-only, for the status page of
 * chainwatch-metrics: the endpoints' events, the canonical blocks in
 * time buckets (difficulty, block time, hashrate over time) and the last
 * reorganisations.
 */
#include "config.h"

#include <jansson.h>

#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "util.h"
#include "view.h"

/*
 * ?2: since.  Each endpoint's last state event before since, then every
 * event since, in time order.
 */
static const char q_events[] =
    "SELECT e.name, t.kind, t.detail, t.at FROM endpoint_events t"
    " JOIN endpoints e ON e.id = t.endpoint_id"
    " WHERE e.chain_id = ?1 AND e.configured = 1 AND (t.at >= ?2 OR t.id ="
    "  (SELECT id FROM endpoint_events WHERE endpoint_id = e.id AND"
    "   at < ?2 AND kind IN ('closed', 'open', 'half-open', 'quarantined',"
    "   'released') ORDER BY at DESC, id DESC LIMIT 1))"
    " ORDER BY t.at, t.id";
/* ?2, ?3: since, until; the block below the first is read too. */
static const char q_blocks[] =
    "SELECT b.timestamp, b.difficulty_f, p.timestamp FROM blocks b"
    " JOIN blocks p ON p.chain_id = b.chain_id AND p.canonical = 1 AND"
    "  p.number = b.number - 1"
    " WHERE b.chain_id = ?1 AND b.canonical = 1 AND b.timestamp >= ?2 AND"
    "  b.timestamp < ?3 AND p.timestamp IS NOT NULL";
static const char q_reorgs[] =
    "SELECT r.at, r.depth, r.ancestor_number, r.old_tip, r.new_tip, e.name"
    " FROM reorgs r LEFT JOIN endpoints e ON e.id = r.endpoint_id"
    " WHERE r.chain_id = ?1 ORDER BY r.at DESC, r.id DESC LIMIT ?2";

void
view_events_free(struct view_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(ev[i].endpoint);
		free(ev[i].kind);
		free(ev[i].detail);
	}
	free(ev);
}

int
view_events_load(struct view_db *c, const struct view_chain *ch,
    int64_t since, struct view_event **out, size_t *n)
{
	sqlite3_stmt		*st;
	struct view_event	*e;
	int			 rc;

	*out = NULL;
	*n = 0;
	if (view_db_prepare(c, "reading endpoint events", q_events, &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, ch->id);
	sqlite3_bind_int64(st, 2, since);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		e = &(*out)[(*n)++];
		e->endpoint = view_col_dup(st, 0);
		e->kind = view_col_dup(st, 1);
		e->detail = view_col_dup(st, 2);
		e->at = sqlite3_column_int64(st, 3);
		if (e->endpoint == NULL)
			e->endpoint = xstrdup("");
		if (e->kind == NULL)
			e->kind = xstrdup("");
	}
	if (view_db_finish(c, "reading endpoint events", st,
	    rc == SQLITE_DONE) == -1)
		return CW_EXIT_SYSTEM;
	return CW_EXIT_OK;
}

int
view_buckets_load(struct view_db *c, const struct view_chain *ch,
    int64_t since, int64_t until, struct view_bucket *out, size_t n)
{
	sqlite3_stmt	*st;
	int64_t		 width, ts, prev;
	size_t		 i;
	int		 rc;

	if (n == 0 || until <= since)
		return CW_EXIT_OK;
	width = (until - since + (int64_t)n - 1) / (int64_t)n;
	for (i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].start = since + (int64_t)i * width;
	}
	if (view_db_prepare(c, "reading blocks", q_blocks, &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, ch->id);
	sqlite3_bind_int64(st, 2, since);
	sqlite3_bind_int64(st, 3, until);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ts = sqlite3_column_int64(st, 0);
		prev = sqlite3_column_int64(st, 2);
		i = (size_t)((ts - since) / width);
		if (i >= n)
			continue;
		out[i].blocks++;
		out[i].difficulty += sqlite3_column_double(st, 1);
		/* A clock that stepped back counts as no time. */
		out[i].time_ms += ts > prev ? ts - prev : 0;
	}
	if (view_db_finish(c, "reading blocks", st, rc == SQLITE_DONE) == -1)
		return CW_EXIT_SYSTEM;
	return CW_EXIT_OK;
}

static char *
col_hash(sqlite3_stmt *st, int col)
{
	char	*s;
	int	 len = sqlite3_column_bytes(st, col);

	s = xmalloc(2 * (size_t)len + 3);
	hex_encode(sqlite3_column_blob(st, col), (size_t)len, s);
	return s;
}

void
view_reorgs_free(struct view_reorg *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].old_tip);
		free(r[i].new_tip);
		free(r[i].seen_by);
	}
	free(r);
}

int
view_reorgs_load(struct view_db *c, const struct view_chain *ch, int64_t max,
    struct view_reorg **out, size_t *n)
{
	sqlite3_stmt		*st;
	struct view_reorg	*r;
	int			 rc;

	*out = NULL;
	*n = 0;
	if (view_db_prepare(c, "reading reorgs", q_reorgs, &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, ch->id);
	sqlite3_bind_int64(st, 2, max);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		r = &(*out)[(*n)++];
		r->at = sqlite3_column_int64(st, 0);
		r->depth = sqlite3_column_int64(st, 1);
		r->ancestor_number = sqlite3_column_int64(st, 2);
		r->old_tip = col_hash(st, 3);
		r->new_tip = col_hash(st, 4);
		r->seen_by = view_col_dup(st, 5);
	}
	if (view_db_finish(c, "reading reorgs", st, rc == SQLITE_DONE) == -1)
		return CW_EXIT_SYSTEM;
	return CW_EXIT_OK;
}

json_t *
view_reorgs_json(const struct view_chain *ch, const struct view_reorg *r,
    size_t n, json_t *running)
{
	json_t	*root = json_object(), *arr = json_array(), *o;
	size_t	 i;

	view_jhead(root, ch, running);
	for (i = 0; i < n; i++) {
		o = json_object();
		view_jtime(o, "at", 1, r[i].at);
		json_object_set_new(o, "depth", json_integer(r[i].depth));
		json_object_set_new(o, "ancestor_number",
		    json_integer(r[i].ancestor_number));
		json_object_set_new(o, "old_tip", view_jstr(r[i].old_tip));
		json_object_set_new(o, "new_tip", view_jstr(r[i].new_tip));
		json_object_set_new(o, "seen_by", view_jstr(r[i].seen_by));
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "reorgs", arr);
	return root;
}
