/*
 * u512_sum(): SQLite has no integer wider than 64 bits, and a sum of
 * difficulties needs 512.  NULL (difficulty not known yet) adds nothing;
 * anything but a 64-byte blob, or an overflow, is an error of the query.
 */
#include "config.h"

#include <sqlite3.h>

#include "u512.h"
#include "u512_sql.h"

struct sum_ctx {
	struct u512	 sum;
	int		 started;
};

static void
u512_sum_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct sum_ctx	*s;
	struct u512	 d;

	(void)argc;
	if ((s = sqlite3_aggregate_context(ctx, sizeof(*s))) == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	s->started = 1;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;		/* difficulty not known (yet) */
	if (sqlite3_value_type(argv[0]) != SQLITE_BLOB ||
	    sqlite3_value_bytes(argv[0]) != U512_BYTES) {
		sqlite3_result_error(ctx, "u512_sum: a difficulty is not a "
		    "64-byte blob", -1);
		return;
	}
	u512_from_le(&d, sqlite3_value_blob(argv[0]));
	if (u512_add(&s->sum, &d) == -1)
		sqlite3_result_error(ctx, "u512_sum: the sum overflows 512 "
		    "bits", -1);
}

static void
u512_sum_final(sqlite3_context *ctx)
{
	struct sum_ctx	*s;
	char		 dec[U512_DEC_LEN];
	struct u512	 zero;

	s = sqlite3_aggregate_context(ctx, 0);
	if (s == NULL) {
		u512_zero(&zero);
		u512_to_dec(&zero, dec);
	} else
		u512_to_dec(&s->sum, dec);
	sqlite3_result_text(ctx, dec, -1, SQLITE_TRANSIENT);
}

int
u512_sql_register(sqlite3 *db)
{
	return sqlite3_create_function(db, "u512_sum", 1,
	    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL, u512_sum_step,
	    u512_sum_final);
}
