/*
 * WebSocket handshake keys and base64, for both ends of a WebSocket.
 */
#include "config.h"

#include <string.h>

#include <sodium.h>

#include "sha1.h"
#include "wskey.h"

#define WS_GUID		"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

/*
 * libsodium's encoder is a pure function of its input: it needs no
 * sodium_init(), so neither do the programs that only shake hands.
 */
void
base64_encode(const uint8_t *in, size_t len, char *out)
{
	sodium_bin2base64(out, sodium_base64_ENCODED_LEN(len,
	    sodium_base64_VARIANT_ORIGINAL), in, len,
	    sodium_base64_VARIANT_ORIGINAL);
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
