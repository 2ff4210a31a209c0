/*
 * The store's checkpoints (sup_wal.c), below sup_store.c.  Checkpoints (copying the WAL back into the database, and its fsync)
 * run in a thread of their own with its own connection, woken after a
 * commit leaves STORE_CKPT_PAGES or more in the WAL: SQLite's automatic
 * checkpoint ran them in the commit, and during a backfill one took the
 * loop away for up to half a second.  PASSIVE: it never waits on a lock
 * and never holds up a writer; what it could not copy (a reader's
 * snapshot still uses it) is left for the next.  The loop copies only
 * what the thread left, so that the WAL can start over (ckpt_hook).
 * The thread logs nothing itself (the log is the loop's): the loop tells
 * its errors.
 */
#include "config.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "sup_wal.h"
#include "util.h"

#define STORE_CKPT_PAGES	1000	/* SQLite's automatic threshold */
#define STORE_CKPT_FINISH	256	/* pages left that the loop copies */
#define STORE_WAL_PAGES		16384	/* 64 MB: then backfill waits */
#define STORE_WAL_MAX_PAGES	65536	/* 256 MB: then the loop copies more */
static char		 db_path[1024];	/* for the log */

static int	ckpt_consider(sqlite3 *, const char *, int);

/* The checkpoint thread; what is under lock is shared with it. */
static struct {
	pthread_t	 th;
	pthread_mutex_t	 lock;
	pthread_cond_t	 wake;
	sqlite3		*db;		/* its own connection */
	int		 running;	/* the loop's: started, not joined */
	int		 want;		/* under lock: a checkpoint is owed */
	int		 active;	/* under lock: one runs now */
	int		 done;		/* under lock: the WAL's frames in the
					 * database after the last; -1 none */
	int		 stop;		/* under lock */
	int		 rc;		/* under lock: the last one's */
	char		 err[256];	/* under lock: its message */
	uint64_t	 pages;		/* under lock: copied back in all */
	int		 told_rc;	/* the loop's: the rc it logged */
	long long	 finished;	/* the loop's: checkpoints it ran */
	int		 last_pages;	/* the loop's: in the WAL at the last
					 * commit (fewer now: it started over) */
	int		 behind;	/* the loop's: the WAL passed
					 * STORE_WAL_PAGES, not finished */
	uint64_t	 behind_since;	/* the loop's: mono ms */
	int		 behind_told;	/* the loop's: warned of it */
} ckpt = { .lock = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER };

/* Is the store in WAL mode for connection c (not so in memory)? */
int
wal_conn_is_wal(sqlite3 *c)
{
	sqlite3_stmt	*st;
	int		 wal = 0;

	if (sqlite3_prepare_v2(c, "PRAGMA journal_mode", -1, &st, NULL) !=
	    SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		wal = sqlite3_column_text(st, 0) != NULL &&
		    strcmp((const char *)sqlite3_column_text(st, 0), "wal") ==
		    0;
	sqlite3_finalize(st);
	return wal;
}

static void *
ckpt_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&ckpt.lock);
	for (;;) {
		int	rc, n_log = 0, n_done = 0;

		while (!ckpt.want && !ckpt.stop)
			pthread_cond_wait(&ckpt.wake, &ckpt.lock);
		if (ckpt.stop)
			break;
		ckpt.want = 0;
		ckpt.active = 1;
		pthread_mutex_unlock(&ckpt.lock);
		rc = sqlite3_wal_checkpoint_v2(ckpt.db, NULL,
		    SQLITE_CHECKPOINT_PASSIVE, &n_log, &n_done);
		pthread_mutex_lock(&ckpt.lock);
		ckpt.active = 0;
		if (n_done > 0 && n_done > ckpt.done)
			ckpt.pages += (uint64_t)(n_done - (ckpt.done > 0 ?
			    ckpt.done : 0));
		ckpt.done = rc == SQLITE_OK ? n_done : -1;
		/* Busy is no error: another checkpoint ran, or a lock. */
		ckpt.rc = (rc & 0xff) == SQLITE_BUSY ? SQLITE_OK : rc;
		snprintf(ckpt.err, sizeof(ckpt.err), "%s", rc == SQLITE_OK ?
		    "" : sqlite3_errmsg(ckpt.db));
	}
	pthread_mutex_unlock(&ckpt.lock);
	return NULL;
}

/* The WAL behind, or not any more: a long episode is told. */
static void
wal_behind(int behind, int pages)
{
	uint64_t	now = now_mono_ms();

	if (behind && !ckpt.behind) {
		ckpt.behind_since = now;
		log_debug("database %s: %d pages in the WAL, the checkpoints "
		    "behind: backfill waits", db_path, pages);
	} else if (!behind && ckpt.behind && ckpt.behind_told)
		log_info("database %s: checkpoints caught up with the WAL "
		    "after %llu s: backfill goes on", db_path,
		    (unsigned long long)((now - ckpt.behind_since) / 1000));
	if (!behind)
		ckpt.behind_told = 0;
	else if (!ckpt.behind_told && now - ckpt.behind_since >= 60000) {
		log_warnx("database %s: checkpoints have been behind the WAL "
		    "(%d pages) for 60 s, most likely because a reader keeps "
		    "an old transaction open: backfill waits until they catch "
		    "up", db_path, pages);
		ckpt.behind_told = 1;
	}
	ckpt.behind = behind;
}

/*
 * After each commit, with the frames now in the WAL: wake the thread, or
 * without one checkpoint here as SQLite would.  The WAL starts over only
 * once every frame is in the database when a transaction begins, which a
 * thread that always trails the writer never achieves: so when it has
 * copied all but STORE_CKPT_FINISH pages and rests, the loop copies the
 * rest itself (one small checkpoint).  A backfill can write faster than
 * the thread copies: past STORE_WAL_PAGES the WAL is behind, and its
 * answers wait (store_wal_behind()) while heads and live reads go on,
 * until the thread has caught up and the loop's copy is small again.
 * Copying all that was left in the loop held it up to 0.9 s at full
 * speed.  Only past STORE_WAL_MAX_PAGES, which a store that takes only
 * live work should never reach, does the loop copy whatever is left.
 * What the last checkpoint met is told once, and when it is over.
 */
static int
ckpt_consider(sqlite3 *conn, const char *name, int pages)
{
	int	rc, finish = 0;
	char	err[sizeof(ckpt.err)];

	if (ckpt.running && pages < ckpt.last_pages) {
		/* A new WAL: what the thread did was in the last one. */
		pthread_mutex_lock(&ckpt.lock);
		if (!ckpt.active)
			ckpt.done = -1;
		pthread_mutex_unlock(&ckpt.lock);
		wal_behind(0, pages);
	}
	ckpt.last_pages = pages;
	if (pages < STORE_CKPT_PAGES)
		return SQLITE_OK;
	if (!ckpt.running) {
		(void)sqlite3_wal_checkpoint_v2(conn, name,
		    SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		return SQLITE_OK;
	}
	pthread_mutex_lock(&ckpt.lock);
	if (!ckpt.want && !ckpt.active && ckpt.done > 0 &&
	    ckpt.done <= pages && (pages - ckpt.done <= STORE_CKPT_FINISH ||
	    pages >= STORE_WAL_MAX_PAGES))
		finish = 1;
	else {
		ckpt.want = 1;
		pthread_cond_signal(&ckpt.wake);
	}
	rc = ckpt.rc;
	memcpy(err, ckpt.err, sizeof(err));
	pthread_mutex_unlock(&ckpt.lock);
	if (finish) {
		(void)sqlite3_wal_checkpoint_v2(conn, name,
		    SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		pthread_mutex_lock(&ckpt.lock);
		ckpt.done = -1;		/* a new WAL from the next write */
		pthread_mutex_unlock(&ckpt.lock);
		ckpt.finished++;
		wal_behind(0, pages);
	} else
		wal_behind(pages >= STORE_WAL_PAGES, pages);
	if (rc != ckpt.told_rc) {
		if (rc != SQLITE_OK)
			log_warnx("database %s: checkpoint: %s (the WAL grows "
			    "until one succeeds; %d pages now)", db_path, err,
			    pages);
		else
			log_info("database %s: checkpoints succeed again",
			    db_path);
		ckpt.told_rc = rc;
	}
	return SQLITE_OK;
}

static int
ckpt_hook(void *arg, sqlite3 *conn, const char *name, int pages)
{
	(void)arg;
	return ckpt_consider(conn, name, pages);
}

/* The thread and its connection, once the store is open in WAL mode. */
void
wal_start(sqlite3 *main_db, const char *path)
{
	sqlite3	*c = NULL;
	int	 rc;

	snprintf(db_path, sizeof(db_path), "%s", path);
	sqlite3_wal_hook(main_db, ckpt_hook, NULL);
	rc = sqlite3_open_v2(path, &c, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, NULL);
	if (rc != SQLITE_OK) {
		log_warnx("database %s: no checkpoint thread (%s): the loop "
		    "checkpoints", path, c != NULL ? sqlite3_errmsg(c) :
		    sqlite3_errstr(rc));
		sqlite3_close(c);
		return;
	}
	/*
	 * Until it has read the database it does not know the WAL, and a
	 * checkpoint does nothing (its counts are -1).
	 */
	if (!wal_conn_is_wal(c)) {
		log_warnx("database %s: no checkpoint thread (its connection "
		    "does not see the WAL): the loop checkpoints", path);
		sqlite3_close(c);
		return;
	}
	ckpt.db = c;
	ckpt.want = ckpt.stop = ckpt.active = 0;
	ckpt.done = -1;
	ckpt.last_pages = 0;
	ckpt.behind = ckpt.behind_told = 0;
	ckpt.rc = ckpt.told_rc = SQLITE_OK;
	if ((rc = pthread_create(&ckpt.th, NULL, ckpt_main, NULL)) != 0) {
		log_warnx("database %s: no checkpoint thread (%s): the loop "
		    "checkpoints", path, strerror(rc));
		sqlite3_close(c);
		ckpt.db = NULL;
		return;
	}
	ckpt.running = 1;
}

void
wal_stop(void)
{
	if (!ckpt.running)
		return;
	pthread_mutex_lock(&ckpt.lock);
	ckpt.stop = 1;
	pthread_cond_signal(&ckpt.wake);
	pthread_mutex_unlock(&ckpt.lock);
	pthread_join(ckpt.th, NULL);
	ckpt.running = 0;
	if (sqlite3_close(ckpt.db) != SQLITE_OK)
		log_warnx("database: checkpoint connection: close: %s",
		    sqlite3_errmsg(ckpt.db));
	ckpt.db = NULL;
}


int
wal_is_behind(void)
{
	return ckpt.behind;
}

void
wal_recheck(sqlite3 *db)
{
	(void)ckpt_consider(db, "main", ckpt.last_pages);
}

long long
wal_checkpointed(long long *finished)
{
	long long	n;

	if (finished != NULL)
		*finished = ckpt.finished;
	if (!ckpt.running)
		return -1;
	pthread_mutex_lock(&ckpt.lock);
	n = (long long)ckpt.pages;
	pthread_mutex_unlock(&ckpt.lock);
	return n;
}
