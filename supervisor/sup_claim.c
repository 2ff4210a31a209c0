/*
 * Claims: heads that do not connect to the stored chain yet, held with
 * the parents fetched for them; far ones believed by numbers or by
 * outlasting; the first best on an empty store; and each claim judged
 * when its patience is out.
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
#include "sup_standing.h"
#include "sup_store.h"
#include "sup_window.h"
#include "u512.h"
#include "util.h"

static struct store_stmt s_ep_best = { "UPDATE endpoints SET heads_seen = "
    "heads_seen + 1, heads_first = heads_first + ?4, best_number = "
    "max(coalesce(best_number, 0), ?1), best_at = max(coalesce(best_at, 0), "
    "?2) WHERE id = ?3", NULL, NULL };

int
claim_index(struct chain *ch, int64_t endpoint_id)
{
	for (size_t i = 0; i < ch->n_claims; i++)
		if (ch->claims[i].endpoint_id == endpoint_id)
			return (int)i;
	return -1;
}

static void
claim_free(struct chain *ch, size_t i)
{
	struct claim	*c = &ch->claims[i];
	const uint8_t	*want = c->h[c->n - 1].parent;
	int		 shared = 0;

	for (size_t j = 0; j < ch->n_claims; j++)
		if (j != i && memcmp(ch->claims[j].h[ch->claims[j].n - 1].parent,
		    want, 32) == 0)
			shared = 1;
	if (!shared)
		queue_drop_parent(ch->id, want);
	free(c->h);
	ch->claims[i] = ch->claims[--ch->n_claims];
	memset(&ch->claims[ch->n_claims], 0, sizeof(*c));
}

/*
 * Ask for the claim's next parent by hash, within its steps; beyond them,
 * or far, nothing: the ranges come up to it (window_up).
 */
static void
claim_fetch(struct chain *ch, struct claim *c)
{
	const struct proto_header	*low = &c->h[c->n - 1];
	struct sblock			 p;

	if (c->far || (int64_t)low->number - 1 < (int64_t)ch->backfill_from ||
	    c->steps >= CHAIN_CLAIM_STEPS || block_get(ch, low->parent, &p))
		return;
	queue_missing(ch->id, low->parent, (int64_t)low->number - 1);
}

/*
 * A claim's headers are stored: its head is its endpoint's, in the
 * endpoints table, as if it had connected when it came (the status's
 * behind and stuck are judged from that record), and a head it delivered,
 * the first of all when first (its storing inserted it).
 */
static void
claim_head_seen(const struct claim *c, int first)
{
	store_run(store_bind(&s_ep_best, "iiii", (int64_t)c->h[0].number,
	    (int64_t)c->head_ms, c->endpoint_id, (int64_t)(first != 0)));
}

/*
 * The claim's lowest header has a stored parent: its headers are stored,
 * bottom up, and its head may become the best.  1 if the claim is gone.
 */
static int
claim_connect(struct chain *ch, size_t i, uint64_t now)
{
	struct claim			*c = &ch->claims[i];
	const struct proto_header	*low = &c->h[c->n - 1];
	struct sblock			 p, b;
	int64_t				 ep = c->endpoint_id, first_seen;
	int				 first = 0;

	if (!block_get(ch, low->parent, &p))
		return 0;
	if (block_check_number(ch, ep, low, &p) == -1) {
		claim_free(ch, i);
		window_shrink(ch);
		return 1;
	}
	for (size_t k = c->n; k-- > 0;)
		first = block_store(ch, &c->h[k], ep, now, &b, &first_seen);
	claim_head_seen(c, first);
	claim_free(ch, i);
	/* A head that connected late is evidence all the same. */
	claims_against(ch, ep);
	block_verdict(ch, ep, CV_AGREES, "connected");
	choice_adopt(ch, &b, ep, now);
	return 1;
}

/* Claims whose lowest header links now are stored. */
void
claims_sweep(struct chain *ch, uint64_t now)
{
	for (size_t i = 0; i < ch->n_claims; )
		if (!claim_connect(ch, i, now))
			i++;
}

static int
ep_in(const int64_t *set, unsigned n, int64_t ep)
{
	for (unsigned i = 0; i < n; i++)
		if (set[i] == ep)
			return 1;
	return 0;
}

static void
ep_add(int64_t *set, unsigned *n, unsigned cap, int64_t ep)
{
	if (*n < cap && !ep_in(set, *n, ep))
		set[(*n)++] = ep;
}

/*
 * Is a far claim believed?  Its endpoint and those whose claims share a
 * header with it outnumber the endpoints whose heads connected since it
 * was made (its own among them: a node that went back to our chain
 * after a far head contradicts it).
 */
static int
claim_believed(const struct claim *c)
{
	unsigned	against = 0;

	for (unsigned i = 0; i < c->n_against; i++)
		if (!ep_in(c->agree, c->n_agree, c->against[i]))
			against++;
	return 1 + c->n_agree > against;
}

/* A far claim believed: its ancestry is fetched, the reach counts from it. */
static void
claim_believe(struct chain *ch, struct claim *c, uint64_t now, const char *why)
{
	char	hb[24], en[CONF_NAME_MAX + 16];

	c->far = 0;
	c->believed = 1;
	c->since = now;		/* its patience counts from its first fetch */
	c->gap_mark = (int64_t)c->h[c->n - 1].number - 1 - ch->best_number;
	c->mark_at = now;
	if ((int64_t)c->h[0].number > ch->believed_number) {
		ch->believed_number = (int64_t)c->h[0].number;
		ch->believed_at = now;
	}
	log_info("chain %s: head #%llu %s from %s, beyond the "
	    "reach of best #%lld, is believed (%s); its ancestry is fetched",
	    ch->name, (unsigned long long)c->h[0].number,
	    block_short_hash(c->h[0].hash, hb),
	    block_ep_name(c->endpoint_id, en),
	    (long long)ch->best_number, why);
	claim_fetch(ch, c);
}

/*
 * Believed claim i never connected: the reach it raised counts again from
 * the best, or from another believed claim still waiting.
 */
static void
unbelieve(struct chain *ch, size_t i)
{
	ch->believed_number = -1;
	for (size_t j = 0; j < ch->n_claims; j++)
		if (j != i && ch->claims[j].believed &&
		    (int64_t)ch->claims[j].h[0].number > ch->believed_number) {
			ch->believed_number = (int64_t)ch->claims[j].h[0].number;
			ch->believed_at = ch->claims[j].since;
		}
}

/* Does the claim hold h, its parent or its child? */
static int
claim_touches(const struct claim *c, const struct proto_header *h)
{
	for (size_t k = 0; k < c->n; k++)
		if (memcmp(c->h[k].hash, h->hash, 32) == 0 ||
		    memcmp(c->h[k].hash, h->parent, 32) == 0 ||
		    memcmp(c->h[k].parent, h->hash, 32) == 0)
			return 1;
	return 0;
}

/*
 * Header h joined claim i: the claims that touch it agree with it, and a
 * far one of them believed by their numbers now fetches.  Every header is
 * checked when it comes, so two claims that share one are found by the
 * later of the two, however their heads interleave.
 */
static void
claims_agree_on(struct chain *ch, size_t i, const struct proto_header *h,
    uint64_t now)
{
	struct claim	*c = &ch->claims[i];
	char		 why[64];

	for (size_t j = 0; j < ch->n_claims; j++) {
		struct claim *o = &ch->claims[j];

		if (j == i || (!c->far && !o->far) || !claim_touches(o, h))
			continue;
		ep_add(c->agree, &c->n_agree, CHAIN_CLAIMS_MAX, o->endpoint_id);
		ep_add(o->agree, &o->n_agree, CHAIN_CLAIMS_MAX, c->endpoint_id);
	}
	for (size_t j = 0; j < ch->n_claims; j++) {
		struct claim *o = &ch->claims[j];

		if (!o->far || o->n_agree == 0 || !claim_believed(o))
			continue;
		snprintf(why, sizeof(why), "%u endpoints agree on its branch",
		    1 + o->n_agree);
		claim_believe(ch, o, now, why);
	}
}

/*
 * A head of endpoint_id connected: evidence against every far claim made
 * before it.
 */
void
claims_against(struct chain *ch, int64_t endpoint_id)
{
	for (size_t i = 0; i < ch->n_claims; i++)
		if (ch->claims[i].far)
			ep_add(ch->claims[i].against, &ch->claims[i].n_against,
			    CHAIN_CLAIMS_MAX + 1, endpoint_id);
}

/*
 * A head whose parent is not stored: held as the claim of its endpoint,
 * replacing the one before (or growing it, when it is that one's child).
 * A replaced claim hands on its age and what was against it: an endpoint
 * that keeps announcing heads that do not connect is judged from the
 * first.
 */
void
claim_hold(struct chain *ch, int64_t endpoint_id, const struct proto_header *h,
    uint64_t seen_ms, uint64_t now)
{
	struct claim	*c;
	uint64_t	 since = now;
	int		 i = claim_index(ch, endpoint_id);
	int64_t		 against[CHAIN_CLAIMS_MAX + 1];
	unsigned	 n_against = 0, freed = 0;
	char		 hb[24], en[CONF_NAME_MAX + 16];

	if (i >= 0) {
		c = &ch->claims[i];
		if (memcmp(c->h[0].hash, h->hash, 32) == 0)
			return;
		if (memcmp(h->parent, c->h[0].hash, 32) == 0 &&
		    h->number == c->h[0].number + 1 &&
		    c->n < 2 * CHAIN_CLAIM_STEPS) {
			c->h = xrealloc(c->h, (c->n + 1) * sizeof(*c->h));
			memmove(&c->h[1], &c->h[0], c->n * sizeof(*c->h));
			c->h[0] = *h;
			c->n++;
			c->head_ms = seen_ms;
			claims_agree_on(ch, (size_t)i, h, now);
			return;
		}
		/* Unconnected since the first: a new lie does not reset it. */
		since = ch->claims[i].since;
		n_against = ch->claims[i].n_against;
		memcpy(against, ch->claims[i].against, sizeof(against));
		claim_free(ch, (size_t)i);
		freed = 1;
	}
	if (ch->n_claims == CHAIN_CLAIMS_MAX) {
		size_t oldest = 0;

		for (size_t j = 1; j < ch->n_claims; j++)
			if (ch->claims[j].since < ch->claims[oldest].since)
				oldest = j;
		claim_free(ch, oldest);
		freed = 1;
	}
	c = &ch->claims[ch->n_claims++];
	memset(c, 0, sizeof(*c));
	c->endpoint_id = endpoint_id;
	c->since = since;
	c->gap_seen = (int64_t)h->number - 1 - ch->best_number;
	c->far = (int64_t)h->number > window_reach(ch, now);
	c->h = xmalloc(sizeof(*c->h));
	c->h[0] = *h;
	c->n = 1;
	c->head_ms = seen_ms;
	if (c->far) {
		c->n_against = n_against;
		memcpy(c->against, against, sizeof(against));
	}
	claims_agree_on(ch, ch->n_claims - 1, h, now);
	if (c->far)
		log_info("chain %s: head #%llu %s from %s is beyond "
		    "#%lld, what the chain can have made; held, nothing fetched "
		    "below it", ch->name, (unsigned long long)h->number,
		    block_short_hash(h->hash, hb),
		    block_ep_name(endpoint_id, en),
		    (long long)window_reach(ch, now));
	claim_fetch(ch, c);
	/* What the claim replaced or evicted for room had queued goes. */
	if (freed)
		window_shrink(ch);
}

/* Do two claims hold the same block, or one the parent of the other's? */
static int
claims_agree(const struct claim *a, const struct claim *b)
{
	for (size_t i = 0; i < a->n; i++)
		if (claim_touches(b, &a->h[i]))
			return 1;
	return 0;
}

/* A header of a claim, with the endpoint that claimed it. */
struct claimed {
	struct proto_header	h;
	int64_t			ep;
};

static int
by_number(const void *a, const void *b)
{
	const struct claimed *x = a, *y = b;

	return x->h.number < y->h.number ? -1 : x->h.number > y->h.number;
}

/*
 * Claims i and j (-1: i alone) become the first best, for why: their
 * headers are stored bottom up (each numbered its stored parent's + 1),
 * the highest is the best, and the chain below comes in ranges.
 */
static void
first_best(struct chain *ch, size_t i, int j, const char *why, uint64_t now)
{
	const struct claim	*two[2] = { &ch->claims[i],
				    j >= 0 ? &ch->claims[j] : NULL };
	struct claimed		*v;
	struct sblock		 p, b, top;
	int64_t			 first_seen, eps[2];
	size_t			 n = 0;
	int			 have_top = 0, first[2] = { 0, 0 };
	char			 hb[24];

	v = xcalloc(two[0]->n + (two[1] != NULL ? two[1]->n : 0), sizeof(*v));
	for (size_t c = 0; c < 2 && two[c] != NULL; c++)
		for (size_t k = 0; k < two[c]->n; k++) {
			v[n].h = two[c]->h[k];
			v[n++].ep = two[c]->endpoint_id;
		}
	eps[0] = two[0]->endpoint_id;
	eps[1] = two[1] != NULL ? two[1]->endpoint_id : eps[0];
	qsort(v, n, sizeof(*v), by_number);
	for (size_t k = 0; k < n; k++) {
		if (block_get(ch, v[k].h.parent, &p) &&
		    block_check_number(ch, v[k].ep, &v[k].h, &p) == -1)
			continue;
		if (block_store(ch, &v[k].h, v[k].ep, now, &b, &first_seen))
			for (size_t c = 0; c < 2 && two[c] != NULL; c++)
				if (v[k].ep == two[c]->endpoint_id &&
				    memcmp(v[k].h.hash, two[c]->h[0].hash, 32) == 0)
					first[c] = 1;
		if (!have_top || b.number >= top.number) {
			top = b;
			have_top = 1;
		}
	}
	free(v);
	claim_head_seen(two[0], first[0]);
	if (two[1] != NULL)
		claim_head_seen(two[1], first[1]);
	ch->disagree_logged = 0;
	/* The later index first: claim_free moves the last into its slot. */
	if (j >= 0 && (size_t)j > i)
		claim_free(ch, (size_t)j);
	claim_free(ch, i);
	if (j >= 0 && (size_t)j < i)
		claim_free(ch, (size_t)j);
	block_verdict(ch, eps[0], CV_AGREES, "connected");
	if (eps[1] != eps[0])
		block_verdict(ch, eps[1], CV_AGREES, "connected");
	if (have_top) {
		log_info("chain %s: first head #%lld %s: %s", ch->name,
		    (long long)top.number, block_short_hash(top.hash, hb), why);
		choice_adopt(ch, &top, eps[0], now);
		/* Its endpoints' heads connected: against the far claims. */
		claims_against(ch, eps[0]);
		claims_against(ch, eps[1]);
	}
	claims_sweep(ch, now);
}

/*
 * Nothing stored links a head on an empty store, so with more than one
 * endpoint configured the first best is a head two endpoints agree on
 * (the same block, or one the parent of the other's): held as claims
 * until then, their parents fetched by hash as evidence (first_tick).
 * 1 if h was held.
 */
int
claim_first_wait(struct chain *ch, int64_t endpoint_id,
    const struct proto_head *hd, uint64_t now)
{
	const struct proto_header	*h = &hd->h;
	int				 i;

	if (ch->n_endpoints < 2)
		return 0;
	claim_hold(ch, endpoint_id, h, hd->seen_ms, now);
	if ((i = claim_index(ch, endpoint_id)) < 0)
		return 1;
	for (size_t j = 0; j < ch->n_claims; j++)
		if (j != (size_t)i && claims_agree(&ch->claims[i],
		    &ch->claims[j])) {
			first_best(ch, (size_t)i, (int)j,
			    "two endpoints agree on it", now);
			break;
		}
	return 1;
}

/*
 * The clock, while there is no best.  A lone claimer (no other endpoint
 * said anything) is believed after 2 block times, 2 s at least.  Claims
 * that disagree wait for two to agree; after 10 block times (10 s at
 * least) the one whose ancestry resolved furthest by hash is the first
 * best (a forged head has no parents to show; ties: the lower), and the
 * others are judged against it as any claim is.
 */
static void
first_tick(struct chain *ch, uint64_t now)
{
	uint64_t	wait = 2 * ch->block_time > 2000 ? 2 * ch->block_time :
			    2000;
	uint64_t	patience = 5 * wait, oldest = UINT64_MAX;
	size_t		k = 0;
	char		hb[24], en[CONF_NAME_MAX + 16];

	if (ch->n_claims == 1 && now >= ch->claims[0].since + wait) {
		first_best(ch, 0, -1, "the only endpoint heard", now);
		return;
	}
	if (ch->n_claims < 2)
		return;
	for (size_t i = 0; i < ch->n_claims; i++) {
		const struct claim *c = &ch->claims[i], *b = &ch->claims[k];

		if (c->since < oldest)
			oldest = c->since;
		if (c->steps > b->steps || (c->steps == b->steps &&
		    c->h[0].number < b->h[0].number))
			k = i;
	}
	if (now < oldest + patience) {
		if (ch->disagree_logged == 0)
			log_warnx("chain %s: endpoints disagree on the first "
			    "head; waiting up to %llu ms for two to agree",
			    ch->name, (unsigned long long)patience);
		ch->disagree_logged = now;
		return;
	}
	log_warnx("chain %s: endpoints disagree on the first head for %llu "
	    "ms; #%llu %s from %s, whose ancestry resolved furthest "
	    "(%u parent%s), is taken", ch->name,
	    (unsigned long long)(now - oldest),
	    (unsigned long long)ch->claims[k].h[0].number,
	    block_short_hash(ch->claims[k].h[0].hash, hb),
	    block_ep_name(ch->claims[k].endpoint_id, en), ch->claims[k].steps,
	    ch->claims[k].steps == 1 ? "" : "s");
	first_best(ch, k, -1, "its ancestry resolved furthest", now);
}

/* A header fetched by hash for claims: 1 if one waited for it. */
int
claims_parent(struct chain *ch, const struct proto_header *h)
{
	int	held = 0;

	for (size_t i = 0; i < ch->n_claims; ) {
		struct claim	*c = &ch->claims[i];
		struct sblock	 p;

		if (memcmp(c->h[c->n - 1].parent, h->hash, 32) != 0) {
			i++;
			continue;
		}
		held = 1;
		/* The claim's header said this parent had another number. */
		p.number = (int64_t)h->number;
		if (block_check_number(ch, c->endpoint_id, &c->h[c->n - 1],
		    &p) == -1) {
			claim_free(ch, i);
			window_shrink(ch);
			continue;
		}
		c->h = xrealloc(c->h, (c->n + 1) * sizeof(*c->h));
		c->h[c->n++] = *h;
		c->steps++;		/* no more time: a liar has parents */
		claim_fetch(ch, c);
		i++;
	}
	return held;
}

/*
 * How long a claim may wait for its ranges without the gap below it
 * closing: ten block times, 10 s at least.  Also how long every endpoint
 * of the chain may be inconsistent before the rule is suspected.
 */
uint64_t
claim_patience(const struct chain *ch)
{
	return 10 * ch->block_time < 10000 ? 10000 : 10 * ch->block_time;
}

/*
 * A believed claim was far: the best moving with the others' heads closes
 * its gap too, at the chain's pace, and would keep a head no block of
 * which exists (two liars agreeing on it) waiting for ever.  Progress
 * towards it is its gap closing faster than the chain can grow (the
 * reach's pace) since it last did: its ancestry being fetched.
 */
static void
believed_closing(const struct chain *ch, struct claim *c, int64_t gap,
    uint64_t now)
{
	int64_t	grown = window_growth(ch, c->mark_at, now);

	if (gap > 0 && c->gap_mark - gap > grown) {
		c->since = now;
		c->gap_mark = gap;
		c->mark_at = now;
	}
}

void
claims_expire(struct chain *ch, uint64_t now)
{
	uint64_t	patience = claim_patience(ch);
	char		hb[24], en[CONF_NAME_MAX + 16];

	if (!ch->have_best) {
		first_tick(ch, now);
		return;
	}
	for (size_t i = 0; i < ch->n_claims; ) {
		struct claim *c = &ch->claims[i];

		/*
		 * Waiting for the ranges: progress is the gap below it
		 * closing (not the best moving: a liar's claims move with it).
		 */
		int64_t gap = (int64_t)c->h[c->n - 1].number - 1 -
		    ch->best_number;

		if (c->believed)
			believed_closing(ch, c, gap, now);
		else if (!c->far && gap > 0 && gap < c->gap_seen)
			c->since = now;
		c->gap_seen = gap;
		if (now < c->since || now - c->since < patience) {
			i++;
			continue;
		}
		/*
		 * Far, and no more endpoints against it than for it: the
		 * reach is suspected, not the endpoint (a stale best: the
		 * daemon started beside nodes still syncing, or one came back
		 * synced).  Its ancestry is fetched as any claim's.
		 */
		if (c->far && claim_believed(c)) {
			char why[96];

			snprintf(why, sizeof(why), "no head against it in "
			    "%llu ms", (unsigned long long)(now - c->since));
			claim_believe(ch, c, now, why);
			i++;
			continue;
		}
		block_verdict(ch, c->endpoint_id, CV_CONTRADICTED, "head #%llu "
		    "%s never connected", (unsigned long long)c->h[0].number,
		    block_short_hash(c->h[0].hash, hb));
		if (c->believed)
			unbelieve(ch, i);
		log_info("chain %s: head #%llu %s from %s did not "
		    "connect in %llu ms (%u parent%s fetched by hash, %zu "
		    "header%s held); dropped", ch->name,
		    (unsigned long long)c->h[0].number, hb,
		    block_ep_name(c->endpoint_id, en),
		    (unsigned long long)(now - c->since), c->steps,
		    c->steps == 1 ? "" : "s", c->n, c->n == 1 ? "" : "s");
		claim_free(ch, i);
		window_shrink(ch);
	}
}
