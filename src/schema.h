/*
 * The store's schema: its migrations, in order, each taking the database
 * from user_version i to i + 1.  The supervisor applies them; the CLI
 * refuses a database newer than it knows.  Documented in chainwatch.db(5).
 */
#ifndef CW_SCHEMA_H
#define CW_SCHEMA_H

#include <stddef.h>

extern const char *const schema_migrations[];
extern const size_t schema_version;	/* the number of migrations */
/*
 * SQL that chainwatchd runs after migration i, in the same transaction,
 * needing u512_sum() (u512_sql.h); NULL for most.  To fix the rows of an
 * existing store, never to create anything.
 */
extern const char *const schema_fixups[];

#endif
