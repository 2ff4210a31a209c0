/*
 * Growable byte buffer used to write JSON-RPC answers and notifications.
 * Allocation failure is fatal (xrealloc), as everywhere in chainwatch.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "dev_buf.h"

static const char hexdig[] = "0123456789abcdef";

void
dev_buf_init(struct dev_buf *b)
{
	b->p = NULL;
	b->len = b->cap = 0;
}

void
dev_buf_free(struct dev_buf *b)
{
	free(b->p);
	dev_buf_init(b);
}

void
dev_buf_reset(struct dev_buf *b)
{
	b->len = 0;
}

void
dev_buf_reserve(struct dev_buf *b, size_t extra)
{
	size_t	ncap;

	/* One byte more than asked, for the NUL that release adds. */
	if (b->len + extra + 1 <= b->cap)
		return;
	ncap = b->cap < 256 ? 256 : b->cap;
	while (ncap < b->len + extra + 1)
		ncap *= 2;
	b->p = xrealloc(b->p, ncap);
	b->cap = ncap;
}

void
dev_buf_add(struct dev_buf *b, const void *p, size_t n)
{
	dev_buf_reserve(b, n);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void
dev_buf_adds(struct dev_buf *b, const char *s)
{
	dev_buf_add(b, s, strlen(s));
}

void
dev_buf_addc(struct dev_buf *b, char c)
{
	dev_buf_reserve(b, 1);
	b->p[b->len++] = c;
}

void
dev_buf_addf(struct dev_buf *b, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	dev_buf_reserve(b, 64);
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		dev_buf_reserve(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

void
dev_buf_addhex(struct dev_buf *b, const uint8_t *p, size_t n, int quote)
{
	char	*o;
	size_t	 i;

	dev_buf_reserve(b, 2 * n + 4);
	o = b->p + b->len;
	if (quote)
		*o++ = '"';
	*o++ = '0';
	*o++ = 'x';
	for (i = 0; i < n; i++) {
		*o++ = hexdig[p[i] >> 4];
		*o++ = hexdig[p[i] & 15];
	}
	if (quote)
		*o++ = '"';
	b->len = (size_t)(o - b->p);
}

void
dev_buf_addqty(struct dev_buf *b, uint64_t v)
{
	char	tmp[16];
	int	n = 0;

	dev_buf_reserve(b, 20);
	b->p[b->len++] = '"';
	b->p[b->len++] = '0';
	b->p[b->len++] = 'x';
	do {
		tmp[n++] = hexdig[v & 15];
		v >>= 4;
	} while (v != 0);
	while (n > 0)
		b->p[b->len++] = tmp[--n];
	b->p[b->len++] = '"';
}

void
dev_buf_addstr(struct dev_buf *b, const char *s)
{
	unsigned char	c;

	dev_buf_addc(b, '"');
	for (; (c = (unsigned char)*s) != '\0'; s++) {
		if (c == '"' || c == '\\') {
			dev_buf_addc(b, '\\');
			dev_buf_addc(b, (char)c);
		} else if (c < 0x20)
			dev_buf_addf(b, "\\u%04x", c);
		else
			dev_buf_addc(b, (char)c);
	}
	dev_buf_addc(b, '"');
}

char *
dev_buf_release(struct dev_buf *b, size_t *len)
{
	char	*p;

	dev_buf_reserve(b, 0);
	b->p[b->len] = '\0';
	p = b->p;
	if (len != NULL)
		*len = b->len;
	dev_buf_init(b);
	return p;
}
