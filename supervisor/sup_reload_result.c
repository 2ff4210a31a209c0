/*
 * What a reload tells its caller (sup_reload.c fills it), freed here on
 * its own so that the control socket's unit test links the real thing.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sup_reload.h"

void
sup_reload_result_free(struct reload_result *r)
{
	for (size_t i = 0; i < r->n_errors; i++)
		free(r->errors[i]);
	for (size_t i = 0; i < r->n_warnings; i++)
		free(r->warnings[i]);
	free(r->errors);
	free(r->warnings);
	memset(r, 0, sizeof(*r));
}
