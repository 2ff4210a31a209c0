/*
 * Block headers of both chain formats: decoding from RPC JSON, SCALE
 * encoding, local hashing (Poseidon2 for quantus, blake2b-256 for
 * substrate), digest items, the miner and runtime-update markers.
 */
#ifndef CW_HEADER_H
#define CW_HEADER_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

enum chain_format {
	FORMAT_QUANTUS = 0,
	FORMAT_SUBSTRATE = 1,
};

enum digest_kind {
	DIGEST_OTHER = 0,
	DIGEST_CONSENSUS = 4,
	DIGEST_SEAL = 5,
	DIGEST_PRERUNTIME = 6,
	DIGEST_RUNTIME_UPDATED = 8,
};

#define HEADER_DIGEST_MAX	8192	/* SCALE digest bytes we accept */
#define HEADER_LOGS_MAX		32
#define HEADER_SCALE_MAX	(5 * 32 + 9 + HEADER_DIGEST_MAX)
#define QUANTUS_DIGEST_WINDOW	110	/* digest bytes the hash covers */

static const uint8_t ENGINE_POW[4] = { 'p', 'o', 'w', '_' };

struct digest_item {
	enum digest_kind kind;
	uint8_t		 engine[4];	/* not for OTHER / RUNTIME_UPDATED */
	uint32_t	 off;		/* payload within header.digest */
	uint32_t	 len;
};

struct header {
	uint8_t		 parent_hash[32];
	uint64_t	 number;	/* quantus: must fit in u32 */
	uint8_t		 state_root[32];
	uint8_t		 extrinsics_root[32];
	uint8_t		 zk_tree_root[32];	/* quantus only */
	size_t		 digest_len;		/* SCALE: compact(n) ‖ items */
	unsigned	 n_logs;
	struct digest_item logs[HEADER_LOGS_MAX];
	uint8_t		 digest[HEADER_DIGEST_MAX];
};

const char *chain_format_name(enum chain_format);
int	chain_format_parse(const char *, enum chain_format *);

/* An empty header (no logs); fields are then set directly. */
void	header_init(struct header *);

/*
 * Append a digest item (re-encoding header.digest).  engine is ignored for
 * OTHER and RUNTIME_UPDATED.  -1 if it does not fit (HEADER_DIGEST_MAX
 * bytes, HEADER_LOGS_MAX items), for an unknown kind, a NULL engine, or a
 * RUNTIME_UPDATED with data; the header is then unchanged.
 */
int	header_add_log(struct header *, enum digest_kind, const uint8_t *engine,
	    const uint8_t *data, size_t len);

/*
 * Remove the last digest item (re-encoding header.digest), as a Quantus
 * seal is removed for its pre-hash.  -1 if there is none.
 */
int	header_pop_log(struct header *);

/*
 * From the JSON object a node sends for chain_getHeader and in new-head
 * notifications.  On failure returns -1 with a reason in err, naming the
 * field ("digest.logs[2]: bad item kind 0x07"); the header is then only
 * partly filled.  err may be NULL.  Unknown keys are ignored.
 */
int	header_from_json(enum chain_format, const json_t *, struct header *,
	    char *err, size_t errlen);
/* The same JSON shape back (a new reference). */
json_t	*header_to_json(enum chain_format, const struct header *);

/* SCALE encoding; returns the length or -1 if it did not fit. */
long	header_encode(enum chain_format, const struct header *, uint8_t *out,
	    size_t cap);
int	header_decode(enum chain_format, const uint8_t *in, size_t len,
	    struct header *);

/* The block hash, as RPC shows it. */
void	header_hash(enum chain_format, const struct header *, uint8_t out[32]);

/*
 * Judge a header an endpoint served under hash want (it was asked for by
 * that hash, or chain_getBlockHash gave it): 0 if it decodes and hashes
 * to want in this format, h decoded and got its hash; -1 with the reason
 * in err if it does not decode ("does not decode as quantus: ...") or
 * hashes elsewhere ("#12 hashes to 0x1234abcd... as substrate, not
 * 0x..."), got then its hash or zeros.  Headers that never hash to what
 * they were served as mean a wrong `format`, or a lying endpoint.
 */
int	header_judge(enum chain_format, const json_t *, const uint8_t want[32],
	    struct header *h, uint8_t got[32], char *err, size_t errlen);

/* The 45 felts the quantus hash absorbs (quantus-poseidon2.md, section 4):
 * 17 of the fields before the digest, then the digest's window. */
#define QUANTUS_HEADER_FELTS	45
#define QUANTUS_HEADER_FIXED	17
void	header_quantus_felts(const struct header *,
	    uint64_t out[QUANTUS_HEADER_FELTS]);

/*
 * A seal's pre-hash: the quantus hash of h without its last digest item,
 * as header_pop_log would leave it, without copying h.  With hash, h's
 * own quantus hash too: the fields before the digest, two rate blocks of
 * the sponge, are absorbed once for both.  -1 if h has no digest item
 * (pre untouched; hash still h's).
 */
int	header_quantus_pre(const struct header *h, uint8_t pre[32],
	    uint8_t *hash);

/* header_judge, and for a quantus header its pre-hash (as above) into
 * pre with *has_pre 1, where it has a digest item. */
int	header_judge_pre(enum chain_format, const json_t *,
	    const uint8_t want[32], struct header *h, uint8_t got[32],
	    uint8_t pre[32], int *has_pre, char *err, size_t errlen);

/*
 * The block's author: quantus derives it from the first pow_ PreRuntime
 * preimage; substrate takes a 32-byte pow_ PreRuntime payload as the
 * account.  1 with the account, 0 when there is none or it is unknown.
 */
int	header_miner(enum chain_format, const struct header *,
	    uint8_t account[32]);

/* 1 if the digest carries RuntimeEnvironmentUpdated. */
int	header_runtime_updated(const struct header *);

#endif
