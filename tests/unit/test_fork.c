/*
 * Fork choice's pure rules (sup_fork.c): every row of fork_step's table
 * (sup_fork.h), and the walk, the work comparison and the descent over a
 * small chain kept in an array instead of the store.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sup_fork.h"

/* ---- fork_step, row by row ---- */

/* A tip above the best, linked above finality, work known, better. */
static struct fork_facts
base(void)
{
	struct fork_facts	f;

	memset(&f, 0, sizeof(f));
	f.have_best = 1;
	f.linked = 1;
	f.quantus = 1;
	f.tip_number = 110;
	f.best_number = 109;
	f.ancestor = 105;
	f.final_number = 9;
	f.better = 1;
	return f;
}

static void
test_step_rows(void **state)
{
	struct fork_facts	f;

	/* no best yet: whatever else is true */
	f = base(); f.have_best = 0; f.canonical = 1; f.linked = 0;
	assert_int_equal(fork_step(&f), FA_SWITCH);
	/* tip already canonical */
	f = base(); f.canonical = 1;
	assert_int_equal(fork_step(&f), FA_NOTHING);
	/* not linked, Substrate, not ahead */
	f = base(); f.linked = 0; f.quantus = 0; f.tip_number = 109;
	assert_int_equal(fork_step(&f), FA_NOTHING);
	/* not linked: Substrate ahead, Quantus ahead or not (a shorter,
	 * heavier branch can win) */
	f = base(); f.linked = 0; f.quantus = 0;
	assert_int_equal(fork_step(&f), FA_WAIT_PARENT);
	f = base(); f.linked = 0; f.tip_number = 100;
	assert_int_equal(fork_step(&f), FA_WAIT_PARENT);
	/* a seal of the branch has the wrong shape: never the chain,
	 * however better, whatever its work or its place */
	f = base(); f.failed = 1;
	assert_int_equal(fork_step(&f), FA_NOTHING);
	f = base(); f.failed = 1; f.is_cand = 1;
	assert_int_equal(fork_step(&f), FA_NOTHING);
	f = base(); f.failed = 1; f.unknown = 1;
	assert_int_equal(fork_step(&f), FA_NOTHING);
	/* forks below finality, not ahead */
	f = base(); f.final_number = 106; f.tip_number = 109;
	assert_int_equal(fork_step(&f), FA_NOTHING);
	/* forks below finality, ahead: a lie, better or not */
	f = base(); f.final_number = 106;
	assert_int_equal(fork_step(&f), FA_CONTRADICT);
	f = base(); f.final_number = 106; f.better = 0; f.unknown = 1;
	assert_int_equal(fork_step(&f), FA_CONTRADICT);
	/* at finality is above it */
	f = base(); f.final_number = 105;
	assert_int_equal(fork_step(&f), FA_SWITCH);
	/*
	 * The same rows with the work unknown (k 0) or a work unread (k 1).
	 * (A cand over decides by "better": the longer branch when the work
	 * is unknown, the works as read when unread.)
	 */
	for (int k = 0; k < 2; k++) {
		struct fork_facts w = base();

		w.unknown = k == 0;
		w.unread = k == 1;
		/* tip is cand, not over: wait on */
		f = w; f.is_cand = 1;
		assert_int_equal(fork_step(&f), FA_NOTHING);
		/* a child of the cand */
		f = w; f.under_cand = 1;
		assert_int_equal(fork_step(&f), FA_ASK_WORK);
		/* not the cand: it becomes the cand */
		f = w;
		assert_int_equal(fork_step(&f), FA_WAIT_WORK);
		f = w; f.better = 0;
		assert_int_equal(fork_step(&f), FA_WAIT_WORK);
		/* the cand, its wait over */
		f = w; f.is_cand = 1; f.cand_over = 1;
		assert_int_equal(fork_step(&f), FA_SWITCH_CAND);
		f = w; f.is_cand = 1; f.cand_over = 1; f.better = 0;
		assert_int_equal(fork_step(&f), FA_DROP_CAND);
		/* a seal's shape first */
		f = w; f.failed = 1;
		assert_int_equal(fork_step(&f), FA_NOTHING);
	}
	/* the cand, its work known before its wait was over */
	f = base(); f.is_cand = 1;
	assert_int_equal(fork_step(&f), FA_SWITCH_CAND);
	f = base(); f.is_cand = 1; f.better = 0;
	assert_int_equal(fork_step(&f), FA_DROP_CAND);
	/* better, or not */
	f = base();
	assert_int_equal(fork_step(&f), FA_SWITCH);
	f = base(); f.better = 0;
	assert_int_equal(fork_step(&f), FA_NOTHING);
	/* known work: a child of the cand is judged as any branch */
	f = base(); f.under_cand = 1;
	assert_int_equal(fork_step(&f), FA_SWITCH);
	assert_string_equal(fork_action_name(FA_DROP_CAND), "drop_cand");
	assert_string_equal(fork_action_name((enum fork_action)99), "?");
}

/* ---- a chain in an array ---- */

/*
 * Canonical: A0..A10.  Branch B forks at 7: B8..B11.  Work (and the
 * difficulty read at it) 10 on A, b_diff on B; a block can be left out
 * of the array, or its work unknown.
 */
#define NB	32
static struct sblock	blocks[NB];
static size_t		nblocks;

static void
mkhash(uint8_t h[32], int branch, int64_t n)
{
	memset(h, 0, 32);
	h[0] = (uint8_t)branch;
	memcpy(h + 1, &n, sizeof(n));
}

static struct sblock *
add(int branch, int64_t n, int parent_branch, uint64_t diff, int canonical)
{
	struct sblock	*b = &blocks[nblocks++];

	memset(b, 0, sizeof(*b));
	mkhash(b->hash, branch, n);
	if (n > 0)
		mkhash(b->parent, parent_branch, n - 1);
	b->number = n;
	b->canonical = canonical;
	b->proven = 1;
	b->has_pow = 1;
	memset(b->pow_max, 0xff, sizeof(b->pow_max));	/* meets anything */
	if (diff > 0) {
		b->has_diff = b->has_work = 1;
		memcpy(b->diff, &diff, sizeof(diff));	/* little-endian */
		memcpy(b->work, &diff, sizeof(diff));
	}
	return b;
}

static void
build(uint64_t b_diff)
{
	nblocks = 0;
	for (int64_t n = 0; n <= 10; n++)
		add('A', n, 'A', 10, 1);
	for (int64_t n = 8; n <= 11; n++)
		add('B', n, n == 8 ? 'A' : 'B', b_diff, 0);
}

static struct sblock *
find(int branch, int64_t n)
{
	uint8_t	h[32];

	mkhash(h, branch, n);
	for (size_t i = 0; i < nblocks; i++)
		if (memcmp(blocks[i].hash, h, 32) == 0)
			return &blocks[i];
	return NULL;
}

/* b's seal meets at most v. */
static void
pow_meets(struct sblock *b, uint8_t v)
{
	if (b == NULL)
		abort();
	memset(b->pow_max, 0, sizeof(b->pow_max));
	b->pow_max[0] = v;
}

static void
drop(int branch, int64_t n)
{
	struct sblock	*b = find(branch, n);

	*b = blocks[--nblocks];
}

static int
by_hash(void *ctx, const uint8_t hash[32], struct sblock *out)
{
	for (size_t i = 0; i < nblocks; i++)
		if (memcmp(blocks[i].hash, hash, 32) == 0) {
			*out = blocks[i];
			return 1;
		}
	return 0;
}

static int
canonical_at(void *ctx, int64_t number, struct sblock *out)
{
	for (size_t i = 0; i < nblocks; i++)
		if (blocks[i].canonical && blocks[i].number == number) {
			*out = blocks[i];
			return 1;
		}
	return 0;
}

static const struct fork_view	view = { NULL, by_hash, canonical_at };

static struct fork_chain
chain(int quantus, int64_t final)
{
	struct fork_chain	c = { quantus, 1, 10, final, 0, 100 };

	return c;
}

static void
test_walk(void **state)
{
	struct fork_chain	c = chain(1, -1);
	uint8_t			missing[32], want[32];
	int64_t			anc = -2, mn = -2;

	build(10);
	assert_int_equal(fork_walk(&view, &c, find('B', 11), &anc, missing,
	    &mn), 0);
	assert_int_equal(anc, 7);
	/* A canonical block's walk ends at its parent. */
	assert_int_equal(fork_walk(&view, &c, find('A', 10), &anc, missing,
	    &mn), 0);
	assert_int_equal(anc, 9);
	/* B9 not stored: the walk stops there and names it. */
	drop('B', 9);
	assert_int_equal(fork_walk(&view, &c, find('B', 11), &anc, missing,
	    &mn), -1);
	mkhash(want, 'B', 9);
	assert_memory_equal(missing, want, 32);
	assert_int_equal(mn, 9);
	/* Below finality the walk stops: the ancestor is "at most". */
	build(10);
	c = chain(1, 8);
	assert_int_equal(fork_walk(&view, &c, find('B', 11), &anc, missing,
	    &mn), 0);
	assert_int_equal(anc, 7);
	/* The chain's start (backfill_from) ends a walk too. */
	c = chain(1, -1);
	c.backfill_from = 9;
	assert_int_equal(fork_walk(&view, &c, find('B', 11), &anc, missing,
	    &mn), 0);
	assert_int_equal(anc, 8);
}

/*
 * A seal of the wrong shape anywhere on the branch above the ancestor,
 * and only there; a seal below its parent's difficulty counts only when
 * two endpoints answered that difficulty alike.
 */
static void
test_failed(void **state)
{
	build(10);
	assert_int_equal(fork_failed(&view, find('B', 11), 7), 0);
	find('B', 9)->proven = -1;	/* not checked yet is no failure */
	assert_int_equal(fork_failed(&view, find('B', 11), 7), 0);
	find('B', 9)->proven = 0;	/* below the difficulty claimed */
	find('B', 9)->has_pow = 1;
	assert_int_equal(fork_failed(&view, find('B', 11), 7), 0);
	find('B', 9)->has_pow = 0;	/* the wrong shape */
	assert_int_equal(fork_failed(&view, find('B', 11), 7), 1);
	assert_int_equal(fork_failed(&view, find('B', 9), 7), 1);
	assert_int_equal(fork_failed(&view, find('B', 8), 7), 0);
	/* The tip itself; the ancestor and below are not the branch. */
	build(10);
	find('B', 11)->proven = 0;
	find('B', 11)->has_pow = 0;
	assert_int_equal(fork_failed(&view, find('B', 11), 7), 1);
	build(10);
	find('A', 7)->proven = 0;
	find('A', 7)->has_pow = 0;
	assert_int_equal(fork_failed(&view, find('B', 11), 7), 0);
	/* Below a difficulty two endpoints answered alike: refused too ... */
	build(10);
	find('B', 10)->proven = 0;
	assert_int_equal(fork_failed(&view, find('B', 11), 7), 0);
	find('B', 9)->cross_read = 1;
	assert_int_equal(fork_failed(&view, find('B', 11), 7), 1);
	/* ... the branch's first block too, against the ancestor's. */
	build(10);
	find('B', 8)->proven = 0;
	assert_int_equal(fork_failed(&view, find('B', 11), 7), 0);
	find('A', 7)->cross_read = 1;
	assert_int_equal(fork_failed(&view, find('B', 11), 7), 1);
	/* A block it cannot read ends the walk. */
	build(10);
	find('B', 8)->proven = 0;
	find('B', 8)->has_pow = 0;
	drop('B', 9);
	assert_int_equal(fork_failed(&view, find('B', 11), 7), 0);
}

static void
test_better(void **state)
{
	struct fork_chain	c = chain(1, -1);
	int			unknown = -1;

	/*
	 * Quantus: above #7, each side's first block met #7's difficulty,
	 * so B9..B11 are summed against A9..A10.  3 x 10 against 2 x 10:
	 * heavier.
	 */
	build(10);
	assert_int_equal(fork_better(&view, &c, find('B', 11), 7, &unknown),
	    1);
	assert_int_equal(unknown, 0);
	/* 3 x 6 against 20: longer but lighter. */
	build(6);
	assert_int_equal(fork_better(&view, &c, find('B', 11), 7, &unknown),
	    0);
	assert_int_equal(unknown, 0);
	/* As long and heavier: B9..B10 at 11 against A9..A10 at 10. */
	build(11);
	assert_int_equal(fork_better(&view, &c, find('B', 10), 7, &unknown),
	    1);
	/* Equal work, as high: the canonical one stays ... */
	build(10);
	assert_int_equal(fork_better(&view, &c, find('B', 10), 7, &unknown),
	    0);
	/* ... equal work, higher: the higher, as the node chooses. */
	build(10);
	find('B', 9)->work[0] = 5;
	find('B', 10)->work[0] = 5;
	assert_int_equal(fork_better(&view, &c, find('B', 11), 7, &unknown),
	    1);
	find('B', 10)->work[0] = 4;
	assert_int_equal(fork_better(&view, &c, find('B', 11), 7, &unknown),
	    0);
	/* The first blocks' work is not needed: the ancestor's. */
	build(10);
	find('B', 8)->has_work = 0;
	find('A', 8)->has_work = 0;
	assert_int_equal(fork_better(&view, &c, find('B', 11), 7, &unknown),
	    1);
	assert_int_equal(unknown, 0);
	/*
	 * Copied seals: the branch claims 1000 a block, its seals meet 3;
	 * it weighs 9 against 20.  The canonical side's seals meet less
	 * than claimed too: capped alike (2 x 3 = 6 against 9).
	 */
	build(1000);
	for (int64_t n = 8; n <= 11; n++)
		pow_meets(find('B', n), 3);
	assert_int_equal(fork_better(&view, &c, find('B', 11), 7, &unknown),
	    0);
	assert_int_equal(unknown, 0);
	pow_meets(find('A', 9), 3);
	pow_meets(find('A', 10), 3);
	assert_int_equal(fork_better(&view, &c, find('B', 11), 7, &unknown),
	    1);
	/* A block without a bound (substrate, or none sent) is not capped. */
	build(1000);
	for (int64_t n = 8; n <= 11; n++)
		find('B', n)->has_pow = 0;
	assert_int_equal(fork_better(&view, &c, find('B', 11), 7, &unknown),
	    1);
	/* A work of the branch unknown: the longer, and said so. */
	build(6);
	find('B', 9)->has_work = 0;
	assert_int_equal(fork_better(&view, &c, find('B', 11), 7, &unknown),
	    1);
	assert_int_equal(unknown, 1);
	/* ... or of the canonical side. */
	build(6);
	find('A', 9)->has_work = 0;
	assert_int_equal(fork_better(&view, &c, find('B', 10), 7, &unknown),
	    0);
	assert_int_equal(unknown, 1);
	/* Extending the best is better, whatever the work. */
	build(1);
	assert_int_equal(fork_better(&view, &c, find('B', 11), 10, &unknown),
	    1);
	assert_int_equal(unknown, 0);
	/* Substrate: the longer, never unknown. */
	c = chain(0, -1);
	build(0);
	assert_int_equal(fork_better(&view, &c, find('B', 11), 7, &unknown),
	    1);
	assert_int_equal(unknown, 0);
	assert_int_equal(fork_better(&view, &c, find('B', 10), 7, &unknown),
	    0);
	/* Quantus beyond twice the finality depth: by length too. */
	c = chain(1, -1);
	c.finality = 1;
	build(1);
	assert_int_equal(fork_better(&view, &c, find('B', 11), 7, &unknown),
	    1);
	assert_int_equal(unknown, 0);
}

/*
 * The works fork_better compares rest on the difficulties at B8..B10
 * (B9..B11's) and A8..A9 (A9..A10's): any of them read by one endpoint
 * only (cross_read -1) or owed a second read (0) is unread; the
 * ancestor's, the tips' and those below are not compared.
 */
static void
test_unread(void **state)
{
	static const struct { int br; int64_t n; int unread; } at[] = {
		{ 'B', 8, 1 }, { 'B', 9, 1 }, { 'B', 10, 1 }, { 'A', 8, 1 },
		{ 'A', 9, 1 }, { 'A', 7, 0 }, { 'A', 10, 0 }, { 'B', 11, 0 },
		{ 'A', 5, 0 },
	};
	struct fork_chain	c = chain(1, -1);

	(void)state;
	build(10);
	for (size_t i = 0; i < nblocks; i++)
		blocks[i].cross_read = 1;
	assert_int_equal(fork_unread(&view, &c, find('B', 11), 7), 0);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		for (int cr = -1; cr <= 0; cr++) {
			find(at[i].br, at[i].n)->cross_read = cr;
			if (fork_unread(&view, &c, find('B', 11), 7) !=
			    at[i].unread)
				fail_msg("%c%lld at %d: unread %d", at[i].br,
				    (long long)at[i].n, cr, !at[i].unread);
			find(at[i].br, at[i].n)->cross_read = 1;
		}
	find('A', 9)->cross_read = -1;
	assert_int_equal(fork_unread(&view, &c, find('B', 11), 7), 1);
	/* Not where no work is compared: Substrate, deeper than twice the
	 * finality, a tip that extends the best. */
	c.quantus = 0;
	assert_int_equal(fork_unread(&view, &c, find('B', 11), 7), 0);
	c = chain(1, -1);
	c.finality = 1;
	assert_int_equal(fork_unread(&view, &c, find('B', 11), 7), 0);
	c = chain(1, -1);
	assert_int_equal(fork_unread(&view, &c, find('B', 11), 10), 0);
	/* A block of the branch missing: its work is unknown instead. */
	drop('B', 9);
	find('A', 9)->cross_read = 1;
	find('B', 10)->cross_read = 1;
	assert_int_equal(fork_unread(&view, &c, find('B', 11), 7), 0);
}

static void
test_descends(void **state)
{
	uint8_t	h[32];

	build(10);
	mkhash(h, 'B', 9);
	assert_int_equal(fork_descends(&view, find('B', 11), h, 9, 100), 1);
	mkhash(h, 'A', 9);
	assert_int_equal(fork_descends(&view, find('B', 11), h, 9, 100), 0);
	mkhash(h, 'A', 7);
	assert_int_equal(fork_descends(&view, find('B', 11), h, 7, 100), 1);
	/* Not further down than asked, nor at or above the tip. */
	assert_int_equal(fork_descends(&view, find('B', 11), h, 7, 3), 0);
	mkhash(h, 'B', 11);
	assert_int_equal(fork_descends(&view, find('B', 11), h, 11, 100), 0);
	/* A gap on the way: not known to descend. */
	drop('B', 9);
	mkhash(h, 'A', 7);
	assert_int_equal(fork_descends(&view, find('B', 11), h, 7, 100), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_rows),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_failed),
		cmocka_unit_test(test_better),
		cmocka_unit_test(test_unread),
		cmocka_unit_test(test_descends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
