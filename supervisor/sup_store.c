/*
 * The SQLite store, opened by the supervisor alone.  Workers are started
 * with fork + exec and close every descriptor above MSG_FD before exec, so
 * no connection is ever used across a fork.  WAL mode: readers (the CLI,
 * sqlite3) never block the writer.
 */
#include "config.h"

#include <sqlite3.h>
#include <stdio.h>

#include "log.h"
#include "sup.h"

static sqlite3	*sup_db;

int
sup_store_open(const char *path)
{
	char	*err = NULL;

	if (sqlite3_open_v2(path, &sup_db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		log_warnx("database %s: %s", path, sup_db != NULL ?
		    sqlite3_errmsg(sup_db) : "out of memory");
		sqlite3_close(sup_db);
		sup_db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(sup_db, 5000);
	if (sqlite3_exec(sup_db, "PRAGMA journal_mode=WAL;", NULL, NULL,
	    &err) != SQLITE_OK) {
		log_warnx("database %s: cannot use WAL mode: %s", path, err);
		sqlite3_free(err);
		sqlite3_close(sup_db);
		sup_db = NULL;
		return -1;
	}
	log_debug("database %s open", path);
	return 0;
}

void
sup_store_close(void)
{
	if (sup_db != NULL)
		sqlite3_close(sup_db);
	sup_db = NULL;
}
