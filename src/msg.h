/*
 * The supervisor <-> worker protocol: one msgpack object per SOCK_SEQPACKET
 * packet, [type, generation, {body}], at most MSG_MAX bytes.  Every message
 * is checked for type, length and shape here before anything uses it.
 */
#ifndef CW_MSG_H
#define CW_MSG_H

#include <stddef.h>
#include <stdint.h>
#include <msgpack.h>

#define MSG_MAX		(1024 * 1024)
#define MSG_FD		3	/* the worker's end of its socketpair */

enum msg_type {
	MSG_NONE = 0,
	MSG_CONFIG,		/* sup -> wrk: the endpoint configuration */
	MSG_HELLO,		/* wrk -> sup: set up, privileges dropped */
	MSG_HEARTBEAT,		/* wrk -> sup: alive, with its RSS */
	MSG_INFO,		/* wrk -> sup: genesis, chain, runtime, whether
				 * headers fit the format: at start, and again
				 * when a probe sees one of them change */
	MSG_HEAD,		/* wrk -> sup: a head from the subscription */
	MSG_SUB,		/* wrk -> sup: the subscription is live or down */
	MSG_OUTCOME,		/* wrk -> sup: outcome of a request of its own */
	MSG_REQ_HEADERS,	/* sup -> wrk: headers by numbers or hashes */
	MSG_RES_HEADERS,
	MSG_REQ_STORAGE,	/* sup -> wrk: a storage value at a hash */
	MSG_RES_STORAGE,
	MSG_REQ_RUNTIME,	/* sup -> wrk: the runtime version at a hash */
	MSG_RES_RUNTIME,
	MSG_REQ_GENESIS,	/* sup -> wrk: the genesis hash */
	MSG_RES_GENESIS,
	MSG_SANDBOX,		/* wrk -> sup: its seccomp filter stopped it at
				 * this system call (src/sandbox.h) */
	MSG_SUBSCRIBE,		/* sup -> wrk: hold the new-heads subscription
				 * or not (subscribe = primary) */
	MSG_TYPE_MAX
};

struct msg {
	enum msg_type		 type;
	uint32_t		 gen;
	const msgpack_object	*body;		/* a map */
	msgpack_unpacked	 up;
};

const char *msg_type_name(enum msg_type);

/* How a message's generation compares with the sender's current one. */
enum msg_gen {
	MSG_GEN_OK,	/* the current generation */
	MSG_GEN_STALE,	/* an older one: drop the message */
	MSG_GEN_BAD,	/* a newer one: the sender is broken */
};
enum msg_gen msg_check_gen(uint32_t got, uint32_t current);

/*
 * Decode one packet.  0 and a message that must be released with
 * msg_free(), or -1 with the reason in err (nothing to free).  Strings
 * and binaries in the message point into buf: keep it until msg_free().
 */
int	msg_parse(const void *buf, size_t len, struct msg *, char *err,
	    size_t errlen);
void	msg_free(struct msg *);

/* Body fields: 0, or -1 when missing or of the wrong type or size. */
const msgpack_object *msg_get(const struct msg *, const char *key);
int	msg_get_str(const struct msg *, const char *key, char *out,
	    size_t outlen);
int	msg_get_uint(const struct msg *, const char *key, uint64_t *);

/* Building a message: begin, exactly nfields puts, then send or take. */
struct msgbuf {
	msgpack_sbuffer	sb;
	msgpack_packer	pk;
	unsigned	left;		/* fields still to put */
};

void	msg_begin(struct msgbuf *, enum msg_type, uint32_t gen,
	    unsigned nfields);
void	msg_put_str(struct msgbuf *, const char *key, const char *val);
void	msg_put_uint(struct msgbuf *, const char *key, uint64_t val);
void	msg_put_bin(struct msgbuf *, const char *key, const void *, size_t);
void	msg_done(struct msgbuf *);
/* A body alone (a map of nfields), to be sent later with msg_begin_raw. */
void	msg_begin_body(struct msgbuf *, unsigned nfields);
/* A message whose body is already encoded (by msg_begin_body). */
void	msg_begin_raw(struct msgbuf *, enum msg_type, uint32_t gen,
	    const void *body, size_t len);

/*
 * An outbound queue for a non-blocking socket: what the peer cannot take
 * now waits here, in order.  msgq_push takes the message out of mb.
 */
struct msgq_item;
struct msgq {
	struct msgq_item	*head, **tail;
	size_t			 n, bytes;
};

void	msgq_init(struct msgq *);
/* Queue a finished message; -1 (EMSGSIZE) if it is over MSG_MAX. */
int	msgq_push(struct msgq *, struct msgbuf *);
/* Send what the socket takes: 0 when empty, 1 when some is left, -1 error. */
int	msgq_flush(struct msgq *, int fd);
/*
 * The same, but only while the socket holds fewer than max bytes its peer
 * has not read yet (SIOCOUTQ): 2 when that holds the rest back.
 */
int	msgq_flush_below(struct msgq *, int fd, size_t max);
/* Bytes waiting in the queue. */
size_t	msgq_bytes(const struct msgq *);
void	msgq_clear(struct msgq *);

/*
 * Receive one packet into buf (MSG_MAX bytes).  Returns its real length,
 * which is over MSG_MAX for an oversized packet (cut to MSG_MAX in buf);
 * 0 on EOF; -1 with errno (EAGAIN when nothing is there).
 */
long	msg_recv(int fd, void *buf);

/* Make a socket take messages of MSG_MAX; -1 if the kernel refuses. */
int	msg_sockbuf(int fd);

#endif
