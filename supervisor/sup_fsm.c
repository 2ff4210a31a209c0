/*
 * The lifecycle of a child of chainwatchd (a worker or chainwatch-metrics)
 * as one pure transition function, and its respawn backoff.  The clock is
 * passed in, there is no I/O: the driver carries out the actions, and the
 * unit tests drive every transition and every rule with a fake clock.
 *
 *   state     event              next      actions     and
 *   IDLE      START              IDLE      SCHEDULE
 *   IDLE      SPAWN_DUE          STARTING  SPAWN       last_spawn := now
 *   IDLE      RESTART            IDLE      SCHEDULE    fails := 0
 *   IDLE      STOP               DEAD      FREE
 *   STARTING  HELLO              RUNNING
 *   STARTING  SPAWN_FAILED       IDLE      SCHEDULE    died
 *   STARTING+ HANG, BAD_MSG      STOPPING  KILL        died
 *   STARTING+ EXIT               IDLE      SCHEDULE    died
 *   STARTING+ EXIT_SETUP         FAILED    PARK
 *   STARTING+ STOP               REMOVING  TERM
 *   STARTING+ RESTART            STOPPING  TERM        fails := 0
 *   STOPPING  EXIT, EXIT_SETUP   IDLE      SCHEDULE
 *   STOPPING  GRACE_OVER         STOPPING  KILL
 *   STOPPING  STOP               REMOVING
 *   STOPPING  RESTART            STOPPING              fails := 0
 *   REMOVING  EXIT, EXIT_SETUP   DEAD      FREE
 *   REMOVING  GRACE_OVER         REMOVING  KILL
 *   FAILED    RESTART            IDLE      SCHEDULE    fails := 0
 *   FAILED    STOP               DEAD      FREE
 *   (STARTING+ is STARTING or RUNNING; any other pair changes nothing: a
 *   RESTART of a REMOVING one is void, it is about to be freed.)
 *
 *   died: an unplanned death.  One that lived FAILS_RESET_MS since
 *   last_spawn served a while: fails := 0 first, so that its backoff starts
 *   afresh.  Then fails++ and restarts++.  A clock that steps back stands
 *   still: the child lived no time.
 *   The respawn delay (sup_fsm_delay) is the backoff of fails, but never
 *   two spawns within SPAWN_MIN_GAP_MS.
 */
#include "config.h"

#include "sup_fsm.h"

/* How long it has run, monotonic ms; 0 if the clock stepped back. */
static uint64_t
fsm_lived(const struct cfsm *f, uint64_t now)
{
	return now > f->last_spawn ? now - f->last_spawn : 0;
}

static void
fsm_died(struct cfsm *f, uint64_t now)
{
	if (fsm_lived(f, now) >= FAILS_RESET_MS)
		f->fails = 0;
	f->fails++;
	f->restarts++;
}

/* Waiting to be spawned (or never started). */
static unsigned
fsm_idle(struct cfsm *f, enum cevent ev, uint64_t now)
{
	switch (ev) {
	case CE_START:
		return CA_SCHEDULE;
	case CE_SPAWN_DUE:
		f->state = CS_STARTING;
		f->last_spawn = now;
		return CA_SPAWN;
	case CE_RESTART:
		f->fails = 0;
		return CA_SCHEDULE;
	case CE_STOP:
		f->state = CS_DEAD;
		return CA_FREE;
	default:
		return 0;
	}
}

/* Spawned: starting until its hello, then running. */
static unsigned
fsm_up(struct cfsm *f, enum cevent ev, uint64_t now)
{
	switch (ev) {
	case CE_HELLO:
		if (f->state == CS_STARTING)
			f->state = CS_RUNNING;
		return 0;
	case CE_SPAWN_FAILED:
		/* As a death at once, so that the backoff applies. */
		if (f->state != CS_STARTING)
			return 0;
		f->state = CS_IDLE;
		fsm_died(f, now);
		return CA_SCHEDULE;
	case CE_HANG:
	case CE_BAD_MSG:
		f->state = CS_STOPPING;
		fsm_died(f, now);
		return CA_KILL;
	case CE_EXIT:
		f->state = CS_IDLE;
		fsm_died(f, now);
		return CA_SCHEDULE;
	case CE_EXIT_SETUP:
		f->state = CS_FAILED;
		return CA_PARK;
	case CE_STOP:
		f->state = CS_REMOVING;
		return CA_TERM;
	case CE_RESTART:
		f->state = CS_STOPPING;
		f->fails = 0;
		return CA_TERM;
	default:
		return 0;
	}
}

/* Asked to exit, to be spawned again. */
static unsigned
fsm_stopping(struct cfsm *f, enum cevent ev)
{
	switch (ev) {
	case CE_EXIT:
	case CE_EXIT_SETUP:
		f->state = CS_IDLE;
		return CA_SCHEDULE;
	case CE_GRACE_OVER:
		return CA_KILL;
	case CE_STOP:
		f->state = CS_REMOVING;
		return 0;
	case CE_RESTART:
		f->fails = 0;
		return 0;
	default:
		return 0;
	}
}

/* Asked to exit, to be freed. */
static unsigned
fsm_removing(struct cfsm *f, enum cevent ev)
{
	switch (ev) {
	case CE_EXIT:
	case CE_EXIT_SETUP:
		f->state = CS_DEAD;
		return CA_FREE;
	case CE_GRACE_OVER:
		return CA_KILL;
	default:
		return 0;
	}
}

/* Parked after a failed setup, until a reload restarts or stops it. */
static unsigned
fsm_failed(struct cfsm *f, enum cevent ev)
{
	switch (ev) {
	case CE_RESTART:
		f->state = CS_IDLE;
		f->fails = 0;
		return CA_SCHEDULE;
	case CE_STOP:
		f->state = CS_DEAD;
		return CA_FREE;
	default:
		return 0;
	}
}

unsigned
sup_fsm(struct cfsm *f, enum cevent ev, uint64_t now)
{
	switch (f->state) {
	case CS_IDLE:
		return fsm_idle(f, ev, now);
	case CS_STARTING:
	case CS_RUNNING:
		return fsm_up(f, ev, now);
	case CS_STOPPING:
		return fsm_stopping(f, ev);
	case CS_REMOVING:
		return fsm_removing(f, ev);
	case CS_FAILED:
		return fsm_failed(f, ev);
	case CS_DEAD:
		return 0;
	}
	return 0;
}

/* TERM or KILL sent: its exit is asked for, not a death to count. */
int
sup_fsm_stopping(const struct cfsm *f)
{
	return f->state == CS_STOPPING || f->state == CS_REMOVING;
}

const char *
sup_cstate_name(enum cstate s)
{
	static const char *const names[] = { "idle", "starting", "running",
	    "stopping", "removing", "failed", "dead" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *
sup_cevent_name(enum cevent e)
{
	static const char *const names[] = { "start", "spawn_due",
	    "spawn_failed", "hello", "hang", "bad_msg", "exit", "exit_setup",
	    "stop", "restart", "grace_over" };

	return (unsigned)e < sizeof(names) / sizeof(names[0]) ? names[e] : "?";
}

/* 1 s after the first unplanned death, doubling up to a minute. */
uint64_t
sup_backoff_ms(unsigned fails)
{
	uint64_t	ms = SPAWN_MIN_GAP_MS;

	if (fails == 0)
		return 0;
	for (unsigned i = 1; i < fails && ms < BACKOFF_MAX_MS; i++)
		ms *= 2;
	return ms > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : ms;
}

/* Never two spawns of one child within SPAWN_MIN_GAP_MS (s6's rule). */
uint64_t
sup_fsm_delay(const struct cfsm *f, uint64_t now)
{
	uint64_t	delay = sup_backoff_ms(f->fails);
	uint64_t	lived = fsm_lived(f, now);

	if (f->last_spawn != 0 && lived < SPAWN_MIN_GAP_MS &&
	    SPAWN_MIN_GAP_MS - lived > delay)
		delay = SPAWN_MIN_GAP_MS - lived;
	return delay;
}
