/*
 * Hex strings as JSON-RPC uses them: "0x"-prefixed byte strings and
 * quantities.  Decoders accept what real nodes and proxies send.
 */
#ifndef CW_HEX_H
#define CW_HEX_H

#include <stddef.h>
#include <stdint.h>

/* "0x" + 2*len digits + NUL: out must hold 2*len + 3 bytes. */
void	hex_encode(const uint8_t *in, size_t len, char *out);

/*
 * Exactly len bytes from s ("0x" optional, either case).  Returns 0, or -1
 * on a wrong length or a non-hex digit.
 */
int	hex_decode(const char *s, uint8_t *out, size_t len);

/*
 * Any number of bytes: *outlen gets the count.  -1 on odd length, bad
 * digit or more than cap bytes.
 */
int	hex_decode_var(const char *s, uint8_t *out, size_t cap, size_t *outlen);

/* A quantity "0x1f" / "0x001f" (minimal or zero-padded), at most 64 bits. */
int	hex_parse_u64(const char *s, uint64_t *out);

/* A quantity in minimal form: "0x0", "0x1f".  out must hold 19 bytes. */
void	hex_format_u64(uint64_t v, char *out);

#endif
