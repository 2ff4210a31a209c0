/*
 * Floods of one log line, held back: see logflood.h.  A window starts
 * with a template's first line and lasts LOGFLOOD_WINDOW_MS; a clock that
 * steps back starts a new one (a flood is never muted for long).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "logflood.h"

/* FNV-1a: a template's text, or a line's, and its level. */
uint64_t
logflood_key(const char *fmt, const char *line, int level)
{
	const unsigned char	*p;
	uint64_t		 h = 14695981039346656037ULL;

	/* "%s" says nothing of what is logged: the line itself does. */
	p = (const unsigned char *)(strcmp(fmt, "%s") == 0 ? line : fmt);
	for (; *p != '\0'; p++) {
		h ^= *p;
		h *= 1099511628211ULL;
	}
	return h ^ (uint64_t)level;
}

static void
report(struct logflood_slot *s, struct logflood_report *r)
{
	r->level = s->level;
	r->n = s->held;
	r->span_ms = s->held_last_ms - s->held_first_ms;
	memcpy(r->sample, s->sample, sizeof(r->sample));
	s->held = 0;
}

static int
window_over(const struct logflood_slot *s, uint64_t now_ms)
{
	return now_ms < s->start_ms ||
	    now_ms - s->start_ms >= LOGFLOOD_WINDOW_MS;
}

/* The slot of key, or one to take: free, else the least recent. */
static struct logflood_slot *
slot_of(struct logflood *f, uint64_t key, struct logflood_report *evicted)
{
	struct logflood_slot	*s, *lru = NULL;

	for (size_t i = 0; i < LOGFLOOD_SLOTS; i++) {
		s = &f->slot[i];
		if (s->used && s->key == key)
			return s;
	}
	for (size_t i = 0; i < LOGFLOOD_SLOTS; i++) {
		s = &f->slot[i];
		if (!s->used) {
			lru = s;
			break;
		}
		if (lru == NULL || s->last_ms < lru->last_ms)
			lru = s;
	}
	if (lru->used && lru->held > 0)
		report(lru, evicted);
	memset(lru, 0, sizeof(*lru));
	lru->key = key;
	return lru;
}

int
logflood_pass(struct logflood *f, uint64_t key, int level, const char *line,
    uint64_t now_ms, struct logflood_report *evicted)
{
	struct logflood_slot	*s;

	evicted->n = 0;
	s = slot_of(f, key, evicted);
	s->level = level;
	s->last_ms = now_ms;
	if (!s->used || window_over(s, now_ms)) {
		/* Held lines of the window that ended stay to be told. */
		s->used = 1;
		s->start_ms = now_ms;
		s->lines = 0;
	}
	if (s->lines >= LOGFLOOD_BURST) {
		if (s->held++ == 0)
			s->held_first_ms = now_ms;
		s->held_last_ms = now_ms;
		return 0;
	}
	s->lines++;
	snprintf(s->sample, sizeof(s->sample), "%s", line);
	return 1;
}

int
logflood_take(struct logflood *f, uint64_t now_ms, int all,
    struct logflood_report *r)
{
	struct logflood_slot	*s;

	for (size_t i = 0; i < LOGFLOOD_SLOTS; i++) {
		s = &f->slot[i];
		if (s->used && s->held > 0 && (all || window_over(s, now_ms))) {
			report(s, r);
			return 1;
		}
	}
	return 0;
}
