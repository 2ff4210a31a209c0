/*
 * The worker lifecycle as one pure transition function, and the respawn
 * backoff.  No clock, no I/O: sup_spawn.c carries out the actions, and the
 * unit tests drive every transition directly.
 *
 *   state     event              next      actions
 *   IDLE      START              IDLE      SCHEDULE
 *   IDLE      SPAWN_DUE          STARTING  SPAWN
 *   IDLE      RESTART            IDLE      RESET_FAILS SCHEDULE
 *   IDLE      STOP               DEAD      FREE
 *   STARTING  HELLO              RUNNING
 *   STARTING  SPAWN_FAILED       IDLE      COUNT_FAIL SCHEDULE
 *   STARTING+ HANG, BAD_MSG      STOPPING  KILL COUNT_FAIL
 *   STARTING+ EXIT               IDLE      COUNT_FAIL SCHEDULE
 *   STARTING+ EXIT_SETUP         FAILED    PARK
 *   STARTING+ STOP               REMOVING  TERM
 *   STARTING+ RESTART            STOPPING  TERM RESET_FAILS
 *   STOPPING  EXIT, EXIT_SETUP   IDLE      SCHEDULE
 *   STOPPING  GRACE_OVER         STOPPING  KILL
 *   STOPPING  STOP               REMOVING
 *   STOPPING  RESTART            STOPPING  RESET_FAILS
 *   REMOVING  EXIT, EXIT_SETUP   DEAD      FREE
 *   REMOVING  GRACE_OVER         REMOVING  KILL
 *   FAILED    RESTART            IDLE      RESET_FAILS SCHEDULE
 *   FAILED    STOP               DEAD      FREE
 *   (STARTING+ is STARTING or RUNNING; any other pair changes nothing: a
 *   RESTART of a REMOVING one is void, it is about to be freed.)
 */
#include "config.h"

#include "sup_fsm.h"

unsigned
sup_fsm(struct cfsm *f, enum cevent ev)
{
	switch (f->state) {
	case CS_IDLE:
		switch (ev) {
		case CE_START:
			return CA_SCHEDULE;
		case CE_SPAWN_DUE:
			f->state = CS_STARTING;
			return CA_SPAWN;
		case CE_RESTART:
			return CA_RESET_FAILS | CA_SCHEDULE;
		case CE_STOP:
			f->state = CS_DEAD;
			return CA_FREE;
		default:
			return 0;
		}
	case CS_STARTING:
	case CS_RUNNING:
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
			return CA_COUNT_FAIL | CA_SCHEDULE;
		case CE_HANG:
		case CE_BAD_MSG:
			f->state = CS_STOPPING;
			return CA_KILL | CA_COUNT_FAIL;
		case CE_EXIT:
			f->state = CS_IDLE;
			return CA_COUNT_FAIL | CA_SCHEDULE;
		case CE_EXIT_SETUP:
			f->state = CS_FAILED;
			return CA_PARK;
		case CE_STOP:
			f->state = CS_REMOVING;
			return CA_TERM;
		case CE_RESTART:
			f->state = CS_STOPPING;
			return CA_TERM | CA_RESET_FAILS;
		default:
			return 0;
		}
	case CS_STOPPING:
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
			return CA_RESET_FAILS;
		default:
			return 0;
		}
	case CS_REMOVING:
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
	case CS_FAILED:
		switch (ev) {
		case CE_RESTART:
			f->state = CS_IDLE;
			return CA_RESET_FAILS | CA_SCHEDULE;
		case CE_STOP:
			f->state = CS_DEAD;
			return CA_FREE;
		default:
			return 0;
		}
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

/* Never two spawns of one endpoint within SPAWN_MIN_GAP_MS (s6's rule). */
uint64_t
sup_spawn_delay(uint64_t now, uint64_t last_spawn, unsigned fails)
{
	uint64_t	delay = sup_backoff_ms(fails);

	if (last_spawn != 0 && last_spawn + SPAWN_MIN_GAP_MS > now &&
	    last_spawn + SPAWN_MIN_GAP_MS - now > delay)
		delay = last_spawn + SPAWN_MIN_GAP_MS - now;
	return delay;
}
