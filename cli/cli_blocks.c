/*
 * chainwatch blocks: the blocks of the last heights of one chain, newest
 * first, with the blocks that lost a reorganisation beside the canonical
 * one of their height, so that a reorg can be read off the table.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cli_fmt.h"
#include "hex.h"
#include "u512.h"
#include "util.h"


struct blk {
	int64_t		 number;
	char		*hash, *parent;	/* "0x" + 64 digits */
	char		*miner;		/* SS58, "unknown" or hex */
	char		*account;	/* hex, NULL for no miner */
	char		*endpoint;	/* that brought it first */
	int		 canonical, final, runtime_updated;
	int		 has_difficulty, has_ts, has_state_at;
	struct u512	 difficulty;
	int64_t		 ts, first_seen, state_at;
};

struct blks {
	struct blk	*v;
	size_t		 n, heights, reorged;
};

/* Heights, not rows: every block of the last N numbers stored. */
static const char q_blocks[] =
    "SELECT '0x' || lower(hex(b.hash)), b.number,"
    "  '0x' || lower(hex(b.parent)), b.miner, m.ss58, b.difficulty,"
    "  b.timestamp, b.canonical, b.final, b.runtime_updated, e.name,"
    "  b.first_seen, b.state_at"
    " FROM blocks b"
    " LEFT JOIN miners m ON m.account = coalesce(b.miner, x'')"
    " LEFT JOIN endpoints e ON e.id = b.first_endpoint_id"
    " WHERE b.chain_id = ?1 AND b.number IN (SELECT DISTINCT number"
    "   FROM blocks WHERE chain_id = ?1 ORDER BY number DESC LIMIT ?2)"
    " ORDER BY b.number DESC, b.canonical DESC, b.first_seen, b.hash";

static void
blks_free(struct blks *b)
{
	size_t	 i;

	for (i = 0; i < b->n; i++) {
		free(b->v[i].hash);
		free(b->v[i].parent);
		free(b->v[i].miner);
		free(b->v[i].account);
		free(b->v[i].endpoint);
	}
	free(b->v);
}

static void
blk_miner(struct blk *p, sqlite3_stmt *st)
{
	char	 hex[2 * CLI_ACCOUNT_MAX + 3];
	size_t	 len;

	if (sqlite3_column_type(st, 3) == SQLITE_BLOB &&
	    (len = (size_t)sqlite3_column_bytes(st, 3)) > 0 &&
	    len <= CLI_ACCOUNT_MAX) {
		hex_encode(sqlite3_column_blob(st, 3), len, hex);
		p->account = xstrdup(hex);
	}
	/* A miner not in the miners table is shown by its account. */
	if ((p->miner = view_col_dup(st, 4)) == NULL)
		p->miner = xstrdup(p->account != NULL ? p->account :
		    "unknown");
}

static int
blks_load(struct view_db *c, const struct view_chain *ch, int64_t last,
    struct blks *b)
{
	sqlite3_stmt	*st;
	struct blk	*p;
	int		 rc;

	if (view_db_prepare(c, "reading blocks", q_blocks, &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, ch->id);
	sqlite3_bind_int64(st, 2, last);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		b->v = xrealloc(b->v, (b->n + 1) * sizeof(*b->v));
		p = &b->v[b->n++];
		memset(p, 0, sizeof(*p));
		p->hash = view_col_dup(st, 0);
		p->number = sqlite3_column_int64(st, 1);
		p->parent = view_col_dup(st, 2);
		blk_miner(p, st);
		if (sqlite3_column_type(st, 5) == SQLITE_BLOB &&
		    sqlite3_column_bytes(st, 5) == U512_BYTES) {
			p->has_difficulty = 1;
			u512_from_le(&p->difficulty,
			    sqlite3_column_blob(st, 5));
		}
		if ((p->has_ts = sqlite3_column_type(st, 6) != SQLITE_NULL))
			p->ts = sqlite3_column_int64(st, 6);
		p->canonical = sqlite3_column_int(st, 7);
		p->final = sqlite3_column_int(st, 8);
		p->runtime_updated = sqlite3_column_int(st, 9);
		p->endpoint = view_col_dup(st, 10);
		p->first_seen = sqlite3_column_int64(st, 11);
		if ((p->has_state_at = sqlite3_column_type(st, 12) !=
		    SQLITE_NULL))
			p->state_at = sqlite3_column_int64(st, 12);
		if (b->n == 1 || b->v[b->n - 2].number != p->number)
			b->heights++;
		b->reorged += !p->canonical;
	}
	if (view_db_finish(c, "reading blocks", st, rc == SQLITE_DONE) == -1)
		return CW_EXIT_SYSTEM;
	return CW_EXIT_OK;
}

/* A non-canonical block is never final: chainwatch verify says so. */
static const char *
blk_status(const struct blk *p, int people)
{
	if (!p->canonical)
		return "reorged";
	if (p->final)
		return "final";
	return people ? "prov" : "provisional";
}

static void
print_human(const struct view_chain *ch, const struct blks *b, int64_t now)
{
	struct cli_table	 t;
	const struct blk	*p;
	char			 a[VIEW_AGE_LEN], s[64];
	size_t			 i, len;

	len = (size_t)snprintf(s, sizeof(s), "%s: ", ch->name);
	if (ch->has_best)
		len += (size_t)snprintf(s + len, sizeof(s) - len,
		    "best #%lld", (long long)ch->best_number);
	else
		len += (size_t)snprintf(s + len, sizeof(s) - len,
		    "no best block yet");
	if (ch->has_final)
		snprintf(s + len, sizeof(s) - len, ", final #%lld",
		    (long long)ch->final_number);
	cli_put_line(s);
	if (b->n == 0) {
		printf("no blocks\n");
		return;
	}
	putchar('\n');
	cli_table_init(&t, "rlllrrl", 0, 2);
	cli_table_head(&t, "number", "state", "hash", "miner", "diff", "age",
	    "first", NULL);
	for (i = 0; i < b->n; i++) {
		p = &b->v[i];
		cli_table_cell(&t, "%lld", (long long)p->number);
		cli_table_cell(&t, "%s", blk_status(p, 1));
		cli_hash_short(p->hash != NULL ? p->hash : "?", s, sizeof(s));
		cli_table_cell(&t, "%s", s);
		cli_addr_short(p->miner, s, sizeof(s));
		cli_table_cell(&t, "%s", s);
		if (p->has_difficulty) {
			cli_u512_short(&p->difficulty, s, sizeof(s));
			cli_table_cell(&t, "%s", s);
		} else
			cli_table_cell(&t, "-");
		/* The age of its timestamp; "ago" goes without saying. */
		if (p->has_ts) {
			cli_age(now - p->ts, a, sizeof(a));
			cli_table_cell(&t, "%s", a);
		} else
			cli_table_cell(&t, "-");
		cli_name_short(p->endpoint != NULL ? p->endpoint : "-", s,
		    sizeof(s));
		cli_table_cell(&t, "%s", s);
	}
	cli_table_print(&t);
	cli_table_free(&t);
	putchar('\n');
	printf("%zu height%s, %zu block%s, %zu reorged\n", b->heights,
	    b->heights == 1 ? "" : "s", b->n, b->n == 1 ? "" : "s",
	    b->reorged);
}

static json_t *
blk_json(const struct blk *p)
{
	json_t	*o = json_object();
	char	 dec[U512_DEC_LEN];

	json_object_set_new(o, "number", json_integer(p->number));
	json_object_set_new(o, "hash", view_jstr(p->hash));
	json_object_set_new(o, "parent", view_jstr(p->parent));
	json_object_set_new(o, "status", json_string(blk_status(p, 0)));
	json_object_set_new(o, "canonical", json_boolean(p->canonical));
	json_object_set_new(o, "final", json_boolean(p->final));
	json_object_set_new(o, "reorged", json_boolean(!p->canonical));
	json_object_set_new(o, "miner", view_jstr(p->miner));
	json_object_set_new(o, "account", view_jstr(p->account));
	if (p->has_difficulty) {
		u512_to_dec(&p->difficulty, dec);
		json_object_set_new(o, "difficulty", json_string(dec));
		json_object_set_new(o, "difficulty_f",
		    json_real(u512_to_double(&p->difficulty)));
	} else {
		json_object_set_new(o, "difficulty", json_null());
		json_object_set_new(o, "difficulty_f", json_null());
	}
	view_jtime(o, "timestamp", p->has_ts, p->ts);
	view_jtime(o, "first_seen", 1, p->first_seen);
	json_object_set_new(o, "first_endpoint", view_jstr(p->endpoint));
	view_jtime(o, "state_at", p->has_state_at, p->state_at);
	json_object_set_new(o, "runtime_updated",
	    json_boolean(p->runtime_updated));
	return o;
}

static void
print_json(const struct view_chain *ch, const struct cli_opts *o,
    const struct blks *b, int running)
{
	json_t	*root, *arr;
	size_t	 i;

	root = json_object();
	json_object_set_new(root, "chain", view_jstr(ch->name));
	json_object_set_new(root, "daemon_running", cli_jrunning(running));
	json_object_set_new(root, "best_number",
	    view_jint(ch->has_best, ch->best_number));
	json_object_set_new(root, "final_number",
	    view_jint(ch->has_final, ch->final_number));
	view_jtime(root, "as_of", ch->has_updated, ch->updated_at);
	json_object_set_new(root, "last", json_integer(o->last));
	json_object_set_new(root, "heights",
	    json_integer((json_int_t)b->heights));
	json_object_set_new(root, "reorged",
	    json_integer((json_int_t)b->reorged));
	arr = json_array();
	for (i = 0; i < b->n; i++)
		json_array_append_new(arr, blk_json(&b->v[i]));
	json_object_set_new(root, "blocks", arr);
	cli_json_print(root);
}

int
cli_blocks(struct view_db *c, const struct cli_opts *o)
{
	struct view_chain	*chains;
	const struct view_chain	*ch;
	struct blks		 b;
	size_t			 n;
	int			 rc, running = -1;

	memset(&b, 0, sizeof(b));
	if ((rc = view_chains_begin(c, o->chain, &chains, &n, &ch)) !=
	    CW_EXIT_OK)
		return rc;
	if ((rc = blks_load(c, ch, o->last, &b)) == CW_EXIT_OK)
		running = cli_daemon_note(c);
	view_db_end(c);
	if (rc == CW_EXIT_OK) {
		if (o->json)
			print_json(ch, o, &b, running);
		else
			print_human(ch, &b, (int64_t)now_wall_ms());
	}
	blks_free(&b);
	view_chains_free(chains, n);
	return rc;
}
