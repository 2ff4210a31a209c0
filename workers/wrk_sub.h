/*
 * The endpoint's head subscriptions (chain_subscribeNewHeads, and
 * chain_subscribeFinalizedHeads) over wrk_ws, kept alive: reconnect with
 * jittered exponential backoff, and a silent subscription counts as dead.
 */
#ifndef CW_WRK_SUB_H
#define CW_WRK_SUB_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "outcome.h"

struct ev_loop;
struct wrk_sub;

enum wrk_sub_kind {
	WRK_SUB_NEW = 0,
	WRK_SUB_FINALIZED,
};

struct wrk_sub_head {
	enum wrk_sub_kind	 kind;
	json_t			*header;	/* borrowed: the header object */
	int			 has_number;	/* header.number parsed */
	uint64_t		 number;
};

struct wrk_sub_conf {
	const char	*url;			/* ws:// or wss:// */
	uint32_t	 block_time_ms;
	double		 stall_factor;		/* dead after factor x block time */
	uint32_t	 connect_timeout_ms;
	uint32_t	 handshake_timeout_ms;	/* also for the subscribe answers */
	size_t		 max_message;
	int		 finalized;		/* also follow finalized heads */
	const char	*ca_file;		/* PEM CAs to trust; NULL: system */
	/* Jitter source; NULL: getrandom(2).  Tests pass a fixed one. */
	uint32_t	(*random)(void *);
	void		*random_arg;
};

struct wrk_sub_cbs {
	void	(*head)(void *arg, const struct wrk_sub_head *);
	/* Optional: the new-heads subscription went live (1) or down (0). */
	void	(*status)(void *arg, int live, const char *why);
	/*
	 * Optional: a message the endpoint should not have sent, held
	 * against it: OUTCOME_MALFORMED (not JSON, not JSON-RPC, a
	 * notification that is no head) or OUTCOME_TOO_LARGE (past the cap).
	 */
	void	(*bad)(void *arg, enum outcome, const char *why);
};

/* Connects at once.  NULL when the URL is not ws:// or wss://. */
struct wrk_sub *wrk_sub_start(struct ev_loop *, const struct wrk_sub_conf *,
	    const struct wrk_sub_cbs *, void *arg);
/* Closes and frees; no callback after.  Safe inside a callback. */
void	 wrk_sub_stop(struct wrk_sub *);
/* The best block number HTTP reads have seen, for the stall rule. */
void	 wrk_sub_http_best(struct wrk_sub *, uint64_t number);
/* Reconnections so far (the first connection is not one). */
unsigned wrk_sub_reconnects(const struct wrk_sub *);

/* ---- the pure parts: the state machine and its rules ---- */

enum wrk_sub_state {
	WRK_SUB_CONNECTING = 0,	/* the WebSocket is being opened */
	WRK_SUB_SUBSCRIBING,	/* subscribe requests out, answers awaited */
	WRK_SUB_LIVE,		/* new heads subscribed */
	WRK_SUB_BACKOFF,	/* waiting to reconnect */
	WRK_SUB_STOPPED,
	WRK_SUB_NSTATES
};

enum wrk_sub_event {
	WRK_SUB_EV_OPEN = 0,	/* the WebSocket opened */
	WRK_SUB_EV_SUBSCRIBED,	/* chain_subscribeNewHeads answered */
	WRK_SUB_EV_FAILED,	/* it was refused, or not answered in time */
	WRK_SUB_EV_CLOSED,	/* the WebSocket closed or never opened */
	WRK_SUB_EV_STALLED,	/* silent while HTTP shows a newer head */
	WRK_SUB_EV_TIMER,	/* the backoff is over */
	WRK_SUB_EV_STOP,
	WRK_SUB_NEVENTS
};

enum wrk_sub_action {
	WRK_SUB_DO_NOTHING = 0,
	WRK_SUB_DO_SUBSCRIBE,
	WRK_SUB_DO_GO_LIVE,
	WRK_SUB_DO_RETRY,	/* drop the WebSocket, wait out the backoff */
	WRK_SUB_DO_CONNECT,
	WRK_SUB_DO_STOP,
};

struct wrk_sub_step {
	enum wrk_sub_state	next;
	enum wrk_sub_action	action;
};

struct wrk_sub_step wrk_sub_transition(enum wrk_sub_state, enum wrk_sub_event);
const char *wrk_sub_state_name(enum wrk_sub_state);

#define WRK_SUB_BACKOFF_MIN_MS	500
#define WRK_SUB_BACKOFF_MAX_MS	30000
/*
 * The wait before reconnection number attempt (0 first): a random point
 * (rnd, uniform over 32 bits) in [d/2, d] with d = 1 s x 2^attempt, kept
 * within [0.5 s, 30 s].
 */
uint32_t wrk_sub_backoff_ms(unsigned attempt, uint32_t rnd);

/*
 * 1 when the backoff starts over, now_ms: the subscription that just
 * ended went live at live_ms (0: never), lived a stall period (limit_ms)
 * and delivered a new head after going live (its last at last_head_ms,
 * live_ms if none).  A host that drops every connection within a stall
 * period, or whose subscriptions never deliver a head (a proxy that drops
 * notifications), is reconnected ever more slowly, not every stall
 * period; one whose heads come late (a loaded node) at once, as ever.
 */
int	 wrk_sub_backoff_over(uint64_t now_ms, uint64_t live_ms,
	    uint64_t last_head_ms, uint64_t limit_ms);

/*
 * 1 when a live subscription is dead: nothing since since_ms for limit_ms,
 * and HTTP knows a head newer than any the subscription delivered.
 */
int	 wrk_sub_stalled(uint64_t now_ms, uint64_t since_ms, uint64_t limit_ms,
	    int have_ws, uint64_t ws_best, int have_http, uint64_t http_best);

/*
 * When a subscription in state is next looked at (ms, the clock of now);
 * 0: not at all.  One subscribing at its answer's deadline (since
 * subscribing_ms, hs_timeout_ms); a live one when its last head (since_ms)
 * is limit_ms old, then every every_ms while HTTP is not ahead.  A worker
 * whose heads come in time never wakes for it: at 12 s blocks a check a
 * second was a third of an idle worker's wakeups.
 */
uint64_t wrk_sub_next_check(enum wrk_sub_state state, uint64_t now_ms,
	    uint64_t since_ms, uint64_t limit_ms, uint64_t subscribing_ms,
	    uint64_t hs_timeout_ms, uint64_t every_ms);

#endif
