/*
 * Helpers shared by the codec unit tests: load the vector files from
 * $top_srcdir/tests/vectors and turn their hex strings into bytes and felts.
 */
#ifndef TEST_CODEC_VEC_H
#define TEST_CODEC_VEC_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* The parsed file (a new reference), or NULL after saying why. */
json_t		*vec_load(const char *name);
/* A member that must be there, of the right type. */
json_t		*vec_get(const json_t *, const char *key);
const char	*vec_str(const json_t *, const char *key);
json_t		*vec_array(const json_t *, const char *key);
/* Hex ("0x" optional) into exactly len bytes / at most cap bytes. */
void		 vec_hex(const char *, uint8_t *out, size_t len);
size_t		 vec_hexvar(const char *, uint8_t *out, size_t cap);
/* A "0x..." u64, parsed with strtoull (not with the code under test). */
uint64_t	 vec_u64(const json_t *);
/* An array of u64 strings; returns the count (at most cap). */
size_t		 vec_felts(const json_t *, uint64_t *out, size_t cap);

#endif
