/*
 * The chainwatch command-line tool: what its commands share.  chainwatch.c
 * parses the command line, cli_db.c opens the store read-only, cli_fmt.c
 * formats for people and for --json, and each command has its own file
 * (cli_standings.c, cli_verify.c, cli_status.c, cli_endpoints.c,
 * cli_queue.c, cli_blocks.c).
 */
#ifndef CW_CLI_H
#define CW_CLI_H

#include <stdint.h>

#include <sqlite3.h>

/* Beside util.h's codes: what verify exits with when it found any. */
#define CLI_EXIT_DIFFERENCES	1
/* What status exits with when a chain shown is not ok. */
#define CLI_EXIT_NOT_OK		1

struct cli_db {
	sqlite3		*db;
	const char	*path;
	const char	*socket;	/* chainwatchd's control socket */
};

struct cli_chain {
	int64_t		 id;
	char		*name;
	int		 has_best, has_final, has_updated;
	int64_t		 best_number, final_number;
	int64_t		 updated_at;	/* ms */
};

int	cli_chain_stale(struct cli_db *, const struct cli_chain *, char *last,
	    size_t lastlen);

enum cli_window {
	WINDOW_ALL,
	WINDOW_1H,
	WINDOW_24H,
	WINDOW_7D,
};

/* The command line of a view; each reads the options it takes. */
struct cli_opts {
	const char	*chain;		/* NULL: every chain */
	int		 json;
	enum cli_window	 window;	/* standings */
	int		 final_only;	/* standings */
	int64_t		 limit;		/* standings; 0: every miner */
	int64_t		 last;		/* blocks: heights, 1 or more */
};

/* "chainwatch: " + message on stderr. */
void	cli_err(const char *, ...) __attribute__((format(printf, 1, 2)));

/*
 * Open path read-only, check its schema version, and register u512_sum.
 * Returns CW_EXIT_OK, or an exit code after saying why on stderr.
 */
int	cli_db_open(struct cli_db *, const char *path);
void	cli_db_close(struct cli_db *);
/* One read transaction, so every query sees the same snapshot. */
int	cli_db_begin(struct cli_db *);
void	cli_db_end(struct cli_db *);
/* Report the last SQLite error of what, with the file's path. */
void	cli_db_err(const struct cli_db *, const char *what);
/* Prepare sql.  Returns 0, or -1 after cli_db_err(what). */
int	cli_db_prepare(struct cli_db *, const char *what, const char *sql,
	    sqlite3_stmt **);
/*
 * Finalize a statement; ok says whether its last step ended as it should
 * (SQLITE_DONE after rows, SQLITE_ROW for one).  Returns 0, or -1 after
 * cli_db_err(what).
 */
int	cli_db_finish(struct cli_db *, const char *what, sqlite3_stmt *,
	    int ok);

/*
 * Every stored chain, by name.  Returns CW_EXIT_OK or an exit code; *out
 * is an array of *n chains for cli_chains_free.
 */
int	cli_chains_load(struct cli_db *, struct cli_chain **out, size_t *n);
void	cli_chains_free(struct cli_chain *, size_t);
/*
 * The chain called name, or NULL after an error that names the known
 * chains.
 */
const struct cli_chain *cli_chain_find(const struct cli_db *,
	    const struct cli_chain *, size_t, const char *name);
/*
 * How every view starts: cli_db_begin, cli_chains_load, and with a name
 * (not NULL) cli_chain_find, whose chain goes in *one (NULL: every chain
 * is shown).  Returns CW_EXIT_OK inside the transaction, or an exit code
 * (CW_EXIT_USAGE for a chain not found) with the transaction ended and
 * nothing to free.
 */
int	cli_chains_begin(struct cli_db *, const char *name,
	    struct cli_chain **out, size_t *n, const struct cli_chain **one);

/* A text column as a string to free, or NULL for NULL. */
char	*cli_col_dup(sqlite3_stmt *, int col);
/* An integer column that may be NULL: 1 and *v when it is not. */
int	 cli_col_int(sqlite3_stmt *, int col, int64_t *v);

/* "2025-01-02T03:04:05Z"; out must hold 32 bytes. */
void	cli_time_iso(int64_t ms, char *out, size_t outlen);
/*
 * Times for people are ages, one function for every view: "12 s ago",
 * "3 min ago", "2 h ago", "4 d ago" for ms milliseconds in the past, "40 s
 * ahead" in the future (a clock that is off); seconds up to 119, minutes
 * up to 119, hours up to 47.  cli_span is the same without direction:
 * "25 min".
 */
#define CLI_AGE_LEN	32
void	cli_ago(int64_t ms, char *out, size_t outlen);
void	cli_span(int64_t ms, char *out, size_t outlen);

int	cli_standings(struct cli_db *, const struct cli_opts *);
int	cli_verify(struct cli_db *, const struct cli_opts *);
int	cli_status(struct cli_db *, const struct cli_opts *);
int	cli_endpoints(struct cli_db *, const struct cli_opts *);
int	cli_queue(struct cli_db *, const struct cli_opts *);
int	cli_blocks(struct cli_db *, const struct cli_opts *);
/*
 * What `chainwatch status --json` prints, for one chain or all (name
 * NULL): {"chains": [...]}.  Returns CW_EXIT_OK or an exit code after
 * saying why on stderr.
 */
struct json_t;
int	cli_status_json(struct cli_db *, const char *name, struct json_t **);

/* cli_daemon.c: the running daemon, through its control socket. */
#define CLI_EXIT_NOT_RUNNING	7	/* reload: no daemon answers */
/*
 * The control_socket key of the configuration at conf_path, into out.
 * -1 if the file cannot be read or has errors: they are printed unless
 * quiet.
 */
int	cli_socket_path(const char *conf_path, char *out, size_t outlen,
	    int quiet);
/*
 * Whether chainwatchd answers on socket_path: 1, with its "status" answer
 * in *status for json_decref; 0 if nothing answers there (no socket, or
 * a stale one); -1 if that cannot be told (no permission, no answer in
 * time, a bad answer), after saying why on stderr.  *status is NULL
 * unless 1.
 */
int	cli_daemon_state(const char *socket_path, struct json_t **status);

/* cli_reload.c */
/*
 * Ask the daemon at socket_path (NULL: the one conf_path names) to reload;
 * print its tally, or the configuration's errors on stderr.  Returns the
 * exit code.
 */
int	cli_reload(const char *conf_path, const char *socket_path, int json);
/* "reloaded: 1 endpoint added, 1 changed, 2 kept" (", N removed" if any). */
void	cli_reload_line(char *out, size_t outlen, int64_t added,
	    int64_t changed, int64_t removed, int64_t kept);

#endif
