/*
 * WebSocket handshake keys and base64, for both ends of a WebSocket.
 */
#include "config.h"

#include <string.h>

#include "sha1.h"
#include "wskey.h"

#define WS_GUID		"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

void
base64_encode(const uint8_t *in, size_t len, char *out)
{
	static const char	 tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint32_t		 v;
	size_t			 i;

	for (i = 0; i + 2 < len; i += 3) {
		v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		*out++ = tab[v >> 18 & 63];
		*out++ = tab[v >> 12 & 63];
		*out++ = tab[v >> 6 & 63];
		*out++ = tab[v & 63];
	}
	if (len - i == 1) {
		v = (uint32_t)in[i] << 16;
		*out++ = tab[v >> 18 & 63];
		*out++ = tab[v >> 12 & 63];
		*out++ = '=';
		*out++ = '=';
	} else if (len - i == 2) {
		v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
		*out++ = tab[v >> 18 & 63];
		*out++ = tab[v >> 12 & 63];
		*out++ = tab[v >> 6 & 63];
		*out++ = '=';
	}
	*out = '\0';
}

void
ws_accept_key(const char *key, char out[WS_ACCEPT_LEN + 1])
{
	struct sha1_ctx	s;
	uint8_t		d[SHA1_LEN];

	sha1_init(&s);
	sha1_update(&s, key, strlen(key));
	sha1_update(&s, WS_GUID, strlen(WS_GUID));
	sha1_final(&s, d);
	base64_encode(d, sizeof(d), out);
}
