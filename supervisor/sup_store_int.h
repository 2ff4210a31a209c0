/*
 * What the store's two files share (sup_store.c, sup_store_file.c), and
 * no other file uses.
 */
#ifndef CW_SUP_STORE_INT_H
#define CW_SUP_STORE_INT_H

#include <ev.h>
#include <sqlite3.h>

extern sqlite3	*store_db;		/* NULL while closed */
extern char	 store_path[1024];	/* the open database's */

/* Run sql, or exit naming it: a statement of our own that cannot fail. */
void	store_exec(const char *sql);
/* After the file is open: batches, retries and lock waits on loop l. */
void	store_loop_start(struct ev_loop *l);

#endif
