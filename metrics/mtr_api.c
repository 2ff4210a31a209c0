/*
 * /api/v1/: the store as JSON for programs, through the serializers that
 * chainwatch --json uses (libcwview.a).  Pure of HTTP: a route and its
 * parameters in, a status, a body and how long it may be cached out.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "account.h"
#include "hex.h"
#include "mtr.h"
#include "util.h"
#include "view.h"

#define API_PREFIX	"/api/v1/"
#define API_NAME_MAX	64		/* a chain's name in a path */

/* The error body: {"error": {"code": ..., "message": ...}}. */
static unsigned
api_error(struct mtr_api_answer *a, unsigned status, const char *code,
    const char *fmt, ...)
{
	json_t	*root, *err;
	char	 msg[512];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err = json_object();
	json_object_set_new(err, "code", json_string(code));
	json_object_set_new(err, "message", view_jstr(msg));
	json_object_set_new(err, "status", json_integer(status));
	root = json_object();
	json_object_set_new(root, "error", err);
	a->body = root;
	a->status = status;
	a->max_age = 0;
	return status;
}

/* A decimal parameter within [min, max]; absent leaves *v alone. */
static int
api_param_int(struct mtr_api_answer *a, const struct mtr_api_req *r,
    const char *name, int64_t min, int64_t max, int64_t *v)
{
	const char	*s;
	char		*end;
	long long	 n;

	if ((s = r->param(r->cls, name)) == NULL)
		return 0;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || n < min || n > max ||
	    !(s[0] >= '0' && s[0] <= '9')) {
		api_error(a, 400, "bad_parameter", "%s: not a whole number "
		    "from %lld to %lld", name, (long long)min, (long long)max);
		return -1;
	}
	*v = n;
	return 0;
}

/* Every parameter given must be one the route knows. */
static int
api_params_known(struct mtr_api_answer *a, const struct mtr_api_req *r,
    const char *const *known)
{
	const char	*bad;
	size_t		 i;

	if ((bad = r->unknown(r->cls, known)) == NULL)
		return 0;
	for (i = 0; bad[i] != '\0' && i < 40; i++)
		;
	api_error(a, 400, "unknown_parameter", "unknown parameter %.*s%s",
	    (int)i, bad, bad[i] != '\0' ? "..." : "");
	return -1;
}

/* The chain's block time in seconds, for Cache-Control (1 at least). */
static int64_t
api_block_secs(struct view_db *c, int64_t chain_id)
{
	sqlite3_stmt	*st;
	int64_t		 ms = 0;

	if (sqlite3_prepare_v2(c->db, "SELECT min(block_time) FROM chains"
	    " WHERE ?1 = 0 OR id = ?1", -1, &st, NULL) != SQLITE_OK)
		return 1;
	sqlite3_bind_int64(st, 1, chain_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		ms = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return ms >= 2000 ? ms / 1000 : 1;
}

/* A view's answer about chain ch: 200, cached for a block time. */
static void
api_answer(struct mtr_api_answer *a, struct view_db *c,
    const struct view_chain *ch, json_t *body)
{
	a->body = body;
	a->status = 200;
	a->max_age = api_block_secs(c, ch->id);
}

/* An exit code of a view as the API says it. */
static unsigned
api_view_failed(struct mtr_api_answer *a, int rc, const char *chain)
{
	if (rc == CW_EXIT_USAGE)
		return api_error(a, 404, "unknown_chain", "no chain %s in the "
		    "store", chain);
	return api_error(a, 503, "store_unreadable", "the store cannot be "
	    "read now; see the log of chainwatch-metrics");
}

static unsigned
api_status(struct mtr_api_answer *a, struct view_db *c, const char *chain)
{
	static const char *const known[] = { NULL };
	json_t	*j;
	int	 rc;

	if (api_params_known(a, &a->req, known) == -1)
		return a->status;
	if ((rc = view_status_json(c, chain, &j)) != CW_EXIT_OK)
		return api_view_failed(a, rc, chain);
	a->body = j;
	a->status = 200;
	a->max_age = api_block_secs(c, 0);
	return 200;
}

static unsigned
api_standings(struct mtr_api_answer *a, struct view_db *c, const char *chain)
{
	static const char *const known[] = { "window", "limit", "offset",
	    "final", NULL };
	struct view_chain	*chains;
	const struct view_chain	*ch;
	struct view_standings	 s;
	enum view_window	 w = VIEW_WINDOW_24H;
	const char		*ws;
	int64_t			 limit = 100, offset = 0, final = 0;
	size_t			 n;
	int			 rc, stale = 0;
	char			 last[64];

	if (api_params_known(a, &a->req, known) == -1 ||
	    api_param_int(a, &a->req, "limit", 1, MTR_API_LIMIT_MAX,
	    &limit) == -1 ||
	    api_param_int(a, &a->req, "offset", 0, MTR_API_OFFSET_MAX,
	    &offset) == -1 ||
	    api_param_int(a, &a->req, "final", 0, 1, &final) == -1)
		return a->status;
	if ((ws = a->req.param(a->req.cls, "window")) != NULL) {
		for (w = 0; w < VIEW_NWINDOWS; w++)
			if (strcmp(ws, view_window_name[w]) == 0)
				break;
		if (w == VIEW_NWINDOWS)
			return api_error(a, 400, "bad_parameter", "window: "
			    "not 1h, 24h, 7d or all");
	}
	if ((rc = view_chains_begin(c, chain, &chains, &n, &ch)) !=
	    CW_EXIT_OK)
		return api_view_failed(a, rc, chain);
	rc = view_standings_load(c, ch, w, (int)final, a->req.now, &s);
	if (rc == CW_EXIT_OK &&
	    (stale = view_chain_stale(c, ch, last, sizeof(last))) == -1)
		rc = CW_EXIT_SYSTEM;
	if (rc == CW_EXIT_OK)
		api_answer(a, c, ch, view_standings_json(ch, w, (int)final, &s,
		    (size_t)offset, (size_t)limit, stale, last, json_null()));
	view_db_end(c);
	view_standings_free(&s);
	view_chains_free(chains, n);
	return rc == CW_EXIT_OK ? 200 : api_view_failed(a, rc, chain);
}

static unsigned
api_blocks(struct mtr_api_answer *a, struct view_db *c, const char *chain)
{
	static const char *const known[] = { "last", "from", "to", NULL };
	struct view_chain	*chains;
	const struct view_chain	*ch;
	struct view_blocks	 b;
	int64_t			 last = -1, from = -1, to = -1;
	size_t			 n;
	int			 rc;

	if (api_params_known(a, &a->req, known) == -1 ||
	    api_param_int(a, &a->req, "last", 1, MTR_API_BLOCKS_MAX,
	    &last) == -1 ||
	    api_param_int(a, &a->req, "from", 0, INT64_MAX / 2, &from) == -1 ||
	    api_param_int(a, &a->req, "to", 0, INT64_MAX / 2, &to) == -1)
		return a->status;
	if (last != -1 && (from != -1 || to != -1))
		return api_error(a, 400, "bad_parameter", "last, or from and "
		    "to, not both");
	if ((from == -1) != (to == -1))
		return api_error(a, 400, "bad_parameter", "from and to go "
		    "together");
	if (from != -1 && (to < from || to - from >= MTR_API_BLOCKS_MAX))
		return api_error(a, 400, "bad_parameter", "from..to: to not "
		    "below from, %d numbers at most", MTR_API_BLOCKS_MAX);
	if (last == -1 && from == -1)
		last = 20;
	if ((rc = view_chains_begin(c, chain, &chains, &n, &ch)) !=
	    CW_EXIT_OK)
		return api_view_failed(a, rc, chain);
	memset(&b, 0, sizeof(b));
	if (last == -1)
		last = 0;
	rc = view_blocks_load(c, ch, last, from, to, &b);
	if (rc == CW_EXIT_OK)
		api_answer(a, c, ch, view_blocks_json(ch, last, from, to, &b,
		    json_null()));
	view_db_end(c);
	view_blocks_free(&b);
	view_chains_free(chains, n);
	return rc == CW_EXIT_OK ? 200 : api_view_failed(a, rc, chain);
}

static unsigned
api_endpoints(struct mtr_api_answer *a, struct view_db *c, const char *chain)
{
	static const char *const known[] = { NULL };
	struct view_chain	*chains;
	const struct view_chain	*ch;
	struct view_eps		 e;
	size_t			 n;
	int			 rc;

	if (api_params_known(a, &a->req, known) == -1)
		return a->status;
	if ((rc = view_chains_begin(c, chain, &chains, &n, &ch)) !=
	    CW_EXIT_OK)
		return api_view_failed(a, rc, chain);
	memset(&e, 0, sizeof(e));
	if ((rc = view_eps_load(c, ch, a->req.now, &e)) == CW_EXIT_OK)
		api_answer(a, c, ch, view_eps_json(&e, 1, json_null()));
	view_db_end(c);
	view_eps_free(&e);
	view_chains_free(chains, n);
	return rc == CW_EXIT_OK ? 200 : api_view_failed(a, rc, chain);
}

static unsigned
api_forks(struct mtr_api_answer *a, struct view_db *c, const char *chain)
{
	static const char *const known[] = { "splits", NULL };
	struct view_chain	*chains;
	const struct view_chain	*ch;
	struct view_forks	 f;
	int64_t			 splits = 20;
	size_t			 n;
	int			 rc;

	if (api_params_known(a, &a->req, known) == -1 ||
	    api_param_int(a, &a->req, "splits", 0, MTR_API_LIMIT_MAX,
	    &splits) == -1)
		return a->status;
	if ((rc = view_chains_begin(c, chain, &chains, &n, &ch)) !=
	    CW_EXIT_OK)
		return api_view_failed(a, rc, chain);
	memset(&f, 0, sizeof(f));
	rc = view_forks_load(c, ch, a->req.now, splits, &f);
	if (rc == CW_EXIT_OK) {
		a->body = json_object();
		json_object_set_new(a->body, "daemon_running", json_null());
		json_object_set_new(a->body, "chains",
		    json_pack("[o]", view_forks_json(&f)));
		a->status = 200;
		a->max_age = api_block_secs(c, ch->id);
	}
	view_db_end(c);
	view_forks_free(&f);
	view_chains_free(chains, n);
	return rc == CW_EXIT_OK ? 200 : api_view_failed(a, rc, chain);
}

static unsigned
api_reorgs(struct mtr_api_answer *a, struct view_db *c, const char *chain)
{
	static const char *const known[] = { "limit", NULL };
	struct view_chain	*chains;
	const struct view_chain	*ch;
	struct view_reorg	*r = NULL;
	int64_t			 limit = 20;
	size_t			 n, nr = 0;
	int			 rc;

	if (api_params_known(a, &a->req, known) == -1 ||
	    api_param_int(a, &a->req, "limit", 1, MTR_API_LIMIT_MAX,
	    &limit) == -1)
		return a->status;
	if ((rc = view_chains_begin(c, chain, &chains, &n, &ch)) !=
	    CW_EXIT_OK)
		return api_view_failed(a, rc, chain);
	rc = view_reorgs_load(c, ch, limit, &r, &nr);
	if (rc == CW_EXIT_OK)
		api_answer(a, c, ch, view_reorgs_json(ch, r, nr, json_null()));
	view_db_end(c);
	view_reorgs_free(r, nr);
	view_chains_free(chains, n);
	return rc == CW_EXIT_OK ? 200 : api_view_failed(a, rc, chain);
}

/*
 * A miner in a path: "0x" and 2 to 64 hex digits, or an SS58 address;
 * into its account as the store keys it, "0x" and lowercase hex.
 */
static int
api_miner_account(const char *s, char *out, size_t outlen)
{
	uint8_t		 acct[32];
	uint16_t	 prefix;
	size_t		 n;

	(void)outlen;		/* 2 * sizeof(acct) + 3 */
	if (strncmp(s, "0x", 2) == 0) {
		if (hex_decode_var(s, acct, sizeof(acct), &n) == -1 || n == 0)
			return -1;
		hex_encode(acct, n, out);
		return 0;
	}
	if (strlen(s) > 64 || ss58_decode(s, &prefix, acct) == -1)
		return -1;
	hex_encode(acct, sizeof(acct), out);
	return 0;
}

static unsigned
api_miner(struct mtr_api_answer *a, struct view_db *c, const char *chain,
    const char *miner)
{
	static const char *const known[] = { NULL };
	struct view_chain	*chains;
	const struct view_chain	*ch;
	struct view_standings	 s[VIEW_NWINDOWS];
	char			 account[2 * 32 + 3];
	size_t			 n, k;
	int			 rc = CW_EXIT_OK, w, found = 0;

	if (api_params_known(a, &a->req, known) == -1)
		return a->status;
	if (api_miner_account(miner, account, sizeof(account)) == -1)
		return api_error(a, 400, "bad_miner", "the miner is neither "
		    "an SS58 address nor 0x and hex digits");
	if ((rc = view_chains_begin(c, chain, &chains, &n, &ch)) !=
	    CW_EXIT_OK)
		return api_view_failed(a, rc, chain);
	memset(s, 0, sizeof(s));
	for (w = 0; w < VIEW_NWINDOWS && rc == CW_EXIT_OK; w++)
		rc = view_standings_load(c, ch, w, 0, a->req.now, &s[w]);
	for (k = 0; rc == CW_EXIT_OK && k < s[VIEW_WINDOW_ALL].n; k++)
		if (view_srow_is(&s[VIEW_WINDOW_ALL].rows[k], account)) {
			found = 1;
			break;
		}
	if (rc == CW_EXIT_OK && found)
		api_answer(a, c, ch, view_miner_json(ch,
		    s[VIEW_WINDOW_ALL].rows[k].name, account, s, json_null()));
	else if (rc == CW_EXIT_OK)
		api_error(a, 404, "unknown_miner", "no block of that miner "
		    "in the store");
	view_db_end(c);
	for (w = 0; w < VIEW_NWINDOWS; w++)
		view_standings_free(&s[w]);
	view_chains_free(chains, n);
	return rc == CW_EXIT_OK ? a->status : api_view_failed(a, rc, chain);
}

unsigned
mtr_api(struct view_db *c, struct mtr_api_answer *a)
{
	const char	*p = a->req.path, *slash;
	char		 name[API_NAME_MAX + 1];
	size_t		 len;

	a->body = NULL;
	a->max_age = 0;
	if (c == NULL)
		return api_view_failed(a, CW_EXIT_SYSTEM, NULL);
	if (strncmp(p, API_PREFIX, strlen(API_PREFIX)) != 0)
		return api_error(a, 404, "unknown_route", "no such route; "
		    "see the OpenAPI document");
	p += strlen(API_PREFIX);
	if (strcmp(p, "chains") == 0)
		return api_status(a, c, NULL);
	if (strncmp(p, "chains/", 7) != 0)
		return api_error(a, 404, "unknown_route", "no such route; "
		    "see the OpenAPI document");
	p += 7;
	slash = strchr(p, '/');
	len = slash != NULL ? (size_t)(slash - p) : strlen(p);
	if (len == 0 || len > API_NAME_MAX)
		return api_error(a, 404, "unknown_chain", "no chain of that "
		    "name in the store");
	memcpy(name, p, len);
	name[len] = '\0';
	if (slash == NULL)
		return api_status(a, c, name);
	if (strcmp(slash, "/standings") == 0)
		return api_standings(a, c, name);
	if (strcmp(slash, "/forks") == 0)
		return api_forks(a, c, name);
	if (strcmp(slash, "/reorgs") == 0)
		return api_reorgs(a, c, name);
	if (strcmp(slash, "/endpoints") == 0)
		return api_endpoints(a, c, name);
	if (strcmp(slash, "/blocks") == 0)
		return api_blocks(a, c, name);
	if (strncmp(slash, "/miners/", 8) == 0 && slash[8] != '\0' &&
	    strchr(slash + 8, '/') == NULL)
		return api_miner(a, c, name, slash + 8);
	return api_error(a, 404, "unknown_route", "no such route; see the "
	    "OpenAPI document");
}
