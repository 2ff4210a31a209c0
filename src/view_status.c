/*
 * Each chain's status, ok, degraded, stalled or unreachable, judged from
 * the heads and the endpoint states that chainwatchd stores, with which
 * endpoints are down, inconsistent, behind or stuck, why and since when,
 * and the split on record; and the same as JSON.  A chain whose endpoints
 * are all inconsistent or down is stalled when any is inconsistent: they
 * answer, nobody is believed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util.h"
#include "view.h"

#define STALL_BLOCKS	10	/* block times without a head: stalled */
/* How long a worker's hang or death is shown, in ms. */
#define TROUBLE_SHOWN	(15 * 60 * 1000)

static const char *const status_name[] = {
	[VIEW_STATUS_OK] = "ok",
	[VIEW_STATUS_DEGRADED] = "degraded",
	[VIEW_STATUS_STALLED] = "stalled",
	[VIEW_STATUS_UNREACHABLE] = "unreachable",
};

const char *
view_status_name(enum view_status st)
{
	return status_name[st];
}

static const char *const lag_name[] = {
	[VIEW_LAG_UNKNOWN] = NULL,
	[VIEW_LAG_OK] = "ok",
	[VIEW_LAG_BEHIND] = "behind",
	[VIEW_LAG_STUCK] = "stuck",
};

const char *
view_lag_name(enum view_lag l)
{
	return lag_name[l];
}

void
view_lag_text(enum view_lag l, int64_t blocks, int64_t best, int64_t since,
    int64_t now, char *out, size_t outlen)
{
	char	span[32];

	view_age(now - since, span, sizeof(span));
	if (l == VIEW_LAG_STUCK)
		snprintf(out, outlen, "stuck at #%lld: no new head for %s "
		    "while the chain went on", (long long)best, span);
	else if (l == VIEW_LAG_BEHIND)
		snprintf(out, outlen, "behind: %lld blocks below the best for "
		    "%s", (long long)blocks, span);
	else
		snprintf(out, outlen, "%s", l == VIEW_LAG_OK ? "keeps up" : "");
}

static int64_t
max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

enum view_lag
view_lag_judge(const struct view_chain *ch, int64_t highest,
    int64_t block_time, const struct view_head *h, int64_t now,
    int64_t *blocks, int64_t *since)
{
	int64_t	 behind, passed, top;

	*blocks = 0;
	*since = 0;
	if (!h->has_best || !ch->has_best)
		return VIEW_LAG_UNKNOWN;
	top = highest >= 0 && highest < ch->best_number ? highest :
	    ch->best_number;
	if ((behind = top - h->best_number) <= 0)
		return VIEW_LAG_OK;
	*blocks = behind;
	/*
	 * When the chain went past its head: the block above it was first
	 * seen then.  Not stored (a gap, a store from before the backfill):
	 * a block time a block, as if the endpoint fell behind at its pace.
	 */
	passed = h->has_passed ? h->passed_at : now - behind * block_time;
	if (h->has_head_at && now - h->head_at >=
	    max64(VIEW_STUCK_TIMES * block_time, VIEW_LAG_MIN_MS) &&
	    now - passed >= VIEW_LAG_MIN_MS) {
		*since = h->head_at;
		return VIEW_LAG_STUCK;
	}
	if (behind >= VIEW_BEHIND_BLOCKS && now - passed >=
	    max64(VIEW_BEHIND_TIMES * block_time, VIEW_LAG_MIN_MS)) {
		*since = passed;
		return VIEW_LAG_BEHIND;
	}
	return VIEW_LAG_OK;
}

static void
split_free(struct view_split *sp)
{
	if (sp == NULL)
		return;
	for (size_t k = 0; k < sp->n_sides; k++) {
		free(sp->sides[k].endpoint);
		free(sp->sides[k].tip_hash);
		free(sp->sides[k].work);
	}
	free(sp->sides);
	free(sp->ancestor_hash);
	free(sp);
}

static void
verdict_free(struct view_verdict *s)
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
	free(s->slow);
	free(s->unproven);
	free(s->rule_doubt);
	free(s->retarget);
	split_free(s->split);
}

/* ?2: since when a worker's hang or death is shown. */
static const char q_endpoints[] =
    "SELECT name, state, state_since, state_reason, pruning_bound, t.kind,"
    "  t.detail, t.at, e.best_number, " VIEW_SQL_HEAD_AT ", "
    VIEW_SQL_PASSED_AT
    " FROM endpoints e LEFT JOIN endpoint_events t ON t.id ="
    "  (SELECT id FROM endpoint_events WHERE endpoint_id = e.id AND"
    "   kind IN ('hung', 'died') AND at >= ?2 ORDER BY at DESC LIMIT 1)"
    " WHERE e.chain_id = ?1 AND configured = 1 ORDER BY position, name";
/*
 * The split the daemon recorded last, if it has not ended; its sides, by
 * branch.  The daemon records a split once it lasted (forks.h), so a
 * one-block race between endpoints is not one.
 */
static const char q_split[] =
    "SELECT id, first_seen, last_seen, branches, ancestor_number"
    " FROM splits WHERE chain_id = ?1 AND ended IS NULL"
    " AND id = (SELECT id FROM splits WHERE chain_id = ?1"
    "  ORDER BY first_seen DESC, id DESC LIMIT 1)";
static const char q_sides[] =
    "SELECT e.name, d.branch, d.tip_number FROM split_sides d"
    " JOIN endpoints e ON e.id = d.endpoint_id"
    " WHERE d.split_id = ?1 ORDER BY d.branch, e.position, e.name";

static int
split_load(struct view_db *c, const struct view_chain *ch,
    struct view_verdict *s)
{
	sqlite3_stmt		*st;
	struct view_split	*sp;
	struct view_split_side	*d;
	int			 rc;

	if (view_db_prepare(c, "reading splits", q_split, &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, ch->id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sp = s->split = xcalloc(1, sizeof(*sp));
		sp->id = sqlite3_column_int64(st, 0);
		sp->first_seen = sqlite3_column_int64(st, 1);
		sp->last_seen = sqlite3_column_int64(st, 2);
		sp->branches = sqlite3_column_int64(st, 3);
		sp->has_ancestor = view_col_int(st, 4, &sp->ancestor_number);
	}
	if (view_db_finish(c, "reading splits", st, rc == SQLITE_ROW ||
	    rc == SQLITE_DONE) == -1)
		return CW_EXIT_SYSTEM;
	if ((sp = s->split) == NULL)
		return CW_EXIT_OK;
	if (view_db_prepare(c, "reading split_sides", q_sides, &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, sp->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sp->sides = xrealloc(sp->sides, (sp->n_sides + 1) *
		    sizeof(*sp->sides));
		d = &sp->sides[sp->n_sides++];
		memset(d, 0, sizeof(*d));
		if ((d->endpoint = view_col_dup(st, 0)) == NULL)
			d->endpoint = xstrdup("?");
		d->branch = sqlite3_column_int64(st, 1);
		d->tip_number = sqlite3_column_int64(st, 2);
	}
	if (view_db_finish(c, "reading split_sides", st,
	    rc == SQLITE_DONE) == -1)
		return CW_EXIT_SYSTEM;
	return CW_EXIT_OK;
}

static int
verdict_load(struct view_db *c, const struct view_chain *ch,
    struct view_verdict *s)
{
	sqlite3_stmt		*st;
	struct view_endpoint	*e;
	int			 rc;

	memset(s, 0, sizeof(*s));
	s->ch = ch;
	if (view_db_prepare(c, "reading chains", "SELECT block_time, "
	    "slow_reason, slow_since, unproven_reason, unproven_since, "
	    "rule_doubt, rule_doubt_since, retarget FROM chains WHERE id = ?1",
	    &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, ch->id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		s->block_time = sqlite3_column_int64(st, 0);
		s->slow = view_col_dup(st, 1);
		s->has_slow_since = view_col_int(st, 2, &s->slow_since);
		s->unproven = view_col_dup(st, 3);
		s->has_unproven_since = view_col_int(st, 4,
		    &s->unproven_since);
		s->rule_doubt = view_col_dup(st, 5);
		s->has_rule_doubt_since = view_col_int(st, 6,
		    &s->rule_doubt_since);
		s->retarget = view_col_dup(st, 7);
	}
	if (view_db_finish(c, "reading chains", st, rc == SQLITE_ROW) == -1)
		return CW_EXIT_SYSTEM;

	/* Canonical blocks whose seal fails (a partial index counts them). */
	if (view_db_prepare(c, "reading blocks", "SELECT count(*) FROM blocks "
	    "INDEXED BY blocks_unproven WHERE chain_id = ?1 AND canonical = 1 "
	    "AND proven = 0", &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, ch->id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		s->unproven_blocks = sqlite3_column_int64(st, 0);
	if (view_db_finish(c, "reading blocks", st, rc == SQLITE_ROW) == -1)
		return CW_EXIT_SYSTEM;

	/* Endpoints no longer configured are history, not health. */
	if (view_db_prepare(c, "reading endpoints", q_endpoints, &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, ch->id);
	sqlite3_bind_int64(st, 2, (int64_t)now_wall_ms() - TROUBLE_SHOWN);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		s->eps = xrealloc(s->eps, (s->n_eps + 1) * sizeof(*s->eps));
		e = &s->eps[s->n_eps++];
		memset(e, 0, sizeof(*e));
		e->name = view_col_dup(st, 0);
		if (e->name == NULL)
			e->name = xstrdup("?");
		e->state = view_col_dup(st, 1);
		if (e->state == NULL)
			e->state = xstrdup("unknown");
		e->has_since = view_col_int(st, 2, &e->since);
		e->reason = view_col_dup(st, 3);
		if (e->reason != NULL && e->reason[0] == '\0') {
			free(e->reason);
			e->reason = NULL;
		}
		e->has_bound = view_col_int(st, 4, &e->pruning_bound);
		e->trouble_kind = view_col_dup(st, 5);
		e->trouble_detail = view_col_dup(st, 6);
		e->trouble_at = sqlite3_column_int64(st, 7);
		e->head.has_best = view_col_int(st, 8, &e->head.best_number);
		e->head.has_head_at = view_col_int(st, 9, &e->head.head_at);
		e->head.has_passed = view_col_int(st, 10, &e->head.passed_at);
		e->down = strcmp(e->state, "open") == 0 ||
		    strcmp(e->state, "half-open") == 0 ||
		    strcmp(e->state, "down") == 0 ||
		    strcmp(e->state, "quarantined") == 0;
		e->doubted = strcmp(e->state, "inconsistent") == 0;
		e->mute = strcmp(e->state, "unresponsive") == 0;
		s->n_down += e->down;
		s->n_doubted += e->doubted;
		s->n_mute += e->mute;
	}
	if (view_db_finish(c, "reading endpoints", st, rc == SQLITE_DONE) == -1)
		return CW_EXIT_SYSTEM;
	return split_load(c, ch, s);
}

/*
 * Each endpoint's lag as of now; those that are not down, doubted or mute
 * count (an endpoint that is down is behind too, and says more).
 */
static void
verdict_lags(struct view_verdict *s, int64_t now)
{
	struct view_endpoint	*e;
	int64_t			 highest = -1;

	for (size_t i = 0; i < s->n_eps; i++)
		if (s->eps[i].head.has_best &&
		    s->eps[i].head.best_number > highest)
			highest = s->eps[i].head.best_number;
	for (size_t i = 0; i < s->n_eps; i++) {
		e = &s->eps[i];
		e->lag = view_lag_judge(s->ch, highest, s->block_time,
		    &e->head, now, &e->lag_blocks, &e->lag_since);
		e->lagging = !e->down && !e->doubted && !e->mute &&
		    (e->lag == VIEW_LAG_BEHIND || e->lag == VIEW_LAG_STUCK);
		if (e->lagging && e->lag == VIEW_LAG_STUCK)
			s->n_stuck++;
		else if (e->lagging)
			s->n_behind++;
	}
}

/*
 * "split for 73 s: d1, d3 at #65 / d2 at #57": the recorded split's
 * sides, branch by branch, each at its highest tip.
 */
static void
split_line(const struct view_split *sp, int64_t now, char *out,
    size_t outlen)
{
	char	 a[VIEW_AGE_LEN];
	size_t	 len, k, j;
	int64_t	 top;

	view_age(now - sp->first_seen, a, sizeof(a));
	len = (size_t)snprintf(out, outlen, "split for %s", a);
	for (k = 0; k < sp->n_sides && len < outlen; k = j) {
		top = sp->sides[k].tip_number;
		len += (size_t)snprintf(out + len, outlen - len, "%s%s",
		    k == 0 ? ": " : " / ", sp->sides[k].endpoint);
		for (j = k + 1; j < sp->n_sides &&
		    sp->sides[j].branch == sp->sides[k].branch &&
		    len < outlen; j++) {
			len += (size_t)snprintf(out + len, outlen - len, ", %s",
			    sp->sides[j].endpoint);
			if (sp->sides[j].tip_number > top)
				top = sp->sides[j].tip_number;
		}
		if (len < outlen)
			len += (size_t)snprintf(out + len, outlen - len,
			    " at #%lld", (long long)top);
	}
}

/* "1 of 3 endpoints unreachable, 1 unresponsive, 1 inconsistent" */
static void
trouble_line(const struct view_verdict *s, char *out, size_t outlen)
{
	const size_t	 n[] = { s->n_down, s->n_mute, s->n_doubted,
			    s->n_stuck, s->n_behind };
	const char	*what[] = { "unreachable", "unresponsive",
			    "inconsistent", "stuck", "behind" };
	size_t		 len = 0, i;
	int		 first = 1;

	out[0] = '\0';
	for (i = 0; i < nitems(n) && len < outlen; i++) {
		if (n[i] == 0)
			continue;
		if (first)
			len += (size_t)snprintf(out + len, outlen - len,
			    "%zu of %zu endpoint%s %s", n[i], s->n_eps,
			    s->n_eps == 1 ? "" : "s", what[i]);
		else
			len += (size_t)snprintf(out + len, outlen - len,
			    ", %zu %s", n[i], what[i]);
		first = 0;
	}
}

static void
verdict_judge(struct view_verdict *s, int64_t now)
{
	const struct view_chain	*ch = s->ch;
	char			 a[32], b[32], t[384];
	int			 fresh;

	verdict_lags(s, now);
	fresh = ch->has_updated &&
	    now - ch->updated_at <= STALL_BLOCKS * s->block_time;
	if (s->n_down + s->n_mute == s->n_eps) {
		s->status = VIEW_STATUS_UNREACHABLE;
		if (s->n_eps == 0)
			snprintf(s->headline, sizeof(s->headline),
			    "no endpoint configured");
		else
			trouble_line(s, s->headline, sizeof(s->headline));
	} else if (s->n_down + s->n_mute + s->n_doubted == s->n_eps) {
		/* They answer, but no one of them is believed. */
		s->status = VIEW_STATUS_STALLED;
		trouble_line(s, t, sizeof(t));
		snprintf(s->headline, sizeof(s->headline), "none believed: %s",
		    t);
	} else if (!fresh) {
		s->status = VIEW_STATUS_STALLED;
		if (!ch->has_updated)
			snprintf(s->headline, sizeof(s->headline),
			    "no head stored yet");
		else {
			view_age(now - ch->updated_at, a, sizeof(a));
			view_span(s->block_time, b, sizeof(b));
			snprintf(s->headline, sizeof(s->headline),
			    "no head stored for %s (block time %s)", a, b);
		}
	} else if (s->n_down > 0 || s->n_doubted > 0 || s->n_mute > 0 ||
	    s->n_behind > 0 || s->n_stuck > 0 || s->split != NULL ||
	    s->unproven != NULL || s->unproven_blocks > 0 ||
	    s->rule_doubt != NULL) {
		s->status = VIEW_STATUS_DEGRADED;
		trouble_line(s, s->headline, sizeof(s->headline));
		if (s->split != NULL) {
			split_line(s->split, now, t, sizeof(t));
			snprintf(s->headline + strlen(s->headline),
			    sizeof(s->headline) - strlen(s->headline), "%s%s",
			    s->headline[0] != '\0' ? "; " : "", t);
		}
		/* The seal rule in doubt: blocks followed, unproven. */
		if (s->unproven != NULL)
			snprintf(s->headline + strlen(s->headline),
			    sizeof(s->headline) - strlen(s->headline),
			    "%sunproven: %s", s->headline[0] != '\0' ? "; " :
			    "", s->unproven);
		else if (s->unproven_blocks > 0)
			snprintf(s->headline + strlen(s->headline),
			    sizeof(s->headline) - strlen(s->headline),
			    "%s%lld canonical block%s unproven: %s seal "
			    "fails the difficulty one endpoint answered",
			    s->headline[0] != '\0' ? "; " : "",
			    (long long)s->unproven_blocks,
			    s->unproven_blocks == 1 ? "" : "s",
			    s->unproven_blocks == 1 ? "its" : "their");
		/* A rule of state answers in doubt: this clock, or the rule. */
		if (s->rule_doubt != NULL)
			snprintf(s->headline + strlen(s->headline),
			    sizeof(s->headline) - strlen(s->headline),
			    "%srule in doubt: %s",
			    s->headline[0] != '\0' ? "; " : "", s->rule_doubt);
	} else if (s->slow != NULL) {
		/* Every endpoint as slow: nobody is singled out. */
		s->status = VIEW_STATUS_OK;
		snprintf(s->headline, sizeof(s->headline), "slow: %s", s->slow);
	} else {
		s->status = VIEW_STATUS_OK;
		snprintf(s->headline, sizeof(s->headline),
		    "%zu endpoint%s healthy", s->n_eps,
		    s->n_eps == 1 ? "" : "s");
	}
	/* Said whatever the status: difficulties only answered, not also
	 * recomputed. */
	if (s->retarget != NULL && strncmp(s->retarget, "not ", 4) == 0)
		snprintf(s->headline + strlen(s->headline),
		    sizeof(s->headline) - strlen(s->headline),
		    "%sdifficulties %s", s->headline[0] != '\0' ? "; " : "",
		    s->retarget);
}

static json_t *
jtime_iso(int has, int64_t ms)
{
	char	 iso[32];

	if (!has)
		return json_null();
	view_time_iso(ms, iso, sizeof(iso));
	return json_string(iso);
}

/* The open split, or null: since when, and who is on which branch. */
static json_t *
split_json(const struct view_split *sp)
{
	json_t	*o, *sides;

	if (sp == NULL)
		return json_null();
	o = json_object();
	json_object_set_new(o, "id", json_integer(sp->id));
	json_object_set_new(o, "since", json_integer(sp->first_seen));
	json_object_set_new(o, "since_iso", jtime_iso(1, sp->first_seen));
	json_object_set_new(o, "branches", json_integer(sp->branches));
	json_object_set_new(o, "ancestor_number", view_jint(sp->has_ancestor,
	    sp->ancestor_number));
	sides = json_array();
	for (size_t k = 0; k < sp->n_sides; k++)
		json_array_append_new(sides, json_pack("{s:o, s:I, s:I}",
		    "endpoint", view_jstr(sp->sides[k].endpoint),
		    "branch", (json_int_t)sp->sides[k].branch,
		    "tip_number", (json_int_t)sp->sides[k].tip_number));
	json_object_set_new(o, "sides", sides);
	return o;
}

static json_t *
verdict_json(const struct view_verdict *s)
{
	const struct view_chain		*ch = s->ch;
	const struct view_endpoint	*e;
	json_t				*o, *eps, *j;
	size_t				 i;

	o = json_object();
	json_object_set_new(o, "name", view_jstr(ch->name));
	json_object_set_new(o, "status",
	    json_string(view_status_name(s->status)));
	json_object_set_new(o, "message", view_jstr(s->headline));
	json_object_set_new(o, "best", view_jint(ch->has_best,
	    ch->best_number));
	json_object_set_new(o, "final", view_jint(ch->has_final,
	    ch->final_number));
	json_object_set_new(o, "updated_at", view_jint(ch->has_updated,
	    ch->updated_at));
	json_object_set_new(o, "updated_at_iso",
	    jtime_iso(ch->has_updated, ch->updated_at));
	json_object_set_new(o, "block_time", json_integer(s->block_time));
	json_object_set_new(o, "slow", view_jstr(s->slow));
	json_object_set_new(o, "slow_since", view_jint(s->has_slow_since,
	    s->slow_since));
	json_object_set_new(o, "unproven", view_jstr(s->unproven));
	json_object_set_new(o, "unproven_since", view_jint(
	    s->has_unproven_since, s->unproven_since));
	json_object_set_new(o, "unproven_blocks",
	    json_integer(s->unproven_blocks));
	json_object_set_new(o, "rule_doubt", view_jstr(s->rule_doubt));
	json_object_set_new(o, "rule_doubt_since", view_jint(
	    s->has_rule_doubt_since, s->rule_doubt_since));
	json_object_set_new(o, "retarget", view_jstr(s->retarget));
	json_object_set_new(o, "stale", json_boolean(
	    s->status == VIEW_STATUS_UNREACHABLE ||
	    s->status == VIEW_STATUS_STALLED));
	eps = json_array();
	for (i = 0; i < s->n_eps; i++) {
		e = &s->eps[i];
		j = json_object();
		json_object_set_new(j, "name", view_jstr(e->name));
		json_object_set_new(j, "state", view_jstr(e->state));
		json_object_set_new(j, "since", view_jint(e->has_since,
		    e->since));
		json_object_set_new(j, "since_iso",
		    jtime_iso(e->has_since, e->since));
		json_object_set_new(j, "reason", view_jstr(e->reason));
		json_object_set_new(j, "pruning_bound",
		    view_jint(e->has_bound, e->pruning_bound));
		if (e->trouble_kind != NULL) {
			json_t *t = json_object();

			json_object_set_new(t, "kind",
			    view_jstr(e->trouble_kind));
			json_object_set_new(t, "detail",
			    view_jstr(e->trouble_detail));
			json_object_set_new(t, "at", json_integer(
			    e->trouble_at));
			json_object_set_new(t, "at_iso", jtime_iso(1,
			    e->trouble_at));
			json_object_set_new(j, "worker_trouble", t);
		} else
			json_object_set_new(j, "worker_trouble", json_null());
		json_object_set_new(j, "best_number",
		    view_jint(e->head.has_best, e->head.best_number));
		json_object_set_new(j, "behind", view_jint(e->lag !=
		    VIEW_LAG_UNKNOWN, e->lag_blocks));
		json_object_set_new(j, "condition", view_jstr(
		    view_lag_name(e->lag)));
		json_object_set_new(j, "condition_since", view_jint(
		    e->lag_since != 0, e->lag_since));
		json_object_set_new(j, "condition_since_iso",
		    jtime_iso(e->lag_since != 0, e->lag_since));
		json_array_append_new(eps, j);
	}
	json_object_set_new(o, "endpoints", eps);
	json_object_set_new(o, "split", split_json(s->split));
	return o;
}

int
view_status_judge(struct view_db *c, const char *name,
    struct view_chain **chainsp, size_t *nchains, struct view_verdict **out,
    size_t *n)
{
	struct view_chain	*chains;
	const struct view_chain	*ch;
	struct view_verdict	*ss;
	size_t			 nc, i, shown = 0;
	int64_t			 now = (int64_t)now_wall_ms();
	int			 rc;

	*out = NULL;
	*n = 0;
	if ((rc = view_chains_begin(c, name, &chains, &nc, &ch)) !=
	    CW_EXIT_OK)
		return rc;
	ss = xcalloc(nc > 0 ? nc : 1, sizeof(*ss));
	for (i = 0; i < nc && rc == CW_EXIT_OK; i++) {
		if (ch != NULL && &chains[i] != ch)
			continue;
		rc = verdict_load(c, &chains[i], &ss[shown]);
		shown++;
	}
	view_db_end(c);
	for (i = 0; i < shown && rc == CW_EXIT_OK; i++)
		verdict_judge(&ss[i], now);
	if (rc != CW_EXIT_OK) {
		for (i = 0; i < shown; i++)
			verdict_free(&ss[i]);
		free(ss);
		view_chains_free(chains, nc);
		return rc;
	}
	*chainsp = chains;
	*nchains = nc;
	*out = ss;
	*n = shown;
	return CW_EXIT_OK;
}

void
view_verdicts_free(struct view_verdict *ss, size_t n,
    struct view_chain *chains, size_t nchains)
{
	for (size_t i = 0; i < n; i++)
		verdict_free(&ss[i]);
	free(ss);
	view_chains_free(chains, nchains);
}

int
view_status_json(struct view_db *c, const char *name, json_t **out)
{
	struct view_chain	*chains;
	struct view_verdict	*ss;
	size_t			 n, nc;
	json_t			*arr;
	int			 rc;

	*out = NULL;
	if ((rc = view_status_judge(c, name, &chains, &nc, &ss, &n)) !=
	    CW_EXIT_OK)
		return rc;
	arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, verdict_json(&ss[i]));
	*out = json_object();
	json_object_set_new(*out, "chains", arr);
	view_verdicts_free(ss, n, chains, nc);
	return CW_EXIT_OK;
}

