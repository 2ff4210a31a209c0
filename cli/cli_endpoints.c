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

static void
print_chain(const struct view_chain *ch, const struct view_eps *e,
    int64_t now)
{
	struct cli_table	 t;
	const struct view_ep	*p;
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
		if (view_ep_behind(p, &behind))
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
		if (p->seals_failed > 0) {
			char	 w[96];

			snprintf(w, sizeof(w), "%lld block%s it served first "
			    "failed the seal check", (long long)p->seals_failed,
			    p->seals_failed == 1 ? "" : "s");
			cli_table_wrap(&t, 4, w);
		}
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

int
cli_endpoints(struct view_db *c, const struct cli_opts *o)
{
	struct view_chain	*chains;
	const struct view_chain	*ch;
	struct view_eps		*e;
	int64_t			 now = (int64_t)now_wall_ms();
	size_t			 nc, i, shown = 0;
	int			 rc, running;

	if ((rc = view_chains_begin(c, o->chain, &chains, &nc, &ch)) !=
	    CW_EXIT_OK)
		return rc;
	e = xcalloc(nc > 0 ? nc : 1, sizeof(*e));
	for (i = 0; i < nc && rc == CW_EXIT_OK; i++)
		if (ch == NULL || &chains[i] == ch)
			rc = view_eps_load(c, &chains[i], now, &e[i]);
	running = rc == CW_EXIT_OK ? cli_daemon_note(c) : -1;
	view_db_end(c);

	if (rc == CW_EXIT_OK && o->json) {
		cli_json_print(view_eps_json(e, nc, cli_jrunning(running)));
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
		view_eps_free(&e[i]);
	free(e);
	view_chains_free(chains, nc);
	return rc;
}
