/*
 * chainwatch-devnode: serves a deterministic simulated Substrate PoW chain
 * over HTTP JSON-RPC and WebSocket on one port, with faults on demand, for
 * chainwatch's demo, integration tests and benchmarks.
 *
 * Threads: the main thread runs a libev loop (accept, block ticks,
 * WebSocket connections, timers, signals); libmicrohttpd's pool answers
 * HTTP; one thread per chain generates its backlog at start.  Everything
 * the threads share is either append-only chain data published with
 * atomics, or the fault table behind its mutex.
 */
#include "config.h"

#include <sys/resource.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "hash.h"
#include "header.h"
#include "hex.h"
#include "log.h"
#include "util.h"

#include "dev.h"
#include "dev_http.h"
#include "dev_json.h"
#include "dev_rpc.h"
#include "dev_ws.h"

/* Notifications for one jump of the head: the deepest reorg whole. */
#define ANNOUNCE_MAX	(DEV_REORG_DEPTH_MAX + 8)
#define FAULTS_MAX	32
#define CACHE_DEFAULT_MIN 100000	/* backlog cached without --cache-dir */

struct dev_conf		 dev_conf;

static struct ev_loop	*loop;
static ev_async		 wake_w;
static ev_timer		 tick_w;
static ev_signal	 sigint_w, sigterm_w;

static struct dev_chain	*main_chain;
static _Atomic(struct dev_chain *) alt_chain;
static pthread_mutex_t	 alt_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t	 main_thread, alt_thread;
static int		 alt_thread_started;
static atomic_int	 cancel_sync;
static int		 ready_done;

static struct dev_fault_spec start_faults[FAULTS_MAX];
static unsigned		 n_start_faults;

/* What the WebSocket subscribers were last told. */
static struct {
	int			 valid;
	struct dev_view		 view;
	uint64_t		 fin;
} told;

int	dev_selftest(void);

void
dev_main_wakeup(void)
{
	if (loop != NULL)
		ev_async_send(loop, &wake_w);
}

void
dev_view_get(const struct dev_fault_view *fv, struct dev_view *v)
{
	struct dev_chain	*alt;

	v->chain = main_chain;
	v->wrong_genesis = 0;
	if (dev_fault_on(fv, FAULT_WRONG_GENESIS) &&
	    (alt = atomic_load(&alt_chain)) != NULL &&
	    dev_chain_count(alt) > 0) {
		v->chain = alt;
		v->wrong_genesis = 1;
	}
	v->syncing = !dev_chain_synced(v->chain);
	v->pos = dev_chain_head(v->chain);
	memset(&v->split, 0, sizeof(v->split));
	if (v->chain == main_chain && dev_fault_on(fv, FAULT_SPLIT))
		dev_chain_split_get(main_chain, &v->split);
	if (v->split.on) {
		/* The stall freezes the split's head (never below its base). */
		v->pos = v->split.base_pos;
		v->head = v->split.base + v->split.len;
		if (dev_fault_on(fv, FAULT_STALL) && fv->stall_head < v->head)
			v->head = fv->stall_head > v->split.base ?
			    fv->stall_head : v->split.base;
	} else {
		/* The stall freezes the chain's position. */
		if (dev_fault_on(fv, FAULT_STALL) && fv->stall_head < v->pos)
			v->pos = fv->stall_head;
		/* A node still syncing: that many blocks behind the chain. */
		if (dev_fault_on(fv, FAULT_LAG)) {
			v->pos = v->pos > fv->arg[FAULT_LAG] ?
			    v->pos - fv->arg[FAULT_LAG] : 0;
			v->syncing = 1;
		}
		v->head = dev_chain_tip(v->chain, v->pos);
	}
	v->lies = 0;
	if (v->chain == main_chain)
		dev_lie_view(fv, v);
}

static uint64_t
hook_view_head(enum dev_transport tr)
{
	struct dev_fault_view	fv;
	struct dev_view		v;

	dev_fault_snapshot(tr, &fv);
	fv.on &= ~(1u << FAULT_STALL);
	dev_view_get(&fv, &v);
	return v.split.on ? v.head : v.pos;
}

static void
hook_changed(void)
{
	dev_main_wakeup();
}

/* The split fault: leave the shared chain at the best block, or return. */
static void
hook_split(int on)
{
	struct dev_fault_view	fv;
	struct dev_view		v;

	if (!on) {
		dev_chain_split_stop(main_chain);
		return;
	}
	dev_fault_snapshot(TR_HTTP, &fv);
	fv.on &= ~(1u << FAULT_SPLIT | 1u << FAULT_WRONG_GENESIS);
	dev_view_get(&fv, &v);
	dev_chain_split_start(main_chain, v.pos, now_wall_ms());
}

/* A lying fault comes on: forge on the view HTTP serves now. */
static void
hook_forge(enum dev_fault_id id, uint64_t arg)
{
	struct dev_fault_view	fv;
	struct dev_view		v;

	dev_fault_snapshot(TR_HTTP, &fv);
	fv.on &= ~(1u << FAULT_WRONG_GENESIS);
	dev_view_get(&fv, &v);
	if (!v.syncing)
		dev_lie_make(&v, id, arg);
}

static void
sync_ready(struct dev_chain *c)
{
	dev_main_wakeup();
}

static void *
sync_thread(void *arg)
{
	/* Ready is announced before the cache is written, not after. */
	dev_chain_sync(arg, &cancel_sync, sync_ready);
	return NULL;
}

static void
alt_params(struct dev_chain_params *p)
{
	uint8_t	buf[32 + 16];

	*p = dev_conf.params;
	memcpy(buf, dev_conf.params.seed, 32);
	memcpy(buf + 32, "wrong genesis!!!", 16);
	blake2b_256(buf, sizeof(buf), p->seed);
}

/* The wrong_genesis fault serves another chain: start making it. */
static void
hook_want_alt(void)
{
	struct dev_chain_params	p;
	struct dev_chain	*c;

	pthread_mutex_lock(&alt_lock);
	if (atomic_load(&alt_chain) == NULL && !atomic_load(&cancel_sync)) {
		alt_params(&p);
		c = dev_chain_new(&p, &dev_conf.timing, dev_conf.cache_dir,
		    "wrong_genesis");
		atomic_store(&alt_chain, c);
		if (pthread_create(&alt_thread, NULL, sync_thread, c) != 0)
			fatal(CW_EXIT_SYSTEM, "pthread_create");
		alt_thread_started = 1;
		log_info("wrong_genesis: generating a chain with another "
		    "genesis");
	}
	pthread_mutex_unlock(&alt_lock);
}

static void
status_view(struct buf *b, enum dev_transport tr)
{
	struct dev_fault_view	fv;
	struct dev_view		v;
	struct dev_blkref	ref;
	uint8_t			h[32];

	dev_fault_snapshot(tr, &fv);
	dev_view_get(&fv, &v);
	buf_addf(b, "{\"head\":%" PRIu64 ",\"headHash\":", v.head);
	if (dev_view_block_at(&v, v.head, &ref) == 0) {
		dev_chain_hash(v.chain, &ref, h);
		dev_json_hex(b, h, 32, 1);
	} else
		buf_adds(b, "null");
	buf_addf(b, ",\"finalized\":%" PRIu64 ",\"genesis\":",
	    dev_view_finalized(&v));
	if (dev_chain_count(v.chain) > 0) {
		dev_chain_genesis(v.chain, h);
		dev_json_hex(b, h, 32, 1);
	} else
		buf_adds(b, "null");
	buf_addf(b, ",\"syncing\":%s,\"wrongGenesis\":%s,\"stalled\":%s,"
	    "\"split\":", v.syncing ? "true" : "false",
	    v.wrong_genesis ? "true" : "false",
	    dev_fault_on(&fv, FAULT_STALL) ? "true" : "false");
	if (v.split.on)
		buf_addf(b, "{\"base\":%" PRIu64 ",\"blocks\":%" PRIu64 "}",
		    v.split.base, v.split.len);
	else
		buf_adds(b, "null");
	buf_adds(b, ",\"lies\":");
	dev_lie_status_json(&v, b);
	buf_addc(b, '}');
}

void
dev_status_json(struct buf *b)
{
	const struct dev_chain_timing	*tm = &dev_conf.timing;

	buf_adds(b, "{\"name\":\"chainwatch-devnode\",\"version\":");
	dev_json_str(b, PACKAGE_VERSION);
	buf_addf(b, ",\"format\":\"%s\",\"seed\":",
	    chain_format_name(dev_conf.params.format));
	dev_json_str(b, dev_conf.seed_text);
	buf_addf(b, ",\"blockTime\":%" PRIu64 ",\"startTime\":%" PRIu64
	    ",\"backlog\":%" PRIu64 ",\"liveHead\":%" PRIu64
	    ",\"port\":%d,\"controlPort\":%d,\"wsConnections\":%u,\"http\":",
	    tm->block_ms, tm->start_ms, tm->backlog,
	    dev_chain_head(main_chain), dev_http_port(),
	    dev_http_control_port(), dev_ws_connections());
	status_view(b, TR_HTTP);
	buf_adds(b, ",\"ws\":");
	status_view(b, TR_WS);
	buf_adds(b, ",\"faults\":");
	dev_fault_list_json(b);
	buf_addc(b, '}');
}

static void
announce_ref(enum dev_sub_kind kind, const struct dev_view *v,
    const struct dev_blkref *ref, struct buf *hdr)
{
	buf_reset(hdr);
	dev_chain_header_json(v->chain, ref, hdr);
	dev_ws_announce(kind, hdr->p, hdr->len);
}

static void
announce_block(enum dev_sub_kind kind, const struct dev_view *v, uint64_t n,
    struct buf *hdr)
{
	struct dev_blkref	ref;

	if (dev_view_block_at(v, n, &ref) == 0)
		announce_ref(kind, v, &ref, hdr);
}

/* After the real heads, each forged head that is on (and hits). */
static void
announce_forged(const struct dev_view *v, const struct dev_fault_view *fv,
    struct buf *hdr)
{
	static const enum dev_fault_id ids[] = {
		FAULT_FORGE_HEAD, FAULT_FORGE_CHAIN, FAULT_BAD_NUMBER,
		FAULT_BAD_SEAL,
	};
	size_t	i;

	for (i = 0; i < nitems(ids); i++)
		if ((v->lies & (1u << ids[i])) && dev_fault_hit(fv, ids[i]))
			announce_ref(SUB_NEW_HEADS, v, &v->lie[ids[i]], hdr);
}

/* The finalized head moved: its blocks, or the lie in their place. */
static void
announce_finalized(const struct dev_view *v, const struct dev_fault_view *fv,
    uint64_t from, uint64_t fin, struct buf *hdr)
{
	uint64_t	n;

	if ((v->lies & (1u << FAULT_FINALIZED_OFF)) &&
	    dev_fault_hit(fv, FAULT_FINALIZED_OFF)) {
		announce_ref(SUB_FINALIZED, v, &v->lie[FAULT_FINALIZED_OFF],
		    hdr);
		return;
	}
	for (n = from; n <= fin; n++)
		announce_block(SUB_FINALIZED, v, n, hdr);
}

/*
 * Tell WebSocket subscribers what changed since they were last told: every
 * block of the new best chain above the fork point (so a reorg shows as
 * numbers repeating with consistent parents), and every newly finalized
 * block.  Nothing while the chain is still being generated.
 */
static void
announce(void)
{
	struct dev_fault_view	 fv;
	struct dev_view		 v;
	struct buf		 hdr;
	uint64_t		 low, f, from, fin, n;
	int			 subs = dev_ws_subscribers(), moved;

	dev_fault_snapshot(TR_WS, &fv);
	dev_view_get(&fv, &v);
	if (v.syncing)
		return;
	fin = dev_view_finalized(&v);
	buf_init(&hdr);
	if (!told.valid || told.view.chain != v.chain) {
		/* Just synced, or another chain: just where it stands. */
		if (subs) {
			announce_block(SUB_NEW_HEADS, &v, v.head, &hdr);
			announce_forged(&v, &fv, &hdr);
			announce_finalized(&v, &fv, fin, fin, &hdr);
		}
		goto done;
	}
	/* Same height, another block: a split began or ended there. */
	moved = v.head != told.view.head ||
	    !dev_view_same_block(&told.view, &v, v.head);
	if (!subs || (!moved && fin == told.fin))
		goto done;
	if (moved) {
		low = v.head < told.view.head ? v.head : told.view.head;
		for (f = low; f > 0 && !dev_view_same_block(&told.view, &v, f) &&
		    low - f <= DEV_REORG_DEPTH_MAX + 1; f--)
			;
		from = f + 1 <= v.head ? f + 1 : v.head;
		if (v.head - from + 1 > ANNOUNCE_MAX)
			from = v.head - ANNOUNCE_MAX + 1;
		for (n = from; n <= v.head; n++)
			announce_block(SUB_NEW_HEADS, &v, n, &hdr);
		announce_forged(&v, &fv, &hdr);
	}
	if (fin > told.fin) {
		from = told.fin + 1;
		if (fin - from + 1 > ANNOUNCE_MAX)
			from = fin - ANNOUNCE_MAX + 1;
		announce_finalized(&v, &fv, from, fin, &hdr);
	} else if (fin != told.fin)
		announce_finalized(&v, &fv, fin, fin, &hdr);
done:
	told.valid = 1;
	told.view = v;
	told.fin = fin;
	buf_free(&hdr);
}

static void
tick(void)
{
	struct dev_chain	*cs[2] = { main_chain, atomic_load(&alt_chain) };
	uint64_t		 now = now_wall_ms(), next = 0, t;
	unsigned		 i;

	for (i = 0; i < 2; i++) {
		if (cs[i] == NULL || !dev_chain_synced(cs[i]))
			continue;
		dev_chain_tick(cs[i], now);
		t = dev_chain_next_ms(cs[i]);
		if (next == 0 || t < next)
			next = t;
		dev_chain_split_tick(cs[i], now);
		t = dev_chain_split_next_ms(cs[i]);
		if (t != 0 && t < next)
			next = t;
	}
	announce();
	ev_timer_stop(loop, &tick_w);
	if (next != 0) {
		/* The loop's clock is monotonic; block times are wall times. */
		ev_timer_set(&tick_w, next > now ? (double)(next - now) / 1000. :
		    0., 0.);
		ev_timer_start(loop, &tick_w);
	}
}

static void
tick_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	tick();
}

static int
write_port_file(const char *path, int port)
{
	char	tmp[4096];
	FILE	*f;

	if (path == NULL)
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	if ((f = fopen(tmp, "w")) == NULL) {
		log_warn("%s", tmp);
		return -1;
	}
	fprintf(f, "%d\n", port);
	if (fclose(f) == EOF || rename(tmp, path) == -1) {
		log_warn("%s", path);
		unlink(tmp);
		return -1;
	}
	return 0;
}

static void
on_ready(void)
{
	const struct dev_chain_params	*p = &dev_conf.params;
	const struct dev_chain_timing	*tm = &dev_conf.timing;
	struct dev_blkref		 ref;
	char				 genesis[67], headhash[67], faults[512];
	char				 reorg[160], pruning[64];
	uint8_t				 h[32];
	double				 secs;
	uint64_t			 cached, hashed, head;
	unsigned			 i;

	/* Faults from the command line act on the chain as it now stands. */
	for (i = 0; i < n_start_faults; i++)
		dev_fault_enable(&start_faults[i]);
	if (write_port_file(dev_conf.port_file, dev_http_port()) == -1 ||
	    write_port_file(dev_conf.control_port_file,
	    dev_http_control_port()) == -1)
		fatalx(CW_EXIT_SYSTEM, "cannot write the port files");
	head = dev_chain_head(main_chain);
	dev_chain_genesis(main_chain, h);
	hex_encode(h, 32, genesis);
	dev_chain_block_at(main_chain, head, head, &ref);
	dev_chain_hash(main_chain, &ref, h);
	hex_encode(h, 32, headhash);
	dev_chain_sync_stats(main_chain, &secs, &cached, &hashed);
	if (p->reorg_every == 0)
		snprintf(reorg, sizeof(reorg), "no reorgs");
	else
		snprintf(reorg, sizeof(reorg), "reorgs every %" PRIu64
		    " blocks (depth %u-%u, %s, %s fork choice)",
		    p->reorg_every, p->reorg_min, p->reorg_max,
		    dev_reorg_work_name(p->reorg_work),
		    dev_fork_choice_name(p->fork_choice));
	if (dev_conf.state_pruning == 0)
		snprintf(pruning, sizeof(pruning), "archive state");
	else
		snprintf(pruning, sizeof(pruning), "state pruned after %"
		    PRIu64 " blocks (%s)", dev_conf.state_pruning,
		    dev_conf.pruned_null ? "null" : "error 4003");
	dev_fault_list_text(faults, sizeof(faults));
	log_info("ready: %s chain seed \"%s\" genesis %.18s..., head #%" PRIu64
	    " %.18s..., block time %" PRIu64 " ms, %u miners, %s, %s; "
	    "http+ws on port %d, control on port %d; faults: %s; "
	    "%" PRIu64 " blocks from cache and %" PRIu64 " hashed in %.2f s",
	    chain_format_name(p->format), dev_conf.seed_text, genesis, head,
	    headhash, tm->block_ms, p->n_miners, reorg, pruning,
	    dev_http_port(), dev_http_control_port(), faults, cached, hashed,
	    secs);
}

static void
wake_cb(struct ev_loop *l, ev_async *w, int revents)
{
	dev_ws_poll();
	dev_http_poll();
	if (!ready_done && dev_chain_synced(main_chain)) {
		ready_done = 1;
		on_ready();
	}
	if (ready_done)
		tick();
}

static void
signal_cb(struct ev_loop *l, ev_signal *w, int revents)
{
	log_info("signal %d: stopping", w->signum);
	ev_break(l, EVBREAK_ALL);
}

static __attribute__((noreturn)) void
usage(int status)
{
	FILE	*f = status == CW_EXIT_OK ? stdout : stderr;

	fprintf(f,
"usage: chainwatch-devnode [--listen ADDR:PORT] [--control-listen ADDR:PORT]\n"
"           [--port-file FILE] [--control-port-file FILE] [--seed TEXT]\n"
"           [--format quantus|substrate] [--block-time MS]\n"
"           [--start-time EPOCH_MS] [--backlog N] [--cache-dir DIR]\n"
"           [--miners N] [--miner-weights W,...] [--difficulty N]\n"
"           [--min-difficulty N]\n"
"           [--reorg-every K] [--reorg-depth D|MIN-MAX] [--finality-lag N]\n"
"           [--reorg-work heavier|lighter|shorter]\n"
"           [--fork-choice heaviest|longest]\n"
"           [--spec-version V] [--spec-change HEIGHT[:VERSION]]...\n"
"           [--state-pruning N] [--pruned-null] [--fault SPEC]...\n"
"           [--ping-interval MS] [--threads N] [--chain-name NAME]\n"
"           [--log-level LEVEL] [-d] [--self-test] [-h] [-V]\n"
"faults: refuse reset blackhole slow:MS http_500 http_503 rate_limit\n"
"        malformed truncated oversized[:MIB] ws_drop[:MS] ws_silent stall\n"
"        wrong_genesis batch_limit:N lag:N,\n"
"        each as NAME[:ARG][@http|ws|both][%%PERCENT]\n"
"lies:   split forge_head[:N] forge_chain:K bad_number[:K] finalized_off\n"
"        wrong_header wrong_count[:0|1|2] bad_seal difficulty_x100\n"
"        difficulty_div100 timestamp_ahead timestamp_early\n"
"see chainwatch-devnode(1)\n");
	exit(status);
}

static uint64_t
opt_u64(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	char			*end;
	unsigned long long	 v;

	errno = 0;
	if (*s < '0' || *s > '9')
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		goto bad;
	return v;
bad:
	fprintf(stderr, "chainwatch-devnode: --%s %s: not a number in %llu..%llu\n",
	    opt, s, (unsigned long long)min, (unsigned long long)max);
	exit(CW_EXIT_USAGE);
}

static __attribute__((noreturn)) void
usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "chainwatch-devnode: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(CW_EXIT_USAGE);
}

static int
spec_cmp(const void *a, const void *b)
{
	const uint64_t	*x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

enum {
	OPT_LISTEN = 256, OPT_CONTROL_LISTEN, OPT_PORT_FILE,
	OPT_CONTROL_PORT_FILE, OPT_SEED, OPT_FORMAT, OPT_BLOCK_TIME,
	OPT_START_TIME, OPT_BACKLOG, OPT_CACHE_DIR, OPT_MINERS,
	OPT_MINER_WEIGHTS, OPT_DIFFICULTY, OPT_REORG_EVERY, OPT_REORG_DEPTH,
	OPT_FINALITY_LAG, OPT_SPEC_VERSION, OPT_SPEC_CHANGE, OPT_STATE_PRUNING,
	OPT_PRUNED_NULL, OPT_FAULT, OPT_PING, OPT_THREADS, OPT_CHAIN_NAME,
	OPT_LOG_LEVEL, OPT_SELF_TEST, OPT_REORG_WORK, OPT_FORK_CHOICE,
	OPT_MIN_DIFFICULTY,
};

static const struct option longopts[] = {
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "control-listen", required_argument, NULL, OPT_CONTROL_LISTEN },
	{ "port-file", required_argument, NULL, OPT_PORT_FILE },
	{ "control-port-file", required_argument, NULL, OPT_CONTROL_PORT_FILE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "block-time", required_argument, NULL, OPT_BLOCK_TIME },
	{ "start-time", required_argument, NULL, OPT_START_TIME },
	{ "backlog", required_argument, NULL, OPT_BACKLOG },
	{ "cache-dir", required_argument, NULL, OPT_CACHE_DIR },
	{ "miners", required_argument, NULL, OPT_MINERS },
	{ "miner-weights", required_argument, NULL, OPT_MINER_WEIGHTS },
	{ "difficulty", required_argument, NULL, OPT_DIFFICULTY },
	{ "min-difficulty", required_argument, NULL, OPT_MIN_DIFFICULTY },
	{ "reorg-every", required_argument, NULL, OPT_REORG_EVERY },
	{ "reorg-depth", required_argument, NULL, OPT_REORG_DEPTH },
	{ "finality-lag", required_argument, NULL, OPT_FINALITY_LAG },
	{ "reorg-work", required_argument, NULL, OPT_REORG_WORK },
	{ "fork-choice", required_argument, NULL, OPT_FORK_CHOICE },
	{ "spec-version", required_argument, NULL, OPT_SPEC_VERSION },
	{ "spec-change", required_argument, NULL, OPT_SPEC_CHANGE },
	{ "state-pruning", required_argument, NULL, OPT_STATE_PRUNING },
	{ "pruned-null", no_argument, NULL, OPT_PRUNED_NULL },
	{ "fault", required_argument, NULL, OPT_FAULT },
	{ "ping-interval", required_argument, NULL, OPT_PING },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "chain-name", required_argument, NULL, OPT_CHAIN_NAME },
	{ "log-level", required_argument, NULL, OPT_LOG_LEVEL },
	{ "self-test", no_argument, NULL, OPT_SELF_TEST },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void
parse_weights(const char *s)
{
	struct dev_chain_params	*p = &dev_conf.params;
	char			 buf[1024], *tok, *save = NULL;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		usage_error("--miner-weights %s: too long", s);
	p->n_miners = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if (p->n_miners >= DEV_MINERS_MAX)
			usage_error("--miner-weights %s: more than 64 miners", s);
		p->weights[p->n_miners++] = (uint32_t)opt_u64("miner-weights",
		    tok, 1, 1000000);
	}
	if (p->n_miners == 0)
		usage_error("--miner-weights %s: no weights", s);
}

static void
parse_spec_change(const char *s)
{
	struct dev_chain_params	*p = &dev_conf.params;
	char			 buf[64], *colon;

	if (p->n_spec >= DEV_SPEC_CHANGES_MAX)
		usage_error("--spec-change %s: more than 64 changes", s);
	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		usage_error("--spec-change %s: too long", s);
	if ((colon = strchr(buf, ':')) != NULL)
		*colon++ = '\0';
	p->spec[p->n_spec].height = opt_u64("spec-change", buf, 1, UINT32_MAX);
	/* 0 until resolved: the previous version plus one. */
	p->spec[p->n_spec].version = colon == NULL ? 0 :
	    (uint32_t)opt_u64("spec-change", colon, 1, UINT32_MAX);
	p->n_spec++;
}

/*
 * A big backlog is cached by default, so that only the first start pays
 * for hashing it: $XDG_CACHE_HOME/chainwatch-devnode, else
 * ~/.cache/chainwatch-devnode.  "--cache-dir none" turns it off.
 */
static void
default_cache_dir(void)
{
	static char	 path[4096];
	const char	*xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (dev_conf.cache_dir != NULL) {
		if (strcmp(dev_conf.cache_dir, "none") == 0)
			dev_conf.cache_dir = NULL;
		return;
	}
	if (dev_conf.timing.backlog < CACHE_DEFAULT_MIN)
		return;
	if (xdg != NULL && xdg[0] == '/')
		snprintf(path, sizeof(path), "%s/chainwatch-devnode", xdg);
	else if (home != NULL && home[0] == '/')
		snprintf(path, sizeof(path), "%s/.cache/chainwatch-devnode",
		    home);
	else
		return;
	dev_conf.cache_dir = path;
}

static void
parse_options(int argc, char **argv, int *selftest)
{
	struct dev_chain_params	*p = &dev_conf.params;
	struct dev_chain_timing	*tm = &dev_conf.timing;
	char			 err[160], *dash;
	enum log_level		 level;
	uint64_t		 now;
	int			 ch, weights = 0, depth_set = 0;
	int			 work_set = 0, choice_set = 0;
	unsigned		 i;
	uint32_t		 v;

	dev_conf.listen = "127.0.0.1:9944";
	dev_conf.control_listen = "127.0.0.1:0";
	dev_conf.seed_text = "chainwatch";
	dev_conf.chain_name = "Devnode";
	dev_conf.ping_ms = 30000;
	dev_conf.threads = 2;
	dev_conf.max_request = 15u << 20;
	p->format = FORMAT_QUANTUS;
	p->n_miners = 4;
	/* Cheap to mine: tests build chains of thousands of blocks. */
	p->difficulty0 = DEV_DIFFICULTY_DEFAULT;
	p->min_difficulty = 1;
	p->reorg_min = p->reorg_max = 3;
	p->spec_version0 = 145;
	tm->block_ms = 12000;
	tm->finality_lag = 100;

	while ((ch = getopt_long(argc, argv, "dhV", longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_LISTEN:
			dev_conf.listen = optarg;
			break;
		case OPT_CONTROL_LISTEN:
			dev_conf.control_listen = optarg;
			break;
		case OPT_PORT_FILE:
			dev_conf.port_file = optarg;
			break;
		case OPT_CONTROL_PORT_FILE:
			dev_conf.control_port_file = optarg;
			break;
		case OPT_SEED:
			dev_conf.seed_text = optarg;
			break;
		case OPT_FORMAT:
			if (chain_format_parse(optarg, &p->format) == -1)
				usage_error("--format %s: not quantus or "
				    "substrate", optarg);
			break;
		case OPT_BLOCK_TIME:
			tm->block_ms = opt_u64("block-time", optarg, 1, 3600000);
			break;
		case OPT_START_TIME:
			tm->start_ms = opt_u64("start-time", optarg, 1,
			    UINT64_MAX / 4);
			dev_conf.start_time_set = 1;
			break;
		case OPT_BACKLOG:
			tm->backlog = opt_u64("backlog", optarg, 0,
			    UINT32_MAX / 2);
			break;
		case OPT_CACHE_DIR:
			dev_conf.cache_dir = optarg;
			break;
		case OPT_MINERS:
			p->n_miners = (unsigned)opt_u64("miners", optarg, 1,
			    DEV_MINERS_MAX);
			break;
		case OPT_MINER_WEIGHTS:
			parse_weights(optarg);
			weights = 1;
			break;
		case OPT_DIFFICULTY:
			p->difficulty0 = opt_u64("difficulty", optarg, 1,
			    1ull << 56);
			break;
		case OPT_MIN_DIFFICULTY:
			p->min_difficulty = opt_u64("min-difficulty", optarg,
			    1, 1ull << 56);
			break;
		case OPT_REORG_EVERY:
			p->reorg_every = opt_u64("reorg-every", optarg, 0,
			    UINT32_MAX);
			break;
		case OPT_REORG_DEPTH:
			if ((dash = strchr(optarg, '-')) != NULL) {
				*dash = '\0';
				p->reorg_min = (unsigned)opt_u64("reorg-depth",
				    optarg, 1, DEV_REORG_DEPTH_MAX);
				p->reorg_max = (unsigned)opt_u64("reorg-depth",
				    dash + 1, p->reorg_min, DEV_REORG_DEPTH_MAX);
			} else
				p->reorg_min = p->reorg_max = (unsigned)opt_u64(
				    "reorg-depth", optarg, 1, DEV_REORG_DEPTH_MAX);
			depth_set = 1;
			break;
		case OPT_REORG_WORK:
			if (strcmp(optarg, "heavier") == 0)
				p->reorg_work = REORG_HEAVIER;
			else if (strcmp(optarg, "lighter") == 0)
				p->reorg_work = REORG_LIGHTER;
			else if (strcmp(optarg, "shorter") == 0)
				p->reorg_work = REORG_SHORTER;
			else
				usage_error("--reorg-work %s: not heavier, "
				    "lighter or shorter", optarg);
			work_set = 1;
			break;
		case OPT_FORK_CHOICE:
			if (strcmp(optarg, "heaviest") == 0)
				p->fork_choice = FORK_HEAVIEST;
			else if (strcmp(optarg, "longest") == 0)
				p->fork_choice = FORK_LONGEST;
			else
				usage_error("--fork-choice %s: not heaviest or "
				    "longest", optarg);
			choice_set = 1;
			break;
		case OPT_FINALITY_LAG:
			tm->finality_lag = opt_u64("finality-lag", optarg, 0,
			    UINT32_MAX);
			break;
		case OPT_SPEC_VERSION:
			p->spec_version0 = (uint32_t)opt_u64("spec-version",
			    optarg, 0, UINT32_MAX);
			break;
		case OPT_SPEC_CHANGE:
			parse_spec_change(optarg);
			break;
		case OPT_STATE_PRUNING:
			dev_conf.state_pruning = opt_u64("state-pruning", optarg,
			    1, UINT32_MAX);
			break;
		case OPT_PRUNED_NULL:
			dev_conf.pruned_null = 1;
			break;
		case OPT_FAULT:
			if (n_start_faults >= FAULTS_MAX)
				usage_error("--fault %s: too many faults",
				    optarg);
			if (dev_fault_parse(optarg,
			    &start_faults[n_start_faults], err,
			    sizeof(err)) == -1)
				usage_error("--fault: %s", err);
			n_start_faults++;
			break;
		case OPT_PING:
			dev_conf.ping_ms = opt_u64("ping-interval", optarg, 0,
			    86400000);
			break;
		case OPT_THREADS:
			dev_conf.threads = (unsigned)opt_u64("threads", optarg,
			    1, 64);
			break;
		case OPT_CHAIN_NAME:
			dev_conf.chain_name = optarg;
			break;
		case OPT_LOG_LEVEL:
			if (log_level_parse(optarg, &level) == -1)
				usage_error("--log-level %s: not error, warn, "
				    "info or debug", optarg);
			log_setlevel(level);
			break;
		case 'd':
			log_setlevel(LOG_LEVEL_DEBUG);
			break;
		case OPT_SELF_TEST:
			*selftest = 1;
			break;
		case 'h':
			usage(CW_EXIT_OK);
		case 'V':
			printf("chainwatch-devnode %s\n", PACKAGE_VERSION);
			exit(CW_EXIT_OK);
		default:
			usage(CW_EXIT_USAGE);
		}
	}
	if (optind != argc)
		usage_error("unexpected argument %s", argv[optind]);
	if (dev_http_check_listen(dev_conf.listen) == -1)
		usage_error("--listen %s: not ADDR:PORT with a numeric address",
		    dev_conf.listen);
	if (dev_http_check_listen(dev_conf.control_listen) == -1)
		usage_error("--control-listen %s: not ADDR:PORT with a numeric "
		    "address", dev_conf.control_listen);

	{
		struct buf	b;

		buf_init(&b);
		buf_adds(&b, "chainwatch-devnode seed:");
		buf_adds(&b, dev_conf.seed_text);
		blake2b_256(b.p, b.len, p->seed);
		buf_free(&b);
	}
	if (!weights)
		dev_chain_default_weights(p);
	default_cache_dir();
	if (p->min_difficulty > p->difficulty0) {
		snprintf(err, sizeof(err), "--min-difficulty %" PRIu64 ": above "
		    "the genesis difficulty %" PRIu64 " (--difficulty)",
		    p->min_difficulty, p->difficulty0);
		usage_error("%s", err);
	}
	if (p->reorg_every != 0) {
		if (p->reorg_max >= p->reorg_every)
			usage_error("--reorg-depth: must be below --reorg-every%s",
			    "");
		/* A shorter branch takes depth+1 blocks off the chain. */
		if (p->reorg_max + (p->reorg_work == REORG_SHORTER) >
		    tm->finality_lag)
			usage_error("--reorg-depth: must not exceed "
			    "--finality-lag (less one with --reorg-work "
			    "shorter)%s", "");
	} else if (depth_set || work_set)
		usage_error("--reorg-depth and --reorg-work need "
		    "--reorg-every%s", "");
	/* Quantus nodes pick the heaviest chain; Substrate's default, longest. */
	if (!choice_set)
		p->fork_choice = p->format == FORMAT_QUANTUS ? FORK_HEAVIEST :
		    FORK_LONGEST;
	/* Changes in height order; a change without a version adds one. */
	qsort(p->spec, p->n_spec, sizeof(p->spec[0]), spec_cmp);
	for (i = 0, v = p->spec_version0; i < p->n_spec; i++) {
		if (i > 0 && p->spec[i].height == p->spec[i - 1].height)
			usage_error("--spec-change: two changes at one height%s",
			    "");
		if (p->spec[i].version == 0)
			p->spec[i].version = v + 1;
		v = p->spec[i].version;
	}
	if (!dev_conf.start_time_set) {
		/*
		 * Devnodes started within a block time of each other with
		 * the same parameters agree on every head to within that.
		 */
		now = now_wall_ms();
		tm->start_ms = now - now % tm->block_ms;
	}
}

static void
raise_nofile(void)
{
	struct rlimit	rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int
main(int argc, char **argv)
{
	struct dev_fault_hooks	hooks = { hook_view_head, hook_changed,
				    hook_want_alt, hook_split, hook_forge };
	struct dev_chain	*alt;
	int			 selftest = 0;

	log_init(1, LOG_LEVEL_INFO, "chainwatch-devnode");
	log_procinit("devnode");
	parse_options(argc, argv, &selftest);
	if (selftest)
		return dev_selftest() == 0 ? CW_EXIT_OK : CW_EXIT_INTERNAL;
	signal(SIGPIPE, SIG_IGN);
	raise_nofile();

	loop = EV_DEFAULT;
	ev_async_init(&wake_w, wake_cb);
	ev_async_start(loop, &wake_w);
	ev_timer_init(&tick_w, tick_cb, 0., 0.);
	ev_signal_init(&sigint_w, signal_cb, SIGINT);
	ev_signal_init(&sigterm_w, signal_cb, SIGTERM);
	ev_signal_start(loop, &sigint_w);
	ev_signal_start(loop, &sigterm_w);

	dev_fault_init(&hooks);
	main_chain = dev_chain_new(&dev_conf.params, &dev_conf.timing,
	    dev_conf.cache_dir, "main");
	if (dev_http_init(loop) == -1)
		exit(CW_EXIT_SYSTEM);
	dev_ws_init(loop);
	atomic_init(&cancel_sync, 0);
	if (pthread_create(&main_thread, NULL, sync_thread, main_chain) != 0)
		fatal(CW_EXIT_SYSTEM, "pthread_create");
	log_info("listening on port %d (control port %d); generating %" PRIu64
	    " blocks of backlog", dev_http_port(), dev_http_control_port(),
	    dev_conf.timing.backlog);
	/* Serve nothing until the genesis block at least exists. */
	while (dev_chain_count(main_chain) == 0)
		usleep(1000);
	ev_run(loop, 0);

	atomic_store(&cancel_sync, 1);
	dev_http_quiesce();
	dev_ws_shutdown();
	dev_http_shutdown();
	pthread_join(main_thread, NULL);
	pthread_mutex_lock(&alt_lock);
	alt = atomic_load(&alt_chain);
	pthread_mutex_unlock(&alt_lock);
	if (alt_thread_started)
		pthread_join(alt_thread, NULL);
	dev_fault_shutdown();
	dev_chain_free(alt);
	dev_chain_free(main_chain);
	ev_loop_destroy(loop);
	log_info("stopped");
	return CW_EXIT_OK;
}
