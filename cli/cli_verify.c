/*
 * chainwatch verify: recompute every chain's standings from its canonical
 * blocks and compare them, field by field, with the standings table that
 * chainwatchd keeps incrementally; check the chain's shape on the way.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cli_fmt.h"
#include "hex.h"
#include "log.h"
#include "u512.h"
#include "util.h"

#define HASH_HEX	(2 * 32 + 3)
/* work_f is a float kept beside the exact work: allow its rounding. */
#define WORK_F_TOLERANCE	1e-6

struct vrow {
	uint8_t		 account[CLI_ACCOUNT_MAX];
	size_t		 account_len;
	char		*name;
	/* Recomputed from the canonical blocks. */
	int		 in_blocks;
	int64_t		 b_blocks, b_final;
	char		*b_work, *b_final_work;
	int		 b_range;
	int64_t		 b_first, b_last;
	/* As the standings table has it. */
	int		 in_standings;
	int64_t		 s_blocks, s_final;
	char		*s_work, *s_final_work;
	double		 s_work_f;
	int		 s_has_first, s_has_last;
	int64_t		 s_first, s_last;
};

struct verify {
	struct view_db	*c;
	const struct cli_opts *o;
	const struct view_chain *ch;
	json_t		*diffs;		/* --json: every difference */
	size_t		 ndiffs;
	struct vrow	*rows;
	size_t		 nrows;
};

static const char q_recount[] =
    "SELECT g.miner, m.ss58, g.blocks, g.final_blocks, g.work,"
    "  g.final_work, g.first_number, g.last_number"
    " FROM (SELECT coalesce(miner, x'') AS miner, count(*) AS blocks,"
    "    sum(final) AS final_blocks, u512_sum(work) AS work,"
    "    u512_sum(CASE WHEN final = 1 THEN work END) AS final_work,"
    "    min(number) AS first_number, max(number) AS last_number"
    "  FROM blocks WHERE chain_id = ?1 AND canonical = 1 AND number > 0"
    "  GROUP BY 1) g"
    " LEFT JOIN miners m ON m.account = g.miner";
static const char q_standings[] =
    "SELECT s.miner, m.ss58, s.blocks, s.final_blocks, s.work,"
    "  s.final_work, s.work_f, s.first_number, s.last_number"
    " FROM standings s LEFT JOIN miners m ON m.account = s.miner"
    " WHERE s.chain_id = ?1";
/*
 * A scan, and a sort of the few rows found: ordering by an index instead
 * would look every block up at random (the '+' forbid it).
 */
static const char q_final_not_canonical[] =
    "SELECT number, hash FROM blocks"
    " WHERE chain_id = ?1 AND final = 1 AND canonical = 0"
    " ORDER BY +number, +hash";
/* A range of blocks_canonical; every canonical block if there is no best. */
static const char q_above_best[] =
    "SELECT number, hash FROM blocks"
    " WHERE chain_id = ?1 AND canonical = 1 AND number > ?2"
    " ORDER BY number";
static const char q_no_best[] =
    "SELECT number, hash FROM blocks"
    " WHERE chain_id = ?1 AND canonical = 1 ORDER BY number";
/*
 * The canonical chain in order, each block compared with the one before.
 * One scan and a sort: a join of the blocks on themselves by number costs
 * a random index probe per block, ten times slower on a big store.  The
 * '+' keep the planner off blocks_canonical, which would order the rows
 * but fetch every parent at random.
 */
static const char q_parent[] =
    "SELECT number, hash, parent, difficulty, pow_max, proven, work,"
    " timestamp IS NOT NULL FROM blocks WHERE chain_id = ?1 AND"
    " +canonical = 1 ORDER BY +number";
static const char q_unknown_miner[] =
    "SELECT DISTINCT coalesce(b.miner, x'') AS a FROM blocks b"
    " WHERE b.chain_id = ?1 AND b.canonical = 1 AND NOT EXISTS"
    "  (SELECT 1 FROM miners m WHERE m.account = coalesce(b.miner, x''))"
    " ORDER BY a";
static const char q_count[] =
    "SELECT count(*) FROM blocks WHERE chain_id = ?1";

/*
 * One difference: a line on stdout, or with --json an object in the list
 * (detail, which this takes over, plus chain, kind and the same message).
 */
static void __attribute__((format(printf, 4, 5)))
diff_add(struct verify *v, const char *kind, json_t *detail,
    const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;
	int	 n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n == -1)
		fatalx(CW_EXIT_SYSTEM, "out of memory");
	v->ndiffs++;
	if (v->o->json) {
		json_object_set_new(detail, "chain", json_string(v->ch->name));
		json_object_set_new(detail, "kind", json_string(kind));
		json_object_set_new(detail, "message", json_string(msg));
		json_array_append_new(v->diffs, detail);
	} else {
		printf("%s\n", msg);
		json_decref(detail);
	}
	free(msg);
}

static int
prepare(struct verify *v, const char *sql, sqlite3_stmt **st)
{
	if (view_db_prepare(v->c, "verify", sql, st) == -1)
		return -1;
	sqlite3_bind_int64(*st, 1, v->ch->id);
	return 0;
}

static int
finish(struct verify *v, sqlite3_stmt *st, int rc)
{
	return view_db_finish(v->c, "verify", st, rc == SQLITE_DONE);
}

static int
account_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	int	 c;

	if ((c = memcmp(a, b, alen < blen ? alen : blen)) != 0)
		return c;
	return alen < blen ? -1 : alen > blen;
}

static int
vrow_cmp_account(const void *pa, const void *pb)
{
	const struct vrow *a = pa, *b = pb;

	return account_cmp(a->account, a->account_len, b->account,
	    b->account_len);
}

static int
vrow_cmp_name(const void *pa, const void *pb)
{
	const struct vrow *a = pa, *b = pb;
	int		 c;

	if ((c = strcmp(a->name, b->name)) != 0)
		return c;
	return vrow_cmp_account(pa, pb);
}

/* The row of this miner, made if it is not there yet. */
static struct vrow *
vrow_get(struct verify *v, sqlite3_stmt *st, size_t sorted)
{
	struct vrow	 key, *r;
	const void	*blob = sqlite3_column_blob(st, 0);

	memset(&key, 0, sizeof(key));
	key.account_len = (size_t)sqlite3_column_bytes(st, 0);
	if (key.account_len > CLI_ACCOUNT_MAX)
		key.account_len = CLI_ACCOUNT_MAX;
	if (key.account_len > 0)
		memcpy(key.account, blob, key.account_len);
	if (sorted > 0 && (r = bsearch(&key, v->rows, sorted,
	    sizeof(*v->rows), vrow_cmp_account)) != NULL)
		return r;
	v->rows = xrealloc(v->rows, (v->nrows + 1) * sizeof(*v->rows));
	r = &v->rows[v->nrows++];
	*r = key;
	/* x'' holds the blocks without a miner, as standings shows them */
	r->name = r->account_len == 0 ? xstrdup("unsealed") :
	    cli_miner_name(r->account, r->account_len,
	    sqlite3_column_text(st, 1));
	return r;
}

static int
load_rows(struct verify *v)
{
	sqlite3_stmt	*st;
	struct vrow	*r;
	size_t		 sorted;
	int		 rc;

	if (prepare(v, q_recount, &st) == -1)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r = vrow_get(v, st, 0);
		r->in_blocks = 1;
		r->b_blocks = sqlite3_column_int64(st, 2);
		r->b_final = sqlite3_column_int64(st, 3);
		r->b_work = view_col_dup(st, 4);
		r->b_final_work = view_col_dup(st, 5);
		r->b_range = 1;
		r->b_first = sqlite3_column_int64(st, 6);
		r->b_last = sqlite3_column_int64(st, 7);
	}
	if (finish(v, st, rc) == -1)
		return -1;

	/* qsort() must not see the NULL of an empty list. */
	if (v->nrows > 1)
		qsort(v->rows, v->nrows, sizeof(*v->rows), vrow_cmp_account);
	sorted = v->nrows;
	if (prepare(v, q_standings, &st) == -1)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r = vrow_get(v, st, sorted);
		r->in_standings = 1;
		r->s_blocks = sqlite3_column_int64(st, 2);
		r->s_final = sqlite3_column_int64(st, 3);
		r->s_work = view_col_dup(st, 4);
		r->s_final_work = view_col_dup(st, 5);
		r->s_work_f = sqlite3_column_double(st, 6);
		r->s_has_first = view_col_int(st, 7, &r->s_first);
		r->s_has_last = view_col_int(st, 8, &r->s_last);
	}
	if (finish(v, st, rc) == -1)
		return -1;
	if (v->nrows > 1)
		qsort(v->rows, v->nrows, sizeof(*v->rows), vrow_cmp_name);
	return 0;
}

static void
rows_free(struct verify *v)
{
	size_t	 i;

	for (i = 0; i < v->nrows; i++) {
		free(v->rows[i].name);
		free(v->rows[i].b_work);
		free(v->rows[i].b_final_work);
		free(v->rows[i].s_work);
		free(v->rows[i].s_final_work);
	}
	free(v->rows);
	v->rows = NULL;
	v->nrows = 0;
}

static void
field_diff(struct verify *v, const struct vrow *r, const char *field,
    const char *in_standings, const char *in_blocks)
{
	json_t	*d = json_object();

	json_object_set_new(d, "miner", json_string(r->name));
	json_object_set_new(d, "field", json_string(field));
	json_object_set_new(d, "standings", json_string(in_standings));
	json_object_set_new(d, "blocks", json_string(in_blocks));
	diff_add(v, "standings", d, "%s: miner %s: %s %s in standings, %s in "
	    "blocks", v->ch->name, r->name, field, in_standings, in_blocks);
}

static void
int_diff(struct verify *v, const struct vrow *r, const char *field,
    int has_s, int64_t s, int has_b, int64_t b)
{
	char	 ss[24], bs[24];

	if (has_s == has_b && (!has_s || s == b))
		return;
	if (has_s)
		snprintf(ss, sizeof(ss), "%lld", (long long)s);
	else
		snprintf(ss, sizeof(ss), "none");
	if (has_b)
		snprintf(bs, sizeof(bs), "%lld", (long long)b);
	else
		snprintf(bs, sizeof(bs), "none");
	field_diff(v, r, field, ss, bs);
}

/* Compares exactly; *parsed gets the standings value when it is one. */
static void
work_diff(struct verify *v, const struct vrow *r, const char *field,
    const char *s, const char *b, struct u512 *parsed, int *ok)
{
	struct u512	 su, bu;
	char		 dec[U512_DEC_LEN];
	json_t		*d;

	*ok = 0;
	if (s == NULL || u512_from_dec(&su, s) == -1) {
		d = json_object();
		json_object_set_new(d, "miner", json_string(r->name));
		json_object_set_new(d, "field", json_string(field));
		json_object_set_new(d, "standings", s != NULL ?
		    json_string(s) : json_null());
		diff_add(v, "standings", d, "%s: miner %s: %s '%s' in "
		    "standings is not a decimal number", v->ch->name, r->name,
		    field, s != NULL ? s : "NULL");
		return;
	}
	*parsed = su;
	*ok = 1;
	/* u512_sum() always yields a decimal; "0" for no blocks. */
	if (u512_from_dec(&bu, b != NULL ? b : "0") == -1)
		u512_zero(&bu);
	if (u512_cmp(&su, &bu) != 0) {
		/* Show the standings value normalised: "007" is 7. */
		u512_to_dec(&su, dec);
		field_diff(v, r, field, strcmp(dec, s) == 0 ? s : dec,
		    b != NULL ? b : "0");
	}
}

static void
check_row(struct verify *v, const struct vrow *r)
{
	struct u512	 work;
	double		 want, diff;
	char		 ss[32], ws[32];
	json_t		*d;
	int		 ok;

	if (!r->in_standings) {
		snprintf(ss, sizeof(ss), "%lld", (long long)r->b_blocks);
		d = json_object();
		json_object_set_new(d, "miner", json_string(r->name));
		json_object_set_new(d, "field", json_string("blocks"));
		json_object_set_new(d, "standings", json_null());
		json_object_set_new(d, "blocks", json_string(ss));
		diff_add(v, "missing", d, "%s: miner %s: not in standings, "
		    "%lld canonical block%s in blocks", v->ch->name, r->name,
		    (long long)r->b_blocks, r->b_blocks == 1 ? "" : "s");
		return;
	}
	int_diff(v, r, "blocks", 1, r->s_blocks, 1, r->b_blocks);
	int_diff(v, r, "final_blocks", 1, r->s_final, 1, r->b_final);
	work_diff(v, r, "work", r->s_work, r->b_work, &work, &ok);
	if (ok) {
		want = u512_to_double(&work);
		diff = r->s_work_f - want;
		if (diff < 0)
			diff = -diff;
		if (diff > WORK_F_TOLERANCE * (want > 1.0 ? want : 1.0)) {
			snprintf(ss, sizeof(ss), "%.17g", r->s_work_f);
			snprintf(ws, sizeof(ws), "%.17g", want);
			d = json_object();
			json_object_set_new(d, "miner", json_string(r->name));
			json_object_set_new(d, "field", json_string("work_f"));
			json_object_set_new(d, "standings", json_string(ss));
			json_object_set_new(d, "work", json_string(ws));
			diff_add(v, "standings", d, "%s: miner %s: work_f %s in "
			    "standings, its work is %s", v->ch->name, r->name,
			    ss, ws);
		}
	}
	work_diff(v, r, "final_work", r->s_final_work, r->b_final_work,
	    &work, &ok);
	int_diff(v, r, "first_number", r->s_has_first, r->s_first,
	    r->b_range, r->b_first);
	int_diff(v, r, "last_number", r->s_has_last, r->s_last,
	    r->b_range, r->b_last);
}

static void
block_ref(sqlite3_stmt *st, int col, char *hex)
{
	size_t	 n = (size_t)sqlite3_column_bytes(st, col);

	if (n > 32)
		n = 32;
	hex_encode(sqlite3_column_blob(st, col), n, hex);
}

static json_t *
block_detail(int64_t number, const char *hash)
{
	json_t	*d = json_object();

	json_object_set_new(d, "number", json_integer(number));
	json_object_set_new(d, "hash", json_string(hash));
	return d;
}

/*
 * A canonical block's stored seal verdict against the stored facts: the
 * largest difficulty its seal meets (pow_max) and the difficulty at its
 * parent, the canonical block before it (diff, when have_diff).
 */
static void
check_seal(struct verify *v, sqlite3_stmt *st, int64_t num,
    const uint8_t diff[U512_BYTES], int have_diff)
{
	char		hash[HASH_HEX], have[U512_DEC_LEN], need[U512_DEC_LEN];
	struct u512	m, d;
	int		proven, want;

	proven = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 :
	    sqlite3_column_int(st, 5);
	if (sqlite3_column_bytes(st, 4) != U512_BYTES) {
		if (proven != 1)
			return;		/* no seal, or one of the wrong shape */
		block_ref(st, 1, hash);
		diff_add(v, "seal", block_detail(num, hash), "%s: block #%lld "
		    "%s: proven, but no bound of its seal is stored",
		    v->ch->name, (long long)num, hash);
		return;
	}
	if (!have_diff || (proven == -1 && !sqlite3_column_int(st, 7)))
		return;			/* not checkable yet, or with its state */
	u512_from_le(&m, sqlite3_column_blob(st, 4));
	u512_from_le(&d, diff);
	want = !u512_is_zero(&d) && u512_cmp(&d, &m) <= 0;
	if (proven == want)
		return;
	block_ref(st, 1, hash);
	u512_to_dec(&m, have);
	u512_to_dec(&d, need);
	diff_add(v, "seal", block_detail(num, hash), "%s: block #%lld %s: "
	    "proven is %s, but its seal meets at most %s and the difficulty "
	    "at its parent is %s", v->ch->name, (long long)num, hash,
	    proven == -1 ? "NULL" : proven ? "1" : "0", have, need);
}

/*
 * A canonical block's work is the difficulty at its parent, the canonical
 * block before it (diff, when have_diff), and nothing while that is not
 * known, nor while its own state is not stored (the daemon writes both
 * at once): what the standings sum.
 */
static void
check_work(struct verify *v, sqlite3_stmt *st, int64_t num,
    const uint8_t diff[U512_BYTES], int have_diff)
{
	char		hash[HASH_HEX], have[U512_DEC_LEN], need[U512_DEC_LEN];
	struct u512	w, d;
	int		has_work = sqlite3_column_bytes(st, 6) == U512_BYTES;

	if (has_work && have_diff &&
	    memcmp(sqlite3_column_blob(st, 6), diff, U512_BYTES) == 0)
		return;
	/* A block without its state gets its work with it. */
	if (!has_work && (!have_diff || !sqlite3_column_int(st, 7)))
		return;
	block_ref(st, 1, hash);
	snprintf(have, sizeof(have), "NULL");
	snprintf(need, sizeof(need), "not known");
	if (has_work) {
		u512_from_le(&w, sqlite3_column_blob(st, 6));
		u512_to_dec(&w, have);
	}
	if (have_diff) {
		u512_from_le(&d, diff);
		u512_to_dec(&d, need);
	}
	diff_add(v, "work", block_detail(num, hash), "%s: block #%lld %s: "
	    "work is %s, but the difficulty at its parent is %s",
	    v->ch->name, (long long)num, hash, have, need);
}

static int
check_blocks(struct verify *v)
{
	sqlite3_stmt	*st;
	char		 hash[HASH_HEX], parent[HASH_HEX], phash[HASH_HEX];
	char		 name[2 * CLI_ACCOUNT_MAX + 3];
	uint8_t		 prev_hash[32], prev_diff[U512_BYTES];
	const char	*ss;
	int64_t		 num, prev_num = 0;
	int		 have_prev = 0, have_diff = 0;
	json_t		*d;
	int		 rc;

	if (prepare(v, q_unknown_miner, &st) == -1)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		block_ref(st, 0, name);
		ss = sqlite3_column_bytes(st, 0) == 0 ? "unknown (x'')" : name;
		d = json_object();
		json_object_set_new(d, "miner", json_string(name));
		diff_add(v, "unknown_miner", d, "%s: miner %s: in blocks but "
		    "not in miners (the standings views leave its blocks out)",
		    v->ch->name, ss);
	}
	if (finish(v, st, rc) == -1)
		return -1;

	if (prepare(v, q_final_not_canonical, &st) == -1)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		num = sqlite3_column_int64(st, 0);
		block_ref(st, 1, hash);
		diff_add(v, "final_not_canonical", block_detail(num, hash),
		    "%s: block #%lld %s: final but not canonical", v->ch->name,
		    (long long)num, hash);
	}
	if (finish(v, st, rc) == -1)
		return -1;

	if (prepare(v, v->ch->has_best ? q_above_best : q_no_best, &st) == -1)
		return -1;
	if (v->ch->has_best)
		sqlite3_bind_int64(st, 2, v->ch->best_number);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		num = sqlite3_column_int64(st, 0);
		block_ref(st, 1, hash);
		if (v->ch->has_best)
			diff_add(v, "above_best", block_detail(num, hash),
			    "%s: block #%lld %s: canonical but above "
			    "best_number %lld", v->ch->name, (long long)num,
			    hash, (long long)v->ch->best_number);
		else
			diff_add(v, "above_best", block_detail(num, hash),
			    "%s: block #%lld %s: canonical but the chain has "
			    "no best_number", v->ch->name, (long long)num,
			    hash);
	}
	if (finish(v, st, rc) == -1)
		return -1;

	if (prepare(v, q_parent, &st) == -1)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		num = sqlite3_column_int64(st, 0);
		if (sqlite3_column_bytes(st, 1) != 32 ||
		    sqlite3_column_bytes(st, 2) != 32) {
			have_prev = 0;	/* the schema's CHECKs forbid it */
			continue;
		}
		if (have_prev && prev_num == num - 1 &&
		    memcmp(sqlite3_column_blob(st, 2), prev_hash, 32) != 0) {
			block_ref(st, 1, hash);
			block_ref(st, 2, parent);
			hex_encode(prev_hash, 32, phash);
			d = block_detail(num, hash);
			json_object_set_new(d, "parent", json_string(parent));
			json_object_set_new(d, "canonical_parent",
			    json_string(phash));
			diff_add(v, "parent", d, "%s: block #%lld %s: parent %s "
			    "is not the canonical block #%lld %s", v->ch->name,
			    (long long)num, hash, parent, (long long)(num - 1),
			    phash);
		} else if (have_prev && prev_num == num - 1) {
			check_seal(v, st, num, prev_diff, have_diff);
			check_work(v, st, num, prev_diff, have_diff);
		}
		memcpy(prev_hash, sqlite3_column_blob(st, 1), 32);
		have_diff = sqlite3_column_bytes(st, 3) == U512_BYTES;
		if (have_diff)
			memcpy(prev_diff, sqlite3_column_blob(st, 3),
			    U512_BYTES);
		prev_num = num;
		have_prev = 1;
	}
	return finish(v, st, rc);
}

static int
count_blocks(struct verify *v, int64_t *n)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (prepare(v, q_count, &st) == -1)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*n += sqlite3_column_int64(st, 0);
		rc = SQLITE_DONE;
	}
	return finish(v, st, rc);
}

static int
verify_chain(struct verify *v, const struct view_chain *ch, int64_t *blocks)
{
	size_t	 i;
	int	 rc = 0;

	v->ch = ch;
	if (count_blocks(v, blocks) == -1 || load_rows(v) == -1)
		rc = -1;
	for (i = 0; rc == 0 && i < v->nrows; i++)
		check_row(v, &v->rows[i]);
	rows_free(v);
	if (rc == 0)
		rc = check_blocks(v);
	return rc;
}

int
cli_verify(struct view_db *c, const struct cli_opts *o)
{
	struct view_chain	*chains;
	const struct view_chain	*one;
	struct verify		 v;
	json_t			*root, *names;
	int64_t			 blocks = 0;
	size_t			 n, i, nchains = 0;
	int			 rc, running = -1;

	memset(&v, 0, sizeof(v));
	v.c = c;
	v.o = o;
	if ((rc = view_chains_begin(c, o->chain, &chains, &n, &one)) !=
	    CW_EXIT_OK)
		return rc;
	v.diffs = json_array();
	names = json_array();
	rc = CW_EXIT_OK;
	for (i = 0; i < n; i++) {
		if (one != NULL && one != &chains[i])
			continue;
		if (verify_chain(&v, &chains[i], &blocks) == -1) {
			rc = CW_EXIT_SYSTEM;
			break;
		}
		json_array_append_new(names, json_string(chains[i].name));
		nchains++;
	}
	/* Whether the daemon runs, for programs (--json) as every view says
	 * it; people run verify on a stopped daemon's store as often. */
	if (rc == CW_EXIT_OK && o->json)
		running = cli_daemon_note(c);
	view_db_end(c);

	if (rc == CW_EXIT_OK && o->json) {
		root = json_object();
		json_object_set_new(root, "daemon_running",
		    cli_jrunning(running));
		json_object_set_new(root, "chains", names);
		json_object_set_new(root, "blocks", json_integer(blocks));
		json_object_set_new(root, "differences", v.diffs);
		json_object_set_new(root, "ok", json_boolean(v.ndiffs == 0));
		cli_json_print(root);
	} else {
		if (rc == CW_EXIT_OK)
			printf("verify: %zu chain%s, %lld block%s, %zu "
			    "difference%s\n", nchains, nchains == 1 ? "" : "s",
			    (long long)blocks, blocks == 1 ? "" : "s",
			    v.ndiffs, v.ndiffs == 1 ? "" : "s");
		json_decref(names);
		json_decref(v.diffs);
	}
	view_chains_free(chains, n);
	if (rc == CW_EXIT_OK && v.ndiffs > 0)
		rc = CLI_EXIT_DIFFERENCES;
	return rc;
}
