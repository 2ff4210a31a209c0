/*
 * The fault table of the devnode.  Faults change rarely (a control request)
 * and are read by every request, so readers copy a small snapshot under a
 * mutex and act on the copy; percentages are spread evenly over requests
 * with a counter, so "http_500%25" fails exactly every fourth answer.
 */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev_fault.h"
#include "dev_json.h"

enum arg_kind {
	ARG_NONE,
	ARG_OPTIONAL,
	ARG_REQUIRED,
};

#define T_HTTP	(1u << TR_HTTP)
#define T_WS	(1u << TR_WS)
#define T_BOTH	(T_HTTP | T_WS)

static const struct fault_def {
	const char	*name;
	enum arg_kind	 arg;
	uint64_t	 arg_default;
	uint64_t	 arg_max;
	unsigned	 allowed;	/* targets it can apply to */
	int		 pct;		/* takes a percentage */
	uint64_t	 arg_min;
	const char	*arg_form;	/* for "needs an argument" */
} fault_defs[FAULT__COUNT] = {
	[FAULT_REFUSE] =	{ "refuse", ARG_NONE, 0, 0, T_BOTH, 0 },
	[FAULT_BLACKHOLE] =	{ "blackhole", ARG_NONE, 0, 0, T_BOTH, 1 },
	[FAULT_SLOW] =		{ "slow", ARG_REQUIRED, 0, 3600000, T_BOTH, 1, 0,
				    "slow:MS" },
	[FAULT_HTTP_500] =	{ "http_500", ARG_NONE, 0, 0, T_HTTP, 1 },
	[FAULT_HTTP_503] =	{ "http_503", ARG_NONE, 0, 0, T_HTTP, 1 },
	[FAULT_RATE_LIMIT] =	{ "rate_limit", ARG_OPTIONAL, 1, 86400, T_BOTH, 1 },
	[FAULT_MALFORMED] =	{ "malformed", ARG_NONE, 0, 0, T_BOTH, 1 },
	[FAULT_TRUNCATED] =	{ "truncated", ARG_NONE, 0, 0, T_BOTH, 1 },
	[FAULT_OVERSIZED] =	{ "oversized", ARG_OPTIONAL, 64, 4096, T_BOTH, 1, 1 },
	[FAULT_WS_DROP] =	{ "ws_drop", ARG_OPTIONAL, 0, 86400000, T_WS, 0 },
	[FAULT_WS_SILENT] =	{ "ws_silent", ARG_NONE, 0, 0, T_WS, 0 },
	[FAULT_STALL] =		{ "stall", ARG_NONE, 0, 0, T_BOTH, 0 },
	[FAULT_WRONG_GENESIS] =	{ "wrong_genesis", ARG_NONE, 0, 0, T_BOTH, 0 },
	[FAULT_SPLIT] =		{ "split", ARG_NONE, 0, 0, T_BOTH, 0 },
	[FAULT_FORGE_HEAD] =	{ "forge_head", ARG_OPTIONAL, 1000000000,
				    UINT32_MAX, T_BOTH, 1, 1 },
	[FAULT_FORGE_CHAIN] =	{ "forge_chain", ARG_REQUIRED, 0, 100000, T_BOTH,
				    1, 1, "forge_chain:K" },
	[FAULT_BAD_NUMBER] =	{ "bad_number", ARG_OPTIONAL, 50, 1000000000,
				    T_BOTH, 1, 2 },
	[FAULT_FINALIZED_OFF] =	{ "finalized_off", ARG_NONE, 0, 0, T_BOTH, 1 },
	[FAULT_WRONG_HEADER] =	{ "wrong_header", ARG_NONE, 0, 0, T_BOTH, 1 },
	[FAULT_WRONG_COUNT] =	{ "wrong_count", ARG_OPTIONAL, 0, 2, T_BOTH, 1 },
	[FAULT_BATCH_LIMIT] =	{ "batch_limit", ARG_REQUIRED, 0, 10000, T_BOTH,
				    0, 1, "batch_limit:N" },
	[FAULT_LAG] =		{ "lag", ARG_REQUIRED, 0, 1000000000, T_BOTH, 0,
				    1, "lag:N" },
	[FAULT_RESET] =		{ "reset", ARG_NONE, 0, 0, T_BOTH, 1 },
	[FAULT_BAD_SEAL] =	{ "bad_seal", ARG_NONE, 0, 0, T_BOTH, 1 },
	[FAULT_DIFFICULTY_X100] = { "difficulty_x100", ARG_NONE, 0, 0, T_BOTH,
				    1 },
	[FAULT_DIFFICULTY_DIV100] = { "difficulty_div100", ARG_NONE, 0, 0,
				    T_BOTH, 1 },
	[FAULT_TIMESTAMP_AHEAD] = { "timestamp_ahead", ARG_NONE, 0, 0, T_BOTH,
				    1 },
	[FAULT_TIMESTAMP_EARLY] = { "timestamp_early", ARG_NONE, 0, 0, T_BOTH,
				    1 },
};

struct fault_slot {
	int		on;
	uint64_t	arg;
	int		has_arg;
	unsigned	pct;
};

static pthread_mutex_t		 fault_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fault_slot	 slots[TR__COUNT][FAULT__COUNT];
static uint64_t			 stall_head[TR__COUNT];
static uint64_t			 generation = 1;
static _Atomic uint64_t		 hits[TR__COUNT][FAULT__COUNT];
static struct dev_fault_hooks	 hooks;

void
dev_fault_init(const struct dev_fault_hooks *h)
{
	hooks = *h;
}

void
dev_fault_shutdown(void)
{
	memset(&hooks, 0, sizeof(hooks));
}

int
dev_fault_forges(enum dev_fault_id id)
{
	return id == FAULT_FORGE_HEAD || id == FAULT_FORGE_CHAIN ||
	    id == FAULT_BAD_NUMBER || id == FAULT_FINALIZED_OFF ||
	    id == FAULT_BAD_SEAL;
}

const char *
dev_fault_name(enum dev_fault_id id)
{
	if ((unsigned)id >= FAULT__COUNT)
		return "?";
	return fault_defs[id].name;
}

static int
fault_err(char *err, size_t errlen, const char *fmt, const char *a,
    const char *b)
{
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, fmt, a, b);
	return -1;
}

static int
parse_u64(const char *s, uint64_t *out)
{
	char			*end;
	unsigned long long	 v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		return -1;
	*out = v;
	return 0;
}

int
dev_fault_parse(const char *text, struct dev_fault_spec *sp, char *err,
    size_t errlen)
{
	char			 buf[DEV_FAULT_SPEC_MAX];
	char			*pct, *tgt, *arg;
	const struct fault_def	*d = NULL;
	uint64_t		 v;
	unsigned		 i;

	if (strlen(text) >= sizeof(buf))
		return fault_err(err, errlen, "fault \"%s\"%s: too long",
		    text, "");
	snprintf(buf, sizeof(buf), "%s", text);
	memset(sp, 0, sizeof(*sp));
	sp->pct = 100;
	if ((pct = strrchr(buf, '%')) != NULL)
		*pct++ = '\0';
	if ((tgt = strchr(buf, '@')) != NULL)
		*tgt++ = '\0';
	if ((arg = strchr(buf, ':')) != NULL)
		*arg++ = '\0';
	for (i = 0; i < FAULT__COUNT; i++)
		if (strcmp(buf, fault_defs[i].name) == 0) {
			d = &fault_defs[i];
			sp->id = (enum dev_fault_id)i;
			break;
		}
	if (d == NULL)
		return fault_err(err, errlen, "unknown fault \"%s\"%s", buf,
		    " (see chainwatch-devnode(1))");
	if (tgt == NULL)
		sp->targets = d->allowed;
	else if (strcmp(tgt, "http") == 0)
		sp->targets = T_HTTP;
	else if (strcmp(tgt, "ws") == 0)
		sp->targets = T_WS;
	else if (strcmp(tgt, "both") == 0 || strcmp(tgt, "all") == 0)
		sp->targets = T_BOTH;
	else
		return fault_err(err, errlen,
		    "fault %s: target \"%s\" is not http, ws or both",
		    d->name, tgt);
	if ((sp->targets & ~d->allowed) != 0) {
		/* "both" of a one-transport fault means that transport. */
		if (tgt != NULL && strcmp(tgt, "both") != 0 &&
		    strcmp(tgt, "all") != 0)
			return fault_err(err, errlen,
			    "fault %s does not apply to %s", d->name, tgt);
		sp->targets &= d->allowed;
	}
	if (arg != NULL) {
		if (d->arg == ARG_NONE)
			return fault_err(err, errlen,
			    "fault %s takes no argument (\"%s\")", d->name,
			    arg);
		if (parse_u64(arg, &v) == -1 || v > d->arg_max ||
		    v < d->arg_min)
			return fault_err(err, errlen,
			    "fault %s: bad argument \"%s\"", d->name, arg);
		sp->arg = v;
		sp->has_arg = 1;
	} else if (d->arg == ARG_REQUIRED)
		return fault_err(err, errlen, "fault %s needs an argument "
		    "(%s)", d->name, d->arg_form);
	else
		sp->arg = d->arg_default;
	if (pct != NULL) {
		if (!d->pct)
			return fault_err(err, errlen,
			    "fault %s takes no percentage%s", d->name, "");
		if (parse_u64(pct, &v) == -1 || v < 1 || v > 100)
			return fault_err(err, errlen,
			    "fault %s: bad percentage \"%s\"", d->name, pct);
		sp->pct = (unsigned)v;
	}
	return 0;
}

static void
fault_changed(void)
{
	if (hooks.changed != NULL)
		hooks.changed();
}

int
dev_fault_enable(const struct dev_fault_spec *sp)
{
	uint64_t	heads[TR__COUNT] = { 0, 0 };
	unsigned	t;

	/* Hooks take the lock themselves: call them before we do. */
	if (sp->id == FAULT_WRONG_GENESIS && hooks.want_alt_chain != NULL)
		hooks.want_alt_chain();
	if (sp->id == FAULT_SPLIT && hooks.split != NULL)
		hooks.split(1);
	if (dev_fault_forges(sp->id) && hooks.forge != NULL)
		hooks.forge(sp->id, sp->arg);
	if (sp->id == FAULT_STALL && hooks.view_head != NULL)
		for (t = 0; t < TR__COUNT; t++)
			heads[t] = hooks.view_head((enum dev_transport)t);
	pthread_mutex_lock(&fault_lock);
	for (t = 0; t < TR__COUNT; t++) {
		if (!(sp->targets & (1u << t)))
			continue;
		if (sp->id == FAULT_STALL && !slots[t][sp->id].on)
			stall_head[t] = heads[t];
		slots[t][sp->id].on = 1;
		slots[t][sp->id].arg = sp->arg;
		slots[t][sp->id].has_arg = sp->has_arg;
		slots[t][sp->id].pct = sp->pct;
	}
	generation++;
	pthread_mutex_unlock(&fault_lock);
	fault_changed();
	return 0;
}

/* After the split fault went off somewhere: off everywhere, the split ends. */
static void
split_maybe_off(void)
{
	int	on;

	pthread_mutex_lock(&fault_lock);
	on = slots[TR_HTTP][FAULT_SPLIT].on || slots[TR_WS][FAULT_SPLIT].on;
	pthread_mutex_unlock(&fault_lock);
	if (!on && hooks.split != NULL)
		hooks.split(0);
}

int
dev_fault_disable(const struct dev_fault_spec *sp)
{
	unsigned	t;

	pthread_mutex_lock(&fault_lock);
	for (t = 0; t < TR__COUNT; t++)
		if (sp->targets & (1u << t))
			slots[t][sp->id].on = 0;
	generation++;
	pthread_mutex_unlock(&fault_lock);
	if (sp->id == FAULT_SPLIT)
		split_maybe_off();
	fault_changed();
	return 0;
}

void
dev_fault_clear(void)
{
	pthread_mutex_lock(&fault_lock);
	memset(slots, 0, sizeof(slots));
	generation++;
	pthread_mutex_unlock(&fault_lock);
	split_maybe_off();
	fault_changed();
}

void
dev_fault_snapshot(enum dev_transport tr, struct dev_fault_view *v)
{
	unsigned	i;

	v->tr = tr;
	v->on = 0;
	pthread_mutex_lock(&fault_lock);
	for (i = 0; i < FAULT__COUNT; i++) {
		if (slots[tr][i].on)
			v->on |= 1u << i;
		v->arg[i] = slots[tr][i].arg;
		v->pct[i] = slots[tr][i].pct;
	}
	v->stall_head = stall_head[tr];
	v->generation = generation;
	pthread_mutex_unlock(&fault_lock);
}

int
dev_fault_hit(const struct dev_fault_view *v, enum dev_fault_id id)
{
	uint64_t	n;
	unsigned	p;

	if (!dev_fault_on(v, id))
		return 0;
	p = v->pct[id];
	if (p >= 100)
		return 1;
	/* Request n is hit when floor((n+1)p/100) steps past floor(np/100). */
	n = atomic_fetch_add(&hits[v->tr][id], 1);
	return (n + 1) * p / 100 != n * p / 100;
}

/* The spec text of slot (t, i); both is folded by the callers. */
static void
slot_text(unsigned i, const struct fault_slot *s, const char *target,
    char *out, size_t outlen)
{
	char	arg[24] = "", pct[8] = "";

	if (s->has_arg || fault_defs[i].arg == ARG_REQUIRED)
		snprintf(arg, sizeof(arg), ":%llu", (unsigned long long)s->arg);
	if (s->pct < 100)
		snprintf(pct, sizeof(pct), "%%%u", s->pct);
	snprintf(out, outlen, "%s%s@%s%s", fault_defs[i].name, arg, target,
	    pct);
}

/* Calls fn for every active fault, merging equal http and ws slots. */
static void
fault_foreach(void (*fn)(const char *, void *), void *arg)
{
	struct fault_slot	copy[TR__COUNT][FAULT__COUNT];
	char			text[DEV_FAULT_SPEC_MAX + 16];
	unsigned		i;
	int			h, w;

	pthread_mutex_lock(&fault_lock);
	memcpy(copy, slots, sizeof(copy));
	pthread_mutex_unlock(&fault_lock);
	for (i = 0; i < FAULT__COUNT; i++) {
		h = copy[TR_HTTP][i].on;
		w = copy[TR_WS][i].on;
		if (h && w && copy[TR_HTTP][i].arg == copy[TR_WS][i].arg &&
		    copy[TR_HTTP][i].pct == copy[TR_WS][i].pct) {
			slot_text(i, &copy[TR_HTTP][i], "both", text,
			    sizeof(text));
			fn(text, arg);
			continue;
		}
		if (h) {
			slot_text(i, &copy[TR_HTTP][i], "http", text,
			    sizeof(text));
			fn(text, arg);
		}
		if (w) {
			slot_text(i, &copy[TR_WS][i], "ws", text, sizeof(text));
			fn(text, arg);
		}
	}
}

struct list_json {
	struct buf	*b;
	int		 n;
};

static void
add_json(const char *text, void *arg)
{
	struct list_json	*l = arg;

	if (l->n++ > 0)
		buf_addc(l->b, ',');
	dev_json_str(l->b, text);
}

void
dev_fault_list_json(struct buf *b)
{
	struct list_json	l = { b, 0 };

	buf_addc(b, '[');
	fault_foreach(add_json, &l);
	buf_addc(b, ']');
}

struct list_text {
	char	*out;
	size_t	 len;
	size_t	 pos;
};

static void
add_text(const char *text, void *arg)
{
	struct list_text	*l = arg;
	int			 n;

	if (l->pos >= l->len)
		return;
	n = snprintf(l->out + l->pos, l->len - l->pos, "%s%s",
	    l->pos > 0 ? ", " : "", text);
	if (n > 0)
		l->pos += (size_t)n;
}

void
dev_fault_list_text(char *out, size_t len)
{
	struct list_text	l = { out, len, 0 };

	if (len == 0)
		return;
	out[0] = '\0';
	fault_foreach(add_text, &l);
	if (out[0] == '\0')
		snprintf(out, len, "none");
}

#define CONTROL_SPECS_MAX	32

/* SPEC or [SPEC, ...] into specs; -1 with a reason. */
static int
control_specs(const json_t *v, const char *key, struct dev_fault_spec *specs,
    size_t *n, char *err, size_t errlen)
{
	const json_t	*e;
	size_t		 i, cnt;

	if (v == NULL)
		return 0;
	if (json_is_string(v))
		cnt = 1;
	else if (json_is_array(v))
		cnt = json_array_size(v);
	else
		return fault_err(err, errlen, "\"%s\": not a string or a list%s",
		    key, "");
	for (i = 0; i < cnt; i++) {
		e = json_is_string(v) ? v : json_array_get(v, i);
		if (!json_is_string(e))
			return fault_err(err, errlen,
			    "\"%s\": item is not a string%s", key, "");
		if (*n >= CONTROL_SPECS_MAX)
			return fault_err(err, errlen, "\"%s\": too many faults%s",
			    key, "");
		if (dev_fault_parse(json_string_value(e), &specs[*n], err,
		    errlen) == -1)
			return -1;
		(*n)++;
	}
	return 0;
}

int
dev_fault_control(const json_t *req, char *err, size_t errlen)
{
	struct dev_fault_spec	 en[CONTROL_SPECS_MAX], dis[CONTROL_SPECS_MAX];
	size_t			 nen = 0, ndis = 0, i;
	const json_t		*clear;
	const char		*key;
	json_t			*v;

	if (!json_is_object(req))
		return fault_err(err, errlen, "control request: %s%s",
		    "not a JSON object", "");
	json_object_foreach((json_t *)req, key, v) {
		if (strcmp(key, "enable") != 0 && strcmp(key, "disable") != 0 &&
		    strcmp(key, "clear") != 0)
			return fault_err(err, errlen,
			    "control request: unknown key \"%s\"%s", key,
			    " (enable, disable, clear)");
	}
	clear = json_object_get(req, "clear");
	if (clear != NULL && !json_is_boolean(clear))
		return fault_err(err, errlen, "\"clear\": %s%s",
		    "not true or false", "");
	if (control_specs(json_object_get(req, "disable"), "disable", dis,
	    &ndis, err, errlen) == -1 ||
	    control_specs(json_object_get(req, "enable"), "enable", en, &nen,
	    err, errlen) == -1)
		return -1;
	/* Clear first, then disable, then enable: a request can swap faults. */
	if (json_is_true(clear))
		dev_fault_clear();
	for (i = 0; i < ndis; i++)
		dev_fault_disable(&dis[i]);
	for (i = 0; i < nen; i++)
		dev_fault_enable(&en[i]);
	return 0;
}
