/*
 * Each quantus difficulty recomputed by the retarget rule of the chain's
 * runtime (sup_retarget.h).
 */
#include "config.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "sup_block.h"
#include "sup_chain.h"
#include "sup_retarget.h"
#include "sup_standing.h"
#include "sup_store.h"
#include "sup_time.h"
#include "u512.h"

static struct store_stmt s_parent = { "SELECT difficulty, timestamp, "
    "coalesce(state_endpoint_id, 0) FROM blocks WHERE chain_id = ? AND "
    "hash = ? AND difficulty IS NOT NULL AND timestamp IS NOT NULL", NULL,
    NULL };

static struct store_stmt s_note = { "UPDATE chains SET retarget = ? "
    "WHERE id = ?", NULL, NULL };

static struct store_stmt s_top = { "SELECT spec_name, spec_version FROM "
    "runtime_versions WHERE chain_id = ? ORDER BY spec_version DESC "
    "LIMIT 1", NULL, NULL };


/* What chains.retarget says of a known rule. */
static void
known_note(const struct chain *ch, char *note, size_t len)
{
	const struct retarget *r = &ch->retarget;

	snprintf(note, len, "recomputed by the rule of runtime %s %lld "
	    "(block time %llu ms, floor %llu)", RETARGET_SPEC_NAME,
	    (long long)r->spec, (unsigned long long)r->target_ms,
	    (unsigned long long)r->floor);
}

void
retarget_runtime(struct chain *ch, const char *spec_name, int64_t spec,
    uint64_t target_ms, uint64_t floor)
{
	struct retarget	*r = &ch->retarget;
	char		 note[200];

	if (ch->format != FORMAT_QUANTUS || spec < r->spec ||
	    (spec == r->spec && target_ms == r->target_ms && floor == r->floor))
		return;
	r->spec = spec;
	r->target_ms = target_ms;
	r->floor = floor;
	r->known = strcmp(spec_name, RETARGET_SPEC_NAME) == 0 &&
	    spec >= RETARGET_SPEC_MIN && spec <= RETARGET_SPEC_MAX;
	qpow_rule_default(&r->rule, target_ms);
	u512_from_u64(&r->rule.min, floor);
	if (r->known)
		known_note(ch, note, sizeof(note));
	else
		snprintf(note, sizeof(note), "not recomputed: runtime %s "
		    "%lld has no retarget rule known here (%s %d to %d)",
		    spec_name, (long long)spec, RETARGET_SPEC_NAME,
		    RETARGET_SPEC_MIN, RETARGET_SPEC_MAX);
	log_info("chain %s: difficulties %s", ch->name, note);
	store_run(store_bind(&s_note, "ti", note, ch->id));
}

void
retarget_load(struct chain *ch, uint64_t target_ms, uint64_t floor)
{
	sqlite3_stmt	*st = store_bind(&s_top, "i", ch->id);
	char		 name[PROTO_TEXT_MAX + 1] = "";
	int64_t		 spec = -1;

	if (store_row(st)) {
		snprintf(name, sizeof(name), "%s",
		    (const char *)sqlite3_column_text(st, 0));
		spec = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	if (spec >= 0)
		retarget_runtime(ch, name, spec, target_ms, floor);
}

/*
 * The difficulty and time stored at hash, and who answered them: 1, or 0
 * if either is not stored.
 */
static int
parent_state(struct chain *ch, const uint8_t hash[32], uint8_t diff[64],
    int64_t *ts, int64_t *ep)
{
	sqlite3_stmt	*st;
	int		 found;

	if (ch->seals.have_last && ch->times.have_last &&
	    memcmp(ch->seals.last_hash, hash, 32) == 0 &&
	    memcmp(ch->times.last_hash, hash, 32) == 0) {
		memcpy(diff, ch->seals.last_diff, 64);
		*ts = ch->times.last_ts;
		*ep = ch->times.last_ep;
		return 1;
	}
	st = store_bind(&s_parent, "ib", ch->id, hash);
	found = store_row(st) && store_col_blob(st, 0, diff, 64);
	if (found) {
		*ts = sqlite3_column_int64(st, 1);
		*ep = sqlite3_column_int64(st, 2);
	}
	sqlite3_reset(st);
	return found;
}

void
retarget_check(struct chain *ch, const struct sblock *b,
    const uint8_t diff[64], int64_t ts, int64_t endpoint_id, uint64_t now)
{
	struct retarget	*r = &ch->retarget;
	uint8_t		 pd[64];
	int64_t		 pts, pep;
	uint64_t	 bt;
	struct u512	 d, p, want;
	char		 got[U512_DEC_LEN], exp[U512_DEC_LEN], was[U512_DEC_LEN];
	char		 why[200], eb[CONF_NAME_MAX + 16];
	char		 doubt[200];

	if (!r->known || b->number < 1 || ts < 0 ||
	    !parent_state(ch, b->parent, pd, &pts, &pep))
		return;
	/* Block 1 passes the target; a time before the parent's is 0. */
	bt = b->number == 1 ? r->target_ms : ts > pts ? (uint64_t)(ts - pts) :
	    0;
	u512_from_le(&p, pd);
	u512_from_le(&d, diff);
	qpow_retarget(&r->rule, &p, bt, &want);
	if (u512_cmp(&d, &want) == 0) {
		if (time_kept(ch, TIME_RULE_RETARGET, now)) {
			known_note(ch, doubt, sizeof(doubt));
			store_run(store_bind(&s_note, "ti", doubt, ch->id));
		}
		return;
	}
	snprintf(doubt, sizeof(doubt), "not recomputed: every endpoint's "
	    "difficulties differ from the retarget rule of runtime %s %lld: "
	    "the rule may have changed", RETARGET_SPEC_NAME,
	    (long long)r->spec);
	/*
	 * Only an endpoint's own two answers break the rule for certain
	 * (another's at the parent may be the one that is false).
	 */
	switch (pep == endpoint_id ? time_broke(ch, TIME_RULE_RETARGET,
	    endpoint_id, now, doubt + strlen("not recomputed: ")) :
	    ch->times.rule[TIME_RULE_RETARGET].doubt) {
	case 2:
		store_run(store_bind(&s_note, "ti", doubt, ch->id));
		return;
	case 1:
		return;
	}
	if (ch->n_endpoints < 2 || endpoint_id <= 0)
		return;
	u512_to_dec(&d, got);
	u512_to_dec(&want, exp);
	u512_to_dec(&p, was);
	snprintf(why, sizeof(why), "not the retarget rule's %s", exp);
	log_info("chain %s: difficulty at #%lld, %s's answer %s, is not the "
	    "retarget rule's %s (from %s, %llu ms after its parent): read "
	    "again by another endpoint", ch->name, (long long)b->number,
	    block_ep_name(endpoint_id, eb), got, exp, was,
	    (unsigned long long)bt);
	block_ask_again(ch, b->hash, b->number, endpoint_id, 0, why);
}
