/*
 * SHA-1, only for the WebSocket opening handshake (Sec-WebSocket-Accept):
 * libsodium has none and the handshake needs nothing stronger.
 */
#ifndef CW_SHA1_H
#define CW_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define SHA1_LEN	20

struct sha1_ctx {
	uint32_t	h[5];
	uint64_t	nbytes;
	uint8_t		buf[64];
	size_t		nbuf;
};

void	sha1_init(struct sha1_ctx *);
void	sha1_update(struct sha1_ctx *, const void *, size_t);
void	sha1_final(struct sha1_ctx *, uint8_t out[SHA1_LEN]);
void	sha1(const void *, size_t, uint8_t out[SHA1_LEN]);

#endif
