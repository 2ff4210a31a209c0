/*
 * The JSON-RPC dispatcher.  Requests are parsed with jansson (they are
 * small and untrusted); answers are written by hand into a buffer, since
 * chain_getHeader batches are what the benchmarks hammer.  Error codes
 * and messages follow Substrate's jsonrpsee server, so that a client
 * tested here classifies real nodes' answers the same way.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "account.h"
#include "hash.h"
#include "hex.h"
#include "util.h"

#include "dev_json.h"
#include "dev_rpc.h"

#define STORAGE_KEY_MAX		1024
#define DAY_MS			86400000ull	/* timestamp_ahead */

/* QPoW.CurrentDifficulty: U512 little-endian. */
static const uint8_t KEY_DIFFICULTY[32] = {
	0xf7, 0x07, 0x98, 0xa3, 0xfb, 0xce, 0xe5, 0xa2, 0xd1, 0x78, 0xb8, 0xc5,
	0x16, 0xe3, 0x6a, 0xe5, 0x59, 0x76, 0x9e, 0x16, 0x10, 0x55, 0x68, 0xce,
	0xe9, 0xf9, 0x16, 0xe8, 0x70, 0xcb, 0x6e, 0x6f,
};

struct call {
	struct dev_rpc_ctx	*ctx;
	const struct method	*m;
	const json_t		*params;	/* array, object or NULL */
	struct buf		*out;
	int			 code;
	char			 msg[160];
	char			 data[200];
};

typedef int (*method_fn)(struct call *);

struct method {
	const char	*name;
	method_fn	 fn;
	const char	*pnames[3];	/* for params given by name */
};

static int
call_error(struct call *c, int code, const char *msg, const char *data)
{
	c->code = code;
	snprintf(c->msg, sizeof(c->msg), "%s", msg);
	snprintf(c->data, sizeof(c->data), "%s", data != NULL ? data : "");
	return -1;
}

static int
invalid_params(struct call *c, const char *why)
{
	return call_error(c, RPC_INVALID_PARAMS, "Invalid params", why);
}

/* Parameter i, by position or by name; NULL when absent or null. */
static const json_t *
param(const struct call *c, unsigned i)
{
	const json_t	*v = NULL;

	if (json_is_array(c->params))
		v = json_array_get(c->params, i);
	else if (json_is_object(c->params) && i < 3 &&
	    c->m->pnames[i] != NULL)
		v = json_object_get(c->params, c->m->pnames[i]);
	return json_is_null(v) ? NULL : v;
}

/* A block hash parameter; -1 (with the error set) if it is not one. */
static int
param_hash(struct call *c, const json_t *v, uint8_t out[32])
{
	if (!json_is_string(v) || hex_decode(json_string_value(v), out, 32))
		return invalid_params(c, "expected a 0x-prefixed hex string "
		    "of 32 bytes");
	return 0;
}

/* A block number: a JSON number or a hex string, at most u32::MAX. */
static int
param_number(struct call *c, const json_t *v, uint64_t *n)
{
	json_int_t	i;

	if (json_is_integer(v)) {
		if ((i = json_integer_value(v)) < 0)
			return invalid_params(c, "block number is negative");
		*n = (uint64_t)i;
	} else if (json_is_string(v)) {
		if (hex_parse_u64(json_string_value(v), n) == -1)
			return invalid_params(c, "expected a number or a "
			    "0x-prefixed hex string");
	} else
		return invalid_params(c, "expected a number or a 0x-prefixed "
		    "hex string");
	if (*n > UINT32_MAX)
		return invalid_params(c, "block number > u32::MAX, the max "
		    "value of BlockNumber");
	return 0;
}

static void
add_hash_of(struct buf *b, const struct dev_chain *ch,
    const struct dev_blkref *ref)
{
	uint8_t	h[32];

	dev_chain_hash(ch, ref, h);
	dev_json_hex(b, h, 32, 1);
}

/* The block a state call is about: `at`, or the best block. */
static int
state_block(struct call *c, const json_t *at, struct dev_blkref *ref,
    uint8_t hash[32])
{
	const struct dev_view	*v = &c->ctx->view;
	char			 hex[2 * 32 + 3], msg[160];

	if (at == NULL) {
		dev_view_block_at(v, v->head, ref);
		dev_chain_hash(v->chain, ref, hash);
		return 0;
	}
	if (param_hash(c, at, hash) == -1)
		return -1;
	if (dev_view_lookup(v, hash, ref) == -1) {
		hex_encode(hash, 32, hex);
		snprintf(msg, sizeof(msg), "Client error: UnknownBlock: Header "
		    "was not found in the database: %s", hex);
		return call_error(c, RPC_STATE_ERROR, msg, NULL);
	}
	return 0;
}

/*
 * 1 if the view still has the block's state: within --state-pruning of
 * the head, and on the best chain or above the finalized block (a node's
 * state database keeps the branches that lost until their height is
 * finalized, then drops them).  Otherwise the answer is written (null or
 * 4003) and 0 or -1 returned.
 */
static int
state_kept(struct call *c, const struct dev_blkref *ref, const uint8_t *hash)
{
	const struct dev_view	*v = &c->ctx->view;
	char			 hex[2 * 32 + 3], msg[160];

	if ((dev_conf.state_pruning == 0 ||
	    v->head - ref->number < dev_conf.state_pruning) &&
	    (dev_view_is_best(v, ref) || ref->number > dev_view_finalized(v)))
		return 1;
	if (dev_conf.pruned_null) {
		buf_adds(c->out, "null");
		return 0;
	}
	hex_encode(hash, 32, hex);
	snprintf(msg, sizeof(msg), "Client error: UnknownBlock: State "
	    "already discarded for %s", hex);
	return call_error(c, RPC_STATE_ERROR, msg, NULL);
}

/* forge_head, forge_chain, bad_number: 1 and the head to serve. */
static int
lie_head(struct call *c, struct dev_blkref *ref)
{
	return c->ctx->fv != NULL &&
	    dev_view_forged_head(&c->ctx->view, c->ctx->fv, ref);
}

/* wrong_header: another block than the one asked for. */
static void
lie_block(struct call *c, struct dev_blkref *ref)
{
	if (c->ctx->fv != NULL)
		dev_view_wrong_block(&c->ctx->view, c->ctx->fv, ref);
}

static int
m_get_block_hash(struct call *c)
{
	const struct dev_view	*v = &c->ctx->view;
	const json_t		*p = param(c, 0), *e;
	struct dev_blkref	 ref;
	uint64_t		*nums, n;
	size_t			 i, cnt;

	if (p == NULL) {
		if (!lie_head(c, &ref))
			dev_view_block_at(v, v->head, &ref);
		add_hash_of(c->out, v->chain, &ref);
		return 0;
	}
	if (!json_is_array(p)) {
		if (param_number(c, p, &n) == -1)
			return -1;
		if (dev_view_block_at(v, n, &ref) == -1)
			buf_adds(c->out, "null");
		else {
			lie_block(c, &ref);
			add_hash_of(c->out, v->chain, &ref);
		}
		return 0;
	}
	/* A list: check every entry before writing anything. */
	cnt = json_array_size(p);
	if (cnt > RPC_BATCH_MAX)
		return invalid_params(c, "too many block numbers");
	nums = xcalloc(cnt, sizeof(*nums));
	json_array_foreach(p, i, e) {
		if (param_number(c, e, &nums[i]) == -1) {
			free(nums);
			return -1;
		}
	}
	buf_addc(c->out, '[');
	for (i = 0; i < cnt; i++) {
		if (i > 0)
			buf_addc(c->out, ',');
		if (dev_view_block_at(v, nums[i], &ref) == -1)
			buf_adds(c->out, "null");
		else {
			lie_block(c, &ref);
			add_hash_of(c->out, v->chain, &ref);
		}
	}
	buf_addc(c->out, ']');
	free(nums);
	return 0;
}

/* The block named by parameter 0 (best if absent); 0 if unknown. */
static int
header_param(struct call *c, struct dev_blkref *ref)
{
	const struct dev_view	*v = &c->ctx->view;
	const json_t		*p = param(c, 0);
	uint8_t			 hash[32];

	if (p == NULL) {
		if (!lie_head(c, ref))
			dev_view_block_at(v, v->head, ref);
		return 1;
	}
	if (param_hash(c, p, hash) == -1)
		return -1;
	if (dev_view_lookup(v, hash, ref) == -1)
		return 0;
	lie_block(c, ref);
	return 1;
}

static int
m_get_header(struct call *c)
{
	struct dev_blkref	ref;
	int			rc;

	if ((rc = header_param(c, &ref)) == -1)
		return -1;
	if (rc == 0)
		buf_adds(c->out, "null");
	else
		dev_chain_header_json(c->ctx->view.chain, &ref, c->out);
	return 0;
}

static int
m_get_block(struct call *c)
{
	struct dev_blkref	ref;
	int			rc;

	if ((rc = header_param(c, &ref)) == -1)
		return -1;
	if (rc == 0) {
		buf_adds(c->out, "null");
		return 0;
	}
	buf_adds(c->out, "{\"block\":{\"header\":");
	dev_chain_header_json(c->ctx->view.chain, &ref, c->out);
	buf_adds(c->out, ",\"extrinsics\":[]},\"justifications\":null}");
	return 0;
}

static int
m_get_finalized_head(struct call *c)
{
	const struct dev_view	*v = &c->ctx->view;
	struct dev_blkref	 ref;

	if (c->ctx->fv != NULL)
		dev_view_finalized_ref(v, c->ctx->fv, &ref);
	else
		dev_view_block_at(v, dev_view_finalized(v), &ref);
	add_hash_of(c->out, v->chain, &ref);
	return 0;
}

static int
subscribe(struct call *c, enum dev_sub_kind kind)
{
	char	id[RPC_SUB_ID_LEN + 1];

	/* What jsonrpsee answers a subscription over HTTP. */
	if (c->ctx->subscribe == NULL)
		return call_error(c, RPC_INTERNAL_ERROR,
		    "Subscriptions are not supported over HTTP", NULL);
	if (c->ctx->subscribe(c->ctx->sub_arg, kind, id) == -1)
		return call_error(c, RPC_INTERNAL_ERROR,
		    "Too many subscriptions on this connection", NULL);
	dev_json_str(c->out, id);
	return 0;
}

static int
unsubscribe(struct call *c, enum dev_sub_kind kind)
{
	const json_t	*p = param(c, 0);

	if (c->ctx->unsubscribe == NULL)
		return call_error(c, RPC_INTERNAL_ERROR,
		    "Subscriptions are not supported over HTTP", NULL);
	if (!json_is_string(p))
		return invalid_params(c, "expected a subscription id");
	buf_adds(c->out, c->ctx->unsubscribe(c->ctx->sub_arg, kind,
	    json_string_value(p)) == 0 ? "true" : "false");
	return 0;
}

static int
m_sub_new_heads(struct call *c)
{
	return subscribe(c, SUB_NEW_HEADS);
}

static int
m_unsub_new_heads(struct call *c)
{
	return unsubscribe(c, SUB_NEW_HEADS);
}

static int
m_sub_finalized(struct call *c)
{
	return subscribe(c, SUB_FINALIZED);
}

static int
m_unsub_finalized(struct call *c)
{
	return unsubscribe(c, SUB_FINALIZED);
}

enum storage_item {
	ITEM_NONE,
	ITEM_DIFFICULTY,
	ITEM_NOW,
	ITEM_NUMBER,
};

static enum storage_item
storage_item(const uint8_t *key, size_t klen)
{
	uint8_t	k_now[32], k_number[32];

	if (klen != 32)
		return ITEM_NONE;
	storage_key("Timestamp", "Now", k_now);
	storage_key("System", "Number", k_number);
	if (memcmp(key, KEY_DIFFICULTY, 32) == 0)
		return ITEM_DIFFICULTY;
	if (memcmp(key, k_now, 32) == 0)
		return ITEM_NOW;
	if (memcmp(key, k_number, 32) == 0)
		return ITEM_NUMBER;
	return ITEM_NONE;
}

/*
 * wrong_count:1 and :2, on the first storage call of a request: the
 * value at the parent of the block asked for, or the value of another
 * key (Timestamp.Now for any but itself, QPoW.CurrentDifficulty for it).
 */
static void
lie_storage(struct call *c, struct dev_blkref *ref, enum storage_item *item)
{
	const struct dev_view	*v = &c->ctx->view;
	struct dev_blkref	 other;
	struct header		 h;

	if (c->ctx->count_lie == 0 || c->ctx->storage_seen++ > 0)
		return;
	if (c->ctx->count_lie - 1 == 2) {
		*item = *item == ITEM_NOW ? ITEM_DIFFICULTY : ITEM_NOW;
		return;
	}
	if (c->ctx->count_lie - 1 != 1)
		return;
	if (ref->number == 0) {
		if (dev_view_block_at(v, 1, &other) == 0)
			*ref = other;
		return;
	}
	dev_chain_header(v->chain, ref, &h);
	if (dev_view_lookup(v, h.parent_hash, &other) == 0)
		*ref = other;
}

/* timestamp_early: an even block's time is its parent's, too early. */
static uint64_t
parent_timestamp(const struct dev_view *v, const struct dev_blkref *ref)
{
	struct dev_blkref	parent;
	struct header		h;

	dev_chain_header(v->chain, ref, &h);
	if (dev_view_lookup(v, h.parent_hash, &parent) == -1)
		return dev_chain_timestamp(v->chain, ref);
	return dev_chain_timestamp(v->chain, &parent);
}

static int
m_get_storage(struct call *c)
{
	const struct dev_view	*v = &c->ctx->view;
	const json_t		*k = param(c, 0);
	uint8_t			 key[STORAGE_KEY_MAX], hash[32], val[64];
	struct dev_blkref	 ref;
	enum storage_item	 item;
	size_t			 klen;
	uint64_t		 x;
	unsigned __int128	 d;
	int			 rc;

	if (!json_is_string(k) || hex_decode_var(json_string_value(k), key,
	    sizeof(key), &klen) == -1)
		return invalid_params(c, "expected a storage key in hex");
	if (state_block(c, param(c, 1), &ref, hash) == -1)
		return -1;
	if ((rc = state_kept(c, &ref, hash)) != 1)
		return rc;
	item = storage_item(key, klen);
	lie_storage(c, &ref, &item);
	memset(val, 0, sizeof(val));
	if (item == ITEM_DIFFICULTY) {
		d = dev_chain_difficulty(v->chain, &ref);
		if (dev_fault_hit(c->ctx->fv, FAULT_DIFFICULTY_X100))
			d *= 100;
		if (dev_fault_hit(c->ctx->fv, FAULT_DIFFICULTY_DIV100))
			d /= 100;
		for (int i = 0; i < 16; i++)
			val[i] = (uint8_t)(d >> (8 * i));
		dev_json_hex(c->out, val, 64, 1);
	} else if (item == ITEM_NOW) {
		x = dev_chain_timestamp(v->chain, &ref);
		if (dev_fault_hit(c->ctx->fv, FAULT_TIMESTAMP_AHEAD))
			x += DAY_MS;
		if (ref.number % 2 == 0 && ref.number > 0 &&
		    dev_fault_hit(c->ctx->fv, FAULT_TIMESTAMP_EARLY))
			x = parent_timestamp(v, &ref);
		for (int i = 0; i < 8; i++)
			val[i] = (uint8_t)(x >> (8 * i));
		dev_json_hex(c->out, val, 8, 1);
	} else if (item == ITEM_NUMBER) {
		x = ref.number;
		for (int i = 0; i < 4; i++)
			val[i] = (uint8_t)(x >> (8 * i));
		dev_json_hex(c->out, val, 4, 1);
	} else
		buf_adds(c->out, "null");
	return 0;
}

static int
m_runtime_version(struct call *c)
{
	const struct dev_view	*v = &c->ctx->view;
	struct dev_blkref	 ref;
	uint8_t			 hash[32];
	const char		*spec;
	int			 rc;

	if (state_block(c, param(c, 0), &ref, hash) == -1)
		return -1;
	if ((rc = state_kept(c, &ref, hash)) != 1)
		return rc;
	spec = dev_chain_format(v->chain) == FORMAT_QUANTUS ?
	    "quantus-runtime" : "devnode-runtime";
	buf_addf(c->out, "{\"specName\":\"%s\",\"implName\":\"%s\","
	    "\"authoringVersion\":1,\"specVersion\":%u,\"implVersion\":1,"
	    "\"apis\":[[\"0xdf6acb689907609b\",5],[\"0x37e397fc7c91f5e4\",2],"
	    "[\"0x40fe3ad401f8959a\",6],[\"0xd2bc9897eed08f15\",3]],"
	    "\"transactionVersion\":1,\"systemVersion\":1}", spec, spec,
	    (unsigned)dev_chain_spec_version(v->chain, ref.number));
	return 0;
}

static int
m_system_health(struct call *c)
{
	buf_addf(c->out, "{\"peers\":%d,\"isSyncing\":%s,"
	    "\"shouldHavePeers\":true}", 3,
	    c->ctx->view.syncing ? "true" : "false");
	return 0;
}

static int
m_system_chain(struct call *c)
{
	dev_json_str(c->out, dev_conf.chain_name);
	return 0;
}

static int
m_system_name(struct call *c)
{
	buf_adds(c->out, "\"chainwatch-devnode\"");
	return 0;
}

static int
m_system_version(struct call *c)
{
	dev_json_str(c->out, PACKAGE_VERSION);
	return 0;
}

static int
m_system_properties(struct call *c)
{
	if (dev_chain_format(c->ctx->view.chain) == FORMAT_QUANTUS)
		buf_addf(c->out, "{\"ss58Format\":%d,\"tokenDecimals\":12,"
		    "\"tokenSymbol\":\"DEV\"}", SS58_PREFIX_QUANTUS);
	else
		buf_adds(c->out, "{\"ss58Format\":42,\"tokenDecimals\":12,"
		    "\"tokenSymbol\":\"UNIT\"}");
	return 0;
}

static int m_rpc_methods(struct call *);

static int
m_dev_fault(struct call *c)
{
	const json_t	*p0 = param(c, 0), *p1 = param(c, 1);
	json_t		*req;
	char		 err[160];
	int		 rc;

	if (json_is_object(c->params))
		req = json_incref((json_t *)c->params);
	else if (json_is_object(p0))
		req = json_incref((json_t *)p0);
	else if (json_is_string(p0) &&
	    strcmp(json_string_value(p0), "clear") == 0)
		req = json_pack("{s:b}", "clear", 1);
	else if (json_is_string(p0) && (p1 == NULL || json_is_boolean(p1)))
		req = json_pack("{s:O}", p1 == NULL || json_is_true(p1) ?
		    "enable" : "disable", p0);
	else
		return invalid_params(c, "expected {\"enable\": SPEC, ...}, "
		    "SPEC [, true|false] or \"clear\"");
	if (req == NULL)
		return call_error(c, RPC_INTERNAL_ERROR, "Internal error",
		    NULL);
	rc = dev_fault_control(req, err, sizeof(err));
	json_decref(req);
	if (rc == -1)
		return invalid_params(c, err);
	dev_status_json(c->out);
	return 0;
}

static int
m_dev_status(struct call *c)
{
	dev_status_json(c->out);
	return 0;
}

static int
m_dev_miners(struct call *c)
{
	const struct dev_chain_params	*p;
	struct dev_chain		*ch = c->ctx->view.chain;
	uint8_t				 pre[32], acct[32];
	char				 ss58[SS58_MAX];
	unsigned			 i;
	uint16_t			 prefix;

	p = dev_chain_params(ch);
	prefix = dev_chain_format(ch) == FORMAT_QUANTUS ?
	    SS58_PREFIX_QUANTUS : 42;
	buf_addc(c->out, '[');
	for (i = 0; i < p->n_miners; i++) {
		dev_chain_preimage(ch, i, pre);
		if (dev_chain_format(ch) == FORMAT_QUANTUS)
			account_from_preimage(pre, acct);
		else
			memcpy(acct, pre, 32);
		if (ss58_encode(prefix, acct, ss58, sizeof(ss58)) == -1)
			ss58[0] = '\0';
		buf_addf(c->out, "%s{\"index\":%u,\"weight\":%u,"
		    "\"preimage\":", i > 0 ? "," : "", i,
		    (unsigned)p->weights[i]);
		dev_json_hex(c->out, pre, 32, 1);
		buf_adds(c->out, ",\"account\":");
		dev_json_hex(c->out, acct, 32, 1);
		buf_adds(c->out, ",\"ss58\":");
		dev_json_str(c->out, ss58);
		buf_addc(c->out, '}');
	}
	buf_addc(c->out, ']');
	return 0;
}

/* Sorted by name: rpc_methods lists them in this order. */
static const struct method methods[] = {
	{ "chain_getBlock", m_get_block, { "hash" } },
	{ "chain_getBlockHash", m_get_block_hash, { "blockNumber" } },
	{ "chain_getFinalisedHead", m_get_finalized_head, { NULL } },
	{ "chain_getFinalizedHead", m_get_finalized_head, { NULL } },
	{ "chain_getHead", m_get_block_hash, { "blockNumber" } },
	{ "chain_getHeader", m_get_header, { "hash" } },
	{ "chain_getRuntimeVersion", m_runtime_version, { "at" } },
	{ "chain_subscribeFinalisedHeads", m_sub_finalized, { NULL } },
	{ "chain_subscribeFinalizedHeads", m_sub_finalized, { NULL } },
	{ "chain_subscribeNewHead", m_sub_new_heads, { NULL } },
	{ "chain_subscribeNewHeads", m_sub_new_heads, { NULL } },
	{ "chain_unsubscribeFinalisedHeads", m_unsub_finalized,
	    { "subscription" } },
	{ "chain_unsubscribeFinalizedHeads", m_unsub_finalized,
	    { "subscription" } },
	{ "chain_unsubscribeNewHead", m_unsub_new_heads, { "subscription" } },
	{ "chain_unsubscribeNewHeads", m_unsub_new_heads, { "subscription" } },
	{ "dev_fault", m_dev_fault, { NULL } },
	{ "dev_miners", m_dev_miners, { NULL } },
	{ "dev_status", m_dev_status, { NULL } },
	{ "rpc_methods", m_rpc_methods, { NULL } },
	{ "state_getRuntimeVersion", m_runtime_version, { "at" } },
	{ "state_getStorage", m_get_storage, { "key", "hash" } },
	{ "state_getStorageAt", m_get_storage, { "key", "hash" } },
	{ "subscribe_newHead", m_sub_new_heads, { NULL } },
	{ "system_chain", m_system_chain, { NULL } },
	{ "system_health", m_system_health, { NULL } },
	{ "system_name", m_system_name, { NULL } },
	{ "system_properties", m_system_properties, { NULL } },
	{ "system_version", m_system_version, { NULL } },
	{ "unsubscribe_newHead", m_unsub_new_heads, { "subscription" } },
};

static int
m_rpc_methods(struct call *c)
{
	size_t	i;

	buf_adds(c->out, "{\"methods\":[");
	for (i = 0; i < nitems(methods); i++) {
		if (i > 0)
			buf_addc(c->out, ',');
		dev_json_str(c->out, methods[i].name);
	}
	buf_adds(c->out, "]}");
	return 0;
}

static const struct method *
method_find(const char *name)
{
	size_t	lo = 0, hi = nitems(methods), mid;
	int	cmp;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		cmp = strcmp(name, methods[mid].name);
		if (cmp == 0)
			return &methods[mid];
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static void
add_id(struct buf *b, const json_t *id)
{
	char	*s;

	if (id == NULL || json_is_null(id))
		buf_adds(b, "null");
	else if (json_is_integer(id))
		buf_addf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(id));
	else if (json_is_string(id) &&
	    strlen(json_string_value(id)) == json_string_length(id))
		dev_json_str(b, json_string_value(id));
	else if ((s = json_dumps(id, JSON_ENCODE_ANY | JSON_COMPACT)) != NULL) {
		buf_adds(b, s);
		free(s);
	} else
		buf_adds(b, "null");
}

static void
add_error(struct buf *b, int code, const char *msg, const char *data)
{
	buf_addf(b, "\"error\":{\"code\":%d,\"message\":", code);
	dev_json_str(b, msg);
	if (data != NULL && data[0] != '\0') {
		buf_adds(b, ",\"data\":");
		dev_json_str(b, data);
	}
	buf_addc(b, '}');
}

void
dev_rpc_error(struct buf *b, int code, const char *message)
{
	buf_adds(b, "{\"jsonrpc\":\"2.0\",");
	add_error(b, code, message, NULL);
	buf_adds(b, ",\"id\":null}");
}

static int
valid_id(const json_t *id)
{
	return id == NULL || json_is_null(id) || json_is_string(id) ||
	    json_is_number(id);
}

/* One call; returns 1 if it wrote an answer (not for notifications). */
static int
rpc_one(struct dev_rpc_ctx *ctx, const json_t *req, struct buf *out)
{
	struct call	 c;
	const json_t	*id, *ver, *meth, *params;
	size_t		 start = out->len, mark;
	int		 notification, rc;

	memset(&c, 0, sizeof(c));
	c.ctx = ctx;
	c.out = out;
	if (!json_is_object(req)) {
		dev_rpc_error(out, RPC_INVALID_REQUEST, "Invalid request");
		return 1;
	}
	id = json_object_get(req, "id");
	notification = id == NULL;
	ver = json_object_get(req, "jsonrpc");
	meth = json_object_get(req, "method");
	params = json_object_get(req, "params");
	if (!valid_id(id)) {
		dev_rpc_error(out, RPC_INVALID_REQUEST, "Invalid request");
		return 1;
	}
	buf_adds(out, "{\"jsonrpc\":\"2.0\",\"id\":");
	add_id(out, id);
	buf_addc(out, ',');
	mark = out->len;
	if (!json_is_string(ver) || strcmp(json_string_value(ver), "2.0") != 0 ||
	    !json_is_string(meth))
		rc = call_error(&c, RPC_INVALID_REQUEST, "Invalid request", NULL);
	else if ((c.m = method_find(json_string_value(meth))) == NULL)
		rc = call_error(&c, RPC_METHOD_NOT_FOUND, "Method not found",
		    NULL);
	else if (params != NULL && !json_is_null(params) &&
	    !json_is_array(params) && !json_is_object(params))
		rc = invalid_params(&c, "params must be a list or an object");
	else if (ctx->rate_limited)
		rc = call_error(&c, RPC_RATE_LIMITED, "Too many requests",
		    NULL);
	else {
		c.params = json_is_null(params) ? NULL : params;
		buf_adds(out, "\"result\":");
		rc = c.m->fn(&c);
	}
	if (rc == -1) {
		buf_truncate(out, mark);
		add_error(out, c.code, c.msg, c.data);
	}
	buf_addc(out, '}');
	if (notification) {
		/* Nothing goes back for a notification, not even an error. */
		buf_truncate(out, start);
		return 0;
	}
	return 1;
}

static int
is_storage_call(const json_t *req)
{
	const json_t	*m = json_object_get(req, "method");

	return json_is_string(m) &&
	    (strcmp(json_string_value(m), "state_getStorage") == 0 ||
	    strcmp(json_string_value(m), "state_getStorageAt") == 0);
}

/*
 * wrong_count: decided once per request that asks for storage, so that
 * a percentage counts storage answers.  Returns the index of the last
 * storage call of the batch (n if none).
 */
static size_t
count_lie(struct dev_rpc_ctx *ctx, const json_t *req)
{
	const json_t	*e;
	size_t		 i, last = json_array_size(req);

	json_array_foreach(req, i, e)
		if (is_storage_call(e))
			last = i;
	if (last < json_array_size(req) && ctx->fv != NULL &&
	    dev_fault_hit(ctx->fv, FAULT_WRONG_COUNT))
		ctx->count_lie = (unsigned)ctx->fv->arg[FAULT_WRONG_COUNT] + 1;
	return last;
}

/* wrong_count:0 of one storage call: two answers to it, in a list. */
static void
rpc_single(struct dev_rpc_ctx *ctx, const json_t *req, struct buf *out)
{
	size_t	start = out->len, len;
	char	*one;

	if (is_storage_call(req) && ctx->fv != NULL &&
	    dev_fault_hit(ctx->fv, FAULT_WRONG_COUNT))
		ctx->count_lie = (unsigned)ctx->fv->arg[FAULT_WRONG_COUNT] + 1;
	if (ctx->count_lie != 1) {
		rpc_one(ctx, req, out);
		return;
	}
	buf_addc(out, '[');
	if (!rpc_one(ctx, req, out)) {
		buf_truncate(out, start);
		return;
	}
	len = out->len - start - 1;
	one = xmalloc(len);
	memcpy(one, out->p + start + 1, len);
	buf_addc(out, ',');
	buf_add(out, one, len);
	buf_addc(out, ']');
	free(one);
}

void
dev_rpc_handle(struct dev_rpc_ctx *ctx, const char *body, size_t len,
    struct buf *out)
{
	json_t		*req, *e;
	json_error_t	 jerr;
	size_t		 i, n, start, skip;
	int		 any = 0;

	if ((req = json_loadb(body, len, 0, &jerr)) == NULL) {
		dev_rpc_error(out, RPC_PARSE_ERROR, "Parse error");
		return;
	}
	if (!json_is_array(req)) {
		rpc_single(ctx, req, out);
		json_decref(req);
		return;
	}
	n = json_array_size(req);
	if (n == 0 || n > RPC_BATCH_MAX) {
		dev_rpc_error(out, RPC_INVALID_REQUEST, "Invalid request");
		json_decref(req);
		return;
	}
	/* A node started with --rpc-max-batch-request-len N. */
	if (dev_fault_on(ctx->fv, FAULT_BATCH_LIMIT) &&
	    n > ctx->fv->arg[FAULT_BATCH_LIMIT]) {
		dev_rpc_error(out, RPC_BATCH_TOO_LARGE,
		    "The batch request was too large");
		json_decref(req);
		return;
	}
	skip = count_lie(ctx, req);
	if (ctx->count_lie != 1)
		skip = n;	/* wrong_count:0 leaves the last storage out */
	start = out->len;
	buf_addc(out, '[');
	json_array_foreach(req, i, e) {
		if (i == skip)
			continue;
		if (any)
			buf_addc(out, ',');
		if (rpc_one(ctx, e, out))
			any = 1;
		else if (any)
			buf_truncate(out, out->len - 1);	/* the comma */
	}
	buf_addc(out, ']');
	/* Only notifications: nothing; a lie that left all out: "[]". */
	if (!any && skip == n)
		buf_truncate(out, start);
	json_decref(req);
}

int
dev_rpc_is_control(const char *body, size_t len)
{
	json_t		*req;
	const json_t	*m;
	int		 yes;

	if (len > 65536 || memmem(body, len, "dev_fault", 9) == NULL)
		return 0;
	if ((req = json_loadb(body, len, 0, NULL)) == NULL)
		return 0;
	m = json_object_get(req, "method");
	yes = json_is_string(m) && strcmp(json_string_value(m), "dev_fault") == 0;
	json_decref(req);
	return yes;
}

void
dev_rpc_notification(struct buf *b, enum dev_sub_kind kind,
    const char *id, const char *header, size_t header_len)
{
	buf_reserve(b, header_len + 128);
	buf_adds(b, kind == SUB_NEW_HEADS ?
	    "{\"jsonrpc\":\"2.0\",\"method\":\"chain_newHead\","
	    "\"params\":{\"subscription\":\"" :
	    "{\"jsonrpc\":\"2.0\",\"method\":\"chain_finalizedHead\","
	    "\"params\":{\"subscription\":\"");
	buf_adds(b, id);
	buf_adds(b, "\",\"result\":");
	buf_add(b, header, header_len);
	buf_adds(b, "}}");
}
