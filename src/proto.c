/*
 * Message contents, described once as tables of fields (key, type, place
 * in the struct) that drive both packing and the strict unpacking: every
 * field present exactly once, of its type and within its size, and no
 * other field.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "proto.h"
#include "qpow.h"
#include "util.h"

enum pf_type {
	PF_U64,		/* uint64_t */
	PF_U32,		/* uint32_t */
	PF_UINT,	/* unsigned, within [0, size] */
	PF_FLAG,	/* int, 0 or 1 */
	PF_OUTCOME,	/* enum outcome */
	PF_STR,		/* char[size], NUL-terminated */
	PF_HASH,	/* uint8_t[32] */
	PF_OPT_BIN,	/* uint8_t[size] or nil; the int at aux says which */
	PF_BYTES,	/* uint8_t[size]; the size_t at aux is the length */
	PF_HEADER,	/* struct proto_header, as a nested map */
	PF_NUMBERS,	/* uint64_t[size]; the size_t at aux is the count */
	PF_HASHES,	/* uint8_t[size][32]; the size_t at aux is the count */
	PF_ITEMS,	/* an array of up to size structs described by sub */
};

struct pfield {
	const char		*key;
	enum pf_type		 type;
	size_t			 off;
	size_t			 size;
	size_t			 aux;
	/* PF_ITEMS: the element's fields and size; the count is at aux. */
	const struct pfield	*sub;
	size_t			 nsub;
	size_t			 elem;
};

#define F(s, k, t, m)		{ k, t, offsetof(struct s, m), 0, 0, NULL, 0, 0 }
#define FS(s, k, t, m)		{ k, t, offsetof(struct s, m), \
				    sizeof(((struct s *)0)->m), 0, NULL, 0, 0 }
#define FA(s, k, t, m, a, n)	{ k, t, offsetof(struct s, m), n, \
				    offsetof(struct s, a), NULL, 0, 0 }
/* An array of struct e, described by e_fields, counted by member a. */
#define FI(s, k, m, a, e)	{ k, PF_ITEMS, offsetof(struct s, m), \
				    nitems(((struct s *)0)->m), \
				    offsetof(struct s, a), e##_fields, \
				    nitems(e##_fields), sizeof(struct e) }

static const struct pfield config_fields[] = {
	FS(proto_config, "chain", PF_STR, chain),
	FS(proto_config, "name", PF_STR, name),
	FS(proto_config, "rpc_url", PF_STR, rpc_url),
	FS(proto_config, "ws_url", PF_STR, ws_url),
	FS(proto_config, "user", PF_STR, user),
	F(proto_config, "format", PF_U64, format),
	F(proto_config, "block_time", PF_U64, block_time),
	F(proto_config, "stall_factor", PF_U64, stall_factor),
	F(proto_config, "subscribe", PF_U64, subscribe),
	F(proto_config, "connect_timeout", PF_U64, connect_timeout),
	F(proto_config, "request_timeout", PF_U64, request_timeout),
	F(proto_config, "max_response", PF_U64, max_response),
	F(proto_config, "max_inflight", PF_U64, max_inflight),
	F(proto_config, "memory_limit", PF_U64, memory_limit),
	F(proto_config, "heartbeat", PF_U64, heartbeat),
	F(proto_config, "log_level", PF_U64, log_level),
	F(proto_config, "log_stderr", PF_U64, log_stderr),
	FS(proto_config, "secret_params", PF_STR, secret_params),
};

static const struct pfield header_fields[] = {
	F(proto_header, "hash", PF_HASH, hash),
	F(proto_header, "parent", PF_HASH, parent),
	F(proto_header, "number", PF_U64, number),
	FA(proto_header, "miner", PF_OPT_BIN, miner, has_miner, 32),
	F(proto_header, "rtu", PF_FLAG, runtime_updated),
	{ "seal", PF_UINT, offsetof(struct proto_header, seal),
	    QPOW_SEAL_COUNT - 1, 0, NULL, 0, 0 },
	FA(proto_header, "pow", PF_OPT_BIN, pow_max, has_pow, 64),
	FA(proto_header, "raw", PF_BYTES, raw, raw_len, PROTO_RAW_MAX),
};

static const struct pfield proto_item_fields[] = {
	F(proto_item, "outcome", PF_OUTCOME, outcome),
	F(proto_item, "latency", PF_U64, latency_ms),
	FS(proto_item, "why", PF_STR, why),
	F(proto_item, "h", PF_HEADER, h),
};

static const struct pfield head_fields[] = {
	{ "kind", PF_UINT, offsetof(struct proto_head, kind), HEAD_FINALIZED, 0,
	    NULL, 0, 0 },
	F(proto_head, "seen", PF_U64, seen_ms),
	F(proto_head, "h", PF_HEADER, h),
};

static const struct pfield sub_fields[] = {
	F(proto_sub, "live", PF_FLAG, live),
	{ "reconnects", PF_UINT, offsetof(struct proto_sub, reconnects),
	    UINT32_MAX, 0, NULL, 0, 0 },
	FS(proto_sub, "why", PF_STR, why),
};

static const struct pfield subscribe_fields[] = {
	F(proto_subscribe, "on", PF_FLAG, on),
};

static const struct pfield outcome_fields[] = {
	FS(proto_outcome, "what", PF_STR, what),
	F(proto_outcome, "outcome", PF_OUTCOME, outcome),
	F(proto_outcome, "latency", PF_U64, latency_ms),
	F(proto_outcome, "retry", PF_U64, retry_ms),
	FS(proto_outcome, "why", PF_STR, why),
};

static const struct pfield info_fields[] = {
	F(proto_info, "outcome", PF_OUTCOME, outcome),
	F(proto_info, "latency", PF_U64, latency_ms),
	FS(proto_info, "why", PF_STR, why),
	F(proto_info, "fits", PF_FLAG, fits),
	F(proto_info, "genesis", PF_HASH, genesis),
	FS(proto_info, "chain", PF_STR, chain),
	FS(proto_info, "spec_name", PF_STR, spec_name),
	F(proto_info, "spec_version", PF_U64, spec_version),
	F(proto_info, "ss58", PF_U64, ss58_format),
	F(proto_info, "best", PF_U64, best),
};

static const struct pfield req_headers_fields[] = {
	F(proto_req_headers, "id", PF_U64, id),
	F(proto_req_headers, "deadline", PF_U32, deadline_ms),
	{ "by", PF_UINT, offsetof(struct proto_req_headers, by), BY_HASH, 0,
	    NULL, 0, 0 },
	FA(proto_req_headers, "numbers", PF_NUMBERS, numbers, n,
	    PROTO_BATCH_MAX),
	FA(proto_req_headers, "hashes", PF_HASHES, hashes, n, PROTO_BATCH_MAX),
};

static const struct pfield res_headers_fields[] = {
	F(proto_res_headers, "id", PF_U64, id),
	F(proto_res_headers, "retry", PF_U64, retry_ms),
	FI(proto_res_headers, "items", items, n, proto_item),
};

static const struct pfield proto_read_fields[] = {
	F(proto_read, "at", PF_HASH, at),
	FA(proto_read, "key", PF_BYTES, key, key_len, PROTO_KEY_MAX),
};

static const struct pfield req_storage_fields[] = {
	F(proto_req_storage, "id", PF_U64, id),
	F(proto_req_storage, "deadline", PF_U32, deadline_ms),
	FI(proto_req_storage, "items", items, n, proto_read),
};

static const struct pfield proto_value_fields[] = {
	F(proto_value, "outcome", PF_OUTCOME, outcome),
	F(proto_value, "latency", PF_U64, latency_ms),
	FS(proto_value, "why", PF_STR, why),
	FA(proto_value, "value", PF_BYTES, value, value_len, PROTO_VALUE_MAX),
};

static const struct pfield res_storage_fields[] = {
	F(proto_res_storage, "id", PF_U64, id),
	F(proto_res_storage, "retry", PF_U64, retry_ms),
	FI(proto_res_storage, "items", items, n, proto_value),
};

static const struct pfield req_runtime_fields[] = {
	F(proto_req_runtime, "id", PF_U64, id),
	F(proto_req_runtime, "deadline", PF_U32, deadline_ms),
	FA(proto_req_runtime, "at", PF_OPT_BIN, at, has_at, 32),
};

static const struct pfield res_runtime_fields[] = {
	F(proto_res_runtime, "id", PF_U64, id),
	F(proto_res_runtime, "outcome", PF_OUTCOME, outcome),
	F(proto_res_runtime, "latency", PF_U64, latency_ms),
	FS(proto_res_runtime, "why", PF_STR, why),
	FS(proto_res_runtime, "spec_name", PF_STR, spec_name),
	F(proto_res_runtime, "spec_version", PF_U64, spec_version),
	F(proto_res_runtime, "impl_version", PF_U64, impl_version),
};

static const struct pfield req_genesis_fields[] = {
	F(proto_req_genesis, "id", PF_U64, id),
	F(proto_req_genesis, "deadline", PF_U32, deadline_ms),
};

static const struct pfield res_genesis_fields[] = {
	F(proto_res_genesis, "id", PF_U64, id),
	F(proto_res_genesis, "outcome", PF_OUTCOME, outcome),
	F(proto_res_genesis, "latency", PF_U64, latency_ms),
	FS(proto_res_genesis, "why", PF_STR, why),
	F(proto_res_genesis, "hash", PF_HASH, hash),
};

static void	pack_map(msgpack_packer *, const struct pfield *, size_t,
		    const void *);

static void
pack_bin(msgpack_packer *pk, const void *p, size_t n)
{
	msgpack_pack_bin(pk, n);
	msgpack_pack_bin_body(pk, p, n);
}

static void
pack_value(msgpack_packer *pk, const struct pfield *f, const void *s)
{
	const char	*p = (const char *)s + f->off;
	size_t		 n;

	switch (f->type) {
	case PF_U64:
		msgpack_pack_uint64(pk, *(const uint64_t *)p);
		break;
	case PF_U32:
		msgpack_pack_uint32(pk, *(const uint32_t *)p);
		break;
	case PF_UINT:
	case PF_OUTCOME:
		msgpack_pack_unsigned_int(pk, *(const unsigned *)p);
		break;
	case PF_FLAG:
		msgpack_pack_unsigned_int(pk, *(const int *)p != 0);
		break;
	case PF_STR:
		n = strnlen(p, f->size - 1);
		msgpack_pack_str(pk, n);
		msgpack_pack_str_body(pk, p, n);
		break;
	case PF_HASH:
		pack_bin(pk, p, 32);
		break;
	case PF_OPT_BIN:
		if (*(const int *)((const char *)s + f->aux))
			pack_bin(pk, p, f->size);
		else
			msgpack_pack_nil(pk);
		break;
	case PF_BYTES:
		pack_bin(pk, p, *(const size_t *)((const char *)s + f->aux));
		break;
	case PF_HEADER:
		pack_map(pk, header_fields, nitems(header_fields), p);
		break;
	case PF_NUMBERS:
	case PF_HASHES:
	case PF_ITEMS:
		n = *(const size_t *)((const char *)s + f->aux);
		/* Requests carry their items in one of two arrays. */
		if ((f->type == PF_NUMBERS &&
		    ((const struct proto_req_headers *)s)->by != BY_NUMBER) ||
		    (f->type == PF_HASHES &&
		    ((const struct proto_req_headers *)s)->by != BY_HASH))
			n = 0;
		msgpack_pack_array(pk, n);
		for (size_t i = 0; i < n; i++)
			if (f->type == PF_NUMBERS)
				msgpack_pack_uint64(pk, ((const uint64_t *)p)[i]);
			else if (f->type == PF_HASHES)
				pack_bin(pk, p + 32 * i, 32);
			else
				pack_map(pk, f->sub, f->nsub, p + i * f->elem);
		break;
	}
}

static void
pack_map(msgpack_packer *pk, const struct pfield *fields, size_t nf,
    const void *s)
{
	msgpack_pack_map(pk, nf);
	for (size_t i = 0; i < nf; i++) {
		size_t klen = strlen(fields[i].key);

		msgpack_pack_str(pk, klen);
		msgpack_pack_str_body(pk, fields[i].key, klen);
		pack_value(pk, &fields[i], s);
	}
}

static void
proto_pack(struct msgbuf *mb, enum msg_type type, uint32_t gen,
    const struct pfield *fields, size_t nf, const void *s)
{
	msgpack_sbuffer_init(&mb->sb);
	msgpack_packer_init(&mb->pk, &mb->sb, msgpack_sbuffer_write);
	msgpack_pack_array(&mb->pk, 3);
	msgpack_pack_unsigned_int(&mb->pk, type);
	msgpack_pack_uint32(&mb->pk, gen);
	pack_map(&mb->pk, fields, nf, s);
	mb->left = 0;
}

void
proto_pack_config_body(struct msgbuf *mb, const struct proto_config *s)
{
	msgpack_sbuffer_init(&mb->sb);
	msgpack_packer_init(&mb->pk, &mb->sb, msgpack_sbuffer_write);
	pack_map(&mb->pk, config_fields, nitems(config_fields), s);
	mb->left = 0;
}

static int	unpack_map(const msgpack_object *, const struct pfield *,
		    size_t, void *, char *, size_t);

static int
get_uint(const msgpack_object *o, uint64_t max, uint64_t *v)
{
	if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER || o->via.u64 > max)
		return -1;
	*v = o->via.u64;
	return 0;
}

static int
get_hash(const msgpack_object *o, uint8_t *out)
{
	if (o->type != MSGPACK_OBJECT_BIN || o->via.bin.size != 32)
		return -1;
	memcpy(out, o->via.bin.ptr, 32);
	return 0;
}

static int
unpack_value(const msgpack_object *o, const struct pfield *f, void *s,
    char *err, size_t errlen)
{
	char		*p = (char *)s + f->off;
	uint64_t	 v;
	size_t		 n;

	switch (f->type) {
	case PF_U64:
		if (get_uint(o, UINT64_MAX, (uint64_t *)p) == -1)
			goto bad;
		return 0;
	case PF_U32:
		if (get_uint(o, UINT32_MAX, &v) == -1)
			goto bad;
		*(uint32_t *)p = (uint32_t)v;
		return 0;
	case PF_UINT:
		if (get_uint(o, f->size, &v) == -1)
			goto bad;
		*(unsigned *)p = (unsigned)v;
		return 0;
	case PF_FLAG:
		if (get_uint(o, 1, &v) == -1)
			goto bad;
		*(int *)p = (int)v;
		return 0;
	case PF_OUTCOME:
		if (get_uint(o, OUTCOME_COUNT - 1, &v) == -1)
			goto bad;
		*(enum outcome *)p = (enum outcome)v;
		return 0;
	case PF_STR:
		if (o->type != MSGPACK_OBJECT_STR ||
		    o->via.str.size >= f->size ||
		    memchr(o->via.str.ptr, '\0', o->via.str.size) != NULL)
			goto bad;
		memcpy(p, o->via.str.ptr, o->via.str.size);
		p[o->via.str.size] = '\0';
		return 0;
	case PF_HASH:
		if (get_hash(o, (uint8_t *)p) == -1)
			goto bad;
		return 0;
	case PF_OPT_BIN:
		if (o->type == MSGPACK_OBJECT_NIL) {
			*(int *)((char *)s + f->aux) = 0;
			return 0;
		}
		if (o->type != MSGPACK_OBJECT_BIN || o->via.bin.size != f->size)
			goto bad;
		memcpy(p, o->via.bin.ptr, f->size);
		*(int *)((char *)s + f->aux) = 1;
		return 0;
	case PF_BYTES:
		if (o->type != MSGPACK_OBJECT_BIN || o->via.bin.size > f->size)
			goto bad;
		memcpy(p, o->via.bin.ptr, o->via.bin.size);
		*(size_t *)((char *)s + f->aux) = o->via.bin.size;
		return 0;
	case PF_HEADER:
		return unpack_map(o, header_fields, nitems(header_fields), p,
		    err, errlen);
	case PF_NUMBERS:
	case PF_HASHES:
	case PF_ITEMS:
		if (o->type != MSGPACK_OBJECT_ARRAY ||
		    o->via.array.size > f->size)
			goto bad;
		n = o->via.array.size;
		if (n == 0)
			return 0;	/* the other array of a request */
		if (f->type != PF_ITEMS && ((struct proto_req_headers *)s)->by
		    != (f->type == PF_NUMBERS ? BY_NUMBER : BY_HASH)) {
			snprintf(err, errlen, "'%s' given for the other 'by'",
			    f->key);
			return -1;
		}
		*(size_t *)((char *)s + f->aux) = n;
		for (size_t i = 0; i < n; i++) {
			const msgpack_object *e = &o->via.array.ptr[i];

			if (f->type == PF_NUMBERS) {
				if (get_uint(e, UINT64_MAX,
				    (uint64_t *)p + i) == -1)
					goto bad;
			} else if (f->type == PF_HASHES) {
				if (get_hash(e, (uint8_t *)p + 32 * i) == -1)
					goto bad;
			} else if (unpack_map(e, f->sub, f->nsub,
			    p + i * f->elem, err, errlen) == -1)
				return -1;
		}
		return 0;
	}
bad:
	snprintf(err, errlen, "field '%s' has a bad type or size", f->key);
	return -1;
}

static int
unpack_map(const msgpack_object *o, const struct pfield *fields, size_t nf,
    void *s, char *err, size_t errlen)
{
	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "not a map");
		return -1;
	}
	if (o->via.map.size != nf) {
		snprintf(err, errlen, "%u fields, expected %zu",
		    o->via.map.size, nf);
		return -1;
	}
	for (size_t i = 0; i < nf; i++) {
		const msgpack_object *v = NULL;
		size_t klen = strlen(fields[i].key);

		for (uint32_t j = 0; j < o->via.map.size; j++) {
			const msgpack_object_kv *kv = &o->via.map.ptr[j];

			if (kv->key.type == MSGPACK_OBJECT_STR &&
			    kv->key.via.str.size == klen &&
			    memcmp(kv->key.via.str.ptr, fields[i].key, klen)
			    == 0) {
				if (v != NULL) {
					snprintf(err, errlen, "field '%s' "
					    "given twice", fields[i].key);
					return -1;
				}
				v = &kv->val;
			}
		}
		if (v == NULL) {
			snprintf(err, errlen, "field '%s' missing",
			    fields[i].key);
			return -1;
		}
		if (unpack_value(v, &fields[i], s, err, errlen) == -1)
			return -1;
	}
	return 0;
}

static int
proto_unpack(const struct msg *m, enum msg_type type,
    const struct pfield *fields, size_t nf, void *s, size_t size, char *err,
    size_t errlen)
{
	char	why[96];

	memset(s, 0, size);
	if (m->type != type) {
		snprintf(err, errlen, "expected %s, got %s",
		    msg_type_name(type), msg_type_name(m->type));
		return -1;
	}
	if (unpack_map(m->body, fields, nf, s, why, sizeof(why)) == -1) {
		snprintf(err, errlen, "%s: %s", msg_type_name(type), why);
		return -1;
	}
	return 0;
}

#define PROTO_MESSAGE(name, type)					\
void									\
proto_pack_##name(struct msgbuf *mb, uint32_t gen,			\
    const struct proto_##name *s)					\
{									\
	proto_pack(mb, type, gen, name##_fields, nitems(name##_fields), s);	\
}									\
int									\
proto_unpack_##name(const struct msg *m, struct proto_##name *s,	\
    char *err, size_t errlen)						\
{									\
	return proto_unpack(m, type, name##_fields,			\
	    nitems(name##_fields), s, sizeof(*s), err, errlen);		\
}

PROTO_MESSAGE(config, MSG_CONFIG)
PROTO_MESSAGE(head, MSG_HEAD)
PROTO_MESSAGE(sub, MSG_SUB)
PROTO_MESSAGE(subscribe, MSG_SUBSCRIBE)
PROTO_MESSAGE(outcome, MSG_OUTCOME)
PROTO_MESSAGE(info, MSG_INFO)
PROTO_MESSAGE(req_headers, MSG_REQ_HEADERS)
PROTO_MESSAGE(res_headers, MSG_RES_HEADERS)
PROTO_MESSAGE(req_storage, MSG_REQ_STORAGE)
PROTO_MESSAGE(res_storage, MSG_RES_STORAGE)
PROTO_MESSAGE(req_runtime, MSG_REQ_RUNTIME)
PROTO_MESSAGE(res_runtime, MSG_RES_RUNTIME)
PROTO_MESSAGE(req_genesis, MSG_REQ_GENESIS)
PROTO_MESSAGE(res_genesis, MSG_RES_GENESIS)
