/*
 * Inside the simulated chain: block storage and the hash index, shared by
 * dev_chain.c (generation, views), dev_chain_side.c (side blocks, the
 * split) and dev_cache.c (the on-disk cache).
 * Nothing outside those files includes this.
 */
#ifndef DEV_CHAIN_INT_H
#define DEV_CHAIN_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "qpow.h"

#include "dev_chain.h"

/*
 * Blocks live in chunks that never move, so readers can use any block
 * below the published count without a lock; only the hash index, which
 * grows by rehashing, is behind a lock.
 */
#define CHUNK_BITS	16
#define CHUNK_SIZE	(1u << CHUNK_BITS)
#define CHUNKS_MAX	((size_t)((1ull << 32) >> CHUNK_BITS) + 1)

/* Solve times are in thousandths of the target block time. */
#define TIME_UNIT	1000

/*
 * A quantus block's seal is the nonce `steps` past the PRNG's start for
 * it: the first that meets its parent's difficulty, found once when the
 * block is mined and kept, so that serving it never mines again.
 */
struct dev_blk {
	uint8_t		hash[32];
	uint64_t	difficulty;	/* QPoW.CurrentDifficulty after it */
	uint64_t	t;		/* sum of solve times since genesis */
	uint32_t	steps;
};

struct dev_orph {
	uint8_t		hash[32];
	uint32_t	steps;
};

/*
 * Side blocks: headers outside the simulated chain (a split's own
 * branch, forged headers), made while the devnode runs.  Append-only in
 * chunks that never move, published with side_count like the blocks.
 */
#define SIDE_CHUNK_BITS	12
#define SIDE_CHUNK_SIZE	(1u << SIDE_CHUNK_BITS)
#define SIDE_CHUNKS_MAX	4096
#define SIDE_FORGED	(1ull << 62)	/* in a ref's branch: store 1 */

struct dev_side {
	uint8_t		hash[32];
	uint8_t		parent[32];
	uint64_t	number;
	uint64_t	salt;		/* header fields and miner */
	uint64_t	difficulty;
	uint64_t	ts_ms;
	uint32_t	steps;
};

struct side_store {
	struct dev_side		**chunk;
	atomic_uint_fast64_t	 count;
};

struct dev_chain {
	struct dev_chain_params	 p;
	struct dev_chain_timing	 tm;
	char			*cache_dir;
	char			 name[16];
	uint64_t		 seed64[4];
	uint64_t		 total_weight;
	struct qpow_rule	 rule;		/* at block_ms, min_difficulty */
	uint8_t			 preimage[DEV_MINERS_MAX][32];

	struct dev_blk		**blk;
	struct dev_orph		**orph;
	atomic_uint_fast64_t	 count;		/* hashed and indexed */
	atomic_uint_fast64_t	 head;
	atomic_int		 synced;

	/* Generation state, owned by one thread at a time. */
	uint64_t		 meta_count;	/* blocks with difficulty, t */
	uint64_t		 hr_epoch;
	uint32_t		 hr_mult;
	int64_t			 genesis_ms;	/* wall time of block 0 */

	pthread_rwlock_t	 idx_lock;
	uint64_t		*idx;
	uint64_t		 idx_mask;
	uint64_t		 idx_used;

	/*
	 * Side blocks, behind side_lock for writers: store 0 holds the
	 * splits' branches (one after the other, so a split's blocks are
	 * consecutive), store 1 the forgeries.
	 */
	pthread_mutex_t		 side_lock;
	struct side_store	 side[2];
	struct dev_split_state	 split;
	uint8_t			 split_base_hash[32];
	uint64_t		 split_start_ms;
	uint64_t		 split_epochs;

	uint64_t		 cache_have;	/* blocks in the cache file */
	uint64_t		 preloaded;	/* hashes read, maybe unpublished */
	double			 sync_secs;
	uint64_t		 sync_cached;
	uint64_t		 sync_hashed;
};

#define REF_ORPHAN	(1ull << 62)

static inline struct dev_blk *
blk_at(const struct dev_chain *c, uint64_t n)
{
	return &c->blk[n >> CHUNK_BITS][n & (CHUNK_SIZE - 1)];
}

static inline struct dev_side *
side_at(const struct side_store *st, uint64_t i)
{
	return &st->chunk[i >> SIDE_CHUNK_BITS][i & (SIDE_CHUNK_SIZE - 1)];
}

static inline struct dev_orph *
orph_at(const struct dev_chain *c, uint64_t slot)
{
	return &c->orph[slot >> CHUNK_BITS][slot & (CHUNK_SIZE - 1)];
}

/* 64-bit little-endian, the byte order of seeds and of the cache file. */
void	 chain_put_le64(uint8_t *, uint64_t);
uint64_t chain_get_le64(const uint8_t *);
/* Allocate the chunks that hold blocks below n and orphan slots below s. */
void	 chain_reserve(struct dev_chain *, uint64_t n, uint64_t slots);
/* Slots that hold every old-branch block below height n. */
uint64_t chain_slot_end(const struct dev_chain *, uint64_t n);
/* Difficulty and time of every block below n. */
void	 chain_extend_meta(struct dev_chain *, uint64_t n);
/* Hash block n (and its old-branch twin); the index is not touched. */
void	 chain_hash_block(struct dev_chain *, uint64_t n);
/* Index blocks [from, to) with their twins, then publish count = to. */
void	 chain_publish(struct dev_chain *, uint64_t from, uint64_t to);
unsigned chain_depth(const struct dev_chain *, uint64_t r);
/* 1 if the stored hashes of block n (and its twin) are what it hashes to. */
int	 chain_verify_block(const struct dev_chain *, uint64_t n);

/*
 * Header of block n with the fields of `salt` (a branch) on `parent`,
 * sealed with the nonce `steps` past the PRNG's start.
 */
void	 chain_build_header(const struct dev_chain *, uint64_t n,
	    uint64_t salt, const uint8_t *parent, uint32_t steps,
	    struct header *);
/*
 * Mine block n of `salt` on `parent`: the steps from the PRNG's nonce to
 * the first nonzero one whose hash meets `difficulty` (with valid 0, the
 * first that fails it, or -1 if none does within a bound, as at
 * difficulty 1).  0 for substrate blocks and genesis, which have no seal.
 */
int64_t	 chain_mine(const struct dev_chain *, uint64_t n, uint64_t salt,
	    const uint8_t *parent, uint64_t difficulty, int valid);
/* Difficulty and wall time of canonical block n (meta must exist). */
uint64_t chain_block_ms(const struct dev_chain *, uint64_t n);

/* dev_chain_side.c */
void	 chain_side_init(struct dev_chain *);
void	 chain_side_free(struct dev_chain *);
const struct dev_side *chain_side(const struct dev_chain *,
	    const struct dev_blkref *);

/* dev_cache.c */
uint64_t dev_cache_load(struct dev_chain *, uint64_t want);
void	 dev_cache_store(struct dev_chain *);

#endif
