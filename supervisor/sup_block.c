/*
 * A chain's stored blocks: read, stored once, flagged canonical and final
 * with the standings that follow the flags; a header's number checked
 * against its parent's; and the verdicts the chain posts on endpoints.
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
#include "sup_queue.h"
#include "sup_seal.h"
#include "sup_standing.h"
#include "sup_store.h"
#include "sup_window.h"
#include "u512.h"
#include "util.h"

static struct store_stmt s_block_get = { "SELECT " BLOCK_COLUMNS
    " FROM blocks WHERE chain_id = ? AND hash = ?", NULL, NULL };

static struct store_stmt s_block_at = { "SELECT " BLOCK_COLUMNS
    " FROM blocks WHERE chain_id = ? AND number = ? AND canonical = 1",
    NULL, NULL };

static struct store_stmt s_block_insert = { "INSERT OR IGNORE INTO blocks "
    "(chain_id, hash, number, parent, miner, runtime_updated, "
    "first_endpoint_id, first_seen, pow_max, proven, work, work_f) VALUES "
    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", NULL, NULL };

static struct store_stmt s_block_seen = { "SELECT first_seen FROM blocks "
    "WHERE chain_id = ? AND hash = ?", NULL, NULL };

static struct store_stmt s_block_flags = { "UPDATE blocks SET canonical = ?, "
    "final = ? WHERE chain_id = ? AND hash = ?", NULL, NULL };

static struct store_stmt s_child_at = { "SELECT " BLOCK_COLUMNS
    " FROM blocks INDEXED BY blocks_number WHERE chain_id = ? AND "
    "number = ? AND parent = ? ORDER BY first_seen LIMIT 1", NULL, NULL };

static struct store_stmt s_children_waiting = { "SELECT 1 FROM blocks "
    "INDEXED BY blocks_number WHERE chain_id = ? AND number = ? AND "
    "parent = ? AND (canonical = 0 OR timestamp IS NOT NULL) LIMIT 1",
    NULL, NULL };

static struct store_stmt s_ep_name = { "SELECT name FROM endpoints WHERE "
    "id = ?", NULL, NULL };

void
block_row(sqlite3_stmt *st, struct sblock *b)
{
	memset(b, 0, sizeof(*b));
	store_col_blob(st, 0, b->hash, 32);
	store_col_blob(st, 1, b->parent, 32);
	b->number = sqlite3_column_int64(st, 2);
	b->has_miner = store_col_blob(st, 3, b->miner, 32);
	b->has_diff = store_col_blob(st, 4, b->diff, 64);
	b->canonical = sqlite3_column_int(st, 5);
	b->final = sqlite3_column_int(st, 6);
	b->runtime_updated = sqlite3_column_int(st, 7);
	b->proven = sqlite3_column_type(st, 8) == SQLITE_NULL ? -1 :
	    sqlite3_column_int(st, 8);
	b->has_pow = store_col_blob(st, 9, b->pow_max, 64);
	b->has_work = store_col_blob(st, 10, b->work, 64);
	b->state_ep = sqlite3_column_int64(st, 11);
	b->cross_read = sqlite3_column_int(st, 12);
	b->has_ts = sqlite3_column_int(st, 13);
	b->first_ep = sqlite3_column_int64(st, 14);
	b->ts = sqlite3_column_int64(st, 15);
}

/* The first row of a bound statement into b: 1, or 0 if none. */
static int
block_one(sqlite3_stmt *st, struct sblock *b)
{
	int	found = store_row(st);

	if (found)
		block_row(st, b);
	sqlite3_reset(st);
	return found;
}

int
block_get(struct chain *ch, const uint8_t hash[32], struct sblock *b)
{
	return block_one(store_bind(&s_block_get, "ib", ch->id, hash), b);
}

int
block_at(struct chain *ch, int64_t number, struct sblock *b)
{
	return block_one(store_bind(&s_block_at, "ii", ch->id, number), b);
}

int
block_child(struct chain *ch, int64_t number, const uint8_t parent[32],
    struct sblock *b)
{
	return block_one(store_bind(&s_child_at, "iib", ch->id, number,
	    parent), b);
}

int
block_children_waiting(struct chain *ch, const uint8_t hash[32],
    int64_t number)
{
	sqlite3_stmt	*st;
	int		 found;

	st = store_bind(&s_children_waiting, "iib", ch->id, number + 1, hash);
	found = store_row(st);
	sqlite3_reset(st);
	return found;
}

void
block_flags(struct chain *ch, const struct sblock *b, int canonical, int final)
{
	store_run(store_bind(&s_block_flags, "iiib", (int64_t)canonical,
	    (int64_t)final, ch->id, b->hash));
}

void
block_canonical(struct chain *ch, struct sblock *b)
{
	struct standing	*s;
	int		 final = ch->have_best && b->number <= ch->final_number;

	block_flags(ch, b, 1, final);
	b->canonical = 1;
	b->final = final;
	queue_block_canonical(ch->id, &ch->owed, b->hash, b->number,
	    b->runtime_updated);
	if (!standing_counts(b))
		return;
	s = standing(ch, b);
	s->blocks++;
	work_add(&s->work, b, 1);
	if (final) {
		s->final_blocks++;
		work_add(&s->final_work, b, 1);
	}
	if (s->first < 0 || b->number < s->first)
		s->first = b->number;
	if (b->number > s->last)
		s->last = b->number;
	s->dirty = 1;
}

void
block_uncanonical(struct chain *ch, struct sblock *b)
{
	struct standing	*s;
	int		 was_final = b->final;

	if (b->final)
		log_warnx("chain %s: block #%lld leaves the chain although it "
		    "was final", ch->name, (long long)b->number);
	block_flags(ch, b, 0, 0);
	b->canonical = b->final = 0;
	if (b->runtime_updated)
		queue_block_left(ch->id, b->hash);
	if (!standing_counts(b))
		return;
	s = standing(ch, b);
	s->blocks--;
	work_add(&s->work, b, -1);
	if (was_final) {
		s->final_blocks--;
		work_add(&s->final_work, b, -1);
	}
	if (b->number == s->first || b->number == s->last)
		standing_bounds(ch, s);
	s->dirty = 1;
}

/* A short form of a hash for people: 0x1234abcd... */
const char *
block_short_hash(const uint8_t h[32], char buf[24])
{
	char	full[67];

	hex_encode(h, 32, full);
	snprintf(buf, 24, "%.10s...", full);
	return buf;
}

/* The endpoint's name for a log line, in buf; "endpoint N" if unknown. */
const char *
block_ep_name(int64_t id, char buf[CONF_NAME_MAX + 16])
{
	sqlite3_stmt	*st = store_bind(&s_ep_name, "i", id);
	const char	*name;

	snprintf(buf, CONF_NAME_MAX + 16, "endpoint %lld", (long long)id);
	if (store_row(st) &&
	    (name = (const char *)sqlite3_column_text(st, 0)) != NULL)
		snprintf(buf, CONF_NAME_MAX + 16, "%s", name);
	sqlite3_reset(st);
	return buf;
}

/*
 * A verdict on endpoint_id added to out.  When out is full, the oldest
 * are kept: a lie already told does not need telling twice, and an
 * agreement gives way to a lie.
 */
static void
verdicts_add(struct chain_verdicts *out, int64_t endpoint_id,
    enum chain_verdict_kind k, const char *reason)
{
	struct chain_verdict	*v;

	for (size_t i = 0; k == CV_AGREES && i < out->n; i++)
		if (out->v[i].kind == CV_AGREES &&
		    out->v[i].endpoint_id == endpoint_id)
			return;		/* said already */
	if (out->n == CHAIN_VERDICTS_MAX) {
		size_t i;

		for (i = 0; i < out->n; i++)
			if (out->v[i].kind == CV_AGREES)
				break;
		if (k == CV_AGREES || i == out->n)
			return;
		memmove(&out->v[i], &out->v[i + 1],
		    (out->n - i - 1) * sizeof(*v));
		out->n--;
	}
	v = &out->v[out->n++];
	v->endpoint_id = endpoint_id;
	v->kind = k;
	snprintf(v->reason, sizeof(v->reason), "%s", reason);
}

/* A verdict of the call under way, for its caller (sup_chain.h). */
void __attribute__((format(printf, 4, 5)))
block_verdict(struct chain *ch, int64_t endpoint_id, enum chain_verdict_kind k,
    const char *fmt, ...)
{
	char	reason[sizeof(((struct chain_verdict *)0)->reason)];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (ch->out == NULL) {
		log_warnx("chain %s: a verdict outside a call: %s", ch->name,
		    reason);
		return;
	}
	verdicts_add(ch->out, endpoint_id, k, reason);
}

static struct store_stmt s_ep_seal_failed = { "UPDATE endpoints SET "
    "seals_failed = seals_failed + 1 WHERE id = ?", NULL, NULL };

static struct store_stmt s_cross_owed = { "UPDATE blocks SET cross_read = 0 "
    "WHERE chain_id = ? AND hash = ? AND cross_read IS NULL", NULL, NULL };

void
block_ask_again(struct chain *ch, const uint8_t hash[32], int64_t number,
    int64_t not_ep, uint64_t due, const char *why)
{
	store_run(store_bind(&s_cross_owed, "ib", ch->id, hash));
	queue_dispute(ch->id, number, number, not_ep, due, why);
}

/*
 * A block whose seal fails, in the log; then what its parent's
 * difficulty is worth (sup_cross.h): two endpoints said it, and the
 * block's server is judged; one did, and another is asked.  Not while
 * the rule is in doubt, nor with one endpoint to ask.
 */
void
block_seal_failed(struct chain *ch, const struct seal_fail *f)
{
	char		hb[24], eb[CONF_NAME_MAX + 16], why[200];
	struct sblock	p;

	/* While the rule is in doubt, every block says it: no news. */
	(ch->seals.doubt ? log_debug : log_warnx)("chain %s: block #%lld %s: "
	    "%s (first from %s): unproven", ch->name, (long long)f->number,
	    block_short_hash(f->hash, hb), seal_words(f, why, sizeof(why)),
	    block_ep_name(f->endpoint_id, eb));
	ch->seals_failed++;
	if (f->endpoint_id > 0)
		store_run(store_bind(&s_ep_seal_failed, "i", f->endpoint_id));
	if (f->seal != QPOW_SEAL_OK || ch->seals.doubt ||
	    !block_get(ch, f->parent, &p) || !p.has_diff)
		return;
	if (p.cross_read == 1) {
		block_verdict(ch, f->endpoint_id, CV_CONTRADICTED, "block "
		    "#%lld %s: %s, which two endpoints answered",
		    (long long)f->number, hb, seal_words(f, why, sizeof(why)));
		return;
	}
	if (p.cross_read == 0 || ch->n_endpoints < 2)
		return;
	snprintf(why, sizeof(why), "the seal of #%lld fails it",
	    (long long)f->number);
	block_ask_again(ch, p.hash, p.number, p.state_ep, 0, why);
	log_info("chain %s: difficulty at #%lld, %s's answer: asked of "
	    "another endpoint (%s)", ch->name, (long long)p.number,
	    block_ep_name(p.state_ep, eb), why);
}

/*
 * Store a header once.  Returns 1 if it was new.  *b gets the stored row
 * and *first_seen when the block was first stored.  The caller checked
 * its number against its parent's, when the parent is stored.
 */
int
block_store(struct chain *ch, const struct proto_header *h,
    int64_t endpoint_id, uint64_t seen, struct sblock *b, int64_t *first_seen)
{
	sqlite3_stmt	*st;
	struct seal_fail f;
	struct u512	 w;
	int		 inserted, proven, known, pow;

	memset(&f, 0, sizeof(f));
	/* Its work and seal's verdict, when its parent's difficulty is
	 * stored, go into its one write. */
	pow = h->has_pow && ch->format == FORMAT_QUANTUS && h->number > 0;
	known = seal_judge(ch, h->hash, h->parent, (int64_t)h->number,
	    (enum qpow_seal)h->seal, pow ? h->pow_max : NULL, endpoint_id, &f,
	    &proven);
	if (proven == -1)
		proven = seal_shape(ch, h);
	st = store_bind(&s_block_insert, "ibibBiiiBiB", ch->id, h->hash,
	    (int64_t)h->number, h->parent, h->miner, h->has_miner ? 32 : 0,
	    (int64_t)h->runtime_updated, endpoint_id, (int64_t)seen,
	    h->pow_max, 64, (int64_t)proven, f.need, 64);
	if (!h->has_miner)
		sqlite3_bind_null(st, 5);
	if (endpoint_id <= 0)
		sqlite3_bind_null(st, 7);
	if (!pow)
		sqlite3_bind_null(st, 9);
	if (proven == -1)
		sqlite3_bind_null(st, 10);
	if (known) {
		u512_from_le(&w, f.need);
		sqlite3_bind_double(st, 12, u512_to_double(&w));
	} else
		sqlite3_bind_null(st, 11);
	inserted = store_run(st) > 0;
	if (inserted) {
		ch->blocks_ingested++;
		seal_count(ch, proven, (int64_t)h->number, seen);
		if (proven == 0)
			block_seal_failed(ch, &f);
	}
	if (!block_get(ch, h->hash, b))
		fatalx(CW_EXIT_INTERNAL, "chain %s: block #%llu vanished",
		    ch->name, (unsigned long long)h->number);
	*first_seen = (int64_t)seen;
	if (!inserted) {
		st = store_bind(&s_block_seen, "ib", ch->id, h->hash);
		if (store_row(st))
			*first_seen = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
	}
	return inserted;
}

/*
 * Every stored header's number is its parent's + 1.  -1, with the
 * verdict against the endpoint that brought it, if not.
 */
int
block_check_number(struct chain *ch, int64_t endpoint_id,
    const struct proto_header *h, const struct sblock *parent)
{
	char	hb[24];

	if (parent->number + 1 == (int64_t)h->number)
		return 0;
	block_verdict(ch, endpoint_id, CV_CONTRADICTED, "header #%llu %s is "
	    "not its parent's + 1 (#%lld)", (unsigned long long)h->number,
	    block_short_hash(h->hash, hb), (long long)parent->number);
	return -1;
}
