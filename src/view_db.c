/*
 * The store, read-only: open it so that it works while chainwatchd writes
 * (WAL) and on a read-only copy, refuse a schema this build does not know,
 * and add u512_sum(), the exact sum of 64-byte difficulties.  Also where
 * the module's errors go (view_err).
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "schema.h"
#include "u512.h"
#include "u512_sql.h"
#include "util.h"
#include "view.h"

/* Each program says how its errors look: see view.h. */
static view_err_fn	*err_fn;

void
view_set_err(view_err_fn *fn)
{
	err_fn = fn;
}

void
view_err(const char *fmt, ...)
{
	struct buf	 msg = { 0 };
	va_list		 ap;

	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (err_fn != NULL)
		err_fn(msg.p);
	else
		log_warnx("%s", msg.p);
	buf_free(&msg);
}

void
view_db_err(const struct view_db *c, const char *what)
{
	view_err("%s: %s: %s", c->path, what, c->db != NULL ?
	    sqlite3_errmsg(c->db) : "out of memory");
}

int
view_db_prepare(struct view_db *c, const char *what, const char *sql,
    sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(c->db, sql, -1, st, NULL) != SQLITE_OK) {
		view_db_err(c, what);
		return -1;
	}
	return 0;
}

int
view_db_finish(struct view_db *c, const char *what, sqlite3_stmt *st,
    int ok)
{
	sqlite3_finalize(st);
	if (!ok) {
		view_db_err(c, what);
		return -1;
	}
	return 0;
}

/* A file: URI for path, with every byte that could mean something escaped. */
static char *
path_uri(const char *path, const char *query)
{
	static const char hexd[] = "0123456789ABCDEF";
	size_t		 n = strlen(path), i, o = 0;
	char		*uri;
	unsigned char	 ch;

	uri = xmalloc(5 + 3 * n + strlen(query) + 1);
	memcpy(uri, "file:", 5);
	o = 5;
	for (i = 0; i < n; i++) {
		ch = (unsigned char)path[i];
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || strchr("/-._~", ch) != NULL)
			uri[o++] = (char)ch;
		else {
			uri[o++] = '%';
			uri[o++] = hexd[ch >> 4];
			uri[o++] = hexd[ch & 15];
		}
	}
	strcpy(uri + o, query);
	return uri;
}

/* Open and read user_version; the first read is what touches the WAL. */
static int
db_try(struct view_db *c, int immutable, int *version)
{
	sqlite3_stmt	*st = NULL;
	char		*uri = NULL;
	int		 rc;

	if (immutable) {
		uri = path_uri(c->path, "?immutable=1");
		rc = sqlite3_open_v2(uri, &c->db,
		    SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
		free(uri);
	} else
		rc = sqlite3_open_v2(c->path, &c->db, SQLITE_OPEN_READONLY,
		    NULL);
	if (rc != SQLITE_OK)
		return rc;
	/* On each try's connection, before its first query (view.h). */
	if (c->temp == VIEW_TEMP_MEMORY && (rc = sqlite3_exec(c->db,
	    "PRAGMA temp_store = MEMORY", NULL, NULL, NULL)) != SQLITE_OK)
		return rc;
	/* The daemon's checkpoints can hold readers back for a moment. */
	sqlite3_busy_timeout(c->db, 5000);
	rc = sqlite3_prepare_v2(c->db, "PRAGMA user_version", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			*version = sqlite3_column_int(st, 0);
			rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

int
view_db_open(struct view_db *c, const char *path, enum view_temp temp)
{
	struct stat	 st;
	char		*shm;
	int		 rc, version = 0;

	memset(c, 0, sizeof(*c));
	c->path = path;
	c->temp = temp;
	if (stat(path, &st) == -1) {
		view_err("%s: cannot open the store: %s", path,
		    strerror(errno));
		return CW_EXIT_SYSTEM;
	}
	if (!S_ISREG(st.st_mode)) {
		view_err("%s: cannot open the store: not a regular file", path);
		return CW_EXIT_SYSTEM;
	}
	if (access(path, R_OK) == -1) {
		view_err("%s: cannot open the store: %s", path,
		    strerror(errno));
		return CW_EXIT_SYSTEM;
	}

	rc = db_try(c, 0, &version);
	shm = xmalloc(strlen(path) + 5);
	sprintf(shm, "%s-shm", path);
	if (((rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN)
	    && stat(shm, &st) == -1 && errno == ENOENT) {
		/*
		 * A WAL store without its -shm, which we may not create: a
		 * copy in a read-only directory.  No writer is at work on
		 * it (a writer makes the -shm), so it is safe to read as
		 * immutable; only an orphaned -wal would be missed.
		 */
		sqlite3_close(c->db);
		c->db = NULL;
		rc = db_try(c, 1, &version);
		memcpy(shm + strlen(path), "-wal", 4);
		if (rc == SQLITE_OK && stat(shm, &st) == 0 && st.st_size > 0)
			view_err("%s: warning: read-only copy without its "
			    "-shm: %s is not read", path, shm);
	}
	free(shm);
	if (rc != SQLITE_OK) {
		view_err("%s: cannot open the store: %s", path,
		    c->db != NULL ? sqlite3_errmsg(c->db) :
		    sqlite3_errstr(rc));
		view_db_close(c);
		return CW_EXIT_SYSTEM;
	}

	if (version < 0 || (size_t)version > schema_version) {
		view_err("%s: schema version %d is newer than this chainwatch "
		    "knows (%zu): upgrade chainwatch", path, version,
		    schema_version);
		view_db_close(c);
		return CW_EXIT_SYSTEM;
	}
	if ((size_t)version < schema_version) {
		view_err("%s: not migrated yet (schema version %d of %zu; "
		    "start chainwatchd)", path, version, schema_version);
		view_db_close(c);
		return CW_EXIT_SYSTEM;
	}

	if (u512_sql_register(c->db) != SQLITE_OK) {
		view_db_err(c, "u512_sum");
		view_db_close(c);
		return CW_EXIT_SYSTEM;
	}
	return CW_EXIT_OK;
}

void
view_db_close(struct view_db *c)
{
	if (c->db != NULL)
		sqlite3_close(c->db);
	c->db = NULL;
}

int
view_db_begin(struct view_db *c)
{
	if (sqlite3_exec(c->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		view_db_err(c, "BEGIN");
		return -1;
	}
	return 0;
}

void
view_db_end(struct view_db *c)
{
	/* Read-only: there is nothing to commit, only a snapshot to drop. */
	sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
}

int
view_db_data_version(struct view_db *c, int64_t *v)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (view_db_prepare(c, "reading data_version", "PRAGMA data_version",
	    &st) == -1)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	return view_db_finish(c, "reading data_version", st, rc == SQLITE_ROW);
}

int
view_chains_load(struct view_db *c, struct view_chain **out, size_t *n)
{
	struct view_chain	*v = NULL, *ch;
	sqlite3_stmt		*st;
	size_t			 cnt = 0;
	int			 rc;

	if (sqlite3_prepare_v2(c->db, "SELECT id, name, best_number, "
	    "final_number, updated_at FROM chains ORDER BY name", -1, &st,
	    NULL) != SQLITE_OK) {
		view_db_err(c, "reading chains");
		return CW_EXIT_SYSTEM;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		v = xrealloc(v, (cnt + 1) * sizeof(*v));
		ch = &v[cnt++];
		memset(ch, 0, sizeof(*ch));
		ch->id = sqlite3_column_int64(st, 0);
		ch->name = xstrdup((const char *)sqlite3_column_text(st, 1));
		if ((ch->has_best = sqlite3_column_type(st, 2) != SQLITE_NULL))
			ch->best_number = sqlite3_column_int64(st, 2);
		if ((ch->has_final = sqlite3_column_type(st, 3) !=
		    SQLITE_NULL))
			ch->final_number = sqlite3_column_int64(st, 3);
		if ((ch->has_updated = sqlite3_column_type(st, 4) !=
		    SQLITE_NULL))
			ch->updated_at = sqlite3_column_int64(st, 4);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		view_db_err(c, "reading chains");
		view_chains_free(v, cnt);
		return CW_EXIT_SYSTEM;
	}
	*out = v;
	*n = cnt;
	return CW_EXIT_OK;
}

void
view_chains_free(struct view_chain *v, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

const struct view_chain *
view_chain_find(const struct view_db *c, const struct view_chain *v,
    size_t n, const char *name)
{
	char	*known;
	size_t	 i, len = 1;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	if (n == 0) {
		view_err("%s: no chain '%s' (no chains stored yet)", c->path,
		    name);
		return NULL;
	}
	for (i = 0; i < n; i++)
		len += strlen(v[i].name) + 2;
	known = xmalloc(len);
	known[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i > 0)
			strcat(known, ", ");
		strcat(known, v[i].name);
	}
	view_err("%s: no chain '%s' (known: %s)", c->path, name, known);
	free(known);
	return NULL;
}

int
view_chains_begin(struct view_db *c, const char *name,
    struct view_chain **out, size_t *n, const struct view_chain **one)
{
	int	 rc;

	*one = NULL;
	if (view_db_begin(c) == -1)
		return CW_EXIT_SYSTEM;
	if ((rc = view_chains_load(c, out, n)) != CW_EXIT_OK) {
		view_db_end(c);
		return rc;
	}
	if (name != NULL &&
	    (*one = view_chain_find(c, *out, *n, name)) == NULL) {
		view_chains_free(*out, *n);
		view_db_end(c);
		return CW_EXIT_USAGE;
	}
	return CW_EXIT_OK;
}

char *
view_col_dup(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t != NULL ? xstrdup((const char *)t) : NULL;
}

int
view_col_int(sqlite3_stmt *st, int col, int64_t *v)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return 0;
	*v = sqlite3_column_int64(st, col);
	return 1;
}

int
view_chain_stale(struct view_db *c, const struct view_chain *ch, char *last,
    size_t lastlen)
{
	sqlite3_stmt	*st;
	int		 stale = 0, rc;

	last[0] = '\0';
	if (sqlite3_prepare_v2(c->db, "SELECT count(*) > 0 AND "
	    "count(*) = sum(state IN ('open', 'half-open')), (SELECT name "
	    "FROM endpoints WHERE chain_id = ?1 AND best_at IS NOT NULL "
	    "ORDER BY best_at DESC LIMIT 1) FROM endpoints WHERE "
	    "chain_id = ?1 AND configured = 1", -1, &st, NULL) != SQLITE_OK) {
		view_db_err(c, "reading endpoints");
		return -1;
	}
	sqlite3_bind_int64(st, 1, ch->id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		stale = sqlite3_column_int(st, 0);
		if (sqlite3_column_type(st, 1) == SQLITE_TEXT)
			snprintf(last, lastlen, "%s",
			    (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		view_db_err(c, "reading endpoints");
		return -1;
	}
	return stale;
}
