/*
 * The store's checkpoints (sup_wal.c): a thread with its own connection
 * copies the WAL back into the database, woken by commits.  Only
 * sup_store.c, above it, calls it; it calls no other supervisor file.
 */
#ifndef CW_SUP_WAL_H
#define CW_SUP_WAL_H

#include <sqlite3.h>

/* Is the store in WAL mode for connection c (not so in memory)? */
int		 wal_conn_is_wal(sqlite3 *c);
/*
 * The thread and its connection to path, and the commit hook on db, the
 * loop's connection; without a thread (logged), the loop checkpoints.
 */
void		 wal_start(sqlite3 *db, const char *path);
void		 wal_stop(void);
/* 1 while the WAL is past its bound and the checkpoints behind. */
int		 wal_is_behind(void);
/* Out of a transaction on db: what the thread left copied, if it rests. */
void		 wal_recheck(sqlite3 *db);
/*
 * How many pages the thread's checkpoints copied back (tests), and how
 * many times the loop copied the rest; -1 if no thread runs.
 */
long long	 wal_checkpointed(long long *finished);

#endif
