/*
 * The endpoints' tips and the splits between them, read from the store as
 * `chainwatch forks` and chainwatch-metrics show them: the tips grouped
 * into branches by the same rules as chainwatchd (src/forks.c), walking
 * the stored blocks read-only, and the last splits with their sides.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hex.h"
#include "util.h"
#include "view.h"

static const char q_chain[] =
    "SELECT format, block_time FROM chains WHERE id = ?1";
static const char q_tips[] =
    "SELECT id, name, tip_hash, tip_number, tip_at FROM endpoints"
    " WHERE chain_id = ?1 AND configured = 1 ORDER BY position, name";
static const char q_block[] =
    "SELECT hash, parent, number, work FROM blocks"
    " WHERE chain_id = ?1 AND hash = ?2";
static const char q_splits[] =
    "SELECT id, first_seen, last_seen, ended, branches, ancestor_number,"
    "  ancestor_hash FROM splits WHERE chain_id = ?1"
    " ORDER BY first_seen DESC, id DESC LIMIT ?2";
static const char q_sides[] =
    "SELECT e.name, d.branch, d.tip_number, d.tip_hash, d.length, d.work,"
    "  d.work_blocks FROM split_sides d"
    " JOIN endpoints e ON e.id = d.endpoint_id"
    " WHERE d.split_id = ?1 ORDER BY d.branch, e.position, e.name";

struct lookup_ctx {
	struct view_db	*c;
	sqlite3_stmt	*st;
};

static int
lookup(void *ctx, const uint8_t hash[32], struct forks_block *b)
{
	struct lookup_ctx	*l = ctx;
	int			 rc;

	sqlite3_reset(l->st);
	sqlite3_bind_blob(l->st, 2, hash, 32, SQLITE_STATIC);
	rc = sqlite3_step(l->st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW) {
		view_db_err(l->c, "reading blocks");
		return -1;
	}
	memset(b, 0, sizeof(*b));
	if (sqlite3_column_bytes(l->st, 0) != 32 ||
	    sqlite3_column_bytes(l->st, 1) != 32)
		return 0;
	memcpy(b->hash, sqlite3_column_blob(l->st, 0), 32);
	memcpy(b->parent, sqlite3_column_blob(l->st, 1), 32);
	b->number = sqlite3_column_int64(l->st, 2);
	if (sqlite3_column_type(l->st, 3) == SQLITE_BLOB &&
	    sqlite3_column_bytes(l->st, 3) == U512_BYTES) {
		b->has_work = 1;
		memcpy(b->work, sqlite3_column_blob(l->st, 3), U512_BYTES);
	}
	return 1;
}

/* A 32-byte blob as "0x" + 64 digits, or NULL. */
static char *
col_hash(sqlite3_stmt *st, int col)
{
	char	hex[67];

	if (sqlite3_column_type(st, col) != SQLITE_BLOB ||
	    sqlite3_column_bytes(st, col) != 32)
		return NULL;
	hex_encode(sqlite3_column_blob(st, col), 32, hex);
	return xstrdup(hex);
}

static int
load_chain(struct view_db *c, struct view_forks *f)
{
	sqlite3_stmt	*st;
	int		 rc;
	char		*format;

	if (view_db_prepare(c, "reading chains", q_chain, &st) == -1)
		return -1;
	sqlite3_bind_int64(st, 1, f->ch->id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		format = view_col_dup(st, 0);
		f->by_work = format != NULL && strcmp(format, "quantus") == 0;
		free(format);
		f->block_time = sqlite3_column_int64(st, 1);
	}
	return view_db_finish(c, "reading chains", st, rc == SQLITE_ROW);
}

static int
load_tips(struct view_db *c, struct view_forks *f)
{
	sqlite3_stmt		*st;
	struct view_fork_tip	*p;
	int			 rc;

	if (view_db_prepare(c, "reading endpoints", q_tips, &st) == -1)
		return -1;
	sqlite3_bind_int64(st, 1, f->ch->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		f->tips = xrealloc(f->tips, (f->n_tips + 1) *
		    sizeof(*f->tips));
		p = &f->tips[f->n_tips++];
		memset(p, 0, sizeof(*p));
		p->t.endpoint_id = sqlite3_column_int64(st, 0);
		if ((p->endpoint = view_col_dup(st, 1)) == NULL)
			p->endpoint = xstrdup("?");
		p->hash = col_hash(st, 2);
		p->has_tip = p->hash != NULL &&
		    view_col_int(st, 3, &p->t.number) &&
		    view_col_int(st, 4, &p->t.at);
		if (p->has_tip)
			memcpy(p->t.hash, sqlite3_column_blob(st, 2), 32);
	}
	return view_db_finish(c, "reading endpoints", st, rc == SQLITE_DONE);
}

/* The tips into branches, as chainwatchd groups them. */
static int
analyse(struct view_db *c, struct view_forks *f, int64_t now)
{
	struct lookup_ctx	 l = { c, NULL };
	struct forks_tip	*t;
	size_t			 n = 0, k = 0;
	int			 rc;

	if (view_db_prepare(c, "reading blocks", q_block, &l.st) == -1)
		return -1;
	sqlite3_bind_int64(l.st, 1, f->ch->id);
	t = xcalloc(f->n_tips > 0 ? f->n_tips : 1, sizeof(*t));
	for (size_t i = 0; i < f->n_tips; i++)
		if (f->tips[i].has_tip)
			t[n++] = f->tips[i].t;
	rc = forks_analyse(t, n, now, f->block_time, f->by_work, lookup, &l,
	    &f->r);
	for (size_t i = 0; i < f->n_tips; i++)
		if (f->tips[i].has_tip)
			f->tips[i].t = t[k++];
	free(t);
	sqlite3_finalize(l.st);
	return rc;
}

static int
load_sides(struct view_db *c, struct view_split *s)
{
	sqlite3_stmt		*st;
	struct view_split_side	*d;
	int			 rc;

	if (view_db_prepare(c, "reading split_sides", q_sides, &st) == -1)
		return -1;
	sqlite3_bind_int64(st, 1, s->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		s->sides = xrealloc(s->sides, (s->n_sides + 1) *
		    sizeof(*s->sides));
		d = &s->sides[s->n_sides++];
		memset(d, 0, sizeof(*d));
		if ((d->endpoint = view_col_dup(st, 0)) == NULL)
			d->endpoint = xstrdup("?");
		d->branch = sqlite3_column_int64(st, 1);
		d->tip_number = sqlite3_column_int64(st, 2);
		d->tip_hash = col_hash(st, 3);
		d->has_length = view_col_int(st, 4, &d->length);
		d->work = view_col_dup(st, 5);
		d->has_work_blocks = view_col_int(st, 6, &d->work_blocks);
	}
	return view_db_finish(c, "reading split_sides", st,
	    rc == SQLITE_DONE);
}

static int
load_splits(struct view_db *c, struct view_forks *f, int64_t max)
{
	sqlite3_stmt		*st;
	struct view_split	*s;
	int			 rc;

	if (view_db_prepare(c, "reading splits", q_splits, &st) == -1)
		return -1;
	sqlite3_bind_int64(st, 1, f->ch->id);
	sqlite3_bind_int64(st, 2, max);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		f->splits = xrealloc(f->splits, (f->n_splits + 1) *
		    sizeof(*f->splits));
		s = &f->splits[f->n_splits++];
		memset(s, 0, sizeof(*s));
		s->id = sqlite3_column_int64(st, 0);
		s->first_seen = sqlite3_column_int64(st, 1);
		s->last_seen = sqlite3_column_int64(st, 2);
		s->has_ended = view_col_int(st, 3, &s->ended);
		s->branches = sqlite3_column_int64(st, 4);
		s->has_ancestor = view_col_int(st, 5, &s->ancestor_number);
		s->ancestor_hash = col_hash(st, 6);
	}
	if (view_db_finish(c, "reading splits", st, rc == SQLITE_DONE) == -1)
		return -1;
	for (size_t i = 0; i < f->n_splits; i++)
		if (load_sides(c, &f->splits[i]) == -1)
			return -1;
	/*
	 * Daemons before this one stored a tip below the ancestor with a
	 * negative length: it has nothing above, it is behind
	 * (forks_behind of the ancestor and its tip_number).
	 */
	for (size_t i = 0; i < f->n_splits; i++)
		for (size_t k = 0; k < f->splits[i].n_sides; k++)
			if (f->splits[i].sides[k].length < 0)
				f->splits[i].sides[k].length = 0;
	return 0;
}

int
view_forks_load(struct view_db *c, const struct view_chain *ch, int64_t now,
    int64_t max_splits, struct view_forks *f)
{
	memset(f, 0, sizeof(*f));
	f->ch = ch;
	if (load_chain(c, f) == -1 || load_tips(c, f) == -1 ||
	    analyse(c, f, now) == -1 ||
	    (max_splits > 0 && load_splits(c, f, max_splits) == -1))
		return CW_EXIT_SYSTEM;
	return CW_EXIT_OK;
}

void
view_forks_free(struct view_forks *f)
{
	for (size_t i = 0; i < f->n_tips; i++) {
		free(f->tips[i].endpoint);
		free(f->tips[i].hash);
	}
	free(f->tips);
	for (size_t i = 0; i < f->n_splits; i++) {
		for (size_t k = 0; k < f->splits[i].n_sides; k++) {
			free(f->splits[i].sides[k].endpoint);
			free(f->splits[i].sides[k].tip_hash);
			free(f->splits[i].sides[k].work);
		}
		free(f->splits[i].sides);
		free(f->splits[i].ancestor_hash);
	}
	free(f->splits);
	forks_result_free(&f->r);
	memset(f, 0, sizeof(*f));
}

const char *
view_tip_kind_name(enum forks_tip_kind k)
{
	switch (k) {
	case FORKS_TIP_BRANCH:
		return "branch";
	case FORKS_TIP_UNKNOWN:
		return "unknown";
	case FORKS_TIP_STALE:
		return "stale";
	}
	return "?";
}

/* The open split, if the newest one is. */
const struct view_split *
view_split_open(const struct view_forks *f)
{
	if (f->n_splits > 0 && !f->splits[0].has_ended)
		return &f->splits[0];
	return NULL;
}

/* The tip at the head of a branch: heads index the tips that have one. */
const struct view_fork_tip *
view_fork_head_tip(const struct view_forks *f, size_t branch)
{
	size_t	k = 0, want = f->r.branches[branch].head;

	for (size_t i = 0; i < f->n_tips; i++)
		if (f->tips[i].has_tip && k++ == want)
			return &f->tips[i];
	return NULL;
}

/* How far a side's tip was below the split's ancestor, 0 if not. */
int64_t
view_split_side_behind(const struct view_split *s, const struct view_split_side *d)
{
	return s->has_ancestor ? forks_behind(s->ancestor_number,
	    d->tip_number) : 0;
}

/* length, behind, work and work_blocks into o, null when not known. */
static void
above_json(json_t *o, const struct forks_above *a)
{
	char	dec[U512_DEC_LEN];

	u512_to_dec(&a->work, dec);
	json_object_set_new(o, "length", view_jint(a->known, a->length));
	json_object_set_new(o, "behind", view_jint(a->known, a->behind));
	json_object_set_new(o, "work", a->known ? json_string(dec) :
	    json_null());
	json_object_set_new(o, "work_blocks", view_jint(a->known,
	    a->work_blocks));
}

static json_t *
tip_json(const struct view_forks *f, const struct view_fork_tip *p)
{
	json_t				*o = json_object();
	const struct forks_branch	*b = NULL;

	if (p->has_tip && p->t.kind == FORKS_TIP_BRANCH)
		b = &f->r.branches[p->t.branch];
	json_object_set_new(o, "endpoint", view_jstr(p->endpoint));
	json_object_set_new(o, "number", view_jint(p->has_tip, p->t.number));
	json_object_set_new(o, "hash", view_jstr(p->hash));
	view_jtime(o, "at", p->has_tip, p->t.at);
	json_object_set_new(o, "ancestry", p->has_tip ?
	    json_string(view_tip_kind_name(p->t.kind)) : json_null());
	json_object_set_new(o, "branch", view_jint(b != NULL,
	    (int64_t)p->t.branch + 1));
	above_json(o, &p->t.above);
	return o;
}

static json_t *
branch_json(const struct view_forks *f, size_t k)
{
	const struct forks_branch	*b = &f->r.branches[k];
	const struct view_fork_tip	*head = view_fork_head_tip(f, k);
	json_t				*o = json_object(), *eps = json_array();

	json_object_set_new(o, "branch", json_integer((json_int_t)k + 1));
	json_object_set_new(o, "tip_number", view_jint(head != NULL,
	    head != NULL ? head->t.number : 0));
	json_object_set_new(o, "tip_hash", view_jstr(head != NULL ?
	    head->hash : NULL));
	above_json(o, &b->above);
	for (size_t i = 0; i < f->n_tips; i++)
		if (f->tips[i].has_tip &&
		    f->tips[i].t.kind == FORKS_TIP_BRANCH &&
		    f->tips[i].t.branch == k)
			json_array_append_new(eps,
			    view_jstr(f->tips[i].endpoint));
	json_object_set_new(o, "endpoints", eps);
	return o;
}

static json_t *
split_json(const struct view_split *s)
{
	json_t	*o = json_object(), *sides = json_array(), *d;

	json_object_set_new(o, "id", json_integer(s->id));
	view_jtime(o, "first_seen", 1, s->first_seen);
	view_jtime(o, "last_seen", 1, s->last_seen);
	view_jtime(o, "ended", s->has_ended, s->ended);
	json_object_set_new(o, "branches", json_integer(s->branches));
	json_object_set_new(o, "ancestor_number", view_jint(s->has_ancestor,
	    s->ancestor_number));
	json_object_set_new(o, "ancestor_hash", view_jstr(s->ancestor_hash));
	for (size_t k = 0; k < s->n_sides; k++) {
		const struct view_split_side *p = &s->sides[k];

		d = json_object();
		json_object_set_new(d, "endpoint", view_jstr(p->endpoint));
		json_object_set_new(d, "branch", json_integer(p->branch));
		json_object_set_new(d, "tip_number",
		    json_integer(p->tip_number));
		json_object_set_new(d, "tip_hash", view_jstr(p->tip_hash));
		json_object_set_new(d, "length", view_jint(p->has_length,
		    p->length));
		json_object_set_new(d, "behind", view_jint(s->has_ancestor,
		    view_split_side_behind(s, p)));
		json_object_set_new(d, "work", view_jstr(p->work));
		json_object_set_new(d, "work_blocks",
		    view_jint(p->has_work_blocks, p->work_blocks));
		json_array_append_new(sides, d);
	}
	json_object_set_new(o, "sides", sides);
	return o;
}

json_t *
view_forks_json(const struct view_forks *f)
{
	const struct forks_result	*r = &f->r;
	json_t				*o = json_object(), *a;
	char				 hex[67];

	json_object_set_new(o, "chain", view_jstr(f->ch->name));
	json_object_set_new(o, "branches", json_integer(
	    (json_int_t)r->n_branches));
	json_object_set_new(o, "split", json_boolean(r->n_branches > 1));
	json_object_set_new(o, "recorded", json_boolean(view_split_open(f) !=
	    NULL));
	hex_encode(r->ancestor_hash, 32, hex);
	json_object_set_new(o, "ancestor_number", view_jint(r->has_ancestor,
	    r->ancestor_number));
	json_object_set_new(o, "ancestor_hash", r->has_ancestor ?
	    json_string(hex) : json_null());
	json_object_set_new(o, "work_is", json_string(f->by_work ?
	    "difficulty" : "length"));
	a = json_array();
	for (size_t i = 0; i < f->n_tips; i++)
		json_array_append_new(a, tip_json(f, &f->tips[i]));
	json_object_set_new(o, "tips", a);
	a = json_array();
	for (size_t k = 0; k < r->n_branches; k++)
		json_array_append_new(a, branch_json(f, k));
	json_object_set_new(o, "branch_list", a);
	a = json_array();
	for (size_t i = 0; i < f->n_splits; i++)
		json_array_append_new(a, split_json(&f->splits[i]));
	json_object_set_new(o, "splits", a);
	return o;
}

