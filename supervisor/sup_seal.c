/*
 * Proof of work of a chain's quantus blocks: each block's seal, as its
 * worker found it (its shape, and the largest difficulty its nonce hash
 * meets), against the difficulty stored at its parent.  blocks.proven is
 * NULL until both are known, then 1 or 0; a seal whose shape fails is 0
 * at once.  The same difficulty is the block's work (blocks.work), what
 * the standings and fork choice sum, whatever its seal.  Substrate blocks and genesis carry no seal and stay NULL, as
 * does a header that came without its bound (a worker always sends it).
 */
#include "config.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "sup_chain.h"
#include "sup_seal.h"
#include "sup_store.h"
#include "u512.h"
#include "util.h"

static struct store_stmt s_parent_diff = { "SELECT difficulty FROM blocks "
    "WHERE chain_id = ? AND hash = ? AND difficulty IS NOT NULL",
    NULL, NULL };

/*
 * ?4: every child with a bound, not only those not checked yet, nor only
 * those that do not wait for their own state read (a canonical block
 * without its state gets its verdict with it, in one write).
 */
static struct store_stmt s_children = { "SELECT hash, pow_max, "
    "coalesce(first_endpoint_id, 0), proven FROM blocks INDEXED BY "
    "blocks_number WHERE chain_id = ?1 AND number = ?2 AND parent = ?3 AND "
    "pow_max IS NOT NULL AND (?4 OR (proven IS NULL AND (canonical = 0 OR "
    "timestamp IS NOT NULL))) AND hash > ?5 ORDER BY hash", NULL, NULL };

static struct store_stmt s_doubt = { "UPDATE chains SET unproven_reason = "
    "?, unproven_since = ? WHERE id = ?", NULL, NULL };

static struct store_stmt s_runtime = { "SELECT spec_name || ' ' || "
    "spec_version FROM runtime_versions WHERE chain_id = ? ORDER BY "
    "spec_version DESC LIMIT 1", NULL, NULL };

static struct store_stmt s_proven = { "UPDATE blocks SET proven = ? "
    "WHERE chain_id = ? AND hash = ?", NULL, NULL };

/* The same: a canonical child without its state gets its work with it. */
static struct store_stmt s_children_work = { "UPDATE blocks INDEXED BY "
    "blocks_number SET work = ?, work_f = ? WHERE chain_id = ? AND "
    "number = ? AND parent = ? AND work IS NULL AND (canonical = 0 OR "
    "timestamp IS NOT NULL)", NULL, NULL };

static struct store_stmt s_children_rework = { "UPDATE blocks INDEXED BY "
    "blocks_number SET work = ?, work_f = ? WHERE chain_id = ? AND "
    "number = ? AND parent = ?", NULL, NULL };

/* A block's work (where), or its children's (by parent), is diff. */
static int
work_set(struct store_stmt *s, struct chain *ch, const uint8_t diff[64],
    int64_t number, const uint8_t hash[32])
{
	struct u512	d;
	sqlite3_stmt	*st = store_prepare(s);
	int		 i = 3;

	u512_from_le(&d, diff);
	sqlite3_bind_blob(st, 1, diff, 64, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 2, u512_to_double(&d));
	sqlite3_bind_int64(st, i++, ch->id);
	if (number >= 0)
		sqlite3_bind_int64(st, i++, number);
	sqlite3_bind_blob(st, i, hash, 32, SQLITE_TRANSIENT);
	return store_run(st);
}

/* 1 if a seal that meets at most pow_max meets need (its parent's). */
static int
meets(const uint8_t pow_max[64], const uint8_t need[64])
{
	struct u512	m, d;

	u512_from_le(&m, pow_max);
	u512_from_le(&d, need);
	return !u512_is_zero(&d) && u512_cmp(&d, &m) <= 0;
}

/* A seal checked: a pass ends any doubt about the rule. */
static void
note(struct chain *ch, int ok, int64_t number, uint64_t now)
{
	struct seal_watch *w = &ch->seals;

	if (!ok) {
		if (w->bad_since == 0) {
			w->bad_since = now != 0 ? now : 1;
			w->bad_from = number;
		}
		return;
	}
	if (w->doubt) {
		log_info("chain %s: seals pass again (#%lld): failed seals "
		    "count again", ch->name, (long long)number);
		store_run(store_bind(&s_doubt, "nni", ch->id));
	}
	w->bad_since = 0;
	w->doubt = 0;
}

int
seal_enforced(struct chain *ch, uint64_t now)
{
	struct seal_watch *w = &ch->seals;
	sqlite3_stmt	*st;
	char		 why[160], rt[PROTO_TEXT_MAX + 24] = "";

	if (w->doubt || w->bad_since == 0 ||
	    now < w->bad_since + SEAL_DOUBT_BLOCKS * ch->block_time)
		return !w->doubt;
	w->doubt = 1;
	st = store_bind(&s_runtime, "i", ch->id);
	if (store_row(st))
		snprintf(rt, sizeof(rt), " (runtime %.*s)", PROTO_TEXT_MAX,
		    (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	snprintf(why, sizeof(why), "every seal fails from #%lld%s",
	    (long long)w->bad_from, rt);
	log_warnx("chain %s: %s, whichever endpoint served it, for %llu "
	    "block times: the rule may have changed; following the chain, "
	    "its blocks unproven", ch->name, why,
	    (unsigned long long)SEAL_DOUBT_BLOCKS);
	store_run(store_bind(&s_doubt, "tii", why, (int64_t)w->bad_since,
	    ch->id));
	return 0;
}

int
seal_shape(struct chain *ch, const struct proto_header *h)
{
	if (ch->format != FORMAT_QUANTUS || h->number == 0)
		return -1;
	return h->seal == QPOW_SEAL_OK ? -1 : 0;
}

int
seal_judge(struct chain *ch, const uint8_t hash[32], const uint8_t parent[32],
    int64_t number, enum qpow_seal shape, const uint8_t *pow_max,
    int64_t endpoint_id, struct seal_fail *f, int *proven)
{
	sqlite3_stmt	*st;
	int		 known;

	*proven = -1;
	if (ch->format != FORMAT_QUANTUS || number == 0)
		return 0;
	memset(f, 0, sizeof(*f));
	memcpy(f->hash, hash, 32);
	memcpy(f->parent, parent, 32);
	f->number = number;
	f->endpoint_id = endpoint_id;
	f->seal = shape;
	if (pow_max != NULL)
		memcpy(f->pow_max, pow_max, 64);
	if (ch->seals.have_last && memcmp(ch->seals.last_hash, parent, 32) ==
	    0) {
		memcpy(f->need, ch->seals.last_diff, 64);
		known = 1;
	} else {
		st = store_bind(&s_parent_diff, "ib", ch->id, parent);
		known = store_row(st) && store_col_blob(st, 0, f->need, 64);
		sqlite3_reset(st);
	}
	if (shape != QPOW_SEAL_OK)
		*proven = 0;
	else if (known && pow_max != NULL)
		*proven = meets(pow_max, f->need);
	return known;
}

void
seal_diff_stored(struct chain *ch, const uint8_t hash[32],
    const uint8_t diff[64])
{
	ch->seals.have_last = 1;
	memcpy(ch->seals.last_hash, hash, 32);
	memcpy(ch->seals.last_diff, diff, 64);
}

void
seal_count(struct chain *ch, int proven, int64_t number, uint64_t now)
{
	if (proven != -1)
		note(ch, proven, number, now);
}

/*
 * Up to max children of a block with a bound, after the hash after (all
 * of them with every, else those not checked yet), against diff.
 */
static size_t
children(struct chain *ch, const uint8_t hash[32], int64_t number,
    const uint8_t diff[64], int every, const uint8_t after[32],
    struct seal_fail *f, size_t max)
{
	sqlite3_stmt	*st;
	size_t		 n = 0;

	st = store_bind(&s_children, "iibib", ch->id, number + 1, hash,
	    (int64_t)every, after);
	while (n < max && store_row(st)) {
		memset(&f[n], 0, sizeof(f[n]));
		store_col_blob(st, 0, f[n].hash, 32);
		store_col_blob(st, 1, f[n].pow_max, 64);
		f[n].endpoint_id = sqlite3_column_int64(st, 2);
		f[n].number = number + 1;
		memcpy(f[n].parent, hash, 32);
		memcpy(f[n].need, diff, 64);
		n++;
	}
	sqlite3_reset(st);
	return n;
}

/*
 * The children's seals checked against diff: every one or the new ones,
 * their verdicts written; or every one read only (write 0), fn called
 * for those that fail.
 */
static void
check_children(struct chain *ch, const uint8_t hash[32], int64_t number,
    const uint8_t diff[64], int every, int write, uint64_t now,
    void (*fn)(struct chain *, const struct seal_fail *))
{
	struct seal_fail f[8];
	uint8_t		 after[32];
	size_t		 n;
	sqlite3_stmt	*st;

	/* Children of one parent are few (a fork, a lie): a batch or two. */
	memset(after, 0, sizeof(after));
	do {
		n = children(ch, hash, number, diff, every, after, f,
		    nitems(f));
		for (size_t i = 0; i < n; i++) {
			int ok = meets(f[i].pow_max, f[i].need);

			memcpy(after, f[i].hash, 32);
			if (write) {
				st = store_bind(&s_proven, "iib", (int64_t)ok,
				    ch->id, f[i].hash);
				if (store_run(st) <= 0)
					return;	/* the store is blocked */
				note(ch, ok, f[i].number, now);
			}
			if (!ok && fn != NULL)
				fn(ch, &f[i]);
		}
	} while (n == nitems(f));
}

void
seal_parent(struct chain *ch, const uint8_t hash[32], int64_t number,
    const uint8_t diff[64], uint64_t now,
    void (*fn)(struct chain *, const struct seal_fail *),
    void (*credit)(struct chain *, const uint8_t hash[32], int64_t number,
    const uint8_t diff[64]))
{
	int	n;

	if (ch->format != FORMAT_QUANTUS)
		return;
	/*
	 * Children in order have no state yet, and nothing is written; one
	 * with its state got its work just now (no child has work from a
	 * parent whose difficulty was not stored): credit it.
	 */
	if ((n = work_set(&s_children_work, ch, diff, number + 1, hash)) > 0)
		credit(ch, hash, number, diff);
	if (n < 0)
		return;			/* the store is blocked */
	check_children(ch, hash, number, diff, 0, 1, now, fn);
}

void
seal_reparent(struct chain *ch, const uint8_t hash[32], int64_t number,
    const uint8_t diff[64], uint64_t now,
    void (*fn)(struct chain *, const struct seal_fail *))
{
	if (ch->format != FORMAT_QUANTUS)
		return;
	if (work_set(&s_children_rework, ch, diff, number + 1, hash) < 0)
		return;
	check_children(ch, hash, number, diff, 1, 1, now, fn);
}

void
seal_children_failing(struct chain *ch, const uint8_t hash[32],
    int64_t number, const uint8_t diff[64],
    void (*fn)(struct chain *, const struct seal_fail *))
{
	if (ch->format == FORMAT_QUANTUS)
		check_children(ch, hash, number, diff, 1, 0, 0, fn);
}

void
seal_children_meet(struct chain *ch, const uint8_t hash[32], int64_t number,
    const uint8_t diff[64], unsigned *meet, unsigned *fail)
{
	struct seal_fail f[8];
	uint8_t		 after[32];
	size_t		 n;

	*meet = *fail = 0;
	memset(after, 0, sizeof(after));
	do {
		n = children(ch, hash, number, diff, 1, after, f, nitems(f));
		for (size_t i = 0; i < n; i++) {
			if (meets(f[i].pow_max, f[i].need))
				(*meet)++;
			else
				(*fail)++;
			memcpy(after, f[i].hash, 32);
		}
	} while (n == nitems(f));
}

const char *
seal_words(const struct seal_fail *f, char *buf, size_t len)
{
	char		have[U512_DEC_LEN], need[U512_DEC_LEN];
	struct u512	x;

	if (f->seal != QPOW_SEAL_OK) {
		snprintf(buf, len, "seal %s", qpow_seal_words(f->seal));
		return buf;
	}
	u512_from_le(&x, f->pow_max);
	u512_to_dec(&x, have);
	u512_from_le(&x, f->need);
	u512_to_dec(&x, need);
	snprintf(buf, len, "seal meets at most %.60s, the difficulty at its "
	    "parent is %.60s", have, need);
	return buf;
}
