/*
 * Shared utilities: checked allocation (running out of memory is fatal and
 * says so), freed memory given back, clocks, and URL redaction for
 * everything that shows a URL.
 */
#include "config.h"

#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#if defined(__SANITIZE_ADDRESS__)
/* libasan's (GCC ships no header for it). */
size_t	__sanitizer_get_current_allocated_bytes(void);
#endif
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "log.h"
#include "buf.h"
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

static const char *const url_words_default[] = { "key", "token", "secret",
    "pass", "auth", "sig", "credential", NULL };
static char	url_words_extra[URL_WORDS_MAX + 1];

void
url_secret_words(const char *list)
{
	snprintf(url_words_extra, sizeof(url_words_extra), "%s", list);
}

/* Does name[0..len) contain word, in any case? */
static int
has_word(const char *name, size_t len, const char *word, size_t wlen)
{
	if (wlen == 0)
		return 0;
	for (size_t i = 0; i + wlen <= len; i++)
		if (strncasecmp(name + i, word, wlen) == 0)
			return 1;
	return 0;
}

static int
secret_param(const char *name, size_t len)
{
	const char	*w;
	size_t		 wl;

	for (size_t i = 0; url_words_default[i] != NULL; i++)
		if (has_word(name, len, url_words_default[i],
		    strlen(url_words_default[i])))
			return 1;
	for (w = url_words_extra; *w != '\0'; w += wl) {
		w += strspn(w, " ,");
		wl = strcspn(w, " ,");
		if (has_word(name, len, w, wl))
			return 1;
	}
	return 0;
}

void
url_redact(const char *url, char *out, size_t outlen)
{
	struct buf	 b = { 0 };
	const char	*auth, *end, *at, *colon, *p, *q;
	size_t		 n;

	p = url;
	if ((auth = strstr(url, "://")) != NULL) {
		auth += 3;
		end = auth + strcspn(auth, "/?#");
		/* The last '@' before the path ends the userinfo. */
		at = NULL;
		for (q = auth; q < end; q++)
			if (*q == '@')
				at = q;
		colon = at != NULL ? memchr(auth, ':', (size_t)(at - auth)) :
		    NULL;
		if (colon != NULL) {
			buf_add(&b, url, (size_t)(colon - url));
			buf_adds(&b, ":***");
			p = at;
		}
	}
	/* Up to the query, as it is; then each parameter; the fragment. */
	n = strcspn(p, "?#");
	buf_add(&b, p, n);
	p += n;
	if (*p == '?') {
		buf_addc(&b, *p++);
		while (*p != '\0' && *p != '#') {
			n = strcspn(p, "&#");
			q = memchr(p, '=', n);
			if (q != NULL && secret_param(p, (size_t)(q - p))) {
				buf_add(&b, p, (size_t)(q - p) + 1);
				buf_adds(&b, "***");
			} else
				buf_add(&b, p, n);
			p += n;
			if (*p == '&')
				buf_addc(&b, *p++);
		}
	}
	buf_adds(&b, p);
	snprintf(out, outlen, "%s", b.p != NULL ? b.p : "");
	buf_free(&b);
}

/*
 * The allocator set up to give back what it is given back.  Buffers past
 * 256 KiB (an answer up to max_response) are mapped and unmapped when
 * freed: glibc raises that threshold after the first such free, and the
 * next ones then stayed in the heap for good (a worker that once read a
 * 16 MB answer kept 16-25 MB in bench/soak).  With one_arena, every
 * thread allocates from the main arena: glibc gives concurrent threads
 * arenas of their own, whose free top malloc_trim() does not give back
 * (chainwatch-metrics, a thread a connection, kept 2-4 MB more so).
 */
void
mem_setup(int one_arena)
{
#ifdef HAVE_MALLOC_TRIM
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	if (one_arena)
		mallopt(M_ARENA_MAX, 1);
#else
	(void)one_arena;
#endif
}

/*
 * For the children this process will exec (chainwatchd's workers and
 * chainwatch-metrics), set before it has threads: their allocator
 * without glibc's per-thread cache of freed chunks (up to 7 of each size
 * to 1 KiB, some 230 KiB at most), which malloc_trim() does not empty and
 * mallinfo2() counts as in use.  A worker's heap in use stayed 200-250 KB
 * above its usual after a burst, for minutes, until chunks of the same
 * sizes were asked for again: to bench/soak that was growth, and it was
 * memory held for nothing.  glibc reads GLIBC_TUNABLES at a program's
 * start only, so this process keeps its cache; a tcache setting
 * already there is the user's and kept.
 */
void
mem_setup_children(void)
{
	static const char	 off[] = "glibc.malloc.tcache_count=0";
	const char		*t = getenv("GLIBC_TUNABLES");
	char			 v[1024];

	if (t == NULL || *t == '\0')
		(void)setenv("GLIBC_TUNABLES", off, 1);
	else if (strstr(t, "glibc.malloc.tcache_count") == NULL &&
	    (size_t)snprintf(v, sizeof(v), "%s:%s", t, off) < sizeof(v))
		(void)setenv("GLIBC_TUNABLES", v, 1);
}

/*
 * Freed memory back to the system, at most every MEM_GIVE_BACK_MS: the
 * heap keeps what a burst took (answers waiting, a backlog) long after
 * it is freed, and a daemon of months would keep its worst minute's.
 * now_ms is any monotonic clock in ms.
 */
#define MEM_GIVE_BACK_MS	30000

void
mem_give_back(uint64_t now_ms)
{
#ifdef HAVE_MALLOC_TRIM
	static uint64_t	last;

	if (now_ms - last < MEM_GIVE_BACK_MS)
		return;
	last = now_ms;
	(void)malloc_trim(0);
#else
	(void)now_ms;
#endif
}

/*
 * Bytes the allocator has handed out and not had back (in chunks of the
 * heap and in maps of their own); 0 where glibc's mallinfo2 is missing.
 * Beside the resident size it tells a leak (this grows) from what the
 * allocator keeps (only the resident size grows).
 */
uint64_t
mem_in_use(void)
{
#if defined(__SANITIZE_ADDRESS__)
	/* AddressSanitizer's allocator, not glibc's, serves malloc. */
	return (uint64_t)__sanitizer_get_current_allocated_bytes();
#elif defined(HAVE_MALLINFO2)
	struct mallinfo2	mi = mallinfo2();

	return (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
#else
	return 0;
#endif
}

/*
 * Time never runs back for one owner of *last (a breaker, a window): a
 * clock that stepped back stands still.
 */
uint64_t
clock_forward(uint64_t *last, uint64_t now)
{
	if (now < *last)
		now = *last;
	*last = now;
	return now;
}
