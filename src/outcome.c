/*
 * Names of the outcome classes, shared by logs, IPC, the store and the
 * CLI so that one class is spelled one way everywhere.
 */
#include "config.h"

#include <string.h>

#include "outcome.h"

static const char *const outcome_names[OUTCOME_COUNT] = {
	[OUTCOME_OK] = "ok",
	[OUTCOME_ABSENT] = "absent",
	[OUTCOME_RPC_ERROR] = "rpc_error",
	[OUTCOME_HTTP_4XX] = "http_4xx",
	[OUTCOME_RATE_LIMITED] = "rate_limited",
	[OUTCOME_HTTP_5XX] = "http_5xx",
	[OUTCOME_TRANSPORT] = "transport",
	[OUTCOME_TIMEOUT] = "timeout",
	[OUTCOME_MALFORMED] = "malformed",
	[OUTCOME_TOO_LARGE] = "too_large",
};

const char *
outcome_name(enum outcome o)
{
	if ((unsigned)o >= OUTCOME_COUNT)
		return "?";
	return outcome_names[o];
}

int
outcome_parse(const char *s, enum outcome *out)
{
	for (unsigned i = 0; i < OUTCOME_COUNT; i++)
		if (strcmp(s, outcome_names[i]) == 0) {
			*out = (enum outcome)i;
			return 0;
		}
	return -1;
}

int
outcome_is_failure(enum outcome o)
{
	switch (o) {
	case OUTCOME_HTTP_5XX:
	case OUTCOME_TRANSPORT:
	case OUTCOME_TIMEOUT:
	case OUTCOME_MALFORMED:
	case OUTCOME_TOO_LARGE:
		return 1;
	default:
		return 0;
	}
}
