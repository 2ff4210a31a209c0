/*
 * Message contents: every type survives a round trip, and a message with
 * a missing, extra, mistyped or oversized field is refused with a reason.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto.h"
#include "qpow.h"

static void
parse(struct msgbuf *mb, struct msg *m)
{
	char	err[128];

	/* The message points into the buffer: keep it until msg_free. */
	assert_int_equal(msg_parse(mb->sb.data, mb->sb.size, m, err,
	    sizeof(err)), 0);
}

static void
test_head(void **state)
{
	struct proto_head	in, out;
	struct msgbuf		mb;
	struct msg		m;
	char			err[128];

	memset(&in, 0, sizeof(in));
	in.kind = HEAD_FINALIZED;
	in.seen_ms = 1764412800123ULL;
	memset(in.h.hash, 0xab, 32);
	memset(in.h.parent, 0xcd, 32);
	in.h.number = 1650000;
	in.h.has_miner = 1;
	memset(in.h.miner, 0x11, 32);
	in.h.runtime_updated = 1;
	in.h.seal = QPOW_SEAL_OK;
	in.h.has_pow = 1;
	memset(in.h.pow_max, 0x5a, 64);
	proto_pack_head(&mb, 9, &in);
	parse(&mb, &m);
	assert_int_equal(m.gen, 9);
	assert_int_equal(proto_unpack_head(&m, &out, err, sizeof(err)), 0);
	assert_memory_equal(&in, &out, sizeof(in));
	/* The wrong unpacker says what it got. */
	{
		struct proto_sub sub;

		assert_int_equal(proto_unpack_sub(&m, &sub, err, sizeof(err)),
		    -1);
		assert_string_equal(err, "expected sub, got head");
	}
	msg_free(&m);
	msg_done(&mb);

	/* No miner is nil, and comes back as none; so is no seal. */
	in.h.has_miner = 0;
	memset(in.h.miner, 0, 32);
	in.h.seal = QPOW_SEAL_ENGINE;
	in.h.has_pow = 0;
	memset(in.h.pow_max, 0, 64);
	proto_pack_head(&mb, 9, &in);
	parse(&mb, &m);
	assert_int_equal(proto_unpack_head(&m, &out, err, sizeof(err)), 0);
	assert_int_equal(out.h.has_miner, 0);
	assert_memory_equal(&in, &out, sizeof(in));
	msg_free(&m);
	msg_done(&mb);
}

static void
test_headers(void **state)
{
	struct proto_req_headers *rq = calloc(1, sizeof(*rq)), *rq2;
	struct proto_res_headers *rs = calloc(1, sizeof(*rs)), *rs2;
	struct msgbuf		mb;
	struct msg		m;
	char			err[128];

	rq2 = calloc(1, sizeof(*rq2));
	rs2 = calloc(1, sizeof(*rs2));
	rq->id = 77;
	rq->deadline_ms = 5000;
	rq->by = BY_NUMBER;
	rq->n = PROTO_BATCH_MAX;
	for (size_t i = 0; i < rq->n; i++)
		rq->numbers[i] = 1000 + i;
	proto_pack_req_headers(&mb, 1, rq);
	parse(&mb, &m);
	assert_int_equal(proto_unpack_req_headers(&m, rq2, err, sizeof(err)),
	    0);
	assert_memory_equal(rq, rq2, sizeof(*rq));
	msg_free(&m);
	msg_done(&mb);

	memset(rq, 0, sizeof(*rq));
	rq->id = 78;
	rq->by = BY_HASH;
	rq->n = 2;
	memset(rq->hashes[0], 1, 32);
	memset(rq->hashes[1], 2, 32);
	proto_pack_req_headers(&mb, 1, rq);
	parse(&mb, &m);
	assert_int_equal(proto_unpack_req_headers(&m, rq2, err, sizeof(err)),
	    0);
	assert_memory_equal(rq, rq2, sizeof(*rq));
	msg_free(&m);
	msg_done(&mb);

	rs->id = 78;
	rs->n = 2;
	rs->items[0].outcome = OUTCOME_OK;
	rs->items[0].latency_ms = 12;
	rs->items[0].h.number = 5;
	memset(rs->items[0].h.hash, 9, 32);
	rs->items[1].outcome = OUTCOME_ABSENT;
	strcpy(rs->items[1].why, "null");
	proto_pack_res_headers(&mb, 1, rs);
	parse(&mb, &m);
	assert_int_equal(proto_unpack_res_headers(&m, rs2, err, sizeof(err)),
	    0);
	assert_memory_equal(rs, rs2, sizeof(*rs));
	msg_free(&m);
	msg_done(&mb);
	free(rq);
	free(rq2);
	free(rs);
	free(rs2);
}

static void
test_small(void **state)
{
	static struct proto_req_storage	qs, qs2;
	struct proto_res_runtime	rr, rr2;
	struct proto_info		in, in2;
	struct msgbuf			mb;
	struct msg			m;
	char				err[128];

	memset(&qs, 0, sizeof(qs));
	qs.id = 3;
	qs.n = 2;
	qs.items[0].key_len = 32;
	memset(qs.items[0].key, 0xf7, 32);
	memset(qs.items[0].at, 0x42, 32);
	qs.items[1].key_len = 1;
	proto_pack_req_storage(&mb, 2, &qs);
	parse(&mb, &m);
	assert_int_equal(proto_unpack_req_storage(&m, &qs2, err, sizeof(err)),
	    0);
	assert_memory_equal(&qs, &qs2, sizeof(qs));
	msg_free(&m);
	msg_done(&mb);

	memset(&rr, 0, sizeof(rr));
	rr.id = 4;
	rr.outcome = OUTCOME_RATE_LIMITED;
	strcpy(rr.why, "HTTP 429");
	strcpy(rr.spec_name, "quantus-runtime");
	rr.spec_version = 117;
	proto_pack_res_runtime(&mb, 2, &rr);
	parse(&mb, &m);
	assert_int_equal(proto_unpack_res_runtime(&m, &rr2, err, sizeof(err)),
	    0);
	assert_memory_equal(&rr, &rr2, sizeof(rr));
	msg_free(&m);
	msg_done(&mb);

	memset(&in, 0, sizeof(in));
	strcpy(in.chain, "Planck");
	in.ss58_format = 189;
	memset(in.genesis, 0x55, 32);
	in.fits = 1;
	proto_pack_info(&mb, 2, &in);
	parse(&mb, &m);
	assert_int_equal(proto_unpack_info(&m, &in2, err, sizeof(err)), 0);
	assert_memory_equal(&in, &in2, sizeof(in));
	msg_free(&m);
	msg_done(&mb);

	/* Headers that do not fit the format: the flag and the evidence. */
	in.fits = 0;
	strcpy(in.why, "#7 hashes to 0x12ab... as substrate, not 0x34cd...");
	proto_pack_info(&mb, 2, &in);
	parse(&mb, &m);
	assert_int_equal(proto_unpack_info(&m, &in2, err, sizeof(err)), 0);
	assert_memory_equal(&in, &in2, sizeof(in));
	msg_free(&m);
	msg_done(&mb);
}

/* Hand-made bodies, each wrong in one way. */
static void
expect_bad(const char *body, size_t len, const char *want)
{
	struct msgbuf		mb;
	struct msg		m;
	struct proto_req_genesis g;
	char			err[128];

	msg_begin_raw(&mb, MSG_REQ_GENESIS, 1, body, len);
	parse(&mb, &m);
	assert_int_equal(proto_unpack_req_genesis(&m, &g, err, sizeof(err)),
	    -1);
	assert_string_equal(err, want);
	msg_free(&m);
	msg_done(&mb);
}

static void
test_bad_fields(void **state)
{
	/* {"id": 1} */
	expect_bad("\x81\xa2id\x01", 5, "req_genesis: 1 fields, expected 2");
	/* {"id": 1, "deadlinX": 2} */
	expect_bad("\x82\xa2id\x01\xa8" "deadlinX\x02", 15,
	    "req_genesis: field 'deadline' missing");
	/* {"id": "1", "deadline": 2} */
	expect_bad("\x82\xa2id\xa1" "1\xa8" "deadline\x02", 16,
	    "req_genesis: field 'id' has a bad type or size");
	/* {"id": -1, "deadline": 2} */
	expect_bad("\x82\xa2id\xff\xa8" "deadline\x02", 15,
	    "req_genesis: field 'id' has a bad type or size");
	/* {"id": 1, "deadline": 2^32} */
	expect_bad("\x82\xa2id\x01\xa8" "deadline\xcf\x00\x00\x00\x01\x00\x00"
	    "\x00\x00", 23, "req_genesis: field 'deadline' has a bad type or "
	    "size");
	/* {"id": 1, "id": 2} */
	expect_bad("\x82\xa2id\x01\xa2id\x02", 9,
	    "req_genesis: field 'id' given twice");
}

static void
test_bad_items(void **state)
{
	static struct proto_res_storage	rs, rs2;
	struct proto_req_headers	*rq = calloc(1, sizeof(*rq));
	struct msgbuf			mb;
	struct msg			m;
	char				err[128];

	/* An outcome outside the enum. */
	memset(&rs, 0, sizeof(rs));
	rs.n = 1;
	rs.items[0].outcome = OUTCOME_COUNT;
	proto_pack_res_storage(&mb, 1, &rs);
	parse(&mb, &m);
	assert_int_equal(proto_unpack_res_storage(&m, &rs2, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "res_storage: field 'outcome' has a bad type "
	    "or size");
	msg_free(&m);
	msg_done(&mb);

	/* Numbers sent with by = hash. */
	rq->by = BY_NUMBER;
	rq->n = 1;
	proto_pack_req_headers(&mb, 1, rq);
	/* Flip "by" in the packed bytes: find the key and its value. */
	{
		char *p = memmem(mb.sb.data, mb.sb.size, "\xa2" "by", 3);

		assert_non_null(p);
		assert_int_equal(p[3], BY_NUMBER);
		p[3] = BY_HASH;
	}
	parse(&mb, &m);
	assert_int_equal(proto_unpack_req_headers(&m, rq, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "req_headers: 'numbers' given for the other "
	    "'by'");
	msg_free(&m);
	msg_done(&mb);
	free(rq);
}

/* A header's seal: a verdict outside the enum, a bound of 63 bytes. */
static void
test_bad_seal(void **state)
{
	struct proto_head	in, out;
	struct msgbuf		mb;
	struct msg		m;
	char			err[128], *p;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.h.seal = QPOW_SEAL_COUNT;
	proto_pack_head(&mb, 1, &in);
	parse(&mb, &m);
	assert_int_equal(proto_unpack_head(&m, &out, err, sizeof(err)), -1);
	assert_string_equal(err, "head: field 'seal' has a bad type or size");
	msg_free(&m);
	msg_done(&mb);

	/* "pow" packed with 64 bytes, then cut to 63: refused. */
	in.h.seal = QPOW_SEAL_OK;
	in.h.has_pow = 1;
	proto_pack_head(&mb, 1, &in);
	p = memmem(mb.sb.data, mb.sb.size, "\xa3" "pow\xc4\x40", 6);
	assert_non_null(p);
	p[5] = 63;
	memmove(p + 6, p + 7, mb.sb.size - (size_t)(p + 7 - mb.sb.data));
	mb.sb.size--;
	parse(&mb, &m);
	assert_int_equal(proto_unpack_head(&m, &out, err, sizeof(err)), -1);
	assert_string_equal(err, "head: field 'pow' has a bad type or size");
	msg_free(&m);
	msg_done(&mb);
}

/* MSG_SUBSCRIBE: on and off survive; anything but 0 or 1 is refused. */
static void
test_subscribe(void **state)
{
	struct proto_subscribe	in, out;
	struct msgbuf		mb;
	struct msg		m;
	char			err[128];

	for (int on = 0; on <= 1; on++) {
		in.on = on;
		out.on = !on;
		proto_pack_subscribe(&mb, 4, &in);
		parse(&mb, &m);
		assert_int_equal(m.type, MSG_SUBSCRIBE);
		assert_string_equal(msg_type_name(m.type), "subscribe");
		assert_int_equal(proto_unpack_subscribe(&m, &out, err,
		    sizeof(err)), 0);
		assert_int_equal(out.on, on);
		msg_free(&m);
		msg_done(&mb);
	}

	/* {"on": 2} */
	msg_begin_raw(&mb, MSG_SUBSCRIBE, 1, "\x81\xa2on\x02", 5);
	parse(&mb, &m);
	assert_int_equal(proto_unpack_subscribe(&m, &out, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "subscribe: field 'on' has a bad type or "
	    "size");
	msg_free(&m);
	msg_done(&mb);
	/* {} */
	msg_begin_raw(&mb, MSG_SUBSCRIBE, 1, "\x80", 1);
	parse(&mb, &m);
	assert_int_equal(proto_unpack_subscribe(&m, &out, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "subscribe: 0 fields, expected 1");
	msg_free(&m);
	msg_done(&mb);
	/* A subscribe is not a sub. */
	in.on = 1;
	proto_pack_subscribe(&mb, 4, &in);
	parse(&mb, &m);
	{
		struct proto_sub sub;

		assert_int_equal(proto_unpack_sub(&m, &sub, err, sizeof(err)),
		    -1);
		assert_string_equal(err, "expected sub, got subscribe");
	}
	msg_free(&m);
	msg_done(&mb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_head),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_bad_fields),
		cmocka_unit_test(test_bad_items),
		cmocka_unit_test(test_bad_seal),
		cmocka_unit_test(test_subscribe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
