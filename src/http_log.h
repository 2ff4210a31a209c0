/*
 * libcwhttp.a: what the programs that serve HTTP with libmicrohttpd
 * (chainwatch-metrics and chainwatch-devnode) share, apart from libcw.a so
 * that the programs without a server need no libmicrohttpd.
 */
#ifndef CW_HTTP_LOG_H
#define CW_HTTP_LOG_H

#include <stdarg.h>

/*
 * For MHD_OPTION_EXTERNAL_LOGGER: libmicrohttpd's messages become our
 * debug lines, "libmicrohttpd: ...", without their newline.  (What it
 * says while parsing the options before this one goes to stderr.)
 */
void	http_mhd_log(void *cls, const char *fmt, va_list ap)
	    __attribute__((format(printf, 2, 0)));

#endif
