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
struct sqlite3_stmt *store_prepare(struct store_stmt *);
struct sqlite3_stmt *store_bind(struct store_stmt *, const char *, ...);
int		 store_run(struct sqlite3_stmt *);
int		 store_row(struct sqlite3_stmt *);
int		 store_col_blob(struct sqlite3_stmt *, int, void *, int);
int64_t		 store_last_id(void);
void		 store_write(void);
void		 store_maybe_flush(void);
void		 store_flush(void);
/* PRAGMA synchronous now; answers the level read back (1, 2), or -1. */
int		 store_synchronous(int);

#endif
