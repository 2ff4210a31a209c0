/*
 * JSON written without a DOM, into a struct buf (src/buf.h): the devnode
 * writes most of its output by hand because it is on the hot path of
 * every benchmark that talks to it.
 */
#ifndef DEV_JSON_H
#define DEV_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* "0x" and lower-case hex of the bytes, quoted when quote is set. */
void	 dev_json_hex(struct buf *, const uint8_t *, size_t, int quote);
/* A quoted JSON quantity: "0x1f". */
void	 dev_json_qty(struct buf *, uint64_t);
/* A JSON string literal with escaping. */
void	 dev_json_str(struct buf *, const char *);

#endif
