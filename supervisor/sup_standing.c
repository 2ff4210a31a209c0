/*
 * The standings of a chain's miners, kept in memory beside the chain and
 * written in the same transaction as the canonical flags they follow
 * (sup_chain.c changes them; this file reads, counts and flushes them).
 */
#include "config.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account.h"
#include "log.h"
#include "sup_chain.h"
#include "sup_standing.h"
#include "sup_store.h"
#include "u512.h"
#include "util.h"

static struct store_stmt s_standings_load = { "SELECT miner, blocks, "
    "final_blocks, work, final_work, first_number, last_number FROM "
    "standings WHERE chain_id = ?", NULL, NULL };
static struct store_stmt s_standing_put = { "INSERT OR REPLACE INTO standings "
    "(chain_id, miner, blocks, final_blocks, work, work_f, final_work, "
    "first_number, last_number) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    NULL, NULL };
static struct store_stmt s_miner_put = { "INSERT OR IGNORE INTO miners "
    "(account, ss58) VALUES (?, ?)", NULL, NULL };
static struct store_stmt s_miner_last = { "SELECT min(number), max(number) "
    "FROM blocks INDEXED BY blocks_miner WHERE chain_id = ? AND "
    "canonical = 1 AND miner = ? AND number > 0", NULL, NULL };
static struct store_stmt s_unknown_last = { "SELECT min(number), "
    "max(number) FROM blocks INDEXED BY blocks_miner WHERE chain_id = ? "
    "AND canonical = 1 AND miner IS NULL AND number > 0", NULL, NULL };

/*
 * The genesis (#0) was mined by nobody: it is in no standing.  A later
 * block whose digest names no miner (no PoW seal, or one that does not
 * decode) counts in the x'' row, which every view shows apart as
 * "unsealed", never as a miner.
 */
int
standing_counts(const struct sblock *b)
{
	return b->number > 0;
}

struct standing *
standing(struct chain *ch, const struct sblock *b)
{
	struct standing	*s;

	for (size_t i = 0; i < ch->n_st; i++) {
		s = &ch->st[i];
		if (s->known == b->has_miner &&
		    (!s->known || memcmp(s->miner, b->miner, 32) == 0))
			return s;
	}
	ch->st = xrealloc(ch->st, (ch->n_st + 1) * sizeof(*ch->st));
	s = &ch->st[ch->n_st++];
	memset(s, 0, sizeof(*s));
	s->known = b->has_miner;
	if (s->known) {
		char ss58[SS58_MAX];

		memcpy(s->miner, b->miner, 32);
		if (ss58_encode(ch->format == FORMAT_QUANTUS ?
		    SS58_PREFIX_QUANTUS : 42, s->miner, ss58, sizeof(ss58)) == -1)
			snprintf(ss58, sizeof(ss58), "?");
		store_run(store_bind(&s_miner_put, "bt", s->miner, ss58));
	}
	s->first = s->last = -1;
	return s;
}

void
work_add(struct u512 *acc, const struct sblock *b, int sign)
{
	struct u512	d;

	if (!b->has_work)
		return;
	u512_from_le(&d, b->work);
	if ((sign > 0 ? u512_add(acc, &d) : u512_sub(acc, &d)) == -1)
		fatalx(CW_EXIT_INTERNAL, "work of a miner over- or underflows "
		    "at block #%lld", (long long)b->number);
}

/* Where a miner's first and last canonical blocks are, asked again. */
void
standing_bounds(struct chain *ch, struct standing *s)
{
	sqlite3_stmt	*st;

	st = s->known ? store_bind(&s_miner_last, "ib", ch->id, s->miner) :
	    store_bind(&s_unknown_last, "i", ch->id);
	s->first = s->last = -1;
	if (store_row(st) && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		s->first = sqlite3_column_int64(st, 0);
		s->last = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
}

void
standings_load(struct chain *ch)
{
	sqlite3_stmt	*st = store_bind(&s_standings_load, "i", ch->id);
	struct sblock	 b;

	while (store_row(st)) {
		struct standing *s;

		memset(&b, 0, sizeof(b));
		b.has_miner = store_col_blob(st, 0, b.miner, 32);
		s = standing(ch, &b);
		s->blocks = (uint64_t)sqlite3_column_int64(st, 1);
		s->final_blocks = (uint64_t)sqlite3_column_int64(st, 2);
		if (u512_from_dec(&s->work,
		    (const char *)sqlite3_column_text(st, 3)) == -1 ||
		    u512_from_dec(&s->final_work,
		    (const char *)sqlite3_column_text(st, 4)) == -1)
			fatalx(CW_EXIT_SYSTEM, "chain %s: standings hold a "
			    "work that is not a number", ch->name);
		s->first = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 :
		    sqlite3_column_int64(st, 5);
		s->last = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 :
		    sqlite3_column_int64(st, 6);
	}
	sqlite3_reset(st);
}

void
standings_flush(struct chain *ch)
{
	char	work[U512_DEC_LEN], final[U512_DEC_LEN];

	for (size_t i = 0; i < ch->n_st; i++) {
		struct standing *s = &ch->st[i];
		sqlite3_stmt *st;

		if (!s->dirty)
			continue;
		u512_to_dec(&s->work, work);
		u512_to_dec(&s->final_work, final);
		st = store_bind(&s_standing_put, "iBiitdt",
		    ch->id, s->miner, s->known ? 32 : 0,
		    (int64_t)s->blocks, (int64_t)s->final_blocks, work,
		    u512_to_double(&s->work), final);
		if (s->first >= 0) {
			sqlite3_bind_int64(st, 8, s->first);
			sqlite3_bind_int64(st, 9, s->last);
		}
		store_run(st);
		s->dirty = 0;
	}
}
