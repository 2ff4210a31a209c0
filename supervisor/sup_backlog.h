/*
 * What workers deliver while the store is blocked (sup_backlog.c): their
 * messages, kept in memory in the order they came, up to a cap in bytes
 * and in messages.  A plain FIFO: who reads the sockets and who
 * dispatches the messages is decided above it (sup_spawn.c).
 */
#ifndef CW_SUP_BACKLOG_H
#define CW_SUP_BACKLOG_H

#include <stddef.h>
#include <stdint.h>

#define BACKLOG_MAX_BYTES	(16 * 1024 * 1024)
#define BACKLOG_MAX_MSGS	20000

struct backlog_msg {
	struct backlog_msg	*next;
	const void		*owner;		/* the worker */
	size_t			 len;
	char			 data[];
};

void	backlog_push(const void *owner, const void *buf, size_t len);
/* The oldest message, taken out: the caller frees it. */
struct backlog_msg *backlog_pop(void);
/* Forget every message of owner (a worker gone or not trusted). */
void	backlog_drop(const void *owner);
int	backlog_empty(void);
int	backlog_full(void);
/* Under half the cap again: reading may resume. */
int	backlog_low(void);
size_t	backlog_count(void);
size_t	backlog_bytes(void);

#endif
