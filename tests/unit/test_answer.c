/*
 * Answers against requests (sup_answer.c): a range of headers by number,
 * a header by hash and a storage answer, each right, and each wrong in
 * the ways an endpoint (or the code between) could get it wrong.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "header.h"
#include "qpow.h"
#include "sup_answer.h"
#include "u512.h"

static struct proto_res_headers	r;

/* A block's hash and parent, made up from its number and branch. */
static void
fake_hash(uint64_t number, int branch, uint8_t out[32])
{
	memset(out, 0, 32);
	memcpy(out, &number, sizeof(number));
	out[31] = (uint8_t)branch;
}

/* An answer of n linked headers from number from, all OK. */
static void
linked(uint64_t from, size_t n)
{
	memset(&r, 0, sizeof(r));
	r.id = 7;
	r.n = n;
	for (size_t i = 0; i < n; i++) {
		struct proto_item *it = &r.items[i];

		it->outcome = OUTCOME_OK;
		it->h.number = from + i;
		fake_hash(from + i, 0, it->h.hash);
		fake_hash(from + i - 1, 0, it->h.parent);
	}
}

static enum answer_verdict
check_range(uint64_t from, size_t n, char *why, size_t len)
{
	struct answer_asked	q;

	memset(&q, 0, sizeof(q));
	q.by = BY_NUMBER;
	q.from = from;
	q.n = n;
	return answer_check_headers(&q, &r, why, len);
}

static void
test_range_ok(void **state)
{
	char	why[ANSWER_WHY_MAX] = "";

	linked(100, 100);
	assert_int_equal(check_range(100, 100, why, sizeof(why)), ANSWER_OK);
	/* The top of a range not produced yet: absent, not wrong. */
	for (size_t i = 90; i < 100; i++) {
		r.items[i].outcome = OUTCOME_ABSENT;
		memset(&r.items[i].h, 0, sizeof(r.items[i].h));
	}
	assert_int_equal(check_range(100, 100, why, sizeof(why)), ANSWER_OK);
	/* A hole of errors: the links on either side are not compared. */
	linked(100, 10);
	r.items[4].outcome = OUTCOME_TIMEOUT;
	fake_hash(104, 1, r.items[4].h.hash);
	assert_int_equal(check_range(100, 10, why, sizeof(why)), ANSWER_OK);
	/* One header by number. */
	linked(5, 1);
	assert_int_equal(check_range(5, 1, why, sizeof(why)), ANSWER_OK);
}

static void
test_range_wrong(void **state)
{
	char	why[ANSWER_WHY_MAX];

	/* Fewer, more, none. */
	linked(100, 99);
	assert_int_equal(check_range(100, 100, why, sizeof(why)),
	    ANSWER_WRONG);
	assert_string_equal(why, "99 headers for 100 asked");
	linked(100, 101);
	assert_int_equal(check_range(100, 100, why, sizeof(why)),
	    ANSWER_WRONG);
	assert_string_equal(why, "101 headers for 100 asked");
	linked(100, 0);
	assert_int_equal(check_range(100, 3, why, sizeof(why)), ANSWER_WRONG);
	assert_string_equal(why, "0 headers for 3 asked");

	/* A header for another number, even one that links. */
	linked(100, 10);
	r.items[3].h.number = 1000000103;
	assert_int_equal(check_range(100, 10, why, sizeof(why)),
	    ANSWER_WRONG);
	assert_string_equal(why, "header #1000000103 for #103 asked");
	/* The whole range shifted by one: the first item says so. */
	linked(101, 10);
	assert_int_equal(check_range(100, 10, why, sizeof(why)),
	    ANSWER_WRONG);
	assert_string_equal(why, "header #101 for #100 asked");
}

static void
test_range_unlinked(void **state)
{
	char	why[ANSWER_WHY_MAX];

	/* #105 of another branch: its number is right, its link is not. */
	linked(100, 10);
	fake_hash(105, 1, r.items[5].h.hash);
	fake_hash(104, 1, r.items[5].h.parent);
	assert_int_equal(check_range(100, 10, why, sizeof(why)),
	    ANSWER_UNLINKED);
	assert_non_null(strstr(why, "#105's parent"));
	assert_non_null(strstr(why, "is not #104"));
	assert_non_null(strstr(why, "does not link"));
	/* The last link alone broken. */
	linked(100, 10);
	fake_hash(42, 0, r.items[9].h.parent);
	assert_int_equal(check_range(100, 10, why, sizeof(why)),
	    ANSWER_UNLINKED);
	assert_non_null(strstr(why, "#109's parent"));
	/* Two headers the same: the second's parent is not the first. */
	linked(100, 2);
	memcpy(r.items[1].h.hash, r.items[0].h.hash, 32);
	memcpy(r.items[1].h.parent, r.items[0].h.parent, 32);
	assert_int_equal(check_range(100, 2, why, sizeof(why)),
	    ANSWER_UNLINKED);
}

static void
test_by_hash(void **state)
{
	struct answer_asked	q;
	uint8_t			asked[2][32];
	char			why[ANSWER_WHY_MAX];

	fake_hash(41, 0, asked[0]);
	fake_hash(7, 3, asked[1]);
	memset(&q, 0, sizeof(q));
	q.by = BY_HASH;
	q.n = 2;
	q.hashes = (const uint8_t (*)[32])asked;
	memset(&r, 0, sizeof(r));
	r.n = 2;
	r.items[0].outcome = OUTCOME_OK;
	memcpy(r.items[0].h.hash, asked[0], 32);
	r.items[0].h.number = 41;
	r.items[1].outcome = OUTCOME_ABSENT;
	/* Headers by hash are not a range: no links, no numbers. */
	assert_int_equal(answer_check_headers(&q, &r, why, sizeof(why)),
	    ANSWER_OK);
	r.items[1].outcome = OUTCOME_OK;
	memcpy(r.items[1].h.hash, asked[1], 32);
	r.items[1].h.number = 9;
	assert_int_equal(answer_check_headers(&q, &r, why, sizeof(why)),
	    ANSWER_OK);
	/* Another block than the one asked for. */
	fake_hash(8, 3, r.items[1].h.hash);
	assert_int_equal(answer_check_headers(&q, &r, why, sizeof(why)),
	    ANSWER_WRONG);
	assert_non_null(strstr(why, " for 0x"));
	assert_non_null(strstr(why, "asked"));
	/* Two answers for one asked. */
	q.n = 1;
	assert_int_equal(answer_check_headers(&q, &r, why, sizeof(why)),
	    ANSWER_WRONG);
	assert_string_equal(why, "2 headers for 1 asked");
}

static struct proto_res_storage	rs;

/* n values answering quantus reads: difficulty (64), Timestamp.Now (8). */
static void
values(size_t n, size_t *size)
{
	memset(&rs, 0, sizeof(rs));
	rs.n = n;
	for (size_t i = 0; i < n; i++) {
		size[i] = i % 2 == 0 ? 64 : 8;
		rs.items[i].outcome = OUTCOME_OK;
		rs.items[i].value_len = size[i];
	}
}

static void
test_storage(void **state)
{
	size_t	size[PROTO_READS_MAX];
	char	why[ANSWER_WHY_MAX];

	values(100, size);
	assert_int_equal(answer_check_storage(size, 100, &rs, why,
	    sizeof(why)), ANSWER_OK);
	/* Absent (pruned) and failed values have no size to check. */
	rs.items[0].outcome = OUTCOME_ABSENT;
	rs.items[0].value_len = 0;
	rs.items[3].outcome = OUTCOME_TIMEOUT;
	assert_int_equal(answer_check_storage(size, 100, &rs, why,
	    sizeof(why)), ANSWER_OK);
	/* A key of any size. */
	values(2, size);
	size[1] = 0;
	rs.items[1].value_len = 3;
	assert_int_equal(answer_check_storage(size, 2, &rs, why,
	    sizeof(why)), ANSWER_OK);

	/* Short, long, empty. */
	values(50, size);
	assert_int_equal(answer_check_storage(size, 100, &rs, why,
	    sizeof(why)), ANSWER_WRONG);
	assert_string_equal(why, "50 values for 100 keys asked");
	values(3, size);
	assert_int_equal(answer_check_storage(size, 2, &rs, why,
	    sizeof(why)), ANSWER_WRONG);
	assert_string_equal(why, "3 values for 2 keys asked");
	values(0, size);
	assert_int_equal(answer_check_storage(size, 1, &rs, why,
	    sizeof(why)), ANSWER_WRONG);
	/* Another key's values: a timestamp where difficulty was asked. */
	values(4, size);
	rs.items[2].value_len = 8;
	assert_int_equal(answer_check_storage(size, 4, &rs, why,
	    sizeof(why)), ANSWER_WRONG);
	assert_string_equal(why, "value 2 is 8 bytes, its key's are 64");
	values(4, size);
	rs.items[1].value_len = 64;
	assert_int_equal(answer_check_storage(size, 4, &rs, why,
	    sizeof(why)), ANSWER_WRONG);
	assert_string_equal(why, "value 1 is 64 bytes, its key's are 8");
	/* A short buffer is cut, not overrun. */
	values(50, size);
	assert_int_equal(answer_check_storage(size, 100, &rs, why, 8),
	    ANSWER_WRONG);
	assert_string_equal(why, "50 valu");
}

static void
set_ts(size_t k, uint64_t ts)
{
	for (int b = 0; b < 8; b++)
		rs.items[k].value[b] = (uint8_t)(ts >> (8 * b));
}

/* Timestamps up to 30 s past this clock pass; one beyond is named. */
static void
test_clock(void **state)
{
	size_t		size[PROTO_READS_MAX];
	uint64_t	now = UINT64_C(1767225600000), ahead = 0;

	values(6, size);
	set_ts(1, now - 12000);
	set_ts(3, now);
	set_ts(5, now + ANSWER_AHEAD_MAX);
	assert_int_equal(answer_check_clock(&rs, 2, now, &ahead), -1);
	set_ts(5, now + ANSWER_AHEAD_MAX + 1);
	assert_int_equal(answer_check_clock(&rs, 2, now, &ahead), 5);
	assert_int_equal(ahead, ANSWER_AHEAD_MAX + 1);
	/* The first one ahead; difficulties are not timestamps. */
	set_ts(3, now + 86400000);
	memset(rs.items[0].value, 0xff, 64);
	assert_int_equal(answer_check_clock(&rs, 2, now, &ahead), 3);
	assert_int_equal(ahead, 86400000);
	/* A value absent or of another size is not read. */
	rs.items[3].outcome = OUTCOME_ABSENT;
	rs.items[5].value_len = 0;
	assert_int_equal(answer_check_clock(&rs, 2, now, &ahead), -1);
	/* Substrate: one value a block, each a timestamp. */
	values(2, size);
	rs.items[0].value_len = rs.items[1].value_len = 8;
	set_ts(0, now);
	set_ts(1, now + 60000);
	assert_int_equal(answer_check_clock(&rs, 1, now, &ahead), 1);
}

static void
test_names(void **state)
{
	assert_string_equal(answer_verdict_name(ANSWER_OK), "ok");
	assert_string_equal(answer_verdict_name(ANSWER_WRONG), "wrong");
	assert_string_equal(answer_verdict_name(ANSWER_UNLINKED), "unlinked");
	assert_string_equal(answer_verdict_name((enum answer_verdict)3), "?");
}

/*
 * A quantus header #7 with a miner and a seal, and its figures as a
 * worker sends them (wrk_ep.c's seal_judge, decode_header).
 */
static void
figures(struct proto_header *p)
{
	struct header	h;
	uint8_t		preimage[32], nonce[QPOW_NONCE_LEN], pre[32];
	struct u512	hv, dmax;
	long		n;

	header_init(&h);
	memset(h.parent_hash, 0x11, 32);
	h.number = 7;
	memset(h.state_root, 0x22, 32);
	memset(h.extrinsics_root, 0x33, 32);
	memset(h.zk_tree_root, 0x44, 32);
	memset(preimage, 0x55, 32);
	memset(nonce, 0, sizeof(nonce));
	nonce[63] = 9;
	assert_int_equal(header_add_log(&h, DIGEST_PRERUNTIME, ENGINE_POW,
	    preimage, 32), 0);
	assert_int_equal(header_add_log(&h, DIGEST_SEAL, ENGINE_POW, nonce,
	    sizeof(nonce)), 0);
	memset(p, 0, sizeof(*p));
	header_hash(FORMAT_QUANTUS, &h, p->hash);
	memcpy(p->parent, h.parent_hash, 32);
	p->number = h.number;
	p->has_miner = header_miner(FORMAT_QUANTUS, &h, p->miner);
	assert_int_equal(p->has_miner, 1);
	p->seal = qpow_seal_of(&h, nonce, pre);
	assert_int_equal(p->seal, QPOW_SEAL_OK);
	qpow_nonce_hash(pre, nonce, &hv);
	qpow_max_difficulty(&hv, &dmax);
	u512_to_le(&dmax, p->pow_max);
	p->has_pow = 1;
	n = header_encode(FORMAT_QUANTUS, &h, p->raw, sizeof(p->raw));
	assert_true(n > 0);
	p->raw_len = (size_t)n;
}

/* q's figures are refused, the reason saying what. */
static void
differs(const struct proto_header *q, const char *what)
{
	char	why[ANSWER_WHY_MAX];

	assert_int_equal(answer_check_figures(q, why, sizeof(why)), -1);
	assert_non_null(strstr(why, what));
}

/* The supervisor's own check of a worker's figures against the bytes. */
static void
test_figures(void **state)
{
	struct proto_header	p, q;
	char			why[ANSWER_WHY_MAX];

	(void)state;
	figures(&p);
	assert_int_equal(answer_check_figures(&p, why, sizeof(why)), 0);
	/* Each figure a worker could get wrong, named. */
	q = p;
	q.pow_max[0] ^= 1;
	differs(&q, "header #7: the worker's figures differ from its bytes "
	    "(seal bound)");
	q = p;
	q.hash[31] ^= 1;
	differs(&q, "(hash)");
	q = p;
	q.miner[0] ^= 1;
	differs(&q, "(miner)");
	q = p;
	q.seal = QPOW_SEAL_ZERO;
	differs(&q, "(seal verdict)");
	q = p;
	q.runtime_updated = 1;
	differs(&q, "(runtime flag)");
	q = p;
	q.number = 8;
	differs(&q, "header #8:");
	q = p;
	q.raw_len = 0;
	differs(&q, "(no bytes)");
	q = p;
	q.raw_len = 40;
	differs(&q, "(bytes that do not decode)");
	/* Genesis has no seal: nothing to check. */
	q = p;
	q.number = 0;
	q.raw_len = 0;
	assert_int_equal(answer_check_figures(&q, why, sizeof(why)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range_ok),
		cmocka_unit_test(test_range_wrong),
		cmocka_unit_test(test_range_unlinked),
		cmocka_unit_test(test_by_hash),
		cmocka_unit_test(test_storage),
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_figures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
