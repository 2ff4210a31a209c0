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


static void
print_human(const struct view_chain *ch, const struct view_blocks *b,
    int64_t now)
{
	struct cli_table	 t;
	const struct view_block *p;
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
	cli_table_init(&t, "rlllrlrl", 0, 2);
	cli_table_head(&t, "number", "state", "hash", "miner", "diff", "pow",
	    "age", "first", NULL);
	for (i = 0; i < b->n; i++) {
		p = &b->v[i];
		cli_table_cell(&t, "%lld", (long long)p->number);
		cli_table_cell(&t, "%s", view_block_state(p, 1));
		cli_hash_short(p->hash != NULL ? p->hash : "?", s, sizeof(s));
		cli_table_cell(&t, "%s", s);
		cli_addr_short(p->miner, s, sizeof(s));
		cli_table_cell(&t, "%s", s);
		if (p->has_difficulty) {
			cli_u512_short(&p->difficulty, s, sizeof(s));
			cli_table_cell(&t, "%s", s);
		} else
			cli_table_cell(&t, "-");
		cli_table_cell(&t, "%s", view_block_pow(p));
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

static void
print_json(const struct view_chain *ch, const struct cli_opts *o,
    const struct view_blocks *b, int running)
{
	cli_json_print(view_blocks_json(ch, o->last, 0, 0, b,
	    cli_jrunning(running)));
}

int
cli_blocks(struct view_db *c, const struct cli_opts *o)
{
	struct view_chain	*chains;
	const struct view_chain	*ch;
	struct view_blocks	 b;
	size_t			 n;
	int			 rc, running = -1;

	memset(&b, 0, sizeof(b));
	if ((rc = view_chains_begin(c, o->chain, &chains, &n, &ch)) !=
	    CW_EXIT_OK)
		return rc;
	if ((rc = view_blocks_load(c, ch, o->last, 0, 0, &b)) == CW_EXIT_OK)
		running = cli_daemon_note(c);
	view_db_end(c);
	if (rc == CW_EXIT_OK) {
		if (o->json)
			print_json(ch, o, &b, running);
		else
			print_human(ch, &b, (int64_t)now_wall_ms());
	}
	view_blocks_free(&b);
	view_chains_free(chains, n);
	return rc;
}
