/*
 * For the CLI tests: print the store's real schema (every migration of
 * src/schema.c, then the user_version) as SQL for sqlite3, and SS58
 * addresses of test accounts, so crafted stores look like real ones.
 *
 *	mkschema [version]	SQL for migrations 1..version (default: all)
 *	mkschema ss58 HEX	the Quantus SS58 address of a 32-byte account
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account.h"
#include "hex.h"
#include "schema.h"

static void
usage(void)
{
	fprintf(stderr, "usage: mkschema [version]\n"
	    "       mkschema ss58 account-hex\n");
	exit(100);
}

int
main(int argc, char *argv[])
{
	uint8_t		 account[32];
	char		 ss58[SS58_MAX], *end;
	unsigned long	 v = schema_version, i;

	if (argc == 3 && strcmp(argv[1], "ss58") == 0) {
		if (hex_decode(argv[2], account, sizeof(account)) == -1 ||
		    ss58_encode(SS58_PREFIX_QUANTUS, account, ss58,
		    sizeof(ss58)) == -1)
			usage();
		printf("%s\n", ss58);
		return 0;
	}
	if (argc > 2)
		usage();
	if (argc == 2) {
		v = strtoul(argv[1], &end, 10);
		if (*argv[1] == '\0' || *end != '\0' || v > schema_version)
			usage();
	}
	for (i = 0; i < v; i++)
		printf("%s\n", schema_migrations[i]);
	printf("PRAGMA user_version = %lu;\n", v);
	return 0;
}
