/*
 * Whether chainwatchd runs, as the commands need to know: where its
 * control socket is, and the note a view prints when nothing answers
 * there.  The store can be read either way; this only tells live state
 * from a stopped daemon's.
 */
#include "config.h"

#include <sys/stat.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conf.h"
#include "util.h"
#include "view.h"
#include "view_ctl.h"

int
cli_socket_path(const char *conf_path, char *out, size_t outlen, int quiet)
{
	struct conf	*conf;

	conf = conf_load(conf_path);
	if (conf->n_errors > 0) {
		if (!quiet) {
			fflush(stdout);
			for (size_t i = 0; i < conf->n_errors; i++)
				fprintf(stderr, "%s\n", conf->errors[i]);
		}
		conf_free(conf);
		return -1;
	}
	snprintf(out, outlen, "%s", conf->daemon.control_socket);
	conf_free(conf);
	return 0;
}

/*
 * How old the store is: the last head the daemon stored, else the last
 * time it wrote the file (the -wal, if it has one).  0 if unknown.
 */
static int64_t
store_time(struct view_db *c)
{
	sqlite3_stmt	*st;
	struct stat	 sb;
	char		*wal;
	int64_t		 t = 0;

	if (sqlite3_prepare_v2(c->db, "SELECT max(updated_at) FROM chains",
	    -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			t = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if (t > 0)
		return t;
	if (stat(c->path, &sb) == 0)
		t = (int64_t)sb.st_mtim.tv_sec * 1000 +
		    sb.st_mtim.tv_nsec / 1000000;
	wal = xmalloc(strlen(c->path) + 5);
	sprintf(wal, "%s-wal", c->path);
	if (stat(wal, &sb) == 0 && (int64_t)sb.st_mtim.tv_sec * 1000 +
	    sb.st_mtim.tv_nsec / 1000000 > t)
		t = (int64_t)sb.st_mtim.tv_sec * 1000 +
		    sb.st_mtim.tv_nsec / 1000000;
	free(wal);
	return t;
}

int
cli_daemon_note(struct view_db *c)
{
	json_t	*status = NULL;
	int64_t	 t;
	char	 age[VIEW_AGE_LEN];
	int	 running;

	if (c->socket == NULL)
		return -1;
	running = view_daemon_state(c->socket, &status);
	json_decref(status);
	if (running == 1)
		return 1;
	if ((t = store_time(c)) > 0)
		view_ago((int64_t)now_wall_ms() - t, age, sizeof(age));
	if (running == 0)
		cli_err("chainwatchd is not running; this is the store as of "
		    "%s", t > 0 ? age : "an unknown time");
	else
		cli_err("cannot tell whether chainwatchd is running; this is "
		    "the store as of %s", t > 0 ? age : "an unknown time");
	return running;
}
