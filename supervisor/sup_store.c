/*
 * The SQLite store, opened by the supervisor alone.  Workers are started
 * with fork + exec and close every descriptor above MSG_FD before exec, so
 * no connection is ever used across a fork.  WAL mode: readers (the CLI,
 * sqlite3) never block the writer.  Writes are batched: the first write
 * opens a transaction, which commits after STORE_BATCH_OPS writes or
 * STORE_BATCH_MS milliseconds, whichever comes first; an operation that
 * must be atomic (a reorg) never spans a commit.
 */
#include "config.h"

#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "schema.h"
#include "sup_store.h"
#include "util.h"

#define STORE_BATCH_OPS	2000
#define STORE_BATCH_MS	5

static sqlite3		*db;
static struct store_stmt	*prepared;	/* to finalize at close */
static int		 in_tx;
static unsigned		 tx_ops;
static ev_timer		 flush_timer;
static struct ev_loop	*store_loop;
static void		(*precommit)(void);

static void __attribute__((noreturn))
store_fatal(const char *what)
{
	fatalx(CW_EXIT_SYSTEM, "database: %s: %s", what, db != NULL ?
	    sqlite3_errmsg(db) : "not open");
}

static void
exec_sql(const char *sql)
{
	char	*err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		log_warnx("database: %s", err != NULL ? err : "?");
		sqlite3_free(err);
		store_fatal(sql);
	}
}

sqlite3_stmt *
store_prepare(struct store_stmt *s)
{
	if (s->st == NULL) {
		if (sqlite3_prepare_v3(db, s->sql, -1,
		    SQLITE_PREPARE_PERSISTENT, &s->st, NULL) != SQLITE_OK)
			store_fatal(s->sql);
		s->next = prepared;
		prepared = s;
	}
	sqlite3_reset(s->st);
	sqlite3_clear_bindings(s->st);
	return s->st;
}

/*
 * Bind by a format: i int64, b 32-byte blob, B blob with length (two
 * args), t text, n null, d double.
 */
sqlite3_stmt *
store_bind(struct store_stmt *s, const char *fmt, ...)
{
	sqlite3_stmt	*st = store_prepare(s);
	va_list		 ap;
	int		 i = 1, rc = SQLITE_OK;

	va_start(ap, fmt);
	for (; *fmt != '\0' && rc == SQLITE_OK; fmt++, i++) {
		switch (*fmt) {
		case 'i':
			rc = sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
			break;
		case 'b':
			rc = sqlite3_bind_blob(st, i, va_arg(ap, const void *),
			    32, SQLITE_TRANSIENT);
			break;
		case 'B': {
			const void *p = va_arg(ap, const void *);
			int n = va_arg(ap, int);

			rc = sqlite3_bind_blob(st, i, p, n, SQLITE_TRANSIENT);
			break;
		}
		case 't':
			rc = sqlite3_bind_text(st, i, va_arg(ap, const char *),
			    -1, SQLITE_TRANSIENT);
			break;
		case 'd':
			rc = sqlite3_bind_double(st, i, va_arg(ap, double));
			break;
		case 'n':
			rc = sqlite3_bind_null(st, i);
			break;
		default:
			fatalx(CW_EXIT_INTERNAL, "store_bind: format %c", *fmt);
		}
	}
	va_end(ap);
	if (rc != SQLITE_OK)
		store_fatal(s->sql);
	return st;
}

/* Run a statement to completion (no rows wanted); changes() after it. */
int
store_run(sqlite3_stmt *st)
{
	int	rc;

	store_write();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE)
		store_fatal(sqlite3_sql(st));
	return sqlite3_changes(db);
}

/* The next row: 1, or 0 at the end. */
int
store_row(sqlite3_stmt *st)
{
	int	rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc != SQLITE_DONE)
		store_fatal(sqlite3_sql(st));
	return 0;
}

int64_t
store_last_id(void)
{
	return sqlite3_last_insert_rowid(db);
}

/* A blob column of exactly n bytes into out; 0 if NULL or another size. */
int
store_col_blob(sqlite3_stmt *st, int col, void *out, int n)
{
	if (sqlite3_column_type(st, col) != SQLITE_BLOB ||
	    sqlite3_column_bytes(st, col) != n)
		return 0;
	memcpy(out, sqlite3_column_blob(st, col), (size_t)n);
	return 1;
}

static void
flush_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	store_flush();
}

/* Open the batch transaction if none is open. */
void
store_write(void)
{
	if (in_tx) {
		tx_ops++;
		return;
	}
	exec_sql("BEGIN IMMEDIATE");
	in_tx = 1;
	tx_ops = 1;
	ev_timer_set(&flush_timer, STORE_BATCH_MS / 1000.0, 0.);
	ev_timer_start(store_loop, &flush_timer);
}

/* Between operations: commit if the batch is full. */
void
store_maybe_flush(void)
{
	if (in_tx && tx_ops >= STORE_BATCH_OPS)
		store_flush();
}

void
store_flush(void)
{
	if (!in_tx)
		return;
	/* In-memory state that belongs to this transaction goes first. */
	if (precommit != NULL)
		precommit();
	exec_sql("COMMIT");
	in_tx = 0;
	tx_ops = 0;
	ev_timer_stop(store_loop, &flush_timer);
}

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
		exec_sql("BEGIN IMMEDIATE");
		exec_sql(schema_migrations[v]);
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %lld",
		    (long long)v + 1);
		exec_sql(sql);
		exec_sql("COMMIT");
	}
}

void
store_set_precommit(void (*fn)(void))
{
	precommit = fn;
}

int
store_open(const char *path, int sync_full, struct ev_loop *l)
{
	store_loop = l;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, NULL)
	    != SQLITE_OK) {
		log_warnx("database %s: %s", path, db != NULL ?
		    sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(db, 5000);
	exec_sql("PRAGMA journal_mode = WAL");
	exec_sql(sync_full ? "PRAGMA synchronous = FULL" :
	    "PRAGMA synchronous = NORMAL");
	exec_sql("PRAGMA foreign_keys = ON");
	migrate(path);
	ev_init(&flush_timer, flush_cb);
	log_debug("database %s open, schema version %zu", path,
	    schema_version);
	return 0;
}

void
store_close(void)
{
	if (db == NULL)
		return;
	store_flush();
	for (struct store_stmt *s = prepared; s != NULL; s = s->next) {
		sqlite3_finalize(s->st);
		s->st = NULL;
	}
	prepared = NULL;
	if (sqlite3_close(db) != SQLITE_OK)
		log_warnx("database: close: %s", sqlite3_errmsg(db));
	db = NULL;
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
	exec_sql(full ? "PRAGMA synchronous = FULL" :
	    "PRAGMA synchronous = NORMAL");
	if (sqlite3_prepare_v2(db, "PRAGMA synchronous", -1, &st, NULL)
	    != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		level = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return level;
}
