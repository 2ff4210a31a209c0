/*
 * Whether chainwatchd runs, as the commands need to know: where its
 * store, control socket and pidfile are (the only keys of its
 * configuration the views need, read even when the file has errors
 * elsewhere), and the note a view prints when nothing answers there.
 * The store can be read either way; this only tells live state from a
 * stopped daemon's.
 */
#include "config.h"

#include <sys/stat.h>

#include <ctype.h>
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

/* What the tolerant reading needs of each line of the file. */
struct conf_line {
	int	 header;	/* a "[...]" line */
	int	 daemon;	/* in a [daemon] section, or its header */
	int	 none;		/* before any section */
	char	 key[64];	/* the key of a KEY = VALUE line, or "" */
};

static int
needed_key(const char *key)
{
	return strcmp(key, "database") == 0 ||
	    strcmp(key, "control_socket") == 0 ||
	    strcmp(key, "pidfile") == 0;
}

static int
daemon_key(const char *key)
{
	for (size_t i = 0; i < conf_nkeys; i++)
		if (conf_keys[i].section == CONF_DAEMON &&
		    strcmp(conf_keys[i].key, key) == 0)
			return 1;
	return 0;
}

/*
 * The file's lines as conf.c opens sections (a line "[daemon]" opens the
 * daemon's; any other "[" line another), into *out; *daemon_seen whether
 * a [daemon] header is there.  -1 if it cannot be read.
 */
static int
conf_lines(const char *path, struct conf_line **out, size_t *n,
    int *daemon_seen)
{
	FILE		*fp;
	struct conf_line *v = NULL, *l;
	char		 line[8192], *p, *q;
	int		 sec = 0;	/* 0 none, 1 daemon, 2 other */
	int		 c;
	size_t		 len;

	*n = 0;
	*daemon_seen = 0;
	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp) != NULL) {
		len = strlen(line);
		/* Too long for us: its key is not known. */
		if (len > 0 && line[len - 1] != '\n' && !feof(fp)) {
			while ((c = fgetc(fp)) != EOF && c != '\n')
				;
			line[0] = '\0';
		}
		v = xrealloc(v, (*n + 1) * sizeof(*v));
		l = &v[(*n)++];
		memset(l, 0, sizeof(*l));
		line[strcspn(line, "\r\n")] = '\0';
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (*p == '[') {
			l->header = 1;
			sec = strncmp(p, "[daemon]", 8) == 0 ? 1 : 2;
			if (sec == 1)
				*daemon_seen = 1;
		} else if (*p != '\0' && *p != '#' && *p != ';') {
			q = p + strcspn(p, "=:");
			while (q > p && isspace((unsigned char)q[-1]))
				q--;
			snprintf(l->key, sizeof(l->key), "%.*s", (int)(q - p),
			    p);
		}
		l->daemon = sec == 1;
		l->none = sec == 0;
	}
	c = ferror(fp);
	fclose(fp);
	if (c) {
		free(v);
		return -1;
	}
	*out = v;
	return 0;
}

/*
 * Whether the error msg ("PATH:LINE: ...") may have changed what the
 * views read: an error on one of their keys, anywhere in the [daemon]
 * section but on a key it knows (a misspelt "databse" could be the
 * store), or on a section header that might have been [daemon]'s.
 */
static int
error_matters(const struct conf *conf, const char *msg,
    const struct conf_line *v, size_t n, int daemon_seen)
{
	size_t		 plen = strlen(conf->path);
	const char	*p = msg + plen + 1;
	char		*end;
	long		 line;
	const struct conf_line *l;

	if (strncmp(msg, conf->path, plen) != 0 || msg[plen] != ':')
		return 1;
	/* No line: whole-file checks ("no [chain NAME] section"). */
	if (*p < '0' || *p > '9')
		return 0;
	line = strtol(p, &end, 10);
	if (*end != ':' || line < 1 || (size_t)line > n)
		return 1;
	l = &v[line - 1];
	if (l->header)
		return l->daemon || !daemon_seen;
	if (l->daemon)
		return !daemon_key(l->key) || needed_key(l->key);
	return needed_key(l->key);
}

int
cli_conf_daemon(const char *path, struct cli_conf *out, int quiet)
{
	struct conf		*conf;
	struct conf_line	*v = NULL;
	size_t			 n = 0, i, bad = 0;
	int			 daemon_seen;

	memset(out, 0, sizeof(*out));
	conf = conf_load(path);
	if (conf->n_errors > 0) {
		if (conf_lines(path, &v, &n, &daemon_seen) == -1)
			bad = conf->n_errors;
		for (i = 0; i < conf->n_errors && bad == 0; i++)
			bad += error_matters(conf, conf->errors[i], v, n,
			    daemon_seen);
		free(v);
		if (!quiet) {
			fflush(stdout);
			for (i = 0; i < conf->n_errors; i++)
				fprintf(stderr, "%s%s\n", bad > 0 ? "" :
				    "chainwatch: warning: ", conf->errors[i]);
			if (bad == 0)
				cli_err("warning: %s has errors that "
				    "chainwatchd would refuse, none in the "
				    "[daemon] keys read here (database, "
				    "control_socket, pidfile)", path);
		}
		if (bad > 0) {
			conf_free(conf);
			return -1;
		}
	}
	snprintf(out->database, sizeof(out->database), "%s",
	    conf->daemon.database);
	snprintf(out->control_socket, sizeof(out->control_socket), "%s",
	    conf->daemon.control_socket);
	snprintf(out->pidfile, sizeof(out->pidfile), "%s",
	    conf->daemon.pidfile);
	conf_free(conf);
	return 0;
}

int64_t
cli_store_time(struct view_db *c)
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
	int64_t	 t;
	char	 age[VIEW_AGE_LEN];
	int	 running;

	if (c->socket == NULL)
		return -1;
	running = view_daemon_ask(c);
	if (running == 1)
		return 1;
	if ((t = cli_store_time(c)) > 0)
		view_ago((int64_t)now_wall_ms() - t, age, sizeof(age));
	if (running == 0)
		cli_err("chainwatchd is not running; this is the store as of "
		    "%s", t > 0 ? age : "an unknown time");
	else
		cli_err("cannot tell whether chainwatchd is running; this is "
		    "the store as of %s", t > 0 ? age : "an unknown time");
	return running;
}
