/*
 * The simulated chain: a pure function of the seed and the chain
 * parameters (headers, hashes, miners, difficulty, runtime versions,
 * reorgs), revealed block by block as the wall clock passes the block's
 * time.  Views ("what a node with head H serves") are pure functions too,
 * so HTTP, WebSocket and every devnode with the same parameters agree.
 */
#ifndef DEV_CHAIN_H
#define DEV_CHAIN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "header.h"
#include "buf.h"

#define DEV_MINERS_MAX		64
#define DEV_SPEC_CHANGES_MAX	64
#define DEV_REORG_DEPTH_MAX	1000
/* QPoW.CurrentDifficulty at genesis unless --difficulty says otherwise. */
#define DEV_DIFFICULTY_DEFAULT	4

/*
 * A scheduled reorg at height R, depth d: the branch a node shows first
 * (R-d+1..R, or ..R+1 when the second is shorter) and the second one,
 * which comes when block R+1 is due (R+2 when it is shorter).  Its shape:
 * heavier, one block longer at the same difficulty; lighter, one block
 * longer while the first has three times the difficulty; shorter, one
 * block shorter with three times the difficulty.  The fork choice picks
 * the branch that is canonical: the heaviest or the longest.
 */
enum dev_reorg_work {
	REORG_HEAVIER = 0,
	REORG_LIGHTER,
	REORG_SHORTER,
};

enum dev_fork_choice {
	FORK_HEAVIEST = 0,
	FORK_LONGEST,
};

/* Everything that decides what the chain contains. */
struct dev_chain_params {
	enum chain_format format;
	uint8_t		 seed[32];	/* blake2b-256 of the --seed text */
	unsigned	 n_miners;
	uint32_t	 weights[DEV_MINERS_MAX];
	uint64_t	 difficulty0;	/* QPoW.CurrentDifficulty at genesis */
	uint64_t	 min_difficulty;	/* the retarget rule's clamp */
	uint64_t	 reorg_every;	/* 0: never */
	unsigned	 reorg_min;	/* depth range, 1..100, < reorg_every */
	unsigned	 reorg_max;
	enum dev_reorg_work  reorg_work;
	enum dev_fork_choice fork_choice;
	uint32_t	 spec_version0;
	unsigned	 n_spec;
	struct {
		uint64_t	height;		/* >= 1, increasing */
		uint32_t	version;
	}		 spec[DEV_SPEC_CHANGES_MAX];
};

/* When blocks appear; none of it changes a block's hash. */
struct dev_chain_timing {
	uint64_t	block_ms;
	uint64_t	start_ms;	/* wall time of block number backlog */
	uint64_t	backlog;
	uint64_t	finality_lag;
};

/*
 * A block: branch 0 is the canonical chain, else the reorg height R, or
 * DEV_BRANCH_SIDE | i for side block i (a split's branch, a forgery).
 */
struct dev_blkref {
	uint64_t	number;
	uint64_t	branch;
};

#define DEV_BRANCH_SIDE		(1ull << 63)

static inline int
dev_blkref_side(const struct dev_blkref *ref)
{
	return (ref->branch & DEV_BRANCH_SIDE) != 0;
}

/*
 * The split fault: from `base`, the devnode mines its own branch of
 * side blocks first..first+len-1 (numbers base+1..base+len).
 */
struct dev_split_state {
	int		on;
	uint64_t	epoch;		/* 1, 2, ...: one per split */
	uint64_t	base_pos;	/* the chain's position it left at */
	uint64_t	base;
	uint64_t	first;
	uint64_t	len;
};

struct dev_chain;

/* Miner weights (1..100) derived from the seed, for --miners N alone. */
void	 dev_chain_default_weights(struct dev_chain_params *);

struct dev_chain *dev_chain_new(const struct dev_chain_params *,
	    const struct dev_chain_timing *, const char *cache_dir,
	    const char *name);
void	 dev_chain_free(struct dev_chain *);

/*
 * The initial generation, up to the wall clock (run in its own thread):
 * load what the cache has, hash the rest, then mark the chain synced and
 * write the cache.  Returns early, unsynced, if *cancel becomes set.
 */
void	 dev_chain_sync(struct dev_chain *, atomic_int *cancel,
	    void (*ready)(struct dev_chain *));
int	 dev_chain_synced(const struct dev_chain *);
/* Blocks in memory so far (during the sync this grows). */
uint64_t dev_chain_count(const struct dev_chain *);
const char *dev_chain_name(const struct dev_chain *);
enum chain_format dev_chain_format(const struct dev_chain *);
const struct dev_chain_params *dev_chain_params(const struct dev_chain *);
const struct dev_chain_timing *dev_chain_timing(const struct dev_chain *);
/* Seconds the sync took and how many blocks came from the cache. */
void	 dev_chain_sync_stats(const struct dev_chain *, double *secs,
	    uint64_t *cached, uint64_t *hashed);

/*
 * After the sync, from one thread only: generate the blocks whose time
 * has come.  Returns 1 if the head moved.
 */
int	 dev_chain_tick(struct dev_chain *, uint64_t now_ms);
/* Wall time at which the next block is due. */
uint64_t dev_chain_next_ms(struct dev_chain *);
/* The live head: the highest block whose time has come. */
uint64_t dev_chain_head(const struct dev_chain *);

/*
 * Views take `head`, the chain's position (the highest block whose time
 * has come); the best block they show is numbered dev_chain_tip(head),
 * which is head but at the moment a shorter branch wins.
 */
uint64_t dev_chain_tip(const struct dev_chain *, uint64_t head);
/* The best block at height n of a view with head `head`; -1 if none. */
int	 dev_chain_block_at(const struct dev_chain *, uint64_t head,
	    uint64_t n, struct dev_blkref *);
/* A block the view knows, by hash; -1 if unknown to it. */
int	 dev_chain_lookup(const struct dev_chain *, uint64_t head,
	    const uint8_t hash[32], struct dev_blkref *);
/* 1 if the block is on the best chain of the view. */
int	 dev_chain_is_best(const struct dev_chain *, uint64_t head,
	    const struct dev_blkref *);
uint64_t dev_chain_finalized(const struct dev_chain *, uint64_t head);

void	 dev_chain_hash(const struct dev_chain *, const struct dev_blkref *,
	    uint8_t out[32]);
void	 dev_chain_genesis(const struct dev_chain *, uint8_t out[32]);
void	 dev_chain_header(const struct dev_chain *, const struct dev_blkref *,
	    struct header *);
/* The RPC JSON of the header, written without jansson (hot path). */
void	 dev_chain_header_json(const struct dev_chain *,
	    const struct dev_blkref *, struct buf *);
/* The same from a header, for tests against header_to_json. */
void	 dev_chain_header_json_of(enum chain_format, const struct header *,
	    struct buf *);

/* Names for the command line and the log. */
const char *dev_reorg_work_name(enum dev_reorg_work);
const char *dev_fork_choice_name(enum dev_fork_choice);

/* State of a block (QPoW.CurrentDifficulty, Timestamp.Now, version). */
uint64_t dev_chain_difficulty(const struct dev_chain *,
	    const struct dev_blkref *);
uint64_t dev_chain_timestamp(const struct dev_chain *,
	    const struct dev_blkref *);
uint32_t dev_chain_spec_version(const struct dev_chain *, uint64_t n);
/* The miner of a block, as an index into the miner table. */
unsigned dev_chain_miner(const struct dev_chain *, const struct dev_blkref *);
void	 dev_chain_preimage(const struct dev_chain *, unsigned miner,
	    uint8_t out[32]);

/*
 * 1 if a quantus header's seal is well formed and its nonce hash meets
 * `difficulty` (its parent's), as a node's import judges it.
 */
int	 dev_chain_seal_meets(const struct header *, uint64_t difficulty);

/*
 * Side blocks (dev_chain_side.c): a header numbered `number` on `parent`
 * whose other fields come from `salt` (distinct salts, distinct hashes),
 * with the difficulty and timestamp its state answers, and a seal mined
 * at the parent's difficulty (one that fails it with bad_seal).  Any
 * thread; 0 and the block's ref, or -1 when the side store is full or no
 * failing seal is found.
 */
struct dev_side_spec {
	uint64_t	number;
	uint8_t		parent[32];
	uint64_t	salt;
	uint64_t	difficulty;
	uint64_t	ts_ms;
	uint64_t	parent_difficulty;
	int		bad_seal;
};
int	 dev_chain_side_add(struct dev_chain *, const struct dev_side_spec *,
	    struct dev_blkref *);
/* A side block by hash: 0 and its ref, or -1. */
int	 dev_chain_side_lookup(const struct dev_chain *, const uint8_t hash[32],
	    struct dev_blkref *);
uint64_t dev_chain_side_count(const struct dev_chain *);

/*
 * The split: start one from the best block of the view at position
 * `base_pos` (nothing if one runs), stop it, read it.  Its blocks come at half the chain's
 * rate, from the main loop's tick: 1 if the split's head moved.
 */
void	 dev_chain_split_start(struct dev_chain *, uint64_t base_pos,
	    uint64_t now_ms);
void	 dev_chain_split_stop(struct dev_chain *);
void	 dev_chain_split_get(const struct dev_chain *, struct dev_split_state *);
int	 dev_chain_split_tick(struct dev_chain *, uint64_t now_ms);
/* Wall time of the split's next block; 0 if no split runs. */
uint64_t dev_chain_split_next_ms(struct dev_chain *);

/*
 * The reorg whose losing branch holds height n, if any: 1 and R, depth.
 * The losing branch's blocks are branch R; the winning one's branch 0.
 */
int	 dev_chain_reorg_window(const struct dev_chain *, uint64_t n,
	    uint64_t *r, unsigned *depth);

#endif
