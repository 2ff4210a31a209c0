/*
 * Values as both chainwatch(1) and chainwatch-metrics show them: times in
 * ISO 8601 UTC and as ages for people, and JSON values that may be null.
 */
#include "config.h"

#include <stdio.h>
#include <time.h>

#include <jansson.h>

#include "view.h"

void
view_time_iso(int64_t ms, char *out, size_t outlen)
{
	struct tm	 tm;
	time_t		 t;

	/* Floor, so that times before 1970 do not round toward it. */
	t = (time_t)(ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000));
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(out, outlen, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(out, outlen, "?");
}

void
view_span(int64_t ms, char *out, size_t outlen)
{
	int64_t	 s;

	if (ms < 0)
		ms = -ms;
	s = ms / 1000;
	/* Under 10 s, a part of a second is kept: 500 ms, not 0 s. */
	if (ms < 10000 && ms % 1000 != 0)
		snprintf(out, outlen, "%lld ms", (long long)ms);
	else if (s < 120)
		snprintf(out, outlen, "%lld s", (long long)s);
	else if (s < 120 * 60)
		snprintf(out, outlen, "%lld min", (long long)(s / 60));
	else if (s < 48 * 3600)
		snprintf(out, outlen, "%lld h", (long long)(s / 3600));
	else
		snprintf(out, outlen, "%lld d", (long long)(s / 86400));
}

/*
 * An age: a moment measured, not a duration written, so from a second on
 * in whole seconds (1 s, not 1435 ms); under a second in ms.
 */
void
view_age(int64_t ms, char *out, size_t outlen)
{
	int64_t	 a = ms < 0 ? -ms : ms;

	view_span(a >= 1000 ? a - a % 1000 : a, out, outlen);
}

void
view_ago(int64_t ms, char *out, size_t outlen)
{
	char	 span[VIEW_AGE_LEN - 8];	/* room for " ahead" */

	view_age(ms, span, sizeof(span));
	snprintf(out, outlen, "%s %s", span, ms < 0 ? "ahead" : "ago");
}

json_t *
view_jstr(const char *s)
{
	json_t	*j = s != NULL ? json_string(s) : NULL;

	return j != NULL ? j : json_null();
}

json_t *
view_jint(int has, int64_t v)
{
	return has ? json_integer(v) : json_null();
}

void
view_jtime(json_t *o, const char *name, int has, int64_t ms)
{
	char	 iso[32], key[64];

	if (has)
		view_time_iso(ms, iso, sizeof(iso));
	json_object_set_new(o, name, has ? json_string(iso) : json_null());
	snprintf(key, sizeof(key), "%s_ms", name);
	json_object_set_new(o, key, view_jint(has, ms));
}

void
view_jhead(json_t *o, const struct view_chain *ch, json_t *running)
{
	json_object_set_new(o, "chain", view_jstr(ch->name));
	json_object_set_new(o, "daemon_running", running);
	json_object_set_new(o, "best_number",
	    view_jint(ch->has_best, ch->best_number));
	json_object_set_new(o, "final_number",
	    view_jint(ch->has_final, ch->final_number));
	view_jtime(o, "as_of", ch->has_updated, ch->updated_at);
}
