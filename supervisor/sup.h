/*
 * chainwatchd, the supervisor: its workers, their state machine, and the
 * functions each supervisor file provides to the others.
 */
#ifndef CW_SUP_H
#define CW_SUP_H

#include <sys/types.h>

#include <ev.h>
#include <stdint.h>

#include "conf.h"
#include "header.h"
#include "msg.h"
#include "proto.h"
#include "sup_breaker.h"
#include "sup_fsm.h"

#define LAT_RING	64

/* A chain as the supervisor follows it (sup_chain.c). */
struct standing;
struct chain {
	int64_t			 id;
	char			 name[CONF_NAME_MAX + 1];
	enum chain_format	 format;
	uint64_t		 backfill_from;
	uint64_t		 block_time;		/* ms */
	uint64_t		 request_timeout;	/* ms */
	int			 have_best;
	int64_t			 best_number;
	uint8_t			 best_hash[32];
	int64_t			 final_number;		/* -1: none yet */
	int64_t			 finalized_reported;	/* substrate */
	int			 have_genesis;
	uint8_t			 genesis[32];
	struct standing		*st;
	size_t			 n_st;
	/* A best head whose branch lacks a parent below our best: the
	 * switch waits for it, so that a reorg is one transaction. */
	int			 have_pending;
	uint8_t			 pending_tip[32];
	/* State reads owed, gathered into ranges (sup_queue.c). */
	int64_t			 owed_from, owed_to;
	unsigned		 max_inflight;	/* requests per endpoint */
	uint64_t		 hedge_after;		/* ms */
	unsigned		 hedge_quantile;	/* percent, 0: off */
	/* Latencies (ms) of the last successful requests, by item kind,
	 * for the hedging delay. */
	uint32_t		 lat[4][LAT_RING];
	unsigned		 n_lat[4];
	uint64_t		 hedge_ms[4];	/* from lat[], when it changes */
	/* Counters for monitoring (sup_stats.c). */
	uint64_t		 blocks_ingested;
	uint64_t		 hedges, hedges_won;
};

/* Counters of one endpoint (sup_stats.c). */
#define STATS_BUCKETS	12	/* 11 bounds and +Inf */
extern const uint32_t stats_buckets_ms[STATS_BUCKETS - 1];
struct wstats {
	uint64_t	requests[OUTCOME_COUNT];
	uint64_t	latency[STATS_BUCKETS];	/* not cumulative */
	uint64_t	latency_sum_ms;
	uint64_t	hedges;		/* hedge requests it was sent */
};

struct worker {
	struct worker	*next;
	char		 name[CONF_NAME_MAX + 1];
	char		 chain[CONF_NAME_MAX + 1];
	void		*cfg;		/* encoded MSG_CONFIG body */
	size_t		 cfg_len;
	struct cfsm	 fsm;
	pid_t		 pid;
	int		 fd;
	uint32_t	 gen;
	uint64_t	 last_spawn;	/* monotonic ms */
	uint64_t	 last_msg;
	unsigned	 fails;		/* unplanned deaths in a row */
	unsigned	 restarts;	/* unplanned deaths, ever */
	uint64_t	 rss_kb;	/* from its last heartbeat */
	int64_t		 endpoint_id;	/* its row in the store */
	int		 ready;		/* facts came, genesis matches */
	unsigned	 inflight;	/* catch-up requests out */
	struct breaker	 brk;		/* its endpoint's health */
	int64_t		 pruning_bound;	/* no state at or below; -1 none */
	int		 position;	/* in its chain's config: preference */
	/* Why the endpoint cannot be used whatever its breaker says, and
	 * since when: its worker is down, or it serves another chain. */
	char		 down_reason[128];
	uint64_t	 down_since;
	char		 quarantine[160];
	uint64_t	 quarantine_since;
	struct wstats	 stats;
	struct msgq	 outq;
	ev_io		 io_r, io_w;
	ev_child	 child;
	ev_timer	 timer;		/* spawn, watchdog or grace */
};

/* chainwatchd.c */
extern struct conf	*sup_conf;
extern struct worker	*sup_workers;
extern int		 sup_stopping;
extern int		 sup_verbose;	/* -v: debug whatever the config says */
extern struct ev_loop	*sup_loop;

/* sup_spawn.c */
struct worker	*sup_worker_new(const struct conf *, const struct conf_chain *,
		    const struct conf_endpoint *);
void		 sup_worker_event(struct worker *, enum cevent);
void		 sup_worker_config(const struct conf *,
		    const struct conf_chain *, const struct conf_endpoint *,
		    void **, size_t *);
void		 sup_send(struct worker *, struct msgbuf *);
void		 sup_stop_all(void);
/*
 * In a child between fork and exec: close every descriptor above last,
 * and give the program a clean signal state.
 */
void		 sup_child_reset(int last);

/* sup_dispatch.c */
void		 sup_dispatch_worker(struct worker *, const void *, long);

/* sup_chain.c */
void		 sup_chains_load(const struct conf *);
void		 sup_chains_flush(void);
void		 sup_chains_free(void);
struct chain	*sup_chain_find(const char *);
int64_t		 sup_endpoint_sync(const struct conf *);
int64_t		 sup_endpoint_id(const char *name);
void		 sup_endpoint_info(struct worker *, const struct proto_info *);
void		 sup_endpoint_event(struct worker *, const char *kind,
		    const char *detail);
void		 sup_endpoint_pruned(struct worker *, int64_t number);
int64_t		 sup_endpoint_pruning_bound(int64_t endpoint_id);
void		 sup_chain_head(struct chain *, int64_t endpoint_id,
		    const struct proto_head *);
void		 sup_chain_fetched(struct chain *, int64_t endpoint_id,
		    const struct proto_header *);
void		 sup_chain_state(struct chain *, const uint8_t hash[32],
		    const uint8_t *difficulty, int64_t timestamp);
void		 sup_chain_runtime(struct chain *, const char *spec_name,
		    uint64_t spec_version, const uint8_t *at, int64_t number);
int		 sup_chain_genesis(struct chain *, const uint8_t genesis[32]);
int		 sup_chain_canonical(struct chain *, const uint8_t hash[32]);

/* sup_lease.c: the queue's timing, pure. */
#define LEASE_MARGIN_MS		2000
#define LEASE_BACKOFF_MIN_MS	1000
#define LEASE_BACKOFF_MAX_MS	300000
uint64_t	 lease_deadline(uint64_t now, uint64_t request_timeout);
int		 lease_expired(uint64_t deadline, uint64_t now);
uint64_t	 lease_retry_at(uint64_t now, unsigned attempts);
#define HEDGE_MIN_MS		50
#define HEDGE_MIN_SAMPLES	16	/* before the quantile is trusted */
uint64_t	 hedge_delay_ms(const uint32_t *lat, size_t n,
		    unsigned quantile, uint64_t hedge_after);

/* sup_health.c */
#define HEALTH_SHORT_TIMEOUT_MS	2000	/* when every endpoint is open */
void		 sup_health_init(struct worker *, const struct conf_chain *);
void		 sup_health_reconf(struct worker *, const struct conf_chain *);
void		 sup_health_outcome(struct worker *, uint32_t gen, enum outcome);
void		 sup_health_probe(struct worker *, enum outcome);
int		 sup_health_allow(struct worker *, int all_open,
		    unsigned *limit, uint32_t *deadline);
void		 sup_health_down(struct worker *, const char *why);
void		 sup_health_up(struct worker *);
void		 sup_health_quarantine(struct worker *, const char *why);

/* sup_queue.c */
void		 sup_queue_init(void);
void		 sup_queue_stop(void);
void		 sup_queue_kick(void);
void		 sup_queue_block_canonical(struct chain *, const uint8_t[32],
		    int64_t number, int has_difficulty, int runtime_updated);
void		 sup_queue_flush_owed_chain(struct chain *);
void		 sup_queue_block_left(struct chain *, const uint8_t hash[32]);
void		 sup_queue_missing(struct chain *, const uint8_t hash[32],
		    int64_t number);
int		 sup_queue_result(struct worker *, const struct msg *, char *,
		    size_t);
void		 sup_queue_worker_gone(struct worker *);
void		 sup_queue_endpoint_back(struct worker *);
void		 sup_queue_hedge_update(struct chain *);

/* sup_stats.c */
struct json_t;
void		 sup_stats_request(struct worker *, enum outcome,
		    uint64_t latency_ms);
struct json_t	*sup_stats_json(void);
struct json_t	*sup_chains_json(void);	/* sup_chain.c */

/*
 * sup_reload.c: SIGHUP and the control socket's reload share it;
 * sup_reload_result.c frees what it returns.
 */
struct reload_result {
	int		 ok;		/* 0: the file has errors */
	unsigned	 added, changed, removed, kept;
	char		**errors;	/* "FILE:LINE: message", when !ok */
	size_t		 n_errors;
	char		**warnings;	/* changes that take a restart */
	size_t		 n_warnings;
};
void		 sup_reload(struct reload_result *);
void		 sup_reload_result_free(struct reload_result *);

/*
 * sup_control.c: the control socket, for chainwatch(1) and the metrics
 * server.  One JSON request line in, one JSON object out, then close.
 */
#define CONTROL_CLIENTS_MAX	16	/* at a time; more are turned away */
#define CONTROL_LINE_MAX	4096	/* a request, its newline included */
#define CONTROL_TIMEOUT_MS	5000	/* for the request, then the answer */
int		 sup_control_check(const struct conf *);
int		 sup_control_init(const struct conf *);
void		 sup_control_stop(void);

/*
 * sup_metrics.c: chainwatch-metrics, the HTTP server for monitoring, run
 * as a child while metrics_listen is not "none".
 */
void		 sup_metrics_start(const struct conf *);
void		 sup_metrics_reload(const struct conf *);
void		 sup_metrics_stop(void);
void		 sup_metrics_wait(void);

/* sup_store.c: the SQL plumbing; statements are prepared once. */
struct store_stmt {
	const char		*sql;
	struct sqlite3_stmt	*st;
	struct store_stmt	*next;
};
int		 store_open(const char *path, int sync_full);
void		 store_close(void);
struct sqlite3_stmt *store_prepare(struct store_stmt *);
struct sqlite3_stmt *store_bind(struct store_stmt *, const char *, ...);
int		 store_run(struct sqlite3_stmt *);
int		 store_row(struct sqlite3_stmt *);
int		 store_col_blob(struct sqlite3_stmt *, int, void *, int);
int64_t		 store_last_id(void);
void		 store_write(void);
void		 store_maybe_flush(void);
void		 store_flush(void);

#endif
