/*
 * The growable byte buffer of buf.h.  Capacity doubles from BUF_MIN, so
 * that appending a byte at a time costs amortised constant time.
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "util.h"

#define BUF_MIN	256

void
buf_init(struct buf *b)
{
	b->p = NULL;
	b->len = b->cap = 0;
}

void
buf_free(struct buf *b)
{
	free(b->p);
	buf_init(b);
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->p != NULL)
		b->p[0] = '\0';
}

/* Capacity for need bytes, the NUL included, but never above limit. */
static void
buf_grow(struct buf *b, size_t need, size_t limit)
{
	size_t	 cap;

	if (need <= b->cap)
		return;
	cap = b->cap < BUF_MIN ? BUF_MIN : b->cap;
	while (cap < need)
		cap *= 2;
	if (cap > limit)
		cap = limit;
	b->p = xrealloc(b->p, cap);
	b->cap = cap;
	b->p[b->len] = '\0';	/* for a buffer that had no memory yet */
}

void
buf_reserve(struct buf *b, size_t n)
{
	buf_grow(b, b->len + n + 1, SIZE_MAX);
}

void
buf_added(struct buf *b, size_t n)
{
	b->len += n;
	b->p[b->len] = '\0';
}

void
buf_truncate(struct buf *b, size_t len)
{
	if (b->p == NULL)
		return;
	b->len = len;
	b->p[len] = '\0';
}

void
buf_add(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->p + b->len, p, n);
	buf_added(b, n);
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_addc(struct buf *b, char c)
{
	buf_reserve(b, 1);
	b->p[b->len] = c;
	buf_added(b, 1);
}

void
buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list	 aq;
	int	 n;

	/* Most pieces are short: try in the room there is first. */
	buf_reserve(b, 64);
	va_copy(aq, ap);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, aq);
	va_end(aq);
	if (n < 0) {
		b->p[b->len] = '\0';
		return;
	}
	if ((size_t)n >= b->cap - b->len) {
		buf_reserve(b, (size_t)n);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	}
	buf_added(b, (size_t)n);
}

void
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

int
buf_add_max(struct buf *b, const void *p, size_t n, size_t max)
{
	if (b->len > max || n > max - b->len)
		return -1;
	buf_grow(b, b->len + n + 1, max + 1);
	memcpy(b->p + b->len, p, n);
	buf_added(b, n);
	return 0;
}

char *
buf_release(struct buf *b, size_t *len)
{
	char	*p;

	buf_reserve(b, 0);
	p = b->p;
	if (len != NULL)
		*len = b->len;
	buf_init(b);
	return p;
}
