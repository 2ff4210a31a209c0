/*
 * Quantus proof of work (tests/vectors/quantus-qpow.md): the seal check a
 * node's import makes, the Poseidon2 nonce hash, and the retarget rule
 * pallets/qpow applies after every block.  Pure, no allocation.
 */
#include "config.h"

#include <string.h>

#include "poseidon2.h"
#include "qpow.h"

#define QPOW_STEP_DIV	2048	/* one step moves D by floor(D / 2048) */
#define QPOW_MAX_DOWN	99	/* the most steps one block lowers D by */

/* Each verdict's name and phrase, for logs and the CLI. */
static const struct {
	const char	*name;
	const char	*words;
} qpow_seal_text[QPOW_SEAL_COUNT] = {
	[QPOW_SEAL_OK] = { "ok", "a pow_ seal of a 64-byte nonce" },
	[QPOW_SEAL_WINDOW] = { "window",
	    "digest outside the 110/111-byte window" },
	[QPOW_SEAL_UNSEALED] = { "unsealed", "last digest item is not a Seal" },
	[QPOW_SEAL_ENGINE] = { "engine", "seal engine is not pow_" },
	[QPOW_SEAL_LENGTH] = { "length", "seal payload is not 64 bytes" },
	[QPOW_SEAL_ZERO] = { "zero", "nonce is all zero" },
};

const char *
qpow_seal_name(enum qpow_seal s)
{
	return (unsigned)s < QPOW_SEAL_COUNT ? qpow_seal_text[s].name : "?";
}

const char *
qpow_seal_words(enum qpow_seal s)
{
	return (unsigned)s < QPOW_SEAL_COUNT ? qpow_seal_text[s].words :
	    "unknown seal verdict";
}

/* The node's order: window, then the popped last item, then the nonce. */
enum qpow_seal
qpow_seal_shape(const struct header *h, uint8_t nonce[QPOW_NONCE_LEN])
{
	static const uint8_t		 zero[QPOW_NONCE_LEN];
	const struct digest_item	*seal;
	unsigned			 i, updates = 0;

	for (i = 0; i < h->n_logs; i++)
		if (h->logs[i].kind == DIGEST_RUNTIME_UPDATED)
			updates++;
	if (h->digest_len != QUANTUS_DIGEST_WINDOW &&
	    (h->digest_len != QUANTUS_DIGEST_WINDOW + 1 || updates != 1))
		return QPOW_SEAL_WINDOW;
	if (h->n_logs == 0)
		return QPOW_SEAL_UNSEALED;
	seal = &h->logs[h->n_logs - 1];
	if (seal->kind != DIGEST_SEAL)
		return QPOW_SEAL_UNSEALED;
	if (memcmp(seal->engine, ENGINE_POW, sizeof(ENGINE_POW)) != 0)
		return QPOW_SEAL_ENGINE;
	if (seal->len != QPOW_NONCE_LEN)
		return QPOW_SEAL_LENGTH;
	memcpy(nonce, h->digest + seal->off, QPOW_NONCE_LEN);
	if (memcmp(nonce, zero, QPOW_NONCE_LEN) == 0)
		return QPOW_SEAL_ZERO;
	return QPOW_SEAL_OK;
}

enum qpow_seal
qpow_seal_of(const struct header *h, uint8_t nonce[QPOW_NONCE_LEN],
    uint8_t pre_hash[32])
{
	enum qpow_seal	s = qpow_seal_shape(h, nonce);

	if (s == QPOW_SEAL_OK || s == QPOW_SEAL_ZERO)
		(void)header_quantus_pre(h, pre_hash, NULL);
	return s;
}

void
qpow_nonce_hash(const uint8_t pre_hash[32],
    const uint8_t nonce[QPOW_NONCE_LEN], struct u512 *h)
{
	uint8_t	in[32 + QPOW_NONCE_LEN], out[U512_BYTES];

	memcpy(in, pre_hash, 32);
	memcpy(in + 32, nonce, QPOW_NONCE_LEN);
	p2_hash_bytes_squeeze_twice(in, sizeof(in), out);
	u512_from_be(h, out);
}

/* H + 1 into h1; -1 when H is 2^512 - 1 (no difficulty is met). */
static int
qpow_h_plus_one(const struct u512 *h, struct u512 *h1)
{
	struct u512	one;

	u512_from_u64(&one, 1);
	*h1 = *h;
	return u512_add(h1, &one);
}

void
qpow_max_difficulty(const struct u512 *h, struct u512 *d)
{
	struct u512	max, h1;

	if (qpow_h_plus_one(h, &h1) == -1) {
		u512_zero(d);
		return;
	}
	u512_max(&max);
	u512_divmod(&max, &h1, d, NULL);
}

/*
 * H < floor(MAX / D) iff H + 1 <= MAX / D iff (H + 1) * D < 2^512: one
 * multiply, no division.
 */
int
qpow_meets(const struct u512 *h, const struct u512 *d)
{
	struct u512	h1, prod;

	if (u512_is_zero(d) || qpow_h_plus_one(h, &h1) == -1)
		return 0;
	return u512_mul(&h1, d, &prod) == 0;
}

void
qpow_rule_default(struct qpow_rule *r, uint64_t target_ms)
{
	memset(r, 0, sizeof(*r));
	r->target_ms = target_ms;
	r->div_num = 2;
	r->div_den = 3;
	r->floor_ms = 500;
	u512_from_u64(&r->min, QPOW_MIN_DIFFICULTY);
}

uint64_t
qpow_min_period(uint64_t target_ms)
{
	uint64_t	p;

	if (target_ms >= QPOW_TARGET_MS)
		return QPOW_MIN_PERIOD_MS;
	p = target_ms * QPOW_MIN_PERIOD_MS / QPOW_TARGET_MS;
	return p < 1 ? 1 : p;
}

/*
 * max(target * num / den, 1) in integers, without the product overflowing:
 * target = a * den + b gives a * num + b * num / den (b * num < 2^64).
 */
static uint64_t
qpow_divisor(const struct qpow_rule *r)
{
	uint64_t	den = r->div_den != 0 ? r->div_den : 1;
	uint64_t	a = r->target_ms / den, b = r->target_ms % den, div;

	if (r->div_num != 0 && a > (UINT64_MAX - b * r->div_num / den) /
	    r->div_num)
		return UINT64_MAX;
	div = a * r->div_num + b * r->div_num / den;
	return div != 0 ? div : 1;
}

/* A stored 0 reads as the smallest difficulty, as on chain. */
static void
qpow_current(const struct qpow_rule *r, const struct u512 *d,
    struct u512 *cur)
{
	*cur = u512_is_zero(d) ? r->min : *d;
}

/*
 * cur moved by adj (in [-99, 1]) steps of floor(cur / 2048), saturating
 * both ways, then clamped to [min, 2^512 - 1].
 */
static void
qpow_step(const struct qpow_rule *r, const struct u512 *cur, int adj,
    struct u512 *next)
{
	struct u512	inc, k;

	u512_from_u64(&k, QPOW_STEP_DIV);
	u512_divmod(cur, &k, &inc, NULL);
	u512_from_u64(&k, (uint64_t)(adj < 0 ? -adj : adj));
	if (u512_mul(&inc, &k, &inc) == -1)
		u512_max(&inc);
	*next = *cur;
	if (adj >= 0) {
		if (u512_add(next, &inc) == -1)
			u512_max(next);
	} else if (u512_sub(next, &inc) == -1)
		u512_zero(next);
	if (u512_cmp(next, &r->min) < 0)
		*next = r->min;
}

void
qpow_retarget(const struct qpow_rule *r, const struct u512 *d,
    uint64_t block_ms, struct u512 *next)
{
	struct u512	cur;
	uint64_t	bt, q;
	int		adj;

	bt = block_ms > r->floor_ms ? block_ms : r->floor_ms;
	q = bt / qpow_divisor(r);
	/* adj = max(1 - q, -99) without a signed overflow. */
	adj = q > QPOW_MAX_DOWN ? -QPOW_MAX_DOWN : 1 - (int)q;
	qpow_current(r, d, &cur);
	qpow_step(r, &cur, adj, next);
}

void
qpow_step_bounds(const struct qpow_rule *r, const struct u512 *d,
    struct u512 *lo, struct u512 *hi)
{
	struct u512	cur;

	qpow_current(r, d, &cur);
	qpow_step(r, &cur, -QPOW_MAX_DOWN, lo);
	qpow_step(r, &cur, 1, hi);
}
