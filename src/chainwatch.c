/*
 * chainwatch: the command-line view of the store that chainwatchd keeps.
 * It parses the command line, finds the database (-d, or the daemon's
 * configuration) and runs one command over it, read-only.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_fmt.h"
#include "conf.h"
#include "log.h"
#include "util.h"

#define DEFAULT_CONF	CW_SYSCONFDIR "/chainwatch/chainwatch.conf"

static void
usage_to(FILE *fp)
{
	fprintf(fp,
	    "usage: chainwatch [-d database] [-f file] command [argument ...]\n"
	    "       chainwatch standings chain [--window 1h|24h|7d|all] "
	    "[--final]\n"
	    "                            [--limit n] [--json]\n"
	    "       chainwatch verify [chain] [--json]\n"
	    "       chainwatch status [chain] [--json]\n"
	    "       chainwatch endpoints [chain] [--json]\n"
	    "       chainwatch queue [chain] [--json]\n"
	    "       chainwatch blocks chain [--last n] [--json]\n"
	    "       chainwatch [-f file] [-s socket] reload [--json]\n"
	    "       chainwatch -h\n"
	    "\n"
	    "  -d database  the store (default: the database key of the "
	    "configuration)\n"
	    "  -f file      the configuration (default: %s)\n"
	    "  -s socket    chainwatchd's control socket (default: the "
	    "control_socket key\n"
	    "               of the configuration)\n"
	    "\n"
	    "commands:\n"
	    "  standings    miners of a chain ranked by blocks, then work\n"
	    "  verify       recompute the standings from the blocks and "
	    "compare\n"
	    "  status       ok, degraded, stalled or unreachable, per chain\n"
	    "  endpoints    each endpoint's state, lag, heads and URLs\n"
	    "  queue        the catch-up queue, and the items that failed\n"
	    "  blocks       the last blocks of a chain, reorged ones marked\n"
	    "  reload       make chainwatchd reread its configuration\n"
	    "\n"
	    "exit status: 0 ok, 1 verify found differences or a chain is "
	    "not ok,\n"
	    "             or reload found errors in the configuration,\n"
	    "             7 reload: chainwatchd is not running,\n"
	    "             100 usage, 111 cannot open\n", DEFAULT_CONF);
}

static void __attribute__((noreturn))
usage(void)
{
	usage_to(stderr);
	exit(CW_EXIT_USAGE);
}

void
cli_err(const char *fmt, ...)
{
	va_list	 ap;

	fflush(stdout);
	fputs("chainwatch: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int
parse_window(const char *s, enum cli_window *w)
{
	if (strcmp(s, "all") == 0)
		*w = WINDOW_ALL;
	else if (strcmp(s, "1h") == 0)
		*w = WINDOW_1H;
	else if (strcmp(s, "24h") == 0)
		*w = WINDOW_24H;
	else if (strcmp(s, "7d") == 0)
		*w = WINDOW_7D;
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

/* verify, status, endpoints and queue take the same options. */
static const struct option verify_longopts[] = {
	{ "json",	no_argument,		NULL,	OPT_JSON },
	{ "help",	no_argument,		NULL,	OPT_HELP },
	{ NULL,		0,			NULL,	0 },
};

/*
 * getopt_long over the words after the command name.  Long options only;
 * getopt's own messages name the option, ours name the value.
 */
static void
standings_args(int argc, char **argv, struct standings_opts *o)
{
	char		*end;
	long long	 n;
	int		 ch;

	memset(o, 0, sizeof(*o));
	o->window = WINDOW_ALL;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", standings_longopts,
	    NULL)) != -1) {
		switch (ch) {
		case OPT_WINDOW:
			if (parse_window(optarg, &o->window) == -1) {
				cli_err("standings: --window '%s': use 1h, "
				    "24h, 7d or all", optarg);
				exit(CW_EXIT_USAGE);
			}
			break;
		case OPT_FINAL:
			o->final_only = 1;
			break;
		case OPT_LIMIT:
			errno = 0;
			n = strtoll(optarg, &end, 10);
			if (optarg[0] < '0' || optarg[0] > '9' ||
			    *end != '\0' || errno == ERANGE || n < 1) {
				cli_err("standings: --limit '%s': use a "
				    "number of miners, 1 or more", optarg);
				exit(CW_EXIT_USAGE);
			}
			o->limit = n;
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
	if (argc - optind != 1) {
		cli_err("standings: %s", argc == optind ? "name the chain" :
		    "one chain only");
		usage();
	}
	o->chain = argv[optind];
}

/* blocks chain [--last n] [--json]. */
static void
blocks_args(int argc, char **argv, struct blocks_opts *o)
{
	char		*end;
	long long	 n;
	int		 ch;

	memset(o, 0, sizeof(*o));
	o->last = 20;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", blocks_longopts,
	    NULL)) != -1) {
		switch (ch) {
		case OPT_LAST:
			errno = 0;
			n = strtoll(optarg, &end, 10);
			if (optarg[0] < '0' || optarg[0] > '9' ||
			    *end != '\0' || errno == ERANGE || n < 1) {
				cli_err("blocks: --last '%s': use a number of "
				    "heights, 1 or more", optarg);
				exit(CW_EXIT_USAGE);
			}
			o->last = n;
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
	if (argc - optind != 1) {
		cli_err("blocks: %s", argc == optind ? "name the chain" :
		    "one chain only");
		usage();
	}
	o->chain = argv[optind];
}

/* verify, status, endpoints, queue: [chain] [--json]. */
static void
chain_json_args(const char *cmd, int argc, char **argv, const char **chain,
    int *json)
{
	int	 ch;

	*chain = NULL;
	*json = 0;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", verify_longopts,
	    NULL)) != -1) {
		switch (ch) {
		case OPT_JSON:
			*json = 1;
			break;
		case 'h':
		case OPT_HELP:
			usage_to(stdout);
			exit(CW_EXIT_OK);
		default:
			usage();
		}
	}
	if (argc - optind > 1) {
		cli_err("%s: one chain at most", cmd);
		usage();
	}
	*chain = argc > optind ? argv[optind] : NULL;
}

/* reload [--json]: it needs the daemon, not the store. */
static int
reload_cmd(int argc, char **argv, const char *conf_path,
    const char *sock_path)
{
	int	ch, json = 0;

	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", verify_longopts,
	    NULL)) != -1) {
		switch (ch) {
		case OPT_JSON:
			json = 1;
			break;
		case 'h':
		case OPT_HELP:
			usage_to(stdout);
			exit(CW_EXIT_OK);
		default:
			usage();
		}
	}
	if (argc > optind) {
		cli_err("reload: no arguments");
		usage();
	}
	return cli_reload(conf_path, sock_path, json);
}

/*
 * The database key of the daemon's configuration.  A file with errors is
 * not trusted to name the right store: say so, and point at -d.
 */
static int
database_from_conf(const char *path, char *db, size_t dblen)
{
	struct conf	*conf;
	size_t		 i;

	conf = conf_load(path);
	if (conf->n_errors > 0) {
		for (i = 0; i < conf->n_errors; i++)
			fprintf(stderr, "%s\n", conf->errors[i]);
		cli_err("%s: cannot tell where the store is (give it with "
		    "-d database)", path);
		conf_free(conf);
		return -1;
	}
	snprintf(db, dblen, "%s", conf->daemon.database);
	conf_free(conf);
	return 0;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help",	no_argument,	NULL,	'h' },
		{ NULL,		0,		NULL,	0 },
	};
	struct standings_opts	 so;
	struct verify_opts	 vo;
	struct status_opts	 sto;
	struct endpoints_opts	 eo;
	struct queue_opts	 qo;
	struct blocks_opts	 bo;
	struct cli_db		 db;
	const char		*conf_path = DEFAULT_CONF, *db_path = NULL;
	const char		*sock_path = NULL;
	const char		*cmd;
	char			 conf_db[CONF_URL_MAX + 1];
	char			 conf_sock[CONF_URL_MAX + 1];
	int			 ch, rc;

	log_init(1, LOG_LEVEL_WARN, "chainwatch");
	log_procinit("chainwatch");

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
		cli_err("no command (status, endpoints, standings, queue, "
		    "blocks or verify)");
		usage();
	}
	cmd = argv[0];
	if (strcmp(cmd, "reload") == 0)
		return reload_cmd(argc, argv, conf_path, sock_path);
	if (strcmp(cmd, "standings") == 0)
		standings_args(argc, argv, &so);
	else if (strcmp(cmd, "verify") == 0) {
		memset(&vo, 0, sizeof(vo));
		chain_json_args(cmd, argc, argv, &vo.chain, &vo.json);
	} else if (strcmp(cmd, "status") == 0) {
		memset(&sto, 0, sizeof(sto));
		chain_json_args(cmd, argc, argv, &sto.chain, &sto.json);
	} else if (strcmp(cmd, "endpoints") == 0) {
		memset(&eo, 0, sizeof(eo));
		chain_json_args(cmd, argc, argv, &eo.chain, &eo.json);
	} else if (strcmp(cmd, "queue") == 0) {
		memset(&qo, 0, sizeof(qo));
		chain_json_args(cmd, argc, argv, &qo.chain, &qo.json);
	} else if (strcmp(cmd, "blocks") == 0)
		blocks_args(argc, argv, &bo);
	else {
		cli_err("unknown command '%s' (status, endpoints, standings, "
		    "queue, blocks or verify)", cmd);
		usage();
	}

	if (db_path == NULL) {
		if (database_from_conf(conf_path, conf_db,
		    sizeof(conf_db)) == -1)
			return CW_EXIT_SYSTEM;
		db_path = conf_db;
	}
	if ((rc = cli_db_open(&db, db_path)) != CW_EXIT_OK)
		return rc;
	/*
	 * The views say when the daemon is not running.  Without a
	 * configuration to name its socket, they cannot tell: say nothing.
	 */
	if (sock_path != NULL)
		db.socket = sock_path;
	else if (cli_socket_path(conf_path, conf_sock, sizeof(conf_sock),
	    1) == 0)
		db.socket = conf_sock;
	/*
	 * status and standings are shared with the metrics server, which
	 * has no daemon to miss: say here when it is not running.  The
	 * other views say so themselves, and put it in their --json.
	 */
	if (strcmp(cmd, "standings") == 0 || strcmp(cmd, "status") == 0)
		(void)cli_daemon_note(&db);
	if (strcmp(cmd, "standings") == 0)
		rc = cli_standings(&db, &so);
	else if (strcmp(cmd, "verify") == 0)
		rc = cli_verify(&db, &vo);
	else if (strcmp(cmd, "endpoints") == 0)
		rc = cli_endpoints(&db, &eo);
	else if (strcmp(cmd, "queue") == 0)
		rc = cli_queue(&db, &qo);
	else if (strcmp(cmd, "blocks") == 0)
		rc = cli_blocks(&db, &bo);
	else
		rc = cli_status(&db, &sto);
	cli_db_close(&db);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		cli_err("standard output: %s", strerror(errno));
		return CW_EXIT_SYSTEM;
	}
	return rc;
}
