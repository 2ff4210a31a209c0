/*
 * How chainwatch(1) shows things: to people, relative times, short forms
 * of big numbers and tables that fit 80 columns; to machines (--json),
 * the same values exactly, with times in ISO 8601 UTC and milliseconds.
 */
#ifndef CW_CLI_FMT_H
#define CW_CLI_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "u512.h"

#define CLI_COLS	80	/* no line for people is wider */
#define CLI_ACCOUNT_MAX	32	/* bytes of a miner's account */

/* (Ages, view_ago and view_span, are in view.h.) */
/* A measured duration: "150 ms", "1.2 s", then as view_span. */
void	cli_ms(int64_t ms, char *out, size_t outlen);
/*
 * An age in a column whose head says what it is: view_ago without "ago"
 * ("500 ms", "2 s", "3 min"; "40 s ahead" for a time not reached yet).
 */
void	cli_age(int64_t ms, char *out, size_t outlen);
/* Exact up to 7 digits, else 3 significant digits: "4.52e18". */
void	cli_u512_short(const struct u512 *, char *out, size_t outlen);
/* An SS58 address or a hex string cut to "qzjqcX6U...3fA7rK" (17). */
void	cli_addr_short(const char *, char *out, size_t outlen);
/* A hash "0x" + 64 digits cut to its first 8 digits: "0x6f1c2a3b". */
void	cli_hash_short(const char *hex, char *out, size_t outlen);
/* An endpoint's name in a table cell: at most 16 columns, "a-long-na...". */
#define CLI_NAME_COLS	16
void	cli_name_short(const char *, char *out, size_t outlen);

/*
 * One line on stdout in CLI_COLS: an indented one (a detail under a row)
 * cut with "...", --json giving it whole; one of its own (a headline, the
 * daemon's store-blocked line) wrapped at spaces, going on indented by 4.
 * Table rows are cut.
 */
void	cli_put_line(const char *);

/*
 * A table: columns of cells, each left ('l') or right ('r') aligned,
 * separated by gap spaces and as wide as their widest cell; and lines of
 * free text between rows, which do not widen columns.  Every line printed
 * is cut to CLI_COLS.
 */
struct cli_row;
struct cli_table {
	const char	*align;		/* one letter per column */
	size_t		 ncols;
	int		 indent;	/* spaces before every row */
	int		 gap;		/* spaces between columns */
	struct cli_row	*rows;
	size_t		 nrows;
};

void	cli_table_init(struct cli_table *, const char *align, int indent,
	    int gap);
/* The next cell of the current row; a new row after the last column. */
void	cli_table_cell(struct cli_table *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* A row of column heads, one string a column, then NULL. */
void	cli_table_head(struct cli_table *, ...) __attribute__((sentinel));
/* A line of its own after the current row. */
void	cli_table_line(struct cli_table *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/*
 * Text of its own after the current row, indented and wrapped at spaces
 * to fit CLI_COLS (a word too long for a line is split).
 */
void	cli_table_wrap(struct cli_table *, int indent, const char *text);
void	cli_table_print(const struct cli_table *);
void	cli_table_free(struct cli_table *);

/* (view_jstr, view_jint and view_jtime are in view.h.) */
/* daemon_running as cli_daemon_note() said it: true, false, or null. */
json_t	*cli_jrunning(int running);
/* What --json prints: root, indented, and a newline; root is freed. */
void	cli_json_print(json_t *root);
/* cli_json_print of {"daemon_running": ..., key: arr}; arr is taken over. */
void	cli_json_list(int running, const char *key, json_t *arr);

/*
 * A miner as the views name it, to free: its SS58 address when the miners
 * table has one, else its account in hex, "unknown" for the empty one.
 */
char	*cli_miner_name(const uint8_t *account, size_t len,
	    const unsigned char *ss58);

#endif
