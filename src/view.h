/*
 * libcwview.a: what chainwatchd keeps, read by the programs that show it
 * (chainwatch and chainwatch-metrics), so that both say the same.
 * view_db.c opens the store read-only and reads its chains, view_status.c
 * judges each chain ok, degraded, stalled or unreachable, view_forks.c
 * groups the endpoints' tips into branches and reads the splits,
 * view_fmt.c has the times and JSON values they share; view_ctl.h is the
 * control socket.
 */
#ifndef CW_VIEW_H
#define CW_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "forks.h"
#include "u512.h"

/*
 * Where this module's errors go, one line each without the newline
 * ("PATH: reading chains: database is locked").  Set once at start,
 * before any other view_ call; unset, they go to log_warnx().
 */
typedef void	view_err_fn(const char *msg);
void	view_set_err(view_err_fn *);
/* Report through it. */
void	view_err(const char *, ...) __attribute__((format(printf, 1, 2)));

/*
 * Where SQLite keeps what outgrows its cache (a sort of some 20 000 rows
 * on: the standings of a window of a real chain, chainwatch verify): a
 * file in its temporary directory, or memory, as large as the rows sorted.
 */
enum view_temp {
	VIEW_TEMP_FILE,		/* /var/tmp, or $SQLITE_TMPDIR, $TMPDIR */
	VIEW_TEMP_MEMORY	/* PRAGMA temp_store = MEMORY */
};

struct view_db {
	sqlite3		*db;
	const char	*path;
	const char	*socket;	/* chainwatchd's control socket */
	enum view_temp	 temp;
	const char	*pidfile;	/* chainwatchd's pidfile, or NULL */
	/*
	 * Whether chainwatchd runs, asked once per command (view_ctl.h's
	 * view_daemon_running): asked, its answer, and its "status" answer
	 * (NULL unless it answered), for the caller to json_decref.
	 */
	int		 daemon_asked, daemon_running;
	struct json_t	*daemon_status;
};

struct view_chain {
	int64_t		 id;
	char		*name;
	int		 has_best, has_final, has_updated;
	int64_t		 best_number, final_number;
	int64_t		 updated_at;	/* ms */
};

/*
 * Open path read-only, its temporary storage where temp says, check its
 * schema version, and register u512_sum.  Returns CW_EXIT_OK, or an exit
 * code after saying why through view_err.
 */
int	view_db_open(struct view_db *, const char *path, enum view_temp temp);
void	view_db_close(struct view_db *);
/* One read transaction, so every query sees the same snapshot. */
int	view_db_begin(struct view_db *);
void	view_db_end(struct view_db *);
/*
 * The store's PRAGMA data_version on this connection, outside a
 * transaction: it moves whenever another connection (chainwatchd) has
 * committed, so an answer built at one value holds while it stays.
 * Values of two connections do not compare.  Returns 0, or -1 after
 * view_db_err.
 */
int	view_db_data_version(struct view_db *, int64_t *);
/* Report the last SQLite error of what, with the file's path. */
void	view_db_err(const struct view_db *, const char *what);
/* Prepare sql.  Returns 0, or -1 after view_db_err(what). */
int	view_db_prepare(struct view_db *, const char *what, const char *sql,
	    sqlite3_stmt **);
/*
 * Finalize a statement; ok says whether its last step ended as it should
 * (SQLITE_DONE after rows, SQLITE_ROW for one).  Returns 0, or -1 after
 * view_db_err(what).
 */
int	view_db_finish(struct view_db *, const char *what, sqlite3_stmt *,
	    int ok);

/*
 * Every stored chain, by name.  Returns CW_EXIT_OK or an exit code; *out
 * is an array of *n chains for view_chains_free.
 */
int	view_chains_load(struct view_db *, struct view_chain **out, size_t *n);
void	view_chains_free(struct view_chain *, size_t);
/*
 * The chain called name, or NULL after an error that names the known
 * chains.
 */
const struct view_chain *view_chain_find(const struct view_db *,
	    const struct view_chain *, size_t, const char *name);
/*
 * How every view starts: view_db_begin, view_chains_load, and with a name
 * (not NULL) view_chain_find, whose chain goes in *one (NULL: every chain
 * is shown).  Returns CW_EXIT_OK inside the transaction, or an exit code
 * (CW_EXIT_USAGE for a chain not found) with the transaction ended and
 * nothing to free.
 */
int	view_chains_begin(struct view_db *, const char *name,
	    struct view_chain **out, size_t *n, const struct view_chain **one);
/*
 * 1 when every configured endpoint of the chain is open or half-open (so
 * its standings are stale), with the endpoint that brought the last head
 * in last; 0 when not; -1 on a read error.
 */
int	view_chain_stale(struct view_db *, const struct view_chain *,
	    char *last, size_t lastlen);

/*
 * view_ctl.c: whether chainwatchd runs, asked once and kept in c: 1, with
 * its "status" answer in c->daemon_status; 0 not running; -1 cannot tell
 * (also without a socket to ask).  The control socket first: nothing
 * listening there is not running.  When it cannot tell (no permission, no
 * answer in time), the pidfile (c->pidfile, if set): none, or its process
 * gone, is not running; a live process is running (daemon_status NULL
 * then), so that a daemon whose socket we may not open is told right.
 */
int	view_daemon_ask(struct view_db *c);

/* A text column as a string to free, or NULL for NULL. */
char	*view_col_dup(sqlite3_stmt *, int col);
/* An integer column that may be NULL: 1 and *v when it is not. */
int	 view_col_int(sqlite3_stmt *, int col, int64_t *v);

/* view_status.c: each chain's status, as chainwatch status shows it. */
struct view_split;
enum view_status {
	VIEW_STATUS_OK,
	VIEW_STATUS_DEGRADED,
	VIEW_STATUS_STALLED,
	VIEW_STATUS_UNREACHABLE,
};

/* "ok", "degraded", "stalled", "unreachable". */
const char *view_status_name(enum view_status);

/*
 * How an endpoint keeps up with its chain, from its last head and when it
 * came (the endpoints table) against the chain's best (chains) and when
 * the chain went past that head (blocks.first_seen of the canonical block
 * one above it).  Pure; the clock is passed in.
 *
 * behind	the endpoint's head is VIEW_BEHIND_BLOCKS or more below the
 *		chain's best, and the chain went past it VIEW_BEHIND_TIMES
 *		block times ago or more (VIEW_LAG_MIN_MS at least): a node
 *		still syncing, or one that lost its peers.  Both, so that
 *		neither a burst of quick blocks nor one slow block makes an
 *		endpoint behind: only being blocks behind for a while does.
 * stuck	no new head from it for VIEW_STUCK_TIMES block times
 *		(VIEW_LAG_MIN_MS at least) while the chain went on without
 *		it for VIEW_LAG_MIN_MS or more: its node stopped following.
 *		A stuck endpoint is behind too; stuck is the one said.
 *
 * The floor in milliseconds is for short block times: a polled endpoint
 * sees a new head up to a poll later (PROTO_POLL_MAX_MS, 2 s) plus the
 * time its answer takes, which at 300 ms blocks is several blocks.
 */
#define VIEW_BEHIND_BLOCKS	3
#define VIEW_BEHIND_TIMES	3
#define VIEW_STUCK_TIMES	5
#define VIEW_LAG_MIN_MS		5000

enum view_lag {
	VIEW_LAG_UNKNOWN,	/* no head from it yet, or no best */
	VIEW_LAG_OK,
	VIEW_LAG_BEHIND,
	VIEW_LAG_STUCK,
};

/* What the store has of one endpoint's head; has_* say what is known. */
struct view_head {
	int		 has_best, has_head_at, has_passed;
	int64_t		 best_number;	/* its highest head */
	int64_t		 head_at;	/* ms: its last new head came then */
	int64_t		 passed_at;	/* ms: the chain's block one above
					 * best_number was first seen */
};

/*
 * Judge h against chain ch (block_time in ms) as of now.  *blocks is how
 * far below the best it is (0 when not), *since when that began: the
 * chain went past it (behind), its last new head (stuck); 0 else.
 *
 * highest is the highest head any configured endpoint of the chain has
 * on record (-1: none).  The chain's best is measured against it no
 * higher: every block came from some endpoint, so a best above all of
 * them says the record of their heads is late (heads that came as
 * claims and connected later), not that every endpoint fell behind.
 */
enum view_lag view_lag_judge(const struct view_chain *ch, int64_t highest,
	    int64_t block_time, const struct view_head *h, int64_t now,
	    int64_t *blocks, int64_t *since);
/* "ok", "behind", "stuck"; NULL for VIEW_LAG_UNKNOWN. */
const char *view_lag_name(enum view_lag);
/*
 * For people: "behind: 25 blocks below the best for 73 s", "stuck at
 * #3034: no new head for 2 min while the chain went on", "keeps up", or
 * "" when not known.
 */
void	view_lag_text(enum view_lag, int64_t blocks, int64_t best,
	    int64_t since, int64_t now, char *out, size_t outlen);
/*
 * The SQL for a view_head of endpoint row e: its head_at and passed_at,
 * for queries of "FROM endpoints e".
 */
#define VIEW_SQL_HEAD_AT	"nullif(max(coalesce(e.best_at, 0),"	\
	" coalesce(e.tip_at, 0)), 0)"
#define VIEW_SQL_PASSED_AT	"(SELECT b.first_seen FROM blocks b"	\
	" WHERE b.chain_id = e.chain_id AND b.canonical = 1 AND"	\
	" b.number = e.best_number + 1)"

/* An endpoint of a judged chain, as the store has it. */
struct view_endpoint {
	char		*name;
	char		*state;
	char		*reason;	/* NULL: none stored */
	int		 has_since, has_bound;
	int64_t		 since, pruning_bound;
	int		 down;		/* open, half-open, down, quarantined */
	int		 doubted;	/* inconsistent: heard, not believed */
	int		 mute;		/* unresponsive: overdue while others
					 * answer */
	/* Its worker's last hang or death, if recent. */
	char		*trouble_kind, *trouble_detail;
	int64_t		 trouble_at;
	/* How it keeps up (view_lag_judge); counted only when not down,
	 * doubted or mute, which say more. */
	struct view_head head;
	enum view_lag	 lag;
	int64_t		 lag_blocks, lag_since;
	int		 lagging;	/* behind or stuck, and counted */
};

/* A chain's status, the line that says why, and its endpoints. */
struct view_verdict {
	const struct view_chain *ch;
	int64_t		 block_time;	/* ms */
	struct view_endpoint *eps;	/* configured ones, in their order */
	size_t		 n_eps, n_down, n_doubted, n_mute;
	char		*slow;		/* why every endpoint is slow, or NULL */
	int		 has_slow_since;
	int64_t		 slow_since;	/* ms */
	char		*unproven;	/* why every seal fails, or NULL */
	int		 has_unproven_since;
	int64_t		 unproven_since;	/* ms */
	int64_t		 unproven_blocks;	/* canonical, seal failing */
	char		*rule_doubt;	/* why timestamps are not judged */
	int		 has_rule_doubt_since;
	int64_t		 rule_doubt_since;	/* ms */
	char		*retarget;	/* whether difficulties are recomputed */
	enum view_status status;
	char		 headline[512];	/* what follows "name: status: " */
	size_t		 n_behind, n_stuck;
	/*
	 * The split the daemon has on record and not ended (splits, with
	 * its sides as split_sides has them), or split.id 0.
	 */
	struct view_split *split;
};

/*
 * Judge the chains (all, or the one named) as of now.  On CW_EXIT_OK,
 * *out holds *n verdicts, pointing into *chains, for
 * view_verdicts_free(); else an exit code, after saying why.
 */
int	view_status_judge(struct view_db *, const char *name,
	    struct view_chain **chains, size_t *nchains,
	    struct view_verdict **out, size_t *n);
void	view_verdicts_free(struct view_verdict *, size_t n,
	    struct view_chain *chains, size_t nchains);
/*
 * What `chainwatch status --json` prints, for one chain or all (name
 * NULL): {"chains": [...]}.  Returns CW_EXIT_OK or an exit code after
 * saying why.
 */
struct json_t;
int	view_status_json(struct view_db *, const char *name, struct json_t **);

/* view_forks.c: the endpoints' tips and the splits between them. */
struct view_fork_tip {
	char		*endpoint;
	int		 has_tip;	/* it announced a head */
	char		*hash;		/* "0x" + 64 digits, or NULL */
	struct forks_tip t;		/* number, at; kind and branch */
};

struct view_split_side {
	char		*endpoint;
	int64_t		 branch, tip_number;
	char		*tip_hash;
	int		 has_length, has_work_blocks;
	int64_t		 length, work_blocks;
	char		*work;		/* decimal, or NULL */
};

struct view_split {
	int64_t		 id, first_seen, last_seen, ended, branches;
	int		 has_ended, has_ancestor;
	int64_t		 ancestor_number;
	char		*ancestor_hash;
	struct view_split_side *sides;
	size_t		 n_sides;
};

struct view_forks {
	const struct view_chain *ch;
	int		 by_work;	/* quantus: work is difficulty */
	int64_t		 block_time;	/* ms */
	struct view_fork_tip *tips;	/* configured endpoints, in order */
	size_t		 n_tips;
	struct forks_result r;		/* their branches as of now */
	struct view_split *splits;	/* the last ones, newest first */
	size_t		 n_splits;
};

/*
 * One chain's tips as of now, grouped into branches, and its last
 * max_splits splits (0: none read).  Returns CW_EXIT_OK or an exit code
 * after saying why; *f is for view_forks_free either way.
 */
int	view_forks_load(struct view_db *, const struct view_chain *,
	    int64_t now, int64_t max_splits, struct view_forks *);
void	view_forks_free(struct view_forks *);
/* The newest split when it has not ended, or NULL. */
const struct view_split *view_split_open(const struct view_forks *);
/* The tip at the head of a branch (heads index the tips that have one). */
const struct view_fork_tip *view_fork_head_tip(const struct view_forks *,
	    size_t branch);
/* How far a side's tip was below the split's ancestor, 0 if not. */
int64_t	view_split_side_behind(const struct view_split *,
	    const struct view_split_side *);
/* One chain as `chainwatch forks --json` lists it. */
struct json_t *view_forks_json(const struct view_forks *);
/* "branch", "unknown", "stale". */
const char *view_tip_kind_name(enum forks_tip_kind);

/*
 * view_standings.c: the miners of one chain over a window, ranked by
 * blocks, then work, with the hashrate estimated from their work
 * (hashrate.h).  The window "all" reads the standings table; the others,
 * or final blocks only, sum the canonical blocks whose Timestamp.Now is
 * within the window before now.  Mined blocks only: the genesis counts
 * nowhere, and blocks without a miner (x'') are "unsealed", summed apart
 * and in no total, share or hashrate.
 */
enum view_window {
	VIEW_WINDOW_ALL,
	VIEW_WINDOW_1H,
	VIEW_WINDOW_24H,
	VIEW_WINDOW_7D,
	VIEW_NWINDOWS
};
extern const char *const view_window_name[VIEW_NWINDOWS];	/* "all", "1h" */

#define VIEW_ACCOUNT_MAX	32	/* bytes of a miner's account */

struct view_srow {
	uint8_t		 account[VIEW_ACCOUNT_MAX];
	size_t		 account_len;	/* > 0: rows never hold x'' */
	char		*name;		/* SS58 or hex */
	int64_t		 blocks, final_blocks;
	struct u512	 work;
	int		 has_range;
	int64_t		 first, last;
	int		 has_hashrate;
	double		 hashrate;	/* hashes per second */
};

struct view_standings {
	struct view_srow *rows;
	size_t		 n;
	int64_t		 total_blocks;	/* the rows' sum */
	struct u512	 work;		/* the rows' sum */
	struct view_srow unsealed;	/* blocks without a miner; name NULL */
	/* The span of the window's blocks (Timestamp.Now, ms). */
	int		 has_span;
	int64_t		 first_ms, last_ms;
	int		 has_hashrate;	/* the network's */
	double		 hashrate;
};

/*
 * Load them as of now (ms).  Returns CW_EXIT_OK or an exit code after
 * saying why; *s is for view_standings_free either way.
 */
int	view_standings_load(struct view_db *, const struct view_chain *,
	    enum view_window, int final_only, int64_t now,
	    struct view_standings *);
void	view_standings_free(struct view_standings *);
/*
 * What `chainwatch standings --json` prints, and the API's standings: the
 * rows from offset on, shown of them at most; stale and last as
 * view_chain_stale said; running is the "daemon_running" value, taken.
 */
struct json_t *view_standings_json(const struct view_chain *,
	    enum view_window, int final_only, const struct view_standings *,
	    size_t offset, size_t shown, int stale, const char *last,
	    struct json_t *running);
/* One row of s as the JSON of the views has it, ranked rank. */
struct json_t *view_srow_json(const struct view_standings *s,
	    const struct view_srow *, size_t rank);
/* Whether the row is of account ("0x" and lowercase hex). */
int	view_srow_is(const struct view_srow *, const char *account);
/*
 * One miner's record, /api/v1/.../miners/...: its row in each window of
 * s[VIEW_NWINDOWS] (null where it has none), name as the views show it.
 */
struct json_t *view_miner_json(const struct view_chain *, const char *name,
	    const char *account, const struct view_standings *s,
	    struct json_t *running);
/* A miner's name as the views show it: SS58, "unknown" or hex; to free. */
char	*view_miner_name(const uint8_t *account, size_t len,
	    const unsigned char *ss58);

/*
 * view_history.c: what happened over a past span, for the status page of
 * chainwatch-metrics: the endpoints' events, the chain's blocks in time
 * buckets, its last reorganisations.
 */
struct view_event {
	char		*endpoint, *kind, *detail;	/* detail may be NULL */
	int64_t		 at;				/* ms */
};
/*
 * The events of the chain's configured endpoints at or after since, in
 * time order, each preceded by the endpoint's last breaker or quarantine
 * event before since (closed, open, half-open, quarantined, released),
 * so that a timeline knows the state it starts in.  Returns CW_EXIT_OK
 * or an exit code; *out is for view_events_free either way.
 */
int	view_events_load(struct view_db *, const struct view_chain *,
	    int64_t since, struct view_event **out, size_t *n);
void	view_events_free(struct view_event *, size_t);

/*
 * One time bucket of canonical blocks: those whose Timestamp.Now falls
 * in [start, start + width), each with the block one lower stored, so
 * that its block time (the difference of their timestamps) is known.
 */
struct view_bucket {
	int64_t		 start;		/* ms */
	int64_t		 blocks;
	double		 difficulty;	/* their sum (difficulty_f) */
	int64_t		 time_ms;	/* the sum of their block times */
};
/*
 * n buckets of equal width from since to until.  Returns CW_EXIT_OK or
 * an exit code after saying why; out holds n buckets.
 */
int	view_buckets_load(struct view_db *, const struct view_chain *,
	    int64_t since, int64_t until, struct view_bucket *out, size_t n);

struct view_reorg {
	int64_t		 at, depth, ancestor_number;
	char		*old_tip, *new_tip;	/* "0x" + hex */
	char		*seen_by;		/* NULL: not known */
};
/* The chain's last max reorgs, newest first; *out for view_reorgs_free. */
int	view_reorgs_load(struct view_db *, const struct view_chain *,
	    int64_t max, struct view_reorg **out, size_t *n);
void	view_reorgs_free(struct view_reorg *, size_t);
/* /api/v1/.../reorgs: n of them, newest first; running is taken. */
struct json_t *view_reorgs_json(const struct view_chain *,
	    const struct view_reorg *, size_t n, struct json_t *running);

/* view_blocks.c: the blocks of a chain, as chainwatch blocks shows them. */
struct view_block {
	int64_t		 number;
	char		*hash, *parent;	/* "0x" + 64 digits */
	char		*miner;		/* SS58, "unknown" or hex */
	char		*account;	/* hex, NULL for no miner */
	char		*endpoint;	/* that brought it first */
	int		 canonical, final, runtime_updated;
	int		 has_difficulty, has_ts, has_state_at;
	struct u512	 difficulty;
	int64_t		 ts, first_seen, state_at;
	int		 proven;	/* its seal meets the difficulty at
					 * its parent: 1, 0, -1 not known */
};

struct view_blocks {
	struct view_block *v;		/* newest first, canonical first */
	size_t		 n, heights, reorged;
};

/*
 * Every block of the last heights stored (last > 0), or of the numbers
 * from to to (last 0).  Returns CW_EXIT_OK or an exit code after saying
 * why; *b (zeroed by the caller) is for view_blocks_free either way.
 */
int	view_blocks_load(struct view_db *, const struct view_chain *,
	    int64_t last, int64_t from, int64_t to, struct view_blocks *);
void	view_blocks_free(struct view_blocks *);
const char *view_block_pow(const struct view_block *);
/* "reorged", "final", or "provisional" ("prov" for people). */
const char *view_block_state(const struct view_block *, int people);
/*
 * What `chainwatch blocks --json` prints and /api/v1/.../blocks answers;
 * running is the "daemon_running" value, taken.
 */
struct json_t *view_blocks_json(const struct view_chain *, int64_t last,
	    int64_t from, int64_t to, const struct view_blocks *,
	    struct json_t *running);

/* view_eps.c: the endpoints of a chain, as chainwatch endpoints shows them. */
struct view_ep {
	const struct view_chain *ch;
	char		*name, *state, *reason, *rpc_url, *ws_url;
	char		*spec_name, *system_chain;
	int64_t		 position;
	int		 has_since, has_best, has_best_at, has_lag, has_bound;
	int		 has_spec;
	int64_t		 since, best, best_at, lag_ms, pruning_bound;
	int64_t		 spec_version;
	int64_t		 heads_first, heads_seen, restarts;
	int64_t		 seals_failed;	/* blocks it served first, failing */
	int64_t		 block_time;	/* the chain's, ms */
	struct view_head head;
	enum view_lag	 lag;		/* view_lag_judge as of now */
	int64_t		 lag_blocks, lag_since;
};

struct view_eps {
	struct view_ep	*v;
	size_t		 n;
};

/*
 * The configured endpoints of ch, in their order, judged as of now.
 * Returns CW_EXIT_OK or an exit code after saying why; *e (zeroed by the
 * caller) is for view_eps_free either way.
 */
int	view_eps_load(struct view_db *, const struct view_chain *, int64_t now,
	    struct view_eps *);
void	view_eps_free(struct view_eps *);
/* How many blocks its last head is below the chain's best: 1 and *behind. */
int	view_ep_behind(const struct view_ep *, int64_t *behind);
/* One endpoint as `chainwatch endpoints --json` lists it. */
struct json_t *view_ep_json(const struct view_ep *);
/*
 * `chainwatch endpoints --json`: {"daemon_running", "endpoints"} of the
 * n chains' endpoints e; running is the first's value, taken.
 */
struct json_t *view_eps_json(const struct view_eps *e, size_t n,
	    struct json_t *running);

/* view_fmt.c */
/* "2025-01-02T03:04:05Z"; out must hold 32 bytes. */
void	view_time_iso(int64_t ms, char *out, size_t outlen);
/*
 * Times for people are ages, one function for every view: "12 s ago",
 * "3 min ago", "2 h ago", "4 d ago" for ms milliseconds in the past, "40 s
 * ahead" in the future (a clock that is off); milliseconds under 10 s
 * when not a whole second ("500 ms", as a block_time of 500ms was
 * written), seconds up to 119, minutes up to 119, hours up to 47.  view_span is the same without direction:
 * "25 min".  view_age is an age without direction: whole seconds from a
 * second on ("2 s", not "2762 ms"), as how long a state has lasted.
 */
#define VIEW_AGE_LEN	32
void	view_ago(int64_t ms, char *out, size_t outlen);
void	view_age(int64_t ms, char *out, size_t outlen);
void	view_span(int64_t ms, char *out, size_t outlen);
/* A JSON string, or null for NULL or text that is not valid UTF-8. */
struct json_t *view_jstr(const char *);
/* An integer, or null when has is 0. */
struct json_t *view_jint(int has, int64_t);
/*
 * A time twice in object o: key name in ISO 8601 UTC, and name_ms in
 * milliseconds since the epoch; both null when has is 0.
 */
void	view_jtime(struct json_t *o, const char *name, int has, int64_t ms);
/*
 * What every answer about one chain starts with: chain, daemon_running
 * (running, taken), best_number, final_number and as_of.
 */
void	view_jhead(struct json_t *o, const struct view_chain *,
	    struct json_t *running);

#endif
