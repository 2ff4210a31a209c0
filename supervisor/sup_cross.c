/*
 * Difficulty answers are claims: a second endpoint's read of a block's
 * difficulty, settled against the first by the seals of its children
 * (the table is in sup_cross.h).
 */
#include "config.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "sup_block.h"
#include "sup_chain.h"
#include "sup_choice.h"
#include "sup_cross.h"
#include "sup_queue.h"
#include "sup_seal.h"
#include "sup_standing.h"
#include "sup_store.h"
#include "u512.h"

static struct store_stmt s_agreed = { "UPDATE blocks SET cross_read = ? "
    "WHERE chain_id = ? AND hash = ?", NULL, NULL };

static struct store_stmt s_reopen_span = { "SELECT min(number), "
    "max(number) FROM blocks WHERE chain_id = ?1 AND state_endpoint_id = ?2 "
    "AND cross_read IS NULL AND difficulty IS NOT NULL", NULL, NULL };
static struct store_stmt s_reopen = { "UPDATE blocks SET cross_read = 0 "
    "WHERE chain_id = ? AND state_endpoint_id = ? AND cross_read IS NULL "
    "AND difficulty IS NOT NULL", NULL, NULL };


/*
 * Disputed reads that no configured endpoint but their first answerer
 * may make: every other one pruned the state at their first block, or
 * there is none.
 */
static struct store_stmt s_unreadable = { "SELECT q.id, q.range_from, "
    "q.range_to, q.last_endpoint_id FROM queue q WHERE q.chain_id = ?1 AND "
    "q.kind = 'state' AND q.state = 'pending' AND "
    "q.last_outcome = 'disputed' AND q.last_endpoint_id IS NOT NULL AND "
    "NOT EXISTS (SELECT 1 FROM endpoints e WHERE e.chain_id = ?1 AND "
    "e.configured = 1 AND e.id != q.last_endpoint_id AND "
    "(e.pruning_bound IS NULL OR e.pruning_bound < q.range_from)) "
    "LIMIT 16", NULL, NULL };
static struct store_stmt s_unowed = { "UPDATE blocks SET cross_read = NULL "
    "WHERE chain_id = ? AND number BETWEEN ? AND ? AND cross_read = 0",
    NULL, NULL };
static struct store_stmt s_item_drop = { "DELETE FROM queue WHERE id = ?",
    NULL, NULL };

static struct store_stmt s_replace = { "UPDATE blocks SET difficulty = ?, "
    "difficulty_f = ?, state_endpoint_id = ?, cross_read = 1 "
    "WHERE chain_id = ? AND hash = ?", NULL, NULL };

/* A child whose seal fails a difficulty two endpoints agree on. */
static void
judge_child(struct chain *ch, const struct seal_fail *f)
{
	char	hb[24], eb[CONF_NAME_MAX + 16], why[200];

	block_short_hash(f->hash, hb);
	seal_words(f, why, sizeof(why));
	log_warnx("chain %s: block #%lld %s: %s, which two endpoints "
	    "answered: %s is judged", ch->name, (long long)f->number, hb, why,
	    block_ep_name(f->endpoint_id, eb));
	block_verdict(ch, f->endpoint_id, CV_CONTRADICTED, "block #%lld %s: "
	    "%s, which two endpoints answered", (long long)f->number, hb, why);
}

/* b's canonical child, if its seal fails b's difficulty, is refused. */
static void
refuse_child(struct chain *ch, const struct sblock *b, uint64_t now)
{
	struct sblock	c;

	if (block_at(ch, b->number + 1, &c) &&
	    memcmp(c.parent, b->hash, 32) == 0 && c.proven == 0)
		choice_refuse(ch, &c, now);
}

static const char *
dec(const uint8_t d[64], char buf[U512_DEC_LEN])
{
	struct u512	x;

	u512_from_le(&x, d);
	u512_to_dec(&x, buf);
	return buf;
}

/*
 * The difficulty at b was false: diff replaces it, answered by
 * endpoint_id; its children's work follows, and with it the standing of
 * the canonical one's miner.
 */
static void
replace(struct chain *ch, const struct sblock *b, int64_t endpoint_id,
    const uint8_t diff[64], uint64_t now)
{
	struct sblock	 c;
	struct standing	*s = NULL;
	struct u512	 d;
	sqlite3_stmt	*st;

	if (block_at(ch, b->number + 1, &c) &&
	    memcmp(c.parent, b->hash, 32) == 0 && standing_counts(&c)) {
		s = standing(ch, &c);
		work_add(&s->work, &c, -1);
		if (c.final)
			work_add(&s->final_work, &c, -1);
	}
	u512_from_le(&d, diff);
	st = store_prepare(&s_replace);
	sqlite3_bind_blob(st, 1, diff, 64, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 2, u512_to_double(&d));
	sqlite3_bind_int64(st, 3, endpoint_id);
	sqlite3_bind_int64(st, 4, ch->id);
	sqlite3_bind_blob(st, 5, b->hash, 32, SQLITE_TRANSIENT);
	store_run(st);
	seal_diff_stored(ch, b->hash, diff);
	seal_reparent(ch, b->hash, b->number, diff, now, judge_child);
	if (s != NULL) {
		memcpy(c.work, diff, 64);
		c.has_work = 1;
		work_add(&s->work, &c, 1);
		if (c.final)
			work_add(&s->final_work, &c, 1);
		s->dirty = 1;
	}
}

static int
found_false(const struct chain *ch, int64_t endpoint_id)
{
	for (size_t i = 0; i < ch->n_false_diff; i++)
		if (ch->false_diff[i] == endpoint_id)
			return 1;
	return 0;
}

/*
 * endpoint_id answered a false difficulty: every other difficulty it
 * answered and no other endpoint read is read again by another.
 */
static void
suspect(struct chain *ch, int64_t endpoint_id, int64_t number)
{
	sqlite3_stmt	*st;
	int64_t		 lo = -1, hi = -1;
	char		 why[96];

	if (found_false(ch, endpoint_id))
		return;
	if (ch->n_false_diff == CHAIN_FALSE_MAX)
		memmove(&ch->false_diff[0], &ch->false_diff[1],
		    (CHAIN_FALSE_MAX - 1) * sizeof(ch->false_diff[0]));
	else
		ch->n_false_diff++;
	ch->false_diff[ch->n_false_diff - 1] = endpoint_id;
	st = store_bind(&s_reopen_span, "ii", ch->id, endpoint_id);
	if (store_row(st) && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		lo = sqlite3_column_int64(st, 0);
		hi = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	if (lo < 0)
		return;
	store_run(store_bind(&s_reopen, "ii", ch->id, endpoint_id));
	snprintf(why, sizeof(why), "its answerer's difficulty at #%lld was "
	    "false", (long long)number);
	queue_dispute(ch->id, lo, hi, endpoint_id, 0, why);
}

void
cross_stored(struct chain *ch, const struct sblock *b, int64_t endpoint_id)
{
	if (!found_false(ch, endpoint_id))
		return;
	block_ask_again(ch, b->hash, b->number, endpoint_id, 0,
	    "its answerer answered a false difficulty before");
}

/*
 * A second answer that neither the seals nor a record decide, kept while
 * a third endpoint is asked (the chain's last CHAIN_THIRD_MAX).
 */
static struct cross_third *
third_find(struct chain *ch, const uint8_t hash[32])
{
	for (size_t i = 0; i < ch->n_third; i++)
		if (memcmp(ch->third[i].hash, hash, 32) == 0)
			return &ch->third[i];
	return NULL;
}

static void
third_drop(struct chain *ch, struct cross_third *p)
{
	size_t	i = (size_t)(p - ch->third);

	memmove(&ch->third[i], &ch->third[i + 1],
	    (ch->n_third - i - 1) * sizeof(*p));
	ch->n_third--;
}

static void
third_add(struct chain *ch, const uint8_t hash[32], int64_t endpoint_id,
    const uint8_t diff[64])
{
	struct cross_third *p;

	if (ch->n_third == CHAIN_THIRD_MAX)
		third_drop(ch, &ch->third[0]);
	p = &ch->third[ch->n_third++];
	memcpy(p->hash, hash, 32);
	p->endpoint_id = endpoint_id;
	memcpy(p->diff, diff, 64);
}

/* Two answers of three agree against one: the one is judged. */
static void
outvoted(struct chain *ch, const struct sblock *b, int64_t liar,
    const uint8_t lie[64], int64_t a, int64_t c, const uint8_t truth[64])
{
	char	el[CONF_NAME_MAX + 16], ea[CONF_NAME_MAX + 16];
	char	ec[CONF_NAME_MAX + 16], dl[U512_DEC_LEN], dt[U512_DEC_LEN];

	block_ep_name(liar, el);
	block_ep_name(a, ea);
	block_ep_name(c, ec);
	dec(lie, dl);
	dec(truth, dt);
	log_warnx("chain %s: difficulty at #%lld: %s answered %s, %s and %s "
	    "answer %s: %s is judged", ch->name, (long long)b->number, el, dl,
	    ea, ec, dt, el);
	block_verdict(ch, liar, CV_CONTRADICTED, "difficulty at #%lld: "
	    "answered %.40s; %s and %s answer %.40s", (long long)b->number, dl,
	    ea, ec, dt);
}

/*
 * A read again by an endpoint heard already (no other could take it):
 * still owed, by another, where there is evidence (a seal fails it, two
 * answers differ, its answerer was false before); a mere sample is given
 * up.
 */
static void
cross_again(struct chain *ch, const struct sblock *b,
    const struct cross_third *p, uint64_t now)
{
	unsigned	meet, fail;

	if (b->cross_read != 0)
		return;		/* a read again, nothing owed */
	seal_children_meet(ch, b->hash, b->number, b->diff, &meet, &fail);
	if (fail == 0 && p == NULL && !found_false(ch, b->state_ep)) {
		store_run(store_bind(&s_agreed, "nib", ch->id, b->hash));
		return;
	}
	queue_dispute(ch->id, b->number, b->number,
	    p != NULL ? p->endpoint_id : b->state_ep, now + ch->block_time,
	    "its difficulty is disputed");
}

/* A second answer like the first: two agree; a third answer outvoted. */
static void
cross_agree(struct chain *ch, const struct sblock *b, int64_t endpoint_id,
    const uint8_t diff[64], const struct cross_third *p, const char *e1,
    const char *e2, uint64_t now)
{
	store_run(store_bind(&s_agreed, "iib", (int64_t)1, ch->id, b->hash));
	log_debug("chain %s: difficulty at #%lld: %s answers it as %s did",
	    ch->name, (long long)b->number, e2, e1);
	if (p != NULL) {
		outvoted(ch, b, p->endpoint_id, p->diff, b->state_ep,
		    endpoint_id, diff);
		suspect(ch, p->endpoint_id, b->number);
	}
	/* The children that fail it are judged now, and refused. */
	seal_children_failing(ch, b->hash, b->number, b->diff, judge_child);
	refuse_child(ch, b, now);
}

/*
 * Two answers differ: the one the children's seals meet where the
 * other's fail is true.  1 if the seals told.
 */
static int
seals_decide(struct chain *ch, const struct sblock *b, int64_t endpoint_id,
    const uint8_t diff[64], const char *e1, const char *e2, const char *d1,
    const char *d2, uint64_t now)
{
	unsigned	meet1, fail1, meet2, fail2;

	seal_children_meet(ch, b->hash, b->number, b->diff, &meet1, &fail1);
	seal_children_meet(ch, b->hash, b->number, diff, &meet2, &fail2);
	if (fail1 > 0 && fail2 == 0 && meet2 > 0) {
		log_warnx("chain %s: difficulty at #%lld: %s answered %s, %s "
		    "answers %s; the seals of its children meet %s's only: "
		    "%s's is stored, %s is judged", ch->name,
		    (long long)b->number, e1, d1, e2, d2, e2, e2, e1);
		if (b->state_ep > 0) {
			block_verdict(ch, b->state_ep, CV_CONTRADICTED,
			    "difficulty at #%lld: answered %.40s; %s answers "
			    "%.40s, which the seals of its children meet",
			    (long long)b->number, d1, e2, d2);
			suspect(ch, b->state_ep, b->number);
		}
		replace(ch, b, endpoint_id, diff, now);
		return 1;
	}
	if (fail2 > 0 && fail1 == 0 && meet1 > 0) {
		block_verdict(ch, endpoint_id, CV_CONTRADICTED, "difficulty at "
		    "#%lld: answered %.40s; %s answered %.40s, which the seals "
		    "of its children meet", (long long)b->number, d2, e1, d1);
		log_warnx("chain %s: difficulty at #%lld: %s answered %s, %s "
		    "answers %s; the seals of its children meet %s's only: "
		    "%s is judged", ch->name, (long long)b->number, e1, d1, e2,
		    d2, e1, e2);
		suspect(ch, endpoint_id, b->number);
		store_run(store_bind(&s_agreed, "iib", (int64_t)1, ch->id,
		    b->hash));
		return 1;
	}
	return 0;
}

/*
 * Two answers differ and no seal tells: an answerer found false before
 * is not believed; else a third endpoint's answer decides, when there is
 * one; else the first stays and nobody is judged.
 */
static void
cross_differ(struct chain *ch, const struct sblock *b, int64_t endpoint_id,
    const uint8_t diff[64], const struct cross_third *p, const char *e1,
    const char *e2, uint64_t now)
{
	char	d1[U512_DEC_LEN], d2[U512_DEC_LEN], why[160];

	dec(b->diff, d1);
	dec(diff, d2);
	if (seals_decide(ch, b, endpoint_id, diff, e1, e2, d1, d2, now))
		return;
	if (found_false(ch, b->state_ep) && !found_false(ch, endpoint_id)) {
		log_warnx("chain %s: difficulty at #%lld: %s answered %s, %s "
		    "answers %s; %s answered a false difficulty before: %s's "
		    "is stored", ch->name, (long long)b->number, e1, d1, e2,
		    d2, e1, e2);
		replace(ch, b, endpoint_id, diff, now);
		return;
	}
	if (found_false(ch, endpoint_id) && !found_false(ch, b->state_ep)) {
		log_warnx("chain %s: difficulty at #%lld: %s answered %s, %s "
		    "answers %s; %s answered a false difficulty before: %s's "
		    "stays", ch->name, (long long)b->number, e1, d1, e2, d2, e2,
		    e1);
		store_run(store_bind(&s_agreed, "iib", (int64_t)1, ch->id,
		    b->hash));
		return;
	}
	if (p == NULL && ch->n_endpoints >= 3) {
		log_warnx("chain %s: difficulty at #%lld: %s answered %s, %s "
		    "answers %s, and the seals of its children tell neither "
		    "apart: asked of a third endpoint", ch->name,
		    (long long)b->number, e1, d1, e2, d2);
		third_add(ch, b->hash, endpoint_id, diff);
		store_run(store_bind(&s_agreed, "iib", (int64_t)0, ch->id,
		    b->hash));
		snprintf(why, sizeof(why), "%s and %s disagree on it", e1, e2);
		queue_dispute(ch->id, b->number, b->number, endpoint_id, now,
		    why);
		return;
	}
	log_warnx("chain %s: difficulty at #%lld: %s answered %s, %s answers "
	    "%s, and nothing tells which is true: the first stays, nobody is "
	    "judged", ch->name, (long long)b->number, e1, d1, e2, d2);
	store_run(store_bind(&s_agreed, "nib", ch->id, b->hash));
}

void
cross_answer(struct chain *ch, const struct sblock *b, int64_t endpoint_id,
    const uint8_t diff[64], uint64_t now)
{
	char		 e1[CONF_NAME_MAX + 16], e2[CONF_NAME_MAX + 16];
	struct cross_third *p = third_find(ch, b->hash), second;

	if (endpoint_id <= 0 || endpoint_id == b->state_ep ||
	    (p != NULL && endpoint_id == p->endpoint_id)) {
		cross_again(ch, b, p, now);
		return;
	}
	if (p != NULL) {
		second = *p;
		third_drop(ch, p);
		p = &second;
	}
	block_ep_name(b->state_ep, e1);
	block_ep_name(endpoint_id, e2);
	if (memcmp(diff, b->diff, 64) == 0)
		cross_agree(ch, b, endpoint_id, diff, p, e1, e2, now);
	else if (p != NULL && memcmp(diff, p->diff, 64) == 0) {
		/* The third agrees with the second: the first is outvoted. */
		if (b->state_ep > 0) {
			outvoted(ch, b, b->state_ep, b->diff, p->endpoint_id,
			    endpoint_id, diff);
			suspect(ch, b->state_ep, b->number);
		}
		replace(ch, b, endpoint_id, diff, now);
	} else
		cross_differ(ch, b, endpoint_id, diff, p, e1, e2, now);
}

void
cross_sample(struct chain *ch, const struct sblock *b, int64_t endpoint_id)
{
	if (ch->format != FORMAT_QUANTUS || ch->n_endpoints < 2 ||
	    !b->has_diff || b->cross_read != -1 || endpoint_id <= 0 ||
	    b->state_ep != endpoint_id)
		return;
	/* Deeper, another endpoint may have pruned it: none could read it. */
	if (!ch->have_best || b->number + CROSS_SAMPLE_DEPTH < ch->best_number)
		return;
	block_ask_again(ch, b->hash, b->number, endpoint_id, 0,
	    "a sample of its answerer's difficulties");
}

size_t
cross_unreadable(struct chain *ch)
{
	struct { int64_t id, from, to, ep; } u[16];
	char		 eb[CONF_NAME_MAX + 16];
	sqlite3_stmt	*st;
	size_t		 n = 0;

	st = store_bind(&s_unreadable, "i", ch->id);
	while (n < sizeof(u) / sizeof(u[0]) && store_row(st)) {
		u[n].id = sqlite3_column_int64(st, 0);
		u[n].from = sqlite3_column_int64(st, 1);
		u[n].to = sqlite3_column_int64(st, 2);
		u[n].ep = sqlite3_column_int64(st, 3);
		n++;
	}
	sqlite3_reset(st);
	for (size_t i = 0; i < n; i++) {
		char	at[48];

		(void)store_run(store_bind(&s_unowed, "iii", ch->id,
		    u[i].from, u[i].to));
		if (store_run(store_bind(&s_item_drop, "i", u[i].id)) <= 0)
			return i;	/* the store is blocked: next time */
		if (u[i].to != u[i].from)
			snprintf(at, sizeof(at), "#%lld..#%lld",
			    (long long)u[i].from, (long long)u[i].to);
		else
			snprintf(at, sizeof(at), "#%lld", (long long)u[i].from);
		block_ep_name(u[i].ep, eb);
		log_warnx("chain %s: difficulty at %s: no endpoint but %s "
		    "holds its state any more: its second read is given up, "
		    "it stays %s's word", ch->name, at, eb, eb);
	}
	return n;
}
