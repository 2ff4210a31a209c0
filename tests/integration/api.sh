#!/bin/sh
# /api/v1/ of chainwatch-metrics under chainwatchd following a devnode
# (1 s blocks, two miners): the routes answer JSON in the CLI's --json
# shape, with ETag (304 on If-None-Match; a kept answer never outlives a
# new block), Cache-Control from the block time, HEAD, the
# metrics_cors_origin header; hostile parameters (huge limits, negative
# offsets, unknown chains and parameters, a 10 KB query) get JSON errors
# with a stable code and 400 or 404.  Then
# chainwatch-metrics alone on the same store, without -o: no CORS header.
# Last, etc/openapi.json validates against the OpenAPI 3.0 schema and
# every answer against it (skipped without python3-jsonschema).
. "$top_srcdir/tests/integration/lib.sh"
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

METRICS=$top_builddir/metrics/chainwatch-metrics
CHAINWATCH=$top_builddir/cli/chainwatch
START=$(python3 -c "import time; print((int(time.time()) - 300) * 1000)")

devnode d1 --seed api --block-time 1000 --start-time "$START" \
    --backlog 10 --miner-weights 3,1
write_conf "$T/chainwatch.conf"
sed -i -e '/^metrics_listen/d' \
    -e "/^\\[daemon\\]\$/a metrics_listen = 127.0.0.1:0\\
metrics_server = $METRICS\\
metrics_cors_origin = https://explorer.example" "$T/chainwatch.conf"
echo "endpoint = d1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port" \
    >>"$T/chainwatch.conf"
start_daemon
metrics_wait
wait_for 120 'test "$(sql "SELECT count(*) FROM blocks WHERE canonical = 1 AND miner IS NOT NULL")" -gt 50' ||
    fail "not caught up: $(sql "SELECT count(*) FROM blocks") blocks"
"$CHAINWATCH" -d "$T/chainwatch.db" -s "$T/chainwatchd.sock" \
    standings devchain --window all --json >"$T/cli-standings.json" ||
    fail "chainwatch standings --json"
"$CHAINWATCH" -d "$T/chainwatch.db" -s "$T/chainwatchd.sock" \
    forks devchain --json >"$T/cli-forks.json" ||
    fail "chainwatch forks --json"
sql "SELECT count(*) FROM reorgs" >"$T/reorgs.count" || fail "count reorgs"
"$CHAINWATCH" -d "$T/chainwatch.db" -s "$T/chainwatchd.sock" \
    endpoints devchain --json >"$T/cli-endpoints.json" ||
    fail "chainwatch endpoints --json"
"$CHAINWATCH" -d "$T/chainwatch.db" -s "$T/chainwatchd.sock" \
    blocks devchain --last 5 --json >"$T/cli-blocks.json" ||
    fail "chainwatch blocks --json"
"$CHAINWATCH" -d "$T/chainwatch.db" -s "$T/chainwatchd.sock" \
    status devchain --json >"$T/cli-status.json" ||
    fail "chainwatch status --json"

python3 - "$PORT" "$T" <<'PY' || fail "the API"
import http.client, json, sqlite3, sys, time
port, tdir = int(sys.argv[1]), sys.argv[2]
seen = []   # every answer, for openapi_check.py

def req(path, method="GET", headers={}):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    c.request(method, path, headers=headers)
    r = c.getresponse()
    body = r.read()
    c.close()
    if path.startswith("/api/") and method in ("GET", "HEAD"):
        seen.append({"path": path, "method": method, "status": r.status,
                     "body": json.loads(body) if body else None})
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body

def get(path, want):
    st, h, b = req(path)
    if st != want:
        sys.exit("%s: %d, not %d: %r" % (path[:80], st, want, b[:200]))
    if h.get("content-type") != "application/json":
        sys.exit("%s: content type %r" % (path[:80], h.get("content-type")))
    return h, json.loads(b)

def error(path, want, code):
    h, j = get(path, want)
    if set(j) != {"error"} or j["error"]["code"] != code or \
       j["error"]["status"] != want or not j["error"]["message"]:
        sys.exit("%s: error %r, not %s" % (path[:80], j, code))
    if h.get("cache-control") != "no-store" or "etag" in h:
        sys.exit("%s: an error is cached: %r" % (path[:80], h))

def shape(a, b, where):
    """The same keys throughout (values may move on)."""
    if isinstance(a, dict):
        if not isinstance(b, dict) or set(a) != set(b):
            sys.exit("%s: keys %r, CLI %r" % (where, sorted(a), sorted(b)))
        for k in a:
            shape(a[k], b[k], where + "." + k)
    elif isinstance(a, list) and a and b:
        shape(a[0], b[0], where + "[0]")

# The chains and one chain: chainwatch status --json, less what the CLI
# adds from chainwatchd's control socket (the API reads the store only).
cli = json.load(open(tdir + "/cli-status.json"))
for k in ("daemon_running", "daemon_store"):
    del cli[k]
for c in cli["chains"]:
    del c["subscribe"], c["subscription"]
h, j = get("/api/v1/chains", 200)
shape(j, cli, "chains")
if [c["name"] for c in j["chains"]] != ["devchain"]:
    sys.exit("chains: %r" % j)
if h.get("cache-control") != "public, max-age=1":
    sys.exit("chains: cache-control %r (block time 1 s)" % h.get("cache-control"))
if h.get("access-control-allow-origin") != "https://explorer.example":
    sys.exit("metrics_cors_origin not sent: %r" % h)
h, j = get("/api/v1/chains/devchain", 200)
shape(j, cli, "chain")

# Standings: chainwatch standings --json, with offset and limit.
cli = json.load(open(tdir + "/cli-standings.json"))
h, j = get("/api/v1/chains/devchain/standings?window=all", 200)
del cli["daemon_running"]
if j.pop("daemon_running") is not None:
    sys.exit("standings: daemon_running is not null")
shape(j, cli, "standings")
if j["window"] != "all" or j["miners"] != 2 or len(j["rows"]) != 2 or \
   [r["rank"] for r in j["rows"]] != [1, 2] or j["as_of_ms"] is None or \
   j["best_number"] is None or "stale_reason" not in j:
    sys.exit("standings: %r" % j)
h, j = get("/api/v1/chains/devchain/standings?window=all&offset=1&limit=1", 200)
if [r["rank"] for r in j["rows"]] != [2] or j["offset"] != 1:
    sys.exit("offset 1 limit 1: %r" % j["rows"])
for w in ("1h", "24h", "7d"):
    h, j = get("/api/v1/chains/devchain/standings?window=" + w, 200)
    if j["window"] != w:
        sys.exit("window %s: %r" % (w, j["window"]))

# Endpoints: chainwatch endpoints --json.
cli = json.load(open(tdir + "/cli-endpoints.json"))
del cli["daemon_running"]
h, j = get("/api/v1/chains/devchain/endpoints", 200)
if j.pop("daemon_running") is not None:
    sys.exit("endpoints: daemon_running is not null")
shape(j, cli, "endpoints")
if [e["name"] for e in j["endpoints"]] != ["d1"] or j["endpoints"][0]["state"] != "closed":
    sys.exit("endpoints: %r" % j)
error("/api/v1/chains/nochain/endpoints", 404, "unknown_chain")
error("/api/v1/chains/devchain/endpoints?all=1", 400, "unknown_parameter")

# Forks and splits: chainwatch forks --json; reorgs as the store has them.
cli = json.load(open(tdir + "/cli-forks.json"))
del cli["daemon_running"]
h, j = get("/api/v1/chains/devchain/forks", 200)
if j.pop("daemon_running") is not None:
    sys.exit("forks: daemon_running is not null")
shape(j, cli, "forks")
if j["chains"][0]["chain"] != "devchain" or j["chains"][0]["branches"] != 1:
    sys.exit("forks: %r" % j)
h, j = get("/api/v1/chains/devchain/reorgs?limit=1000", 200)
stored = int(open(tdir + "/reorgs.count").read())
if len(j["reorgs"]) < min(stored, 1000) or j["chain"] != "devchain":
    sys.exit("reorgs: %d of %d stored" % (len(j["reorgs"]), stored))
error("/api/v1/chains/devchain/reorgs?limit=1001", 400, "bad_parameter")
error("/api/v1/chains/devchain/forks?splits=-1", 400, "bad_parameter")
error("/api/v1/chains/nochain/reorgs", 404, "unknown_chain")

# Blocks: chainwatch blocks --json, the last N or a range by number.
cli = json.load(open(tdir + "/cli-blocks.json"))
del cli["daemon_running"]
h, j = get("/api/v1/chains/devchain/blocks?last=5", 200)
if j.pop("daemon_running") is not None:
    sys.exit("blocks: daemon_running is not null")
shape(j, cli, "blocks")
if j["last"] != 5 or j["heights"] != 5 or j["from"] is not None:
    sys.exit("blocks?last=5: %r" % {k: j[k] for k in ("last", "heights", "from")})
h, j = get("/api/v1/chains/devchain/blocks?from=10&to=19", 200)
nums = sorted({b["number"] for b in j["blocks"]})
if nums != list(range(10, 20)) or j["from"] != 10 or j["to"] != 19 or j["last"] is not None:
    sys.exit("blocks 10..19: %r" % nums)
b = j["blocks"][0]
if not b["miner"] or b["first_endpoint"] != "d1" or b["difficulty"] is None \
   or b["timestamp_ms"] is None or not isinstance(b["canonical"], bool):
    sys.exit("a block: %r" % b)
h, j = get("/api/v1/chains/devchain/blocks?from=0&to=9999", 200)
error("/api/v1/chains/devchain/blocks?from=0&to=10000", 400, "bad_parameter")
error("/api/v1/chains/devchain/blocks?last=10001", 400, "bad_parameter")
error("/api/v1/chains/devchain/blocks?last=0", 400, "bad_parameter")
error("/api/v1/chains/devchain/blocks?from=20&to=10", 400, "bad_parameter")
error("/api/v1/chains/devchain/blocks?from=-1&to=10", 400, "bad_parameter")
error("/api/v1/chains/devchain/blocks?from=10", 400, "bad_parameter")
error("/api/v1/chains/devchain/blocks?last=5&from=1&to=2", 400, "bad_parameter")
error("/api/v1/chains/nochain/blocks?last=5", 404, "unknown_chain")

# A miner's record: its row of every window, by SS58 or by account.
h, st = get("/api/v1/chains/devchain/standings?window=all", 200)
top = st["rows"][0]
for who in (top["miner"], top["account"], top["account"].upper().replace("0X", "0x")):
    h, j = get("/api/v1/chains/devchain/miners/" + who, 200)
    if j["account"] != top["account"] or set(j["windows"]) != {"all", "1h", "24h", "7d"}:
        sys.exit("miner %s: %r" % (who, j))
    row = j["windows"]["all"]
    if row["rank"] != 1 or row["blocks"] < top["blocks"] or set(row) != set(top):
        sys.exit("miner %s, all: %r against %r" % (who, row, top))
error("/api/v1/chains/devchain/miners/" + "0x" + "ab" * 32, 404, "unknown_miner")
error("/api/v1/chains/devchain/miners/notanaddress", 400, "bad_miner")
error("/api/v1/chains/devchain/miners/" + top["miner"][:-1] + "x", 400, "bad_miner")
error("/api/v1/chains/devchain/miners/0xzz", 400, "bad_miner")
error("/api/v1/chains/devchain/miners/0x" + "ab" * 33, 400, "bad_miner")
error("/api/v1/chains/devchain/miners/" + "1" * 5000, 400, "bad_miner")
error("/api/v1/chains/devchain/miners/%0A%25", 400, "bad_miner")
error("/api/v1/chains/nochain/miners/" + top["miner"], 404, "unknown_chain")

# ETag and If-None-Match: a 304 without a body, unless a block came in
# between (then the tags differ); some try of a few must meet one.
path = "/api/v1/chains/devchain/standings?window=all"
for attempt in range(20):
    st, h, b = req(path)
    st2, h2, b2 = req(path, headers={"If-None-Match": h["etag"]})
    if st2 == 304:
        if b2 or h2.get("etag") != h["etag"] or \
           not h2.get("cache-control", "").startswith("public, max-age="):
            sys.exit("304: %r %r" % (h2, b2))
        break
    if st2 != 200:
        sys.exit("If-None-Match: %d" % st2)
else:
    sys.exit("If-None-Match never answered 304")
st, h, b = req(path, headers={"If-None-Match": '"0000000000000000"'})
if st != 200 or not b:
    sys.exit("another tag: %d" % st)

# Answers are kept per request while the store's data_version stays
# (for 10 s at most): after a new block in the store, the request with
# the tag it had answers 200 and the new block, not a kept 304.  A round
# slower than 8 s could have outlived the 10 s and proves nothing: again.
def store_best():
    c = sqlite3.connect("file:%s/chainwatch.db?mode=ro" % tdir, uri=True,
                        timeout=20)
    try:
        return c.execute("SELECT best_number FROM chains").fetchone()[0]
    finally:
        c.close()

for attempt in range(5):
    t0 = time.monotonic()
    req(path)
    st, h, b = req(path)
    old = json.loads(b)["best_number"]
    while store_best() <= old and time.monotonic() - t0 < 8:
        time.sleep(0.05)
    st2, h2, b2 = req(path, headers={"If-None-Match": h["etag"]})
    if time.monotonic() - t0 >= 8:
        continue
    if st2 != 200 or h2.get("etag") == h["etag"] or \
       json.loads(b2)["best_number"] <= old:
        sys.exit("a kept answer outlived a new block: %d, best %r after %d"
                 % (st2, b2[:60], old))
    break
else:
    sys.exit("no new block within 8 s, 5 times")

# HEAD: the headers of GET, no body.
st, h, b = req("/api/v1/chains", "HEAD")
if st != 200 or b or h.get("content-type") != "application/json" or "etag" not in h:
    sys.exit("HEAD: %d %r %r" % (st, h, b))
st, h, b = req("/api/v1/chains", "POST")
if st != 405:
    sys.exit("POST: %d" % st)

# Hostile parameters.
s = "/api/v1/chains/devchain/standings"
error(s + "?limit=1001", 400, "bad_parameter")
error(s + "?limit=99999999999999999999999", 400, "bad_parameter")
error(s + "?limit=0", 400, "bad_parameter")
error(s + "?limit=-1", 400, "bad_parameter")
error(s + "?limit=1e3", 400, "bad_parameter")
error(s + "?limit=+5", 400, "bad_parameter")
error(s + "?offset=-5", 400, "bad_parameter")
error(s + "?offset=1000001", 400, "bad_parameter")
error(s + "?window=2h", 400, "bad_parameter")
error(s + "?final=2", 400, "bad_parameter")
error(s + "?colour=red", 400, "unknown_parameter")
error(s + "?x=" + "A" * 10240, 400, "unknown_parameter")
error(s + "?limit=" + "9" * 10240, 400, "bad_parameter")
error("/api/v1/chains?limit=1", 400, "unknown_parameter")
error("/api/v1/chains/nochain", 404, "unknown_chain")
error("/api/v1/chains/nochain/standings", 404, "unknown_chain")
error("/api/v1/chains/" + "c" * 200, 404, "unknown_chain")
error("/api/v1/chains/devchain/nothing", 404, "unknown_route")
error("/api/v2/chains", 404, "unknown_route")
error("/api/v1/", 404, "unknown_route")
json.dump(seen, open(tdir + "/responses.json", "w"))
PY
ok "routes, shapes, ETag/304, Cache-Control, HEAD, CORS, hostile parameters"

# Off by default: chainwatch-metrics without -o sends no CORS header.
as_user=
[ "$(id -u)" = 0 ] && as_user="-u nobody"
"$METRICS" -f -l 127.0.0.1:0 -d "$T/chainwatch.db" -s "$T/none.sock" \
    -p "$T/mport" $as_user >>"$T/alone.log" 2>&1 &
CW_PIDS="$CW_PIDS $!"
wait_for 10 "test -s '$T/mport'" || fail "chainwatch-metrics alone did not start"
curl -s -D "$T/alone.h" -o "$T/alone.json" -m 20 \
    "http://127.0.0.1:$(cat "$T/mport")/api/v1/chains" || fail "GET alone"
grep -q '^HTTP/1.1 200' "$T/alone.h" || fail "alone: $(head -n 1 "$T/alone.h")"
! grep -qi '^access-control-allow-origin' "$T/alone.h" ||
    fail "a CORS header without metrics_cors_origin"
ok "no CORS header by default"

# The OpenAPI document, against Debian's OpenAPI 3.0 schema, and every
# answer above against the document.  Last: it skips without them.
OAS=/usr/share/openapi-specification/schemas/v3.0/schema.json
[ -r "$OAS" ] || { echo "SKIP: no $OAS (Debian package openapi-specification)"; exit 77; }
python3 "$top_srcdir/tests/integration/openapi_check.py" \
    "$top_srcdir/etc/openapi.json" "$OAS" "$T/responses.json"
case $? in
0) ok "the OpenAPI document validates and every answer matches it" ;;
77) exit 77 ;;
*) fail "OpenAPI" ;;
esac
