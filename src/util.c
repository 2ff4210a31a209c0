/*
 * Shared utilities: checked allocation (running out of memory is fatal and
 * says so), clocks, and URL redaction for everything that shows a URL.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "util.h"

void *
xmalloc(size_t n)
{
	void	*p = malloc(n == 0 ? 1 : n);

	if (p == NULL)
		fatal(CW_EXIT_SYSTEM, "malloc %zu bytes", n);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void	*p = calloc(n == 0 ? 1 : n, size == 0 ? 1 : size);

	if (p == NULL)
		fatal(CW_EXIT_SYSTEM, "calloc %zu x %zu bytes", n, size);
	return p;
}

void *
xrealloc(void *old, size_t n)
{
	void	*p = realloc(old, n == 0 ? 1 : n);

	if (p == NULL)
		fatal(CW_EXIT_SYSTEM, "realloc %zu bytes", n);
	return p;
}

char *
xstrdup(const char *s)
{
	char	*p = strdup(s);

	if (p == NULL)
		fatal(CW_EXIT_SYSTEM, "strdup");
	return p;
}

static uint64_t
clock_ms(clockid_t id)
{
	struct timespec	ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t
now_mono_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

uint64_t
now_wall_ms(void)
{
	return clock_ms(CLOCK_REALTIME);
}

void
url_redact(const char *url, char *out, size_t outlen)
{
	const char	*auth, *end, *at, *colon;

	snprintf(out, outlen, "%s", url);
	if ((auth = strstr(url, "://")) == NULL)
		return;
	auth += 3;
	end = auth + strcspn(auth, "/?#");
	/* The last '@' before the path ends the userinfo. */
	at = NULL;
	for (const char *p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if (at == NULL)
		return;
	colon = memchr(auth, ':', (size_t)(at - auth));
	if (colon == NULL)
		return;
	snprintf(out, outlen, "%.*s:***%s", (int)(colon - url), url, at);
}
