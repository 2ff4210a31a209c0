/*
 * chainwatch queue: the durable catch-up queue per chain and kind of
 * item, what is due now and what waits out a backoff, and the last items
 * that failed, with why and on which endpoint.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cli_fmt.h"
#include "util.h"

#define FAILING_SHOWN	5	/* the last failing items shown per chain */

enum { KIND_HEADERS, KIND_PARENT, KIND_STATE, KIND_RUNTIME, NKINDS };

static const char *const kind_name[NKINDS] = {
	[KIND_HEADERS] = "headers",
	[KIND_PARENT] = "parent",
	[KIND_STATE] = "state",
	[KIND_RUNTIME] = "runtime",
};

struct qkind {
	int64_t		 pending, leased, blocks, due, waiting;
	int		 has_items;
	int64_t		 max_attempts, oldest;
};

struct qfail {
	int64_t		 id;
	char		*kind, *state, *hash, *outcome, *error;
	char		*endpoint, *lease_endpoint;
	int		 has_range, has_number, has_deadline;
	int64_t		 from, to, number, attempts, next_attempt;
	int64_t		 lease_deadline, created_at;
};

struct qchain {
	const struct view_chain *ch;
	struct qkind	 k[NKINDS];
	int64_t		 items, pending, leased, blocks, failing;
	struct qfail	*fail;
	size_t		 nfail;
};

static void
qchain_free(struct qchain *q)
{
	size_t	 i;

	for (i = 0; i < q->nfail; i++) {
		free(q->fail[i].kind);
		free(q->fail[i].state);
		free(q->fail[i].hash);
		free(q->fail[i].outcome);
		free(q->fail[i].error);
		free(q->fail[i].endpoint);
		free(q->fail[i].lease_endpoint);
	}
	free(q->fail);
}

/* ?2: now, to tell the items due from those waiting out a backoff. */
static const char q_kinds[] =
    "SELECT kind, sum(state = 'pending'), sum(state = 'leased'),"
    "  sum(CASE WHEN range_from IS NOT NULL"
    "    THEN range_to - range_from + 1 ELSE 1 END),"
    "  sum(state = 'pending' AND next_attempt <= ?2),"
    "  sum(state = 'pending' AND next_attempt > ?2), max(attempts),"
    "  min(created_at)"
    " FROM queue WHERE chain_id = ?1 GROUP BY kind";
static const char q_failing[] =
    "SELECT count(*) FROM queue WHERE chain_id = ?1 AND"
    "  (last_outcome IS NOT NULL OR last_error IS NOT NULL)";
/* ?2: how many. */
static const char q_failed[] =
    "SELECT q.id, q.kind, q.state, q.range_from, q.range_to,"
    "  '0x' || lower(hex(q.block_hash)), q.block_number, q.attempts,"
    "  q.next_attempt, q.last_outcome, q.last_error, e.name, l.name,"
    "  q.lease_deadline, q.created_at"
    " FROM queue q LEFT JOIN endpoints e ON e.id = q.last_endpoint_id"
    " LEFT JOIN endpoints l ON l.id = q.lease_endpoint_id"
    " WHERE q.chain_id = ?1 AND"
    "  (q.last_outcome IS NOT NULL OR q.last_error IS NOT NULL)"
    " ORDER BY q.next_attempt DESC, q.id DESC LIMIT ?2";

static int
qkinds_load(struct view_db *c, struct qchain *q, int64_t now)
{
	sqlite3_stmt	*st;
	struct qkind	*k;
	const char	*name;
	int		 rc, i;

	if (view_db_prepare(c, "reading the queue", q_kinds, &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, q->ch->id);
	sqlite3_bind_int64(st, 2, now);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		name = (const char *)sqlite3_column_text(st, 0);
		for (i = 0; i < NKINDS; i++)
			if (name != NULL && strcmp(name, kind_name[i]) == 0)
				break;
		if (i == NKINDS)
			continue;	/* the schema allows no other */
		k = &q->k[i];
		k->has_items = 1;
		k->pending = sqlite3_column_int64(st, 1);
		k->leased = sqlite3_column_int64(st, 2);
		k->blocks = sqlite3_column_int64(st, 3);
		k->due = sqlite3_column_int64(st, 4);
		k->waiting = sqlite3_column_int64(st, 5);
		k->max_attempts = sqlite3_column_int64(st, 6);
		k->oldest = sqlite3_column_int64(st, 7);
		q->pending += k->pending;
		q->leased += k->leased;
		q->blocks += k->blocks;
	}
	if (view_db_finish(c, "reading the queue", st, rc == SQLITE_DONE) == -1)
		return CW_EXIT_SYSTEM;
	q->items = q->pending + q->leased;
	return CW_EXIT_OK;
}

/*
 * Items that failed at least once, latest first: a failure pushes an
 * item's next attempt out by its backoff from the time it failed.
 */
static int
qfail_load(struct view_db *c, struct qchain *q)
{
	sqlite3_stmt	*st;
	struct qfail	*f;
	int		 rc;

	if (view_db_prepare(c, "reading the queue", q_failing, &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, q->ch->id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		q->failing = sqlite3_column_int64(st, 0);
	if (view_db_finish(c, "reading the queue", st, rc == SQLITE_ROW) == -1)
		return CW_EXIT_SYSTEM;

	if (view_db_prepare(c, "reading the queue", q_failed, &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, q->ch->id);
	sqlite3_bind_int(st, 2, FAILING_SHOWN);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		q->fail = xrealloc(q->fail, (q->nfail + 1) * sizeof(*q->fail));
		f = &q->fail[q->nfail++];
		memset(f, 0, sizeof(*f));
		f->id = sqlite3_column_int64(st, 0);
		if ((f->kind = view_col_dup(st, 1)) == NULL)
			f->kind = xstrdup("?");
		if ((f->state = view_col_dup(st, 2)) == NULL)
			f->state = xstrdup("?");
		f->has_range = view_col_int(st, 3, &f->from) &
		    view_col_int(st, 4, &f->to);
		if (sqlite3_column_type(st, 5) != SQLITE_NULL &&
		    sqlite3_column_bytes(st, 5) > 2)
			f->hash = view_col_dup(st, 5);
		f->has_number = view_col_int(st, 6, &f->number);
		f->attempts = sqlite3_column_int64(st, 7);
		f->next_attempt = sqlite3_column_int64(st, 8);
		f->outcome = view_col_dup(st, 9);
		f->error = view_col_dup(st, 10);
		f->endpoint = view_col_dup(st, 11);
		f->lease_endpoint = view_col_dup(st, 12);
		f->has_deadline = view_col_int(st, 13, &f->lease_deadline);
		f->created_at = sqlite3_column_int64(st, 14);
	}
	if (view_db_finish(c, "reading the queue", st, rc == SQLITE_DONE) == -1)
		return CW_EXIT_SYSTEM;
	return CW_EXIT_OK;
}

/* "1200-1263", "#1234", or the hash when the number is not known. */
static void
qfail_what(const struct qfail *f, char *out, size_t outlen)
{
	char	 h[16];

	if (f->has_range && f->from == f->to)
		snprintf(out, outlen, "#%lld", (long long)f->from);
	else if (f->has_range)
		snprintf(out, outlen, "%lld-%lld", (long long)f->from,
		    (long long)f->to);
	else if (f->has_number)
		snprintf(out, outlen, "#%lld", (long long)f->number);
	else if (f->hash != NULL) {
		cli_hash_short(f->hash, h, sizeof(h));
		snprintf(out, outlen, "%s", h);
	} else
		snprintf(out, outlen, "-");
}

static void
print_chain(const struct qchain *q, int64_t now)
{
	struct cli_table	 t;
	const struct qkind	*k;
	const struct qfail	*f;
	char			 a[VIEW_AGE_LEN], what[64];
	size_t			 i;

	if (q->items == 0) {
		printf("%s: nothing queued\n", q->ch->name);
		return;
	}
	printf("%s: %lld item%s (%lld pending, %lld leased), %lld block%s\n",
	    q->ch->name, (long long)q->items, q->items == 1 ? "" : "s",
	    (long long)q->pending, (long long)q->leased, (long long)q->blocks,
	    q->blocks == 1 ? "" : "s");
	cli_table_init(&t, "lrrrrrrl", 2, 2);
	cli_table_head(&t, "kind", "pending", "leased", "blocks", "due",
	    "waiting", "attempts", "oldest", NULL);
	for (i = 0; i < NKINDS; i++) {
		k = &q->k[i];
		cli_table_cell(&t, "%s", kind_name[i]);
		cli_table_cell(&t, "%lld", (long long)k->pending);
		cli_table_cell(&t, "%lld", (long long)k->leased);
		cli_table_cell(&t, "%lld", (long long)k->blocks);
		cli_table_cell(&t, "%lld", (long long)k->due);
		cli_table_cell(&t, "%lld", (long long)k->waiting);
		if (k->has_items) {
			cli_table_cell(&t, "%lld", (long long)k->max_attempts);
			view_ago(now - k->oldest, a, sizeof(a));
			cli_table_cell(&t, "%s", a);
		} else {
			cli_table_cell(&t, "-");
			cli_table_cell(&t, "-");
		}
	}
	cli_table_print(&t);
	cli_table_free(&t);
	if (q->nfail == 0)
		return;

	putchar('\n');
	if ((int64_t)q->nfail < q->failing)
		printf("  %lld items failed; the last %zu:\n",
		    (long long)q->failing, q->nfail);
	else
		printf("  %lld item%s failed:\n", (long long)q->failing,
		    q->failing == 1 ? "" : "s");
	cli_table_init(&t, "llrlll", 2, 2);
	cli_table_head(&t, "kind", "blocks", "tries", "outcome", "endpoint",
	    "next", NULL);
	for (i = 0; i < q->nfail; i++) {
		f = &q->fail[i];
		qfail_what(f, what, sizeof(what));
		cli_table_cell(&t, "%s", f->kind);
		cli_table_cell(&t, "%s", what);
		cli_table_cell(&t, "%lld", (long long)f->attempts);
		cli_table_cell(&t, "%s", f->outcome != NULL ? f->outcome : "-");
		cli_name_short(f->endpoint != NULL ? f->endpoint : "-", what,
		    sizeof(what));
		cli_table_cell(&t, "%s", what);
		/* In flight again: to whom, --json tells. */
		if (strcmp(f->state, "leased") == 0)
			cli_table_cell(&t, "leased");
		else if (f->next_attempt <= now)
			cli_table_cell(&t, "due");
		else {
			cli_age(f->next_attempt - now, a, sizeof(a));
			cli_table_cell(&t, "in %s", a);
		}
		if (f->error != NULL && f->error[0] != '\0')
			cli_table_wrap(&t, 6, f->error);
	}
	cli_table_print(&t);
	cli_table_free(&t);
}

static json_t *
qchain_json(const struct qchain *q)
{
	const struct qkind	*k;
	const struct qfail	*f;
	json_t			*o, *arr, *j;
	size_t			 i;

	o = json_object();
	json_object_set_new(o, "chain", view_jstr(q->ch->name));
	json_object_set_new(o, "items", json_integer(q->items));
	json_object_set_new(o, "pending", json_integer(q->pending));
	json_object_set_new(o, "leased", json_integer(q->leased));
	json_object_set_new(o, "blocks", json_integer(q->blocks));
	arr = json_array();
	for (i = 0; i < NKINDS; i++) {
		k = &q->k[i];
		j = json_object();
		json_object_set_new(j, "kind", json_string(kind_name[i]));
		json_object_set_new(j, "pending", json_integer(k->pending));
		json_object_set_new(j, "leased", json_integer(k->leased));
		json_object_set_new(j, "blocks", json_integer(k->blocks));
		json_object_set_new(j, "due", json_integer(k->due));
		json_object_set_new(j, "waiting", json_integer(k->waiting));
		json_object_set_new(j, "max_attempts",
		    view_jint(k->has_items, k->max_attempts));
		view_jtime(j, "oldest", k->has_items, k->oldest);
		json_array_append_new(arr, j);
	}
	json_object_set_new(o, "kinds", arr);
	json_object_set_new(o, "failing", json_integer(q->failing));
	arr = json_array();
	for (i = 0; i < q->nfail; i++) {
		f = &q->fail[i];
		j = json_object();
		json_object_set_new(j, "id", json_integer(f->id));
		json_object_set_new(j, "kind", view_jstr(f->kind));
		json_object_set_new(j, "state", view_jstr(f->state));
		json_object_set_new(j, "range_from",
		    view_jint(f->has_range, f->from));
		json_object_set_new(j, "range_to",
		    view_jint(f->has_range, f->to));
		json_object_set_new(j, "block_number",
		    view_jint(f->has_number, f->number));
		json_object_set_new(j, "block_hash", view_jstr(f->hash));
		json_object_set_new(j, "attempts", json_integer(f->attempts));
		json_object_set_new(j, "last_outcome", view_jstr(f->outcome));
		json_object_set_new(j, "last_error", view_jstr(f->error));
		json_object_set_new(j, "last_endpoint", view_jstr(f->endpoint));
		json_object_set_new(j, "lease_endpoint",
		    view_jstr(f->lease_endpoint));
		view_jtime(j, "lease_deadline", f->has_deadline,
		    f->lease_deadline);
		view_jtime(j, "next_attempt", 1, f->next_attempt);
		view_jtime(j, "created_at", 1, f->created_at);
		json_array_append_new(arr, j);
	}
	json_object_set_new(o, "last_failed", arr);
	return o;
}

int
cli_queue(struct view_db *c, const struct cli_opts *o)
{
	struct view_chain	*chains;
	const struct view_chain	*ch;
	struct qchain		*q;
	json_t			*arr;
	int64_t			 now = (int64_t)now_wall_ms();
	size_t			 nc, i, n = 0;
	int			 rc, running;

	if ((rc = view_chains_begin(c, o->chain, &chains, &nc, &ch)) !=
	    CW_EXIT_OK)
		return rc;
	q = xcalloc(nc > 0 ? nc : 1, sizeof(*q));
	for (i = 0; i < nc && rc == CW_EXIT_OK; i++) {
		if (ch != NULL && &chains[i] != ch)
			continue;
		q[n].ch = &chains[i];
		if ((rc = qkinds_load(c, &q[n], now)) == CW_EXIT_OK)
			rc = qfail_load(c, &q[n]);
		n++;
	}
	running = rc == CW_EXIT_OK ? cli_daemon_note(c) : -1;
	view_db_end(c);

	if (rc == CW_EXIT_OK && o->json) {
		arr = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(arr, qchain_json(&q[i]));
		cli_json_list(running, "chains", arr);
	} else if (rc == CW_EXIT_OK) {
		if (n == 0)
			printf("no chains stored yet\n");
		for (i = 0; i < n; i++) {
			if (i > 0)
				putchar('\n');
			print_chain(&q[i], now);
		}
	}
	for (i = 0; i < n; i++)
		qchain_free(&q[i]);
	free(q);
	view_chains_free(chains, nc);
	return rc;
}
