/*
 * A growable byte buffer for building JSON answers without a DOM: the
 * devnode writes most of its output by hand because it is on the hot path
 * of every benchmark that talks to it.
 */
#ifndef DEV_BUF_H
#define DEV_BUF_H

#include <stddef.h>
#include <stdint.h>

struct dev_buf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

void	 dev_buf_init(struct dev_buf *);
void	 dev_buf_free(struct dev_buf *);
void	 dev_buf_reset(struct dev_buf *);
void	 dev_buf_reserve(struct dev_buf *, size_t);
void	 dev_buf_add(struct dev_buf *, const void *, size_t);
void	 dev_buf_adds(struct dev_buf *, const char *);
void	 dev_buf_addc(struct dev_buf *, char);
void	 dev_buf_addf(struct dev_buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* "0x" and lower-case hex of the bytes, quoted when quote is set. */
void	 dev_buf_addhex(struct dev_buf *, const uint8_t *, size_t, int quote);
/* A quoted JSON quantity: "0x1f". */
void	 dev_buf_addqty(struct dev_buf *, uint64_t);
/* A JSON string literal with escaping. */
void	 dev_buf_addstr(struct dev_buf *, const char *);
/* Hand the bytes over (NUL-terminated); the buffer is empty afterwards. */
char	*dev_buf_release(struct dev_buf *, size_t *);

#endif
