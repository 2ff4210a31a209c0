/*
 * The socket to one worker (sup_chan.c): messages out are queued and
 * written as the socket takes them; messages in are handed to the
 * owner's read callback.  Below everything that sends to workers, so
 * that sending is not a call up into the code that spawns them.
 */
#ifndef CW_SUP_CHAN_H
#define CW_SUP_CHAN_H

#include <ev.h>

#include "msg.h"

struct chan {
	int		 fd;		/* -1: closed */
	const char	*name;		/* the endpoint's, for logs */
	struct msgq	 outq;
	ev_io		 io_r, io_w;
};

void	chan_init(struct chan *, const char *name,
	    void (*read_cb)(struct ev_loop *, ev_io *, int), void *data);
void	chan_open(struct chan *, int fd);
void	chan_send(struct chan *, struct msgbuf *);
void	chan_quiet(struct chan *);
void	chan_close(struct chan *);

#endif
