/*
 * GET /health: 200 while every chain can be followed, 503 as soon as one
 * is unreachable or the store cannot be read.  The body is what
 * `chainwatch status --json` says of every chain and its endpoints, with
 * the worst status first, so a load balancer and a person read the same.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "mtr.h"

/* Worst first: a chain's status weighs this much. */
static int
status_weight(const char *s)
{
	static const char *const order[] = { "ok", "degraded", "stalled",
	    "unreachable" };

	for (int i = 0; i < 4; i++)
		if (strcmp(order[i], s) == 0)
			return i;
	return 3;
}

/*
 * A stalled chain answers 200: its endpoints answer and chainwatch does
 * its job, it is the chain that produces no block.  Restarting or
 * draining chainwatch would not help; alert on chainwatch_chain_status.
 */
unsigned
mtr_health(const struct mtr_snap *s, struct buf *b)
{
	json_t		*o = json_object(), *chains, *c;
	const char	*worst = "ok", *st;
	unsigned	 code = 200;
	size_t		 i;
	char		*text;

	chains = s->status != NULL ? json_object_get(s->status, "chains") :
	    NULL;
	if (!s->store_up || !json_is_array(chains)) {
		worst = "unknown";
		code = 503;
		chains = NULL;
	}
	json_array_foreach(chains, i, c) {
		st = json_string_value(json_object_get(c, "status"));
		if (st == NULL)
			st = "unknown";
		if (status_weight(st) > status_weight(worst))
			worst = st;
		if (status_weight(st) >= 3)
			code = 503;
	}
	json_object_set_new(o, "status", json_string(worst));
	json_object_set_new(o, "chainwatchd", json_boolean(s->sup_up));
	json_object_set_new(o, "store", json_boolean(s->store_up));
	if (!s->store_up)
		json_object_set_new(o, "error",
		    json_string("the store cannot be read"));
	if (chains != NULL)
		json_object_set(o, "chains", chains);
	else
		json_object_set_new(o, "chains", json_array());
	text = json_dumps(o, JSON_INDENT(2));
	json_decref(o);
	if (text != NULL) {
		buf_add(b, text, strlen(text));
		buf_add(b, "\n", 1);
		free(text);
	}
	return code;
}
