/*
 * chainwatch forks: the tip each endpoint of a chain announced last, the
 * branches they are on now (src/forks.c groups them, as chainwatchd
 * does), where the branches part, each one's length and work above that,
 * and the last splits the daemon recorded.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cli_fmt.h"
#include "hex.h"
#include "util.h"

#define SPLITS_TEXT	5	/* splits shown to people */
#define SPLITS_JSON	20	/* and to machines, as recent_splits */

static void
short_hash(const uint8_t h[32], char *out, size_t outlen)
{
	char	hex[67];

	hex_encode(h, 32, hex);
	cli_hash_short(hex, out, outlen);
}

/* "one branch, tip #1246" or "split: 2 branches above #1204 (0x1a2b3c4d)". */
static void
headline(const struct view_forks *f, int64_t now)
{
	const struct view_split	*s = view_split_open(f);
	const struct forks_result *r = &f->r;
	char			 line[CLI_COLS * 4], h[32], a[VIEW_AGE_LEN];
	size_t			 len;

	len = (size_t)snprintf(line, sizeof(line), "%s: ", f->ch->name);
	if (r->n_branches == 0)
		snprintf(line + len, sizeof(line) - len, "no current tip of "
		    "known ancestry");
	else if (r->n_branches == 1)
		snprintf(line + len, sizeof(line) - len, "one branch, tip #%lld",
		    (long long)view_fork_head_tip(f, 0)->t.number);
	else {
		len += (size_t)snprintf(line + len, sizeof(line) - len,
		    "split: %zu branches", r->n_branches);
		if (r->has_ancestor) {
			short_hash(r->ancestor_hash, h, sizeof(h));
			len += (size_t)snprintf(line + len, sizeof(line) - len,
			    " above #%lld (%s)", (long long)r->ancestor_number,
			    h);
		} else
			len += (size_t)snprintf(line + len, sizeof(line) - len,
			    ", where they part not known");
		if (s != NULL) {
			view_ago(now - s->first_seen, a, sizeof(a));
			snprintf(line + len, sizeof(line) - len, ", since %s",
			    a);
		} else
			snprintf(line + len, sizeof(line) - len, ", not "
			    "recorded yet");
	}
	cli_put_line(line);
}

static void
print_tips(const struct view_forks *f, int64_t now)
{
	struct cli_table		 t;
	const struct view_fork_tip	*p;
	const struct forks_above	*ab;
	char				 a[VIEW_AGE_LEN], h[32], w[32];

	cli_table_init(&t, "llrlrrr", 2, 2);
	cli_table_head(&t, "endpoint", "tip", "hash", "seen", "branch",
	    "above", "work", NULL);
	for (size_t i = 0; i < f->n_tips; i++) {
		p = &f->tips[i];
		cli_name_short(p->endpoint, a, sizeof(a));
		cli_table_cell(&t, "%s", a);
		if (!p->has_tip) {
			cli_table_cell(&t, "-");
			cli_table_cell(&t, "-");
			cli_table_cell(&t, "-");
			cli_table_cell(&t, "-");
			cli_table_cell(&t, "-");
			cli_table_cell(&t, "-");
			continue;
		}
		cli_table_cell(&t, "#%lld", (long long)p->t.number);
		cli_hash_short(p->hash, h, sizeof(h));
		cli_table_cell(&t, "%s", h);
		view_ago(now - p->t.at, a, sizeof(a));
		cli_table_cell(&t, "%s", a);
		if (p->t.kind != FORKS_TIP_BRANCH) {
			cli_table_cell(&t, "%s", view_tip_kind_name(p->t.kind));
			cli_table_cell(&t, "-");
			cli_table_cell(&t, "-");
			continue;
		}
		ab = &p->t.above;
		cli_table_cell(&t, "%zu", p->t.branch + 1);
		if (!ab->known) {
			cli_table_cell(&t, "-");
			cli_table_cell(&t, "-");
			continue;
		}
		/* Below where the branches part: behind, with no work. */
		if (ab->behind > 0) {
			cli_table_cell(&t, "%lld behind", (long long)ab->behind);
			cli_table_cell(&t, "-");
			continue;
		}
		cli_table_cell(&t, "%lld", (long long)ab->length);
		/* Blocks off the canonical chain may have no difficulty. */
		cli_u512_short(&ab->work, w, sizeof(w));
		if (ab->work_blocks == 0 && ab->length > 0)
			cli_table_cell(&t, "not read");
		else if (ab->work_blocks < ab->length)
			cli_table_cell(&t, "%s (%lld of %lld)", w,
			    (long long)ab->work_blocks, (long long)ab->length);
		else
			cli_table_cell(&t, "%s", w);
	}
	cli_table_print(&t);
	cli_table_free(&t);
}

static void
print_splits(const struct view_forks *f, int64_t now)
{
	struct cli_table	 t;
	const struct view_split	*s;
	char			 a[VIEW_AGE_LEN], side[CLI_COLS * 8];
	size_t			 len;

	if (f->n_splits == 0) {
		printf("  no split recorded\n");
		return;
	}
	printf("  recent splits:\n");
	cli_table_init(&t, "rllll", 4, 2);
	cli_table_head(&t, "split", "began", "lasted", "ended", "above", NULL);
	for (size_t i = 0; i < f->n_splits && i < SPLITS_TEXT; i++) {
		s = &f->splits[i];
		cli_table_cell(&t, "%lld", (long long)s->id);
		view_ago(now - s->first_seen, a, sizeof(a));
		cli_table_cell(&t, "%s", a);
		cli_ms((s->has_ended ? s->ended : s->last_seen) -
		    s->first_seen, a, sizeof(a));
		cli_table_cell(&t, "%s", a);
		if (s->has_ended) {
			view_ago(now - s->ended, a, sizeof(a));
			cli_table_cell(&t, "%s", a);
		} else
			cli_table_cell(&t, "going on");
		if (s->has_ancestor)
			cli_table_cell(&t, "#%lld", (long long)
			    s->ancestor_number);
		else
			cli_table_cell(&t, "-");
		/* "branch 1: a1 #420 (+20), a3 #419 (+19); branch 2: ..." */
		len = 0;
		side[0] = '\0';
		for (size_t k = 0; k < s->n_sides && len < sizeof(side); k++) {
			const struct view_split_side *d = &s->sides[k];

			if (k == 0 || d->branch != s->sides[k - 1].branch)
				len += (size_t)snprintf(side + len,
				    sizeof(side) - len, "%sbranch %lld: ",
				    k > 0 ? "; " : "", (long long)d->branch);
			else
				len += (size_t)snprintf(side + len,
				    sizeof(side) - len, ", ");
			if (len < sizeof(side))
				len += (size_t)snprintf(side + len,
				    sizeof(side) - len, "%s #%lld", d->endpoint,
				    (long long)d->tip_number);
			if (view_split_side_behind(s, d) > 0 && len < sizeof(side))
				len += (size_t)snprintf(side + len,
				    sizeof(side) - len, " (%lld behind)",
				    (long long)view_split_side_behind(s, d));
			else if (d->has_length && len < sizeof(side))
				len += (size_t)snprintf(side + len,
				    sizeof(side) - len, " (+%lld)",
				    (long long)d->length);
		}
		cli_table_wrap(&t, 6, side);
	}
	cli_table_print(&t);
	cli_table_free(&t);
}

static void
print_chain(const struct view_forks *f, int64_t now)
{
	headline(f, now);
	if (f->n_tips == 0) {
		printf("  no endpoint configured\n");
		return;
	}
	print_tips(f, now);
	print_splits(f, now);
}

int
cli_forks(struct view_db *c, const struct cli_opts *o)
{
	struct view_chain	*chains;
	const struct view_chain	*ch;
	struct view_forks	*f;
	json_t			*arr;
	int64_t			 now = (int64_t)now_wall_ms();
	size_t			 nc, i, shown = 0;
	int			 rc, running;

	if ((rc = view_chains_begin(c, o->chain, &chains, &nc, &ch)) !=
	    CW_EXIT_OK)
		return rc;
	f = xcalloc(nc > 0 ? nc : 1, sizeof(*f));
	for (i = 0; i < nc && rc == CW_EXIT_OK; i++)
		if (ch == NULL || &chains[i] == ch)
			rc = view_forks_load(c, &chains[i], now, o->json ?
			    SPLITS_JSON : SPLITS_TEXT, &f[i]);
	running = rc == CW_EXIT_OK ? cli_daemon_note(c) : -1;
	view_db_end(c);

	if (rc == CW_EXIT_OK && o->json) {
		arr = json_array();
		for (i = 0; i < nc; i++)
			if (ch == NULL || &chains[i] == ch)
				json_array_append_new(arr,
				    view_forks_json(&f[i]));
		cli_json_list(running, "chains", arr);
	} else if (rc == CW_EXIT_OK) {
		if (nc == 0)
			printf("no chains stored yet\n");
		for (i = 0; i < nc; i++) {
			if (ch != NULL && &chains[i] != ch)
				continue;
			if (shown++ > 0)
				putchar('\n');
			print_chain(&f[i], now);
		}
	}
	for (i = 0; i < nc; i++)
		view_forks_free(&f[i]);
	free(f);
	view_chains_free(chains, nc);
	return rc;
}
