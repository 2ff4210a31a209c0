/*
 * Views: what a node with a given head serves.  Without a split that is
 * the simulated chain seen from the head; with one, the shared chain up
 * to the block the split left it at, then the split's own branch.  Side
 * blocks (old splits, forgeries) stay answerable by hash, as a node
 * keeps the blocks it has seen.
 */
#include "config.h"

#include "dev.h"

/* The position of the shared chain this view shows. */
static uint64_t
main_head(const struct dev_view *v)
{
	return v->split.on ? v->split.base_pos : v->pos;
}

int
dev_view_block_at(const struct dev_view *v, uint64_t n,
    struct dev_blkref *ref)
{
	if (n > v->head)
		return -1;
	if (!v->split.on || n <= v->split.base)
		return dev_chain_block_at(v->chain, main_head(v), n, ref);
	if (n - v->split.base > v->split.len)
		return -1;
	ref->number = n;
	ref->branch = DEV_BRANCH_SIDE | (v->split.first + n - v->split.base -
	    1);
	return 0;
}

/* 1 if side block ref is on the split branch this view shows. */
static int
on_split(const struct dev_view *v, const struct dev_blkref *ref)
{
	struct dev_blkref	mine;

	return v->split.on && ref->number > v->split.base &&
	    dev_view_block_at(v, ref->number, &mine) == 0 &&
	    mine.branch == ref->branch;
}

int
dev_view_lookup(const struct dev_view *v, const uint8_t hash[32],
    struct dev_blkref *ref)
{
	if (dev_chain_lookup(v->chain, main_head(v), hash, ref) == 0)
		return 0;
	if (dev_chain_side_lookup(v->chain, hash, ref) == -1)
		return -1;
	/* This split's blocks above the view's head: not made for it yet. */
	if (v->split.on && ref->number > v->head &&
	    (ref->branch & ~DEV_BRANCH_SIDE) >= v->split.first)
		return -1;
	return 0;
}

int
dev_view_is_best(const struct dev_view *v, const struct dev_blkref *ref)
{
	if (dev_blkref_side(ref))
		return on_split(v, ref);
	if (v->split.on && ref->number > v->split.base)
		return 0;
	return dev_chain_is_best(v->chain, main_head(v), ref);
}

uint64_t
dev_view_finalized(const struct dev_view *v)
{
	uint64_t	lag = dev_chain_timing(v->chain)->finality_lag;

	return v->head > lag ? v->head - lag : 0;
}

int
dev_view_same_block(const struct dev_view *a, const struct dev_view *b,
    uint64_t n)
{
	struct dev_blkref	ra, rb;

	if (a->chain != b->chain || dev_view_block_at(a, n, &ra) == -1 ||
	    dev_view_block_at(b, n, &rb) == -1)
		return 0;
	return ra.number == rb.number && ra.branch == rb.branch;
}

static const enum dev_fault_id head_lies[] = {
	FAULT_FORGE_HEAD, FAULT_FORGE_CHAIN, FAULT_BAD_NUMBER, FAULT_BAD_SEAL,
};

int
dev_view_forged_head(const struct dev_view *v,
    const struct dev_fault_view *fv, struct dev_blkref *ref)
{
	size_t	i;

	for (i = 0; i < sizeof(head_lies) / sizeof(head_lies[0]); i++)
		if ((v->lies & (1u << head_lies[i])) &&
		    dev_fault_hit(fv, head_lies[i])) {
			*ref = v->lie[head_lies[i]];
			return 1;
		}
	return 0;
}

void
dev_view_finalized_ref(const struct dev_view *v,
    const struct dev_fault_view *fv, struct dev_blkref *ref)
{
	if ((v->lies & (1u << FAULT_FINALIZED_OFF)) &&
	    dev_fault_hit(fv, FAULT_FINALIZED_OFF)) {
		*ref = v->lie[FAULT_FINALIZED_OFF];
		return;
	}
	dev_view_block_at(v, dev_view_finalized(v), ref);
}

/*
 * wrong_header: instead of block `ref`, the next block of the best
 * chain (the one before it for the head); 1 if ref was changed.
 */
int
dev_view_wrong_block(const struct dev_view *v,
    const struct dev_fault_view *fv, struct dev_blkref *ref)
{
	struct dev_blkref	other;

	if (!dev_fault_hit(fv, FAULT_WRONG_HEADER))
		return 0;
	if (dev_view_block_at(v, ref->number + 1, &other) == 0 ||
	    (ref->number > 0 &&
	    dev_view_block_at(v, ref->number - 1, &other) == 0)) {
		*ref = other;
		return 1;
	}
	return 0;
}
