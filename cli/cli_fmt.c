/*
 * What the chainwatch(1) views share: short numbers, addresses and names
 * and tables that fit 80 columns for people, --json output, and how an
 * error looks.  (Ages and JSON values are in view_fmt.c.)
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "cli.h"
#include "cli_fmt.h"
#include "hex.h"
#include "util.h"

#define ADDR_COLS	17	/* 8 + "..." + 6 */

void
cli_err(const char *fmt, ...)
{
	va_list	 ap;

	fflush(stdout);
	fputs("chainwatch: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void
cli_ms(int64_t ms, char *out, size_t outlen)
{
	if (ms >= 0 && ms < 1000)
		snprintf(out, outlen, "%lld ms", (long long)ms);
	else if (ms >= 0 && ms < 10000)
		snprintf(out, outlen, "%.1f s", (double)ms / 1000.0);
	else
		view_span(ms, out, outlen);
}

void
cli_age(int64_t ms, char *out, size_t outlen)
{
	char	 span[VIEW_AGE_LEN];

	view_age(ms, span, sizeof(span));
	snprintf(out, outlen, "%s%s", span, ms < 0 ? " ahead" : "");
}

void
cli_u512_short(const struct u512 *w, char *out, size_t outlen)
{
	char	 dec[U512_DEC_LEN], e[32], *p;

	if (u512_to_dec(w, dec) <= 7) {
		snprintf(out, outlen, "%.7s", dec);
		return;
	}
	/* "4.52e+18" -> "4.52e18": the sign says nothing here. */
	snprintf(e, sizeof(e), "%.2e", u512_to_double(w));
	if ((p = strstr(e, "e+")) != NULL)
		memmove(p + 1, p + 2, strlen(p + 2) + 1);
	snprintf(out, outlen, "%s", e);
}

void
cli_addr_short(const char *name, char *out, size_t outlen)
{
	size_t	 n = strlen(name);

	if (n <= ADDR_COLS)
		snprintf(out, outlen, "%s", name);
	else
		snprintf(out, outlen, "%.8s...%s", name, name + n - 6);
}

void
cli_hash_short(const char *hex, char *out, size_t outlen)
{
	snprintf(out, outlen, "%.10s", hex);
}

void
cli_name_short(const char *name, char *out, size_t outlen)
{
	if (strlen(name) <= CLI_NAME_COLS)
		snprintf(out, outlen, "%s", name);
	else
		snprintf(out, outlen, "%.*s...", CLI_NAME_COLS - 3, name);
}

/* A line cut to CLI_COLS with "...": table rows and indented details. */
static void
put_cut(const char *line)
{
	if (strlen(line) <= CLI_COLS)
		printf("%s\n", line);
	else
		printf("%.*s...\n", CLI_COLS - 3, line);
}

void
cli_put_line(const char *line)
{
	size_t	 n, cut, width = CLI_COLS;
	int	 more = 0;

	/* Indented: a detail under a row, cut (--json gives it whole). */
	if (line[0] == ' ' || strlen(line) <= CLI_COLS) {
		put_cut(line);
		return;
	}
	/*
	 * A line of its own (a chain's headline, the daemon's store
	 * state): nothing of it is lost, it goes on indented below.
	 */
	while (*line != '\0') {
		n = strlen(line);
		if (n <= width) {
			printf("%s%s\n", more ? "    " : "", line);
			return;
		}
		for (cut = width; cut > width / 3 && line[cut] != ' '; cut--)
			;
		if (line[cut] != ' ') {
			/* One word longer than a line: cut it. */
			printf("%s%.*s...\n", more ? "    " : "",
			    (int)(width - 3), line);
			return;
		}
		printf("%s%.*s\n", more ? "    " : "", (int)cut, line);
		for (line += cut; *line == ' '; line++)
			;
		more = 1;
		width = CLI_COLS - 4;
	}
}

struct cli_row {
	char	**cell;		/* ncols cells, or NULL for a line */
	size_t	  ncells;
	char	 *line;
};

void
cli_table_init(struct cli_table *t, const char *align, int indent, int gap)
{
	memset(t, 0, sizeof(*t));
	t->align = align;
	t->ncols = strlen(align);
	t->indent = indent;
	t->gap = gap;
}

static char *
vfmt(const char *fmt, va_list ap)
{
	struct buf	 b = { 0 };

	buf_vaddf(&b, fmt, ap);
	return buf_release(&b, NULL);
}

static struct cli_row *
table_row(struct cli_table *t)
{
	struct cli_row	*r;

	t->rows = xrealloc(t->rows, (t->nrows + 1) * sizeof(*t->rows));
	r = &t->rows[t->nrows++];
	memset(r, 0, sizeof(*r));
	return r;
}

void
cli_table_cell(struct cli_table *t, const char *fmt, ...)
{
	struct cli_row	*r;
	va_list		 ap;

	r = t->nrows > 0 ? &t->rows[t->nrows - 1] : NULL;
	if (r == NULL || r->cell == NULL || r->ncells == t->ncols) {
		r = table_row(t);
		r->cell = xcalloc(t->ncols, sizeof(*r->cell));
	}
	va_start(ap, fmt);
	r->cell[r->ncells++] = vfmt(fmt, ap);
	va_end(ap);
}

void
cli_table_head(struct cli_table *t, ...)
{
	const char	*s;
	va_list		 ap;

	va_start(ap, t);
	while ((s = va_arg(ap, const char *)) != NULL)
		cli_table_cell(t, "%s", s);
	va_end(ap);
}

void
cli_table_line(struct cli_table *t, const char *fmt, ...)
{
	struct cli_row	*r;
	va_list		 ap;

	r = table_row(t);
	va_start(ap, fmt);
	r->line = vfmt(fmt, ap);
	va_end(ap);
}

void
cli_table_wrap(struct cli_table *t, int indent, const char *text)
{
	const char	*p = text, *brk;
	size_t		 room = CLI_COLS - (size_t)indent, n;

	while (*p == ' ')
		p++;
	while (*p != '\0') {
		n = strlen(p);
		if (n > room) {
			/* The last space that leaves a line that fits. */
			for (brk = p + room; brk > p && *brk != ' '; brk--)
				;
			n = brk > p ? (size_t)(brk - p) : room;
		}
		cli_table_line(t, "%*s%.*s", indent, "", (int)n, p);
		p += n;
		while (*p == ' ')
			p++;
	}
}

void
cli_table_print(const struct cli_table *t)
{
	const struct cli_row	*r;
	size_t			 i, k, len, cap = CLI_COLS * 4;
	int			*width, last, gap, total;
	char			*buf;

	width = xcalloc(t->ncols > 0 ? t->ncols : 1, sizeof(*width));
	for (i = 0; i < t->nrows; i++) {
		r = &t->rows[i];
		for (k = 0; k < r->ncells; k++)
			if ((int)strlen(r->cell[k]) > width[k])
				width[k] = (int)strlen(r->cell[k]);
	}
	/* Wide values close the gaps before any line is cut. */
	gap = t->gap;
	for (k = 0, total = t->indent; k < t->ncols; k++)
		total += width[k] + (k > 0 ? gap : 0);
	if (total > CLI_COLS && gap > 1)
		gap = 1;
	buf = xmalloc(cap);
	for (i = 0; i < t->nrows; i++) {
		r = &t->rows[i];
		if (r->cell == NULL) {
			put_cut(r->line);
			continue;
		}
		len = (size_t)snprintf(buf, cap, "%*s", t->indent, "");
		for (k = 0; k < r->ncells && len < cap; k++) {
			/* No trailing blanks after a left-aligned last cell. */
			last = k + 1 == r->ncells;
			len += (size_t)snprintf(buf + len, cap - len, "%*s",
			    k > 0 ? gap : 0, "");
			if (len >= cap)
				break;
			if (t->align[k] == 'r')
				len += (size_t)snprintf(buf + len, cap - len,
				    "%*s", width[k], r->cell[k]);
			else
				len += (size_t)snprintf(buf + len, cap - len,
				    "%-*s", last ? 0 : width[k], r->cell[k]);
		}
		put_cut(buf);
	}
	free(buf);
	free(width);
}

void
cli_table_free(struct cli_table *t)
{
	size_t	 i, k;

	for (i = 0; i < t->nrows; i++) {
		for (k = 0; k < t->rows[i].ncells; k++)
			free(t->rows[i].cell[k]);
		free(t->rows[i].cell);
		free(t->rows[i].line);
	}
	free(t->rows);
	t->rows = NULL;
	t->nrows = 0;
}

json_t *
cli_jrunning(int running)
{
	return running == -1 ? json_null() : json_boolean(running);
}

void
cli_json_print(json_t *root)
{
	json_dumpf(root, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(root);
}

void
cli_json_list(int running, const char *key, json_t *arr)
{
	json_t	*root = json_object();

	json_object_set_new(root, "daemon_running", cli_jrunning(running));
	json_object_set_new(root, key, arr);
	cli_json_print(root);
}

char *
cli_miner_name(const uint8_t *account, size_t len, const unsigned char *ss58)
{
	return view_miner_name(account, len, ss58);
}
