/*
 * IPC messages both ways (src/msg.c framing, src/proto.c bodies): one
 * datagram of msgpack, parsed and its body unpacked by the function of
 * its type, as chainwatchd reads a worker's reports and a worker reads
 * the supervisor's requests.  What unpacks packs again into a message
 * that parses and unpacks too.
 */
#include "config.h"

#include "fuzz.h"
#include "msg.h"
#include "proto.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_log_init("fuzz_msg");
	return 0;
}

/* Every body, big enough for any type; static: some are 100 KB. */
static union {
	struct proto_config		config;
	struct proto_head		head;
	struct proto_sub		sub;
	struct proto_outcome		outcome;
	struct proto_info		info;
	struct proto_req_headers	req_headers;
	struct proto_res_headers	res_headers;
	struct proto_req_storage	req_storage;
	struct proto_res_storage	res_storage;
	struct proto_req_runtime	req_runtime;
	struct proto_res_runtime	res_runtime;
	struct proto_req_genesis	req_genesis;
	struct proto_res_genesis	res_genesis;
} body;

#define UNPACK(fn, field) \
	(fn(m, &body.field, err, errlen))

/* 1 and the message packed into mb when the body unpacked, else 0. */
static int
unpack(const struct msg *m, struct msgbuf *mb, char *err, size_t errlen)
{
	uint64_t	rss;

	switch (m->type) {
	case MSG_CONFIG:
		if (UNPACK(proto_unpack_config, config) == -1)
			return 0;
		proto_pack_config(mb, m->gen, &body.config);
		return 1;
	case MSG_HELLO:
		return 0;
	case MSG_HEARTBEAT:
		(void)msg_get_uint(m, "rss_kb", &rss);
		return 0;
	case MSG_INFO:
		if (UNPACK(proto_unpack_info, info) == -1)
			return 0;
		proto_pack_info(mb, m->gen, &body.info);
		return 1;
	case MSG_HEAD:
		if (UNPACK(proto_unpack_head, head) == -1)
			return 0;
		proto_pack_head(mb, m->gen, &body.head);
		return 1;
	case MSG_SUB:
		if (UNPACK(proto_unpack_sub, sub) == -1)
			return 0;
		proto_pack_sub(mb, m->gen, &body.sub);
		return 1;
	case MSG_OUTCOME:
		if (UNPACK(proto_unpack_outcome, outcome) == -1)
			return 0;
		proto_pack_outcome(mb, m->gen, &body.outcome);
		return 1;
	case MSG_REQ_HEADERS:
		if (UNPACK(proto_unpack_req_headers, req_headers) == -1)
			return 0;
		proto_pack_req_headers(mb, m->gen, &body.req_headers);
		return 1;
	case MSG_RES_HEADERS:
		if (UNPACK(proto_unpack_res_headers, res_headers) == -1)
			return 0;
		proto_pack_res_headers(mb, m->gen, &body.res_headers);
		return 1;
	case MSG_REQ_STORAGE:
		if (UNPACK(proto_unpack_req_storage, req_storage) == -1)
			return 0;
		proto_pack_req_storage(mb, m->gen, &body.req_storage);
		return 1;
	case MSG_RES_STORAGE:
		if (UNPACK(proto_unpack_res_storage, res_storage) == -1)
			return 0;
		proto_pack_res_storage(mb, m->gen, &body.res_storage);
		return 1;
	case MSG_REQ_RUNTIME:
		if (UNPACK(proto_unpack_req_runtime, req_runtime) == -1)
			return 0;
		proto_pack_req_runtime(mb, m->gen, &body.req_runtime);
		return 1;
	case MSG_RES_RUNTIME:
		if (UNPACK(proto_unpack_res_runtime, res_runtime) == -1)
			return 0;
		proto_pack_res_runtime(mb, m->gen, &body.res_runtime);
		return 1;
	case MSG_REQ_GENESIS:
		if (UNPACK(proto_unpack_req_genesis, req_genesis) == -1)
			return 0;
		proto_pack_req_genesis(mb, m->gen, &body.req_genesis);
		return 1;
	case MSG_RES_GENESIS:
		if (UNPACK(proto_unpack_res_genesis, res_genesis) == -1)
			return 0;
		proto_pack_res_genesis(mb, m->gen, &body.res_genesis);
		return 1;
	default:
		return 0;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct msg	m, m2;
	struct msgbuf	mb, mb2;
	char		err[256];

	if (msg_parse(data, size, &m, err, sizeof(err)) == -1) {
		if (err[0] == '\0')
			abort();	/* every refusal says why */
		return 0;
	}
	(void)msg_type_name(m.type);
	if (unpack(&m, &mb, err, sizeof(err))) {
		/* Packed again, it parses and unpacks: both ends agree. */
		if (msg_parse(mb.sb.data, mb.sb.size, &m2, err,
		    sizeof(err)) == -1)
			abort();
		if (!unpack(&m2, &mb2, err, sizeof(err)))
			abort();
		msg_free(&m2);
		msg_done(&mb2);
		msg_done(&mb);
	}
	msg_free(&m);
	return 0;
}
