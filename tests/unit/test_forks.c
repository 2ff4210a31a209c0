/*
 * Forks between endpoints (src/forks.c) over a table of blocks in memory:
 * tips on one branch, two and three branches with their common ancestor,
 * length and work (a shorter branch may be heavier), tips whose ancestry
 * is unknown (not stored, a hole, too deep, a number that lies), stale
 * tips, bounded walks, lookup errors, and when a split is recorded.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "forks.h"

#define MAXB	8192
#define NOW	1764400000000LL
#define BT	1000		/* block time, ms */

struct store {
	struct forks_block	b[MAXB];
	size_t			n;
	unsigned		lookups;
	int			fail;	/* lookups fail */
};

static struct store	s;

/* A block of branch br at number n: its hash says both. */
static void
mkhash(uint8_t h[32], int br, int64_t n)
{
	memset(h, 0, 32);
	h[0] = (uint8_t)(br + 1);
	memcpy(h + 1, &n, sizeof(n));
}

/*
 * Blocks br:from..to, the first one's parent being pbr:from-1, each of
 * work diff (0: not known).
 */
static void
add_run(int br, int64_t from, int64_t to, int pbr, unsigned diff)
{
	for (int64_t n = from; n <= to; n++) {
		struct forks_block *b = &s.b[s.n++];

		assert_true(s.n <= MAXB);
		memset(b, 0, sizeof(*b));
		mkhash(b->hash, br, n);
		mkhash(b->parent, n == from ? pbr : br, n - 1);
		b->number = n;
		if (diff > 0) {
			b->has_work = 1;
			b->work[0] = (uint8_t)diff;
			b->work[1] = (uint8_t)(diff >> 8);
		}
	}
}

static int
lookup(void *ctx, const uint8_t hash[32], struct forks_block *out)
{
	struct store	*st = ctx;

	st->lookups++;
	if (st->fail)
		return -1;
	for (size_t i = 0; i < st->n; i++)
		if (memcmp(st->b[i].hash, hash, 32) == 0) {
			*out = st->b[i];
			return 1;
		}
	return 0;
}

static void
tip(struct forks_tip *t, int64_t ep, int br, int64_t n, int64_t at)
{
	memset(t, 0, sizeof(*t));
	t->endpoint_id = ep;
	mkhash(t->hash, br, n);
	t->number = n;
	t->at = at;
}

/* The main chain 0..200 of difficulty 10, a fork 151..160 of 100. */
static int
setup(void **state)
{
	memset(&s, 0, sizeof(s));
	add_run(0, 0, 200, 0, 10);
	add_run(1, 151, 160, 0, 100);
	return 0;
}

static void
assert_work(const struct u512 *w, uint64_t want)
{
	struct u512	x;

	u512_from_u64(&x, want);
	assert_int_equal(u512_cmp(w, &x), 0);
}

static void
test_one_branch(void **state)
{
	struct forks_tip	t[3];
	struct forks_result	r;

	/* The same tip, one block behind, many behind: one branch. */
	tip(&t[0], 1, 0, 199, NOW);
	tip(&t[1], 2, 0, 200, NOW);
	tip(&t[2], 3, 0, 120, NOW);
	assert_int_equal(forks_analyse(t, 3, NOW, BT, 1, lookup, &s, &r), 0);
	assert_int_equal(r.n_branches, 1);
	assert_int_equal(r.n_unknown, 0);
	assert_false(r.has_ancestor);
	assert_int_equal(r.branches[0].head, 1);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(t[i].kind, FORKS_TIP_BRANCH);
		assert_int_equal(t[i].branch, 0);
	}
	forks_result_free(&r);
}

static void
test_two_branches(void **state)
{
	struct forks_tip	t[3];
	struct forks_result	r;
	uint8_t			anc[32];

	tip(&t[0], 1, 1, 160, NOW);
	tip(&t[1], 2, 0, 200, NOW);
	tip(&t[2], 3, 0, 150, NOW);	/* the ancestor itself */
	assert_int_equal(forks_analyse(t, 3, NOW, BT, 1, lookup, &s, &r), 0);
	assert_int_equal(r.n_branches, 2);
	assert_true(r.has_ancestor);
	assert_int_equal(r.ancestor_number, 150);
	mkhash(anc, 0, 150);
	assert_memory_equal(r.ancestor_hash, anc, 32);
	/* Longest first: the main chain, 50 blocks of 10 ... */
	assert_int_equal(r.branches[0].head, 1);
	assert_true(r.branches[0].above.known);
	assert_int_equal(r.branches[0].above.length, 50);
	assert_work(&r.branches[0].above.work, 500);
	assert_int_equal(r.branches[0].above.work_blocks, 50);
	/* ... then the fork, shorter but heavier: 10 blocks of 100. */
	assert_int_equal(r.branches[1].head, 0);
	assert_int_equal(r.branches[1].above.length, 10);
	assert_work(&r.branches[1].above.work, 1000);
	assert_int_equal(t[0].branch, 1);
	assert_int_equal(t[1].branch, 0);
	assert_int_equal(t[2].branch, 0);
	/* Each tip's own part: the ancestor itself has nothing above. */
	assert_true(t[0].above.known);
	assert_int_equal(t[0].above.length, 10);
	assert_work(&t[0].above.work, 1000);
	assert_true(t[2].above.known);
	assert_int_equal(t[2].above.length, 0);
	assert_work(&t[2].above.work, 0);
	forks_result_free(&r);

	/* A tip behind its branch's head counts up to itself. */
	tip(&t[2], 3, 0, 190, NOW);
	assert_int_equal(forks_analyse(t, 3, NOW, BT, 1, lookup, &s, &r), 0);
	assert_int_equal(r.branches[0].head, 1);
	assert_int_equal(t[2].branch, 0);
	assert_int_equal(t[2].above.length, 40);
	assert_work(&t[2].above.work, 400);
	assert_int_equal(t[2].above.work_blocks, 40);
	assert_int_equal(r.branches[0].above.length, 50);
	forks_result_free(&r);

	/* Substrate: work is the length. */
	assert_int_equal(forks_analyse(t, 3, NOW, BT, 0, lookup, &s, &r), 0);
	assert_work(&r.branches[0].above.work, 50);
	assert_work(&r.branches[1].above.work, 10);
	forks_result_free(&r);

	/*
	 * A tip below the ancestor is merely behind: on the longest
	 * branch, nothing above, 10 behind, either way work is counted.
	 */
	tip(&t[2], 3, 0, 140, NOW);
	for (int by_work = 0; by_work <= 1; by_work++) {
		assert_int_equal(forks_analyse(t, 3, NOW, BT, by_work, lookup,
		    &s, &r), 0);
		assert_int_equal(r.n_branches, 2);
		assert_int_equal(r.ancestor_number, 150);
		assert_int_equal(t[2].kind, FORKS_TIP_BRANCH);
		assert_int_equal(t[2].branch, 0);
		assert_true(t[2].above.known);
		assert_int_equal(t[2].above.length, 0);
		assert_int_equal(t[2].above.behind, 10);
		assert_work(&t[2].above.work, 0);
		assert_int_equal(t[2].above.work_blocks, 0);
		assert_int_equal(t[0].above.behind, 0);
		assert_int_equal(r.branches[0].above.length, 50);
		forks_result_free(&r);
	}
}

static void
test_three_branches(void **state)
{
	struct forks_tip	t[3];
	struct forks_result	r;

	add_run(2, 101, 130, 0, 0);	/* from 100, difficulty unknown */
	tip(&t[0], 1, 1, 160, NOW);
	tip(&t[1], 2, 2, 130, NOW);
	tip(&t[2], 3, 0, 170, NOW);
	assert_int_equal(forks_analyse(t, 3, NOW, BT, 1, lookup, &s, &r), 0);
	assert_int_equal(r.n_branches, 3);
	assert_true(r.has_ancestor);
	assert_int_equal(r.ancestor_number, 100);
	assert_int_equal(r.branches[0].head, 2);
	assert_int_equal(r.branches[0].above.length, 70);
	assert_int_equal(r.branches[1].head, 0);
	assert_int_equal(r.branches[1].above.length, 60);
	/* 50 blocks of 10 on the main chain, then 10 of 100. */
	assert_work(&r.branches[1].above.work, 1500);
	assert_int_equal(r.branches[2].above.length, 30);
	assert_work(&r.branches[2].above.work, 0);
	assert_int_equal(r.branches[2].above.work_blocks, 0);
	forks_result_free(&r);
}

/* Same height, two hashes: a split, ancestor one below. */
static void
test_same_height(void **state)
{
	struct forks_tip	t[2];
	struct forks_result	r;

	add_run(3, 200, 200, 0, 10);
	tip(&t[0], 1, 0, 200, NOW);
	tip(&t[1], 2, 3, 200, NOW);
	assert_int_equal(forks_analyse(t, 2, NOW, BT, 1, lookup, &s, &r), 0);
	assert_int_equal(r.n_branches, 2);
	assert_int_equal(r.ancestor_number, 199);
	assert_int_equal(r.branches[0].head, 0);	/* the first listed */
	assert_int_equal(r.branches[0].above.length, 1);
	assert_int_equal(r.branches[1].above.length, 1);
	forks_result_free(&r);
}

static void
test_unknown(void **state)
{
	struct forks_tip	t[4];
	struct forks_result	r;

	/* Not stored; stored under another number than claimed. */
	tip(&t[0], 1, 7, 201, NOW);
	tip(&t[1], 2, 0, 200, NOW);
	tip(&t[2], 3, 1, 155, NOW);
	t[2].number = 4294967295LL;
	/* A branch with a hole: 171 missing. */
	add_run(4, 170, 170, 0, 10);
	add_run(4, 172, 180, 4, 10);
	tip(&t[3], 4, 4, 180, NOW);
	assert_int_equal(forks_analyse(t, 4, NOW, BT, 1, lookup, &s, &r), 0);
	assert_int_equal(t[0].kind, FORKS_TIP_UNKNOWN);
	assert_int_equal(t[1].kind, FORKS_TIP_BRANCH);
	assert_int_equal(t[2].kind, FORKS_TIP_UNKNOWN);
	/* Another branch for sure, but where it leaves is not known. */
	assert_int_equal(t[3].kind, FORKS_TIP_BRANCH);
	assert_int_equal(r.n_branches, 2);
	assert_int_equal(r.n_unknown, 2);
	assert_false(r.has_ancestor);
	assert_false(r.branches[1].above.known);
	forks_result_free(&r);
}

/* Too deep to tell, and every walk bounded whatever the numbers. */
static void
test_bounded(void **state)
{
	struct forks_tip	t[2];
	struct forks_result	r;
	struct forks_block	a, b, c;

	add_run(0, 201, 3000, 0, 10);
	tip(&t[0], 1, 0, 3000, NOW);
	tip(&t[1], 2, 0, 100, NOW);
	s.lookups = 0;
	assert_int_equal(forks_analyse(t, 2, NOW, BT, 1, lookup, &s, &r), 0);
	assert_int_equal(t[0].kind, FORKS_TIP_BRANCH);
	assert_int_equal(t[1].kind, FORKS_TIP_UNKNOWN);
	assert_true(s.lookups <= 2);
	forks_result_free(&r);

	/* Within the bound it is known. */
	tip(&t[1], 2, 0, 3000 - FORKS_MAX_STEPS, NOW);
	assert_int_equal(forks_analyse(t, 2, NOW, BT, 1, lookup, &s, &r), 0);
	assert_int_equal(r.n_branches, 1);
	assert_int_equal(t[1].kind, FORKS_TIP_BRANCH);
	forks_result_free(&r);

	/* A common ancestor further than the bound is unknown. */
	add_run(5, 1500, 3000, 0, 10);
	a = s.b[s.n - 1];
	assert_int_equal(lookup(&s, a.hash, &b), 1);
	mkhash(c.hash, 0, 3000);
	assert_int_equal(lookup(&s, c.hash, &c), 1);
	s.lookups = 0;
	assert_int_equal(forks_common(lookup, &s, &a, &c, &b), -1);
	assert_true(s.lookups <= 2 * FORKS_MAX_STEPS + 2);
	assert_int_equal(forks_is_ancestor(lookup, &s, &a, &c), 0);
}

static void
test_stale(void **state)
{
	struct forks_tip	t[2];
	struct forks_result	r;

	tip(&t[0], 1, 1, 160, NOW - forks_stale_ms(BT) - 1);
	tip(&t[1], 2, 0, 200, NOW - forks_stale_ms(BT));
	assert_int_equal(forks_analyse(t, 2, NOW, BT, 1, lookup, &s, &r), 0);
	assert_int_equal(t[0].kind, FORKS_TIP_STALE);
	assert_int_equal(r.n_stale, 1);
	assert_int_equal(r.n_branches, 1);
	forks_result_free(&r);
	assert_int_equal(forks_stale_ms(12000), 30 * 12000);
	assert_int_equal(forks_stale_ms(100), FORKS_STALE_MIN_MS);
}

static void
test_lookup_error(void **state)
{
	struct forks_tip	t[2];
	struct forks_result	r;

	tip(&t[0], 1, 1, 160, NOW);
	tip(&t[1], 2, 0, 200, NOW);
	s.fail = 1;
	assert_int_equal(forks_analyse(t, 2, NOW, BT, 1, lookup, &s, &r), -1);
	forks_result_free(&r);
	assert_int_equal(forks_analyse(t, 0, NOW, BT, 1, lookup, &s, &r), 0);
	assert_int_equal(r.n_branches, 0);
	forks_result_free(&r);
}

static void
test_split_steps(void **state)
{
	struct forks_split	sp;
	int64_t			ms = forks_split_ms(BT), t0 = NOW;

	assert_int_equal(ms, 2 * BT);
	assert_int_equal(forks_split_ms(100), FORKS_SPLIT_MIN_MS);
	forks_split_init(&sp, 0, 0);
	assert_int_equal(forks_split_step(&sp, 1, 0, t0, ms), FORKS_NONE);
	/* A fork that resolves within the time is not recorded. */
	assert_int_equal(forks_split_step(&sp, 2, 0, t0, ms), FORKS_NONE);
	assert_int_equal(forks_split_step(&sp, 2, 0, t0 + ms - 1, ms), FORKS_NONE);
	assert_int_equal(forks_split_step(&sp, 1, 0, t0 + ms, ms), FORKS_NONE);
	/* One that lasts is, from when it was first seen. */
	assert_int_equal(forks_split_step(&sp, 2, 0, t0 + 10, ms), FORKS_NONE);
	assert_int_equal(sp.since, t0 + 10);
	/* A clock that steps back stands still. */
	assert_int_equal(forks_split_step(&sp, 2, 0, t0 - 5000, ms), FORKS_NONE);
	assert_int_equal(forks_split_step(&sp, 3, 0, t0 + 10 + ms, ms),
	    FORKS_OPEN);
	assert_int_equal(sp.since, t0 + 10);
	assert_int_equal(forks_split_step(&sp, 2, 0, t0 + 20 + ms, ms),
	    FORKS_UPDATE);
	/* No known tip decides nothing. */
	assert_int_equal(forks_split_step(&sp, 0, 0, t0 + 30 + ms, ms),
	    FORKS_NONE);
	/* Nor one branch beside a tip whose place is not known yet. */
	assert_int_equal(forks_split_step(&sp, 1, 1, t0 + 35 + ms, ms),
	    FORKS_NONE);
	assert_int_equal(forks_split_step(&sp, 2, 1, t0 + 36 + ms, ms),
	    FORKS_UPDATE);
	assert_int_equal(forks_split_step(&sp, 1, 0, t0 + 40 + ms, ms), FORKS_END);
	assert_int_equal(forks_split_step(&sp, 1, 0, t0 + 50 + ms, ms),
	    FORKS_NONE);
	/* One left open in the store goes on, or ends; a restart that
	 * does not know where a tip is yet ends nothing. */
	forks_split_init(&sp, 1, t0);
	assert_int_equal(forks_split_step(&sp, 1, 1, t0 + 1, ms), FORKS_NONE);
	assert_int_equal(forks_split_step(&sp, 2, 0, t0 + 1, ms), FORKS_UPDATE);
	assert_int_equal(forks_split_step(&sp, 1, 0, t0 + 2, ms), FORKS_END);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_one_branch, setup),
		cmocka_unit_test_setup(test_two_branches, setup),
		cmocka_unit_test_setup(test_three_branches, setup),
		cmocka_unit_test_setup(test_same_height, setup),
		cmocka_unit_test_setup(test_unknown, setup),
		cmocka_unit_test_setup(test_bounded, setup),
		cmocka_unit_test_setup(test_stale, setup),
		cmocka_unit_test_setup(test_lookup_error, setup),
		cmocka_unit_test(test_split_steps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
