/*
 * chainwatch: the command-line view of the store that chainwatchd keeps.
 * It parses the command line, finds the database (-d, or the daemon's
 * configuration) and runs one command over it, read-only.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_fmt.h"
#include "log.h"
#include "util.h"

#define DEFAULT_CONF	CW_SYSCONFDIR "/chainwatch/chainwatch.conf"

static void
usage_to(FILE *fp)
{
	fprintf(fp,
	    "usage: chainwatch [-d database] [-f file] [-s socket] command "
	    "[argument ...]\n"
	    "       chainwatch standings chain [--window 1h|24h|7d|all] "
	    "[--final]\n"
	    "                            [--limit n] [--json]\n"
	    "       chainwatch verify [chain] [--json]\n"
	    "       chainwatch status [chain] [--json]\n"
	    "       chainwatch endpoints [chain] [--json]\n"
	    "       chainwatch queue [chain] [--json]\n"
	    "       chainwatch blocks chain [--last n] [--json]\n"
	    "       chainwatch forks [chain] [--json]\n"
	    "       chainwatch [-f file] [-s socket] reload [--json]\n"
	    "       chainwatch -h\n"
	    "\n"
	    "  -d database  the store (default: the database key of the "
	    "configuration)\n"
	    "  -f file      the configuration (default: %s)\n"
	    "  -s socket    chainwatchd's control socket, which status and "
	    "the views\n"
	    "               ask whether the daemon runs (default: the "
	    "control_socket key\n"
	    "               of the configuration, if -d is not another "
	    "store)\n"
	    "\n"
	    "commands:\n"
	    "  standings    miners of a chain ranked by blocks, then work\n"
	    "  verify       recompute the standings from the blocks and "
	    "compare\n"
	    "  status       ok, degraded, stalled or unreachable, per chain\n"
	    "  endpoints    each endpoint's state, lag, heads and URLs\n"
	    "  queue        the catch-up queue, and the items that failed\n"
	    "  blocks       the last blocks of a chain, reorged ones marked\n"
	    "  forks        each endpoint's tip, the branches they are on, "
	    "and splits\n"
	    "  reload       make chainwatchd reread its configuration\n"
	    "\n"
	    "exit status: 0 ok, 1 verify found differences, reload found "
	    "errors in the\n"
	    "             configuration, or status found a chain degraded,\n"
	    "             2 status: a chain stalled, 3 status: a chain "
	    "unreachable,\n"
	    "             7 status, reload: chainwatchd is not running,\n"
	    "             100 usage, 111 cannot open\n", DEFAULT_CONF);
}

static void __attribute__((noreturn))
usage(void)
{
	usage_to(stderr);
	exit(CW_EXIT_USAGE);
}

/* The store's and the control socket's errors look like ours. */
static void
view_error(const char *msg)
{
	cli_err("%s", msg);
}

static int
parse_window(const char *s, enum view_window *w)
{
	if (strcmp(s, "all") == 0)
		*w = VIEW_WINDOW_ALL;
	else if (strcmp(s, "1h") == 0)
		*w = VIEW_WINDOW_1H;
	else if (strcmp(s, "24h") == 0)
		*w = VIEW_WINDOW_24H;
	else if (strcmp(s, "7d") == 0)
		*w = VIEW_WINDOW_7D;
	else
		return -1;
	return 0;
}

enum {
	OPT_WINDOW = 256,
	OPT_FINAL,
	OPT_LIMIT,
	OPT_JSON,
	OPT_HELP,
	OPT_LAST,
};

static const struct option standings_longopts[] = {
	{ "window",	required_argument,	NULL,	OPT_WINDOW },
	{ "final",	no_argument,		NULL,	OPT_FINAL },
	{ "limit",	required_argument,	NULL,	OPT_LIMIT },
	{ "json",	no_argument,		NULL,	OPT_JSON },
	{ "help",	no_argument,		NULL,	OPT_HELP },
	{ NULL,		0,			NULL,	0 },
};

static const struct option blocks_longopts[] = {
	{ "last",	required_argument,	NULL,	OPT_LAST },
	{ "json",	no_argument,		NULL,	OPT_JSON },
	{ "help",	no_argument,		NULL,	OPT_HELP },
	{ NULL,		0,			NULL,	0 },
};

/* verify, status, endpoints, queue, forks and reload: --json alone. */
static const struct option json_longopts[] = {
	{ "json",	no_argument,		NULL,	OPT_JSON },
	{ "help",	no_argument,		NULL,	OPT_HELP },
	{ NULL,		0,			NULL,	0 },
};

/*
 * What each command takes after its name: its long options, and a chain
 * named (standings, blocks), perhaps named (the other views) or none
 * (reload).  run is NULL for reload, which needs the daemon, not the
 * store.  note: status and standings are shared with the metrics server,
 * which has no daemon to miss, so main() says when it is not running; the
 * other views say so themselves, and put it in their --json.
 */
enum cmd_chain {
	CHAIN_NAMED,
	CHAIN_ANY,
	CHAIN_NONE,
};

struct cmd {
	const char		*name;
	int			(*run)(struct view_db *,
				    const struct cli_opts *);
	const struct option	*longopts;
	enum cmd_chain		 chain;
	int			 note;
};

static const struct cmd cmds[] = {
	{ "standings",	cli_standings,	standings_longopts, CHAIN_NAMED, 1 },
	{ "verify",	cli_verify,	json_longopts,	    CHAIN_ANY,	 0 },
	{ "status",	cli_status,	json_longopts,	    CHAIN_ANY,	 1 },
	{ "endpoints",	cli_endpoints,	json_longopts,	    CHAIN_ANY,	 0 },
	{ "queue",	cli_queue,	json_longopts,	    CHAIN_ANY,	 0 },
	{ "blocks",	cli_blocks,	blocks_longopts,    CHAIN_NAMED, 0 },
	{ "forks",	cli_forks,	json_longopts,	    CHAIN_ANY,	 0 },
	{ "reload",	NULL,		json_longopts,	    CHAIN_NONE,	 0 },
};

/* "status, endpoints, ... or reload": the commands, from cmds[]. */
static const char *
cmd_names(void)
{
	static char	names[128];
	size_t		n = sizeof(cmds) / sizeof(cmds[0]), len = 0;

	if (names[0] != '\0')
		return names;
	for (size_t i = 0; i < n && len < sizeof(names); i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len,
		    "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
		    cmds[i].name);
	return names;
}

/* --limit and --last: a number of what, 1 or more. */
static int64_t
parse_count(const struct cmd *cmd, const char *opt, const char *what,
    const char *s)
{
	char		*end;
	long long	 n;

	errno = 0;
	n = strtoll(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno == ERANGE ||
	    n < 1) {
		cli_err("%s: --%s '%s': use a number of %s, 1 or more",
		    cmd->name, opt, s, what);
		exit(CW_EXIT_USAGE);
	}
	return n;
}

/*
 * getopt_long over the words after the command name.  Long options only,
 * those of cmd; getopt's own messages name the option, ours name the
 * value.
 */
static void
cmd_args(const struct cmd *cmd, int argc, char **argv, struct cli_opts *o)
{
	int	 ch;

	memset(o, 0, sizeof(*o));
	o->window = VIEW_WINDOW_ALL;
	o->last = 20;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", cmd->longopts,
	    NULL)) != -1) {
		switch (ch) {
		case OPT_WINDOW:
			if (parse_window(optarg, &o->window) == -1) {
				cli_err("%s: --window '%s': use 1h, 24h, 7d "
				    "or all", cmd->name, optarg);
				exit(CW_EXIT_USAGE);
			}
			break;
		case OPT_FINAL:
			o->final_only = 1;
			break;
		case OPT_LIMIT:
			o->limit = parse_count(cmd, "limit", "miners", optarg);
			break;
		case OPT_LAST:
			o->last = parse_count(cmd, "last", "heights", optarg);
			break;
		case OPT_JSON:
			o->json = 1;
			break;
		case 'h':
		case OPT_HELP:
			usage_to(stdout);
			exit(CW_EXIT_OK);
		default:
			usage();
		}
	}
	switch (cmd->chain) {
	case CHAIN_NAMED:
		if (argc - optind != 1) {
			cli_err("%s: %s", cmd->name, argc == optind ?
			    "name the chain" : "one chain only");
			usage();
		}
		break;
	case CHAIN_ANY:
		if (argc - optind > 1) {
			cli_err("%s: one chain at most", cmd->name);
			usage();
		}
		break;
	case CHAIN_NONE:
		if (argc > optind) {
			cli_err("%s: no arguments", cmd->name);
			usage();
		}
		break;
	}
	o->chain = argc > optind ? argv[optind] : NULL;
}

/*
 * 1 if the store at a (the configuration's) is the file b: only then is
 * the configuration's control socket that store's daemon's.
 */
static int
same_file(const char *a, const char *b)
{
	struct stat	 sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help",	no_argument,	NULL,	'h' },
		{ NULL,		0,		NULL,	0 },
	};
	const struct cmd	*cmd = NULL;
	struct cli_opts		 o;
	struct view_db		 db;
	const char		*conf_path = DEFAULT_CONF, *db_path = NULL;
	const char		*sock_path = NULL;
	struct cli_conf		 conf;
	int			 have_conf;
	size_t			 i;
	int			 ch, rc;

	log_init(1, LOG_LEVEL_WARN, "chainwatch");
	log_procinit("chainwatch");
	view_set_err(view_error);

	/* "+": global options end at the command name. */
	while ((ch = getopt_long(argc, argv, "+d:f:hs:", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'd':
			db_path = optarg;
			break;
		case 'f':
			conf_path = optarg;
			break;
		case 's':
			sock_path = optarg;
			break;
		case 'h':
			usage_to(stdout);
			return CW_EXIT_OK;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		cli_err("no command (%s)", cmd_names());
		usage();
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(argv[0], cmds[i].name) == 0)
			cmd = &cmds[i];
	if (cmd == NULL) {
		cli_err("unknown command '%s' (%s)", argv[0], cmd_names());
		usage();
	}
	cmd_args(cmd, argc, argv, &o);
	if (cmd->run == NULL)
		return cli_reload(conf_path, sock_path, o.json);

	/*
	 * Only [daemon]'s database, control_socket and pidfile are read: an
	 * error elsewhere (a chain section being edited while the daemon
	 * runs on what it loaded before) is a warning, not a reason to fail
	 * a status that scripts rely on.  With -d the file is only asked for
	 * the socket and the pidfile, quietly.
	 */
	have_conf = cli_conf_daemon(conf_path, &conf, db_path != NULL) == 0;
	if (db_path == NULL) {
		if (!have_conf) {
			cli_err("%s: cannot tell where the store is (give it "
			    "with -d database)", conf_path);
			return CW_EXIT_SYSTEM;
		}
		db_path = conf.database;
	}
	/*
	 * Not sandboxed: a temporary file keeps verify's sorts of a whole
	 * chain out of memory (some 280 MB more on Planck's 1.65 M blocks).
	 */
	if ((rc = view_db_open(&db, db_path, VIEW_TEMP_FILE)) != CW_EXIT_OK)
		return rc;
	/*
	 * The views say when the daemon is not running.  Without a
	 * configuration to name its socket, they cannot tell: say nothing.
	 * A store given with -d is the configuration's only if it is the
	 * same file; another store's daemon has another socket.
	 */
	if (sock_path != NULL)
		db.socket = sock_path;
	else if (have_conf && (db_path == conf.database ||
	    same_file(conf.database, db_path))) {
		db.socket = conf.control_socket;
		db.pidfile = conf.pidfile;
	}
	if (cmd->note)
		(void)cli_daemon_note(&db);
	rc = cmd->run(&db, &o);
	json_decref(db.daemon_status);
	view_db_close(&db);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		cli_err("standard output: %s", strerror(errno));
		return CW_EXIT_SYSTEM;
	}
	return rc;
}
