/*
 * Side blocks: headers the simulated chain does not contain, made while
 * the devnode runs, for the faults that lie about the chain.  A split
 * mines its own branch from the best block it left the shared chain at
 * (store 0, consecutive per split); forgeries (store 1) are headers on
 * parents nobody has.  Each is a real header: its hash is the hash of
 * its encoding, so a client's own check passes, its seal is mined at its
 * parent's difficulty (unless it is to fail), and it is answerable by
 * hash for as long as the devnode runs.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "header.h"
#include "log.h"
#include "util.h"

#include "dev_chain_int.h"

#define SPLIT_PACE	2	/* a split mines at half the chain's rate */
#define SPLIT_TICK_MAX	10000	/* blocks per tick; a clock jump spreads */
#define SALT_SPLIT	(0x5b1ull << 40)
#define STORE_SPLIT	0
#define STORE_FORGED	1

void
chain_side_init(struct dev_chain *c)
{
	unsigned	i;

	pthread_mutex_init(&c->side_lock, NULL);
	for (i = 0; i < 2; i++) {
		c->side[i].chunk = xcalloc(SIDE_CHUNKS_MAX,
		    sizeof(*c->side[i].chunk));
		atomic_init(&c->side[i].count, 0);
	}
}

void
chain_side_free(struct dev_chain *c)
{
	size_t		i;
	unsigned	s;

	for (s = 0; s < 2; s++) {
		for (i = 0; i < SIDE_CHUNKS_MAX; i++)
			free(c->side[s].chunk[i]);
		free(c->side[s].chunk);
	}
	pthread_mutex_destroy(&c->side_lock);
}

const struct dev_side *
chain_side(const struct dev_chain *c, const struct dev_blkref *ref)
{
	unsigned	s = (ref->branch & SIDE_FORGED) ? STORE_FORGED :
			    STORE_SPLIT;

	return side_at(&c->side[s], ref->branch &
	    ~(DEV_BRANCH_SIDE | SIDE_FORGED));
}

static uint64_t
store_count(const struct side_store *st)
{
	return atomic_load_explicit(&((struct side_store *)st)->count,
	    memory_order_acquire);
}

static uint64_t
store_ref(unsigned s, uint64_t i)
{
	return DEV_BRANCH_SIDE | (s == STORE_FORGED ? SIDE_FORGED : 0) | i;
}

/* With side_lock held: mine the block, hash it, publish it. */
static int
side_append(struct dev_chain *c, unsigned s, const struct dev_side_spec *sp,
    struct dev_blkref *ref)
{
	struct side_store	*st = &c->side[s];
	struct dev_side		*b;
	struct header		 h;
	uint64_t		 i = store_count(st);
	int64_t			 steps;

	if ((i >> SIDE_CHUNK_BITS) >= SIDE_CHUNKS_MAX)
		return -1;
	steps = chain_mine(c, sp->number, sp->salt, sp->parent,
	    sp->parent_difficulty, !sp->bad_seal);
	if (steps == -1)
		return -1;
	if (st->chunk[i >> SIDE_CHUNK_BITS] == NULL)
		st->chunk[i >> SIDE_CHUNK_BITS] = xcalloc(SIDE_CHUNK_SIZE,
		    sizeof(struct dev_side));
	b = side_at(st, i);
	memcpy(b->parent, sp->parent, 32);
	b->number = sp->number;
	b->salt = sp->salt;
	b->difficulty = sp->difficulty;
	b->ts_ms = sp->ts_ms;
	b->steps = (uint32_t)steps;
	chain_build_header(c, sp->number, sp->salt, sp->parent, b->steps, &h);
	header_hash(c->p.format, &h, b->hash);
	atomic_store_explicit(&st->count, i + 1, memory_order_release);
	ref->number = sp->number;
	ref->branch = store_ref(s, i);
	return 0;
}

int
dev_chain_side_add(struct dev_chain *c, const struct dev_side_spec *sp,
    struct dev_blkref *ref)
{
	int	rc;

	pthread_mutex_lock(&c->side_lock);
	rc = side_append(c, STORE_FORGED, sp, ref);
	pthread_mutex_unlock(&c->side_lock);
	return rc;
}

uint64_t
dev_chain_side_count(const struct dev_chain *c)
{
	return store_count(&c->side[STORE_SPLIT]) +
	    store_count(&c->side[STORE_FORGED]);
}

int
dev_chain_side_lookup(const struct dev_chain *c, const uint8_t hash[32],
    struct dev_blkref *ref)
{
	const struct dev_side	*b;
	uint64_t		 i, n;
	unsigned		 s;

	/* Few and recent: newest first. */
	for (s = 0; s < 2; s++) {
		n = store_count(&c->side[s]);
		for (i = n; i-- > 0; ) {
			b = side_at(&c->side[s], i);
			if (memcmp(b->hash, hash, 32) == 0) {
				ref->number = b->number;
				ref->branch = store_ref(s, i);
				return 0;
			}
		}
	}
	return -1;
}

void
dev_chain_split_start(struct dev_chain *c, uint64_t base_pos,
    uint64_t now_ms)
{
	struct dev_blkref	ref;
	uint64_t		base = dev_chain_tip(c, base_pos);

	pthread_mutex_lock(&c->side_lock);
	if (!c->split.on && dev_chain_block_at(c, base_pos, base, &ref) == 0) {
		dev_chain_hash(c, &ref, c->split_base_hash);
		c->split.on = 1;
		c->split.epoch++;
		c->split.base_pos = base_pos;
		c->split.base = base;
		c->split.first = store_count(&c->side[STORE_SPLIT]);
		c->split.len = 0;
		c->split_start_ms = now_ms;
		log_info("split: leaving the shared chain at #%llu",
		    (unsigned long long)base);
	}
	pthread_mutex_unlock(&c->side_lock);
}

void
dev_chain_split_stop(struct dev_chain *c)
{
	pthread_mutex_lock(&c->side_lock);
	if (c->split.on)
		log_info("split: back to the shared chain after %llu blocks "
		    "of its own (#%llu to #%llu)",
		    (unsigned long long)c->split.len,
		    (unsigned long long)c->split.base + 1,
		    (unsigned long long)(c->split.base + c->split.len));
	c->split.on = 0;
	pthread_mutex_unlock(&c->side_lock);
}

void
dev_chain_split_get(const struct dev_chain *c, struct dev_split_state *st)
{
	struct dev_chain	*cc = (struct dev_chain *)c;

	pthread_mutex_lock(&cc->side_lock);
	*st = c->split;
	pthread_mutex_unlock(&cc->side_lock);
}

/* With side_lock held. */
static uint64_t
split_due(const struct dev_chain *c)
{
	return c->split_start_ms + (c->split.len + 1) * SPLIT_PACE *
	    c->tm.block_ms;
}

uint64_t
dev_chain_split_next_ms(struct dev_chain *c)
{
	uint64_t	t = 0;

	pthread_mutex_lock(&c->side_lock);
	if (c->split.on)
		t = split_due(c);
	pthread_mutex_unlock(&c->side_lock);
	return t;
}

/*
 * The split's next blocks whose time has come: another miner (salt of
 * the split), at the difficulty the chain had where it left it.
 */
int
dev_chain_split_tick(struct dev_chain *c, uint64_t now_ms)
{
	struct dev_side_spec	 sp;
	struct dev_blkref	 ref, base;
	unsigned		 i;
	int			 moved = 0;

	pthread_mutex_lock(&c->side_lock);
	for (i = 0; c->split.on && i < SPLIT_TICK_MAX; i++) {
		if ((sp.ts_ms = split_due(c)) > now_ms)
			break;
		sp.number = c->split.base + c->split.len + 1;
		if (c->split.len == 0)
			memcpy(sp.parent, c->split_base_hash, 32);
		else
			memcpy(sp.parent, side_at(&c->side[STORE_SPLIT],
			    c->split.first + c->split.len - 1)->hash, 32);
		sp.salt = SALT_SPLIT | c->split.epoch;
		base.number = c->split.base;
		base.branch = 0;
		/* Its parent is the base or the split's last: same state. */
		sp.difficulty = dev_chain_difficulty(c, &base);
		sp.parent_difficulty = sp.difficulty;
		sp.bad_seal = 0;
		if (side_append(c, STORE_SPLIT, &sp, &ref) == -1) {
			log_warnx("split: no room for more side blocks; the "
			    "split stops growing at #%llu",
			    (unsigned long long)(sp.number - 1));
			break;
		}
		c->split.len++;
		moved = 1;
	}
	pthread_mutex_unlock(&c->side_lock);
	return moved;
}
