/*
 * The class of every request's outcome, as workers report it and the
 * supervisor's health policy counts it (DESIGN.md, "Endpoint health").
 */
#ifndef CW_OUTCOME_H
#define CW_OUTCOME_H

enum outcome {
	OUTCOME_OK = 0,
	OUTCOME_ABSENT,		/* null, pruned state (4003), unknown block */
	OUTCOME_RPC_ERROR,	/* a JSON-RPC error that is not one below */
	OUTCOME_HTTP_4XX,
	OUTCOME_RATE_LIMITED,	/* HTTP 429, JSON-RPC -32999 */
	OUTCOME_HTTP_5XX,
	OUTCOME_TRANSPORT,	/* refused, reset, DNS, TLS */
	OUTCOME_TIMEOUT,
	OUTCOME_MALFORMED,	/* not JSON, not JSON-RPC, undecodable header */
	OUTCOME_TOO_LARGE,	/* the answer passed the size cap */
	OUTCOME_COUNT
};

const char *outcome_name(enum outcome);
int	outcome_parse(const char *, enum outcome *);
/* 1 for the classes that count against an endpoint's health. */
int	outcome_is_failure(enum outcome);

#endif
