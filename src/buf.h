/*
 * A growable byte buffer, for text built piece by piece: JSON answers and
 * requests, the Prometheus exposition, what is read from a socket.
 * Allocation failure is fatal (xrealloc), as everywhere in chainwatch.
 */
#ifndef CW_BUF_H
#define CW_BUF_H

#include <stdarg.h>
#include <stddef.h>

/*
 * All zeroes is an empty buffer.  After every buf_ call that changes it,
 * p is NULL or holds len bytes and a NUL, so it can be read as a string.
 */
struct buf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

void	buf_init(struct buf *);
void	buf_free(struct buf *);
/* Empty, keeping the memory for what comes next. */
void	buf_reset(struct buf *);
/* Room for n more bytes and the NUL; p is not NULL afterwards. */
void	buf_reserve(struct buf *, size_t n);
/*
 * n bytes were written at p + len by hand, after buf_reserve(n) or more:
 * count them.
 */
void	buf_added(struct buf *, size_t n);
/* Keep only the first len bytes (len at most b->len). */
void	buf_truncate(struct buf *, size_t len);

void	buf_add(struct buf *, const void *, size_t);
void	buf_adds(struct buf *, const char *);
void	buf_addc(struct buf *, char);
void	buf_addf(struct buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	buf_vaddf(struct buf *, const char *, va_list)
	    __attribute__((format(printf, 2, 0)));
/*
 * buf_add, unless it would hold more than max bytes: then -1, and nothing
 * added.  Nor does it allocate more than max + 1, so that a peer who sends
 * too much costs at most max bytes.
 */
int	buf_add_max(struct buf *, const void *, size_t, size_t max);

/* Hand the bytes over, never NULL; the buffer is empty afterwards. */
char	*buf_release(struct buf *, size_t *len);

#endif
