/*
 * An endpoint's availability, driven directly: every row of the table in
 * sup_endpoint.c, how the reason and `since` of a trouble are kept, and
 * what people are shown beside the endpoint's breaker.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sup_endpoint.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#define S	1000ULL
/* Wall-clock ms, as sup_health.c passes it. */
#define T0	1764374400000ULL

/* An endpoint brought into a state the way it gets there. */
static void
reach(struct ep_avail *a, enum ep_state s, uint64_t when)
{
	ep_init(a);
	switch (s) {
	case EP_STARTING:
		break;
	case EP_READY:
		ep_step(a, EPE_FACTS, NULL, when);
		break;
	case EP_DOWN:
		ep_step(a, EPE_LOST, "old trouble", when);
		break;
	case EP_QUARANTINED:
		ep_step(a, EPE_WRONG_CHAIN, "old trouble", when);
		break;
	case EP_INCONSISTENT:
		ep_step(a, EPE_FACTS, NULL, when);
		ep_step(a, EPE_CONTRADICTED, "old trouble", when);
		break;
	case EP_UNRESPONSIVE:
		ep_step(a, EPE_FACTS, NULL, when);
		ep_step(a, EPE_OVERDUE, "old trouble", when);
		break;
	}
	assert_int_equal(a->state, s);
}

static void
step(struct ep_avail *a, enum ep_event ev, const char *why, uint64_t now,
    enum ep_state want, unsigned want_act)
{
	enum ep_state	was = a->state;
	unsigned	act = ep_step(a, ev, why, now);

	if (a->state != want || act != want_act) {
		print_error("%s + %s: got %s/0x%x, want %s/0x%x\n",
		    ep_state_name(was), ep_event_name(ev),
		    ep_state_name(a->state), act, ep_state_name(want),
		    want_act);
		fail();
	}
}

/* What a row does to the reason and `since`. */
enum keep {
	UNTOUCHED,	/* both as they were */
	NEW_TROUBLE,	/* since now, the event's reason */
	SAME_TROUBLE,	/* since kept, the event's reason */
	CLEARED,	/* since 0, no reason */
};

static void
test_table(void **state)
{
	static const struct {
		enum ep_state	from;
		enum ep_event	ev;
		enum ep_state	to;
		unsigned	act;
		enum keep	keep;
	} rows[] = {
		{ EP_STARTING, EPE_SPAWNED, EP_STARTING, 0, UNTOUCHED },
		{ EP_STARTING, EPE_FACTS, EP_READY, EPA_READY, CLEARED },
		{ EP_STARTING, EPE_WRONG_CHAIN, EP_QUARANTINED,
		    EPA_QUARANTINE | EPA_STORE, NEW_TROUBLE },
		{ EP_STARTING, EPE_LOST, EP_DOWN, EPA_STORE, NEW_TROUBLE },
		{ EP_STARTING, EPE_EXITED, EP_STARTING, 0, UNTOUCHED },
		{ EP_READY, EPE_SPAWNED, EP_STARTING, 0, UNTOUCHED },
		{ EP_READY, EPE_FACTS, EP_READY, 0, UNTOUCHED },
		{ EP_READY, EPE_WRONG_CHAIN, EP_QUARANTINED,
		    EPA_GONE | EPA_QUARANTINE | EPA_STORE, NEW_TROUBLE },
		{ EP_READY, EPE_LOST, EP_DOWN, EPA_GONE | EPA_STORE,
		    NEW_TROUBLE },
		{ EP_READY, EPE_EXITED, EP_STARTING, EPA_GONE, UNTOUCHED },
		{ EP_DOWN, EPE_SPAWNED, EP_DOWN, 0, UNTOUCHED },
		{ EP_DOWN, EPE_FACTS, EP_READY, EPA_READY | EPA_STORE,
		    CLEARED },
		{ EP_DOWN, EPE_WRONG_CHAIN, EP_QUARANTINED,
		    EPA_QUARANTINE | EPA_STORE, NEW_TROUBLE },
		{ EP_DOWN, EPE_LOST, EP_DOWN, EPA_STORE, SAME_TROUBLE },
		{ EP_DOWN, EPE_EXITED, EP_DOWN, 0, UNTOUCHED },
		{ EP_QUARANTINED, EPE_FACTS, EP_READY,
		    EPA_RELEASE | EPA_READY | EPA_STORE, CLEARED },
		{ EP_QUARANTINED, EPE_WRONG_CHAIN, EP_QUARANTINED, EPA_STORE,
		    SAME_TROUBLE },
		{ EP_QUARANTINED, EPE_SPAWNED, EP_QUARANTINED, 0, UNTOUCHED },
		{ EP_QUARANTINED, EPE_LOST, EP_QUARANTINED, 0, UNTOUCHED },
		{ EP_QUARANTINED, EPE_EXITED, EP_QUARANTINED, 0, UNTOUCHED },
		{ EP_STARTING, EPE_CONTRADICTED, EP_INCONSISTENT,
		    EPA_DOUBT | EPA_STORE, NEW_TROUBLE },
		{ EP_READY, EPE_CONTRADICTED, EP_INCONSISTENT,
		    EPA_GONE | EPA_DOUBT | EPA_STORE, NEW_TROUBLE },
		{ EP_DOWN, EPE_CONTRADICTED, EP_DOWN, 0, UNTOUCHED },
		{ EP_QUARANTINED, EPE_CONTRADICTED, EP_QUARANTINED, 0,
		    UNTOUCHED },
		{ EP_INCONSISTENT, EPE_CONTRADICTED, EP_INCONSISTENT,
		    EPA_STORE, SAME_TROUBLE },
		{ EP_STARTING, EPE_AGREES, EP_STARTING, 0, UNTOUCHED },
		{ EP_READY, EPE_AGREES, EP_READY, 0, UNTOUCHED },
		{ EP_DOWN, EPE_AGREES, EP_DOWN, 0, UNTOUCHED },
		{ EP_QUARANTINED, EPE_AGREES, EP_QUARANTINED, 0, UNTOUCHED },
		/* One agreement is not enough (test_agreements has the rest). */
		{ EP_INCONSISTENT, EPE_AGREES, EP_INCONSISTENT, 0, UNTOUCHED },
		{ EP_INCONSISTENT, EPE_SPAWNED, EP_INCONSISTENT, 0, UNTOUCHED },
		{ EP_INCONSISTENT, EPE_FACTS, EP_INCONSISTENT, 0, UNTOUCHED },
		{ EP_INCONSISTENT, EPE_WRONG_CHAIN, EP_QUARANTINED,
		    EPA_QUARANTINE | EPA_STORE, NEW_TROUBLE },
		{ EP_INCONSISTENT, EPE_LOST, EP_DOWN, EPA_STORE, NEW_TROUBLE },
		{ EP_INCONSISTENT, EPE_EXITED, EP_INCONSISTENT, 0, UNTOUCHED },
		/* Overdue while others answer. */
		{ EP_STARTING, EPE_OVERDUE, EP_UNRESPONSIVE,
		    EPA_MUTE | EPA_STORE, NEW_TROUBLE },
		{ EP_READY, EPE_OVERDUE, EP_UNRESPONSIVE,
		    EPA_GONE | EPA_MUTE | EPA_STORE, NEW_TROUBLE },
		{ EP_DOWN, EPE_OVERDUE, EP_DOWN, 0, UNTOUCHED },
		{ EP_QUARANTINED, EPE_OVERDUE, EP_QUARANTINED, 0, UNTOUCHED },
		{ EP_INCONSISTENT, EPE_OVERDUE, EP_INCONSISTENT, 0, UNTOUCHED },
		{ EP_STARTING, EPE_ANSWERED, EP_STARTING, 0, UNTOUCHED },
		{ EP_READY, EPE_ANSWERED, EP_READY, 0, UNTOUCHED },
		{ EP_DOWN, EPE_ANSWERED, EP_DOWN, 0, UNTOUCHED },
		{ EP_QUARANTINED, EPE_ANSWERED, EP_QUARANTINED, 0, UNTOUCHED },
		{ EP_INCONSISTENT, EPE_ANSWERED, EP_INCONSISTENT, 0,
		    UNTOUCHED },
		{ EP_STARTING, EPE_JUDGED, EP_STARTING, 0, UNTOUCHED },
		{ EP_READY, EPE_JUDGED, EP_READY, 0, UNTOUCHED },
		{ EP_DOWN, EPE_JUDGED, EP_DOWN, 0, UNTOUCHED },
		{ EP_QUARANTINED, EPE_JUDGED, EP_QUARANTINED, 0, UNTOUCHED },
		{ EP_INCONSISTENT, EPE_JUDGED, EP_INCONSISTENT, 0, UNTOUCHED },
		{ EP_UNRESPONSIVE, EPE_SPAWNED, EP_STARTING, EPA_STORE,
		    CLEARED },
		{ EP_UNRESPONSIVE, EPE_FACTS, EP_READY,
		    EPA_HEARD | EPA_READY | EPA_STORE, CLEARED },
		{ EP_UNRESPONSIVE, EPE_WRONG_CHAIN, EP_QUARANTINED,
		    EPA_QUARANTINE | EPA_STORE, NEW_TROUBLE },
		{ EP_UNRESPONSIVE, EPE_LOST, EP_DOWN, EPA_STORE, NEW_TROUBLE },
		{ EP_UNRESPONSIVE, EPE_EXITED, EP_STARTING, EPA_STORE,
		    CLEARED },
		{ EP_UNRESPONSIVE, EPE_CONTRADICTED, EP_INCONSISTENT,
		    EPA_DOUBT | EPA_STORE, NEW_TROUBLE },
		{ EP_UNRESPONSIVE, EPE_AGREES, EP_UNRESPONSIVE, 0, UNTOUCHED },
		{ EP_UNRESPONSIVE, EPE_OVERDUE, EP_UNRESPONSIVE, EPA_STORE,
		    SAME_TROUBLE },
		{ EP_UNRESPONSIVE, EPE_ANSWERED, EP_READY,
		    EPA_HEARD | EPA_READY | EPA_STORE, CLEARED },
		{ EP_UNRESPONSIVE, EPE_JUDGED, EP_READY, EPA_READY | EPA_STORE,
		    CLEARED },
		/* Everyone inconsistent for a claim's patience. */
		{ EP_STARTING, EPE_ABSOLVED, EP_STARTING, 0, UNTOUCHED },
		{ EP_READY, EPE_ABSOLVED, EP_READY, 0, UNTOUCHED },
		{ EP_DOWN, EPE_ABSOLVED, EP_DOWN, 0, UNTOUCHED },
		{ EP_QUARANTINED, EPE_ABSOLVED, EP_QUARANTINED, 0, UNTOUCHED },
		{ EP_INCONSISTENT, EPE_ABSOLVED, EP_READY,
		    EPA_ABSOLVE | EPA_READY | EPA_STORE, CLEARED },
		{ EP_UNRESPONSIVE, EPE_ABSOLVED, EP_UNRESPONSIVE, 0,
		    UNTOUCHED },
	};
	unsigned	seen[6][11];
	uint64_t	now = T0 + 60 * S;

	/* Every state meets every event once. */
	assert_int_equal(nitems(rows), 6 * 11);
	memset(seen, 0, sizeof(seen));
	for (size_t i = 0; i < nitems(rows); i++)
		assert_int_equal(seen[rows[i].from][rows[i].ev]++, 0);

	for (size_t i = 0; i < nitems(rows); i++) {
		struct ep_avail	a, was;

		reach(&a, rows[i].from, T0);
		was = a;
		step(&a, rows[i].ev, "new trouble", now, rows[i].to,
		    rows[i].act);
		switch (rows[i].keep) {
		case UNTOUCHED:
			assert_int_equal(a.since, was.since);
			assert_string_equal(a.reason, was.reason);
			break;
		case NEW_TROUBLE:
			assert_int_equal(a.since, now);
			assert_string_equal(a.reason, "new trouble");
			break;
		case SAME_TROUBLE:
			assert_int_equal(a.since, T0);
			assert_string_equal(a.reason, "new trouble");
			break;
		case CLEARED:
			assert_int_equal(a.since, 0);
			assert_string_equal(a.reason, "");
			break;
		}
	}
}

/*
 * When every endpoint is doubted: none ready, at least one inconsistent,
 * the latest of them for the patience.  Down, quarantined, starting and
 * unresponsive ones neither count for nor against it; one ready one
 * (work goes to it, its heads can connect) is enough against.
 */
static void
test_doubted(void **state)
{
	struct ep_avail		 a[4];
	const struct ep_avail	*av[4] = { &a[0], &a[1], &a[2], &a[3] };
	uint64_t		 patience = 10 * S;

	(void)state;
	/* Nobody: nothing to suspect. */
	assert_false(ep_doubted(av, 0, patience, T0 + 60 * S));
	reach(&a[0], EP_INCONSISTENT, T0);
	reach(&a[1], EP_INCONSISTENT, T0 + 5 * S);
	reach(&a[2], EP_DOWN, T0);
	reach(&a[3], EP_UNRESPONSIVE, T0);
	/* The latest doubt counts: not yet at T0 + 10 s, at T0 + 15 s. */
	assert_false(ep_doubted(av, 4, patience, T0 + 10 * S));
	assert_false(ep_doubted(av, 4, patience, T0 + 15 * S - 1));
	assert_true(ep_doubted(av, 4, patience, T0 + 15 * S));
	/* A clock that went back is no evidence. */
	assert_false(ep_doubted(av, 4, patience, T0 + 1 * S));
	/* One ready endpoint: the others are judged by what it serves. */
	reach(&a[2], EP_READY, T0);
	assert_false(ep_doubted(av, 4, patience, T0 + 60 * S));
	/* No one inconsistent: nothing to lift. */
	reach(&a[0], EP_DOWN, T0);
	reach(&a[1], EP_QUARANTINED, T0);
	reach(&a[2], EP_STARTING, T0);
	assert_false(ep_doubted(av, 4, patience, T0 + 60 * S));
	/* A lone endpoint inconsistent: it alone is the chain's voice. */
	reach(&a[0], EP_INCONSISTENT, T0);
	assert_true(ep_doubted(av, 1, patience, T0 + 10 * S));
	step(&a[0], EPE_ABSOLVED, NULL, T0 + 10 * S, EP_READY,
	    EPA_ABSOLVE | EPA_READY | EPA_STORE);
	assert_false(ep_doubted(av, 1, patience, T0 + 60 * S));
}

/* A life: trouble, its reasons and since, as people would see them. */
static void
test_since_and_reason(void **state)
{
	struct ep_avail	a;
	char		longer[2 * EP_REASON_MAX];

	ep_init(&a);
	assert_int_equal(a.state, EP_STARTING);
	assert_int_equal(a.since, 0);
	assert_string_equal(a.reason, "");
	step(&a, EPE_FACTS, NULL, T0, EP_READY, EPA_READY);
	assert_int_equal(a.since, 0);

	/* Down at T0 + 10 s; it stays down since then whatever follows. */
	step(&a, EPE_LOST, "hung: no answer for 30 s", T0 + 10 * S, EP_DOWN,
	    EPA_GONE | EPA_STORE);
	assert_int_equal(a.since, T0 + 10 * S);
	assert_string_equal(a.reason, "hung: no answer for 30 s");
	/* A respawned worker is no cure, and says nothing new. */
	step(&a, EPE_SPAWNED, "ignored", T0 + 11 * S, EP_DOWN, 0);
	assert_string_equal(a.reason, "hung: no answer for 30 s");
	step(&a, EPE_LOST, "exited with 1 before its facts", T0 + 12 * S,
	    EP_DOWN, EPA_STORE);
	step(&a, EPE_EXITED, "ignored", T0 + 13 * S, EP_DOWN, 0);
	step(&a, EPE_SPAWNED, NULL, T0 + 14 * S, EP_DOWN, 0);
	step(&a, EPE_LOST, "killed by signal 9", T0 + 20 * S, EP_DOWN,
	    EPA_STORE);
	assert_int_equal(a.since, T0 + 10 * S);
	assert_string_equal(a.reason, "killed by signal 9");
	/* No reason given: none shown, since still kept. */
	step(&a, EPE_LOST, NULL, T0 + 21 * S, EP_DOWN, EPA_STORE);
	assert_string_equal(a.reason, "");
	assert_int_equal(a.since, T0 + 10 * S);
	/* Its facts end it. */
	step(&a, EPE_FACTS, "ignored", T0 + 30 * S, EP_READY,
	    EPA_READY | EPA_STORE);
	assert_int_equal(a.since, 0);
	assert_string_equal(a.reason, "");
	/* The next trouble starts afresh. */
	step(&a, EPE_EXITED, NULL, T0 + 40 * S, EP_STARTING, EPA_GONE);
	assert_int_equal(a.since, 0);
	step(&a, EPE_LOST, "setup failed", T0 + 50 * S, EP_DOWN, EPA_STORE);
	assert_int_equal(a.since, T0 + 50 * S);

	/* Down, then another chain's genesis: a new trouble. */
	step(&a, EPE_WRONG_CHAIN, "genesis 0xab, not 0xcd", T0 + 60 * S,
	    EP_QUARANTINED, EPA_QUARANTINE | EPA_STORE);
	assert_int_equal(a.since, T0 + 60 * S);
	step(&a, EPE_WRONG_CHAIN, "genesis 0xef, not 0xcd", T0 + 70 * S,
	    EP_QUARANTINED, EPA_STORE);
	assert_int_equal(a.since, T0 + 60 * S);
	assert_string_equal(a.reason, "genesis 0xef, not 0xcd");
	/* A quarantined endpoint's worker dying changes nothing shown. */
	step(&a, EPE_LOST, "hung", T0 + 80 * S, EP_QUARANTINED, 0);
	step(&a, EPE_SPAWNED, NULL, T0 + 81 * S, EP_QUARANTINED, 0);
	step(&a, EPE_EXITED, NULL, T0 + 82 * S, EP_QUARANTINED, 0);
	assert_int_equal(a.since, T0 + 60 * S);
	assert_string_equal(a.reason, "genesis 0xef, not 0xcd");
	step(&a, EPE_FACTS, NULL, T0 + 90 * S, EP_READY,
	    EPA_RELEASE | EPA_READY | EPA_STORE);
	assert_int_equal(a.since, 0);
	assert_string_equal(a.reason, "");

	/* A reason too long for the field is cut, not overrun. */
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	step(&a, EPE_LOST, longer, T0 + 100 * S, EP_DOWN,
	    EPA_GONE | EPA_STORE);
	assert_int_equal(strlen(a.reason), EP_REASON_MAX - 1);
}

/*
 * Inconsistent: entered from ready with its reason, kept through its
 * worker's restarts, left after EP_AGREE_N agreeing heads in a row, and
 * a new contradiction starts the count over.
 */
static void
test_agreements(void **state)
{
	struct ep_avail	a;
	const char	*why = "head #1000000327 0x1234abcd... never connected";

	reach(&a, EP_READY, T0);
	step(&a, EPE_CONTRADICTED, why, T0 + 10 * S, EP_INCONSISTENT,
	    EPA_GONE | EPA_DOUBT | EPA_STORE);
	assert_int_equal(a.since, T0 + 10 * S);
	assert_string_equal(a.reason, why);
	/* Its worker restarts: its claims are still the endpoint's. */
	step(&a, EPE_SPAWNED, NULL, T0 + 11 * S, EP_INCONSISTENT, 0);
	step(&a, EPE_FACTS, NULL, T0 + 12 * S, EP_INCONSISTENT, 0);
	assert_string_equal(a.reason, why);
	/* EP_AGREE_N - 1 agreements, then a contradiction: over again. */
	for (int i = 0; i < EP_AGREE_N - 1; i++)
		step(&a, EPE_AGREES, NULL, T0 + (20 + i) * S,
		    EP_INCONSISTENT, 0);
	step(&a, EPE_CONTRADICTED, "finalized #90 is off the chain",
	    T0 + 30 * S, EP_INCONSISTENT, EPA_STORE);
	assert_int_equal(a.since, T0 + 10 * S);
	assert_string_equal(a.reason, "finalized #90 is off the chain");
	for (int i = 0; i < EP_AGREE_N - 1; i++)
		step(&a, EPE_AGREES, NULL, T0 + (40 + i) * S,
		    EP_INCONSISTENT, 0);
	/* The EP_AGREE_N-th in a row ends it: ready, due work now. */
	step(&a, EPE_AGREES, NULL, T0 + 50 * S, EP_READY,
	    EPA_TRUST | EPA_READY | EPA_STORE);
	assert_int_equal(a.since, 0);
	assert_string_equal(a.reason, "");
	/* Agreements while ready count for nothing later. */
	for (int i = 0; i < 2 * EP_AGREE_N; i++)
		step(&a, EPE_AGREES, NULL, T0 + 60 * S, EP_READY, 0);
	step(&a, EPE_CONTRADICTED, why, T0 + 70 * S, EP_INCONSISTENT,
	    EPA_GONE | EPA_DOUBT | EPA_STORE);
	step(&a, EPE_AGREES, NULL, T0 + 71 * S, EP_INCONSISTENT, 0);

	/* Down outweighs it, and a down endpoint agrees with nothing. */
	step(&a, EPE_LOST, "hung", T0 + 80 * S, EP_DOWN, EPA_STORE);
	assert_string_equal(a.reason, "hung");
	step(&a, EPE_CONTRADICTED, why, T0 + 81 * S, EP_DOWN, 0);
	for (int i = 0; i < EP_AGREE_N; i++)
		step(&a, EPE_AGREES, NULL, T0 + 82 * S, EP_DOWN, 0);
	/* Back with its facts: ready, judged afresh. */
	step(&a, EPE_FACTS, NULL, T0 + 90 * S, EP_READY,
	    EPA_READY | EPA_STORE);
	/* Quarantine outweighs it too. */
	step(&a, EPE_CONTRADICTED, why, T0 + 100 * S, EP_INCONSISTENT,
	    EPA_GONE | EPA_DOUBT | EPA_STORE);
	step(&a, EPE_WRONG_CHAIN, "genesis 0xab, not 0xcd", T0 + 101 * S,
	    EP_QUARANTINED, EPA_QUARANTINE | EPA_STORE);
	step(&a, EPE_CONTRADICTED, why, T0 + 102 * S, EP_QUARANTINED, 0);
	assert_string_equal(a.reason, "genesis 0xab, not 0xcd");
}

/* Down and quarantined outweigh the breaker; otherwise it is shown. */
static void
test_shown(void **state)
{
	struct breaker_conf	c;
	struct breaker		b;
	struct ep_avail		a;
	const char		*reason, *name;
	uint64_t		since, t1 = T0 + 60 * S;

	breaker_conf_default(&c);
	breaker_init(&b, &c, T0);
	ep_init(&a);

	/* Starting, and ready: the breaker's state, since and reason. */
	name = ep_shown(&a, &b, &since, &reason);
	assert_string_equal(name, "closed");
	assert_int_equal(since, T0);
	assert_string_equal(reason, "");
	ep_step(&a, EPE_FACTS, NULL, T0 + S);
	name = ep_shown(&a, &b, &since, &reason);
	assert_string_equal(name, "closed");
	assert_int_equal(since, T0);

	/* Its breaker opens on 20 timeouts at once. */
	for (int i = 0; i < 20 && b.state == BRK_CLOSED; i++)
		breaker_outcome(&b, b.gen, OUTCOME_TIMEOUT, t1);
	assert_int_equal(b.state, BRK_OPEN);
	name = ep_shown(&a, &b, &since, &reason);
	assert_string_equal(name, "open");
	assert_int_equal(since, t1);
	assert_string_equal(reason, b.reason);
	assert_true(reason[0] != '\0');
	/*
	 * Half-open after its cooldown: still the breaker's reason, and
	 * the outage's start, not the flip's.
	 */
	assert_int_equal(breaker_allow(&b, t1 + 5 * S), BRK_TRIAL);
	name = ep_shown(&a, &b, &since, &reason);
	assert_string_equal(name, "half-open");
	assert_int_equal(since, t1);
	assert_string_equal(reason, b.reason);

	/* Its worker hangs: down, with its own since and reason. */
	ep_step(&a, EPE_LOST, "hung: no answer for 30 s", t1 + 7 * S);
	name = ep_shown(&a, &b, &since, &reason);
	assert_string_equal(name, "down");
	assert_int_equal(since, t1 + 7 * S);
	assert_string_equal(reason, "hung: no answer for 30 s");
	/* Another chain's genesis: quarantined. */
	ep_step(&a, EPE_WRONG_CHAIN, "genesis 0xab, not 0xcd", t1 + 9 * S);
	name = ep_shown(&a, &b, &since, &reason);
	assert_string_equal(name, "quarantined");
	assert_int_equal(since, t1 + 9 * S);
	assert_string_equal(reason, "genesis 0xab, not 0xcd");

	/* Inconsistent outweighs the breaker too, with its own reason. */
	ep_step(&a, EPE_FACTS, NULL, t1 + 9 * S);
	ep_step(&a, EPE_CONTRADICTED, "head #99 never connected", t1 + 9 * S);
	name = ep_shown(&a, &b, &since, &reason);
	assert_string_equal(name, "inconsistent");
	assert_int_equal(since, t1 + 9 * S);
	assert_string_equal(reason, "head #99 never connected");
	ep_step(&a, EPE_WRONG_CHAIN, "genesis 0xab, not 0xcd", t1 + 9 * S);

	/* Back, and the breaker shows again as it stands. */
	ep_step(&a, EPE_FACTS, NULL, t1 + 10 * S);
	name = ep_shown(&a, &b, &since, &reason);
	assert_string_equal(name, "half-open");
	assert_int_equal(since, t1);
	/* A worker starting after a reload: the breaker too. */
	ep_step(&a, EPE_SPAWNED, NULL, t1 + 11 * S);
	assert_int_equal(a.state, EP_STARTING);
	name = ep_shown(&a, &b, &since, &reason);
	assert_string_equal(name, "half-open");
}

/*
 * One outage of a breaker that flips open, half-open, open again over
 * failed trials: shown since it began, the reason naming the last trial.
 * Unresponsive before it, and the breaker taking over once it opens.
 */
static void
test_outage_since(void **state)
{
	struct breaker_conf	c;
	struct breaker		b;
	struct ep_avail		a;
	const char		*reason, *name;
	uint64_t		since, t = T0 + 60 * S, down;

	breaker_conf_default(&c);
	breaker_init(&b, &c, T0);
	ep_init(&a);
	ep_step(&a, EPE_FACTS, NULL, T0);

	/* Overdue at t - 3 s: unresponsive since its request went out. */
	step(&a, EPE_OVERDUE, "no answer for 3 s", t - 3 * S,
	    EP_UNRESPONSIVE, EPA_GONE | EPA_MUTE | EPA_STORE);
	step(&a, EPE_OVERDUE, "no answer for 4 s", t, EP_UNRESPONSIVE,
	    EPA_STORE);
	name = ep_shown(&a, &b, &since, &reason);
	assert_string_equal(name, "unresponsive");
	assert_int_equal(since, t - 3 * S);
	assert_string_equal(reason, "no answer for 4 s");

	/* The run rule opens its breaker: it judges from now on. */
	for (int i = 0; i < 6; i++)
		breaker_outcome(&b, b.gen, OUTCOME_TIMEOUT, t + i * 2 * S);
	assert_int_equal(b.state, BRK_OPEN);
	down = b.down_since;
	step(&a, EPE_JUDGED, NULL, t + 10 * S, EP_READY,
	    EPA_READY | EPA_STORE);
	/* Five failed trials: open, half-open, open ... one start. */
	for (int i = 0; i < 5; i++) {
		uint64_t at = breaker_ready_at(&b, t);

		assert_int_equal(breaker_allow(&b, at), BRK_TRIAL);
		name = ep_shown(&a, &b, &since, &reason);
		assert_string_equal(name, "half-open");
		assert_int_equal(since, down);
		breaker_outcome(&b, b.gen, OUTCOME_TIMEOUT, at + S);
		name = ep_shown(&a, &b, &since, &reason);
		assert_string_equal(name, "open");
		assert_int_equal(since, down);
		assert_non_null(strstr(reason, "on trial at"));
		t = at + S;
	}
	/* A success ends the outage: closed since then. */
	t = breaker_ready_at(&b, t);
	assert_int_equal(breaker_allow(&b, t), BRK_TRIAL);
	breaker_outcome(&b, b.gen, OUTCOME_OK, t + S);
	name = ep_shown(&a, &b, &since, &reason);
	assert_string_equal(name, "closed");
	assert_true(since > down);

	/* An endpoint that never answered: back to starting when it does. */
	ep_init(&a);
	step(&a, EPE_OVERDUE, "no answer for 2 s", T0, EP_UNRESPONSIVE,
	    EPA_MUTE | EPA_STORE);
	step(&a, EPE_ANSWERED, NULL, T0 + S, EP_STARTING,
	    EPA_HEARD | EPA_STORE);
	assert_int_equal(a.since, 0);
	step(&a, EPE_OVERDUE, "no answer for 2 s", T0 + 2 * S,
	    EP_UNRESPONSIVE, EPA_MUTE | EPA_STORE);
	step(&a, EPE_FACTS, NULL, T0 + 3 * S, EP_READY,
	    EPA_HEARD | EPA_READY | EPA_STORE);
}

static void
test_names(void **state)
{
	assert_string_equal(ep_state_name(EP_STARTING), "starting");
	assert_string_equal(ep_state_name(EP_READY), "ready");
	assert_string_equal(ep_state_name(EP_DOWN), "down");
	assert_string_equal(ep_state_name(EP_QUARANTINED), "quarantined");
	assert_string_equal(ep_state_name(EP_INCONSISTENT), "inconsistent");
	assert_string_equal(ep_state_name(EP_UNRESPONSIVE), "unresponsive");
	assert_string_equal(ep_state_name((enum ep_state)6), "?");
	assert_string_equal(ep_event_name(EPE_SPAWNED), "spawned");
	assert_string_equal(ep_event_name(EPE_WRONG_CHAIN), "wrong_chain");
	assert_string_equal(ep_event_name(EPE_EXITED), "exited");
	assert_string_equal(ep_event_name(EPE_CONTRADICTED), "contradicted");
	assert_string_equal(ep_event_name(EPE_AGREES), "agrees");
	assert_string_equal(ep_event_name(EPE_OVERDUE), "overdue");
	assert_string_equal(ep_event_name(EPE_JUDGED), "judged");
	assert_string_equal(ep_event_name(EPE_ABSOLVED), "absolved");
	assert_string_equal(ep_event_name((enum ep_event)11), "?");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_since_and_reason),
		cmocka_unit_test(test_agreements),
		cmocka_unit_test(test_shown),
		cmocka_unit_test(test_outage_since),
		cmocka_unit_test(test_doubted),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
