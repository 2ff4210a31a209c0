/*
 * Vector loading for the codec unit tests.  Hex here is parsed with its
 * own code, so a bug in hex.c cannot hide a wrong expected value.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_codec_vec.h"

json_t *
vec_load(const char *name)
{
	const char	*top = getenv("top_srcdir");
	char		 path[4096];
	json_error_t	 jerr;
	json_t		*j;

	/* The test harness exports top_srcdir; by hand, the build's. */
	if (top == NULL || *top == '\0')
		top = CW_TOP_SRCDIR;
	snprintf(path, sizeof(path), "%s/tests/vectors/%s", top, name);
	if ((j = json_load_file(path, 0, &jerr)) == NULL)
		fprintf(stderr, "%s:%d: %s\n", path, jerr.line, jerr.text);
	return j;
}

json_t *
vec_get(const json_t *o, const char *key)
{
	json_t	*v = json_object_get(o, key);

	if (v == NULL)
		fail_msg("vector has no member \"%s\"", key);
	return v;
}

const char *
vec_str(const json_t *o, const char *key)
{
	json_t	*v = vec_get(o, key);

	if (!json_is_string(v))
		fail_msg("vector member \"%s\" is not a string", key);
	return json_string_value(v);
}

json_t *
vec_array(const json_t *o, const char *key)
{
	json_t	*v = vec_get(o, key);

	if (!json_is_array(v))
		fail_msg("vector member \"%s\" is not an array", key);
	return v;
}

static int
vec_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	fail_msg("bad hex digit '%c' in a vector", c);
	return -1;
}

size_t
vec_hexvar(const char *s, uint8_t *out, size_t cap)
{
	size_t	n, i;

	if (s[0] == '0' && s[1] == 'x')
		s += 2;
	n = strlen(s);
	if (n % 2 != 0 || n / 2 > cap)
		fail_msg("vector hex of %zu digits, room for %zu bytes", n,
		    cap);
	for (i = 0; i < n / 2; i++)
		out[i] = (uint8_t)(vec_nibble(s[2 * i]) << 4 |
		    vec_nibble(s[2 * i + 1]));
	return n / 2;
}

void
vec_hex(const char *s, uint8_t *out, size_t len)
{
	size_t	n = vec_hexvar(s, out, len);

	if (n != len)
		fail_msg("vector hex of %zu bytes, want %zu", n, len);
}

uint64_t
vec_u64(const json_t *v)
{
	const char		*s;
	char			*end;
	unsigned long long	 x;

	if (!json_is_string(v))
		fail_msg("vector felt is not a string");
	s = json_string_value(v);
	errno = 0;
	x = strtoull(s, &end, 16);
	if (strncmp(s, "0x", 2) != 0 || *end != '\0' || errno != 0)
		fail_msg("vector felt \"%s\" is not a 0x u64", s);
	return x;
}

size_t
vec_felts(const json_t *a, uint64_t *out, size_t cap)
{
	size_t	i, n;

	if (!json_is_array(a))
		fail_msg("vector felts are not an array");
	n = json_array_size(a);
	if (n > cap)
		fail_msg("%zu vector felts, room for %zu", n, cap);
	for (i = 0; i < n; i++)
		out[i] = vec_u64(json_array_get(a, i));
	return n;
}
