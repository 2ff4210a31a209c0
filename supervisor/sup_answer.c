/*
 * Answers against requests.  The worker checks what it decodes; the
 * supervisor checks again what it is given, because a worker's answer is
 * only as good as the endpoint behind it and the code in between: the
 * count of items, each header's number or hash, the links of a range,
 * and the size of each storage value.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "header.h"
#include "hex.h"
#include "qpow.h"
#include "sup_answer.h"
#include "u512.h"

/* 0x1234abcd... */
static const char *
short_hex(const uint8_t h[32], char buf[16])
{
	char	full[67];

	hex_encode(h, 32, full);
	snprintf(buf, 16, "%.10s...", full);
	return buf;
}

enum answer_verdict
answer_check_headers(const struct answer_asked *q,
    const struct proto_res_headers *r, char *why, size_t whylen)
{
	const struct proto_item	*prev = NULL;
	char			 a[16], b[16];

	if (r->n != q->n) {
		snprintf(why, whylen, "%zu headers for %zu asked", r->n, q->n);
		return ANSWER_WRONG;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct proto_item *it = &r->items[i];

		if (it->outcome != OUTCOME_OK) {
			prev = NULL;
			continue;
		}
		if (q->by == BY_HASH) {
			if (memcmp(it->h.hash, q->hashes[i], 32) != 0) {
				snprintf(why, whylen, "header %s for %s asked",
				    short_hex(it->h.hash, a),
				    short_hex(q->hashes[i], b));
				return ANSWER_WRONG;
			}
			continue;
		}
		if (it->h.number != q->from + i) {
			snprintf(why, whylen, "header #%llu for #%llu asked",
			    (unsigned long long)it->h.number,
			    (unsigned long long)(q->from + i));
			return ANSWER_WRONG;
		}
		if (prev != NULL && memcmp(it->h.parent, prev->h.hash, 32)
		    != 0) {
			snprintf(why, whylen, "#%llu's parent %s is not #%llu "
			    "%s: the range does not link",
			    (unsigned long long)it->h.number,
			    short_hex(it->h.parent, a),
			    (unsigned long long)prev->h.number,
			    short_hex(prev->h.hash, b));
			return ANSWER_UNLINKED;
		}
		prev = it;
	}
	return ANSWER_OK;
}

enum answer_verdict
answer_check_storage(const size_t *size, size_t asked,
    const struct proto_res_storage *r, char *why, size_t whylen)
{
	if (r->n != asked) {
		snprintf(why, whylen, "%zu values for %zu keys asked", r->n,
		    asked);
		return ANSWER_WRONG;
	}
	for (size_t i = 0; i < r->n; i++)
		if (r->items[i].outcome == OUTCOME_OK && size[i] != 0 &&
		    r->items[i].value_len != size[i]) {
			snprintf(why, whylen, "value %zu is %zu bytes, its key's "
			    "are %zu", i, r->items[i].value_len, size[i]);
			return ANSWER_WRONG;
		}
	return ANSWER_OK;
}

long
answer_check_clock(const struct proto_res_storage *rs, size_t per,
    uint64_t now, uint64_t *ahead_ms)
{
	for (size_t k = per - 1; per > 0 && k < rs->n; k += per) {
		const struct proto_value *t = &rs->items[k];
		uint64_t ts = 0;

		if (t->outcome != OUTCOME_OK || t->value_len != 8)
			continue;
		for (int b = 7; b >= 0; b--)
			ts = ts << 8 | t->value[b];
		if (ts > now + ANSWER_AHEAD_MAX) {
			*ahead_ms = ts - now;
			return (long)k;
		}
	}
	return -1;
}

int
answer_check_figures(const struct proto_header *p, char *why, size_t whylen)
{
	struct header	 h;
	uint8_t		 hash[32], miner[32], nonce[QPOW_NONCE_LEN], pre[32];
	uint8_t		 pow[64];
	struct u512	 hv, dmax;
	int		 has_miner;
	enum qpow_seal	 seal;
	const char	*what = NULL;

	/* Genesis has no seal; a digest too long for the bytes' room is
	 * outside the window anyway. */
	if (p->number == 0 || (p->raw_len == 0 && p->seal == QPOW_SEAL_WINDOW))
		return 0;
	if (p->raw_len == 0)
		what = "no bytes";
	else if (header_decode(FORMAT_QUANTUS, p->raw, p->raw_len, &h) == -1)
		what = "bytes that do not decode";
	if (what != NULL)
		goto differ;
	header_hash(FORMAT_QUANTUS, &h, hash);
	has_miner = header_miner(FORMAT_QUANTUS, &h, miner);
	seal = qpow_seal_of(&h, nonce, pre);
	if (memcmp(hash, p->hash, 32) != 0)
		what = "hash";
	else if (memcmp(h.parent_hash, p->parent, 32) != 0)
		what = "parent";
	else if (h.number != p->number)
		what = "number";
	else if (has_miner != p->has_miner ||
	    (has_miner && memcmp(miner, p->miner, 32) != 0))
		what = "miner";
	else if (header_runtime_updated(&h) != (p->runtime_updated != 0))
		what = "runtime flag";
	else if ((unsigned)seal != p->seal)
		what = "seal verdict";
	else if (seal == QPOW_SEAL_OK) {
		qpow_nonce_hash(pre, nonce, &hv);
		qpow_max_difficulty(&hv, &dmax);
		u512_to_le(&dmax, pow);
		if (!p->has_pow || memcmp(pow, p->pow_max, 64) != 0)
			what = "seal bound";
	}
	if (what == NULL)
		return 0;
differ:
	snprintf(why, whylen, "header #%llu: the worker's figures differ "
	    "from its bytes (%s)", (unsigned long long)p->number, what);
	return -1;
}

const char *
answer_verdict_name(enum answer_verdict v)
{
	static const char *const names[] = { "ok", "wrong", "unlinked" };

	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}
