/*
 * libmicrohttpd's messages in our log, for every program that embeds it.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "http_log.h"
#include "log.h"

void
http_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char	msg[512];
	size_t	n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';
	log_debug("libmicrohttpd: %s", msg);
}
