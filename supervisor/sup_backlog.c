/*
 * The in-memory backlog of worker messages that wait for the store.  It
 * is bounded so that a store blocked for hours costs a known amount of
 * memory: at the cap its owner stops reading the workers' sockets
 * (backpressure) instead of dropping anything.  Calls nothing above it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sup_backlog.h"
#include "util.h"

static struct backlog_msg	*head, **tail = &head;
static size_t			 count, bytes;

void
backlog_push(const void *owner, const void *buf, size_t len)
{
	struct backlog_msg	*m = xmalloc(sizeof(*m) + len);

	m->next = NULL;
	m->owner = owner;
	m->len = len;
	memcpy(m->data, buf, len);
	*tail = m;
	tail = &m->next;
	count++;
	bytes += len;
}

struct backlog_msg *
backlog_pop(void)
{
	struct backlog_msg	*m = head;

	if (m == NULL)
		return NULL;
	if ((head = m->next) == NULL)
		tail = &head;
	count--;
	bytes -= m->len;
	return m;
}

void
backlog_drop(const void *owner)
{
	struct backlog_msg	**pp = &head, *m;

	while ((m = *pp) != NULL) {
		if (m->owner != owner) {
			pp = &m->next;
			continue;
		}
		*pp = m->next;
		count--;
		bytes -= m->len;
		free(m);
	}
	/* The tail is the last next pointer left. */
	for (tail = &head; *tail != NULL; tail = &(*tail)->next)
		;
}

int
backlog_empty(void)
{
	return head == NULL;
}

int
backlog_full(void)
{
	return bytes >= BACKLOG_MAX_BYTES || count >= BACKLOG_MAX_MSGS;
}

int
backlog_low(void)
{
	return bytes < BACKLOG_MAX_BYTES / 2 && count < BACKLOG_MAX_MSGS / 2;
}

size_t
backlog_count(void)
{
	return count;
}

size_t
backlog_bytes(void)
{
	return bytes;
}
