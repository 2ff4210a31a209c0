/*
 * chainwatchd: reads the configuration, starts one chainwatch-worker per
 * endpoint and supervises them.  Signals arrive as libev watchers on the
 * default loop; handlers only turn them into events handled in order.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "chainwatchd.h"
#include "sup_chain.h"
#include "sup_load.h"
#include "sup_queue.h"
#include "sup_control.h"
#include "sup_forks.h"
#include "sup_health.h"
#include "sup_judge.h"
#include "sup_metrics.h"
#include "sup_primary.h"
#include "sup_reload.h"
#include "sup_sched.h"
#include "sup_tick.h"
#include "sup_spawn.h"
#include "sup_store.h"
#include "util.h"

#define DEFAULT_CONF	CW_SYSCONFDIR "/chainwatch/chainwatch.conf"
#define STOP_COMMIT_MS	300	/* the last commit's wait for a lock */

struct conf	*sup_conf;
int		 sup_stopping;
int		 sup_verbose;
struct ev_loop	*sup_loop;

static int	 pidfile_fd = -1;

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: chainwatchd [-dnv] [-f file]\n");
	exit(CW_EXIT_USAGE);
}

/* A program the daemon starts: there, and executable. */
static int
check_program(const struct conf *conf, const char *key, const char *path)
{
	char	where[PATH_MAX + 128];

	if (access(path, X_OK) == 0)
		return 0;
	conf_daemon_where(conf, key, path, where, sizeof(where));
	fprintf(stderr, "%s: %s\n", where, strerror(errno));
	return -1;
}

/*
 * A file the daemon creates (or opens for writing): its directory is
 * there, a directory, and writable; the file, if there, writable too.
 * The daemon creates no directory: a missing one would end it (111).
 */
static int
check_dir_of(const struct conf *conf, const char *key, const char *path)
{
	char		 where[PATH_MAX + 128], dir[PATH_MAX], *slash;
	struct stat	 st;

	conf_daemon_where(conf, key, path, where, sizeof(where));
	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &st) == -1) {
		fprintf(stderr, "%s: directory %s: %s\n", where, dir,
		    strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: %s is not a directory\n", where, dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK) == -1) {
		fprintf(stderr, "%s: directory %s: %s\n", where, dir,
		    strerror(errno));
		return -1;
	}
	if (access(path, F_OK) == 0 && access(path, W_OK) == -1) {
		fprintf(stderr, "%s: %s\n", where, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Checks of the running system that -n also makes: things a parse cannot
 * see but that would stop the daemon or its workers.  Every path it will
 * need: the programs it starts, and the directories of the files it
 * creates, each error with the line that set it (or saying it is the
 * default).
 */
static int
check_environment(const struct conf *conf)
{
	const struct conf_daemon	*d = &conf->daemon;
	char				 where[PATH_MAX + 128];
	int				 bad = 0;

	if (check_program(conf, "worker", d->worker) == -1)
		bad = 1;
	if (strcmp(d->metrics_listen, "none") != 0 &&
	    check_program(conf, "metrics_server", d->metrics_server) == -1)
		bad = 1;
	if (check_dir_of(conf, "pidfile", d->pidfile) == -1)
		bad = 1;
	if (check_dir_of(conf, "control_socket", d->control_socket) == -1)
		bad = 1;
	if (check_dir_of(conf, "database", d->database) == -1)
		bad = 1;
	if (geteuid() == 0 && d->user[0] != '\0' &&
	    getpwnam(d->user) == NULL) {
		conf_daemon_where(conf, "user", d->user, where, sizeof(where));
		fprintf(stderr, "%s does not exist (workers run as this "
		    "user)\n", where);
		bad = 1;
	}
	if (sup_control_check(conf) == -1)
		bad = 1;
	return bad ? -1 : 0;
}

/* Write our pid, holding a lock that says we run. */
static void
pidfile_write(const char *path)
{
	char	buf[32];
	int	n;

	pidfile_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (pidfile_fd == -1)
		fatal(CW_EXIT_SYSTEM, "pidfile %s", path);
	if (flock(pidfile_fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno == EWOULDBLOCK) {
			n = (int)read(pidfile_fd, buf, sizeof(buf) - 1);
			buf[n > 0 ? n : 0] = '\0';
			buf[strcspn(buf, "\n")] = '\0';
			fatalx(CW_EXIT_SYSTEM, "already running (pid %s, "
			    "pidfile %s)", buf, path);
		}
		fatal(CW_EXIT_SYSTEM, "pidfile %s: flock", path);
	}
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(pidfile_fd, 0) == -1 ||
	    pwrite(pidfile_fd, buf, (size_t)n, 0) != n)
		fatal(CW_EXIT_SYSTEM, "pidfile %s: write", path);
}

static void
pidfile_remove(void)
{
	if (pidfile_fd == -1)
		return;
	(void)unlink(sup_conf->daemon.pidfile);
	close(pidfile_fd);
	pidfile_fd = -1;
}

/*
 * Detach, but let the parent exit only once the daemon runs (pidfile and
 * database open), with the daemon's own status if it fails before that:
 * init scripts and Type=forking units then see real errors.  Until then
 * errors still go to the caller's stderr.  Returns the pipe to report on.
 */
static int
daemonize_begin(void)
{
	int	p[2], status;
	char	c;
	pid_t	pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		fatal(CW_EXIT_SYSTEM, "pipe");
	switch (pid = fork()) {
	case -1:
		fatal(CW_EXIT_SYSTEM, "fork");
	case 0:
		close(p[0]);
		if (setsid() == -1)
			fatal(CW_EXIT_SYSTEM, "setsid");
		if (chdir("/") == -1)
			fatal(CW_EXIT_SYSTEM, "chdir /");
		return p[1];
	default:
		close(p[1]);
		if (read(p[0], &c, 1) == 1)
			_exit(CW_EXIT_OK);
		if (waitpid(pid, &status, 0) == pid && WIFEXITED(status))
			_exit(WEXITSTATUS(status));
		_exit(CW_EXIT_SYSTEM);
	}
}

/* Running: tell the parent, then log to syslog and drop the terminal. */
static void
daemonize_done(int fd, enum log_level level)
{
	int	null;

	log_init(0, level, "chainwatchd");
	if ((null = open("/dev/null", O_RDWR)) == -1)
		fatal(CW_EXIT_SYSTEM, "/dev/null");
	dup2(null, STDIN_FILENO);
	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	if (null > STDERR_FILENO)
		close(null);
	if (write(fd, "", 1) != 1)
		log_warn("cannot report readiness");
	close(fd);
}

/*
 * Before each commit of the store: the chains' in-memory state that
 * belongs to the transaction, and a word to the scheduler when the
 * transaction brings it work.  Registered here, so that the store calls
 * nothing above it.
 */
static void
precommit(void)
{
	sup_chains_flush();
	if (queue_added())
		sched_kick();
}

/*
 * The store rolled a transaction back: the chains and the scheduler
 * read again what it holds.  And it takes writes again: what waited
 * goes in, then new work.
 */
static void
store_rolled_back(void)
{
	sup_chains_reload(now_wall_ms());
	sched_reset();
}

static void
store_resumed(void)
{
	sup_spawn_resume();
	sched_kick();
}

static void
signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct reload_result	r;

	switch (w->signum) {
	case SIGTERM:
	case SIGINT:
		if (!sup_stopping) {
			log_info("signal %d: stopping %s", w->signum,
			    sup_workers != NULL ? "the workers" : "");
			sup_metrics_stop();
			sup_stop_all();
		}
		break;
	case SIGHUP:
		if (sup_stopping)
			break;
		log_info("SIGHUP: reloading %s", sup_conf->path);
		sup_reload(&r);
		sup_reload_result_free(&r);
		break;
	}
}

/*
 * A descriptor per worker and some of its own: the soft limit goes up,
 * within the hard one, to twice what the configuration needs and 1024
 * more (room for a reload that adds endpoints); a service manager's soft
 * limit of 1024 is short of a thousand endpoints.  A log line says when
 * the hard limit is short too.
 */
static void
fd_room(const struct conf *conf)
{
	struct rlimit	rl;
	rlim_t		need = 64, want;

	for (size_t i = 0; i < conf->n_chains; i++)
		need += conf->chains[i].n_endpoints;
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return;
	want = 2 * need + 1024;
	if (rl.rlim_max != RLIM_INFINITY && want > rl.rlim_max)
		want = rl.rlim_max;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		log_debug("descriptors: soft limit %llu raised to %llu",
		    (unsigned long long)rl.rlim_cur, (unsigned long long)want);
		rl.rlim_cur = want;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
		log_warnx("%llu endpoint%s need%s about %llu descriptors, and "
		    "the limit is %llu: raise RLIMIT_NOFILE (LimitNOFILE=, "
		    "ulimit -Hn)", (unsigned long long)(need - 64),
		    need - 64 == 1 ? "" : "s", need - 64 == 1 ? "s" : "",
		    (unsigned long long)need, (unsigned long long)rl.rlim_cur);
}

/*
 * The daemon's main loop: one turn at every tick (tick_init) and whenever
 * work may have come (sched_kick).  Its order is the daemon's:
 *   1. a flood of one log line that stopped is told;
 *   2. each chain's one subscription is kept (it needs no store);
 *   3. nothing more while the store is blocked: no lease, no request;
 *   4. leases a rollback left owed go back to the queue;
 *   5. the chains' clocks: claims judged, ranges queued, finality moved;
 *   6. what the chains concluded about endpoints goes to their health
 *      (as after every head and answer, sup_dispatch.c);
 *   7. endpoints judged: overdue (unresponsive), a slow chain, the
 *      breakers' peer rule;
 *   8. the queue's work: expired leases back, hedges, new leases;
 *   9. the batch is committed if it is due;
 *  10. memory freed since is given back to the system (every 30 s).
 * What a judgement (6, 7, or an answer's) does to an endpoint's health
 * the scheduler carries out at once (sched_health): an endpoint no
 * longer usable has its leases back before step 8 leases again.
 * Answers, heads and worker events come between turns (sup_dispatch.c),
 * signals and the control socket too.
 */
static void
main_turn(struct ev_loop *loop, ev_timer *t, int revents)
{
	log_flood_flush(0);
	sup_primary_tick();
	if (!store_ready())
		return;
	sched_release_owed();
	judge_chains(now_wall_ms());
	judge_overdue();
	tick_work();
	store_maybe_flush();
	mem_give_back(now_mono_ms());
}

/* The command line: -d, -f file, -n, -v; usage() on anything else. */
static void
options(int argc, char *argv[], const char **path, int *foreground,
    int *check)
{
	int	ch;

	while ((ch = getopt(argc, argv, "df:hnv")) != -1) {
		switch (ch) {
		case 'd':
			*foreground = 1;
			break;
		case 'f':
			*path = optarg;
			break;
		case 'n':
			*check = 1;
			break;
		case 'v':
			sup_verbose = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
}

/*
 * The configuration at path, checked with its environment: NULL after
 * its errors on stderr, *status the exit status (also for -n, which
 * ends here).
 */
static struct conf *
configuration(const char *path, int check, int *status)
{
	struct conf	*conf = conf_load(path);
	char		 abspath[PATH_MAX];

	*status = CW_EXIT_CONFIG;
	if (conf->n_errors > 0) {
		for (size_t i = 0; i < conf->n_errors; i++)
			fprintf(stderr, "%s\n", conf->errors[i]);
		conf_free(conf);
		return NULL;
	}
	if (check_environment(conf) == -1) {
		conf_free(conf);
		return NULL;
	}
	if (check) {
		if (sup_verbose)
			conf_dump(conf, stdout);
		printf("configuration OK\n");
		conf_free(conf);
		*status = CW_EXIT_OK;
		return NULL;
	}
	/* Reloads happen after chdir("/"): remember where the file is. */
	if (path[0] != '/' && realpath(path, abspath) != NULL)
		snprintf(conf->path, sizeof(conf->path), "%s", abspath);
	return conf;
}

/* The store, the chains and the control socket; exits if one fails. */
static void
open_all(struct conf *conf)
{
	store_set_group(sup_control_gid(conf));
	if (store_open(conf->daemon.database, conf->daemon.synchronous,
	    sup_loop) == -1) {
		pidfile_remove();
		exit(CW_EXIT_SYSTEM);
	}
	sup_reload_synchronous(conf->daemon.synchronous);
	store_set_precommit(precommit);
	store_set_hooks(store_rolled_back, store_resumed);
	store_set_reserve(conf->daemon.store_reserve);
	store_set_cache(conf->daemon.store_cache);
	sup_chains_load(conf, now_wall_ms());
	load_conf(conf);
	health_sync(conf);
	if (sup_control_init(conf) == -1) {
		store_close();
		sup_chains_free();
		pidfile_remove();
		conf_free(conf);
		exit(CW_EXIT_SYSTEM);
	}
}

/* The signals, the main turn, a worker per endpoint, the metrics. */
static void
start_all(struct conf *conf)
{
	static ev_signal	sig_term, sig_int, sig_hup;

	ev_signal_init(&sig_term, signal_cb, SIGTERM);
	ev_signal_init(&sig_int, signal_cb, SIGINT);
	ev_signal_init(&sig_hup, signal_cb, SIGHUP);
	ev_signal_start(sup_loop, &sig_term);
	ev_signal_start(sup_loop, &sig_int);
	ev_signal_start(sup_loop, &sig_hup);

	log_info("chainwatchd %s starting: %s, %zu chain%s", PACKAGE_VERSION,
	    conf->path, conf->n_chains, conf->n_chains == 1 ? "" : "s");
	fd_room(conf);
	tick_init(main_turn);
	sup_forks_init();
	for (size_t i = 0; i < conf->n_chains; i++)
		for (size_t j = 0; j < conf->chains[i].n_endpoints; j++)
			sup_worker_event(sup_worker_new(conf, &conf->chains[i],
			    &conf->chains[i].endpoints[j]), CE_START);
	sup_metrics_start(conf);
}

/* After the loop: every worker stopped; the store closed last. */
static void
stop_all(void)
{
	sup_metrics_wait();
	log_info("all workers stopped; exiting");
	sup_control_stop();
	sched_stop();
	sup_forks_stop();
	/* A blocked store does not hold up the exit: one short try. */
	store_flush_last(STOP_COMMIT_MS);
	store_close();
	log_info("store closed; stopped");
	sup_chains_free();
	pidfile_remove();
	conf_free(sup_conf);
	ev_loop_destroy(sup_loop);
}

int
main(int argc, char *argv[])
{
	const char	*path = DEFAULT_CONF;
	int		 foreground = 0, check = 0, status, ready_fd = -1;
	struct conf	*conf;
	enum log_level	 level;

	options(argc, argv, &path, &foreground, &check);
	log_init(1, LOG_LEVEL_INFO, "chainwatchd");
	log_procinit("sup");
	if ((conf = configuration(path, check, &status)) == NULL)
		return status;
	sup_conf = conf;
	url_secret_words(conf->daemon.secret_params);

	level = sup_verbose ? LOG_LEVEL_DEBUG :
	    (enum log_level)conf->daemon.log_level;
	log_init(1, level, "chainwatchd");
	if (!foreground)
		ready_fd = daemonize_begin();
	signal(SIGPIPE, SIG_IGN);
	mem_setup_children();
	pidfile_write(conf->daemon.pidfile);
	if ((sup_loop = ev_default_loop(EVFLAG_AUTO)) == NULL)
		fatalx(CW_EXIT_SYSTEM, "libev: no default loop");
	open_all(conf);
	if (!foreground)
		daemonize_done(ready_fd, level);
	start_all(conf);
	ev_run(sup_loop, 0);
	stop_all();
	return CW_EXIT_OK;
}
