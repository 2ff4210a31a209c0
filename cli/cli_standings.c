/*
 * chainwatch standings: the miners of one chain ranked by blocks, then
 * work, with their estimated hashrate, as view_standings.c loads them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cli_fmt.h"
#include "hashrate.h"
#include "hex.h"
#include "u512.h"
#include "util.h"

static double
share(const struct view_standings *s, const struct view_srow *r)
{
	return s->total_blocks > 0 ?
	    100.0 * (double)r->blocks / (double)s->total_blocks : 0.0;
}

enum { COL_RANK, COL_MINER, COL_BLOCKS, COL_PROV, COL_FINAL, COL_WORK,
    COL_SHARE, COL_HASHRATE, COL_FIRST, COL_LAST, NCOLS };

static const char *const col_head[NCOLS] = {
	"#", "miner", "blocks", "prov", "final", "work", "share", "H/s",
	"first", "last",
};

#define CELL_MAX	40

static void
row_cells(const struct view_standings *s,
    const struct view_srow *r, size_t rank,
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
	if (r->has_hashrate)
		hashrate_fmt_short(r->hashrate, cell[COL_HASHRATE],
		    CELL_MAX);
	else
		snprintf(cell[COL_HASHRATE], CELL_MAX, "-");
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

/* Blocks without a miner: a line of their own, never a rank. */
static void
print_unsealed(const struct view_standings *s)
{
	const struct view_srow *u = &s->unsealed;

	if (u->blocks == 0)
		return;
	printf("unsealed %lld: block%s without a miner in the digest, not "
	    "counted", (long long)u->blocks, u->blocks == 1 ? "" : "s");
	if (u->has_range)
		printf(u->first == u->last ? " (#%lld)" : " (#%lld to #%lld)",
		    (long long)u->first, (long long)u->last);
	putchar('\n');
}

static void
print_human(const struct view_chain *ch, const struct cli_opts *o,
    const struct view_standings *s, size_t shown, int stale, const char *last)
{
	char	 cell[NCOLS][CELL_MAX], age[VIEW_AGE_LEN], hr[HASHRATE_LEN];
	int	 width[NCOLS], i;
	size_t	 k;

	printf("%s: ", ch->name);
	if (o->window == VIEW_WINDOW_ALL)
		printf("all blocks");
	else
		printf("blocks of the last %s", view_window_name[o->window]);
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
		printf(s->unsealed.blocks > 0 ? "no mined blocks\n" :
		    "no blocks\n");
		print_unsealed(s);
		return;
	}
	if (s->has_hashrate) {
		hashrate_fmt(s->hashrate, hr, sizeof(hr));
		view_span(s->last_ms - s->first_ms, age, sizeof(age));
		printf("hashrate %s (work over %s of block times)\n", hr, age);
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
	print_unsealed(s);
}

static void
print_json(const struct view_chain *ch, const struct cli_opts *o,
    const struct view_standings *s, size_t shown, int stale, const char *last,
    int running)
{
	cli_json_print(view_standings_json(ch, o->window, o->final_only, s, 0,
	    shown, stale, last, cli_jrunning(running)));
}

int
cli_standings(struct view_db *c, const struct cli_opts *o)
{
	struct view_chain	*chains;
	const struct view_chain	*ch;
	struct view_standings	 s;
	size_t			 n, shown;
	int			 rc, stale = 0, running = -1;
	char			 last[64];

	if ((rc = view_chains_begin(c, o->chain, &chains, &n, &ch)) !=
	    CW_EXIT_OK)
		return rc;
	rc = view_standings_load(c, ch, o->window, o->final_only,
	    (int64_t)now_wall_ms(), &s);
	if (rc == CW_EXIT_OK &&
	    (stale = view_chain_stale(c, ch, last, sizeof(last))) == -1)
		rc = CW_EXIT_SYSTEM;
	/* Asked once a command: the stale note may have asked already. */
	if (rc == CW_EXIT_OK && o->json && c->socket != NULL)
		running = view_daemon_ask(c);
	view_db_end(c);
	if (rc == CW_EXIT_OK) {
		shown = o->limit > 0 && (uint64_t)o->limit < s.n ?
		    (size_t)o->limit : s.n;
		if (o->json)
			print_json(ch, o, &s, shown, stale, last, running);
		else
			print_human(ch, o, &s, shown, stale, last);
	}
	view_standings_free(&s);
	view_chains_free(chains, n);
	return rc;
}
