#!/bin/sh
# The status page at / of chainwatch-metrics, under chainwatchd following
# three devnodes of a chain started 3 h ago (5 s blocks, weights 5,3,2),
# one of them refused: the HTML balances and refers to no other host, it
# has a viewport and refreshes itself, its standings equal chainwatch
# standings --json for every window and its status chainwatch status;
# headless Chromium renders it (screenshots kept as tests/status_page.png
# and tests/status_page_phone.png in the build directory); and strings
# from the store are escaped (a crafted copy of the store with hostile
# names, served by chainwatch-metrics alone).
. "$top_srcdir/tests/integration/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
    { echo "SKIP: no chromium (Debian package chromium)"; exit 77; }
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

METRICS=$top_builddir/metrics/chainwatch-metrics
CHAINWATCH=$top_builddir/cli/chainwatch
PAGECHECK=$top_srcdir/tests/integration/pagecheck.py
SHOT=$top_builddir/tests/status_page.png
# timeline PAGE: each endpoint's 24 h timeline as JSON, {endpoint: {"spans":
# [[state, x0, x1, title]], "ticks": [title]}, "legend": [states]} (x on a
# box 1000 wide for the day; the state is a span title's first word).
timeline() {
	python3 - "$1" <<'PY'
import html, json, re, sys
t = open(sys.argv[1]).read()
out = {}
for name, svg in re.findall(r'<div class="tl"[^>]*><span>(.*?)</span><svg[^>]*>(.*?)</svg></div>', t, re.S):
    spans, ticks = [], []
    for x, w, fill, title in re.findall(r'<rect x="([-\d.]+)" y="0" width="([-\d.]+)" height="14" fill="([^"]+)"[^>]*><title>(.*?)</title></rect>', svg):
        title = html.unescape(title)
        if fill == "#000":
            ticks.append(title)
        else:
            spans.append([re.match(r"[a-z-]*", title).group(0),
                          float(x), float(x) + float(w), title])
    out[html.unescape(name)] = {"spans": spans, "ticks": ticks}
leg = [p for p in re.findall(r"<p[^>]*>(.*?)</p>", t, re.S) if "other events" in p]
out["legend"] = re.findall(r"</span>([a-z-]+)", leg[0]) if leg else []
json.dump(out, sys.stdout)
PY
}
SHOT_PHONE=$top_builddir/tests/status_page_phone.png
BT=5000
START=$(python3 -c "import time; print((int(time.time()) - 3 * 3600) * 1000 // $BT * $BT)")

for n in d1 d2 d3; do
	devnode $n --seed page --block-time $BT --start-time "$START" \
	    --backlog 10 --miner-weights 5,3,2
done
write_conf "$T/chainwatch.conf"
sed -i -e '/^metrics_listen/d' -e '/^metrics_server/d' \
    -e "/^\\[daemon\\]\$/a metrics_listen = 127.0.0.1:0\\
metrics_server = $METRICS" \
    -e "s/^block_time = .*/block_time = ${BT}ms/" "$T/chainwatch.conf"
cat >>"$T/chainwatch.conf" <<CONF
request_timeout = 1s
connect_timeout = 1s
breaker_consecutive = 3
breaker_min_span = 1s
breaker_cooldown = 30s
endpoint = d1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port
endpoint = d2 http://127.0.0.1:$d2_port ws://127.0.0.1:$d2_port
endpoint = d3 http://127.0.0.1:$d3_port ws://127.0.0.1:$d3_port
CONF
start_daemon
metrics_wait
wait_for 300 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(sql "SELECT count(*) FROM blocks WHERE canonical = 1 AND timestamp IS NOT NULL")" -gt 2000' ||
    fail "not caught up: $(sql "SELECT count(*) FROM blocks") blocks"
ok "caught up: $(sql "SELECT count(*) FROM blocks WHERE canonical = 1") blocks"

# d3 refuses connections: its breaker opens, an event for its timeline.
curl -s -m 5 -o /dev/null -d '{"clear":true,"enable":"refuse"}' \
    "http://127.0.0.1:$d3_cport/control" || fail "devnode control port"
wait_for 60 "test \"\$(sql \"SELECT state FROM endpoints WHERE name = 'd3'\")\" != closed" ||
    fail "d3 stays closed"
ok "d3 refused: $(sql "SELECT state FROM endpoints WHERE name = 'd3'")"

page() {
	curl -s -m 20 -o "$1" -w '%{http_code} %{content_type}' \
	    "http://127.0.0.1:$PORT/"
}
got=$(page "$T/page.html") || fail "GET /"
[ "$got" = "200 text/html; charset=utf-8" ] || fail "GET /: $got"
python3 "$PAGECHECK" lint "$T/page.html" || fail "the page does not lint"
! grep -i -o 'https\?://[^ "<]*' "$T/page.html" ||
    fail "the page names a URL"
grep -q '<span class="status s-degraded" data-status="degraded">' \
    "$T/page.html" || fail "the chain is not shown degraded"
grep -q 'Forks' "$T/page.html" && grep -q 'Reorganisations' "$T/page.html" &&
    grep -q '<h4>Hashrate</h4><svg' "$T/page.html" &&
    grep -q '<h4>Difficulty</h4><svg' "$T/page.html" &&
    grep -q '<h4>Block time</h4><svg' "$T/page.html" ||
    fail "a section or chart is missing"
ok "GET / is HTML that balances, refers to no other host, and refreshes"
# How each endpoint keeps up: the two healthy ones do.
for e in d1 d2; do
	grep -q "<tr><td>$e</td>.*<td data-condition=\"ok\">keeps up</td></tr>" \
	    "$T/page.html" || fail "$e is not shown keeping up: $(grep "<tr><td>$e</td>" "$T/page.html")"
done

# The charts fit the 3 hours of data: the line starts at the left edge,
# and the axis is labelled with times, from the first block's to now's.
python3 - "$T/page.html" "$START" <<'PY' || fail "the charts' time axis"
import re, sys, time
t = open(sys.argv[1]).read()
start = int(sys.argv[2]) // 1000
for title in ("Hashrate", "Difficulty", "Block time"):
    svg = re.search(r"<h4>%s</h4><svg(.*?)</svg>" % title, t, re.S).group(1)
    xs = [float(p.split(",")[0]) for p in re.search(r'points="([^"]*)"', svg).group(1).split()]
    if min(xs) > 400 * 0.05:
        sys.exit("%s: the line starts at x %.1f of 400" % (title, min(xs)))
    ticks = re.findall(r'<text class="t"[^>]*>(\d\d:\d\d)</text>', svg)
    if len(ticks) != 5:
        sys.exit("%s: time labels %r" % (title, ticks))
    first = time.strftime("%H:%M", time.gmtime(start))
    near = {time.strftime("%H:%M", time.gmtime(start + d)) for d in range(-120, 121, 60)}
    if ticks[0] not in near:
        sys.exit("%s: axis starts at %s, the data at %s" % (title, ticks[0], first))
PY
ok "charts: the time axis fits the 3 h of data, labelled in UTC"

# Each miner links to its record in the API, which answers for it.
grep -o 'href="/api/v1/chains/devchain/miners/[^"]*"' "$T/page.html" |
    sed 's/^href="//; s/"$//' | sort -u >"$T/links"
[ "$(wc -l <"$T/links")" -ge 2 ] || fail "miners without links: $(cat "$T/links")"
while read -r link; do
	curl -s -f -m 20 "http://127.0.0.1:$PORT$link" | python3 -c '
import json, sys
j = json.load(sys.stdin)
sys.exit(0 if j["windows"]["all"]["blocks"] > 0 else 1)' ||
	    fail "$link does not answer a miner's record"
done <"$T/links"
ok "every miner links to its record ($(wc -l <"$T/links") miners)"

# The timelines: d1 and d2, healthy throughout, closed since start (not
# unknown); d3 closed, then open or half-open since it was refused.
timeline "$T/page.html" >"$T/tl.json" || fail "timeline: cannot read the page"
python3 - "$T/tl.json" <<'PY' || fail "the live timelines"
import json, sys
tl = json.load(open(sys.argv[1]))
for ep in ("d1", "d2"):
    st = [s[0] for s in tl[ep]["spans"]]
    if st != ["closed"] or tl[ep]["spans"][0][3] != "closed since start":
        sys.exit("%s, healthy: %r" % (ep, tl[ep]["spans"]))
st = [s[0] for s in tl["d3"]["spans"]]
if st[0] != "closed" or st[-1] not in ("open", "half-open") or "unknown" in st:
    sys.exit("d3, refused: %r" % tl["d3"]["spans"])
PY
ok "timelines: healthy endpoints closed since start, d3 open since refused"

# The page's standings and status against the CLI's, read between two
# fetches that agree (a block may come, or leave a window, meanwhile).
same() {
	page "$T/p1.html" >/dev/null &&
	python3 "$PAGECHECK" standings "$T/p1.html" devchain >"$T/p1.json" &&
	for w in 1h 24h 7d all; do
		"$CHAINWATCH" -d "$T/chainwatch.db" -s "$T/chainwatchd.sock" \
		    standings devchain --window $w --json >"$T/cli-$w.json" ||
		    return 1
	done &&
	"$CHAINWATCH" -d "$T/chainwatch.db" -s "$T/chainwatchd.sock" \
	    status devchain --json >"$T/status.json"
	page "$T/p2.html" >/dev/null &&
	python3 "$PAGECHECK" standings "$T/p2.html" devchain >"$T/p2.json" &&
	cmp -s "$T/p1.json" "$T/p2.json" &&
	python3 - "$T/p1.json" "$T" <<'PY'
import json, sys
page = json.load(open(sys.argv[1]))
st = json.load(open(sys.argv[2] + "/status.json"))["chains"][0]["status"]
if page["status"] != st:
    sys.exit("status: page %r, chainwatch status %r" % (page["status"], st))
for w in ("1h", "24h", "7d", "all"):
    cli = json.load(open("%s/cli-%s.json" % (sys.argv[2], w)))
    p = page["windows"].get(w)
    if p is None:
        sys.exit("%s: no table" % w)
    def rel(a, b):
        return a is None and b is None or (a is not None and b is not None
                                           and abs(a - b) <= 1e-12 * abs(b))
    if p["blocks"] != cli["blocks"] or not rel(p["hashrate"], cli["hashrate"]):
        sys.exit("%s: page %r/%r, cli %r/%r" % (w, p["blocks"], p["hashrate"],
                 cli["blocks"], cli["hashrate"]))
    if p["unsealed"] != cli["unsealed"]["blocks"]:
        sys.exit("%s: unsealed: page %r, cli %r" % (w, p["unsealed"],
                 cli["unsealed"]["blocks"]))
    if any(r["miner"] in ("unknown", "unsealed") for r in cli["rows"]):
        sys.exit("%s: a row that is no miner's: %r" % (w, cli["rows"]))
    if len(p["rows"]) != len(cli["rows"]):
        sys.exit("%s: %d rows, cli %d" % (w, len(p["rows"]), len(cli["rows"])))
    for a, b in zip(p["rows"], cli["rows"]):
        if (a["miner"], a["blocks"], a["share"]) != \
                (b["miner"], b["blocks"], "%.1f%%" % b["share"]) or \
                not rel(a["hashrate"], b["hashrate"]):
            sys.exit("%s: page %r, cli %r" % (w, a, b))
print("windows:", ", ".join("%s %d blocks" % (w, page["windows"][w]["blocks"])
      for w in ("1h", "24h", "7d", "all")))
PY
}
wait_for 60 same >"$T/same.log" 2>&1 || { cat "$T/same.log"; fail "the page's standings differ from chainwatch standings"; }
tail -n 1 "$T/same.log"
ok "standings and status equal chainwatch standings --json and status"

# Headless Chromium: the page renders (its DOM has the tables) and the
# screenshots are kept.  No network beyond 127.0.0.1 is needed.
chrome() {
	HOME=$T/chrome timeout 120 "$CHROMIUM" --headless --no-sandbox \
	    --disable-gpu --disable-dev-shm-usage --no-first-run \
	    --disable-extensions \
	    --user-data-dir="$T/chrome" --hide-scrollbars "$@" \
	    "${URL:-http://127.0.0.1:$PORT/}" 2>>"$T/chrome.log"
}
mkdir -p "$T/chrome" "$top_builddir/tests"
chrome --dump-dom >"$T/dom.html" || fail "chromium --dump-dom"
grep -q '<table class="standings" data-window="24h"' "$T/dom.html" ||
    fail "the rendered DOM has no standings"
rm -f "$SHOT" "$SHOT_PHONE"
chrome --window-size=1000,2600 --screenshot="$SHOT" >/dev/null ||
    fail "chromium --screenshot"
chrome --window-size=412,3200 --screenshot="$SHOT_PHONE" >/dev/null ||
    fail "chromium --screenshot, phone"
python3 - "$SHOT" "$SHOT_PHONE" <<'PY' || fail "the screenshots"
import struct, sys
for path, want_w in ((sys.argv[1], 1000), (sys.argv[2], 412)):
    head = open(path, "rb").read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
    w, h = struct.unpack(">II", head[16:24])
    if w != want_w or h < 1000:
        sys.exit("%s: %dx%d" % (path, w, h))
PY
ok "chromium renders it: $SHOT, $SHOT_PHONE"

# Hostile strings in a copy of the store, served by chainwatch-metrics
# alone (no daemon behind its socket): all escaped.
sqlite3 "$T/chainwatch.db" ".backup '$T/crafted.db'" || fail "backup"
sqlite3 "$T/crafted.db" "UPDATE chains SET name = 'dev<script>alert(1)</script>&\"q''s';
    UPDATE endpoints SET state_reason = '<img src=x onerror=alert(2)>' WHERE name = 'd3';
    UPDATE miners SET ss58 = '<b>\"miner\"</b>&amp;' WHERE account = (SELECT min(account) FROM miners WHERE ss58 != 'unknown');
    INSERT INTO endpoint_events (endpoint_id, at, kind, detail)
      SELECT id, CAST(strftime('%s', 'now') AS INTEGER) * 1000, 'died',
        '</svg></div><a href=\"https://example.org/\">x</a>' FROM endpoints WHERE name = 'd3';" ||
    fail "crafting the store"
# Every state the daemon records, in a crafted day: d2 goes through each
# kind of event sup_health.c and sup_spawn.c write; d1 has no event in it
# and is inconsistent since 3 h (a trouble whose event is older).  Spans,
# ticks for the other events, the legend; and as Chromium renders it.
python3 - "$T/crafted.db" <<'PY' || fail "crafting the timeline"
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
now = int(time.time() * 1000)
H = 3600000
ep = dict(db.execute("SELECT name, id FROM endpoints"))
db.execute("DELETE FROM endpoint_events WHERE endpoint_id IN (?, ?)",
           (ep["d1"], ep["d2"]))
for h, kind, detail in ((20, "unresponsive", "no answer for 3 s"),
        (19, "answering", ""), (16, "inconsistent", "head #5 never connected"),
        (15, "consistent", "5 heads in a row connect"),
        (12, "died", "signal 9"), (11, "ready", "Devnode"),
        (8, "quarantined", "wrong genesis"),
        (7, "released", "genesis and header format match"),
        (5, "open", "3 timeouts in a row"), (4, "half-open", "trial"),
        (3.9, "closed", ""), (2, "sub_down", "closed by peer"),
        (1, "unresponsive", "no answer for 4 s")):
    db.execute("INSERT INTO endpoint_events (endpoint_id, at, kind, detail) "
               "VALUES (?, ?, ?, ?)", (ep["d2"], now - int(h * H), kind, detail))
db.execute("UPDATE endpoints SET state = 'unresponsive', state_since = ?, "
           "state_reason = 'no answer for 4 s' WHERE id = ?", (now - H, ep["d2"]))
db.execute("UPDATE endpoints SET state = 'inconsistent', state_since = ?, "
           "state_reason = 'head #5 never connected' WHERE id = ?",
           (now - 3 * H, ep["d1"]))
# d1 stuck an hour ago, 20 blocks below the others, the chain past it since.
db.execute("UPDATE endpoints SET best_number = (SELECT max(best_number) "
           "FROM endpoints) - 20, best_at = ?, tip_at = NULL WHERE id = ?",
           (now - H, ep["d1"]))
db.execute("UPDATE blocks SET first_seen = ? WHERE canonical = 1 AND "
           "number = (SELECT best_number + 1 FROM endpoints WHERE id = ?)",
           (now - H, ep["d1"]))
db.commit()
PY
# Never root: as root it runs as nobody, which must read the copy.
as_user=
if [ "$(id -u)" = 0 ]; then
	as_user="-u nobody"
	chmod 0644 "$T/crafted.db"
fi
# shellcheck disable=SC2086
"$METRICS" -f -l 127.0.0.1:0 -d "$T/crafted.db" -s "$T/none.sock" \
    -p "$T/mport" $as_user >>"$T/crafted.log" 2>&1 &
CW_PIDS="$CW_PIDS $!"
wait_for 10 "test -s '$T/mport'" || fail "chainwatch-metrics alone did not start"
curl -s -f -m 20 -o "$T/crafted.html" "http://127.0.0.1:$(cat "$T/mport")/" ||
    fail "GET / of the crafted store"
python3 "$PAGECHECK" lint "$T/crafted.html" ||
    fail "the crafted store's page does not lint"
grep -q 'dev&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;q&#39;s' \
    "$T/crafted.html" || fail "the chain name is not escaped"
grep -q '&lt;img src=x onerror=alert(2)&gt;' "$T/crafted.html" ||
    fail "the reason is not escaped"
grep -q '&lt;/svg&gt;&lt;/div&gt;&lt;a href=&quot;https://example.org/' \
    "$T/crafted.html" || fail "the event detail is not escaped"
grep -q 'title="&lt;b&gt;&quot;miner&quot;&lt;/b&gt;&amp;amp;"' \
    "$T/crafted.html" || fail "the miner is not escaped"
ok "strings from the store are escaped"
d1best=$(sqlite3 "$T/crafted.db" "SELECT best_number FROM endpoints WHERE name = 'd1'")
grep -q "<tr><td>d1</td>.*<td data-condition=\"stuck\">stuck at #$d1best: no new head for 60 min while the chain went on</td></tr>" \
    "$T/crafted.html" || fail "d1 is not shown stuck: $(grep '<tr><td>d1</td>' "$T/crafted.html")"
ok "how endpoints keep up: d1 stuck at #$d1best for 60 min"

# The crafted day of the timelines (crafted above): as served, and as
# Chromium renders it.
mkdir -p "$T/chrome"
URL=http://127.0.0.1:$(cat "$T/mport")/ chrome --dump-dom >"$T/crafted-dom.html" ||
    fail "chromium --dump-dom of the crafted store"
for f in crafted.html crafted-dom.html; do
	timeline "$T/$f" >"$T/tl.json" || fail "timeline: $f"
	python3 - "$T/tl.json" <<'PY' || fail "the crafted timelines ($f)"
import json, sys
tl = json.load(open(sys.argv[1]))
def x(h):
    return (24 - h) * 1000 / 24
def same(got, want):
    if [g[0] for g in got] != [w[0] for w in want]:
        return False
    return all(abs(g[1] - x(w[1])) < 2 and abs(g[2] - x(w[2])) < 2
               for g, w in zip(got, want))
d2 = [("closed", 24, 20), ("unresponsive", 20, 19), ("closed", 19, 16),
      ("inconsistent", 16, 15), ("closed", 15, 12), ("down", 12, 11),
      ("closed", 11, 8), ("quarantined", 8, 7), ("closed", 7, 5),
      ("open", 5, 4), ("half-open", 4, 3.9), ("closed", 3.9, 1),
      ("unresponsive", 1, 0)]
if not same(tl["d2"]["spans"], d2):
    sys.exit("d2:\n got %r\nwant %r" % ([g[:3] for g in tl["d2"]["spans"]], d2))
if tl["d2"]["spans"][0][3] != "closed since start" or \
        tl["d2"]["spans"][-1][3] != "unresponsive: no answer for 4 s" or \
        tl["d2"]["spans"][5][3] != "down (died: signal 9)":
    sys.exit("d2: titles %r" % [g[3] for g in tl["d2"]["spans"]])
ticks = sorted(t.split(":")[0] for t in tl["d2"]["ticks"])
if ticks != ["answering", "consistent", "died", "ready", "released", "sub_down"]:
    sys.exit("d2: ticks %r" % tl["d2"]["ticks"])
d1 = [("closed", 24, 3), ("inconsistent", 3, 0)]
if not same(tl["d1"]["spans"], d1) or \
        tl["d1"]["spans"][0][3] != "closed since start":
    sys.exit("d1:\n got %r\nwant %r" % (tl["d1"]["spans"], d1))
want = ["closed", "half-open", "open", "unresponsive", "down", "quarantined",
        "inconsistent", "unknown", "other"]
if tl["legend"] != want:
    sys.exit("legend %r, want %r" % (tl["legend"], want))
PY
done
ok "timelines: every state the daemon records, as served and as rendered"
