/*
 * What the devnode's modules share: the configuration from the command
 * line and the views (which chain, which head) each transport answers
 * from.  Defined in dev_main.c.
 */
#ifndef DEV_H
#define DEV_H

#include <stdint.h>

#include "buf.h"
#include "dev_chain.h"
#include "dev_fault.h"

struct dev_conf {
	const char	*listen;
	const char	*control_listen;
	const char	*port_file;
	const char	*control_port_file;
	const char	*seed_text;
	const char	*cache_dir;
	const char	*chain_name;
	struct dev_chain_params	 params;
	struct dev_chain_timing	 timing;
	int		 start_time_set;
	uint64_t	 state_pruning;		/* 0: archive */
	int		 pruned_null;
	uint64_t	 ping_ms;		/* 0: never */
	unsigned	 threads;
	uint64_t	 max_request;		/* bytes */
};

extern struct dev_conf	dev_conf;

/*
 * What a request is answered from: a chain and its head, or, while the
 * split fault is on, the split's own branch above split.base.
 */
struct dev_view {
	struct dev_chain	*chain;
	uint64_t		 pos;		/* the chain's position */
	uint64_t		 head;		/* the best block's number */
	int			 syncing;
	int			 wrong_genesis;
	struct dev_split_state	 split;		/* split.on: a split view */
	unsigned		 lies;		/* bit per fault: lie[] made */
	struct dev_blkref	 lie[FAULT__COUNT];
};

void	dev_view_get(const struct dev_fault_view *, struct dev_view *);

/* dev_view.c: the dev_chain questions, asked of a view. */
int	dev_view_block_at(const struct dev_view *, uint64_t n,
	    struct dev_blkref *);
int	dev_view_lookup(const struct dev_view *, const uint8_t hash[32],
	    struct dev_blkref *);
int	dev_view_is_best(const struct dev_view *, const struct dev_blkref *);
uint64_t dev_view_finalized(const struct dev_view *);
/* 1 if two views show the same block at height n. */
int	dev_view_same_block(const struct dev_view *, const struct dev_view *,
	    uint64_t n);
/*
 * The lies of a view, for one answer: the forged head to serve instead
 * of the best block (1, the first head lie that is on and hits), the
 * finalized block, the block to answer instead of `asked` (wrong_header).
 */
int	dev_view_forged_head(const struct dev_view *,
	    const struct dev_fault_view *, struct dev_blkref *);
void	dev_view_finalized_ref(const struct dev_view *,
	    const struct dev_fault_view *, struct dev_blkref *);
int	dev_view_wrong_block(const struct dev_view *,
	    const struct dev_fault_view *, struct dev_blkref *);

/* dev_lie.c: the forgeries of the lying faults. */
void	dev_lie_make(const struct dev_view *, enum dev_fault_id, uint64_t arg);
void	dev_lie_view(const struct dev_fault_view *, struct dev_view *);
/* {"forge_head": {"number": N, "hash": H}, ...} for the lies on. */
void	dev_lie_status_json(const struct dev_view *, struct buf *);
/* The devnode's state for dev_status and GET /control. */
void	dev_status_json(struct buf *);
/* Wake the main loop (faults changed, sockets to take over, ...). */
void	dev_main_wakeup(void);

#endif
