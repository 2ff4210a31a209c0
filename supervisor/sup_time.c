/*
 * Timestamps are claims: the minimum period between a quantus block's
 * time and its parent's, and the doubt that comes when every endpoint
 * breaks a rule of time at once (sup_time.h).
 */
#include "config.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "qpow.h"
#include "sup_block.h"
#include "sup_chain.h"
#include "sup_queue.h"
#include "sup_standing.h"
#include "sup_store.h"
#include "sup_time.h"
#include "util.h"

#define PERIOD_DOUBT	"every endpoint's timestamps break the minimum " \
	"period: the rule may have changed"

static struct store_stmt s_parent_time = { "SELECT timestamp, "
    "coalesce(state_endpoint_id, 0) FROM blocks WHERE chain_id = ? AND "
    "hash = ? AND timestamp IS NOT NULL", NULL, NULL };

static struct store_stmt s_children = { "SELECT hash, timestamp, "
    "coalesce(state_endpoint_id, 0) FROM blocks INDEXED BY blocks_number "
    "WHERE chain_id = ? AND number = ? AND parent = ? AND timestamp IS NOT "
    "NULL", NULL, NULL };

static struct store_stmt s_time_owed = { "UPDATE blocks SET timestamp = "
    "NULL WHERE chain_id = ? AND hash = ?", NULL, NULL };

static struct store_stmt s_doubt = { "UPDATE chains SET rule_doubt = ?, "
    "rule_doubt_since = ? WHERE id = ?", NULL, NULL };

/* The time stored at hash and its answerer: 1, or 0 if none is. */
static int
parent_time(struct chain *ch, const uint8_t hash[32], int64_t *ts,
    int64_t *ep)
{
	struct time_watch *w = &ch->times;
	sqlite3_stmt	*st;
	int		 found;

	if (w->have_last && memcmp(w->last_hash, hash, 32) == 0) {
		*ts = w->last_ts;
		*ep = w->last_ep;
		return 1;
	}
	st = store_bind(&s_parent_time, "ib", ch->id, hash);
	if ((found = store_row(st))) {
		*ts = sqlite3_column_int64(st, 0);
		*ep = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	return found;
}

void
time_stored(struct chain *ch, const uint8_t hash[32], int64_t ts,
    int64_t endpoint_id)
{
	struct time_watch *w = &ch->times;

	w->have_last = 1;
	memcpy(w->last_hash, hash, 32);
	w->last_ts = ts;
	w->last_ep = endpoint_id;
}

/* The rules whose doubt chains.rule_doubt says (the retarget's says
 * itself, in chains.retarget). */
static int
said(enum time_rule rule)
{
	return rule == TIME_RULE_PERIOD || rule == TIME_RULE_CLOCK;
}

int
time_broke(struct chain *ch, enum time_rule rule, int64_t endpoint_id,
    uint64_t now, const char *why)
{
	struct time_broke *b = &ch->times.rule[rule];
	size_t		   i;

	if (now - b->since > TIME_WINDOW_MS && !b->doubt) {
		b->n = 0;
		b->since = now;
	}
	b->last = now;
	for (i = 0; i < b->n && b->eps[i] != endpoint_id; i++)
		;
	if (i == b->n && b->n < TIME_BROKE_MAX)
		b->eps[b->n++] = endpoint_id;
	if (b->doubt)
		return 1;
	if (b->n < ch->n_endpoints)
		return 0;
	b->doubt = 1;
	log_warnx("chain %s: %s; nobody is judged for it, their answers are "
	    "taken", ch->name, why);
	if (said(rule))
		store_run(store_bind(&s_doubt, "tii", why, (int64_t)now,
		    ch->id));
	return 2;
}

int
time_kept(struct chain *ch, enum time_rule rule, uint64_t now)
{
	struct time_broke *b = &ch->times.rule[rule];

	if (!b->doubt || now - b->last <= TIME_WINDOW_MS)
		return 0;
	b->doubt = 0;
	b->n = 0;
	b->since = now;
	log_info("chain %s: %s for %d s: answers are judged by it again",
	    ch->name, rule == TIME_RULE_CLOCK ? "no timestamp ahead of this "
	    "clock" : rule == TIME_RULE_PERIOD ? "the minimum period kept" :
	    "the retarget rule kept", TIME_WINDOW_MS / 1000);
	if (said(rule) && !ch->times.rule[TIME_RULE_PERIOD].doubt &&
	    !ch->times.rule[TIME_RULE_CLOCK].doubt)
		store_run(store_bind(&s_doubt, "nni", ch->id));
	return 1;
}

int
time_check(struct chain *ch, const struct sblock *b, int64_t ts,
    int64_t endpoint_id, uint64_t now)
{
	int64_t		 pts, pep, min;
	char		 hb[24], eb[CONF_NAME_MAX + 16], pb[CONF_NAME_MAX + 16];
	char		 why[200];

	if (ch->format != FORMAT_QUANTUS || b->number == 0 ||
	    !parent_time(ch, b->parent, &pts, &pep))
		return 0;
	min = (int64_t)qpow_min_period(ch->block_time);
	if (ts >= pts + min) {
		time_kept(ch, TIME_RULE_PERIOD, now);
		return 0;
	}
	snprintf(why, sizeof(why), "the timestamp of #%lld is %lld ms after "
	    "its parent's (at least %lld)", (long long)b->number,
	    (long long)(ts - pts), (long long)min);
	/* Only an endpoint's own two times break the rule for certain. */
	if (pep == endpoint_id && time_broke(ch, TIME_RULE_PERIOD,
	    endpoint_id, now, PERIOD_DOUBT))
		return 0;
	block_short_hash(b->hash, hb);
	if (pep == endpoint_id && endpoint_id > 0) {
		block_verdict(ch, endpoint_id, CV_CONTRADICTED, "block #%lld "
		    "%s: %s, which it answered too", (long long)b->number, hb,
		    why);
	} else {
		/* One of the two lies: the block is read again by another
		 * (the parent's time, stored first, stays). */
		log_info("chain %s: block #%lld %s: %s, %s's answer against "
		    "%s's: read again", ch->name, (long long)b->number, hb,
		    why, block_ep_name(endpoint_id, eb),
		    block_ep_name(pep, pb));
	}
	if (endpoint_id > 0)
		queue_dispute(ch->id, b->number, b->number, endpoint_id, 0, why);
	return -1;
}

/* A child of b whose time came first, too soon after b's. */
struct soon {
	uint8_t		hash[32];
	int64_t		ts, ep;
};

void
time_children(struct chain *ch, const struct sblock *b, int64_t ts,
    int64_t endpoint_id, uint64_t now)
{
	struct soon	 c[4];
	size_t		 n = 0;
	sqlite3_stmt	*st;
	int64_t		 min;
	char		 hb[24], why[200];

	if (ch->format != FORMAT_QUANTUS)
		return;
	min = (int64_t)qpow_min_period(ch->block_time);
	st = store_bind(&s_children, "iib", ch->id, b->number + 1, b->hash);
	while (n < nitems(c) && store_row(st))
		if (sqlite3_column_int64(st, 1) < ts + min) {
			store_col_blob(st, 0, c[n].hash, 32);
			c[n].ts = sqlite3_column_int64(st, 1);
			c[n++].ep = sqlite3_column_int64(st, 2);
		}
	sqlite3_reset(st);
	for (size_t i = 0; i < n; i++) {
		snprintf(why, sizeof(why), "the timestamp of #%lld is %lld ms "
		    "after its parent's (at least %lld)",
		    (long long)b->number + 1, (long long)(c[i].ts - ts),
		    (long long)min);
		if (c[i].ep == endpoint_id && time_broke(ch, TIME_RULE_PERIOD,
		    endpoint_id, now, PERIOD_DOUBT))
			return;
		block_short_hash(c[i].hash, hb);
		/* The child's time dropped, read again by another. */
		if (c[i].ep == endpoint_id && endpoint_id > 0)
			block_verdict(ch, endpoint_id, CV_CONTRADICTED, "block "
			    "#%lld %s: %s, which it answered too",
			    (long long)b->number + 1, hb, why);
		else
			log_info("chain %s: block #%lld %s: %s, an answer "
			    "against its parent's: read again", ch->name,
			    (long long)b->number + 1, hb, why);
		store_run(store_bind(&s_time_owed, "ib", ch->id, c[i].hash));
		if (c[i].ep > 0)
			queue_dispute(ch->id, b->number + 1, b->number + 1,
			    c[i].ep, 0, why);
	}
}
