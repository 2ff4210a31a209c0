/*
 * The pieces of JSON the devnode writes by hand: hex data, quantities and
 * escaped strings, appended to a struct buf.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "dev_json.h"

static const char hexdig[] = "0123456789abcdef";

void
dev_json_hex(struct buf *b, const uint8_t *p, size_t n, int quote)
{
	char	*o, *start;
	size_t	 i;

	buf_reserve(b, 2 * n + 4);
	o = start = b->p + b->len;
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
	buf_added(b, (size_t)(o - start));
}

void
dev_json_qty(struct buf *b, uint64_t v)
{
	char	tmp[16], *o, *start;
	int	n = 0;

	buf_reserve(b, 20);
	o = start = b->p + b->len;
	*o++ = '"';
	*o++ = '0';
	*o++ = 'x';
	do {
		tmp[n++] = hexdig[v & 15];
		v >>= 4;
	} while (v != 0);
	while (n > 0)
		*o++ = tmp[--n];
	*o++ = '"';
	buf_added(b, (size_t)(o - start));
}

void
dev_json_str(struct buf *b, const char *s)
{
	unsigned char	c;

	buf_addc(b, '"');
	for (; (c = (unsigned char)*s) != '\0'; s++) {
		if (c == '"' || c == '\\') {
			buf_addc(b, '\\');
			buf_addc(b, (char)c);
		} else if (c < 0x20)
			buf_addf(b, "\\u%04x", c);
		else
			buf_addc(b, (char)c);
	}
	buf_addc(b, '"');
}
