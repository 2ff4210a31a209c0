/*
 * The status page at /: per chain its status, its endpoints with a
 * timeline of their last 24 hours, the standings of each window with a
 * share chart and the hashrate, hashrate, difficulty and block time over
 * the last day, the last reorganisations and forks.  Plain HTML and
 * inline SVG from the store, read through libcwview.a: no script, nothing
 * fetched from elsewhere, a layout that fits a phone, and a refresh every
 * MTR_PAGE_REFRESH seconds.  Every string from the store is escaped.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "hashrate.h"
#include "mtr.h"
#include "u512.h"
#include "util.h"
#include "view.h"

#define PAGE_DAY	(86400 * 1000LL)
#define PAGE_HOUR	(3600 * 1000LL)
#define PAGE_BUCKETS	96	/* 15 min each over the day */
#define PAGE_SLICES	8	/* miners in a share chart, then "others" */
#define PAGE_EVENTS	30	/* events listed under the timelines */
#define PAGE_REORGS	10
#define PAGE_SPLITS	10
#define PAGE_BLOCKS	10	/* heights of the last blocks listed */
#define TL_W		1000	/* timeline and share bar view box width */
#define CH_W		400	/* a chart's view box */
#define CH_H		160

static const char page_css[] =
    "body{font-family:sans-serif;margin:0 auto;padding:0 .8em;"
    "max-width:60em;color:#222;background:#fafafa}"
    "h1{font-size:1.4em}h2{font-size:1.25em;border-top:2px solid #ccc;"
    "padding-top:.6em}h3{font-size:1.05em}h4{font-size:.95em;margin:.8em 0 .3em}"
    ".wrap{overflow-x:auto}"
    "table{border-collapse:collapse;font-size:.9em;margin:.3em 0}"
    "th,td{padding:.15em .5em;text-align:left;border-bottom:1px solid #ddd;"
    "white-space:nowrap}td.n{text-align:right}"
    ".status{padding:.1em .5em;border-radius:.3em;color:#fff;font-size:.85em}"
    ".s-ok{background:#2e7d32}.s-degraded{background:#ef6c00}"
    ".s-stalled{background:#c62828}.s-unreachable{background:#6d0000}"
    ".sw{display:inline-block;width:.8em;height:.8em;margin-right:.3em}"
    "svg{display:block;width:100%;height:auto;background:#fff;"
    "border:1px solid #ddd}"
    ".tl{margin:.2em 0}.tl span{font-size:.85em}"
    ".charts{display:flex;flex-wrap:wrap;gap:.8em}"
    ".charts div{flex:1 1 18em;min-width:0}"
    ".muted{color:#777;font-size:.85em}"
    "details{margin:.4em 0;font-size:.9em}"
    "tr.unproven td{background:#fde0dc}";

/*
 * Endpoint states as the daemon stores them (endpoint_health), and their
 * colours; the last one is for the rest.  The legend lists them all.
 */
static const struct {
	const char	*state, *colour;
} state_colour[] = {
	{ "closed", "#2e7d32" }, { "half-open", "#f9a825" },
	{ "open", "#c62828" }, { "unresponsive", "#d81b60" },
	{ "down", "#4e342e" }, { "quarantined", "#6a1b9a" },
	{ "inconsistent", "#ef6c00" }, { "unknown", "#9e9e9e" },
	{ NULL, "#9e9e9e" },
};

static const char *const palette[PAGE_SLICES + 1] = {
	"#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#c62828",
	"#9e9d24", "#5d4037", "#9e9e9e",
};

static const char *const window_title[VIEW_NWINDOWS] = {
	[VIEW_WINDOW_ALL] = "All blocks",
	[VIEW_WINDOW_1H] = "Last hour",
	[VIEW_WINDOW_24H] = "Last 24 hours",
	[VIEW_WINDOW_7D] = "Last 7 days",
};
static const enum view_window page_windows[] = {
	VIEW_WINDOW_1H, VIEW_WINDOW_24H, VIEW_WINDOW_7D, VIEW_WINDOW_ALL,
};

/* s as HTML text or an attribute value: & < > " ' escaped. */
static void
esc(struct buf *b, const char *s)
{
	for (; s != NULL && *s != '\0'; s++) {
		switch (*s) {
		case '&':
			buf_adds(b, "&amp;");
			break;
		case '<':
			buf_adds(b, "&lt;");
			break;
		case '>':
			buf_adds(b, "&gt;");
			break;
		case '"':
			buf_adds(b, "&quot;");
			break;
		case '\'':
			buf_adds(b, "&#39;");
			break;
		default:
			buf_addc(b, *s);
		}
	}
}

static const char *
colour_of(const char *state)
{
	size_t	 i;

	for (i = 0; state_colour[i].state != NULL; i++)
		if (strcmp(state_colour[i].state, state) == 0)
			break;
	return state_colour[i].colour;
}

static void
ago(struct buf *b, int64_t now, int64_t at)
{
	char	 age[VIEW_AGE_LEN];

	view_ago(now - at, age, sizeof(age));
	buf_adds(b, age);
}

/* x of time t on a view box TL_W wide spanning [since, now]. */
static double
tl_x(int64_t t, int64_t since, int64_t now)
{
	if (t < since)
		t = since;
	if (t > now)
		t = now;
	return (double)(t - since) * TL_W / (double)(now - since);
}

/*
 * An endpoint's shown state along its events, as chainwatchd derives it
 * (ep_shown in supervisor/sup_endpoint.c): a trouble of its availability
 * (down, quarantined, inconsistent, unresponsive) outweighs its breaker
 * (closed, open, half-open).  The kinds are those sup_health.c and
 * sup_spawn.c write to endpoint_events.  A breaker starts closed.
 */
struct tl_state {
	const char	*brk;		/* closed, open, half-open */
	const char	*av;		/* a trouble, or NULL */
};

static const char *
tl_shown(const struct tl_state *t)
{
	return t->av != NULL ? t->av : t->brk;
}

static const char *const tl_brk[] = { "closed", "open", "half-open" };
static const char *const tl_trouble[] = { "quarantined", "inconsistent",
    "unresponsive" };
static const char *const tl_over[] = { "released", "consistent", "answering",
    "ready", "stopped" };

static int
tl_in(const char *kind, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(kind, v[i]) == 0)
			return 1;
	return 0;
}

#define TL_IN(kind, v)	tl_in(kind, v, sizeof(v) / sizeof(v[0]))

/* Does the kind name a state (drawn as a span, no tick)? */
static int
tl_names_state(const char *kind)
{
	return TL_IN(kind, tl_brk) || TL_IN(kind, tl_trouble);
}

/* One event applied; kinds are compared, the state keeps the literal. */
static void
tl_step(struct tl_state *t, const char *kind)
{
	for (size_t i = 0; i < sizeof(tl_brk) / sizeof(tl_brk[0]); i++)
		if (strcmp(kind, tl_brk[i]) == 0)
			t->brk = tl_brk[i];
	for (size_t i = 0; i < sizeof(tl_trouble) / sizeof(tl_trouble[0]); i++)
		if (strcmp(kind, tl_trouble[i]) == 0)
			t->av = tl_trouble[i];
	/* A worker that died or hung is down until it is ready again. */
	if (strcmp(kind, "died") == 0 || strcmp(kind, "hung") == 0)
		t->av = "down";
	if (TL_IN(kind, tl_over))
		t->av = NULL;
}

/* "open: 3 timeouts in a row ...", "down (died: status 1)". */
static void
tl_title(char *out, size_t outlen, const char *state, const char *kind,
    const char *detail)
{
	int	has = detail != NULL && detail[0] != '\0';

	if (strcmp(state, kind) == 0)
		snprintf(out, outlen, "%s%s%s", state, has ? ": " : "",
		    has ? detail : "");
	else
		snprintf(out, outlen, "%s (%s%s%s)", state, kind,
		    has ? ": " : "", has ? detail : "");
}

/* One span of the timeline, [from, to) in state, titled. */
static void
tl_span(struct buf *b, int64_t from, int64_t to, int64_t since, int64_t now,
    const char *state, const char *title)
{
	if (to <= from)
		return;
	buf_addf(b, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"14\" "
	    "fill=\"%s\" data-state=\"", tl_x(from, since, now),
	    tl_x(to, since, now) - tl_x(from, since, now), colour_of(state));
	esc(b, state);
	buf_adds(b, "\"><title>");
	esc(b, title);
	buf_adds(b, "</title></rect>");
}

/*
 * One endpoint's last day: a coloured span for each state it was in,
 * ticks for the other events.  Before its first state event it was
 * closed since the daemon started watching it; the last span ends in the
 * state the store shows now, from when the store says (a trouble that
 * began before the day has no event in it).
 */
static void
page_timeline(struct buf *b, const struct view_endpoint *e,
    const struct view_event *ev, size_t n, int64_t since, int64_t now)
{
	struct tl_state	 t = { "closed", NULL };
	const char	*was, *title = "closed since start";
	char		 tbuf[256];
	int64_t		 from = since, cut;
	size_t		 i;

	buf_adds(b, "<div class=\"tl\" data-endpoint=\"");
	esc(b, e->name);
	buf_adds(b, "\"><span>");
	esc(b, e->name);
	buf_addf(b, "</span><svg viewBox=\"0 0 %d 14\" "
	    "preserveAspectRatio=\"none\" role=\"img\">", TL_W);
	for (i = 0; i < n; i++) {
		if (strcmp(ev[i].endpoint, e->name) != 0)
			continue;
		was = tl_shown(&t);
		tl_step(&t, ev[i].kind);
		if (strcmp(was, tl_shown(&t)) == 0)
			continue;
		if (ev[i].at > from) {
			tl_span(b, from, ev[i].at, since, now, was, title);
			from = ev[i].at;
		}
		tl_title(tbuf, sizeof(tbuf), tl_shown(&t), ev[i].kind,
		    ev[i].detail);
		title = tbuf;
	}
	was = tl_shown(&t);
	if (strcmp(e->state, was) != 0) {
		cut = e->has_since && e->since > from ? e->since : from;
		if (cut > now)
			cut = now;
		tl_span(b, from, cut, since, now, was, title);
		from = cut;
		tl_title(tbuf, sizeof(tbuf), e->state, e->state, e->reason);
		title = tbuf;
		was = e->state;
	}
	tl_span(b, from, now, since, now, was, title);
	for (i = 0; i < n; i++) {
		if (strcmp(ev[i].endpoint, e->name) != 0 || ev[i].at < since ||
		    tl_names_state(ev[i].kind))
			continue;
		buf_addf(b, "<rect x=\"%.1f\" y=\"0\" width=\"3\" height=\"14\" "
		    "fill=\"#000\" data-event=\"", tl_x(ev[i].at, since, now));
		esc(b, ev[i].kind);
		buf_adds(b, "\"><title>");
		esc(b, ev[i].kind);
		if (ev[i].detail != NULL && ev[i].detail[0] != '\0') {
			buf_adds(b, ": ");
			esc(b, ev[i].detail);
		}
		buf_adds(b, "</title></rect>");
	}
	buf_adds(b, "</svg></div>\n");
}

static void
page_endpoints(struct buf *b, struct view_db *db,
    const struct view_verdict *v, int64_t now)
{
	struct view_event	*ev;
	size_t			 n, i, shown;
	int64_t			 since = now - PAGE_DAY;
	char			 lag[160];

	buf_adds(b, "<h3>Endpoints</h3>\n<div class=\"wrap\"><table "
	    "class=\"endpoints\"><tr><th>endpoint</th><th>state</th>"
	    "<th>since</th><th>reason</th><th>keeps up</th></tr>\n");
	for (i = 0; i < v->n_eps; i++) {
		buf_adds(b, "<tr><td>");
		esc(b, v->eps[i].name);
		buf_addf(b, "</td><td><span class=\"sw\" style=\"background:"
		    "%s\"></span>", colour_of(v->eps[i].state));
		esc(b, v->eps[i].state);
		buf_adds(b, "</td><td>");
		if (v->eps[i].has_since)
			ago(b, now, v->eps[i].since);
		buf_adds(b, "</td><td>");
		esc(b, v->eps[i].reason);
		/* How it keeps up with the chain (chainwatch endpoints). */
		view_lag_text(v->eps[i].lag, v->eps[i].lag_blocks,
		    v->eps[i].head.best_number, v->eps[i].lag_since, now, lag,
		    sizeof(lag));
		buf_addf(b, "</td><td data-condition=\"%s\">",
		    view_lag_name(v->eps[i].lag) != NULL ?
		    view_lag_name(v->eps[i].lag) : "unknown");
		esc(b, lag);
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</table></div>\n");

	if (view_events_load(db, v->ch, since, &ev, &n) != CW_EXIT_OK) {
		buf_adds(b, "<p class=\"muted\">endpoint events: cannot read "
		    "the store</p>\n");
		view_events_free(ev, n);
		return;
	}
	buf_adds(b, "<h4>The last 24 hours</h4>\n");
	for (i = 0; i < v->n_eps; i++)
		page_timeline(b, &v->eps[i], ev, n, since, now);
	buf_adds(b, "<p class=\"muted legend\">");
	for (i = 0; state_colour[i].state != NULL; i++) {
		buf_addf(b, "<span class=\"sw\" style=\"background:%s\">"
		    "</span>%s ", state_colour[i].colour,
		    state_colour[i].state);
	}
	buf_adds(b, "<span class=\"sw\" style=\"background:#000\"></span>"
	    "other events</p>\n");
	for (i = shown = 0; i < n; i++)
		shown += ev[i].at >= since;
	buf_addf(b, "<details><summary>%zu event%s in the last 24 hours"
	    "</summary><div class=\"wrap\"><table class=\"events\"><tr>"
	    "<th>when</th><th>endpoint</th><th>event</th><th>detail</th></tr>\n",
	    shown, shown == 1 ? "" : "s");
	for (i = n, shown = 0; i > 0 && shown < PAGE_EVENTS; i--) {
		if (ev[i - 1].at < since)
			continue;
		shown++;
		buf_adds(b, "<tr><td>");
		ago(b, now, ev[i - 1].at);
		buf_adds(b, "</td><td>");
		esc(b, ev[i - 1].endpoint);
		buf_adds(b, "</td><td>");
		esc(b, ev[i - 1].kind);
		buf_adds(b, "</td><td>");
		esc(b, ev[i - 1].detail);
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</table></div></details>\n");
	view_events_free(ev, n);
}

static double
row_share(const struct view_standings *s, const struct view_srow *r)
{
	return s->total_blocks > 0 ?
	    100.0 * (double)r->blocks / (double)s->total_blocks : 0.0;
}

/* A bar split by the miners' shares of the blocks, the first PAGE_SLICES. */
static void
page_share_bar(struct buf *b, const struct view_standings *s)
{
	double	 x = 0, w;
	size_t	 i;

	buf_addf(b, "<svg viewBox=\"0 0 %d 20\" preserveAspectRatio=\"none\" "
	    "role=\"img\" class=\"share\">", TL_W);
	for (i = 0; i < s->n; i++) {
		w = row_share(s, &s->rows[i]) * TL_W / 100.0;
		if (i == PAGE_SLICES)
			w = TL_W - x;
		buf_addf(b, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"20\""
		    " fill=\"%s\"><title>", x, w, palette[i < PAGE_SLICES ? i :
		    PAGE_SLICES]);
		if (i < PAGE_SLICES)
			esc(b, s->rows[i].name);
		else
			buf_adds(b, "others");
		buf_adds(b, "</title></rect>");
		x += w;
		if (i == PAGE_SLICES)
			break;
	}
	buf_adds(b, "</svg>\n");
}

/* Blocks without a miner: counted apart, as chainwatch standings does. */
static void
page_unsealed(struct buf *b, const struct view_standings *s)
{
	if (s->unsealed.blocks > 0)
		buf_addf(b, "; unsealed %lld <span class=\"muted\">(no miner "
		    "in the digest, not counted)</span>",
		    (long long)s->unsealed.blocks);
}

static void
page_standings_window(struct buf *b, struct view_db *db,
    const struct view_chain *ch, enum view_window w, int64_t now)
{
	struct view_standings	 s;
	const struct view_srow	*r;
	char			 hr[HASHRATE_LEN], span[VIEW_AGE_LEN], head[9];
	size_t			 i;

	buf_addf(b, "<h4>%s</h4>\n", window_title[w]);
	if (view_standings_load(db, ch, w, 0, now, &s) != CW_EXIT_OK) {
		buf_adds(b, "<p class=\"muted\">cannot read the store</p>\n");
		view_standings_free(&s);
		return;
	}
	if (s.n == 0) {
		buf_addf(b, "<p class=\"muted\">no %sblocks", s.unsealed.blocks >
		    0 ? "mined " : "");
		page_unsealed(b, &s);
		buf_adds(b, "</p>\n");
		view_standings_free(&s);
		return;
	}
	buf_addf(b, "<p>%lld block%s, %zu miner%s", (long long)s.total_blocks,
	    s.total_blocks == 1 ? "" : "s", s.n, s.n == 1 ? "" : "s");
	page_unsealed(b, &s);
	if (s.has_hashrate) {
		hashrate_fmt(s.hashrate, hr, sizeof(hr));
		view_span(s.last_ms - s.first_ms, span, sizeof(span));
		buf_addf(b, "; network hashrate <b>%s</b> <span class=\"muted\">"
		    "(work over %s of block times)</span>", hr, span);
	}
	buf_adds(b, "</p>\n");
	page_share_bar(b, &s);
	buf_addf(b, "<div class=\"wrap\"><table class=\"standings\" "
	    "data-window=\"%s\" data-blocks=\"%lld\" data-unsealed=\"%lld\" "
	    "data-hashrate=\"", view_window_name[w], (long long)s.total_blocks,
	    (long long)s.unsealed.blocks);
	if (s.has_hashrate)
		buf_addf(b, "%.17g", s.hashrate);
	buf_adds(b, "\" data-chain=\"");
	esc(b, ch->name);
	buf_adds(b, "\"><tr><th>#</th><th>miner</th><th>blocks</th>"
	    "<th>final</th><th>share</th><th>hashrate</th></tr>\n");
	for (i = 0; i < s.n; i++) {
		r = &s.rows[i];
		buf_addf(b, "<tr><td class=\"n\">%zu</td><td class=\"miner\" "
		    "title=\"", i + 1);
		esc(b, r->name);
		buf_addf(b, "\"><span class=\"sw\" style=\"background:%s\">"
		    "</span><a href=\"/api/v1/chains/",
		    palette[i < PAGE_SLICES ? i : PAGE_SLICES]);
		esc(b, ch->name);
		buf_adds(b, "/miners/");
		esc(b, r->name);
		buf_adds(b, "\">");
		if (strlen(r->name) > 17) {
			/* "qzjqcX6U...3fA7rK", as chainwatch standings */
			snprintf(head, sizeof(head), "%.8s", r->name);
			esc(b, head);
			buf_adds(b, "...");
			esc(b, r->name + strlen(r->name) - 6);
		} else
			esc(b, r->name);
		buf_addf(b, "</a></td><td class=\"n blocks\">%lld</td>"
		    "<td class=\"n\">%lld</td><td class=\"n share\">%.1f%%</td>"
		    "<td class=\"n hashrate\" data-hps=\"",
		    (long long)r->blocks, (long long)r->final_blocks,
		    row_share(&s, r));
		if (r->has_hashrate) {
			hashrate_fmt(r->hashrate, hr, sizeof(hr));
			buf_addf(b, "%.17g\">%s", r->hashrate, hr);
		} else
			buf_adds(b, "\">-");
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</table></div>\n");
	view_standings_free(&s);
}

enum chart_fmt { CHART_HASHRATE, CHART_NUMBER, CHART_SECONDS };

static void
chart_label(struct buf *b, enum chart_fmt f, double v)
{
	char	 s[HASHRATE_LEN];

	switch (f) {
	case CHART_HASHRATE:
		hashrate_fmt(v, s, sizeof(s));
		buf_adds(b, s);
		break;
	case CHART_NUMBER:
		buf_addf(b, "%.3g", v);
		break;
	case CHART_SECONDS:
		buf_addf(b, "%.1f s", v);
		break;
	}
}

/*
 * A line over the buckets from since to now; has[i] says whether v[i] is
 * a value.  The time axis is labelled at both ends and between, in UTC.
 */
static void
page_chart(struct buf *b, const char *title, enum chart_fmt f,
    const double *v, const int *has, size_t n, int64_t since, int64_t now)
{
	char	 iso[32];
	int	 k;
	double	 lo = INFINITY, hi = -INFINITY, y;
	size_t	 i;
	int	 any = 0;

	for (i = 0; i < n; i++)
		if (has[i]) {
			lo = fmin(lo, v[i]);
			hi = fmax(hi, v[i]);
			any = 1;
		}
	buf_addf(b, "<div><h4>%s</h4>", title);
	if (!any) {
		buf_adds(b, "<p class=\"muted\">no blocks</p></div>\n");
		return;
	}
	if (hi <= lo) {
		hi = lo * 1.1 + 1;
		lo = lo * 0.9;
	}
	buf_addf(b, "<svg viewBox=\"0 0 %d %d\" role=\"img\">"
	    "<polyline fill=\"none\" stroke=\"#1565c0\" stroke-width=\"2\" "
	    "points=\"", CH_W, CH_H);
	for (i = 0; i < n; i++) {
		if (!has[i])
			continue;
		y = CH_H - 34.0 - (v[i] - lo) * (CH_H - 58.0) / (hi - lo);
		buf_addf(b, "%.1f,%.1f ", ((double)i + 0.5) * CH_W / (double)n,
		    y);
	}
	buf_adds(b, "\"/><text x=\"4\" y=\"14\" font-size=\"13\">");
	chart_label(b, f, hi);
	buf_addf(b, "</text><text x=\"4\" y=\"%d\" font-size=\"13\">",
	    CH_H - 18);
	chart_label(b, f, lo);
	buf_adds(b, "</text>");
	/* Times at the start, the quarters and the end of the axis. */
	for (k = 0; k <= 4; k++) {
		view_time_iso(since + (now - since) * k / 4, iso, sizeof(iso));
		buf_addf(b, "<text class=\"t\" x=\"%d\" y=\"%d\" "
		    "font-size=\"11\" text-anchor=\"%s\">%.5s</text>",
		    k * CH_W / 4, CH_H - 3,
		    k == 0 ? "start" : k == 4 ? "end" : "middle", iso + 11);
	}
	buf_adds(b, "</svg></div>\n");
}

/*
 * Where the charts' time axis starts: at the chain's first canonical
 * block of the last day, so that a few hours of data fill the width;
 * an hour at least, the day at most.
 */
static int64_t
page_chart_since(struct view_db *db, const struct view_chain *ch,
    int64_t now)
{
	sqlite3_stmt	*st;
	int64_t		 first = now - PAGE_DAY;

	if (sqlite3_prepare_v2(db->db, "SELECT min(timestamp) FROM blocks"
	    " WHERE chain_id = ?1 AND canonical = 1 AND timestamp >= ?2",
	    -1, &st, NULL) != SQLITE_OK)
		return first;
	sqlite3_bind_int64(st, 1, ch->id);
	sqlite3_bind_int64(st, 2, now - PAGE_DAY);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL)
		first = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (first > now - PAGE_HOUR)
		first = now - PAGE_HOUR;
	return first;
}

static void
page_history(struct buf *b, struct view_db *db, const struct view_chain *ch,
    int64_t now)
{
	struct view_bucket	 bk[PAGE_BUCKETS];
	double			 hr[PAGE_BUCKETS], d[PAGE_BUCKETS];
	double			 bt[PAGE_BUCKETS];
	int			 has[PAGE_BUCKETS], has_hr[PAGE_BUCKETS];
	size_t			 i;
	int64_t			 since = page_chart_since(db, ch, now);
	char			 span[VIEW_AGE_LEN];

	buf_adds(b, "<h3>Over the last 24 hours</h3>\n");
	if (view_buckets_load(db, ch, since, now, bk, PAGE_BUCKETS) !=
	    CW_EXIT_OK) {
		buf_adds(b, "<p class=\"muted\">cannot read the store</p>\n");
		return;
	}
	for (i = 0; i < PAGE_BUCKETS; i++) {
		has[i] = bk[i].blocks > 0;
		has_hr[i] = has[i] && bk[i].time_ms > 0 && bk[i].difficulty > 0;
		d[i] = has[i] ? bk[i].difficulty / (double)bk[i].blocks : 0;
		bt[i] = has[i] ? (double)bk[i].time_ms / 1000.0 /
		    (double)bk[i].blocks : 0;
		hr[i] = has_hr[i] ? bk[i].difficulty * 1000.0 /
		    (double)bk[i].time_ms : 0;
	}
	buf_adds(b, "<div class=\"charts\">\n");
	page_chart(b, "Hashrate", CHART_HASHRATE, hr, has_hr, PAGE_BUCKETS,
	    since, now);
	page_chart(b, "Difficulty", CHART_NUMBER, d, has_hr, PAGE_BUCKETS,
	    since, now);
	page_chart(b, "Block time", CHART_SECONDS, bt, has, PAGE_BUCKETS,
	    since, now);
	view_span((now - since) / PAGE_BUCKETS, span, sizeof(span));
	buf_addf(b, "</div><p class=\"muted\">Averages over %s of "
	    "canonical blocks, by their timestamps; times in UTC.</p>\n",
	    span);
}

static void
page_reorgs(struct buf *b, struct view_db *db, const struct view_chain *ch,
    int64_t now)
{
	struct view_reorg	*r;
	size_t			 n, i;

	buf_adds(b, "<h3>Reorganisations</h3>\n");
	if (view_reorgs_load(db, ch, PAGE_REORGS, &r, &n) != CW_EXIT_OK) {
		buf_adds(b, "<p class=\"muted\">cannot read the store</p>\n");
		view_reorgs_free(r, n);
		return;
	}
	if (n == 0)
		buf_adds(b, "<p class=\"muted\">none</p>\n");
	else
		buf_adds(b, "<div class=\"wrap\"><table class=\"reorgs\"><tr>"
		    "<th>when</th><th>depth</th><th>ancestor</th>"
		    "<th>old tip</th><th>new tip</th><th>seen by</th></tr>\n");
	for (i = 0; i < n; i++) {
		buf_adds(b, "<tr><td>");
		ago(b, now, r[i].at);
		buf_addf(b, "</td><td class=\"n\">%lld</td><td class=\"n\">"
		    "#%lld</td><td>%.10s</td><td>%.10s</td><td>",
		    (long long)r[i].depth, (long long)r[i].ancestor_number,
		    r[i].old_tip, r[i].new_tip);
		esc(b, r[i].seen_by);
		buf_adds(b, "</td></tr>\n");
	}
	if (n > 0)
		buf_adds(b, "</table></div>\n");
	view_reorgs_free(r, n);
}

static void
page_forks(struct buf *b, struct view_db *db, const struct view_chain *ch,
    int64_t now)
{
	struct view_forks	 f;
	const struct view_split	*sp;
	size_t			 i, k;

	buf_adds(b, "<h3>Forks</h3>\n");
	if (view_forks_load(db, ch, now, PAGE_SPLITS, &f) != CW_EXIT_OK) {
		buf_adds(b, "<p class=\"muted\">cannot read the store</p>\n");
		view_forks_free(&f);
		return;
	}
	buf_addf(b, "<p>The endpoints' tips are on %zu branch%s now.</p>\n",
	    f.r.n_branches, f.r.n_branches == 1 ? "" : "es");
	if (f.n_splits == 0)
		buf_adds(b, "<p class=\"muted\">no split seen</p>\n");
	else
		buf_adds(b, "<div class=\"wrap\"><table class=\"splits\"><tr>"
		    "<th>first seen</th><th>ended</th><th>ancestor</th>"
		    "<th>branch</th><th>endpoint</th><th>tip</th>"
		    "<th>length</th></tr>\n");
	for (i = 0; i < f.n_splits; i++) {
		sp = &f.splits[i];
		for (k = 0; k < sp->n_sides; k++) {
			buf_adds(b, "<tr><td>");
			if (k == 0)
				ago(b, now, sp->first_seen);
			buf_adds(b, "</td><td>");
			if (k == 0 && sp->has_ended)
				ago(b, now, sp->ended);
			else if (k == 0)
				buf_adds(b, "<b>lasting</b>");
			buf_adds(b, "</td><td class=\"n\">");
			if (k == 0 && sp->has_ancestor)
				buf_addf(b, "#%lld",
				    (long long)sp->ancestor_number);
			buf_addf(b, "</td><td class=\"n\">%lld</td><td>",
			    (long long)sp->sides[k].branch);
			esc(b, sp->sides[k].endpoint);
			buf_addf(b, "</td><td>#%lld</td><td class=\"n\">",
			    (long long)sp->sides[k].tip_number);
			if (sp->has_ancestor && forks_behind(
			    sp->ancestor_number, sp->sides[k].tip_number) > 0)
				buf_addf(b, "%lld behind", (long long)
				    forks_behind(sp->ancestor_number,
				    sp->sides[k].tip_number));
			else if (sp->sides[k].has_length)
				buf_addf(b, "%lld",
				    (long long)sp->sides[k].length);
			buf_adds(b, "</td></tr>\n");
		}
	}
	if (f.n_splits > 0)
		buf_adds(b, "</table></div>\n");
	view_forks_free(&f);
}

/*
 * The last blocks, as chainwatch blocks lists them: a block whose seal
 * fails the difficulty at its parent is marked unproven.
 */
static void
page_blocks(struct buf *b, struct view_db *db, const struct view_chain *ch,
    int64_t now)
{
	struct view_blocks	 bl;
	const struct view_block	*p;
	char			 d[U512_DEC_LEN];

	memset(&bl, 0, sizeof(bl));
	buf_adds(b, "<h3>Last blocks</h3>\n");
	if (view_blocks_load(db, ch, PAGE_BLOCKS, 0, 0, &bl) != CW_EXIT_OK) {
		buf_adds(b, "<p class=\"muted\">cannot read the store</p>\n");
		view_blocks_free(&bl);
		return;
	}
	if (bl.n == 0)
		buf_adds(b, "<p class=\"muted\">none</p>\n");
	else
		buf_adds(b, "<div class=\"wrap\"><table class=\"blocks\"><tr>"
		    "<th>number</th><th>state</th><th>hash</th><th>miner</th>"
		    "<th>difficulty</th><th>seal</th><th>stored</th>"
		    "<th>first from</th></tr>\n");
	for (size_t i = 0; i < bl.n; i++) {
		p = &bl.v[i];
		buf_addf(b, "<tr%s><td class=\"n\">%lld</td><td>%s</td>"
		    "<td>%.10s</td><td>", p->proven == 0 ?
		    " class=\"unproven\"" : "", (long long)p->number,
		    view_block_state(p, 0), p->hash);
		esc(b, p->miner);
		buf_adds(b, "</td><td class=\"n\">");
		if (p->has_difficulty) {
			u512_to_dec(&p->difficulty, d);
			buf_adds(b, d);
		} else
			buf_adds(b, "-");
		buf_addf(b, "</td><td>%s</td><td>", p->proven == 0 ?
		    "<b>unproven</b>" : view_block_pow(p));
		ago(b, now, p->first_seen);
		buf_adds(b, "</td><td>");
		esc(b, p->endpoint != NULL ? p->endpoint : "-");
		buf_adds(b, "</td></tr>\n");
	}
	if (bl.n > 0)
		buf_adds(b, "</table></div><p class=\"muted\">A block marked "
		    "unproven has a seal below the difficulty at its parent; "
		    "see chainwatchd(8), Trust.</p>\n");
	view_blocks_free(&bl);
}

static void
page_chain(struct buf *b, struct view_db *db, const struct view_verdict *v,
    int64_t now)
{
	const struct view_chain	*ch = v->ch;
	const char		*st = view_status_name(v->status);
	size_t			 i;

	buf_adds(b, "<section class=\"chain\" data-chain=\"");
	esc(b, ch->name);
	buf_adds(b, "\"><h2>");
	esc(b, ch->name);
	buf_addf(b, " <span class=\"status s-%s\" data-status=\"%s\">%s"
	    "</span></h2>\n<p class=\"headline\">", st, st, st);
	esc(b, v->headline);
	buf_adds(b, "</p>\n<p>");
	if (ch->has_best)
		buf_addf(b, "best #%lld", (long long)ch->best_number);
	if (ch->has_final)
		buf_addf(b, ", final #%lld", (long long)ch->final_number);
	if (ch->has_updated) {
		buf_adds(b, ch->has_best ? ", last head stored " :
		    "last head stored ");
		ago(b, now, ch->updated_at);
	} else
		buf_adds(b, "no head stored yet");
	buf_adds(b, "</p>\n");
	page_endpoints(b, db, v, now);
	buf_adds(b, "<h3>Standings</h3>\n");
	for (i = 0; i < sizeof(page_windows) / sizeof(page_windows[0]); i++)
		page_standings_window(b, db, ch, page_windows[i], now);
	page_history(b, db, ch, now);
	page_blocks(b, db, ch, now);
	page_reorgs(b, db, ch, now);
	page_forks(b, db, ch, now);
	buf_adds(b, "</section>\n");
}

static void
page_head(struct buf *b, int64_t now)
{
	char	 iso[32];

	view_time_iso(now, iso, sizeof(iso));
	buf_addf(b, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
	    "<meta charset=\"utf-8\">"
	    "<meta name=\"viewport\" content=\"width=device-width, "
	    "initial-scale=1\">"
	    "<meta http-equiv=\"refresh\" content=\"%d\">"
	    "<title>chainwatch</title><style>%s</style></head>\n<body>"
	    "<h1>chainwatch</h1>\n<p class=\"muted\">As of %s; this page "
	    "refreshes every %d s. Figures: <a href=\"/metrics\">/metrics</a>, "
	    "<a href=\"/health\">/health</a>.</p>\n", MTR_PAGE_REFRESH,
	    page_css, iso, MTR_PAGE_REFRESH);
}

unsigned
mtr_page(struct view_db *db, int64_t now, struct buf *b)
{
	struct view_chain	*chains;
	struct view_verdict	*v;
	size_t			 nc, n, i;

	page_head(b, now);
	if (view_status_judge(db, NULL, &chains, &nc, &v, &n) != CW_EXIT_OK) {
		buf_adds(b, "<p>The store cannot be read now; see the log of "
		    "chainwatch-metrics.</p></body></html>\n");
		return 503;
	}
	if (n == 0)
		buf_adds(b, "<p>No chain is stored yet.</p>\n");
	if (view_db_begin(db) == -1) {
		view_verdicts_free(v, n, chains, nc);
		buf_adds(b, "<p>The store cannot be read now; see the log of "
		    "chainwatch-metrics.</p></body></html>\n");
		return 503;
	}
	for (i = 0; i < n; i++)
		page_chain(b, db, &v[i], now);
	view_db_end(db);
	view_verdicts_free(v, n, chains, nc);
	buf_adds(b, "</body></html>\n");
	return 200;
}
