/*
 * Writing to a worker never blocks the supervisor: what its socket does
 * not take now waits in the queue, in order, until it is writable.  A
 * worker that is gone loses what was queued; its death is told by the
 * reaper, not here.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "chainwatchd.h"
#include "log.h"
#include "sup_chan.h"

static void
write_cb(struct ev_loop *loop, ev_io *io, int revents)
{
	struct chan	*c = io->data;

	if (msgq_flush(&c->outq, c->fd) != 1)
		ev_io_stop(loop, io);
}

void
chan_init(struct chan *c, const char *name,
    void (*read_cb)(struct ev_loop *, ev_io *, int), void *data)
{
	c->fd = -1;
	c->name = name;
	msgq_init(&c->outq);
	ev_init(&c->io_r, read_cb);
	c->io_r.data = data;
	ev_init(&c->io_w, write_cb);
	c->io_w.data = c;
}

/* A new socket: reading starts now; what was queued goes first. */
void
chan_open(struct chan *c, int fd)
{
	c->fd = fd;
	ev_io_set(&c->io_r, fd, EV_READ);
	ev_io_start(sup_loop, &c->io_r);
	ev_io_set(&c->io_w, fd, EV_WRITE);
}

void
chan_send(struct chan *c, struct msgbuf *mb)
{
	if (msgq_push(&c->outq, mb) == -1) {
		log_warnx("w/%s: internal: message over %d bytes not sent",
		    c->name, MSG_MAX);
		return;
	}
	if (c->fd == -1)
		return;
	switch (msgq_flush(&c->outq, c->fd)) {
	case 1:
		ev_io_start(sup_loop, &c->io_w);
		break;
	case -1:
		log_debug("w/%s: send: %s", c->name, strerror(errno));
		msgq_clear(&c->outq);
		break;
	}
}

/* The peer closed its end: stop watching until the socket is closed. */
void
chan_quiet(struct chan *c)
{
	ev_io_stop(sup_loop, &c->io_r);
	ev_io_stop(sup_loop, &c->io_w);
}

void
chan_close(struct chan *c)
{
	chan_quiet(c);
	if (c->fd != -1)
		close(c->fd);
	c->fd = -1;
	msgq_clear(&c->outq);
}
