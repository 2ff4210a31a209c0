/*
 * The blocks of a chain as the store has them, the last heights or a
 * range of numbers, every block of a height (the canonical one first, then
 * those that lost a reorganisation): chainwatch blocks and /api/v1/.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hex.h"
#include "u512.h"
#include "util.h"
#include "view.h"

/* Every block of the heights asked, canonical first; q_last or q_range. */
#define Q_BLOCKS							\
    "SELECT '0x' || lower(hex(b.hash)), b.number,"				\
    "  '0x' || lower(hex(b.parent)), b.miner, m.ss58, b.difficulty,"	\
    "  b.timestamp, b.canonical, b.final, b.runtime_updated, e.name,"	\
    "  b.first_seen, b.state_at, b.proven"				\
    " FROM blocks b"							\
    " LEFT JOIN miners m ON m.account = coalesce(b.miner, x'')"		\
    " LEFT JOIN endpoints e ON e.id = b.first_endpoint_id"		\
    " WHERE b.chain_id = ?1 AND "
#define Q_BLOCKS_ORDER	" ORDER BY b.number DESC, b.canonical DESC,"	\
    " b.first_seen, b.hash"
/* Heights, not rows: every block of the last ?2 numbers stored. */
static const char q_last[] = Q_BLOCKS "b.number IN (SELECT DISTINCT number"
    " FROM blocks WHERE chain_id = ?1 ORDER BY number DESC LIMIT ?2)"
    Q_BLOCKS_ORDER;
/* Or of the numbers from ?2 to ?3. */
static const char q_range[] = Q_BLOCKS "b.number BETWEEN ?2 AND ?3"
    Q_BLOCKS_ORDER;

void
view_blocks_free(struct view_blocks *b)
{
	size_t	 i;

	for (i = 0; i < b->n; i++) {
		free(b->v[i].hash);
		free(b->v[i].parent);
		free(b->v[i].miner);
		free(b->v[i].account);
		free(b->v[i].endpoint);
	}
	free(b->v);
}

static void
blk_miner(struct view_block *p, sqlite3_stmt *st)
{
	char	 hex[2 * VIEW_ACCOUNT_MAX + 3];
	size_t	 len;

	if (sqlite3_column_type(st, 3) == SQLITE_BLOB &&
	    (len = (size_t)sqlite3_column_bytes(st, 3)) > 0 &&
	    len <= VIEW_ACCOUNT_MAX) {
		hex_encode(sqlite3_column_blob(st, 3), len, hex);
		p->account = xstrdup(hex);
	}
	/* A miner not in the miners table is shown by its account. */
	if ((p->miner = view_col_dup(st, 4)) == NULL)
		p->miner = xstrdup(p->account != NULL ? p->account :
		    "unknown");
}

int
view_blocks_load(struct view_db *c, const struct view_chain *ch,
    int64_t last, int64_t from, int64_t to, struct view_blocks *b)
{
	sqlite3_stmt	*st;
	struct view_block *p;
	int		 rc;

	if (view_db_prepare(c, "reading blocks", last > 0 ? q_last : q_range,
	    &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, ch->id);
	sqlite3_bind_int64(st, 2, last > 0 ? last : from);
	sqlite3_bind_int64(st, 3, to);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		b->v = xrealloc(b->v, (b->n + 1) * sizeof(*b->v));
		p = &b->v[b->n++];
		memset(p, 0, sizeof(*p));
		p->hash = view_col_dup(st, 0);
		p->number = sqlite3_column_int64(st, 1);
		p->parent = view_col_dup(st, 2);
		blk_miner(p, st);
		if (sqlite3_column_type(st, 5) == SQLITE_BLOB &&
		    sqlite3_column_bytes(st, 5) == U512_BYTES) {
			p->has_difficulty = 1;
			u512_from_le(&p->difficulty,
			    sqlite3_column_blob(st, 5));
		}
		if ((p->has_ts = sqlite3_column_type(st, 6) != SQLITE_NULL))
			p->ts = sqlite3_column_int64(st, 6);
		p->canonical = sqlite3_column_int(st, 7);
		p->final = sqlite3_column_int(st, 8);
		p->runtime_updated = sqlite3_column_int(st, 9);
		p->endpoint = view_col_dup(st, 10);
		p->first_seen = sqlite3_column_int64(st, 11);
		if ((p->has_state_at = sqlite3_column_type(st, 12) !=
		    SQLITE_NULL))
			p->state_at = sqlite3_column_int64(st, 12);
		p->proven = sqlite3_column_type(st, 13) == SQLITE_NULL ? -1 :
		    sqlite3_column_int(st, 13);
		if (b->n == 1 || b->v[b->n - 2].number != p->number)
			b->heights++;
		b->reorged += !p->canonical;
	}
	if (view_db_finish(c, "reading blocks", st, rc == SQLITE_DONE) == -1)
		return CW_EXIT_SYSTEM;
	return CW_EXIT_OK;
}

/* Its seal: "ok", "FAIL" or "-" (not checked yet, or no seal). */
const char *
view_block_pow(const struct view_block *p)
{
	if (p->proven == -1)
		return "-";
	return p->proven ? "ok" : "FAIL";
}

/* A non-canonical block is never final: chainwatch verify says so. */
const char *
view_block_state(const struct view_block *p, int people)
{
	if (!p->canonical)
		return "reorged";
	if (p->final)
		return "final";
	return people ? "prov" : "provisional";
}

static json_t *
block_json(const struct view_block *p)
{
	json_t	*o = json_object();
	char	 dec[U512_DEC_LEN];

	json_object_set_new(o, "number", json_integer(p->number));
	json_object_set_new(o, "hash", view_jstr(p->hash));
	json_object_set_new(o, "parent", view_jstr(p->parent));
	json_object_set_new(o, "status", json_string(view_block_state(p, 0)));
	json_object_set_new(o, "canonical", json_boolean(p->canonical));
	json_object_set_new(o, "final", json_boolean(p->final));
	json_object_set_new(o, "reorged", json_boolean(!p->canonical));
	json_object_set_new(o, "miner", view_jstr(p->miner));
	json_object_set_new(o, "account", view_jstr(p->account));
	if (p->has_difficulty) {
		u512_to_dec(&p->difficulty, dec);
		json_object_set_new(o, "difficulty", json_string(dec));
		json_object_set_new(o, "difficulty_f",
		    json_real(u512_to_double(&p->difficulty)));
	} else {
		json_object_set_new(o, "difficulty", json_null());
		json_object_set_new(o, "difficulty_f", json_null());
	}
	view_jtime(o, "timestamp", p->has_ts, p->ts);
	view_jtime(o, "first_seen", 1, p->first_seen);
	json_object_set_new(o, "first_endpoint", view_jstr(p->endpoint));
	view_jtime(o, "state_at", p->has_state_at, p->state_at);
	json_object_set_new(o, "runtime_updated",
	    json_boolean(p->runtime_updated));
	json_object_set_new(o, "proven", p->proven == -1 ? json_null() :
	    json_boolean(p->proven));
	return o;
}

json_t *
view_blocks_json(const struct view_chain *ch, int64_t last, int64_t from,
    int64_t to, const struct view_blocks *b, json_t *running)
{
	json_t	*root, *arr;
	size_t	 i;

	root = json_object();
	view_jhead(root, ch, running);
	json_object_set_new(root, "last", view_jint(last > 0, last));
	json_object_set_new(root, "from", view_jint(last <= 0, from));
	json_object_set_new(root, "to", view_jint(last <= 0, to));
	json_object_set_new(root, "heights",
	    json_integer((json_int_t)b->heights));
	json_object_set_new(root, "reorged",
	    json_integer((json_int_t)b->reorged));
	arr = json_array();
	for (i = 0; i < b->n; i++)
		json_array_append_new(arr, block_json(&b->v[i]));
	json_object_set_new(root, "blocks", arr);
	return root;
}
