/*
 * chainwatch standings: the miners of one chain ranked by blocks, then
 * work.  All time comes from the standings table that chainwatchd keeps;
 * a window, or final blocks only, is summed from the canonical blocks.
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


struct srow {
	uint8_t		 account[CLI_ACCOUNT_MAX];
	size_t		 account_len;	/* 0: the unknown miner, x'' */
	char		*name;		/* SS58, "unknown", or hex */
	int64_t		 blocks, final_blocks;
	struct u512	 work;
	int		 has_range;
	int64_t		 first, last;
};

struct standings {
	struct srow	*rows;
	size_t		 n;
	int64_t		 total_blocks;
};

static const char *const window_name[] = {
	[WINDOW_ALL] = "all",
	[WINDOW_1H] = "1h",
	[WINDOW_24H] = "24h",
	[WINDOW_7D] = "7d",
};

static const int64_t window_ms[] = {
	[WINDOW_ALL] = 0,
	[WINDOW_1H] = 3600 * 1000LL,
	[WINDOW_24H] = 86400 * 1000LL,
	[WINDOW_7D] = 7 * 86400 * 1000LL,
};

/* Every query yields: miner, ss58, blocks, final_blocks, work, first, last. */
static const char q_all[] =
    "SELECT s.miner, m.ss58, s.blocks, s.final_blocks, s.work,"
    "  s.first_number, s.last_number"
    " FROM standings s LEFT JOIN miners m ON m.account = s.miner"
    " WHERE s.chain_id = ?1 AND s.blocks > 0";
/* %s: further conditions on the canonical blocks. */
static const char q_blocks[] =
    "SELECT g.miner, m.ss58, g.blocks, g.final_blocks, g.work,"
    "  g.first_number, g.last_number"
    " FROM (SELECT coalesce(miner, x'') AS miner, count(*) AS blocks,"
    "    sum(final) AS final_blocks, u512_sum(difficulty) AS work,"
    "    min(number) AS first_number, max(number) AS last_number"
    "  FROM blocks WHERE chain_id = ?1 AND canonical = 1%s%s"
    "  GROUP BY 1) g"
    " LEFT JOIN miners m ON m.account = g.miner";

static int
srow_cmp(const void *pa, const void *pb)
{
	const struct srow *a = pa, *b = pb;
	int		 c;

	if (a->blocks != b->blocks)
		return a->blocks > b->blocks ? -1 : 1;
	if ((c = u512_cmp(&a->work, &b->work)) != 0)
		return -c;
	return strcmp(a->name, b->name);
}

static void
standings_free(struct standings *s)
{
	size_t	 i;

	for (i = 0; i < s->n; i++)
		free(s->rows[i].name);
	free(s->rows);
}

static int
standings_load(struct view_db *c, const struct view_chain *ch,
    const struct cli_opts *o, struct standings *s)
{
	sqlite3_stmt	*st;
	struct srow	*r;
	const void	*blob;
	const char	*work;
	char		 sql[sizeof(q_blocks) + 64];
	int		 rc, from_blocks;

	memset(s, 0, sizeof(*s));
	from_blocks = o->window != WINDOW_ALL || o->final_only;
	if (from_blocks)
		snprintf(sql, sizeof(sql), q_blocks,
		    o->window != WINDOW_ALL ? " AND timestamp >= ?2" : "",
		    o->final_only ? " AND final = 1" : "");
	else
		snprintf(sql, sizeof(sql), "%s", q_all);
	if (view_db_prepare(c, "reading standings", sql, &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, ch->id);
	if (o->window != WINDOW_ALL)
		sqlite3_bind_int64(st, 2,
		    (int64_t)now_wall_ms() - window_ms[o->window]);

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		s->rows = xrealloc(s->rows, (s->n + 1) * sizeof(*s->rows));
		r = &s->rows[s->n++];
		memset(r, 0, sizeof(*r));
		blob = sqlite3_column_blob(st, 0);
		r->account_len = (size_t)sqlite3_column_bytes(st, 0);
		if (r->account_len > CLI_ACCOUNT_MAX)
			r->account_len = CLI_ACCOUNT_MAX;
		if (r->account_len > 0)
			memcpy(r->account, blob, r->account_len);
		r->name = cli_miner_name(r->account, r->account_len,
		    sqlite3_column_text(st, 1));
		r->blocks = sqlite3_column_int64(st, 2);
		r->final_blocks = sqlite3_column_int64(st, 3);
		if (o->final_only)
			r->blocks = r->final_blocks;
		work = (const char *)sqlite3_column_text(st, 4);
		if (work == NULL || u512_from_dec(&r->work, work) == -1) {
			cli_err("%s: chain %s, miner %s: work '%s' in "
			    "standings is not a decimal number (see "
			    "chainwatch verify)", c->path, ch->name, r->name,
			    work != NULL ? work : "NULL");
			sqlite3_finalize(st);
			return CW_EXIT_SYSTEM;
		}
		if ((r->has_range = sqlite3_column_type(st, 5) !=
		    SQLITE_NULL)) {
			r->first = sqlite3_column_int64(st, 5);
			r->last = sqlite3_column_int64(st, 6);
		}
		s->total_blocks += r->blocks;
	}
	if (view_db_finish(c, "reading standings", st, rc == SQLITE_DONE) == -1)
		return CW_EXIT_SYSTEM;
	if (s->n > 1)	/* never the NULL of an empty list */
		qsort(s->rows, s->n, sizeof(*s->rows), srow_cmp);
	return CW_EXIT_OK;
}

static double
share(const struct standings *s, const struct srow *r)
{
	return s->total_blocks > 0 ?
	    100.0 * (double)r->blocks / (double)s->total_blocks : 0.0;
}

enum { COL_RANK, COL_MINER, COL_BLOCKS, COL_PROV, COL_FINAL, COL_WORK,
    COL_SHARE, COL_FIRST, COL_LAST, NCOLS };

static const char *const col_head[NCOLS] = {
	"#", "miner", "blocks", "prov", "final", "work", "share", "first",
	"last",
};

#define CELL_MAX	40

static void
row_cells(const struct standings *s, const struct srow *r, size_t rank,
    char cell[NCOLS][CELL_MAX])
{
	snprintf(cell[COL_RANK], CELL_MAX, "%zu", rank);
	cli_addr_short(r->name, cell[COL_MINER], CELL_MAX);
	snprintf(cell[COL_BLOCKS], CELL_MAX, "%lld", (long long)r->blocks);
	snprintf(cell[COL_PROV], CELL_MAX, "%lld",
	    (long long)(r->blocks - r->final_blocks));
	snprintf(cell[COL_FINAL], CELL_MAX, "%lld",
	    (long long)r->final_blocks);
	cli_u512_short(&r->work, cell[COL_WORK], CELL_MAX);
	snprintf(cell[COL_SHARE], CELL_MAX, "%.1f%%", share(s, r));
	if (r->has_range) {
		snprintf(cell[COL_FIRST], CELL_MAX, "%lld",
		    (long long)r->first);
		snprintf(cell[COL_LAST], CELL_MAX, "%lld", (long long)r->last);
	} else {
		snprintf(cell[COL_FIRST], CELL_MAX, "-");
		snprintf(cell[COL_LAST], CELL_MAX, "-");
	}
}

static void
print_row(char cell[NCOLS][CELL_MAX], const int width[NCOLS])
{
	int	 i;

	for (i = 0; i < NCOLS; i++) {
		if (i > 0)
			putchar(' ');
		if (i == COL_MINER)
			printf("%-*s", width[i], cell[i]);
		else
			printf("%*s", width[i], cell[i]);
	}
	putchar('\n');
}

static void
print_human(const struct view_chain *ch, const struct cli_opts *o,
    const struct standings *s, size_t shown, int stale, const char *last)
{
	char	 cell[NCOLS][CELL_MAX], age[VIEW_AGE_LEN];
	int	 width[NCOLS], i;
	size_t	 k;

	printf("%s: ", ch->name);
	if (o->window == WINDOW_ALL)
		printf("all blocks");
	else
		printf("blocks of the last %s", window_name[o->window]);
	printf("%s\n", o->final_only ? ", final only" : "");
	if (ch->has_updated) {
		view_ago((int64_t)now_wall_ms() - ch->updated_at, age,
		    sizeof(age));
		printf("as of %s", age);
	} else
		printf("no head stored yet");
	if (ch->has_best)
		printf(", best #%lld", (long long)ch->best_number);
	if (ch->has_final)
		printf(", final #%lld", (long long)ch->final_number);
	putchar('\n');
	if (stale)
		printf("stale: every endpoint is unreachable; the last head "
		    "came from %s\n", last[0] != '\0' ? last : "none");
	if (s->n == 0) {
		printf("no blocks\n");
		return;
	}

	for (i = 0; i < NCOLS; i++)
		width[i] = (int)strlen(col_head[i]);
	for (k = 0; k < shown; k++) {
		row_cells(s, &s->rows[k], k + 1, cell);
		for (i = 0; i < NCOLS; i++)
			if ((int)strlen(cell[i]) > width[i])
				width[i] = (int)strlen(cell[i]);
	}
	putchar('\n');
	for (i = 0; i < NCOLS; i++)
		snprintf(cell[i], CELL_MAX, "%s", col_head[i]);
	print_row(cell, width);
	for (k = 0; k < shown; k++) {
		row_cells(s, &s->rows[k], k + 1, cell);
		print_row(cell, width);
	}
	putchar('\n');
	printf("%zu miner%s, %lld block%s", s->n, s->n == 1 ? "" : "s",
	    (long long)s->total_blocks, s->total_blocks == 1 ? "" : "s");
	if (shown < s->n)
		printf(" (top %zu shown)", shown);
	putchar('\n');
}

static void
print_json(const struct view_chain *ch, const struct cli_opts *o,
    const struct standings *s, size_t shown, int stale, const char *last)
{
	json_t		*root, *rows, *row;
	const struct srow *r;
	char		 dec[U512_DEC_LEN], hex[2 * CLI_ACCOUNT_MAX + 3];
	size_t		 k;

	root = json_object();
	json_object_set_new(root, "chain", view_jstr(ch->name));
	json_object_set_new(root, "window", json_string(window_name[o->window]));
	json_object_set_new(root, "final_only", json_boolean(o->final_only));
	view_jtime(root, "as_of", ch->has_updated, ch->updated_at);
	json_object_set_new(root, "best_number",
	    view_jint(ch->has_best, ch->best_number));
	json_object_set_new(root, "final_number",
	    view_jint(ch->has_final, ch->final_number));
	json_object_set_new(root, "stale", json_boolean(stale));
	json_object_set_new(root, "last_endpoint", last[0] != '\0' ?
	    json_string(last) : json_null());
	json_object_set_new(root, "miners", json_integer((json_int_t)s->n));
	json_object_set_new(root, "blocks", json_integer(s->total_blocks));
	rows = json_array();
	for (k = 0; k < shown; k++) {
		r = &s->rows[k];
		row = json_object();
		json_object_set_new(row, "rank", json_integer((json_int_t)k + 1));
		json_object_set_new(row, "miner", view_jstr(r->name));
		if (r->account_len > 0) {
			hex_encode(r->account, r->account_len, hex);
			json_object_set_new(row, "account", json_string(hex));
		} else
			json_object_set_new(row, "account", json_null());
		json_object_set_new(row, "blocks", json_integer(r->blocks));
		json_object_set_new(row, "provisional",
		    json_integer(r->blocks - r->final_blocks));
		json_object_set_new(row, "final",
		    json_integer(r->final_blocks));
		u512_to_dec(&r->work, dec);
		json_object_set_new(row, "work", json_string(dec));
		json_object_set_new(row, "work_f",
		    json_real(u512_to_double(&r->work)));
		json_object_set_new(row, "share", json_real(share(s, r)));
		json_object_set_new(row, "first_number",
		    view_jint(r->has_range, r->first));
		json_object_set_new(row, "last_number",
		    view_jint(r->has_range, r->last));
		json_array_append_new(rows, row);
	}
	json_object_set_new(root, "rows", rows);
	cli_json_print(root);
}

int
cli_standings(struct view_db *c, const struct cli_opts *o)
{
	struct view_chain	*chains;
	const struct view_chain	*ch;
	struct standings	 s;
	size_t			 n, shown;
	int			 rc, stale = 0;
	char			 last[64];

	if ((rc = view_chains_begin(c, o->chain, &chains, &n, &ch)) !=
	    CW_EXIT_OK)
		return rc;
	rc = standings_load(c, ch, o, &s);
	if (rc == CW_EXIT_OK &&
	    (stale = view_chain_stale(c, ch, last, sizeof(last))) == -1)
		rc = CW_EXIT_SYSTEM;
	view_db_end(c);
	if (rc == CW_EXIT_OK) {
		shown = o->limit > 0 && (uint64_t)o->limit < s.n ?
		    (size_t)o->limit : s.n;
		if (o->json)
			print_json(ch, o, &s, shown, stale, last);
		else
			print_human(ch, o, &s, shown, stale, last);
	}
	standings_free(&s);
	view_chains_free(chains, n);
	return rc;
}
