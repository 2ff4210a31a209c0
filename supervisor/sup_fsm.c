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
 *   STARTING+ HANG, BAD_MSG      STOPPING  KILL COUNT_FAIL
 *   STARTING+ EXIT               IDLE      COUNT_FAIL SCHEDULE
 *   STARTING+ EXIT_SETUP         FAILED    PARK
 *   STARTING+ STOP               STOPPING  TERM      (removing)
 *   STARTING+ RESTART            STOPPING  TERM RESET_FAILS
 *   STOPPING  EXIT, EXIT_SETUP   IDLE      SCHEDULE  (DEAD, FREE if removing)
 *   STOPPING  GRACE_OVER         STOPPING  KILL
 *   STOPPING  STOP               STOPPING            (removing)
 *   STOPPING  RESTART            STOPPING  RESET_FAILS
 *   FAILED    RESTART            IDLE      RESET_FAILS SCHEDULE
 *   FAILED    STOP               DEAD      FREE
 *   (STARTING+ is STARTING or RUNNING; any other pair changes nothing.)
 */
#include "config.h"

#include "sup.h"

unsigned
sup_fsm(struct wfsm *f, enum wevent ev)
{
	switch (f->state) {
	case WS_IDLE:
		switch (ev) {
		case WE_START:
			return A_SCHEDULE;
		case WE_SPAWN_DUE:
			f->state = WS_STARTING;
			return A_SPAWN;
		case WE_RESTART:
			return A_RESET_FAILS | A_SCHEDULE;
		case WE_STOP:
			f->removing = 1;
			f->state = WS_DEAD;
			return A_FREE;
		default:
			return 0;
		}
	case WS_STARTING:
	case WS_RUNNING:
		switch (ev) {
		case WE_HELLO:
			if (f->state == WS_STARTING)
				f->state = WS_RUNNING;
			return 0;
		case WE_HANG:
		case WE_BAD_MSG:
			f->state = WS_STOPPING;
			return A_KILL | A_COUNT_FAIL;
		case WE_EXIT:
			f->state = WS_IDLE;
			return A_COUNT_FAIL | A_SCHEDULE;
		case WE_EXIT_SETUP:
			f->state = WS_FAILED;
			return A_PARK;
		case WE_STOP:
			f->removing = 1;
			f->state = WS_STOPPING;
			return A_TERM;
		case WE_RESTART:
			f->state = WS_STOPPING;
			return A_TERM | A_RESET_FAILS;
		default:
			return 0;
		}
	case WS_STOPPING:
		switch (ev) {
		case WE_EXIT:
		case WE_EXIT_SETUP:
			if (f->removing) {
				f->state = WS_DEAD;
				return A_FREE;
			}
			f->state = WS_IDLE;
			return A_SCHEDULE;
		case WE_GRACE_OVER:
			return A_KILL;
		case WE_STOP:
			f->removing = 1;
			return 0;
		case WE_RESTART:
			return A_RESET_FAILS;
		default:
			return 0;
		}
	case WS_FAILED:
		switch (ev) {
		case WE_RESTART:
			f->state = WS_IDLE;
			return A_RESET_FAILS | A_SCHEDULE;
		case WE_STOP:
			f->removing = 1;
			f->state = WS_DEAD;
			return A_FREE;
		default:
			return 0;
		}
	case WS_DEAD:
		return 0;
	}
	return 0;
}

const char *
sup_wstate_name(enum wstate s)
{
	static const char *const names[] = { "idle", "starting", "running",
	    "stopping", "failed", "dead" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *
sup_wevent_name(enum wevent e)
{
	static const char *const names[] = { "start", "spawn_due", "hello",
	    "hang", "bad_msg", "exit", "exit_setup", "stop", "restart",
	    "grace_over" };

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
