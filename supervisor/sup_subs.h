/*
 * Which endpoint holds a chain's one new-heads subscription under
 * `subscribe = primary` (sup_subs.c): pure rules over plain structs with
 * the clock passed in, applied to the workers by sup_primary.c.
 */
#ifndef CW_SUP_SUBS_H
#define CW_SUP_SUBS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The stable period: how long an endpoint earlier in the configuration
 * must have been usable, with no failure of its subscription, before the
 * subscription moves back to it; and how long one whose subscription
 * failed is passed over.  max(30 s, 10 block times): long enough that a
 * host which drops every connection after a while (or flaps with its
 * breaker) is not taken back at each flap, short against the hours such
 * hosts usually stay good, and always several blocks, so that a slow
 * chain sees its preferred endpoint deliver before it is trusted again.
 */
#define SUBS_STABLE_MIN_MS	30000
#define SUBS_STABLE_BLOCKS	10

/* One endpoint of the chain, in configuration order. */
struct subs_cand {
	int		usable;		/* it may work: worker running, ready,
					 * breaker not open */
	uint64_t	usable_since;	/* ms: when it last became usable */
	uint64_t	failed;		/* ms: its subscription's last failure
					 * or stall, 0: never */
};

uint64_t subs_stable_ms(uint64_t block_time_ms);

/*
 * The index of the endpoint that should hold the subscription now, or -1
 * when none is usable.  holder: the one that holds it, or -1.
 *  - The holder keeps it while it is usable and its subscription has not
 *    failed within the stable period, unless one earlier in the order
 *    has been stable (usable, no failure) for the stable period: then
 *    that one takes it back.
 *  - Otherwise the first usable one whose subscription has not failed
 *    within the stable period takes it; when every usable one failed
 *    lately, the one whose failure is oldest (the first such in order).
 * A clock that steps back counts as standing still.
 */
int	subs_choose(const struct subs_cand *, size_t n, int holder,
	    uint64_t now, uint64_t stable_ms);

/* 1 when the holder c may keep it: usable, no failure within stable. */
int	subs_may_keep(const struct subs_cand *c, uint64_t now,
	    uint64_t stable_ms);

/*
 * 1 when the holder's subscription is silent: nothing from it since
 * since_ms for limit_ms while the chain's stored best is past the best
 * it delivered (have_own 0: it delivered none).
 */
int	subs_stalled(uint64_t now, uint64_t since_ms, uint64_t limit_ms,
	    int have_own, uint64_t own_best, int have_chain,
	    uint64_t chain_best);

#endif
