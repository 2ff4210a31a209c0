/*
 * The store's file (the rest of the store is sup_store.c): opened by the
 * supervisor alone, created private to the operators' group, set up (WAL,
 * synchronous, page cache, the u512_sum() function) and migrated to this
 * chainwatchd's schema; its settings changed while it is open, between
 * transactions.
 */
#include "config.h"

#include <sys/stat.h>

#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "schema.h"
#include "sup_store.h"
#include "sup_store_int.h"
#include "sup_wal.h"
#include "u512_sql.h"
#include "util.h"

#define STORE_OPEN_BUSY_MS	5000	/* at start, before the loop runs */

static int64_t
user_version(void)
{
	static struct store_stmt s = { "PRAGMA user_version", NULL, NULL };
	sqlite3_stmt	*st = store_prepare(&s);
	int64_t		 v = 0;

	if (store_row(st))
		v = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return v;
}

/* Apply the migrations this database lacks, each in its transaction. */
static void
migrate(const char *path)
{
	int64_t	v = user_version();
	char	sql[64];

	if (v > (int64_t)schema_version)
		fatalx(CW_EXIT_SYSTEM, "database %s has schema version %lld, "
		    "newer than this chainwatchd knows (%zu)", path,
		    (long long)v, schema_version);
	for (; v < (int64_t)schema_version; v++) {
		log_info("database %s: migrating to schema version %lld",
		    path, (long long)v + 1);
		store_exec("BEGIN IMMEDIATE");
		store_exec(schema_migrations[v]);
		if (schema_fixups[v] != NULL)
			store_exec(schema_fixups[v]);
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %lld",
		    (long long)v + 1);
		store_exec(sql);
		store_exec("COMMIT");
	}
}

static long	store_gid = -1;

void
store_set_group(long gid)
{
	store_gid = gid;
}

/*
 * The store is no one else's: its files belong to the operators' group,
 * and an older one that others could read is made 0640 like a new one
 * (its -wal and -shm too, which SQLite creates with the database's mode
 * and, under root, owner).
 */
static void
store_private(const char *path)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	char		 f[PATH_MAX];
	struct stat	 st;

	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(f, sizeof(f), "%s%s", path, sfx[i]);
		if (stat(f, &st) == -1 || !S_ISREG(st.st_mode))
			continue;
		if (store_gid != -1 && st.st_gid != (gid_t)store_gid &&
		    chown(f, (uid_t)-1, (gid_t)store_gid) == -1)
			log_warn("database %s: chown to group %ld", f,
			    store_gid);
		if ((st.st_mode & 0007) == 0)
			continue;
		if (chmod(f, st.st_mode & 0750) == -1)
			log_warn("database %s: chmod", f);
		else
			log_info("database %s: was readable by others, now "
			    "mode %04o", f, (unsigned)(st.st_mode & 0750));
	}
}

/*
 * At most this many bytes of the store's pages in the page cache (KiB,
 * as PRAGMA cache_size takes a negative size); a smaller cache than it
 * holds now gives back its oldest pages at once.  What the connection
 * reads back is logged.
 */
void
store_set_cache(uint64_t bytes)
{
	sqlite3_stmt	*st;
	char		 sql[64];
	long long	 kb = 0;

	store_flush();
	snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%llu",
	    (unsigned long long)(bytes / 1024));
	store_exec(sql);
	if (sqlite3_prepare_v2(store_db, "PRAGMA cache_size", -1, &st, NULL)
	    != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW)
		kb = -sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	log_debug("database: cache_size = %lld KB", kb);
}

/* The bytes of the store's pages this process holds in its page cache. */
uint64_t
store_cache_bytes(void)
{
	int	cur = 0, high = 0;

	if (store_db == NULL || sqlite3_db_status(store_db, SQLITE_DBSTATUS_CACHE_USED,
	    &cur, &high, 0) != SQLITE_OK || cur < 0)
		return 0;
	return (uint64_t)cur;
}

int
store_open(const char *path, int sync_full, struct ev_loop *l)
{
	mode_t	mask;
	int	rc;

	snprintf(store_path, sizeof(store_path), "%s", path);
	if (strncmp(path, "file:", 5) != 0 && strcmp(path, ":memory:") != 0)
		store_private(path);
	/* Created 0640, and so its -wal and -shm. */
	mask = umask(027);
	rc = sqlite3_open_v2(path, &store_db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, NULL);
	if (rc != SQLITE_OK) {
		umask(mask);
		log_warnx("database %s: %s", path, store_db != NULL ?
		    sqlite3_errmsg(store_db) : "out of memory");
		sqlite3_close(store_db);
		store_db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(store_db, STORE_OPEN_BUSY_MS);
	store_exec("PRAGMA journal_mode = WAL");
	umask(mask);
	if (strncmp(path, "file:", 5) != 0 && strcmp(path, ":memory:") != 0)
		store_private(path);	/* the group of what it created */
	store_exec(sync_full ? "PRAGMA synchronous = FULL" :
	    "PRAGMA synchronous = NORMAL");
	store_exec("PRAGMA foreign_keys = ON");
	store_exec("PRAGMA cache_size = -65536");
	/* A WAL that grew (a reader held it) is cut back to 64 MB, the
	 * size a backfill keeps it at, when it starts over. */
	store_exec("PRAGMA journal_size_limit = 67108864");
	if ((rc = u512_sql_register(store_db)) != SQLITE_OK)
		fatalx(CW_EXIT_SYSTEM, "database %s: cannot add u512_sum(): %s",
		    path, sqlite3_errstr(rc));
	migrate(path);
	if (wal_conn_is_wal(store_db))
		wal_start(store_db, path);
	/* From now on the loop runs: it never waits long on a lock. */
	store_loop_start(l);
	log_debug("database %s open, schema version %zu", path,
	    schema_version);
	return 0;
}

/*
 * Set PRAGMA synchronous (FULL or NORMAL) on the open connection, between
 * transactions: the batch open now is committed first.  Answers the level
 * the connection reports afterwards (1 NORMAL, 2 FULL), -1 on error.
 */
int
store_synchronous(int full)
{
	sqlite3_stmt	*st;
	int		 level = -1;

	store_flush();
	store_exec(full ? "PRAGMA synchronous = FULL" :
	    "PRAGMA synchronous = NORMAL");
	if (sqlite3_prepare_v2(store_db, "PRAGMA synchronous", -1, &st, NULL)
	    != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		level = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return level;
}
