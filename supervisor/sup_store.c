/*
 * The SQLite store, opened by the supervisor alone.  Workers are started
 * with fork + exec and close every descriptor above MSG_FD before exec, so
 * no connection is ever used across a fork.  WAL mode: readers (the CLI,
 * sqlite3) never block the writer.  Writes are batched: the first write
 * opens a transaction, which commits after STORE_BATCH_OPS writes or
 * STORE_BATCH_MS milliseconds, whichever comes first; an operation that
 * must be atomic (a reorg) never spans a commit.
 *
 * The store waits, it never dies: a lock held by another process
 * (SQLITE_BUSY, SQLITE_LOCKED), a full disk or an I/O error blocks it.
 * Blocked, a statement is not run: the rest of the transaction is rolled
 * back at the end of the loop iteration, the owners above reload what
 * they keep in memory (the rollback hook), and a timer retries, doubling
 * from STORE_RETRY_MIN_MS to STORE_RETRY_MAX_MS, until a transaction can
 * begin again (the resume hook).  store_ready() lets callers ask before
 * they start work, so that a block seldom cuts a transaction in two; no
 * transaction begins with less than the reserve free, so that a full
 * disk seldom does.  A lock is over when a transaction begins, a full
 * disk or an I/O error only when one with writes commits (probation).
 *
 * Checkpoints run in a thread of their own (sup_wal.c); the file is
 * opened, set up and migrated in sup_store_file.c.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
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

#define STORE_BATCH_OPS	2000
#define STORE_BATCH_MS	5
#define STORE_BUSY_MS		50	/* the longest the loop waits on a lock */
#define STORE_RETRY_MIN_MS	50
#define STORE_RETRY_MAX_MS	2000

sqlite3			*store_db;
char			 store_path[1024];
static uint64_t		 reserve;	/* bytes: see store_begin() */
static struct store_stmt	*prepared;	/* to finalize at close */
static int		 in_tx;
static unsigned		 tx_ops;
static ev_timer		 flush_timer;
static struct ev_loop	*store_loop;
static void		(*precommit)(void);
static void		(*on_rollback)(void);
static void		(*on_resume)(void);

/* Blocked: why, since when, and the retry. */
static enum store_block	 blocked;	/* blocking now */
static enum store_block	 block_kind;	/* of the episode, till a commit */
static int		 probation;	/* began again, no commit yet */
static int		 tx_failed;	/* statements skipped until rollback */
static int		 lost_writes;	/* a rollback's reload is owed */
static int		 reloading;	/* in the rollback hook: reads only */
static char		 block_why[1200];
static uint64_t		 block_since;	/* wall ms */
static uint64_t		 block_retry_ms;
static unsigned		 block_retries;
static ev_timer		 retry_timer;
static struct store_stmt	 nothing = { "SELECT 1 WHERE 0", NULL, NULL };


static void __attribute__((noreturn))
store_fatal(const char *what)
{
	fatalx(CW_EXIT_SYSTEM, "database: %s: %s", what, store_db != NULL ?
	    sqlite3_errmsg(store_db) : "not open");
}

void
store_exec(const char *sql)
{
	char	*err = NULL;

	if (sqlite3_exec(store_db, sql, NULL, NULL, &err) != SQLITE_OK) {
		log_warnx("database: %s", err != NULL ? err : "?");
		sqlite3_free(err);
		store_fatal(sql);
	}
}

/* The errors that are waited out; any other is a bug or a broken file. */
static enum store_block
classify(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return STORE_LOCKED;
	case SQLITE_FULL:
		return STORE_FULL;
	case SQLITE_IOERR:
	case SQLITE_CANTOPEN:
	case SQLITE_READONLY:
	case SQLITE_PROTOCOL:
	case SQLITE_NOMEM:
		return STORE_IOERR;
	default:
		return STORE_OK;
	}
}

/* Free space on the store's filesystem, in bytes; -1 if unknown. */
static int64_t
free_space(void)
{
	struct statvfs	sv;

	if (statvfs(store_path, &sv) == -1)
		return -1;
	return (int64_t)sv.f_bavail * (int64_t)sv.f_frsize;
}

const char *
store_block_name(enum store_block b)
{
	switch (b) {
	case STORE_OK:
		return "ok";
	case STORE_LOCKED:
		return "locked";
	case STORE_FULL:
		return "disk-full";
	case STORE_IOERR:
		return "io-error";
	}
	return "?";
}

static void
retry_arm(double after_ms)
{
	ev_timer_stop(store_loop, &retry_timer);
	ev_timer_set(&retry_timer, after_ms / 1000.0, 0.);
	ev_timer_start(store_loop, &retry_timer);
}

/*
 * The store is blocked by b: say why once per kind, and retry.  what
 * names the statement, errmsg SQLite's word for it.
 */
static void
block(enum store_block b, const char *what, const char *errmsg)
{
	int64_t	 avail = free_space();
	char	 space[64];

	if (avail >= 0)
		snprintf(space, sizeof(space), "%.1f MB free",
		    (double)avail / (1024.0 * 1024.0));
	else
		snprintf(space, sizeof(space), "free space unknown");
	switch (b) {
	case STORE_LOCKED:
		snprintf(block_why, sizeof(block_why), "locked by another "
		    "process (%s)", errmsg);
		break;
	case STORE_FULL:
		snprintf(block_why, sizeof(block_why), "disk full on %s, %s",
		    store_path, space);
		break;
	default:
		snprintf(block_why, sizeof(block_why), "I/O error on %s "
		    "(%s), %s", store_path, errmsg, space);
		break;
	}
	if (probation) {
		/* It began again but could not commit: the same episode. */
		probation = 0;
		block_retries++;
		if ((block_retry_ms *= 2) > STORE_RETRY_MAX_MS)
			block_retry_ms = STORE_RETRY_MAX_MS;
	} else if (block_kind == STORE_OK) {
		block_since = now_wall_ms();
		block_retry_ms = STORE_RETRY_MIN_MS;
		block_retries = 0;
	}
	if (block_kind != b) {
		if (b == STORE_LOCKED)
			log_warnx("database %s: %s at %s; what workers deliver "
			    "waits in memory, retrying", store_path, errmsg,
			    what);
		else
			log_warnx("database %s: %s at %s (%s); no new work "
			    "until it can be written, retrying", store_path,
			    errmsg, what, space);
		block_kind = b;
	}
	blocked = b;
	if (!ev_is_active(&retry_timer))
		retry_arm((double)block_retry_ms);
}

/*
 * A statement failed with rc.  A waitable error blocks the store and
 * fails the rest of the transaction; any other is fatal.
 */
static void
store_failed(int rc, const char *what)
{
	enum store_block	b = classify(rc);

	if (b == STORE_OK)
		store_fatal(what);
	block(b, what, sqlite3_errstr(rc));
	if (in_tx)
		lost_writes = 1;
	if (!tx_failed) {
		tx_failed = 1;
		/* The rollback runs when the caller is back in the loop. */
		ev_timer_stop(store_loop, &flush_timer);
		ev_timer_set(&flush_timer, 0., 0.);
		ev_timer_start(store_loop, &flush_timer);
	}
}

sqlite3_stmt *
store_prepare(struct store_stmt *s)
{
	int	rc;

	if (s->st == NULL) {
		if ((rc = sqlite3_prepare_v3(store_db, s->sql, -1,
		    SQLITE_PREPARE_PERSISTENT, &s->st, NULL)) != SQLITE_OK) {
			s->st = NULL;
			if (s == &nothing)
				store_fatal(s->sql);
			store_failed(rc, s->sql);
			/* Bound to nothing, stepped to no row. */
			return store_prepare(&nothing);
		}
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

	if (st == nothing.st)
		return st;
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

	/*
	 * The rollback hook reads what the store holds; a write it would
	 * make there (a miner row that exists) must not fail it again.
	 */
	if (reloading) {
		log_debug("database: reloading, not run: %.72s",
		    sqlite3_sql(st));
		return 0;
	}
	store_write();
	if (tx_failed) {
		log_debug("database: blocked, not run: %.72s", sqlite3_sql(st));
		return 0;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE) {
		sqlite3_reset(st);
		store_failed(rc, sqlite3_sql(st));
		return 0;
	}
	return sqlite3_changes(store_db);
}

/*
 * The next row: 1, or 0 at the end.  In a failed transaction there is
 * none: reads that went on while writes are skipped could loop for ever
 * on a row that a skipped write was to change, and what the caller does
 * with them is undone by the rollback hook anyway.
 */
int
store_row(sqlite3_stmt *st)
{
	int	rc;

	if (tx_failed)
		return 0;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc != SQLITE_DONE) {
		sqlite3_reset(st);
		store_failed(rc, sqlite3_sql(st));
	}
	return 0;
}

int64_t
store_last_id(void)
{
	return sqlite3_last_insert_rowid(store_db);
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

/*
 * Begin the batch transaction.  Not with less than the reserve free: a
 * transaction that fills the disk half-way is rolled back whole, so it
 * is better not begun.  Returns 0, or -1 blocked.
 */
static int
store_begin(void)
{
	int64_t	avail = reserve > 0 ? free_space() : -1;
	char	why[64];
	int	rc;

	if (avail >= 0 && (uint64_t)avail < reserve) {
		snprintf(why, sizeof(why), "less free than the %.1f MB "
		    "store_reserve", (double)reserve / (1024.0 * 1024.0));
		block(STORE_FULL, "BEGIN", why);
		return -1;
	}
	if ((rc = sqlite3_exec(store_db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) !=
	    SQLITE_OK) {
		if (classify(rc) == STORE_OK)
			store_fatal("BEGIN IMMEDIATE");
		block(classify(rc), "BEGIN", sqlite3_errstr(rc));
		return -1;
	}
	in_tx = 1;
	tx_ops = 0;
	ev_timer_stop(store_loop, &flush_timer);
	ev_timer_set(&flush_timer, STORE_BATCH_MS / 1000.0, 0.);
	ev_timer_start(store_loop, &flush_timer);
	return 0;
}

/*
 * May work that writes start now?  1 with the batch transaction open;
 * 0 while the store is blocked (the resume hook says when it is no
 * longer) or a failed transaction still waits for its rollback.
 */
int
store_ready(void)
{
	if (tx_failed || blocked != STORE_OK)
		return 0;
	if (in_tx)
		return 1;
	return store_begin() == 0;
}

/* Open the batch transaction if none is open. */
void
store_write(void)
{
	if (tx_failed) {
		lost_writes = 1;
		return;
	}
	if (in_tx) {
		tx_ops++;
		return;
	}
	/* Work that did not ask store_ready() first: its write is lost. */
	if (blocked != STORE_OK || store_begin() == -1) {
		tx_failed = 1;
		lost_writes = 1;
		ev_timer_stop(store_loop, &flush_timer);
		ev_timer_set(&flush_timer, 0., 0.);
		ev_timer_start(store_loop, &flush_timer);
		return;
	}
	tx_ops = 1;
}

/*
 * The end of a failed transaction: roll back what SQLite has not, and
 * let the owners above reload what they keep in memory.
 */
static void
store_abort(void)
{
	int	was_in_tx = in_tx;

	ev_timer_stop(store_loop, &flush_timer);
	if (in_tx && !sqlite3_get_autocommit(store_db))
		(void)sqlite3_exec(store_db, "ROLLBACK", NULL, NULL, NULL);
	in_tx = 0;
	tx_ops = 0;
	tx_failed = 0;
	if (lost_writes) {
		lost_writes = 0;
		if (was_in_tx)
			log_warnx("database %s: transaction rolled back (%s); "
			    "what it held is asked for again", store_path,
			    block_why);
		else
			log_warnx("database %s: writes not made while blocked "
			    "(%s); what they held is asked for again",
			    store_path, block_why);
		if (on_rollback != NULL) {
			reloading = 1;
			on_rollback();
			reloading = 0;
		}
	}
}

/* The block is over: say so once, with how long it lasted. */
static void
unblocked(void)
{
	log_info("database %s: writable again after %.1f s (%s; %u "
	    "retries); resuming", store_path,
	    (double)(now_wall_ms() - block_since) / 1000.0,
	    store_block_name(block_kind), block_retries);
	block_kind = STORE_OK;
	probation = 0;
	block_why[0] = '\0';
}

/* The retry: a transaction that can begin ends the block. */
static void
retry_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	if (tx_failed)
		store_abort();
	if (store_begin() == -1) {
		block_retries++;
		if (block_retry_ms < STORE_RETRY_MAX_MS)
			block_retry_ms *= 2;
		if (block_retry_ms > STORE_RETRY_MAX_MS)
			block_retry_ms = STORE_RETRY_MAX_MS;
		retry_arm((double)block_retry_ms);
		return;
	}
	blocked = STORE_OK;
	/*
	 * A lock that is ours is the end of it; a disk that was full or
	 * failed must take a commit first (see unblocked()).  Work resumes
	 * now either way.
	 */
	if (block_kind == STORE_LOCKED)
		unblocked();
	else
		probation = 1;
	if (on_resume != NULL)
		on_resume();
}

enum store_block
store_blocked(const char **why, uint64_t *since)
{
	if (why != NULL)
		*why = block_why;
	if (since != NULL)
		*since = block_since;
	return block_kind;
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
	int	rc, had_writes = tx_ops > 0;

	if (tx_failed) {
		store_abort();
		return;
	}
	if (!in_tx)
		return;
	/* In-memory state that belongs to this transaction goes first. */
	if (precommit != NULL)
		precommit();
	if (tx_failed) {
		store_abort();
		return;
	}
	if ((rc = sqlite3_exec(store_db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK) {
		store_failed(rc, "COMMIT");
		store_abort();
		return;
	}
	in_tx = 0;
	tx_ops = 0;
	ev_timer_stop(store_loop, &flush_timer);
	/*
	 * While the checkpoints are behind, what holds the backfill and
	 * the finality slices is settled here, out of a transaction: the
	 * hook runs only after a commit that wrote, and a store that waits
	 * writes nothing (the empty commits of the ticks come here).
	 */
	if (wal_is_behind())
		wal_recheck(store_db);
	/* An empty commit proves nothing about the disk. */
	if (probation && had_writes)
		unblocked();
}

/*
 * At exit: one last commit, waiting at most timeout_ms for a lock.  What
 * it cannot write stays in the queue as leased or pending, and is asked
 * for again after a restart.
 */
void
store_flush_last(int timeout_ms)
{
	ev_timer_stop(store_loop, &retry_timer);
	if (store_db == NULL)
		return;
	sqlite3_busy_timeout(store_db, timeout_ms);
	if (blocked != STORE_OK && !in_tx && !tx_failed)
		return;
	store_flush();
}

void
store_set_precommit(void (*fn)(void))
{
	precommit = fn;
}

void
store_set_reserve(uint64_t bytes)
{
	reserve = bytes;
}

void
store_set_hooks(void (*rollback)(void), void (*resume)(void))
{
	on_rollback = rollback;
	on_resume = resume;
}

/*
 * 1 while the WAL is behind: a backfill's answers wait.  Between commits
 * nothing else asks the thread again, so this does, and copies the rest
 * once the thread has caught up.
 */
int
store_wal_behind(void)
{
	if (!wal_is_behind())
		return 0;
	if (!in_tx && !tx_failed && blocked == STORE_OK)
		wal_recheck(store_db);
	return wal_is_behind();
}

long long
store_checkpointed(long long *finished)
{
	return wal_checkpointed(finished);
}

/*
 * The open store's connection joins the loop: its batches and retries
 * run on timers of l, and it never waits long on a lock from now on.
 */
void
store_loop_start(struct ev_loop *l)
{
	store_loop = l;
	ev_init(&flush_timer, flush_cb);
	ev_init(&retry_timer, retry_cb);
	sqlite3_busy_timeout(store_db, STORE_BUSY_MS);
}

void
store_close(void)
{
	if (store_db == NULL)
		return;
	store_flush();
	if (in_tx || tx_failed)
		store_abort();
	ev_timer_stop(store_loop, &retry_timer);
	ev_timer_stop(store_loop, &flush_timer);
	/* The last connection's close checkpoints and removes the WAL. */
	wal_stop();
	for (struct store_stmt *s = prepared; s != NULL; s = s->next) {
		sqlite3_finalize(s->st);
		s->st = NULL;
	}
	prepared = NULL;
	if (sqlite3_close(store_db) != SQLITE_OK)
		log_warnx("database: close: %s", sqlite3_errmsg(store_db));
	store_db = NULL;
}
