/*
 * Logging for every chainwatch program: stderr in the foreground, syslog
 * as a daemon.  Lines carry the process tag so that the supervisor's and
 * each worker's messages can be told apart in one log.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static int		 log_stderr = 1;
static enum log_level	 log_level = LOG_LEVEL_INFO;
static char		 log_tag[64];

static const char *const level_names[] = { "error", "warn", "info", "debug" };
static const int syslog_prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };

void
log_init(int to_stderr, enum log_level level, const char *ident)
{
	log_stderr = to_stderr;
	log_level = level;
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

void
vlog(enum log_level level, const char *fmt, va_list ap)
{
	char	msg[2048];
	int	saved = errno;

	if (level > log_level)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
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
	errno = saved;
}

void
logit(enum log_level level, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

/* Appends ": strerror(errno)" to the message. */
static void
vlog_errno(enum log_level level, const char *fmt, va_list ap)
{
	char	buf[1024];
	int	saved = errno;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	logit(level, "%s: %s", buf, strerror(saved));
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
