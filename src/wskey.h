/*
 * The WebSocket opening handshake's key check (RFC 6455, 4.2.2), shared
 * by the worker's client and the devnode's server, and base64.
 */
#ifndef CW_WSKEY_H
#define CW_WSKEY_H

#include <stddef.h>
#include <stdint.h>

#define WS_ACCEPT_LEN	28	/* base64 of a SHA-1, without the NUL */

/* Sec-WebSocket-Accept for a Sec-WebSocket-Key. */
void	ws_accept_key(const char *key, char out[WS_ACCEPT_LEN + 1]);

/*
 * Standard base64 with padding (libsodium's), NUL-terminated; out holds
 * 4 * ((len + 2) / 3) + 1 bytes.
 */
void	base64_encode(const uint8_t *, size_t, char *out);

#endif
