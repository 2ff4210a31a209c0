/*
 * Block headers of the quantus and substrate formats: RPC JSON checked
 * field by field at the edge, SCALE both ways, the block hash each chain
 * computes, and what the digest says (miner, runtime upgrade).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "account.h"
#include "hash.h"
#include "header.h"
#include "hex.h"
#include "poseidon2.h"
#include "scale.h"

/* n_logs always encodes as one compact byte; header_add_log relies on it. */
_Static_assert(HEADER_LOGS_MAX < 64, "compact(n_logs) must be one byte");

const char *
chain_format_name(enum chain_format f)
{
	switch (f) {
	case FORMAT_QUANTUS:
		return "quantus";
	case FORMAT_SUBSTRATE:
		return "substrate";
	}
	return "unknown";
}

int
chain_format_parse(const char *s, enum chain_format *f)
{
	if (strcmp(s, "quantus") == 0)
		*f = FORMAT_QUANTUS;
	else if (strcmp(s, "substrate") == 0)
		*f = FORMAT_SUBSTRATE;
	else
		return -1;
	return 0;
}

void
header_init(struct header *h)
{
	memset(h, 0, sizeof(*h));
	h->digest[0] = 0;	/* compact(0): no logs */
	h->digest_len = 1;
}

static int
digest_kind_has_engine(enum digest_kind kind)
{
	return kind == DIGEST_CONSENSUS || kind == DIGEST_SEAL ||
	    kind == DIGEST_PRERUNTIME;
}

/* Where an item's SCALE encoding starts: its payload minus the head. */
static size_t
digest_item_start(const struct digest_item *it)
{
	switch (it->kind) {
	case DIGEST_RUNTIME_UPDATED:
		return it->off - 1;
	case DIGEST_OTHER:
		return it->off - 1 - scale_compact_len(it->len);
	default:
		return it->off - 5 - scale_compact_len(it->len);
	}
}

int
header_add_log(struct header *h, enum digest_kind kind, const uint8_t *engine,
    const uint8_t *data, size_t len)
{
	struct scale_wr		 w;
	struct digest_item	*it;
	size_t			 off;

	if (h->n_logs >= HEADER_LOGS_MAX)
		return -1;
	scale_wr_init(&w, h->digest, sizeof(h->digest));
	w.len = h->digest_len;
	switch (kind) {
	case DIGEST_OTHER:
		scale_put_u8(&w, DIGEST_OTHER);
		scale_put_compact(&w, len);
		break;
	case DIGEST_CONSENSUS:
	case DIGEST_SEAL:
	case DIGEST_PRERUNTIME:
		if (engine == NULL)
			return -1;
		scale_put_u8(&w, (uint8_t)kind);
		scale_put_bytes(&w, engine, 4);
		scale_put_compact(&w, len);
		break;
	case DIGEST_RUNTIME_UPDATED:
		if (len != 0)
			return -1;	/* the item has no payload */
		scale_put_u8(&w, DIGEST_RUNTIME_UPDATED);
		break;
	default:
		return -1;
	}
	off = w.len;
	scale_put_bytes(&w, data, len);
	/* Bytes past digest_len may be scribbled on; the digest is not. */
	if (w.overflow)
		return -1;

	it = &h->logs[h->n_logs++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	if (digest_kind_has_engine(kind))
		memcpy(it->engine, engine, 4);
	it->off = (uint32_t)off;
	it->len = (uint32_t)len;
	h->digest_len = w.len;
	h->digest[0] = (uint8_t)(h->n_logs << 2);
	return 0;
}

/* The inverse of the last header_add_log: the digest before it was added. */
int
header_pop_log(struct header *h)
{
	if (h->n_logs == 0)
		return -1;
	h->n_logs--;
	h->digest_len = digest_item_start(&h->logs[h->n_logs]);
	h->digest[0] = (uint8_t)(h->n_logs << 2);
	return 0;
}

static int
header_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list	ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/*
 * One SCALE DigestItem from r into h.  why gets the reason without the
 * field name, which the caller knows.
 */
static int
header_read_item(struct header *h, struct scale_rd *r, char *why,
    size_t whylen)
{
	uint8_t		kind, engine[4] = { 0, 0, 0, 0 };
	uint64_t	len = 0;

	if (scale_get_u8(r, &kind) == -1)
		return header_err(why, whylen, "empty item");
	switch (kind) {
	case DIGEST_OTHER:
		if (scale_get_compact(r, &len) == -1)
			return header_err(why, whylen,
			    "truncated or non-canonical length");
		break;
	case DIGEST_CONSENSUS:
	case DIGEST_SEAL:
	case DIGEST_PRERUNTIME:
		if (scale_get_bytes(r, engine, 4) == -1)
			return header_err(why, whylen, "truncated engine id");
		if (scale_get_compact(r, &len) == -1)
			return header_err(why, whylen,
			    "truncated or non-canonical length");
		break;
	case DIGEST_RUNTIME_UPDATED:
		break;
	default:
		return header_err(why, whylen, "bad item kind 0x%02x", kind);
	}
	if (len > r->len - r->pos)
		return header_err(why, whylen,
		    "payload of %llu bytes but %zu left",
		    (unsigned long long)len, r->len - r->pos);
	if (header_add_log(h, (enum digest_kind)kind, engine, r->buf + r->pos,
	    (size_t)len) == -1)
		return header_err(why, whylen, "digest over %d bytes",
		    HEADER_DIGEST_MAX);
	r->pos += (size_t)len;
	return 0;
}

/* A JSON string without embedded NULs, or NULL. */
static const char *
json_cstring(const json_t *v)
{
	const char	*s;

	if (!json_is_string(v))
		return NULL;
	s = json_string_value(v);
	if (strlen(s) != json_string_length(v))
		return NULL;
	return s;
}

static int
json_get_h256(const json_t *o, const char *key, uint8_t out[32], char *err,
    size_t errlen)
{
	const json_t	*v;
	const char	*s;

	if ((v = json_object_get(o, key)) == NULL)
		return header_err(err, errlen, "%s: missing", key);
	if ((s = json_cstring(v)) == NULL)
		return header_err(err, errlen, "%s: not a string", key);
	if (hex_decode(s, out, 32) == -1)
		return header_err(err, errlen, "%s: not 32 bytes of hex", key);
	return 0;
}

static int
json_get_number(enum chain_format fmt, const json_t *o, uint64_t *out,
    char *err, size_t errlen)
{
	const json_t	*v;
	const char	*s;
	char		 q[19];

	if ((v = json_object_get(o, "number")) == NULL)
		return header_err(err, errlen, "number: missing");
	if ((s = json_cstring(v)) == NULL)
		return header_err(err, errlen, "number: not a string");
	if (hex_parse_u64(s, out) == -1)
		return header_err(err, errlen,
		    "number: not a hex quantity of at most 64 bits");
	if (fmt == FORMAT_QUANTUS && *out > UINT32_MAX) {
		hex_format_u64(*out, q);
		return header_err(err, errlen,
		    "number: %s does not fit in u32 (quantus)", q);
	}
	return 0;
}

static int
json_get_logs(const json_t *o, struct header *h, char *err, size_t errlen)
{
	uint8_t		 buf[HEADER_DIGEST_MAX];
	const json_t	*digest, *logs, *v;
	const char	*s;
	struct scale_rd	 r;
	size_t		 i, n, slen;
	char		 why[96];

	if ((digest = json_object_get(o, "digest")) == NULL)
		return header_err(err, errlen, "digest: missing");
	if (!json_is_object(digest))
		return header_err(err, errlen, "digest: not an object");
	if ((logs = json_object_get(digest, "logs")) == NULL)
		return header_err(err, errlen, "digest.logs: missing");
	if (!json_is_array(logs))
		return header_err(err, errlen, "digest.logs: not an array");
	if ((n = json_array_size(logs)) > HEADER_LOGS_MAX)
		return header_err(err, errlen,
		    "digest.logs: %zu items, at most %d", n, HEADER_LOGS_MAX);
	for (i = 0; i < n; i++) {
		v = json_array_get(logs, i);
		if ((s = json_cstring(v)) == NULL)
			return header_err(err, errlen,
			    "digest.logs[%zu]: not a string", i);
		slen = strlen(s);
		if (slen > 2 + 2 * (size_t)HEADER_DIGEST_MAX)
			return header_err(err, errlen,
			    "digest.logs[%zu]: over %d bytes", i,
			    HEADER_DIGEST_MAX);
		if (hex_decode_var(s, buf, sizeof(buf), &slen) == -1)
			return header_err(err, errlen,
			    "digest.logs[%zu]: not a hex byte string", i);
		scale_rd_init(&r, buf, slen);
		if (header_read_item(h, &r, why, sizeof(why)) == -1)
			return header_err(err, errlen, "digest.logs[%zu]: %s",
			    i, why);
		if (r.pos != r.len)
			return header_err(err, errlen,
			    "digest.logs[%zu]: %zu bytes after the item", i,
			    r.len - r.pos);
	}
	return 0;
}

int
header_from_json(enum chain_format fmt, const json_t *o, struct header *h,
    char *err, size_t errlen)
{
	header_init(h);
	if (fmt != FORMAT_QUANTUS && fmt != FORMAT_SUBSTRATE)
		return header_err(err, errlen, "unknown chain format %d",
		    (int)fmt);
	if (!json_is_object(o))
		return header_err(err, errlen, "header: not a JSON object");
	if (json_get_h256(o, "parentHash", h->parent_hash, err, errlen) == -1 ||
	    json_get_number(fmt, o, &h->number, err, errlen) == -1 ||
	    json_get_h256(o, "stateRoot", h->state_root, err, errlen) == -1 ||
	    json_get_h256(o, "extrinsicsRoot", h->extrinsics_root, err,
	    errlen) == -1)
		return -1;
	if (fmt == FORMAT_QUANTUS &&
	    json_get_h256(o, "zkTreeRoot", h->zk_tree_root, err, errlen) == -1)
		return -1;
	return json_get_logs(o, h, err, errlen);
}

static int
json_set_h256(json_t *o, const char *key, const uint8_t p[32])
{
	char	buf[2 * 32 + 3];

	hex_encode(p, 32, buf);
	return json_object_set_new(o, key, json_string(buf));
}

json_t *
header_to_json(enum chain_format fmt, const struct header *h)
{
	json_t		*o, *digest, *logs;
	char		 buf[2 * HEADER_DIGEST_MAX + 3], num[19];
	size_t		 start;
	unsigned	 i;
	int		 rc = 0;

	if ((o = json_object()) == NULL)
		return NULL;
	hex_format_u64(h->number, num);
	rc |= json_set_h256(o, "parentHash", h->parent_hash);
	rc |= json_object_set_new(o, "number", json_string(num));
	rc |= json_set_h256(o, "stateRoot", h->state_root);
	rc |= json_set_h256(o, "extrinsicsRoot", h->extrinsics_root);
	if (fmt == FORMAT_QUANTUS)
		rc |= json_set_h256(o, "zkTreeRoot", h->zk_tree_root);
	digest = json_object();
	logs = json_array();
	for (i = 0; i < h->n_logs && logs != NULL; i++) {
		start = digest_item_start(&h->logs[i]);
		hex_encode(h->digest + start,
		    h->logs[i].off + h->logs[i].len - start, buf);
		rc |= json_array_append_new(logs, json_string(buf));
	}
	rc |= json_object_set_new(digest, "logs", logs);
	rc |= json_object_set_new(o, "digest", digest);
	if (rc != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

long
header_encode(enum chain_format fmt, const struct header *h, uint8_t *out,
    size_t cap)
{
	struct scale_wr	w;

	if (fmt != FORMAT_QUANTUS && fmt != FORMAT_SUBSTRATE)
		return -1;
	scale_wr_init(&w, out, cap);
	scale_put_bytes(&w, h->parent_hash, 32);
	if (fmt == FORMAT_QUANTUS) {
		if (h->number > UINT32_MAX)
			return -1;
		scale_put_u32(&w, (uint32_t)h->number);
	} else
		scale_put_compact(&w, h->number);
	scale_put_bytes(&w, h->state_root, 32);
	scale_put_bytes(&w, h->extrinsics_root, 32);
	if (fmt == FORMAT_QUANTUS)
		scale_put_bytes(&w, h->zk_tree_root, 32);
	scale_put_bytes(&w, h->digest, h->digest_len);
	if (w.overflow)
		return -1;
	return (long)w.len;
}

int
header_decode(enum chain_format fmt, const uint8_t *in, size_t len,
    struct header *h)
{
	struct scale_rd	r;
	uint64_t	n, i;
	uint32_t	num32;
	char		why[96];

	header_init(h);
	if (fmt != FORMAT_QUANTUS && fmt != FORMAT_SUBSTRATE)
		return -1;
	scale_rd_init(&r, in, len);
	if (scale_get_bytes(&r, h->parent_hash, 32) == -1)
		return -1;
	if (fmt == FORMAT_QUANTUS) {
		if (scale_get_u32(&r, &num32) == -1)
			return -1;
		h->number = num32;
	} else if (scale_get_compact(&r, &h->number) == -1)
		return -1;
	if (scale_get_bytes(&r, h->state_root, 32) == -1 ||
	    scale_get_bytes(&r, h->extrinsics_root, 32) == -1)
		return -1;
	if (fmt == FORMAT_QUANTUS &&
	    scale_get_bytes(&r, h->zk_tree_root, 32) == -1)
		return -1;
	if (scale_get_compact(&r, &n) == -1 || n > HEADER_LOGS_MAX)
		return -1;
	for (i = 0; i < n; i++)
		if (header_read_item(h, &r, why, sizeof(why)) == -1)
			return -1;
	return r.pos == r.len ? 0 : -1;
}

/*
 * Quantus (qp-header Header::hash): 4 + 1 + 4 + 4 + 4 + 28 felts.  Only
 * the first 110 digest bytes count; a shorter digest is zero-padded.
 */
void
header_quantus_felts(const struct header *h, uint64_t f[QUANTUS_HEADER_FELTS])
{
	uint8_t	win[QUANTUS_DIGEST_WINDOW];
	size_t	n;

	p2_bytes_to_digest_lossy(h->parent_hash, f);
	f[4] = (uint32_t)h->number;	/* a u32 on chain; see header.h */
	p2_bytes_to_digest_lossy(h->state_root, f + 5);
	p2_bytes_to_digest_lossy(h->extrinsics_root, f + 9);
	p2_bytes_to_digest_lossy(h->zk_tree_root, f + 13);
	n = h->digest_len < sizeof(win) ? h->digest_len : sizeof(win);
	memset(win, 0, sizeof(win));
	memcpy(win, h->digest, n);
	p2_bytes_to_felts(win, sizeof(win), f + QUANTUS_HEADER_FIXED);
}

int
header_quantus_pre(const struct header *h, uint8_t pre[32], uint8_t *hash)
{
	uint64_t	f[QUANTUS_HEADER_FELTS], g[QUANTUS_HEADER_FELTS];
	uint8_t		win[QUANTUS_DIGEST_WINDOW];
	size_t		n;

	header_quantus_felts(h, f);
	if (h->n_logs == 0) {
		if (hash != NULL)
			p2_hash_to_bytes(f, QUANTUS_HEADER_FELTS, hash);
		return -1;
	}
	/* The digest less its last item: its count one less (one byte). */
	n = digest_item_start(&h->logs[h->n_logs - 1]);
	if (n > sizeof(win))
		n = sizeof(win);
	memset(win, 0, sizeof(win));
	memcpy(win, h->digest, n);
	win[0] = (uint8_t)((h->n_logs - 1) << 2);
	memcpy(g, f, QUANTUS_HEADER_FIXED * sizeof(*g));
	p2_bytes_to_felts(win, sizeof(win), g + QUANTUS_HEADER_FIXED);
	if (hash != NULL)
		p2_hash_to_bytes_pair(g, f, QUANTUS_HEADER_FELTS,
		    QUANTUS_HEADER_FIXED, pre, hash);
	else
		p2_hash_to_bytes(g, QUANTUS_HEADER_FELTS, pre);
	return 0;
}

void
header_hash(enum chain_format fmt, const struct header *h, uint8_t out[32])
{
	uint64_t	f[QUANTUS_HEADER_FELTS];
	uint8_t		buf[HEADER_SCALE_MAX];
	long		n;

	if (fmt == FORMAT_QUANTUS) {
		header_quantus_felts(h, f);
		p2_hash_to_bytes(f, QUANTUS_HEADER_FELTS, out);
		return;
	}
	/* Fits by construction: HEADER_SCALE_MAX covers every field. */
	n = header_encode(FORMAT_SUBSTRATE, h, buf, sizeof(buf));
	blake2b_256(buf, n < 0 ? 0 : (size_t)n, out);
}

int
header_judge(enum chain_format fmt, const json_t *o, const uint8_t want[32],
    struct header *h, uint8_t got[32], char *err, size_t errlen)
{
	return header_judge_pre(fmt, o, want, h, got, NULL, NULL, err, errlen);
}

int
header_judge_pre(enum chain_format fmt, const json_t *o,
    const uint8_t want[32], struct header *h, uint8_t got[32],
    uint8_t pre[32], int *has_pre, char *err, size_t errlen)
{
	char	why[160], g[67], w[67];

	memset(got, 0, 32);
	if (has_pre != NULL)
		*has_pre = 0;
	if (header_from_json(fmt, o, h, why, sizeof(why)) == -1)
		return header_err(err, errlen, "does not decode as %s: %s",
		    chain_format_name(fmt), why);
	if (fmt == FORMAT_QUANTUS && pre != NULL) {
		if (header_quantus_pre(h, pre, got) == 0 && has_pre != NULL)
			*has_pre = 1;
	} else
		header_hash(fmt, h, got);
	if (memcmp(got, want, 32) == 0)
		return 0;
	hex_encode(got, 32, g);
	hex_encode(want, 32, w);
	return header_err(err, errlen, "#%llu hashes to %.12s... as %s, not "
	    "%.12s...", (unsigned long long)h->number, g, chain_format_name(fmt),
	    w);
}

int
header_miner(enum chain_format fmt, const struct header *h,
    uint8_t account[32])
{
	const struct digest_item	*it;
	unsigned			 i;

	/* Only the first pow_ PreRuntime item counts, as on chain. */
	for (i = 0; i < h->n_logs; i++) {
		it = &h->logs[i];
		if (it->kind != DIGEST_PRERUNTIME ||
		    memcmp(it->engine, ENGINE_POW, 4) != 0)
			continue;
		if (it->len != 32)
			return 0;
		if (fmt == FORMAT_QUANTUS)
			return account_from_preimage(h->digest + it->off,
			    account) == 0;
		memcpy(account, h->digest + it->off, 32);
		return 1;
	}
	return 0;
}

int
header_runtime_updated(const struct header *h)
{
	unsigned	i;

	for (i = 0; i < h->n_logs; i++)
		if (h->logs[i].kind == DIGEST_RUNTIME_UPDATED)
			return 1;
	return 0;
}
