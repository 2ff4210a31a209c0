/*
 * The shared half of the worker's integration test programs: each runs
 * one scenario on the default libev loop and reports every check on
 * stdout, so the script that runs it can show what failed.
 */
#include "config.h"

#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "log.h"
#include "wrk_client.h"

struct ev_loop	*loop;
static int	 failures;

void
client_init(const char *prog, const char *tag)
{
	log_init(1, LOG_LEVEL_INFO, prog);
	if (tag != NULL)
		log_procinit(tag);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	loop = ev_default_loop(0);
}

int
client_finish(void)
{
	ev_loop_destroy(loop);
	curl_global_cleanup();
	return failures == 0 ? 0 : 1;
}

void
check(int ok, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	printf("%s ", ok ? "PASS" : "FAIL");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	if (!ok)
		failures++;
}

void
client_stop_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	*(int *)w->data = 1;
	ev_break(l, EVBREAK_ONE);
}

int
client_free_port(void)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof(sin);
	int			fd, port = 1;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sin, &len) == 0)
		port = ntohs(sin.sin_port);
	close(fd);
	return port;
}
