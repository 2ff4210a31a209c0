/*
 * Message framing for the supervisor <-> worker sockets: msgpack encode and
 * strict decode, and a small outbound queue so that neither side ever
 * blocks on a peer that does not read.
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/socket.h>

#include <linux/sockios.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "msg.h"
#include "util.h"

static const char *const type_names[MSG_TYPE_MAX] = {
	[MSG_NONE] = "none",
	[MSG_CONFIG] = "config",
	[MSG_HELLO] = "hello",
	[MSG_HEARTBEAT] = "heartbeat",
	[MSG_INFO] = "info",
	[MSG_HEAD] = "head",
	[MSG_SUB] = "sub",
	[MSG_OUTCOME] = "outcome",
	[MSG_REQ_HEADERS] = "req_headers",
	[MSG_RES_HEADERS] = "res_headers",
	[MSG_REQ_STORAGE] = "req_storage",
	[MSG_RES_STORAGE] = "res_storage",
	[MSG_REQ_RUNTIME] = "req_runtime",
	[MSG_RES_RUNTIME] = "res_runtime",
	[MSG_REQ_GENESIS] = "req_genesis",
	[MSG_RES_GENESIS] = "res_genesis",
	[MSG_SANDBOX] = "sandbox",
	[MSG_SUBSCRIBE] = "subscribe",
};

const char *
msg_type_name(enum msg_type t)
{
	if ((unsigned)t >= MSG_TYPE_MAX || type_names[t] == NULL)
		return "unknown";
	return type_names[t];
}

enum msg_gen
msg_check_gen(uint32_t got, uint32_t current)
{
	if (got == current)
		return MSG_GEN_OK;
	return got < current ? MSG_GEN_STALE : MSG_GEN_BAD;
}

/* A big-endian unsigned integer of n bytes. */
static uint64_t
msg_be(const uint8_t *p, size_t n)
{
	uint64_t	v = 0;

	while (n-- > 0)
		v = v << 8 | *p++;
	return v;
}

/*
 * Walk the msgpack items of buf before msgpack-c unpacks them: msgpack-c
 * allocates room for every element a container declares before it reads
 * one, so five bytes declaring an array of 2^32 items would have it
 * allocate 100 GB.  Each item takes at least one byte, so a container may
 * declare no more items than the bytes after it hold.  Bytes after the
 * first item are left to msg_parse to count.
 */
static int
msg_skim(const uint8_t *p, size_t len, char *err, size_t errlen)
{
	uint64_t	need = 1, items, body;
	size_t		off = 0, head;
	uint8_t		b;

	while (need > 0) {
		if (off >= len)
			goto truncated;
		b = p[off];
		need--;
		head = 1;
		body = items = 0;
		if (b <= 0x7f || b >= 0xe0)
			;			/* fixint */
		else if (b <= 0x8f)
			items = 2 * (uint64_t)(b & 0x0f);	/* fixmap */
		else if (b <= 0x9f)
			items = b & 0x0f;	/* fixarray */
		else if (b <= 0xbf)
			body = b & 0x1f;	/* fixstr */
		else {
			switch (b) {
			case 0xc0: case 0xc2: case 0xc3:
				break;
			case 0xc4: case 0xd9: case 0xc7:
				head = b == 0xc7 ? 3 : 2;
				break;
			case 0xc5: case 0xda: case 0xc8:
			case 0xdc: case 0xde:
				head = b == 0xc8 ? 4 : 3;
				break;
			case 0xc6: case 0xdb: case 0xc9:
			case 0xdd: case 0xdf:
				head = b == 0xc9 ? 6 : 5;
				break;
			case 0xcc: case 0xd0: body = 1; break;
			case 0xcd: case 0xd1: body = 2; break;
			case 0xca: case 0xce: case 0xd2: body = 4; break;
			case 0xcb: case 0xcf: case 0xd3: body = 8; break;
			case 0xd4: body = 2; break;	/* fixext: type, data */
			case 0xd5: body = 3; break;
			case 0xd6: body = 5; break;
			case 0xd7: body = 9; break;
			case 0xd8: body = 17; break;
			default:
				snprintf(err, errlen, "not msgpack");
				return -1;
			}
			if (len - off < head)
				goto truncated;
			switch (b) {
			case 0xc4: case 0xd9: case 0xc7:
				body = p[off + 1];
				break;
			case 0xc5: case 0xda: case 0xc8:
				body = msg_be(p + off + 1, 2);
				break;
			case 0xc6: case 0xdb: case 0xc9:
				body = msg_be(p + off + 1, 4);
				break;
			case 0xdc: items = msg_be(p + off + 1, 2); break;
			case 0xdd: items = msg_be(p + off + 1, 4); break;
			case 0xde: items = 2 * msg_be(p + off + 1, 2); break;
			case 0xdf: items = 2 * msg_be(p + off + 1, 4); break;
			}
		}
		if (len - off < head || body > len - off - head)
			goto truncated;
		off += head + (size_t)body;
		need += items;
		if (need > len - off) {
			snprintf(err, errlen, "a container declares %" PRIu64
			    " items where %zu bytes are left", items, len - off);
			return -1;
		}
	}
	return 0;
truncated:
	snprintf(err, errlen, "truncated message (%zu bytes)", len);
	return -1;
}

int
msg_parse(const void *buf, size_t len, struct msg *m, char *err,
    size_t errlen)
{
	const msgpack_object	*o;
	size_t			 off = 0;
	msgpack_unpack_return	 rc;

	memset(m, 0, sizeof(*m));
	if (len == 0) {
		snprintf(err, errlen, "empty message");
		return -1;
	}
	if (len > MSG_MAX) {
		snprintf(err, errlen, "message of %zu bytes is over the %d "
		    "byte limit", len, MSG_MAX);
		return -1;
	}
	if (msg_skim(buf, len, err, errlen) == -1)
		return -1;
	msgpack_unpacked_init(&m->up);
	rc = msgpack_unpack_next(&m->up, buf, len, &off);
	if (rc == MSGPACK_UNPACK_CONTINUE) {
		snprintf(err, errlen, "truncated message (%zu bytes)", len);
		goto bad;
	}
	if (rc != MSGPACK_UNPACK_SUCCESS) {
		snprintf(err, errlen, "not msgpack");
		goto bad;
	}
	if (off != len) {
		snprintf(err, errlen, "%zu bytes after the message", len - off);
		goto bad;
	}
	o = &m->up.data;
	if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 3) {
		snprintf(err, errlen, "not a [type, generation, body] array");
		goto bad;
	}
	o = o->via.array.ptr;
	if (o[0].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
	    o[0].via.u64 == MSG_NONE || o[0].via.u64 >= MSG_TYPE_MAX) {
		snprintf(err, errlen, "unknown message type");
		goto bad;
	}
	if (o[1].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
	    o[1].via.u64 > UINT32_MAX) {
		snprintf(err, errlen, "bad generation number");
		goto bad;
	}
	if (o[2].type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "%s: body is not a map",
		    msg_type_name((enum msg_type)o[0].via.u64));
		goto bad;
	}
	for (uint32_t i = 0; i < o[2].via.map.size; i++)
		if (o[2].via.map.ptr[i].key.type != MSGPACK_OBJECT_STR) {
			snprintf(err, errlen, "%s: body key is not a string",
			    msg_type_name((enum msg_type)o[0].via.u64));
			goto bad;
		}
	m->type = (enum msg_type)o[0].via.u64;
	m->gen = (uint32_t)o[1].via.u64;
	m->body = &o[2];
	return 0;
bad:
	msgpack_unpacked_destroy(&m->up);
	memset(m, 0, sizeof(*m));
	return -1;
}

void
msg_free(struct msg *m)
{
	if (m->body != NULL)
		msgpack_unpacked_destroy(&m->up);
	m->body = NULL;
}

const msgpack_object *
msg_get(const struct msg *m, const char *key)
{
	size_t	klen = strlen(key);

	for (uint32_t i = 0; i < m->body->via.map.size; i++) {
		const msgpack_object_kv *kv = &m->body->via.map.ptr[i];

		if (kv->key.via.str.size == klen &&
		    memcmp(kv->key.via.str.ptr, key, klen) == 0)
			return &kv->val;
	}
	return NULL;
}

int
msg_get_str(const struct msg *m, const char *key, char *out, size_t outlen)
{
	const msgpack_object	*o = msg_get(m, key);

	if (o == NULL || o->type != MSGPACK_OBJECT_STR ||
	    o->via.str.size >= outlen ||
	    memchr(o->via.str.ptr, '\0', o->via.str.size) != NULL)
		return -1;
	memcpy(out, o->via.str.ptr, o->via.str.size);
	out[o->via.str.size] = '\0';
	return 0;
}

int
msg_get_uint(const struct msg *m, const char *key, uint64_t *out)
{
	const msgpack_object	*o = msg_get(m, key);

	if (o == NULL || o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		return -1;
	*out = o->via.u64;
	return 0;
}

void
msg_begin(struct msgbuf *mb, enum msg_type type, uint32_t gen,
    unsigned nfields)
{
	msgpack_sbuffer_init(&mb->sb);
	msgpack_packer_init(&mb->pk, &mb->sb, msgpack_sbuffer_write);
	msgpack_pack_array(&mb->pk, 3);
	msgpack_pack_unsigned_int(&mb->pk, type);
	msgpack_pack_uint32(&mb->pk, gen);
	msgpack_pack_map(&mb->pk, nfields);
	mb->left = nfields;
}

void
msg_begin_body(struct msgbuf *mb, unsigned nfields)
{
	msgpack_sbuffer_init(&mb->sb);
	msgpack_packer_init(&mb->pk, &mb->sb, msgpack_sbuffer_write);
	msgpack_pack_map(&mb->pk, nfields);
	mb->left = nfields;
}

void
msg_begin_raw(struct msgbuf *mb, enum msg_type type, uint32_t gen,
    const void *body, size_t len)
{
	msgpack_sbuffer_init(&mb->sb);
	msgpack_packer_init(&mb->pk, &mb->sb, msgpack_sbuffer_write);
	msgpack_pack_array(&mb->pk, 3);
	msgpack_pack_unsigned_int(&mb->pk, type);
	msgpack_pack_uint32(&mb->pk, gen);
	msgpack_sbuffer_write(&mb->sb, body, len);
	mb->left = 0;
}

static void
put_key(struct msgbuf *mb, const char *key)
{
	size_t	n = strlen(key);

	if (mb->left == 0)
		fatalx(CW_EXIT_INTERNAL, "msg: more fields than declared (%s)",
		    key);
	mb->left--;
	msgpack_pack_str(&mb->pk, n);
	msgpack_pack_str_body(&mb->pk, key, n);
}

void
msg_put_str(struct msgbuf *mb, const char *key, const char *val)
{
	size_t	n = strlen(val);

	put_key(mb, key);
	msgpack_pack_str(&mb->pk, n);
	msgpack_pack_str_body(&mb->pk, val, n);
}

void
msg_put_uint(struct msgbuf *mb, const char *key, uint64_t val)
{
	put_key(mb, key);
	msgpack_pack_uint64(&mb->pk, val);
}

void
msg_put_bin(struct msgbuf *mb, const char *key, const void *p, size_t n)
{
	put_key(mb, key);
	msgpack_pack_bin(&mb->pk, n);
	msgpack_pack_bin_body(&mb->pk, p, n);
}

void
msg_done(struct msgbuf *mb)
{
	msgpack_sbuffer_destroy(&mb->sb);
}

struct msgq_item {
	struct msgq_item	*next;
	size_t			 len;
	char			*data;
};

void
msgq_init(struct msgq *q)
{
	q->head = NULL;
	q->tail = &q->head;
	q->n = q->bytes = 0;
}

int
msgq_push(struct msgq *q, struct msgbuf *mb)
{
	struct msgq_item	*it;

	if (mb->left != 0)
		fatalx(CW_EXIT_INTERNAL, "msg: %u fields missing", mb->left);
	if (mb->sb.size > MSG_MAX) {
		msg_done(mb);
		errno = EMSGSIZE;
		return -1;
	}
	it = xmalloc(sizeof(*it));
	it->next = NULL;
	it->len = mb->sb.size;
	it->data = msgpack_sbuffer_release(&mb->sb);
	msg_done(mb);
	*q->tail = it;
	q->tail = &it->next;
	q->n++;
	q->bytes += it->len;
	return 0;
}

static int	flush(struct msgq *, int, size_t);

int
msgq_flush(struct msgq *q, int fd)
{
	return flush(q, fd, 0);
}

int
msgq_flush_below(struct msgq *q, int fd, size_t max)
{
	return flush(q, fd, max);
}

size_t
msgq_bytes(const struct msgq *q)
{
	return q->bytes;
}

/* max: 0 for no limit on what the peer has yet to read. */
static int
flush(struct msgq *q, int fd, size_t max)
{
	struct msgq_item	*it;
	int			 unread;

	while ((it = q->head) != NULL) {
		if (max > 0 && ioctl(fd, SIOCOUTQ, &unread) == 0 &&
		    (size_t)unread >= max)
			return 2;
		if (send(fd, it->data, it->len, MSG_NOSIGNAL | MSG_DONTWAIT)
		    == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == ENOBUFS)
				return 1;
			if (errno == EINTR)
				continue;
			return -1;
		}
		q->head = it->next;
		if (q->head == NULL)
			q->tail = &q->head;
		q->n--;
		q->bytes -= it->len;
		free(it->data);
		free(it);
	}
	return 0;
}

void
msgq_clear(struct msgq *q)
{
	struct msgq_item	*it;

	while ((it = q->head) != NULL) {
		q->head = it->next;
		free(it->data);
		free(it);
	}
	msgq_init(q);
}

long
msg_recv(int fd, void *buf)
{
	ssize_t	n;

	do
		n = recv(fd, buf, MSG_MAX, MSG_TRUNC | MSG_DONTWAIT);
	while (n == -1 && errno == EINTR);
	return (long)n;
}

int
msg_sockbuf(int fd)
{
	int		want = 2 * MSG_MAX + 65536, got;
	socklen_t	len = sizeof(got);

	/* Root may exceed net.core.wmem_max; others get what it allows. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &want,
	    sizeof(want)) == -1)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &want,
		    sizeof(want));
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &got, &len) == -1)
		return -1;
	/* A datagram may use the send buffer less a small header. */
	return got >= MSG_MAX + 4096 ? 0 : -1;
}
