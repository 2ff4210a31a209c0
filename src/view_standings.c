/*
 * The standings of one chain over a window, and the hashrate estimated
 * from them: the query, the ranking and the span of block times that
 * chainwatch standings, chainwatch-metrics and its status page share.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hashrate.h"
#include "hex.h"
#include "u512.h"
#include "util.h"
#include "view.h"

const char *const view_window_name[VIEW_NWINDOWS] = {
	[VIEW_WINDOW_ALL] = "all",
	[VIEW_WINDOW_1H] = "1h",
	[VIEW_WINDOW_24H] = "24h",
	[VIEW_WINDOW_7D] = "7d",
};

static const int64_t window_ms[VIEW_NWINDOWS] = {
	[VIEW_WINDOW_ALL] = 0,
	[VIEW_WINDOW_1H] = 3600 * 1000LL,
	[VIEW_WINDOW_24H] = 86400 * 1000LL,
	[VIEW_WINDOW_7D] = 7 * 86400 * 1000LL,
};

/*
 * Every query yields: miner, ss58, blocks, final_blocks, work, first, last.
 * The genesis is left out by +number > 0: the unary + keeps SQLite from
 * taking it for a range of blocks_number, which it did (without STAT4,
 * any range looks as narrow as another) and then read every block of the
 * chain, sorted, for a window of a few hours.  Blocks are read in the
 * order of the window index instead (see chainwatch.db(5)).
 */
static const char q_all[] =
    "SELECT s.miner, m.ss58, s.blocks, s.final_blocks, s.work,"
    "  s.first_number, s.last_number"
    " FROM standings s LEFT JOIN miners m ON m.account = s.miner"
    " WHERE s.chain_id = ?1 AND s.blocks > 0";
/*
 * Final blocks only, of all time: the standings' final counts, and the
 * numbers of each miner's first and last final block through
 * blocks_miner (x'' stands for the blocks without a miner), not a scan
 * of every block (3 s on 1.65 M blocks).
 */
static const char q_all_final[] =
    "SELECT s.miner, m.ss58, s.final_blocks, s.final_blocks, s.final_work,"
    "  (SELECT min(number) FROM blocks WHERE chain_id = ?1 AND"
    "   miner IS nullif(s.miner, x'') AND canonical = 1 AND final = 1 AND"
    "   +number > 0),"
    "  (SELECT max(number) FROM blocks WHERE chain_id = ?1 AND"
    "   miner IS nullif(s.miner, x'') AND canonical = 1 AND final = 1 AND"
    "   +number > 0)"
    " FROM standings s LEFT JOIN miners m ON m.account = s.miner"
    " WHERE s.chain_id = ?1 AND s.final_blocks > 0";
/*
 * %s%s: further conditions on the canonical blocks.  Summed here, not
 * by GROUP BY: the blocks come in time order from blocks_window, and
 * SQLite sorted the 50 000 of a 7-day window by miner in a temporary
 * B-tree first, 50 of the 60 ms a cold 7d answer took on a Planck-size
 * store.
 */
static const char q_window[] =
    "SELECT miner, final, work, number FROM blocks"
    " WHERE chain_id = ?1 AND canonical = 1 AND +number > 0%s%s";
static const char q_ss58[] =
    "SELECT ss58 FROM miners WHERE account = ?1";
/* The window's earliest mined block, and its latest time. */
static const char q_first[] =
    "SELECT timestamp, miner, work FROM blocks"
    " WHERE chain_id = ?1 AND canonical = 1 AND +number > 0 AND"
    " miner IS NOT NULL AND timestamp IS NOT NULL%s%s"
    " ORDER BY timestamp, number LIMIT 1";
static const char q_last[] =
    "SELECT max(timestamp) FROM blocks"
    " WHERE chain_id = ?1 AND canonical = 1 AND +number > 0 AND"
    " miner IS NOT NULL%s%s";

char *
view_miner_name(const uint8_t *account, size_t len, const unsigned char *ss58)
{
	char	 hex[2 * VIEW_ACCOUNT_MAX + 3];

	if (ss58 != NULL)
		return xstrdup((const char *)ss58);
	if (len == 0)
		return xstrdup("unknown");
	if (len > VIEW_ACCOUNT_MAX)
		len = VIEW_ACCOUNT_MAX;
	hex_encode(account, len, hex);
	return xstrdup(hex);
}

static int
srow_cmp(const void *pa, const void *pb)
{
	const struct view_srow *a = pa, *b = pb;
	int		 c;

	if (a->blocks != b->blocks)
		return a->blocks > b->blocks ? -1 : 1;
	if ((c = u512_cmp(&a->work, &b->work)) != 0)
		return -c;
	return strcmp(a->name, b->name);
}

void
view_standings_free(struct view_standings *s)
{
	size_t	 i;

	for (i = 0; i < s->n; i++)
		free(s->rows[i].name);
	free(s->rows);
	free(s->unsealed.name);
	memset(s, 0, sizeof(*s));
}

/* Prepare fmt with the window's conditions and bind them. */
static int
prepare_window(struct view_db *c, const struct view_chain *ch,
    const char *fmt, enum view_window w, int final_only, int64_t now,
    sqlite3_stmt **st)
{
	char	 sql[1024];

	snprintf(sql, sizeof(sql), fmt,
	    w != VIEW_WINDOW_ALL ? " AND timestamp >= ?2" : "",
	    final_only ? " AND final = 1" : "");
	if (view_db_prepare(c, "reading standings", sql, st) == -1)
		return -1;
	sqlite3_bind_int64(*st, 1, ch->id);
	if (w != VIEW_WINDOW_ALL)
		sqlite3_bind_int64(*st, 2, now - window_ms[w]);
	return 0;
}

/* Its work into r's, or -1 if not a 512-bit number or the sum overflows. */
static int
row_add_work(struct view_srow *r, const void *blob, int len)
{
	struct u512	 d;

	if (blob == NULL)
		return 0;	/* difficulty not known (yet) */
	if (len != U512_BYTES)
		return -1;
	u512_from_le(&d, blob);
	return u512_add(&r->work, &d);
}

/* A window's table of miners: row index + 1 by the account's hash. */
struct miner_index {
	size_t		*slot;
	size_t		 cap;		/* a power of two, 0 or over 2 n */
};

static uint32_t
account_hash(const uint8_t *p, size_t len)
{
	uint32_t	 h = 2166136261u;

	while (len-- > 0)
		h = (h ^ *p++) * 16777619u;
	return h;
}

/*
 * The slot of account in ix: the one that holds it, or the empty one where
 * it would go (linear probing; ix->cap is a power of two, never full).
 */
static size_t
index_probe(const struct view_standings *s, const struct miner_index *ix,
    const uint8_t *account, size_t len)
{
	const struct view_srow	*r;
	size_t			 i;

	for (i = account_hash(account, len) & (ix->cap - 1); ix->slot[i] != 0;
	    i = (i + 1) & (ix->cap - 1)) {
		r = &s->rows[ix->slot[i] - 1];
		if (r->account_len == len && memcmp(r->account, account,
		    len) == 0)
			break;
	}
	return i;
}

/* The row of this account, made if new. */
static struct view_srow *
window_row(struct view_standings *s, struct miner_index *ix,
    const uint8_t *account, size_t len)
{
	struct view_srow *r;
	size_t		  i, k;

	if (len > VIEW_ACCOUNT_MAX)
		len = VIEW_ACCOUNT_MAX;
	if (ix->cap > 0) {
		i = index_probe(s, ix, account, len);
		if (ix->slot[i] != 0)
			return &s->rows[ix->slot[i] - 1];
	}
	s->rows = xrealloc(s->rows, (s->n + 1) * sizeof(*s->rows));
	r = &s->rows[s->n++];
	memset(r, 0, sizeof(*r));
	memcpy(r->account, account, len);
	r->account_len = len;
	if (2 * s->n > ix->cap) {
		free(ix->slot);
		ix->cap = ix->cap == 0 ? 64 : 2 * ix->cap;
		ix->slot = xcalloc(ix->cap, sizeof(*ix->slot));
		for (k = 0; k < s->n; k++) {
			r = &s->rows[k];
			ix->slot[index_probe(s, ix, r->account,
			    r->account_len)] = k + 1;
		}
	} else
		ix->slot[index_probe(s, ix, account, len)] = s->n;
	return &s->rows[s->n - 1];
}

/* The rows' names: SS58 where the store has one, or hex. */
static int
window_names(struct view_db *c, struct view_standings *s)
{
	sqlite3_stmt	*st;
	int		 rc = SQLITE_DONE;

	if (s->n == 0)
		return 0;
	if (view_db_prepare(c, "reading miners", q_ss58, &st) == -1)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		struct view_srow *r = &s->rows[i];

		sqlite3_bind_blob(st, 1, r->account, (int)r->account_len,
		    SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			break;
		r->name = view_miner_name(r->account, r->account_len,
		    rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL);
		sqlite3_reset(st);
	}
	return view_db_finish(c, "reading miners", st, rc == SQLITE_ROW ||
	    rc == SQLITE_DONE);
}

/* A window's canonical blocks, summed by miner as they come. */
static int
window_load(struct view_db *c, const struct view_chain *ch,
    enum view_window w, int final_only, int64_t now, struct view_standings *s)
{
	struct miner_index ix = { NULL, 0 };
	struct view_srow *r;
	sqlite3_stmt	*st;
	int64_t		 number;
	int		 rc, len, bad = 0;

	if (prepare_window(c, ch, q_window, w, final_only, now, &st) == -1)
		return CW_EXIT_SYSTEM;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((len = sqlite3_column_bytes(st, 0)) == 0) {
			r = &s->unsealed;	/* no miner, apart */
			if (r->name == NULL)
				r->name = xstrdup("unsealed");
		} else
			r = window_row(s, &ix, sqlite3_column_blob(st, 0),
			    (size_t)len);
		number = sqlite3_column_int64(st, 3);
		if (r->blocks == 0 || number < r->first)
			r->first = number;
		if (r->blocks == 0 || number > r->last)
			r->last = number;
		r->has_range = 1;
		r->blocks++;
		r->final_blocks += sqlite3_column_int(st, 1) != 0;
		if (row_add_work(r, sqlite3_column_blob(st, 2),
		    sqlite3_column_bytes(st, 2)) == -1) {
			view_err("%s: chain %s, block #%lld: work is not a "
			    "64-byte number, or the window's sum overflows 512 "
			    "bits (see chainwatch verify)", c->path, ch->name,
			    (long long)number);
			bad = 1;
			break;
		}
	}
	free(ix.slot);
	if (bad) {
		sqlite3_finalize(st);
		return CW_EXIT_SYSTEM;
	}
	if (view_db_finish(c, "reading standings", st, rc == SQLITE_DONE) ==
	    -1 || window_names(c, s) == -1)
		return CW_EXIT_SYSTEM;
	for (size_t i = 0; i < s->n; i++) {
		r = &s->rows[i];
		if (final_only)
			r->blocks = r->final_blocks;
		s->total_blocks += r->blocks;
		if (u512_add(&s->work, &r->work) == -1) {
			view_err("%s: chain %s: the window's work overflows "
			    "512 bits (see chainwatch verify)", c->path,
			    ch->name);
			return CW_EXIT_SYSTEM;
		}
	}
	return CW_EXIT_OK;
}

/* All time: the standings table, kept by the daemon. */
static int
rows_load(struct view_db *c, const struct view_chain *ch, int final_only,
    struct view_standings *s)
{
	sqlite3_stmt	*st;
	struct view_srow *r;
	const void	*blob;
	const char	*work;
	int		 rc;

	if (view_db_prepare(c, "reading standings", final_only ?
	    q_all_final : q_all, &st) == -1)
		return CW_EXIT_SYSTEM;
	sqlite3_bind_int64(st, 1, ch->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_bytes(st, 0) == 0) {
			/* x'': unsealed, apart; one row at most */
			r = &s->unsealed;
			free(r->name);
			memset(r, 0, sizeof(*r));
			r->name = xstrdup("unsealed");
		} else {
			s->rows = xrealloc(s->rows, (s->n + 1) *
			    sizeof(*s->rows));
			r = &s->rows[s->n++];
			memset(r, 0, sizeof(*r));
			blob = sqlite3_column_blob(st, 0);
			r->account_len = (size_t)sqlite3_column_bytes(st, 0);
			if (r->account_len > VIEW_ACCOUNT_MAX)
				r->account_len = VIEW_ACCOUNT_MAX;
			memcpy(r->account, blob, r->account_len);
			r->name = view_miner_name(r->account, r->account_len,
			    sqlite3_column_text(st, 1));
		}
		r->blocks = sqlite3_column_int64(st, 2);
		r->final_blocks = sqlite3_column_int64(st, 3);
		if (final_only)
			r->blocks = r->final_blocks;
		work = (const char *)sqlite3_column_text(st, 4);
		if (work == NULL || u512_from_dec(&r->work, work) == -1 ||
		    (r != &s->unsealed && u512_add(&s->work, &r->work) == -1)) {
			view_err("%s: chain %s, miner %s: work '%s' in "
			    "standings is not a decimal number below 2^512 "
			    "(see chainwatch verify)", c->path, ch->name,
			    r->name, work != NULL ? work : "NULL");
			sqlite3_finalize(st);
			return CW_EXIT_SYSTEM;
		}
		if ((r->has_range = sqlite3_column_type(st, 5) !=
		    SQLITE_NULL)) {
			r->first = sqlite3_column_int64(st, 5);
			r->last = sqlite3_column_int64(st, 6);
		}
		if (r != &s->unsealed)
			s->total_blocks += r->blocks;
	}
	if (view_db_finish(c, "reading standings", st, rc == SQLITE_DONE) == -1)
		return CW_EXIT_SYSTEM;
	return CW_EXIT_OK;
}

/*
 * The span and the hashrates of hashrate.h: the earliest block's time,
 * miner and difficulty, and the latest time.  A window without two block
 * times, or whose earliest block has no difficulty (not Quantus), has no
 * hashrate.
 */
static int
hashrate_load(struct view_db *c, const struct view_chain *ch,
    enum view_window w, int final_only, int64_t now, struct view_standings *s)
{
	sqlite3_stmt	*st;
	struct view_srow *r;
	struct u512	 first_d;
	uint8_t		 miner[VIEW_ACCOUNT_MAX];
	size_t		 miner_len = 0, i;
	int		 rc, has_d = 0;

	if (prepare_window(c, ch, q_first, w, final_only, now, &st) == -1)
		return CW_EXIT_SYSTEM;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		s->first_ms = sqlite3_column_int64(st, 0);
		miner_len = (size_t)sqlite3_column_bytes(st, 1);
		if (miner_len > VIEW_ACCOUNT_MAX)
			miner_len = VIEW_ACCOUNT_MAX;
		if (miner_len > 0)
			memcpy(miner, sqlite3_column_blob(st, 1), miner_len);
		if ((has_d = sqlite3_column_bytes(st, 2) == U512_BYTES))
			u512_from_le(&first_d, sqlite3_column_blob(st, 2));
	}
	if (view_db_finish(c, "reading block times", st, rc == SQLITE_ROW ||
	    rc == SQLITE_DONE) == -1)
		return CW_EXIT_SYSTEM;
	if (rc != SQLITE_ROW)
		return CW_EXIT_OK;	/* no block with a time */

	if (prepare_window(c, ch, q_last, w, final_only, now, &st) == -1)
		return CW_EXIT_SYSTEM;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		s->last_ms = sqlite3_column_int64(st, 0);
	if (view_db_finish(c, "reading block times", st, rc == SQLITE_ROW) ==
	    -1)
		return CW_EXIT_SYSTEM;
	s->has_span = 1;
	if (!has_d)
		return CW_EXIT_OK;

	s->has_hashrate = hashrate_estimate(&s->work, &first_d, s->first_ms,
	    s->last_ms, &s->hashrate) == 0;
	for (i = 0; s->has_hashrate && i < s->n; i++) {
		r = &s->rows[i];
		r->has_hashrate = hashrate_estimate(&r->work,
		    r->account_len == miner_len && (miner_len == 0 ||
		    memcmp(r->account, miner, miner_len) == 0) ? &first_d : NULL,
		    s->first_ms, s->last_ms, &r->hashrate) == 0;
	}
	return CW_EXIT_OK;
}

int
view_standings_load(struct view_db *c, const struct view_chain *ch,
    enum view_window w, int final_only, int64_t now,
    struct view_standings *s)
{
	int	 rc;

	memset(s, 0, sizeof(*s));
	rc = w == VIEW_WINDOW_ALL ? rows_load(c, ch, final_only, s) :
	    window_load(c, ch, w, final_only, now, s);
	if (rc != CW_EXIT_OK)
		return rc;
	if (s->n > 1)	/* never the NULL of an empty list */
		qsort(s->rows, s->n, sizeof(*s->rows), srow_cmp);
	return hashrate_load(c, ch, w, final_only, now, s);
}

static double
standings_share(const struct view_standings *s, const struct view_srow *r)
{
	return s->total_blocks > 0 ?
	    100.0 * (double)r->blocks / (double)s->total_blocks : 0.0;
}

/* A miner's blocks and work in a window, into row. */
static void
standings_counts_json(json_t *row, const struct view_srow *r)
{
	char	 dec[U512_DEC_LEN];

	json_object_set_new(row, "blocks", json_integer(r->blocks));
	json_object_set_new(row, "provisional",
	    json_integer(r->blocks - r->final_blocks));
	json_object_set_new(row, "final", json_integer(r->final_blocks));
	u512_to_dec(&r->work, dec);
	json_object_set_new(row, "work", json_string(dec));
}

/* The numbers of its first and last block there, into row. */
static void
standings_range_json(json_t *row, const struct view_srow *r)
{
	json_object_set_new(row, "first_number",
	    view_jint(r->has_range, r->first));
	json_object_set_new(row, "last_number",
	    view_jint(r->has_range, r->last));
}

json_t *
view_srow_json(const struct view_standings *s, const struct view_srow *r,
    size_t rank)
{
	json_t	*row = json_object();
	char	 hex[2 * VIEW_ACCOUNT_MAX + 3];

	json_object_set_new(row, "rank", json_integer((json_int_t)rank));
	json_object_set_new(row, "miner", view_jstr(r->name));
	if (r->account_len > 0) {
		hex_encode(r->account, r->account_len, hex);
		json_object_set_new(row, "account", json_string(hex));
	} else
		json_object_set_new(row, "account", json_null());
	standings_counts_json(row, r);
	json_object_set_new(row, "work_f", json_real(u512_to_double(&r->work)));
	json_object_set_new(row, "share", json_real(standings_share(s, r)));
	json_object_set_new(row, "hashrate", r->has_hashrate ?
	    json_real(r->hashrate) : json_null());
	standings_range_json(row, r);
	return row;
}

json_t *
view_miner_json(const struct view_chain *ch, const char *name,
    const char *account, const struct view_standings *s, json_t *running)
{
	json_t		*root, *ws;
	size_t		 k;
	int		 w;

	root = json_object();
	view_jhead(root, ch, running);
	json_object_set_new(root, "miner", view_jstr(name));
	json_object_set_new(root, "account", view_jstr(account));
	json_object_set_new(root, "hashrate_estimator",
	    json_string("work_over_span"));
	ws = json_object();
	for (w = 0; w < VIEW_NWINDOWS; w++) {
		for (k = 0; k < s[w].n; k++)
			if (view_srow_is(&s[w].rows[k], account))
				break;
		json_object_set_new(ws, view_window_name[w], k < s[w].n ?
		    view_srow_json(&s[w], &s[w].rows[k], k + 1) : json_null());
	}
	json_object_set_new(root, "windows", ws);
	return root;
}

int
view_srow_is(const struct view_srow *r, const char *account)
{
	char	 hex[2 * VIEW_ACCOUNT_MAX + 3];

	hex_encode(r->account, r->account_len, hex);
	return strcmp(hex, account) == 0;
}

json_t *
view_standings_json(const struct view_chain *ch, enum view_window w,
    int final_only, const struct view_standings *s, size_t offset,
    size_t shown, int stale, const char *last, json_t *running)
{
	json_t		*root, *rows, *row;
	const struct view_srow *r;
	size_t		 k;

	root = json_object();
	view_jhead(root, ch, running);
	json_object_set_new(root, "window", json_string(view_window_name[w]));
	json_object_set_new(root, "final_only", json_boolean(final_only));
	json_object_set_new(root, "stale", json_boolean(stale));
	json_object_set_new(root, "stale_reason", stale ? json_string(
	    "every configured endpoint's breaker is open or half-open") :
	    json_null());
	json_object_set_new(root, "last_endpoint", last[0] != '\0' ?
	    json_string(last) : json_null());
	json_object_set_new(root, "miners", json_integer((json_int_t)s->n));
	json_object_set_new(root, "blocks", json_integer(s->total_blocks));
	json_object_set_new(root, "hashrate_estimator",
	    json_string("work_over_span"));
	view_jtime(root, "span_first", s->has_span, s->first_ms);
	view_jtime(root, "span_last", s->has_span, s->last_ms);
	json_object_set_new(root, "hashrate", s->has_hashrate ?
	    json_real(s->hashrate) : json_null());
	json_object_set_new(root, "offset", json_integer((json_int_t)offset));
	rows = json_array();
	for (k = offset; k < s->n && k - offset < shown; k++) {
		r = &s->rows[k];
		row = view_srow_json(s, r, k + 1);
		json_array_append_new(rows, row);
	}
	json_object_set_new(root, "rows", rows);
	row = json_object();
	standings_counts_json(row, &s->unsealed);
	standings_range_json(row, &s->unsealed);
	json_object_set_new(root, "unsealed", row);
	return root;
}
