/*
 * The contents of supervisor <-> worker messages: one struct per message
 * type, and a pack and an unpack function for each.  Unpacking checks
 * every field's presence, type and size; msg.c has checked the framing.
 */
#ifndef CW_PROTO_H
#define CW_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "msg.h"
#include "outcome.h"

#define PROTO_BATCH_MAX		256	/* items in one header request */
/*
 * A worker probes its endpoint's best head every block time, never more
 * often than PROTO_POLL_MIN_MS nor less often than PROTO_POLL_MAX_MS, one
 * probe at a time ("poll" outcomes): on a quiet chain (Quantus's 12 s
 * blocks) the probes are what shows within seconds that an endpoint
 * stopped answering, while the others' show that the chain answers.  A
 * probe that fails is followed by PROTO_REPOLL_N more, PROTO_REPOLL_MS
 * apart: strikes of their own for the breaker's peer rule (sup_breaker.h:
 * 3 of 500 ms over 2 s), so that a refusing endpoint is judged in some
 * 2 s rather than after three probe intervals.  So does a subscription
 * that went down.
 */
#define PROTO_POLL_MIN_MS	500
#define PROTO_POLL_MAX_MS	2000
#define PROTO_REPOLL_MS		700
#define PROTO_REPOLL_N		3
#define PROTO_WHY_MAX		120	/* a reason for logs */
#define PROTO_READS_MAX		128	/* storage reads in one request */
#define PROTO_KEY_MAX		128	/* a storage key, bytes */
#define PROTO_VALUE_MAX		256	/* a storage value, bytes */
#define PROTO_TEXT_MAX		64	/* chain names, spec names */
#define PROTO_RAW_MAX		320	/* a quantus header's SCALE bytes */

/* The probe interval of a chain of block_time ms, in ms. */
static inline uint64_t
proto_poll_ms(uint64_t block_time)
{
	if (block_time < PROTO_POLL_MIN_MS)
		return PROTO_POLL_MIN_MS;
	return block_time > PROTO_POLL_MAX_MS ? PROTO_POLL_MAX_MS : block_time;
}

/* MSG_CONFIG: the first message to a worker, its endpoint and settings. */
struct proto_config {
	char		chain[CONF_NAME_MAX + 1];
	char		name[CONF_NAME_MAX + 1];
	char		rpc_url[CONF_URL_MAX + 1];
	char		ws_url[CONF_URL_MAX + 1];
	char		user[CONF_NAME_MAX + 1];
	uint64_t	format;			/* enum chain_format */
	uint64_t	block_time;		/* ms */
	uint64_t	stall_factor;
	uint64_t	subscribe;		/* enum subscribe_mode */
	uint64_t	connect_timeout;	/* ms */
	uint64_t	request_timeout;	/* ms */
	uint64_t	max_response;		/* bytes */
	uint64_t	max_inflight;		/* requests out, at most */
	uint64_t	memory_limit;		/* bytes, 0: none */
	uint64_t	heartbeat;		/* ms */
	uint64_t	log_level;		/* enum log_level */
	uint64_t	log_stderr;
	char		secret_params[CONF_URL_MAX + 1];	/* for logs */
};

/* A decoded, locally hashed header, as far as the supervisor needs it. */
struct proto_header {
	uint8_t		hash[32];
	uint8_t		parent[32];
	uint64_t	number;
	int		has_miner;
	uint8_t		miner[32];
	int		runtime_updated;	/* RuntimeEnvironmentUpdated */
	/*
	 * Quantus: its seal as the worker found it (enum qpow_seal), and
	 * with a well-formed seal the largest difficulty its nonce hash
	 * meets (64 bytes little-endian); the supervisor checks that
	 * against the difficulty at its parent.  Substrate: QPOW_SEAL_OK,
	 * has_pow 0.
	 */
	unsigned	seal;
	int		has_pow;
	uint8_t		pow_max[64];
	/*
	 * Quantus: the header as SCALE bytes, for the supervisor's own
	 * check of a sample of the worker's figures (a worker is our code,
	 * but it parses hostile input); none when it does not fit, and
	 * none for substrate.
	 */
	size_t		raw_len;
	uint8_t		raw[PROTO_RAW_MAX];
};

/* MSG_HEAD: a head from the endpoint's subscription. */
#define HEAD_NEW	0
#define HEAD_FINALIZED	1
struct proto_head {
	unsigned		kind;		/* HEAD_* */
	uint64_t		seen_ms;	/* wall clock at arrival */
	struct proto_header	h;
};

/* MSG_SUB: the new-heads subscription went live or down. */
struct proto_sub {
	int		live;
	unsigned	reconnects;
	char		why[PROTO_WHY_MAX];
};

/*
 * MSG_SUBSCRIBE: with `subscribe = primary`, whether this worker holds its
 * chain's one new-heads subscription (on 1) or not (on 0).  A worker of
 * such a chain starts without it; the supervisor decides (sup_subs.c).
 */
struct proto_subscribe {
	int		on;
};

/* MSG_OUTCOME: an outcome of a request the worker made on its own. */
struct proto_outcome {
	char		what[PROTO_TEXT_MAX];	/* "poll", "info", "head", "ws" */
	enum outcome	outcome;
	uint64_t	latency_ms;
	uint64_t	retry_ms;		/* Retry-After, 0: none */
	char		why[PROTO_WHY_MAX];
};

/*
 * MSG_INFO: what the endpoint says about itself, fetched at start and
 * again whenever a probe finds its genesis or the fit of its headers
 * changed.  With outcome OK, fits says whether the headers it serves under
 * a hash (its genesis, and its best from chain_getBlockHash) decode and
 * hash to that hash in the configured format (header_judge); when one
 * does not, fits is 0 and why holds the evidence: the chain's `format` is
 * wrong for this endpoint, which the supervisor quarantines.  Nothing the
 * endpoint serves is used before facts with fits 1 came.
 */
struct proto_info {
	enum outcome	outcome;		/* of the slowest/worst call */
	uint64_t	latency_ms;
	char		why[PROTO_WHY_MAX];	/* of the outcome, or the misfit */
	int		fits;			/* outcome OK: headers fit */
	uint8_t		genesis[32];
	char		chain[PROTO_TEXT_MAX];	/* system_chain */
	char		spec_name[PROTO_TEXT_MAX];
	uint64_t	spec_version;
	uint64_t	ss58_format;
	uint64_t	best;			/* best block number */
};

/* MSG_REQ_HEADERS: headers by numbers or by hashes, one batch. */
#define BY_NUMBER	0
#define BY_HASH		1
struct proto_req_headers {
	uint64_t	id;
	uint32_t	deadline_ms;
	unsigned	by;			/* BY_* */
	size_t		n;
	uint64_t	numbers[PROTO_BATCH_MAX];
	uint8_t		hashes[PROTO_BATCH_MAX][32];
};

/* One item of a result: its own outcome, and the header when OK. */
struct proto_item {
	enum outcome		outcome;
	uint64_t		latency_ms;
	char			why[PROTO_WHY_MAX];
	struct proto_header	h;		/* when outcome is OK */
};

/* MSG_RES_HEADERS: one item per requested number or hash, in order. */
struct proto_res_headers {
	uint64_t		id;
	uint64_t		retry_ms;	/* Retry-After, 0: none */
	size_t			n;
	struct proto_item	items[PROTO_BATCH_MAX];
};

/* MSG_REQ_STORAGE: storage keys at block hashes, one batch. */
struct proto_read {
	uint8_t		at[32];
	size_t		key_len;
	uint8_t		key[PROTO_KEY_MAX];
};

struct proto_req_storage {
	uint64_t		id;
	uint32_t		deadline_ms;
	size_t			n;
	struct proto_read	items[PROTO_READS_MAX];
};

/* MSG_RES_STORAGE: each value in order (ABSENT: null or pruned). */
struct proto_value {
	enum outcome	outcome;
	uint64_t	latency_ms;
	char		why[PROTO_WHY_MAX];
	size_t		value_len;
	uint8_t		value[PROTO_VALUE_MAX];
};

struct proto_res_storage {
	uint64_t		id;
	uint64_t		retry_ms;	/* Retry-After, 0: none */
	size_t			n;
	struct proto_value	items[PROTO_READS_MAX];
};

/* MSG_REQ_RUNTIME: the runtime version at a block hash (or the best). */
struct proto_req_runtime {
	uint64_t	id;
	uint32_t	deadline_ms;
	int		has_at;
	uint8_t		at[32];
};

struct proto_res_runtime {
	uint64_t	id;
	enum outcome	outcome;
	uint64_t	latency_ms;
	char		why[PROTO_WHY_MAX];
	char		spec_name[PROTO_TEXT_MAX];
	uint64_t	spec_version;
	uint64_t	impl_version;
};

/* MSG_REQ_GENESIS / MSG_RES_GENESIS: chain_getBlockHash(0). */
struct proto_req_genesis {
	uint64_t	id;
	uint32_t	deadline_ms;
};

struct proto_res_genesis {
	uint64_t	id;
	enum outcome	outcome;
	uint64_t	latency_ms;
	char		why[PROTO_WHY_MAX];
	uint8_t		hash[32];
};

/*
 * pack: begin a message of the type with gen and fill it; the caller
 * sends it.  unpack: 0, or -1 with the reason in err.
 */
void	proto_pack_config(struct msgbuf *, uint32_t,
	    const struct proto_config *);
int	proto_unpack_config(const struct msg *, struct proto_config *, char *,
	    size_t);
/* The body alone: equal bodies mean an unchanged endpoint on reload. */
void	proto_pack_config_body(struct msgbuf *, const struct proto_config *);
void	proto_pack_head(struct msgbuf *, uint32_t, const struct proto_head *);
int	proto_unpack_head(const struct msg *, struct proto_head *, char *,
	    size_t);
void	proto_pack_sub(struct msgbuf *, uint32_t, const struct proto_sub *);
int	proto_unpack_sub(const struct msg *, struct proto_sub *, char *,
	    size_t);
void	proto_pack_subscribe(struct msgbuf *, uint32_t,
	    const struct proto_subscribe *);
int	proto_unpack_subscribe(const struct msg *, struct proto_subscribe *,
	    char *, size_t);
void	proto_pack_outcome(struct msgbuf *, uint32_t,
	    const struct proto_outcome *);
int	proto_unpack_outcome(const struct msg *, struct proto_outcome *,
	    char *, size_t);
void	proto_pack_info(struct msgbuf *, uint32_t, const struct proto_info *);
int	proto_unpack_info(const struct msg *, struct proto_info *, char *,
	    size_t);
void	proto_pack_req_headers(struct msgbuf *, uint32_t,
	    const struct proto_req_headers *);
int	proto_unpack_req_headers(const struct msg *, struct proto_req_headers *,
	    char *, size_t);
void	proto_pack_res_headers(struct msgbuf *, uint32_t,
	    const struct proto_res_headers *);
int	proto_unpack_res_headers(const struct msg *, struct proto_res_headers *,
	    char *, size_t);
void	proto_pack_req_storage(struct msgbuf *, uint32_t,
	    const struct proto_req_storage *);
int	proto_unpack_req_storage(const struct msg *, struct proto_req_storage *,
	    char *, size_t);
void	proto_pack_res_storage(struct msgbuf *, uint32_t,
	    const struct proto_res_storage *);
int	proto_unpack_res_storage(const struct msg *, struct proto_res_storage *,
	    char *, size_t);
void	proto_pack_req_runtime(struct msgbuf *, uint32_t,
	    const struct proto_req_runtime *);
int	proto_unpack_req_runtime(const struct msg *, struct proto_req_runtime *,
	    char *, size_t);
void	proto_pack_res_runtime(struct msgbuf *, uint32_t,
	    const struct proto_res_runtime *);
int	proto_unpack_res_runtime(const struct msg *, struct proto_res_runtime *,
	    char *, size_t);
void	proto_pack_req_genesis(struct msgbuf *, uint32_t,
	    const struct proto_req_genesis *);
int	proto_unpack_req_genesis(const struct msg *, struct proto_req_genesis *,
	    char *, size_t);
void	proto_pack_res_genesis(struct msgbuf *, uint32_t,
	    const struct proto_res_genesis *);
int	proto_unpack_res_genesis(const struct msg *, struct proto_res_genesis *,
	    char *, size_t);

#endif
