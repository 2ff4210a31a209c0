/*
 * Fork choice as pure functions (sup_fork.c): the walk of a branch to the
 * canonical chain and the comparison of their work, through a small
 * lookup of stored blocks (the store in the daemon, arrays in the tests),
 * and the decision for a block that may become the best, as one step
 * over what they found.  sup_choice.c applies the decisions.
 *
 * fork_step, row by row (first match; "cand": the branch waiting for its
 * work, "over": its wait is over; "ahead": tip above the best):
 *
 *   no best yet                                      FA_SWITCH
 *   tip already canonical                            FA_NOTHING
 *   not linked, Substrate, not ahead                 FA_NOTHING
 *   not linked                                       FA_WAIT_PARENT
 *   a seal of the branch has the wrong shape         FA_NOTHING
 *   forks below finality, not ahead                  FA_NOTHING
 *   forks below finality, ahead                      FA_CONTRADICT
 *   work unknown or unread, tip is cand, not over    FA_NOTHING
 *   work unknown or unread, tip is not cand,
 *     descends from it                               FA_ASK_WORK
 *   work unknown or unread, tip is not cand          FA_WAIT_WORK
 *   tip is cand, better                              FA_SWITCH_CAND
 *   tip is cand, not better                          FA_DROP_CAND
 *   better                                           FA_SWITCH
 *   not better                                       FA_NOTHING
 *
 * "better" with the work unknown (cand over) is the longer branch.
 * "unread": the tip is better by a work that is one endpoint's word
 * (fork_unread) and a second endpoint can be asked; the wait asks it,
 * and when it is over the works as read decide.
 */
#ifndef CW_SUP_FORK_H
#define CW_SUP_FORK_H

#include <stdint.h>

#include "sup_standing.h"

/* The stored blocks: 1 if found (by hash; the canonical one at number). */
struct fork_view {
	void	*ctx;
	int	(*by_hash)(void *ctx, const uint8_t hash[32], struct sblock *);
	int	(*canonical_at)(void *ctx, int64_t number, struct sblock *);
};

/* What fork choice knows of the chain. */
struct fork_chain {
	int		quantus;	/* by work; else by length */
	int		have_best;
	int64_t		best_number;
	int64_t		final_number;	/* -1: none */
	int64_t		backfill_from;
	int64_t		finality;	/* blocks compared by work, each side */
};

int	fork_walk(const struct fork_view *, const struct fork_chain *,
	    const struct sblock *tip, int64_t *ancestor, uint8_t missing[32],
	    int64_t *missing_number);
int	fork_better(const struct fork_view *, const struct fork_chain *,
	    const struct sblock *tip, int64_t ancestor, int *unknown);
int	fork_unread(const struct fork_view *, const struct fork_chain *,
	    const struct sblock *tip, int64_t ancestor);
int	fork_failed(const struct fork_view *, const struct sblock *tip,
	    int64_t ancestor);
int	fork_descends(const struct fork_view *, const struct sblock *tip,
	    const uint8_t hash[32], int64_t number, int64_t within);

/* What the walk and the comparison found for one tip. */
struct fork_facts {
	int		have_best;
	int		canonical;	/* the tip is canonical already */
	int		linked;		/* fork_walk reached the chain */
	int		failed;		/* fork_failed: a seal's shape */
	int		quantus;
	int64_t		tip_number;
	int64_t		best_number;
	int64_t		ancestor;
	int64_t		final_number;	/* -1: none */
	int		unknown;	/* the work of a side is not known */
	int		unread;		/* one is one endpoint's word, and a
					 * second endpoint can be asked */
	int		better;		/* fork_better */
	int		is_cand;	/* the tip is the branch waiting */
	int		cand_over;	/* its wait is over */
	int		under_cand;	/* the tip descends from it */
};

enum fork_action {
	FA_NOTHING,		/* the canonical chain stays */
	FA_SWITCH,		/* the tip becomes the best */
	FA_WAIT_PARENT,		/* its branch lacks a block: fetch, wait */
	FA_CONTRADICT,		/* ahead, but forks below finality: a lie */
	FA_WAIT_WORK,		/* its work is asked for: it is the cand */
	FA_ASK_WORK,		/* a child of the cand: its work asked too */
	FA_SWITCH_CAND,		/* the cand wins: it and its children */
	FA_DROP_CAND		/* the cand loses: forgotten */
};

enum fork_action fork_step(const struct fork_facts *);
const char	*fork_action_name(enum fork_action);

#endif
