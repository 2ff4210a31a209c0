/*
 * Forks between endpoints (forks.c): the tips the endpoints of one chain
 * report, grouped into branches by walking parent links through a lookup
 * the caller gives (the store, read-write in chainwatchd, read-only in
 * chainwatch and chainwatch-metrics, a table in the tests); the common
 * ancestor of the branches, each branch's length and work above it; and
 * when a split is recorded and ended.  Pure: no I/O, the clock passed in.
 *
 * Rules:
 * - A tip is on the branch of another when it is that tip or one of its
 *   ancestors: a tip one block behind another is not a split.
 * - A tip that is not stored, or whose ancestry cannot be decided within
 *   FORKS_MAX_STEPS parent links (a block missing, or too deep), has
 *   unknown ancestry: it is neither a branch nor walked.
 * - A tip reported longer ago than forks_stale_ms() is stale: not counted.
 * - A tip below the common ancestor of a split is behind it, not above.
 * - A split (two or more branches) is recorded once it lasted
 *   forks_split_ms(); it ends when the tips are on one branch again.
 *   No known tip at all decides nothing.
 */
#ifndef CW_FORKS_H
#define CW_FORKS_H

#include <stddef.h>
#include <stdint.h>

#include "u512.h"

#define FORKS_MAX_STEPS		1000	/* parent links walked per question */
#define FORKS_STALE_BLOCKS	30	/* a tip older than this many blocks */
#define FORKS_STALE_MIN_MS	60000	/* ... and this: stale */
#define FORKS_SPLIT_BLOCKS	2	/* a split lasts this many blocks */
#define FORKS_SPLIT_MIN_MS	1000	/* ... and this before it counts */

/* A stored block, as far as ancestry and work go. */
struct forks_block {
	uint8_t		hash[32];
	uint8_t		parent[32];
	int64_t		number;
	int		has_work;
	uint8_t		work[U512_BYTES];	/* the difficulty at its parent */
};

/*
 * The block stored under hash: 1 and *b, 0 when not stored, -1 on an
 * error (which the lookup reports itself).
 */
typedef int	forks_lookup_fn(void *ctx, const uint8_t hash[32],
		    struct forks_block *b);

enum forks_tip_kind {
	FORKS_TIP_BRANCH,	/* on branch tip->branch */
	FORKS_TIP_UNKNOWN,	/* ancestry unknown */
	FORKS_TIP_STALE,	/* reported too long ago */
};

/*
 * Above the common ancestor of a split, up to a block.  A tip below the
 * ancestor (an endpoint merely behind: it is on every branch) has length
 * 0 and is behind by that many blocks; never a negative length.
 */
struct forks_above {
	int		known;		/* a split whose ancestor is known */
	int64_t		length;		/* blocks above the ancestor, >= 0 */
	int64_t		behind;		/* blocks below it, >= 0 */
	struct u512	work;		/* their work: see forks_analyse */
	int64_t		work_blocks;	/* how many of them it sums */
};

/* One endpoint's tip: the caller fills the first four fields. */
struct forks_tip {
	int64_t			endpoint_id;
	uint8_t			hash[32];
	int64_t			number;
	int64_t			at;		/* ms, when reported */
	enum forks_tip_kind	kind;
	size_t			branch;		/* FORKS_TIP_BRANCH: which */
	struct forks_above	above;		/* up to this tip */
};

struct forks_branch {
	size_t			head;	/* the tip on it with the most blocks */
	struct forks_above	above;	/* up to that tip */
};

/* What the tips say.  Branches are ordered longest first. */
struct forks_result {
	struct forks_branch	*branches;	/* n_branches of them */
	size_t			 n_branches;
	size_t			 n_unknown, n_stale;
	int			 has_ancestor;	/* of all the branches */
	uint8_t			 ancestor_hash[32];
	int64_t			 ancestor_number;
};

int64_t	forks_stale_ms(int64_t block_time_ms);
/* How far a tip at number is below the ancestor: 0 when at or above it. */
int64_t	forks_behind(int64_t ancestor_number, int64_t number);
int64_t	forks_split_ms(int64_t block_time_ms);

/*
 * Is lo hi or an ancestor of it?  1 yes, 0 no, -1 unknown (a block not
 * stored or more than FORKS_MAX_STEPS links apart), -2 on a lookup error.
 */
int	forks_is_ancestor(forks_lookup_fn *, void *,
	    const struct forks_block *lo, const struct forks_block *hi);
/*
 * The newest common ancestor of a and b into *out: 1, or -1 unknown, -2
 * on a lookup error.
 */
int	forks_common(forks_lookup_fn *, void *, const struct forks_block *a,
	    const struct forks_block *b, struct forks_block *out);

/*
 * Group the n tips into branches as of now; by_work says that work is
 * summed difficulty (quantus: a block whose difficulty is not stored adds
 * nothing and is not counted in work_blocks), else it is the length
 * (substrate).  Sets each tip's kind, branch and above.  Returns 0, or -1 after a lookup
 * error; *r is to be freed with forks_result_free either way.
 */
int	forks_analyse(struct forks_tip *, size_t n, int64_t now,
	    int64_t block_time_ms, int by_work, forks_lookup_fn *, void *,
	    struct forks_result *r);
void	forks_result_free(struct forks_result *);

/* One chain's split as a recorder follows it. */
struct forks_split {
	int64_t		since;		/* ms: first seen split; -1: none */
	int		recorded;	/* a split is open in the store */
};

enum forks_act {
	FORKS_NONE,		/* nothing to write */
	FORKS_OPEN,		/* record a split since ->since */
	FORKS_UPDATE,		/* the open split goes on */
	FORKS_END,		/* the open split has ended */
};

void		forks_split_init(struct forks_split *, int open,
		    int64_t since);
/*
 * The next step, with n_branches seen at now and n_unknown tips whose
 * branch is not known: one branch ends a split only when no tip is
 * unknown.
 */
enum forks_act	forks_split_step(struct forks_split *, size_t n_branches,
		    size_t n_unknown, int64_t now, int64_t split_ms);

#endif
