/*
 * Fork choice applied: a stored block becomes the best when its branch
 * links to the canonical chain through stored blocks, forks above
 * finality and is better (heavier on Quantus, its work read first when
 * not known; longer on Substrate); the switch, with its reorg row, is one
 * transaction.  The rules are sup_fork.c's, pure; this file gathers what
 * they need from the store and does what they decide.
 */
#include "config.h"

#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "log.h"
#include "sup_block.h"
#include "sup_chain.h"
#include "sup_choice.h"
#include "sup_claim.h"
#include "sup_final.h"
#include "sup_fork.h"
#include "sup_queue.h"
#include "sup_seal.h"
#include "sup_standing.h"
#include "sup_store.h"
#include "sup_window.h"
#include "u512.h"
#include "util.h"

static struct store_stmt s_reorg = { "INSERT INTO reorgs (chain_id, at, "
    "depth, ancestor_number, old_tip, new_tip, endpoint_id) VALUES "
    "(?, ?, ?, ?, ?, ?, ?)", NULL, NULL };

/*
 * b has just become canonical: make its ancestors canonical down to where
 * the canonical chain already links, displacing what conflicts.  Returns
 * the number of blocks that left the chain; *linked_at the number where
 * it links, -1 if it does not (the bottom of the chain: the ranges below
 * come from window_down, at the ticks).
 */
static unsigned
link_down(struct chain *ch, struct sblock *b, int64_t *linked_at)
{
	struct sblock	cur = *b, c, p;
	unsigned	displaced = 0;

	*linked_at = -1;
	for (;;) {
		int64_t n = cur.number - 1;

		if (cur.number == 0 || n < (int64_t)ch->backfill_from)
			return displaced;
		if (block_at(ch, n, &c)) {
			if (memcmp(c.hash, cur.parent, 32) == 0) {
				*linked_at = n;
				return displaced;
			}
			block_uncanonical(ch, &c);
			displaced++;
		}
		if (!block_get(ch, cur.parent, &p))
			return displaced;
		block_canonical(ch, &p);
		cur = p;
	}
}

static void
write_reorg(struct chain *ch, unsigned depth, int64_t ancestor,
    const uint8_t old_tip[32], const struct sblock *tip, int64_t endpoint_id,
    uint64_t now)
{
	sqlite3_stmt	*st;
	char		 ho[24], hn[24], en[CONF_NAME_MAX + 16];

	st = store_bind(&s_reorg, "iiiibbi", ch->id, (int64_t)now,
	    (int64_t)depth, ancestor, old_tip, tip->hash, endpoint_id);
	if (endpoint_id <= 0)
		sqlite3_bind_null(st, 7);
	store_run(st);
	log_info("chain %s: reorg of %u block%s above #%lld: best %s -> #%lld "
	    "%s (%s)", ch->name, depth, depth == 1 ? "" : "s",
	    (long long)ancestor, block_short_hash(old_tip, ho),
	    (long long)tip->number, block_short_hash(tip->hash, hn),
	    block_ep_name(endpoint_id, en));
}

/* A stored block that is the parent of a canonical block is canonical. */
void
choice_link_up(struct chain *ch, struct sblock *b, int64_t endpoint_id,
    uint64_t now)
{
	struct sblock	child, old;
	unsigned	displaced = 0;
	int64_t		linked;
	uint8_t		old_hash[32];

	if (b->canonical || !block_at(ch, b->number + 1, &child) ||
	    memcmp(child.parent, b->hash, 32) != 0)
		return;
	memcpy(old_hash, b->hash, 32);
	if (block_at(ch, b->number, &old)) {
		memcpy(old_hash, old.hash, 32);
		block_uncanonical(ch, &old);
		displaced++;
	}
	block_canonical(ch, b);
	displaced += link_down(ch, b, &linked);
	/* One reorg, whatever path found it. */
	if (displaced > 0)
		write_reorg(ch, displaced, linked, old_hash, b, endpoint_id,
		    now);
}

/* How long a branch waits for its difficulties: 2 block times, >= 2 s. */
uint64_t
choice_work_wait(const struct chain *ch)
{
	return 2 * ch->block_time > 2000 ? 2 * ch->block_time : 2000;
}

/* Is hash the branch waiting for its work?  The scheduler asks. */
int
choice_candidate(const struct chain *ch, uint8_t tip[32])
{
	if (!ch->have_cand)
		return 0;
	memcpy(tip, ch->cand_tip, 32);
	return 1;
}

/*
 * The new best and its ancestry become the canonical chain, the old
 * branch leaves it, in the current transaction: one reorg row for the
 * whole switch.
 */
static void
switch_to(struct chain *ch, struct sblock *tip, int64_t endpoint_id,
    uint64_t now)
{
	struct sblock	 old;
	uint8_t		 old_tip[32];
	int		 had_best = ch->have_best;
	unsigned	 depth = 0;
	int64_t		 linked;

	memcpy(old_tip, ch->best_hash, 32);
	/* The old branch above the new tip (a shorter, heavier branch). */
	for (int64_t n = ch->best_number; had_best && n > tip->number; n--)
		if (block_at(ch, n, &old)) {
			block_uncanonical(ch, &old);
			depth++;
		}
	if (block_at(ch, tip->number, &old)) {
		block_uncanonical(ch, &old);
		depth++;
	}
	block_canonical(ch, tip);
	ch->have_best = 1;
	ch->best_number = tip->number;
	memcpy(ch->best_hash, tip->hash, 32);
	ch->best_at = now;
	/*
	 * The claims held without a best (none was far then) are judged
	 * against the first, as any claim, whichever way it came.
	 */
	for (size_t k = 0; !had_best && k < ch->n_claims; k++) {
		struct claim *c = &ch->claims[k];

		c->far = (int64_t)c->h[0].number > window_reach(ch,
		    ch->best_at);
		c->gap_seen = (int64_t)c->h[c->n - 1].number - 1 -
		    ch->best_number;
	}
	depth += link_down(ch, tip, &linked);
	if (depth > 0 && had_best)
		write_reorg(ch, depth, linked, old_tip, tip, endpoint_id, now);
	if (ch->have_pending && tip->number >= ch->pending_number)
		ch->have_pending = 0;
	final_check(ch, now);
	final_advance(ch);
	final_save_best(ch, now);
}

/* The store as fork choice reads it. */
static int
view_by_hash(void *ctx, const uint8_t hash[32], struct sblock *b)
{
	return block_get(ctx, hash, b);
}

static int
view_canonical_at(void *ctx, int64_t number, struct sblock *b)
{
	return block_at(ctx, number, b);
}

static void
fork_of(struct chain *ch, struct fork_view *v, struct fork_chain *c)
{
	v->ctx = ch;
	v->by_hash = view_by_hash;
	v->canonical_at = view_canonical_at;
	c->quantus = ch->format == FORMAT_QUANTUS;
	c->have_best = ch->have_best;
	c->best_number = ch->best_number;
	c->final_number = ch->final_number;
	c->backfill_from = (int64_t)ch->backfill_from;
	c->finality = CHAIN_FINALITY;
}

/* What fork_step needs to know of tip; the missing block if unlinked. */
static void
facts(struct chain *ch, const struct sblock *tip, uint64_t now,
    struct fork_facts *f, uint8_t missing[32], int64_t *missing_number)
{
	struct fork_view	v;
	struct fork_chain	c;

	fork_of(ch, &v, &c);
	memset(f, 0, sizeof(*f));
	f->have_best = ch->have_best;
	f->canonical = tip->canonical;
	f->quantus = c.quantus;
	f->tip_number = tip->number;
	f->best_number = ch->best_number;
	f->final_number = ch->final_number;
	if (!f->have_best || f->canonical)
		return;
	f->linked = fork_walk(&v, &c, tip, &f->ancestor, missing,
	    missing_number) == 0;
	if (!f->linked)
		return;
	if ((f->failed = seal_enforced(ch, now) &&
	    fork_failed(&v, tip, f->ancestor)))
		return;
	f->better = fork_better(&v, &c, tip, f->ancestor, &f->unknown);
	/*
	 * A switch that would rest on a work one endpoint said, while
	 * another can say it too.
	 */
	f->unread = f->better && !f->unknown && ch->usable >= 2 &&
	    fork_unread(&v, &c, tip, f->ancestor);
	f->is_cand = ch->have_cand && memcmp(ch->cand_tip, tip->hash, 32) == 0;
	f->cand_over = f->is_cand && (ch->cand_over ||
	    now >= ch->cand_since + choice_work_wait(ch));
	/* Only fork_step's "work unknown" rows read it: no walk otherwise. */
	f->under_cand = f->unknown && ch->have_cand && !f->is_cand &&
	    fork_descends(&v, tip, ch->cand_tip, ch->cand_number,
	    CHAIN_FINALITY);
}

/* A second read of b's difficulty, by another than its answerer. */
static void
ask_again(struct chain *ch, const struct sblock *b, uint64_t now)
{
	if (b->cross_read == 1 || !b->has_diff)
		return;
	block_ask_again(ch, b->hash, b->number, b->state_ep, now,
	    "it decides a fork choice");
}

/*
 * The difficulties that decide between tip's branch and the canonical
 * one (fork_unread's) and that one endpoint answered, asked of another.
 */
static void
ask_cross(struct chain *ch, const struct sblock *tip, int64_t ancestor,
    uint64_t now)
{
	struct sblock	cur = *tip, b;

	while (cur.number > ancestor + 1 && block_get(ch, cur.parent, &b)) {
		ask_again(ch, &b, now);
		cur = b;
	}
	for (int64_t n = ancestor + 1; n < ch->best_number; n++)
		if (block_at(ch, n, &b))
			ask_again(ch, &b, now);
}

/*
 * The difficulties of both sides above the ancestor are asked for, and
 * with unread those that decide asked of a second endpoint.
 */
static void
ask_work(struct chain *ch, const struct sblock *tip, int64_t ancestor,
    int unread, uint64_t now)
{
	int64_t	top = tip->number > ch->best_number ? tip->number :
		    ch->best_number;

	queue_state(ch->id, ancestor + 1, top);
	if (unread)
		ask_cross(ch, tip, ancestor, now);
}

/* The branch of tip lacks a block: it waits for it (FA_WAIT_PARENT). */
static void
wait_parent(struct chain *ch, const struct sblock *tip,
    const uint8_t missing[32], int64_t missing_number)
{
	if (!ch->have_pending || memcmp(ch->pending_tip, tip->hash, 32) != 0)
		log_info("chain %s: #%lld is on a branch not linked yet; "
		    "waiting for its block #%lld before switching", ch->name,
		    (long long)tip->number, (long long)missing_number);
	ch->have_pending = 1;
	memcpy(ch->pending_tip, tip->hash, 32);
	ch->pending_number = missing_number;
	queue_missing(ch->id, missing, missing_number);
}

/* The branch of tip waits for its work to be read (FA_WAIT_WORK). */
static void
wait_work(struct chain *ch, const struct sblock *tip,
    const struct fork_facts *f, int64_t endpoint_id, uint64_t now)
{
	ch->have_cand = 1;
	ch->cand_number = tip->number;
	ch->cand_over = 0;
	ch->cand_ep = endpoint_id;
	memcpy(ch->cand_tip, tip->hash, 32);
	ch->cand_from = f->ancestor + 1;
	ch->cand_since = now;
	ch->cand_asked = f->unread;
	ask_work(ch, tip, f->ancestor, f->unread, now);
	log_debug("chain %s: branch of #%lld forks at #%lld; %s", ch->name,
	    (long long)tip->number, (long long)f->ancestor, f->unknown ?
	    "its work is not known yet: difficulties asked for" :
	    "difficulties that decide it are one endpoint's word: asked of "
	    "another");
}

/*
 * The waiting branch of tip decided, its wait over (FA_DROP_CAND,
 * FA_SWITCH_CAND): the better one is the best, with the children that
 * came while it waited.
 */
static void
waited(struct chain *ch, struct sblock *tip, const struct fork_facts *f,
    int64_t endpoint_id, uint64_t now)
{
	struct sblock	child;

	ch->have_cand = 0;
	if (f->unknown)
		log_info("chain %s: work of the branch of #%lld not known "
		    "after %llu ms; %s", ch->name, (long long)tip->number,
		    (unsigned long long)choice_work_wait(ch), f->better ?
		    "the longer one wins" : "the canonical one stays");
	else if (f->unread)
		log_info("chain %s: difficulties deciding the branch of #%lld "
		    "not read by a second endpoint after %llu ms; one "
		    "endpoint's word decides: %s", ch->name,
		    (long long)tip->number,
		    (unsigned long long)choice_work_wait(ch),
		    f->better ? "it wins" : "the canonical one stays");
	if (!f->better)
		return;
	switch_to(ch, tip, endpoint_id, now);
	if (block_child(ch, tip->number + 1, tip->hash, &child))
		choice_climb(ch, &child, endpoint_id, now);
}

/*
 * A stored block that may become the best: what fork_step decides is
 * done.  A branch that lacks a block waits for it (one parent fetched by
 * hash, the ranges below by window_down), so that a reorg is one
 * transaction and readers never see half of it; one whose work is not
 * known waits for its difficulties (the scheduler reads the candidate's
 * blocks with the canonical ones, choice_candidate), then the longer
 * wins.
 */
void
choice_adopt(struct chain *ch, struct sblock *tip, int64_t endpoint_id,
    uint64_t now)
{
	struct fork_facts	f;
	uint8_t			missing[32];
	int64_t			missing_number = -1;
	char			hb[24];

	facts(ch, tip, now, &f, missing, &missing_number);
	switch (fork_step(&f)) {
	case FA_NOTHING:
		/* The branch waiting: its work came, one endpoint's word. */
		if (f.is_cand && f.unread && !f.cand_over && !ch->cand_asked) {
			ask_cross(ch, tip, f.ancestor, now);
			ch->cand_asked = 1;
		}
		return;
	case FA_WAIT_PARENT:
		wait_parent(ch, tip, missing, missing_number);
		return;
	case FA_CONTRADICT:
		block_verdict(ch, endpoint_id, CV_CONTRADICTED, "branch of "
		    "#%lld %s would replace final block #%lld",
		    (long long)tip->number, block_short_hash(tip->hash, hb),
		    (long long)f.ancestor + 1);
		log_warnx("chain %s: branch of #%lld %s forks at or below "
		    "#%lld, below finality #%lld: not applied", ch->name,
		    (long long)tip->number, hb, (long long)f.ancestor,
		    (long long)ch->final_number);
		return;
	case FA_ASK_WORK:
		/* That one is decided first (its reads are out), this one
		 * when it comes again. */
		ask_work(ch, tip, f.ancestor, f.unread, now);
		return;
	case FA_WAIT_WORK:
		wait_work(ch, tip, &f, endpoint_id, now);
		return;
	case FA_DROP_CAND:
	case FA_SWITCH_CAND:
		waited(ch, tip, &f, endpoint_id, now);
		return;
	case FA_SWITCH:
		switch_to(ch, tip, endpoint_id, now);
		return;
	}
}

/*
 * A stored block b not canonical, whose parent is: the stored blocks
 * above it (fetched before it, by number) link now; the highest may
 * become the best.
 */
void
choice_climb(struct chain *ch, const struct sblock *b, int64_t endpoint_id,
    uint64_t now)
{
	struct sblock	cur = *b, c;

	while (block_child(ch, cur.number + 1, cur.hash, &c))
		cur = c;
	choice_adopt(ch, &cur, endpoint_id, now);
}

/*
 * A canonical block whose seal fails a difficulty two endpoints answered
 * alike: the best goes back to its parent, the blocks from it up leave
 * the chain (one reorg row), and the next head of another branch is
 * weighed against the parent (fork_failed refuses this one's).  A final
 * block stays, said so: finality is never undone.
 */
void
choice_refuse(struct chain *ch, const struct sblock *bad, uint64_t now)
{
	struct sblock	 p, old;
	uint8_t		 old_tip[32];
	unsigned	 depth = 0;
	char		 hb[24];

	if (!bad->canonical || !ch->have_best || !seal_enforced(ch, now) ||
	    !block_get(ch, bad->parent, &p))
		return;
	block_short_hash(bad->hash, hb);
	if (bad->final) {
		log_warnx("chain %s: final block #%lld %s fails its seal; it "
		    "stays: finality is not undone", ch->name,
		    (long long)bad->number, hb);
		return;
	}
	log_warnx("chain %s: block #%lld %s fails its seal: the chain goes "
	    "back to #%lld", ch->name, (long long)bad->number, hb,
	    (long long)p.number);
	memcpy(old_tip, ch->best_hash, 32);
	for (int64_t n = ch->best_number; n >= bad->number; n--)
		if (block_at(ch, n, &old)) {
			block_uncanonical(ch, &old);
			depth++;
		}
	ch->best_number = p.number;
	memcpy(ch->best_hash, p.hash, 32);
	ch->best_at = now;
	write_reorg(ch, depth, p.number, old_tip, &p, 0, now);
	final_save_best(ch, now);
}

/*
 * The clock: a branch whose work was asked for and did not come in time
 * is decided without it (the longer wins).
 */
void
choice_tick(struct chain *ch, uint64_t now)
{
	struct sblock	tip;

	if (!ch->have_cand || now < ch->cand_since + choice_work_wait(ch))
		return;
	ch->cand_over = 1;
	if (block_get(ch, ch->cand_tip, &tip) && !tip.canonical)
		choice_adopt(ch, &tip, ch->cand_ep, now);
	ch->have_cand = 0;
}
