/*
 * Splits between the endpoints of a chain: the tip each endpoint announced
 * last goes into its endpoints row as it arrives; once a second every
 * chain's tips are grouped into branches over the stored blocks
 * (forks_analyse), and a split that lasted forks_split_ms() gets a row in
 * splits, its sides in split_sides, updated while it lasts and ended when
 * the tips agree again.  Only the store is called: the rules are pure, in
 * src/forks.c, and the chains' own state is not needed.
 */
#include "config.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainwatchd.h"
#include "forks.h"
#include "log.h"
#include "sup_forks.h"
#include "sup_store.h"
#include "util.h"

#define FORKS_TICK	1.0	/* seconds between judgements */
#define FORKS_DESC_MAX	512

/* What the recorder remembers of a chain between ticks. */
struct fchain {
	int64_t			id;
	struct forks_split	sp;
	int64_t			split_id;	/* the open split's row */
	int64_t			first_seen;	/* and since when */
};

struct ftip {
	char		name[64];
	struct forks_tip t;
};

static struct fchain	*fchains;
static size_t		 n_fchains;
static ev_timer		 tick;

static struct store_stmt s_tip = { "UPDATE endpoints SET tip_hash = ?, "
    "tip_number = ?, tip_at = ? WHERE id = ?", NULL, NULL };
static struct store_stmt s_chains = { "SELECT id, name, format, block_time "
    "FROM chains WHERE id IN (SELECT chain_id FROM endpoints WHERE "
    "configured = 1) ORDER BY id", NULL, NULL };
static struct store_stmt s_tips = { "SELECT id, name, tip_hash, tip_number, "
    "tip_at FROM endpoints WHERE chain_id = ? AND configured = 1 AND "
    "tip_hash IS NOT NULL AND tip_number IS NOT NULL AND tip_at IS NOT "
    "NULL ORDER BY position, name", NULL, NULL };
static struct store_stmt s_block = { "SELECT hash, parent, number, "
    "work FROM blocks WHERE chain_id = ? AND hash = ?", NULL, NULL };
static struct store_stmt s_open = { "SELECT id, first_seen FROM splits "
    "WHERE chain_id = ? AND ended IS NULL ORDER BY id DESC LIMIT 1",
    NULL, NULL };
static struct store_stmt s_split_new = { "INSERT INTO splits (chain_id, "
    "first_seen, last_seen, branches, ancestor_number, ancestor_hash) "
    "VALUES (?, ?, ?, ?, ?, ?)", NULL, NULL };
static struct store_stmt s_split_upd = { "UPDATE splits SET last_seen = ?, "
    "branches = max(branches, ?), ancestor_number = coalesce(?, "
    "ancestor_number), ancestor_hash = coalesce(?, ancestor_hash) "
    "WHERE id = ?", NULL, NULL };
static struct store_stmt s_split_end = { "UPDATE splits SET last_seen = ?, "
    "ended = ? WHERE id = ?", NULL, NULL };
static struct store_stmt s_side = { "INSERT OR REPLACE INTO split_sides "
    "(split_id, endpoint_id, branch, tip_number, tip_hash, length, work, "
    "work_blocks) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", NULL, NULL };

void
sup_forks_head(int64_t endpoint_id, const struct proto_head *hd)
{
	if (hd->kind != HEAD_NEW || hd->h.number > INT64_MAX)
		return;
	store_run(store_bind(&s_tip, "biii", hd->h.hash,
	    (int64_t)hd->h.number, (int64_t)now_wall_ms(), endpoint_id));
}

struct lookup_ctx {
	int64_t		chain_id;
};

/* Blocks come from the store, which fails loudly: no error to return. */
static int
lookup(void *ctx, const uint8_t hash[32], struct forks_block *b)
{
	struct lookup_ctx	*l = ctx;
	sqlite3_stmt		*st;
	int			 found;

	st = store_bind(&s_block, "ib", l->chain_id, hash);
	if ((found = store_row(st))) {
		memset(b, 0, sizeof(*b));
		store_col_blob(st, 0, b->hash, 32);
		store_col_blob(st, 1, b->parent, 32);
		b->number = sqlite3_column_int64(st, 2);
		b->has_work = store_col_blob(st, 3, b->work, U512_BYTES);
	}
	sqlite3_reset(st);
	return found;
}

static struct fchain *
fchain(int64_t id)
{
	struct fchain	*f;
	sqlite3_stmt	*st;

	for (size_t i = 0; i < n_fchains; i++)
		if (fchains[i].id == id)
			return &fchains[i];
	fchains = xrealloc(fchains, (n_fchains + 1) * sizeof(*fchains));
	f = &fchains[n_fchains++];
	memset(f, 0, sizeof(*f));
	f->id = id;
	/* A split left open by the last run goes on, or ends, now. */
	st = store_bind(&s_open, "i", id);
	if (store_row(st)) {
		f->split_id = sqlite3_column_int64(st, 0);
		f->first_seen = sqlite3_column_int64(st, 1);
		forks_split_init(&f->sp, 1, f->first_seen);
	} else
		forks_split_init(&f->sp, 0, 0);
	sqlite3_reset(st);
	return f;
}

static size_t
load_tips(int64_t chain_id, struct ftip **out)
{
	sqlite3_stmt	*st = store_bind(&s_tips, "i", chain_id);
	struct ftip	*v = NULL, *p;
	size_t		 n = 0;

	while (store_row(st)) {
		v = xrealloc(v, (n + 1) * sizeof(*v));
		p = &v[n++];
		memset(p, 0, sizeof(*p));
		p->t.endpoint_id = sqlite3_column_int64(st, 0);
		snprintf(p->name, sizeof(p->name), "%s",
		    (const char *)sqlite3_column_text(st, 1));
		store_col_blob(st, 2, p->t.hash, 32);
		p->t.number = sqlite3_column_int64(st, 3);
		p->t.at = sqlite3_column_int64(st, 4);
	}
	sqlite3_reset(st);
	*out = v;
	return n;
}

/* "a1 #160 (10 above it), a3 #140 (10 behind it)" for the log. */
static void
describe(const struct ftip *tips, size_t n, const struct forks_result *r,
    char *out, size_t outlen)
{
	size_t	len = 0;

	out[0] = '\0';
	for (size_t k = 0; k < r->n_branches; k++)
		for (size_t i = 0; i < n && len < outlen; i++) {
			const struct forks_tip *t = &tips[i].t;

			if (t->kind != FORKS_TIP_BRANCH || t->branch != k)
				continue;
			len += (size_t)snprintf(out + len, outlen - len,
			    "%s%s #%lld", len > 0 ? ", " : "", tips[i].name,
			    (long long)t->number);
			if (t->above.known && t->above.behind > 0 &&
			    len < outlen)
				len += (size_t)snprintf(out + len, outlen - len,
				    " (%lld behind it)",
				    (long long)t->above.behind);
			else if (t->above.known && len < outlen)
				len += (size_t)snprintf(out + len, outlen - len,
				    " (%lld above it)", (long long)t->above.length);
		}
}

static void
write_sides(int64_t split_id, const struct ftip *tips, size_t n,
    const struct forks_result *r)
{
	char		 work[U512_DEC_LEN];
	sqlite3_stmt	*st;

	for (size_t i = 0; i < n; i++) {
		const struct forks_tip	*t = &tips[i].t;

		if (t->kind != FORKS_TIP_BRANCH)
			continue;
		st = store_bind(&s_side, "iiiib", split_id, t->endpoint_id,
		    (int64_t)t->branch + 1, t->number, t->hash);
		if (t->above.known) {
			u512_to_dec(&t->above.work, work);
			sqlite3_bind_int64(st, 6, t->above.length);
			sqlite3_bind_text(st, 7, work, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(st, 8, t->above.work_blocks);
		}
		store_run(st);
	}
}

static void
bind_ancestor(sqlite3_stmt *st, int col, const struct forks_result *r)
{
	if (!r->has_ancestor)
		return;		/* NULLs, as bindings are cleared */
	sqlite3_bind_int64(st, col, r->ancestor_number);
	sqlite3_bind_blob(st, col + 1, r->ancestor_hash, 32, SQLITE_TRANSIENT);
}

static void
judge(int64_t id, const char *name, int by_work, int64_t block_time,
    int64_t now)
{
	struct fchain		*f = fchain(id);
	struct lookup_ctx	 l = { id };
	struct forks_result	 r;
	struct ftip		*tips;
	struct forks_tip	*t;
	char			 desc[FORKS_DESC_MAX];
	size_t			 n;
	enum forks_act		 act;
	sqlite3_stmt		*st;

	n = load_tips(id, &tips);
	t = xcalloc(n > 0 ? n : 1, sizeof(*t));
	for (size_t i = 0; i < n; i++)
		t[i] = tips[i].t;
	(void)forks_analyse(t, n, now, block_time, by_work, lookup, &l, &r);
	for (size_t i = 0; i < n; i++)
		tips[i].t = t[i];
	free(t);
	act = forks_split_step(&f->sp, r.n_branches, r.n_unknown, now,
	    forks_split_ms(block_time));
	switch (act) {
	case FORKS_NONE:
		break;
	case FORKS_OPEN:
		st = store_bind(&s_split_new, "iiii", id, f->sp.since, now,
		    (int64_t)r.n_branches);
		bind_ancestor(st, 5, &r);
		store_run(st);
		f->split_id = store_last_id();
		f->first_seen = f->sp.since;
		write_sides(f->split_id, tips, n, &r);
		describe(tips, n, &r, desc, sizeof(desc));
		if (r.has_ancestor)
			log_warnx("chain %s: split into %zu branches above "
			    "#%lld: %s", name, r.n_branches,
			    (long long)r.ancestor_number, desc);
		else
			log_warnx("chain %s: split into %zu branches, where "
			    "they part not known yet: %s", name, r.n_branches,
			    desc);
		break;
	case FORKS_UPDATE:
		st = store_bind(&s_split_upd, "ii", now,
		    (int64_t)r.n_branches);
		bind_ancestor(st, 3, &r);
		sqlite3_bind_int64(st, 5, f->split_id);
		store_run(st);
		write_sides(f->split_id, tips, n, &r);
		break;
	case FORKS_END:
		store_run(store_bind(&s_split_end, "iii", now, now,
		    f->split_id));
		log_info("chain %s: the endpoints' tips are on one branch "
		    "again: split %lld ended after %lld s", name,
		    (long long)f->split_id, (long long)(now - f->first_seen) /
		    1000);
		f->split_id = 0;
		break;
	}
	forks_result_free(&r);
	free(tips);
}

void
sup_forks_tick(void)
{
	struct chn { int64_t id, block_time; int by_work; char name[64]; };
	struct chn	*v = NULL;
	sqlite3_stmt	*st = store_prepare(&s_chains);
	size_t		 n = 0;
	int64_t		 now = (int64_t)now_wall_ms();

	/* A blocked store: the next tick judges again. */
	if (!store_ready())
		return;
	/* Read the chains first: no statement stays open across writes. */
	while (store_row(st)) {
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n].id = sqlite3_column_int64(st, 0);
		snprintf(v[n].name, sizeof(v[n].name), "%s",
		    (const char *)sqlite3_column_text(st, 1));
		v[n].by_work = strcmp((const char *)sqlite3_column_text(st,
		    2), "quantus") == 0;
		v[n].block_time = sqlite3_column_int64(st, 3);
		n++;
	}
	sqlite3_reset(st);
	for (size_t i = 0; i < n; i++)
		judge(v[i].id, v[i].name, v[i].by_work, v[i].block_time, now);
	free(v);
	store_maybe_flush();
}

static void
tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	sup_forks_tick();
}

void
sup_forks_init(void)
{
	ev_init(&tick, tick_cb);
	tick.repeat = FORKS_TICK;
	ev_timer_again(sup_loop, &tick);
}

void
sup_forks_stop(void)
{
	ev_timer_stop(sup_loop, &tick);
	free(fchains);
	fchains = NULL;
	n_fchains = 0;
}
