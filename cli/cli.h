/*
 * The chainwatch command-line tool: what its commands share.  chainwatch.c
 * parses the command line, cli_fmt.c formats for people and for --json,
 * and each command has its own file (cli_standings.c, cli_verify.c,
 * cli_status.c, cli_endpoints.c, cli_queue.c, cli_blocks.c,
 * cli_forks.c).  The store is read through libcwview.a (src/view.h), as
 * chainwatch-metrics reads it.
 */
#ifndef CW_CLI_H
#define CW_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "view.h"

/* Beside util.h's codes: what verify exits with when it found any. */
#define CLI_EXIT_DIFFERENCES	1

/* The command line of a view; each reads the options it takes. */
struct cli_opts {
	const char	*chain;		/* NULL: every chain */
	int		 json;
	enum view_window window;	/* standings */
	int		 final_only;	/* standings */
	int64_t		 limit;		/* standings; 0: every miner */
	int64_t		 last;		/* blocks: heights, 1 or more */
};

/* cli_fmt.c: "chainwatch: " + message on stderr. */
void	cli_err(const char *, ...) __attribute__((format(printf, 1, 2)));

int	cli_standings(struct view_db *, const struct cli_opts *);
int	cli_verify(struct view_db *, const struct cli_opts *);
int	cli_status(struct view_db *, const struct cli_opts *);
int	cli_endpoints(struct view_db *, const struct cli_opts *);
int	cli_queue(struct view_db *, const struct cli_opts *);
int	cli_blocks(struct view_db *, const struct cli_opts *);
int	cli_forks(struct view_db *, const struct cli_opts *);

/*
 * What status exits with, the worst of what it found: a chain degraded
 * (or the daemon's store blocked), stalled, unreachable; and the daemon
 * not running, whatever the chains.
 */
#define CLI_EXIT_DEGRADED	1
#define CLI_EXIT_STALLED	2
#define CLI_EXIT_UNREACHABLE	3

/* cli_daemon.c: the running daemon, through its control socket. */
#define CLI_EXIT_NOT_RUNNING	7	/* reload, status: no daemon answers */

/* The keys of the daemon's configuration that the views read. */
struct cli_conf {
	char	database[CONF_URL_MAX + 1];
	char	control_socket[CONF_URL_MAX + 1];
	char	pidfile[CONF_URL_MAX + 1];
};
/*
 * Those keys from the configuration at path, even when it has errors
 * elsewhere (a typo in a chain section while the daemon runs on the file
 * it loaded before): 0, after a warning with each error unless quiet.
 * -1 if the file cannot be read or an error may concern those keys
 * (one of them, an unknown key in [daemon], a broken section header
 * where [daemon] may have been meant): the errors are printed unless
 * quiet.
 */
int	cli_conf_daemon(const char *path, struct cli_conf *out, int quiet);
/*
 * The control_socket key of the configuration at conf_path, into out.
 * -1 if the file cannot be read or has errors: they are printed unless
 * quiet.
 */
int	cli_socket_path(const char *conf_path, char *out, size_t outlen,
	    int quiet);
/*
 * When chainwatchd does not answer on its control socket, say so on
 * stderr, with the age of the store being shown.  Returns what
 * view_daemon_state() said: 1 running, 0 not running, -1 cannot tell.
 */
int	cli_daemon_note(struct view_db *);
/*
 * How old the store is: the last head the daemon stored, else the last
 * time it wrote the file (the -wal, if it has one).  0 if unknown.
 */
int64_t	cli_store_time(struct view_db *);

/* cli_reload.c */
/*
 * Ask the daemon at socket_path (NULL: the one conf_path names) to reload;
 * print its tally, or the configuration's errors on stderr.  Returns the
 * exit code.
 */
int	cli_reload(const char *conf_path, const char *socket_path, int json);
/* "reloaded: 1 endpoint added, 1 changed, 2 kept" (", N removed" if any). */
void	cli_reload_line(char *out, size_t outlen, uint64_t added,
	    uint64_t changed, uint64_t removed, uint64_t kept);

#endif
