/*
 * Logging for every chainwatch program: stderr in the foreground, syslog
 * as a daemon.  Lines carry the process tag so that the supervisor's and
 * each worker's messages can be told apart in one log.  A flood of one
 * info or warning line is held back and counted (logflood.h); debug lines,
 * asked for, and the last words of fatal() never are.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "logflood.h"

static int		 log_stderr = 1;
static enum log_level	 log_level = LOG_LEVEL_INFO;
static char		 log_tag[64];

static const char *const level_names[] = { "error", "warn", "info", "debug" };
static const int syslog_prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };

static struct logflood	 flood;
static void		 log_flood_told(const struct logflood_report *);
static void		 log_flood_exit(void);

void
log_init(int to_stderr, enum log_level level, const char *ident)
{
	static int	at_exit;

	log_stderr = to_stderr;
	log_level = level;
	if (!at_exit && atexit(log_flood_exit) == 0)
		at_exit = 1;
	if (!to_stderr)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	tzset();
}

void
log_setlevel(enum log_level level)
{
	log_level = level;
}

enum log_level
log_getlevel(void)
{
	return log_level;
}

int
log_tostderr(void)
{
	return log_stderr;
}

void
log_procinit(const char *tag)
{
	snprintf(log_tag, sizeof(log_tag), "%s", tag != NULL ? tag : "");
}

const char *
log_level_name(enum log_level level)
{
	if ((unsigned)level > LOG_LEVEL_DEBUG)
		return "?";
	return level_names[level];
}

int
log_level_parse(const char *s, enum log_level *out)
{
	for (unsigned i = 0; i <= LOG_LEVEL_DEBUG; i++)
		if (strcmp(s, level_names[i]) == 0) {
			*out = (enum log_level)i;
			return 0;
		}
	return -1;
}

static uint64_t
log_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* One line out, as it is. */
static void
log_put(enum log_level level, const char *msg)
{
	if (log_stderr) {
		char		ts[32];
		struct timespec	now;
		struct tm	tm;

		clock_gettime(CLOCK_REALTIME, &now);
		localtime_r(&now.tv_sec, &tm);
		strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
		fprintf(stderr, "%s.%03ld %s%s%s\n", ts, now.tv_nsec / 1000000,
		    log_tag, log_tag[0] != '\0' ? ": " : "", msg);
		fflush(stderr);
	} else
		syslog(syslog_prio[level], "%s%s%s", log_tag,
		    log_tag[0] != '\0' ? ": " : "", msg);
}

/* At the level of the lines it counts. */
static void
log_flood_told(const struct logflood_report *r)
{
	char	msg[256];

	snprintf(msg, sizeof(msg), "... %u more like \"%s\" in %llu ms",
	    r->n, r->sample, (unsigned long long)r->span_ms);
	log_put((enum log_level)r->level, msg);
}

/*
 * Tell the lines held back whose window is over (all of them, if all is
 * set): chainwatchd calls it from a timer, every program at exit.
 */
void
log_flood_flush(int all)
{
	struct logflood_report	r;
	uint64_t		now = log_now_ms();
	int			saved = errno;

	while (logflood_take(&flood, now, all, &r))
		log_flood_told(&r);
	errno = saved;
}

static void
log_flood_exit(void)
{
	log_flood_flush(1);
}

/* key is the template that names the line: fmt, or the caller's. */
static void
vlog_key(enum log_level level, const char *key, const char *fmt, va_list ap)
{
	char			 msg[2048];
	struct logflood_report	 r;
	uint64_t		 now;
	int			 saved = errno, pass;

	if (level > log_level)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (level == LOG_LEVEL_INFO || level == LOG_LEVEL_WARN) {
		now = log_now_ms();
		while (logflood_take(&flood, now, 0, &r))
			log_flood_told(&r);
		pass = logflood_pass(&flood, logflood_key(key, msg, level),
		    level, msg, now, &r);
		if (r.n > 0)
			log_flood_told(&r);
		if (!pass) {
			errno = saved;
			return;
		}
	} else if (level == LOG_LEVEL_ERROR)
		log_flood_flush(1);	/* what came before, first */
	log_put(level, msg);
	errno = saved;
}

void
vlog(enum log_level level, const char *fmt, va_list ap)
{
	vlog_key(level, fmt, fmt, ap);
}

void
logit(enum log_level level, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

static void
logkey(enum log_level level, const char *key, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog_key(level, key, fmt, ap);
	va_end(ap);
}

/* Appends ": strerror(errno)" to the message; fmt stays its template. */
static void
vlog_errno(enum log_level level, const char *fmt, va_list ap)
{
	char	buf[1024];
	int	saved = errno;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	logkey(level, fmt, "%s: %s", buf, strerror(saved));
	errno = saved;
}

void
log_warn(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog_errno(LOG_LEVEL_WARN, fmt, ap);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(LOG_LEVEL_WARN, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(LOG_LEVEL_INFO, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(LOG_LEVEL_DEBUG, fmt, ap);
	va_end(ap);
}

void
fatal(int status, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog_errno(LOG_LEVEL_ERROR, fmt, ap);
	va_end(ap);
	exit(status);
}

void
fatalx(int status, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(LOG_LEVEL_ERROR, fmt, ap);
	va_end(ap);
	exit(status);
}
