/*
 * Fork choice's rules, pure: the walk of a branch down to the canonical
 * chain, the comparison of two branches' work, and the step that decides
 * what becomes of a block that may be the best (its table: sup_fork.h).
 */
#include "config.h"

#include <string.h>

#include "sup_fork.h"
#include "u512.h"

/*
 * Where tip's branch meets the canonical chain, looking only at stored
 * blocks: 0 with *ancestor the number of the common block (-1 below the
 * chain's start), or -1 with the first missing parent.  The walk stops
 * below finality: a branch that meets the chain there is reported with
 * its ancestor as it is.
 */
int
fork_walk(const struct fork_view *v, const struct fork_chain *c,
    const struct sblock *tip, int64_t *ancestor, uint8_t missing[32],
    int64_t *missing_number)
{
	struct sblock	cur = *tip, b;

	for (;;) {
		int64_t n = cur.number - 1;

		if (cur.number == 0 || n < c->backfill_from) {
			*ancestor = n;
			return 0;
		}
		if (v->canonical_at(v->ctx, n, &b)) {
			if (memcmp(b.hash, cur.parent, 32) == 0) {
				*ancestor = n;
				return 0;
			}
			if (c->final_number >= 0 && n <= c->final_number) {
				*ancestor = n - 1;	/* at most */
				return 0;
			}
		}
		if (!v->by_hash(v->ctx, cur.parent, &b)) {
			memcpy(missing, cur.parent, 32);
			*missing_number = n;
			return -1;
		}
		cur = b;
	}
}

/*
 * The work fork choice counts for b: the difficulty at its parent, but
 * never more than its seal meets.  An endpoint's answer may claim any
 * difficulty; the seal proves what was met, so a branch of copied seals
 * weighs what its seals prove, whatever difficulties are claimed for it.
 * Honest seals meet their parent's difficulty: their work is unchanged.
 */
static void
proven_work(const struct sblock *b, struct u512 *w)
{
	struct u512	m;

	u512_from_le(w, b->work);
	if (!b->has_pow)
		return;
	u512_from_le(&m, b->pow_max);
	if (u512_cmp(&m, w) < 0)
		*w = m;
}

/*
 * Is tip's branch better than the canonical one above their ancestor?
 * A branch that extends the best is.  Quantus, as the node counts: the
 * heavier by summed work, each block's the difficulty at its parent; on
 * equal work the higher, each block's capped by its seal (proven_work).
 * Both sides' first blocks had to meet the ancestor's difficulty, so only
 * the blocks above them are summed.
 * *unknown is set when a work of either side is not known yet (the
 * caller asks for the difficulties and waits, then falls back to the
 * longer).  Substrate: longer.  Ties keep the first seen, the canonical
 * one.
 */
/* Are tip's branch and the canonical one compared by their work? */
static int
by_work(const struct fork_chain *c, const struct sblock *tip,
    int64_t ancestor)
{
	return c->quantus && tip->number - ancestor <= 2 * c->finality &&
	    c->best_number - ancestor <= 2 * c->finality;
}

int
fork_better(const struct fork_view *v, const struct fork_chain *c,
    const struct sblock *tip, int64_t ancestor, int *unknown)
{
	struct u512	wn, wo, d;
	struct sblock	cur = *tip, b;
	int		known = by_work(c, tip, ancestor);
	int		cmp;

	*unknown = 0;
	if (ancestor >= c->best_number)
		return 1;
	if (!known)
		return tip->number > c->best_number;
	u512_zero(&wn);
	u512_zero(&wo);
	while (cur.number > ancestor + 1) {
		if (!cur.has_work) {
			known = 0;
			break;
		}
		proven_work(&cur, &d);
		(void)u512_add(&wn, &d);
		if (!v->by_hash(v->ctx, cur.parent, &b)) {
			known = 0;
			break;
		}
		cur = b;
	}
	for (int64_t n = ancestor + 2; known && n <= c->best_number; n++) {
		if (!v->canonical_at(v->ctx, n, &b) || !b.has_work)
			known = 0;
		else {
			proven_work(&b, &d);
			(void)u512_add(&wo, &d);
		}
	}
	if (!known) {
		*unknown = 1;
		return tip->number > c->best_number;
	}
	cmp = u512_cmp(&wn, &wo);
	return cmp > 0 || (cmp == 0 && tip->number > c->best_number);
}

/*
 * Does a work fork_better compares rest on one endpoint's word: the
 * difficulty at a block above the ancestor and below either tip (the
 * work of its child) that no second endpoint read (its cross_read is not
 * 1, sup_cross.h)?  0 where the works are not compared, or where a block
 * is missing (fork_better finds their work unknown).
 */
int
fork_unread(const struct fork_view *v, const struct fork_chain *c,
    const struct sblock *tip, int64_t ancestor)
{
	struct sblock	cur = *tip, b;

	if (ancestor >= c->best_number || !by_work(c, tip, ancestor))
		return 0;
	while (cur.number > ancestor + 1) {
		if (!v->by_hash(v->ctx, cur.parent, &b))
			return 0;
		if (b.cross_read != 1)
			return 1;
		cur = b;
	}
	for (int64_t n = ancestor + 1; n < c->best_number; n++)
		if (v->canonical_at(v->ctx, n, &b) && b.cross_read != 1)
			return 1;
	return 0;
}

/*
 * Does a block of tip's branch above ancestor have a seal of the wrong
 * shape (sup_seal.c: not a 64-byte pow_ seal last, a zero nonce, a digest
 * outside the window), or one below the difficulty at its parent that
 * two endpoints answered alike (sup_cross.h)?  No node imports such a
 * block, whatever its work.  A seal below a difficulty only one
 * endpoint answered is not counted here: that answer may be the lie.
 * The walk stops at a block it cannot read: fork_walk linked it.
 */
int
fork_failed(const struct fork_view *v, const struct sblock *tip,
    int64_t ancestor)
{
	struct sblock	cur = *tip, p;

	for (;;) {
		if (cur.proven == 0 && !cur.has_pow)
			return 1;
		if (!v->by_hash(v->ctx, cur.parent, &p))
			return 0;
		if (cur.proven == 0 && p.cross_read == 1)
			return 1;
		if (cur.number - 1 <= ancestor)
			return 0;
		cur = p;
	}
}

/* Is the block hash at number an ancestor of tip, within blocks down? */
int
fork_descends(const struct fork_view *v, const struct sblock *tip,
    const uint8_t hash[32], int64_t number, int64_t within)
{
	struct sblock	cur = *tip;

	if (number >= tip->number || tip->number - number > within)
		return 0;
	while (cur.number > number + 1)
		if (!v->by_hash(v->ctx, cur.parent, &cur))
			return 0;
	return memcmp(cur.parent, hash, 32) == 0;
}

/* One row of sup_fork.h's table after another: the first that holds. */
enum fork_action
fork_step(const struct fork_facts *f)
{
	int	ahead = f->tip_number > f->best_number;

	if (!f->have_best)
		return FA_SWITCH;
	if (f->canonical)
		return FA_NOTHING;
	if (!f->linked)
		return !f->quantus && !ahead ? FA_NOTHING : FA_WAIT_PARENT;
	if (f->failed)
		return FA_NOTHING;
	if (f->final_number >= 0 && f->ancestor < f->final_number)
		return ahead ? FA_CONTRADICT : FA_NOTHING;
	if ((f->unknown || f->unread) && f->is_cand && !f->cand_over)
		return FA_NOTHING;
	if ((f->unknown || f->unread) && !f->is_cand)
		return f->under_cand ? FA_ASK_WORK : FA_WAIT_WORK;
	if (f->is_cand)
		return f->better ? FA_SWITCH_CAND : FA_DROP_CAND;
	return f->better ? FA_SWITCH : FA_NOTHING;
}

const char *
fork_action_name(enum fork_action a)
{
	static const char *const names[] = { "nothing", "switch",
	    "wait_parent", "contradict", "wait_work", "ask_work",
	    "switch_cand", "drop_cand" };

	return (unsigned)a < sizeof(names) / sizeof(names[0]) ? names[a] :
	    "?";
}
