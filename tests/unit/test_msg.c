/*
 * Message framing: round trips, and every way a message can be bad
 * (truncated, oversized, trailing bytes, wrong shape, unknown type, stale
 * or future generation), plus the queue over a real SEQPACKET socket.
 */
#include "config.h"

#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "msg.h"

static void
expect_bad(const void *buf, size_t len, const char *want)
{
	struct msg	m;
	char		err[128];

	assert_int_equal(msg_parse(buf, len, &m, err, sizeof(err)), -1);
	assert_string_equal(err, want);
}

static void
test_round_trip(void **state)
{
	struct msgbuf	mb;
	struct msg	m;
	char		err[128], s[16];
	uint64_t	v;
	const msgpack_object *o;

	msg_begin(&mb, MSG_HEARTBEAT, 7, 3);
	msg_put_uint(&mb, "rss_kb", 12345);
	msg_put_str(&mb, "name", "a1-planck");
	msg_put_bin(&mb, "hash", "\x01\x02\x03", 3);
	assert_int_equal(msg_parse(mb.sb.data, mb.sb.size, &m, err,
	    sizeof(err)), 0);
	assert_int_equal(m.type, MSG_HEARTBEAT);
	assert_int_equal(m.gen, 7);
	assert_int_equal(msg_get_uint(&m, "rss_kb", &v), 0);
	assert_int_equal(v, 12345);
	assert_int_equal(msg_get_str(&m, "name", s, sizeof(s)), 0);
	assert_string_equal(s, "a1-planck");
	/* Wrong type, missing key, too small a buffer. */
	assert_int_equal(msg_get_uint(&m, "name", &v), -1);
	assert_int_equal(msg_get_uint(&m, "nothing", &v), -1);
	assert_int_equal(msg_get_str(&m, "name", s, 9), -1);
	o = msg_get(&m, "hash");
	assert_non_null(o);
	assert_int_equal(o->type, MSGPACK_OBJECT_BIN);
	assert_memory_equal(o->via.bin.ptr, "\x01\x02\x03", 3);
	msg_free(&m);
	msg_done(&mb);
}

static void
test_raw_body(void **state)
{
	struct msgbuf	body, mb;
	struct msg	m;
	char		err[128], s[16];

	msg_begin_body(&body, 1);
	msg_put_str(&body, "chain", "planck");
	msg_begin_raw(&mb, MSG_CONFIG, 42, body.sb.data, body.sb.size);
	assert_int_equal(msg_parse(mb.sb.data, mb.sb.size, &m, err,
	    sizeof(err)), 0);
	assert_int_equal(m.type, MSG_CONFIG);
	assert_int_equal(m.gen, 42);
	assert_int_equal(msg_get_str(&m, "chain", s, sizeof(s)), 0);
	assert_string_equal(s, "planck");
	msg_free(&m);
	msg_done(&mb);
	msg_done(&body);
}

static void
test_truncated(void **state)
{
	struct msgbuf	mb;

	msg_begin(&mb, MSG_HELLO, 1, 1);
	msg_put_str(&mb, "x", "a longer string value");
	for (size_t n = 1; n < mb.sb.size; n++) {
		struct msg	m;
		char		err[128];

		assert_int_equal(msg_parse(mb.sb.data, n, &m, err,
		    sizeof(err)), -1);
	}
	expect_bad(mb.sb.data, 10, "truncated message (10 bytes)");
	expect_bad(mb.sb.data, 0, "empty message");
	msg_done(&mb);
}

static void
test_oversized(void **state)
{
	static char	big[MSG_MAX + 1];

	expect_bad(big, sizeof(big), "message of 1048577 bytes is over the "
	    "1048576 byte limit");
}

static void
test_shape(void **state)
{
	/* [1, 1, {}] followed by one stray byte. */
	expect_bad("\x93\x01\x01\x80\x00", 5, "1 bytes after the message");
	/* An integer, not an array. */
	expect_bad("\x05", 1, "not a [type, generation, body] array");
	/* [1, 1] */
	expect_bad("\x92\x01\x01", 3, "not a [type, generation, body] array");
	/* Unknown types: 0, MSG_TYPE_MAX, a negative one, a string. */
	expect_bad("\x93\x00\x01\x80", 4, "unknown message type");
	{
		char	b[4] = { (char)0x93, MSG_TYPE_MAX, 1, (char)0x80 };

		expect_bad(b, 4, "unknown message type");
	}
	expect_bad("\x93\xff\x01\x80", 4, "unknown message type");
	expect_bad("\x93\xa1x\x01\x80", 5, "unknown message type");
	/* Generation: negative, over 32 bits. */
	expect_bad("\x93\x02\xff\x80", 4, "bad generation number");
	expect_bad("\x93\x02\xcf\x00\x00\x00\x01\x00\x00\x00\x00\x80", 12,
	    "bad generation number");
	/* Body not a map; a map with an integer key. */
	expect_bad("\x93\x02\x01\x90", 4, "hello: body is not a map");
	expect_bad("\x93\x02\x01\x81\x01\x01", 6,
	    "hello: body key is not a string");
	/* Not msgpack at all (0xc1 is never used). */
	expect_bad("\xc1", 1, "not msgpack");
}

/*
 * Containers that declare more items than the message has bytes are
 * refused before msgpack-c allocates for them (found by fuzz/fuzz_msg:
 * a 19-byte heartbeat declaring a map of 1.9 billion pairs had it
 * allocate 128 GB).
 */
static void
test_declared_too_many(void **state)
{
	/* The fuzzer's input: [3, 1, {"rtu": {1935633250 pairs...}}]. */
	expect_bad("\x93\x03\x01\x81\xa6\x72\x73\xa3\x72\x74\x75\xdf"
	    "\x73\x5f\x6b\x62\xcd\x14\x00", 19, "a container declares "
	    "3871266500 items where 3 bytes are left");
	/* An array of 2^20 items in 9 bytes: 24 MB for msgpack-c before. */
	expect_bad("\x93\x02\x01\x81\xa1x\xdd\x00\x10\x00\x00", 11,
	    "a container declares 1048576 items where 0 bytes are left");
	expect_bad("\xdc\xff\xff\x01", 4,
	    "a container declares 65535 items where 1 bytes are left");
	/* Lengths of strings and binaries past the end are truncation. */
	expect_bad("\x93\x02\x01\x81\xa1x\xc6\xff\xff\xff\xff\x00", 12,
	    "truncated message (12 bytes)");
	expect_bad("\x93\x02\x01\x81\xa1x\xdb\x00", 8,
	    "truncated message (8 bytes)");
}

static void
test_generation(void **state)
{
	assert_int_equal(msg_check_gen(5, 5), MSG_GEN_OK);
	assert_int_equal(msg_check_gen(4, 5), MSG_GEN_STALE);
	assert_int_equal(msg_check_gen(0, 5), MSG_GEN_STALE);
	assert_int_equal(msg_check_gen(6, 5), MSG_GEN_BAD);
}

/* The queue keeps order and never blocks; oversized packets are seen. */
static void
test_queue_socket(void **state)
{
	static char	buf[MSG_MAX];
	struct msgq	q;
	int		sv[2], rc, big_ok;
	long		n;

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	big_ok = msg_sockbuf(sv[0]) == 0;
	msgq_init(&q);
	/* Fill the socket until it pushes back. */
	for (unsigned i = 0; i < 4000; i++) {
		struct msgbuf	mb;

		msg_begin(&mb, MSG_HEARTBEAT, 1, 2);
		msg_put_uint(&mb, "rss_kb", i);
		msg_put_bin(&mb, "pad", buf, 2000);
		assert_int_equal(msgq_push(&q, &mb), 0);
	}
	rc = msgq_flush(&q, sv[0]);
	assert_int_equal(rc, 1);
	assert_true(q.n > 0);
	for (unsigned i = 0; i < 4000; i++) {
		struct msg	m;
		char		err[128];
		uint64_t	v;

		n = msg_recv(sv[1], buf);
		if (n == -1 && errno == EAGAIN) {
			assert_true(msgq_flush(&q, sv[0]) >= 0);
			i--;
			continue;
		}
		assert_true(n > 0);
		assert_int_equal(msg_parse(buf, (size_t)n, &m, err,
		    sizeof(err)), 0);
		assert_int_equal(msg_get_uint(&m, "rss_kb", &v), 0);
		assert_int_equal(v, i);
		msg_free(&m);
	}
	assert_int_equal(q.n, 0);
	assert_int_equal(msgq_flush(&q, sv[0]), 0);

	/* A packet over MSG_MAX is reported with its real length. */
	if (big_ok) {
		static char	big[MSG_MAX + 100];

		assert_int_equal(send(sv[0], big, sizeof(big), 0),
		    (ssize_t)sizeof(big));
		n = msg_recv(sv[1], buf);
		assert_int_equal(n, (long)sizeof(big));
	}
	/* EOF is 0. */
	close(sv[0]);
	assert_int_equal(msg_recv(sv[1], buf), 0);
	close(sv[1]);
	msgq_clear(&q);
}

/*
 * msgq_flush_below sends while the peer has less than max bytes unread,
 * and holds the rest until it reads.
 */
static void
test_queue_below(void **state)
{
	static char	buf[MSG_MAX];
	struct msgq	q;
	int		sv[2];
	unsigned	got = 0;
	size_t		held;

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	msgq_init(&q);
	for (unsigned i = 0; i < 10; i++) {
		struct msgbuf	mb;

		msg_begin(&mb, MSG_HEARTBEAT, 1, 2);
		msg_put_uint(&mb, "rss_kb", i);
		msg_put_bin(&mb, "pad", buf, 10000);
		assert_int_equal(msgq_push(&q, &mb), 0);
	}
	/*
	 * 25 kB unread at most: one to three of the ten go (the kernel
	 * counts a little more than each message's bytes), the rest wait.
	 */
	assert_int_equal(msgq_flush_below(&q, sv[0], 25000), 2);
	held = q.n;
	assert_true(held >= 7 && held <= 9);
	assert_true(msgq_bytes(&q) > held * 10000 &&
	    msgq_bytes(&q) < held * 10100);
	assert_int_equal(msgq_flush_below(&q, sv[0], 25000), 2);
	assert_int_equal(q.n, held);
	/* What is read lets more go, in order, never more than before. */
	while (got < 10) {
		struct msg	m;
		char		err[128];
		uint64_t	v;
		long		n = msg_recv(sv[1], buf);

		assert_true(n > 0);
		assert_int_equal(msg_parse(buf, (size_t)n, &m, err,
		    sizeof(err)), 0);
		assert_int_equal(msg_get_uint(&m, "rss_kb", &v), 0);
		assert_int_equal(v, got);
		msg_free(&m);
		got++;
		assert_true(msgq_flush_below(&q, sv[0], 25000) >= 0);
		assert_true(q.n <= held && q.n <= 10 - got);
		held = q.n;
	}
	assert_int_equal(msgq_flush_below(&q, sv[0], 25000), 0);
	close(sv[0]);
	close(sv[1]);
}

static void
test_push_oversized(void **state)
{
	static char	big[MSG_MAX];
	struct msgbuf	mb;
	struct msgq	q;

	msgq_init(&q);
	msg_begin(&mb, MSG_HEARTBEAT, 1, 1);
	msg_put_bin(&mb, "pad", big, sizeof(big));
	assert_int_equal(msgq_push(&q, &mb), -1);
	assert_int_equal(errno, EMSGSIZE);
	assert_int_equal(q.n, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_raw_body),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_declared_too_many),
		cmocka_unit_test(test_generation),
		cmocka_unit_test(test_queue_socket),
		cmocka_unit_test(test_queue_below),
		cmocka_unit_test(test_push_oversized),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
