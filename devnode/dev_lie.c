/*
 * The forgeries the lying faults serve: made once when the fault comes on
 * (on the view as it stands then), kept as side blocks of the main chain
 * so that they answer by hash, and copied into every view while their
 * fault is on.  Each is a real header, hashed as its format hashes; what
 * is false is its place (a parent nobody has, a number that does not
 * follow its parent's, a finalized block off the best chain) or its seal
 * (one that fails its parent's difficulty).
 */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <string.h>

#include "hash.h"
#include "header.h"
#include "hex.h"
#include "log.h"
#include "util.h"

#include "dev.h"
#include "qpow.h"
#include "dev_json.h"

#define SALT_FORGE	(0xf07ull << 40)

static pthread_mutex_t	 lie_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dev_blkref lie_ref[FAULT__COUNT];
static unsigned		 lie_made;	/* bit per fault */
static uint64_t		 forgeries;

static uint64_t
next_salt(void)
{
	uint64_t	s;

	pthread_mutex_lock(&lie_lock);
	s = SALT_FORGE | ++forgeries;
	pthread_mutex_unlock(&lie_lock);
	return s;
}

/* A parent hash no block has: blake2b of the forgery's salt. */
static void
unknown_parent(uint64_t salt, uint8_t out[32])
{
	uint8_t	in[24];

	memcpy(in, "forged parent:", 14);
	memset(in + 14, 0, sizeof(in) - 14);
	for (int i = 0; i < 8; i++)
		in[14 + i] = (uint8_t)(salt >> (8 * i));
	blake2b_256(in, sizeof(in), out);
}

static uint64_t
clamp_number(uint64_t n)
{
	return n > UINT32_MAX ? UINT32_MAX : n;
}

/*
 * Fill sp for a forged block numbered n on `parent`, with the state of
 * the view's best block `at` (difficulty, timestamp), its seal mined at
 * that difficulty too: its parent's where the parent is `at` or another
 * forgery; for a parent nobody has, whose state nobody can read, `at`'s
 * stands in.
 */
static void
spec_of(const struct dev_view *v, const struct dev_blkref *at, uint64_t n,
    const uint8_t parent[32], uint64_t salt, struct dev_side_spec *sp)
{
	sp->number = n;
	memcpy(sp->parent, parent, 32);
	sp->salt = salt;
	sp->difficulty = dev_chain_difficulty(v->chain, at);
	sp->ts_ms = dev_chain_timestamp(v->chain, at);
	sp->parent_difficulty = sp->difficulty;
	sp->bad_seal = 0;
}

static int
make(const struct dev_view *v, enum dev_fault_id id, uint64_t arg,
    struct dev_blkref *out)
{
	struct dev_side_spec	sp;
	struct dev_blkref	best, fin, pref;
	struct header		h;
	uint8_t			parent[32];
	uint64_t		salt = next_salt(), k;

	if (dev_view_block_at(v, v->head, &best) == -1)
		return -1;
	switch (id) {
	case FAULT_FORGE_HEAD:
		unknown_parent(salt, parent);
		spec_of(v, &best, clamp_number(v->head + arg), parent, salt,
		    &sp);
		return dev_chain_side_add(v->chain, &sp, out);
	case FAULT_FORGE_CHAIN:
		/* best+1 .. best+K, the bottom on a parent nobody has. */
		unknown_parent(salt, parent);
		for (k = 1; k <= arg; k++) {
			spec_of(v, &best, clamp_number(v->head + k), parent,
			    salt, &sp);
			if (dev_chain_side_add(v->chain, &sp, out) == -1)
				return -1;
			dev_chain_hash(v->chain, out, parent);
		}
		return 0;
	case FAULT_BAD_NUMBER:
		dev_chain_hash(v->chain, &best, parent);
		spec_of(v, &best, clamp_number(v->head + arg), parent, salt,
		    &sp);
		return dev_chain_side_add(v->chain, &sp, out);
	case FAULT_BAD_SEAL:
		/* best+1 on best, its nonce one that fails best's state. */
		if (dev_chain_format(v->chain) != FORMAT_QUANTUS)
			return -1;
		dev_chain_hash(v->chain, &best, parent);
		spec_of(v, &best, clamp_number(v->head + 1), parent, salt, &sp);
		sp.bad_seal = 1;
		/* Only its seal lies: its time keeps the minimum period. */
		sp.ts_ms += QPOW_MIN_PERIOD_MS;
		return dev_chain_side_add(v->chain, &sp, out);
	case FAULT_FINALIZED_OFF:
		/* A sibling of the finalized block: same parent, off the chain. */
		if (dev_view_block_at(v, dev_view_finalized(v), &fin) == -1)
			return -1;
		if (fin.number == 0) {
			dev_chain_hash(v->chain, &fin, parent);
			k = 1;
		} else {
			dev_chain_header(v->chain, &fin, &h);
			memcpy(parent, h.parent_hash, 32);
			k = fin.number;
		}
		if (dev_view_lookup(v, parent, &pref) == -1)
			return -1;
		spec_of(v, &fin, k, parent, salt, &sp);
		sp.parent_difficulty = dev_chain_difficulty(v->chain, &pref);
		return dev_chain_side_add(v->chain, &sp, out);
	default:
		return -1;
	}
}

void
dev_lie_make(const struct dev_view *v, enum dev_fault_id id, uint64_t arg)
{
	struct dev_blkref	ref;
	uint8_t			hash[32];
	char			hex[67];

	if (!dev_fault_forges(id))
		return;
	if (make(v, id, arg, &ref) == -1) {
		log_warnx("%s: cannot make the forged header (head #%" PRIu64
		    ")", dev_fault_name(id), v->head);
		return;
	}
	dev_chain_hash(v->chain, &ref, hash);
	hex_encode(hash, 32, hex);
	log_info("%s: forged #%" PRIu64 " %.18s... (head #%" PRIu64 ")",
	    dev_fault_name(id), ref.number, hex, v->head);
	pthread_mutex_lock(&lie_lock);
	lie_ref[id] = ref;
	lie_made |= 1u << id;
	pthread_mutex_unlock(&lie_lock);
}

void
dev_lie_view(const struct dev_fault_view *fv, struct dev_view *v)
{
	unsigned	i;

	pthread_mutex_lock(&lie_lock);
	v->lies = lie_made & fv->on;
	for (i = 0; i < FAULT__COUNT; i++)
		if (v->lies & (1u << i))
			v->lie[i] = lie_ref[i];
	pthread_mutex_unlock(&lie_lock);
}

void
dev_lie_status_json(const struct dev_view *v, struct buf *b)
{
	uint8_t		hash[32];
	unsigned	i;
	int		n = 0;

	buf_addc(b, '{');
	for (i = 0; i < FAULT__COUNT; i++) {
		if (!(v->lies & (1u << i)))
			continue;
		if (n++ > 0)
			buf_addc(b, ',');
		dev_json_str(b, dev_fault_name((enum dev_fault_id)i));
		buf_addf(b, ":{\"number\":%" PRIu64 ",\"hash\":",
		    v->lie[i].number);
		dev_chain_hash(v->chain, &v->lie[i], hash);
		dev_json_hex(b, hash, 32, 1);
		buf_addc(b, '}');
	}
	buf_addc(b, '}');
}
