/*
 * Forks between endpoints: tips grouped into branches by their ancestry,
 * the common ancestor, each branch's length and work, and when a split
 * counts.  The rules are in forks.h.  Every walk is bounded by
 * FORKS_MAX_STEPS, whatever number a tip claims.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "forks.h"
#include "util.h"

int64_t
forks_stale_ms(int64_t block_time_ms)
{
	int64_t	ms = FORKS_STALE_BLOCKS * block_time_ms;

	return ms > FORKS_STALE_MIN_MS ? ms : FORKS_STALE_MIN_MS;
}

int64_t
forks_split_ms(int64_t block_time_ms)
{
	int64_t	ms = FORKS_SPLIT_BLOCKS * block_time_ms;

	return ms > FORKS_SPLIT_MIN_MS ? ms : FORKS_SPLIT_MIN_MS;
}

int64_t
forks_behind(int64_t ancestor_number, int64_t number)
{
	return number < ancestor_number ? ancestor_number - number : 0;
}

/*
 * One link down: *b becomes its parent.  1, or -1 when the parent is not
 * stored or does not sit one below (a store cannot hold that, but the
 * claim is not ours to believe), -2 on an error.
 */
static int
step_down(forks_lookup_fn *lookup, void *ctx, struct forks_block *b)
{
	struct forks_block	p;
	int			r;

	if ((r = lookup(ctx, b->parent, &p)) < 0)
		return -2;
	if (r == 0 || p.number != b->number - 1)
		return -1;
	*b = p;
	return 1;
}

int
forks_is_ancestor(forks_lookup_fn *lookup, void *ctx,
    const struct forks_block *lo, const struct forks_block *hi)
{
	struct forks_block	cur = *hi;
	int			r;

	if (lo->number > hi->number)
		return 0;
	if (hi->number - lo->number > FORKS_MAX_STEPS)
		return -1;
	while (cur.number > lo->number)
		if ((r = step_down(lookup, ctx, &cur)) != 1)
			return r;
	return memcmp(cur.hash, lo->hash, 32) == 0;
}

int
forks_common(forks_lookup_fn *lookup, void *ctx, const struct forks_block *a,
    const struct forks_block *b, struct forks_block *out)
{
	struct forks_block	x = *a, y = *b;
	unsigned		steps = 0;
	int			r;

	while (memcmp(x.hash, y.hash, 32) != 0 || x.number != y.number) {
		if (++steps > FORKS_MAX_STEPS)
			return -1;
		if (x.number >= y.number &&
		    (r = step_down(lookup, ctx, &x)) != 1)
			return r;
		if (y.number > x.number &&
		    (r = step_down(lookup, ctx, &y)) != 1)
			return r;
	}
	*out = x;
	return 1;
}

/*
 * Tips by number, highest first, the caller's order between equals: an
 * insertion sort, as there are as many tips as endpoints.
 */
static void
sort_by_number(size_t *order, size_t m, const struct forks_tip *tips)
{
	for (size_t i = 1; i < m; i++) {
		size_t	v = order[i], j = i;

		for (; j > 0 && tips[order[j - 1]].number < tips[v].number; j--)
			order[j] = order[j - 1];
		order[j] = v;
	}
}

/* Where the tip belongs among the branches so far. */
static int
place(forks_lookup_fn *lookup, void *ctx, struct forks_tip *tips, size_t i,
    const struct forks_block *blocks, struct forks_result *r)
{
	struct forks_tip		*t = &tips[i];
	const struct forks_block	*tb = &blocks[i];
	int	unknown = 0, a;

	for (size_t k = 0; k < r->n_branches; k++) {
		a = forks_is_ancestor(lookup, ctx, tb,
		    &blocks[r->branches[k].head]);
		if (a == -2)
			return -1;
		if (a == 1) {
			t->kind = FORKS_TIP_BRANCH;
			t->branch = k;
			return 0;
		}
		if (a == -1)
			unknown = 1;
	}
	if (unknown) {
		t->kind = FORKS_TIP_UNKNOWN;
		r->n_unknown++;
		return 0;
	}
	t->kind = FORKS_TIP_BRANCH;
	t->branch = r->n_branches;
	memset(&r->branches[r->n_branches], 0, sizeof(r->branches[0]));
	r->branches[r->n_branches++].head = i;
	return 0;
}

/* Length and work from a block down to the ancestor. */
static int
measure(forks_lookup_fn *lookup, void *ctx, const struct forks_block *top,
    const struct forks_result *r, int by_work, struct forks_above *a)
{
	struct forks_block	cur = *top;
	struct u512		d;
	int			s;

	memset(a, 0, sizeof(*a));
	a->known = 1;
	/* Below the ancestor: behind every branch, with nothing above. */
	if ((a->behind = forks_behind(r->ancestor_number, top->number)) > 0)
		return 0;
	a->length = top->number - r->ancestor_number;
	if (!by_work) {
		u512_from_u64(&a->work, (uint64_t)a->length);
		a->work_blocks = a->length;
		return 0;
	}
	while (cur.number > r->ancestor_number) {
		if (cur.has_work) {
			u512_from_le(&d, cur.work);
			if (u512_add(&a->work, &d) == 0)
				a->work_blocks++;
		}
		if ((s = step_down(lookup, ctx, &cur)) == -2)
			return -1;
		if (s == -1)
			break;
	}
	return 0;
}

int
forks_analyse(struct forks_tip *tips, size_t n, int64_t now,
    int64_t block_time_ms, int by_work, forks_lookup_fn *lookup, void *ctx,
    struct forks_result *r)
{
	struct forks_block	*blocks, anc;
	size_t			*order, m = 0;
	int64_t			 stale = forks_stale_ms(block_time_ms);
	int			 rc = 0, found;

	memset(r, 0, sizeof(*r));
	r->branches = xcalloc(n > 0 ? n : 1, sizeof(*r->branches));
	blocks = xcalloc(n > 0 ? n : 1, sizeof(*blocks));
	order = xcalloc(n > 0 ? n : 1, sizeof(*order));
	for (size_t i = 0; i < n && rc == 0; i++) {
		memset(&tips[i].above, 0, sizeof(tips[i].above));
		if (now - tips[i].at > stale) {
			tips[i].kind = FORKS_TIP_STALE;
			r->n_stale++;
			continue;
		}
		if ((found = lookup(ctx, tips[i].hash, &blocks[i])) < 0)
			rc = -1;
		else if (found == 0 || blocks[i].number != tips[i].number) {
			tips[i].kind = FORKS_TIP_UNKNOWN;
			r->n_unknown++;
		} else
			order[m++] = i;
	}
	sort_by_number(order, m, tips);
	for (size_t i = 0; i < m && rc == 0; i++)
		rc = place(lookup, ctx, tips, order[i], blocks, r);
	if (rc == 0 && r->n_branches > 1) {
		anc = blocks[r->branches[0].head];
		r->has_ancestor = 1;
		for (size_t k = 1; k < r->n_branches && r->has_ancestor; k++) {
			found = forks_common(lookup, ctx, &anc,
			    &blocks[r->branches[k].head], &anc);
			if (found == -2)
				rc = -1;
			if (found != 1)
				r->has_ancestor = 0;
		}
		if (r->has_ancestor) {
			memcpy(r->ancestor_hash, anc.hash, 32);
			r->ancestor_number = anc.number;
		}
		for (size_t i = 0; i < n && r->has_ancestor && rc == 0; i++)
			if (tips[i].kind == FORKS_TIP_BRANCH)
				rc = measure(lookup, ctx, &blocks[i], r,
				    by_work, &tips[i].above);
		for (size_t k = 0; k < r->n_branches; k++)
			r->branches[k].above = tips[r->branches[k].head].above;
	}
	free(blocks);
	free(order);
	return rc;
}

void
forks_result_free(struct forks_result *r)
{
	free(r->branches);
	memset(r, 0, sizeof(*r));
}

void
forks_split_init(struct forks_split *s, int open, int64_t since)
{
	s->recorded = open;
	s->since = open ? since : -1;
}

enum forks_act
forks_split_step(struct forks_split *s, size_t n_branches, size_t n_unknown,
    int64_t now, int64_t split_ms)
{
	if (n_branches == 0)
		return FORKS_NONE;	/* no tip to judge by */
	/*
	 * One branch, but tips whose place is not known yet (their
	 * ancestry is not stored: a daemon that restarted and catches up)
	 * are no evidence that the branches met.
	 */
	if (n_branches == 1 && n_unknown > 0)
		return FORKS_NONE;
	if (n_branches == 1) {
		s->since = -1;
		if (!s->recorded)
			return FORKS_NONE;
		s->recorded = 0;
		return FORKS_END;
	}
	if (s->recorded)
		return FORKS_UPDATE;
	if (s->since < 0)
		s->since = now;
	/* A clock that stepped back stands still. */
	if (now - s->since < split_ms)
		return FORKS_NONE;
	s->recorded = 1;
	return FORKS_OPEN;
}
