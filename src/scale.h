/*
 * SCALE, the Substrate wire codec: compact integers and a bounded writer
 * and reader over byte buffers.  Readers never read past their end.
 */
#ifndef CW_SCALE_H
#define CW_SCALE_H

#include <stddef.h>
#include <stdint.h>

struct scale_wr {
	uint8_t	*buf;
	size_t	 cap;
	size_t	 len;
	int	 overflow;	/* set once a write did not fit; len stops */
};

struct scale_rd {
	const uint8_t	*buf;
	size_t		 len;
	size_t		 pos;
};

void	scale_wr_init(struct scale_wr *, uint8_t *, size_t);
void	scale_put_bytes(struct scale_wr *, const void *, size_t);
void	scale_put_u8(struct scale_wr *, uint8_t);
void	scale_put_u32(struct scale_wr *, uint32_t);	/* little-endian */
void	scale_put_u64(struct scale_wr *, uint64_t);
void	scale_put_compact(struct scale_wr *, uint64_t);

void	scale_rd_init(struct scale_rd *, const uint8_t *, size_t);
/* Each returns 0, or -1 when the input is short or not canonical. */
int	scale_get_bytes(struct scale_rd *, void *, size_t);
int	scale_get_u8(struct scale_rd *, uint8_t *);
int	scale_get_u32(struct scale_rd *, uint32_t *);
int	scale_get_u64(struct scale_rd *, uint64_t *);
int	scale_get_compact(struct scale_rd *, uint64_t *);

/* Bytes a compact encoding of v takes. */
size_t	scale_compact_len(uint64_t v);

#endif
