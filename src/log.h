/*
 * Logging in the shape of OpenBSD's log.h: every line is tagged with the
 * process ("sup", "w/a1-planck", "devnode") and goes to stderr or syslog.
 */
#ifndef CW_LOG_H
#define CW_LOG_H

#include <stdarg.h>

enum log_level {
	LOG_LEVEL_ERROR = 0,
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

/* to_stderr: 1 for stderr, 0 for syslog under the given ident. */
void	log_init(int to_stderr, enum log_level, const char *ident);
void	log_setlevel(enum log_level);
enum log_level log_getlevel(void);
int	log_tostderr(void);
/* The tag printed before every message of this process. */
void	log_procinit(const char *tag);
const char *log_level_name(enum log_level);
int	log_level_parse(const char *, enum log_level *);

void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	logit(enum log_level, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	vlog(enum log_level, const char *, va_list)
	    __attribute__((format(printf, 2, 0)));
/*
 * Floods of one info or warning line are held back and counted
 * (logflood.h); this tells the counts whose window is over, or all of
 * them.  Called at exit by itself; a daemon calls it from a timer so that
 * a count is not left waiting for the next line.
 */
void	log_flood_flush(int all);
/* Log and exit: fatal() appends strerror(errno). */
void	fatal(int status, const char *, ...)
	    __attribute__((format(printf, 2, 3), noreturn));
void	fatalx(int status, const char *, ...)
	    __attribute__((format(printf, 2, 3), noreturn));

#endif
