/*
 * The man page and the key table must agree: a key that is parsed but not
 * documented in chainwatch.conf(5) (man/chainwatch.conf.5.in), or
 * documented but not parsed, fails.
 * Keys are documented as ".It Ic key" items under the SECTION's list.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conf.h"

static void
test_keys_documented(void **state)
{
	const char	*top = getenv("top_srcdir");
	char		 path[4096], line[512];
	char		 documented[128][64];
	size_t		 n = 0;
	FILE		*fp;
	int		 bad = 0;

	snprintf(path, sizeof(path), "%s/man/chainwatch.conf.5.in",
	    top != NULL ? top : ".");
	fp = fopen(path, "r");
	if (fp == NULL) {
		print_error("cannot open %s\n", path);
		fail();
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		char	key[64];

		if (sscanf(line, ".It Ic %63[a-z_]", key) != 1)
			continue;
		assert_true(n < 128);
		snprintf(documented[n++], sizeof(documented[0]), "%s", key);
	}
	fclose(fp);
	assert_true(n > 0);

	for (size_t i = 0; i < conf_nkeys; i++) {
		int found = 0;

		for (size_t j = 0; j < n; j++)
			if (strcmp(documented[j], conf_keys[i].key) == 0)
				found = 1;
		if (!found) {
			print_error("key %s is parsed but not documented in "
			    "%s\n", conf_keys[i].key, path);
			bad = 1;
		}
	}
	for (size_t j = 0; j < n; j++) {
		int found = 0;

		for (size_t i = 0; i < conf_nkeys; i++)
			if (strcmp(documented[j], conf_keys[i].key) == 0)
				found = 1;
		if (!found) {
			print_error("key %s is documented in %s but not "
			    "parsed\n", documented[j], path);
			bad = 1;
		}
	}
	assert_int_equal(bad, 0);
}

/*
 * Every range the man page states ("Range 100ms to 600s.", under the
 * key's .It Ic) is the table's, in the units range errors and -nv use;
 * and every duration and size key states its range.
 */
static void
test_ranges_documented(void **state)
{
	const char	*top = getenv("top_srcdir");
	char		 path[4096], line[512], key[64] = "", lo[64], hi[64];
	char		 want[2 * CONF_VALUE_LEN + 8], got[160];
	int		 ranged[128] = { 0 }, bad = 0;
	FILE		*fp;

	assert_true(conf_nkeys <= 128);
	snprintf(path, sizeof(path), "%s/man/chainwatch.conf.5.in",
	    top != NULL ? top : ".");
	if ((fp = fopen(path, "r")) == NULL) {
		print_error("cannot open %s\n", path);
		fail();
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (sscanf(line, ".It Ic %63[a-z_]", key) == 1)
			continue;
		if (sscanf(line, "Range %63s to %63[^.\n]", lo, hi) != 2)
			continue;
		for (size_t i = 0; i < conf_nkeys; i++) {
			const struct conf_key *k = &conf_keys[i];
			char	a[CONF_VALUE_LEN], b[CONF_VALUE_LEN];

			if (strcmp(k->key, key) != 0)
				continue;
			ranged[i] = 1;
			conf_fmt_value(k->type, k->min, a, sizeof(a));
			conf_fmt_value(k->type, k->max, b, sizeof(b));
			snprintf(want, sizeof(want), "%s to %s", a, b);
			snprintf(got, sizeof(got), "%s to %s", lo, hi);
			if (strcmp(want, got) != 0) {
				print_error("%s: the man page says Range %s, "
				    "the table %s\n", key, got, want);
				bad = 1;
			}
		}
	}
	fclose(fp);
	for (size_t i = 0; i < conf_nkeys; i++)
		if ((conf_keys[i].type == CT_DURATION ||
		    conf_keys[i].type == CT_SIZE) && !ranged[i]) {
			print_error("%s: no Range line in %s\n",
			    conf_keys[i].key, path);
			bad = 1;
		}
	assert_int_equal(bad, 0);
}

/* Every default in the table must itself be valid. */
static void
test_defaults_parse(void **state)
{
	struct conf	*c = conf_load_string("t", "[chain a]\nendpoint = x "
	    "http://h ws://h\n");

	assert_int_equal(c->n_errors, 0);
	conf_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_documented),
		cmocka_unit_test(test_ranges_documented),
		cmocka_unit_test(test_defaults_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
