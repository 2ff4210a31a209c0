/*
 * chainwatch-metrics: the Prometheus exposition and /health of chainwatch,
 * served by a process of its own.  mtr_gather.c collects one snapshot from
 * chainwatchd's control socket and the store, mtr_expo.c and mtr_health.c
 * turn it into text, mtr_http.c serves it, mtr_main.c sets everything up.
 */
#ifndef CW_MTR_H
#define CW_MTR_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "outcome.h"

#define MTR_BUCKETS_MAX	32	/* latency bounds taken from the supervisor */
#define MTR_NKINDS	4	/* queue kinds: headers, parent, state, runtime */
#define MTR_NQSTATES	2	/* queue states: pending, leased */
#define MTR_NWINDOWS	4	/* view_window: all, 1h, 24h, 7d */

extern const char *const mtr_queue_kinds[MTR_NKINDS];
extern const char *const mtr_queue_states[MTR_NQSTATES];
extern const char *const mtr_breaker_states[];	/* NULL-terminated */
extern const char *const mtr_endpoint_states[];	/* NULL-terminated */
extern const char *const mtr_chain_statuses[];	/* NULL-terminated */
extern const char *const mtr_window_names[MTR_NWINDOWS]; /* "all", "1h" */

/* One endpoint as the store and the supervisor see it; has_* say which. */
struct mtr_endpoint {
	char		*name;
	char		*chain;
	/* The store (endpoints table, queue). */
	int		 in_store;
	char		 state[16];		/* as chainwatch status shows */
	int		 has_best, has_lag_blocks, has_lag;
	int64_t		 best_number;
	int64_t		 lag_blocks;		/* chain best - its best */
	int64_t		 lag_ms;
	int64_t		 heads_seen, heads_first;
	int64_t		 seals_failed;	/* blocks it served first, failing */
	int64_t		 restarts_stored;
	int64_t		 leased;		/* queue items leased to it */
	/* The supervisor (control socket "metrics"). */
	int		 in_sup;
	uint64_t	 requests[OUTCOME_COUNT];
	int		 has_hist;
	size_t		 n_le;
	double		 le[MTR_BUCKETS_MAX];
	uint64_t	 cumulative[MTR_BUCKETS_MAX + 1];	/* last: +Inf */
	double		 sum_seconds;
	char		 breaker[16];		/* live breaker state */
	uint64_t	 restarts, rss_bytes, heap_bytes, inflight, hedges;
	int		 ready;
};

struct mtr_chain {
	char		*name;
	int		 in_store;
	int		 status;		/* into mtr_chain_statuses */
	int		 slow;			/* every endpoint slow */
	int		 has_best, has_final, has_updated;
	int64_t		 best_number, final_number, updated_at;
	uint64_t	 q_items[MTR_NKINDS][MTR_NQSTATES];
	uint64_t	 q_blocks[MTR_NKINDS][MTR_NQSTATES];
	int		 has_tips;
	int64_t		 tips;			/* branches its tips are on */
	int		 in_sup;
	uint64_t	 blocks_ingested, hedges, hedges_won, seals_failed;
	/* Estimated hashrate (hashes/s) per view_window, from the store. */
	int		 has_hashrate[MTR_NWINDOWS];
	double		 hashrate[MTR_NWINDOWS];
};

/* A miner's estimated hashrate over one of the windows MTR_MINER_WINDOWS. */
struct mtr_miner {
	char		*chain, *name;
	int		 window;		/* a view_window */
	double		 hashrate;
};

/* Everything one scrape shows, gathered at one moment. */
struct mtr_snap {
	int			 sup_up;	/* the supervisor answered */
	int			 store_up;	/* the store was read */
	/* chainwatchd's store: "" when unknown, else ok, locked,
	 * disk-full or io-error, with the messages waiting for it. */
	char			 store_blocked[16];
	uint64_t		 store_waiting;
	uint64_t		 store_cache;	/* chainwatchd's page cache, bytes */
	int			 has_sup_heap;
	uint64_t		 sup_heap;	/* chainwatchd's heap in use */
	uint64_t		 heap;		/* this server's, at the scrape */
	int			 has_cache;
	uint64_t		 cache;		/* this server's page cache */
	int64_t			 now;		/* wall clock, ms */
	double			 gather_seconds;
	struct mtr_chain	*chains;
	size_t			 n_chains;
	struct mtr_endpoint	*eps;
	size_t			 n_eps;
	struct mtr_miner	*miners;	/* 1h and 24h windows */
	size_t			 n_miners;
	struct json_t		*status;	/* view_status_json() or NULL */
};

/* mtr_gather.c: paths set once by main before any thread starts. */
struct mtr_source {
	const char	*database;
	const char	*control_socket;
};
void	mtr_gather_init(const struct mtr_source *);
int	mtr_gather_open_store(void);
void	mtr_gather(struct mtr_snap *);
void	mtr_snap_free(struct mtr_snap *);
void	mtr_gather_close(void);

/* mtr_expo.c: the Prometheus text format, version 0.0.4. */
void	mtr_expo(const struct mtr_snap *, struct buf *);
void	mtr_fmt_double(double, char *, size_t);

/* mtr_health.c: the /health body and its HTTP status. */
unsigned mtr_health(const struct mtr_snap *, struct buf *);

/*
 * mtr_page.c: the status page at /, from the store, as of now (ms).
 * Returns the HTTP status: 200, or 503 when the store cannot be read.
 */
#define MTR_PAGE_REFRESH	10	/* seconds between its reloads */
struct view_db;
unsigned mtr_page(struct view_db *, int64_t now, struct buf *);
/* mtr_gather.c: the page through the snapshot's store connection. */
unsigned mtr_gather_page(struct buf *);

/*
 * mtr_api.c: /api/v1/.  The request: its path, its time, and how to read
 * its query parameters (param: the value of one, or NULL; unknown: the
 * name of one not in the NULL-terminated known, or NULL).
 */
#define MTR_API_LIMIT_MAX	1000
#define MTR_API_OFFSET_MAX	1000000
#define MTR_API_BLOCKS_MAX	10000	/* heights a blocks answer covers */
struct mtr_api_req {
	const char	*path;
	int64_t		 now;		/* wall clock, ms */
	void		*cls;
	const char	*(*param)(void *cls, const char *name);
	const char	*(*unknown)(void *cls, const char *const *known);
};
struct mtr_api_answer {
	struct mtr_api_req req;
	unsigned	 status;
	struct json_t	*body;		/* for the caller to json_decref */
	int64_t		 max_age;	/* seconds it may be cached */
};
/* Answer a->req from the store (NULL: it cannot be opened): returns a->status. */
unsigned mtr_api(struct view_db *, struct mtr_api_answer *);
/* mtr_gather.c: the same through the snapshot's store connection. */
unsigned mtr_gather_api(struct mtr_api_answer *);
/*
 * Which store mtr_gather_api would read now (mtr_apicache.h), opening
 * it if need be.  Returns 0, or -1 when it cannot tell.
 */
struct mtr_store_version;
int	mtr_gather_store_version(struct mtr_store_version *);

/* mtr_http.c */
/* cors_origin: the Access-Control-Allow-Origin of /api/, or NULL. */
int	mtr_http_start(int listen_fd, int ipv6, const char *cors_origin);
void	mtr_http_stop(void);

#endif
