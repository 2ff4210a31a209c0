/*
 * metrics/mtr_apicache.c: API answers kept while the store's version
 * stays, for MTR_APICACHE_TTL_MS at most, the least recently used out
 * first when the table is full.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mtr_apicache.h"
#include "util.h"

/* An answer whose body says what it is, as a put takes it. */
static struct mtr_api_reply
reply(const char *body)
{
	struct mtr_api_reply	r;

	memset(&r, 0, sizeof(r));
	r.status = 200;
	r.max_age = 12;
	snprintf(r.etag, sizeof(r.etag), "\"%s\"", body);
	r.body = xstrdup(body);
	r.len = strlen(body);
	return r;
}

static void
put(struct mtr_apicache *c, const char *key, const struct mtr_store_version *v,
    uint64_t now, const char *body)
{
	struct mtr_api_reply	r = reply(body);

	assert_non_null(mtr_apicache_put(c, key, v, now, &r));
}

static const char *
body_of(struct mtr_apicache *c, const char *key,
    const struct mtr_store_version *v, uint64_t now)
{
	const struct mtr_api_reply *r = mtr_apicache_find(c, key, v, now);

	return r != NULL ? r->body : NULL;
}

/* Kept while the version stays; gone when data_version moves. */
static void
test_data_version(void **state)
{
	struct mtr_apicache	 c;
	struct mtr_store_version v = { 1, 7 }, w = { 1, 8 };

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_null(body_of(&c, "/a", &v, 1000));
	put(&c, "/a", &v, 1000, "A7");
	assert_string_equal(body_of(&c, "/a", &v, 1001), "A7");
	assert_null(body_of(&c, "/b", &v, 1001));
	/* Another commit: not kept, and not back when asked at the old one. */
	assert_null(body_of(&c, "/a", &w, 1002));
	assert_null(body_of(&c, "/a", &v, 1003));
	put(&c, "/a", &w, 1004, "A8");
	assert_string_equal(body_of(&c, "/a", &w, 1005), "A8");
	mtr_apicache_free(&c);
}

/* The same data_version of another connection does not compare. */
static void
test_connection(void **state)
{
	struct mtr_apicache	 c;
	struct mtr_store_version v = { 1, 3 }, reopened = { 2, 3 };

	(void)state;
	memset(&c, 0, sizeof(c));
	put(&c, "/a", &v, 0, "A");
	assert_null(body_of(&c, "/a", &reopened, 1));
	mtr_apicache_free(&c);
}

/* Answers that hang on the clock: built again after the TTL, or when
 * the clock went back. */
static void
test_ttl(void **state)
{
	struct mtr_apicache	 c;
	struct mtr_store_version v = { 1, 1 };

	(void)state;
	memset(&c, 0, sizeof(c));
	put(&c, "/a", &v, 5000, "A");
	assert_string_equal(body_of(&c, "/a", &v,
	    5000 + MTR_APICACHE_TTL_MS - 1), "A");
	assert_null(body_of(&c, "/a", &v, 5000 + MTR_APICACHE_TTL_MS));
	put(&c, "/a", &v, 5000, "A");
	assert_null(body_of(&c, "/a", &v, 4999));
	mtr_apicache_free(&c);
}

/* A key put again replaces its answer; a full table loses the least
 * recently used, never one just found. */
static void
test_lru(void **state)
{
	struct mtr_apicache	 c;
	struct mtr_store_version v = { 1, 1 };
	char			 key[32], body[32];
	int			 i;

	(void)state;
	memset(&c, 0, sizeof(c));
	put(&c, "/0", &v, 0, "old");
	put(&c, "/0", &v, 0, "new");
	assert_string_equal(body_of(&c, "/0", &v, 1), "new");
	for (i = 1; i < MTR_APICACHE_SLOTS; i++) {
		snprintf(key, sizeof(key), "/%d", i);
		snprintf(body, sizeof(body), "%d", i);
		put(&c, key, &v, 0, body);
	}
	/* Full, with /0 put first and /1 next: use /0, then overflow. */
	assert_string_equal(body_of(&c, "/0", &v, 1), "new");
	put(&c, "/more", &v, 2, "more");
	assert_null(body_of(&c, "/1", &v, 3));
	assert_string_equal(body_of(&c, "/0", &v, 3), "new");
	assert_string_equal(body_of(&c, "/2", &v, 3), "2");
	assert_string_equal(body_of(&c, "/more", &v, 3), "more");
	snprintf(key, sizeof(key), "/%d", MTR_APICACHE_SLOTS - 1);
	snprintf(body, sizeof(body), "%d", MTR_APICACHE_SLOTS - 1);
	assert_string_equal(body_of(&c, key, &v, 3), body);
	mtr_apicache_free(&c);
	assert_null(body_of(&c, "/0", &v, 3));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_version),
		cmocka_unit_test(test_connection),
		cmocka_unit_test(test_ttl),
		cmocka_unit_test(test_lru),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
