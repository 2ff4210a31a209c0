#!/bin/sh
# The hashrate estimator against a devnode whose miners' weights are
# known: a chain started 25 h ago with 10 s blocks (about 9000 blocks) and
# weights 6, 3, 1, followed by chainwatchd with chainwatch-metrics.  Each
# miner's estimated share of the hashrate must be its weight's share to
# within 0.10 over the last hour (about 360 blocks: 4 standard deviations
# of a block count) and 0.025 over the last day (about 8640 blocks); the
# network's must be the devnode's (difficulty at genesis / block time,
# times a drift of 1/2 to 2); and chainwatch-metrics must say what
# chainwatch standings says.
. "$top_srcdir/tests/integration/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

METRICS=$top_builddir/metrics/chainwatch-metrics
CHAINWATCH=$top_builddir/cli/chainwatch
PROMPARSE=$top_srcdir/tests/integration/promparse.py
BT=10000
# The genesis difficulty: the devnode mines every seal, about DIFF nonce
# hashes a block, so a small one (the retarget rule cannot move a
# difficulty below 2048: solve times alone carry the hashrate's drift).
DIFF=16
START=$(python3 -c "import time; print((int(time.time()) - 25 * 3600) * 1000 // $BT * $BT)")

devnode d1 --seed hashrate --block-time $BT --start-time "$START" \
    --backlog 10 --miner-weights 6,3,1 --difficulty $DIFF
write_conf "$T/chainwatch.conf"
sed -i -e '/^metrics_listen/d' -e '/^metrics_server/d' \
    -e "/^\\[daemon\\]\$/a metrics_listen = 127.0.0.1:0\\
metrics_server = $METRICS" \
    -e "s/^block_time = .*/block_time = ${BT}ms/" "$T/chainwatch.conf"
echo "endpoint = d1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port" \
    >>"$T/chainwatch.conf"
start_daemon
metrics_wait
wait_for 300 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(sql "SELECT count(*) FROM blocks WHERE canonical = 1 AND timestamp IS NOT NULL")" -gt 8000' ||
    fail "not caught up: $(sql "SELECT count(*) FROM blocks") blocks"
ok "caught up: $(sql "SELECT count(*) FROM blocks WHERE canonical = 1") blocks"

for w in 1h 24h; do
	"$CHAINWATCH" -d "$T/chainwatch.db" -s "$T/chainwatchd.sock" \
	    standings devchain --window $w --json >"$T/s-$w.json" ||
	    fail "standings --window $w --json"
	"$CHAINWATCH" -d "$T/chainwatch.db" -s "$T/chainwatchd.sock" \
	    standings devchain --window $w >"$T/s-$w.txt" ||
	    fail "standings --window $w"
	cat "$T/s-$w.txt"
done

python3 - "$T/s-1h.json" "$T/s-24h.json" "$DIFF" "$BT" <<'PY' ||
import json, sys
weights = [6, 3, 1]
want = sorted((w / sum(weights) for w in weights), reverse=True)
diff, bt = int(sys.argv[3]), int(sys.argv[4])
for path, bound in ((sys.argv[1], 0.10), (sys.argv[2], 0.025)):
    j = json.load(open(path))
    if j["hashrate_estimator"] != "work_over_span" or j["hashrate"] is None:
        sys.exit("%s: no estimate" % path)
    if len(j["rows"]) != 3:
        sys.exit("%s: %d miners, want 3" % (path, len(j["rows"])))
    net = j["hashrate"]
    rows = sorted(j["rows"], key=lambda r: -r["hashrate"])
    total = sum(r["hashrate"] for r in rows)
    if abs(total / net - 1) > 1e-9:
        sys.exit("%s: miners add up to %g, network %g" % (path, total, net))
    for r, p in zip(rows, want):
        got = r["hashrate"] / net
        print("%s %s: share %.4f, weight %.4f, error %.4f (bound %.3f)" %
              (j["window"], r["miner"][:10], got, p, got - p, bound))
        if abs(got - p) > bound:
            sys.exit("%s: miner %s has %.4f of the hashrate, weight %.4f" %
                     (j["window"], r["miner"], got, p))
    # The devnode mines at difficulty / solve time = DIFF / block time
    # times a drift it keeps between 1/2 and 2.
    base = diff / (bt / 1000.0)
    print("%s network %.4g H/s, %.3f of DIFF/block time" %
          (j["window"], net, net / base))
    if not 0.45 * base <= net <= 2.2 * base:
        sys.exit("%s: network %g H/s, want %g to %g" %
                 (j["window"], net, 0.45 * base, 2.2 * base))
PY
    fail "estimated shares"
ok "shares within 0.10 (1h) and 0.025 (24h) of the weights"

# chainwatch-metrics says the same (to 1%: a new block may come between).
curl -s -f -m 10 -o "$T/m" "http://127.0.0.1:$PORT/metrics" || fail "scrape"
python3 "$PROMPARSE" "$T/m" || fail "not a valid exposition"
"$CHAINWATCH" -d "$T/chainwatch.db" -s "$T/chainwatchd.sock" \
    standings devchain --window 24h --json >"$T/s-24h.json" ||
    fail "standings --window 24h --json"
python3 - "$T/m" "$T/s-24h.json" <<'PY' || fail "metrics and standings differ"
import json, re, sys
text = open(sys.argv[1]).read()
j = json.load(open(sys.argv[2]))
def sample(pat):
    m = re.search("^" + pat + r" (\S+)$", text, re.M)
    if not m:
        sys.exit("no sample " + pat)
    return float(m.group(1))
def near(what, a, b):
    if abs(a / b - 1) > 0.01:
        sys.exit("%s: metrics %g, standings %g" % (what, a, b))
near("network", sample(r'chainwatch_chain_hashrate\{chain="devchain",window="24h"\}'), j["hashrate"])
for r in j["rows"]:
    near(r["miner"], sample(r'chainwatch_miner_hashrate\{chain="devchain",miner="%s",window="24h"\}' % re.escape(r["miner"])), r["hashrate"])
for w in ("1h", "7d", "all"):
    sample(r'chainwatch_chain_hashrate\{chain="devchain",window="%s"\}' % w)
PY
ok "chainwatch-metrics agrees with chainwatch standings"
