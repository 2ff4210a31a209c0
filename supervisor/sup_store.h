/*
 * The SQL plumbing of the supervisor's store (sup_store.c): statements
 * prepared once, writes batched into transactions.  The bottom layer:
 * it calls no other supervisor file.
 */
#ifndef CW_SUP_STORE_H
#define CW_SUP_STORE_H

#include <ev.h>
#include <stdint.h>

struct sqlite3_stmt;

/* Why the store cannot be written now (store_blocked()). */
enum store_block {
	STORE_OK,
	STORE_LOCKED,		/* another process holds the write lock */
	STORE_FULL,		/* no space left on the store's filesystem */
	STORE_IOERR,		/* an I/O error */
};

struct store_stmt {
	const char		*sql;
	struct sqlite3_stmt	*st;
	struct store_stmt	*next;
};

int		 store_open(const char *path, int sync_full, struct ev_loop *);
void		 store_close(void);
/*
 * Called before every commit, for in-memory state that belongs to the
 * transaction (the standings, the state reads owed).
 */
void		 store_set_precommit(void (*)(void));
/*
 * rollback: a transaction was rolled back (or writes were skipped while
 * blocked); what is kept in memory must be read again from the store.
 * resume: the store can be written again.  Both are called from the
 * loop, never from inside a statement.
 */
void		 store_set_hooks(void (*rollback)(void), void (*resume)(void));
/* No transaction begins with less than this free on the filesystem. */
void		 store_set_reserve(uint64_t bytes);
/* The group the store's files are given (before store_open); -1: none. */
void		 store_set_group(long gid);
/* 1 when work that writes may start now (the transaction is open). */
int		 store_ready(void);
int		 store_wal_behind(void);
enum store_block store_blocked(const char **why, uint64_t *since_ms);
const char	*store_block_name(enum store_block);
struct sqlite3_stmt *store_prepare(struct store_stmt *);
struct sqlite3_stmt *store_bind(struct store_stmt *, const char *, ...);
int		 store_run(struct sqlite3_stmt *);
int		 store_row(struct sqlite3_stmt *);
int		 store_col_blob(struct sqlite3_stmt *, int, void *, int);
int64_t		 store_last_id(void);
void		 store_write(void);
void		 store_maybe_flush(void);
void		 store_flush(void);
void		 store_flush_last(int timeout_ms);
/* PRAGMA synchronous now; answers the level read back (1, 2), or -1. */
int		 store_synchronous(int);
/*
 * Pages the store's checkpoint thread copied back, and (finished) the
 * checkpoints the loop ran for what it left; -1: no thread runs.
 */
long long	 store_checkpointed(long long *finished);
void		 store_set_cache(uint64_t bytes);
uint64_t	 store_cache_bytes(void);

#endif
