/*
 * What every fuzz target shares: the libFuzzer entry points, which
 * fuzz/replay.c also calls so that a build without clang replays each
 * target's corpus, and quiet logging.
 */
#ifndef CW_FUZZ_H
#define CW_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

int	LLVMFuzzerInitialize(int *argc, char ***argv);
int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Errors only, unless CW_FUZZ_LOG is set: then every line, to stderr. */
static inline void
fuzz_log_init(const char *tag)
{
	log_init(1, getenv("CW_FUZZ_LOG") != NULL ? LOG_LEVEL_DEBUG :
	    LOG_LEVEL_ERROR, tag);
}

/* The input as a C string, for parsers that take one. */
static inline char *
fuzz_cstr(const uint8_t *data, size_t size)
{
	char	*s;

	if ((s = malloc(size + 1)) == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
