/*
 * u512_sum(), an SQL aggregate: the exact sum of 64-byte difficulties as a
 * decimal string ('0' over no row), for the programs that open the store:
 * chainwatchd (its migrations recount standings) and libcwview.a.
 */
#ifndef CW_U512_SQL_H
#define CW_U512_SQL_H

#include <sqlite3.h>

/* Returns SQLITE_OK or SQLite's error code. */
int	u512_sql_register(sqlite3 *);

#endif
