#!/bin/sh
# chainwatch-metrics under its real sandbox on a store big enough that
# SQLite's sorts spill to a temporary file (issue 31: 20 000 blocks were
# enough; Planck has 1.65 M).  Its sandbox allows only the store's folder,
# read-only, so such a file outside it, /var/tmp/etilqs_*, is refused:
# the standings of a window of more than some 20 000 blocks (here 7d)
# failed with "unable to open database file", chainwatch_store_up 0.  Every query a scrape and the
# status page make must succeed.  chainwatch(1), not sandboxed, keeps its
# temporary files: its views must work on the same store.
. "$top_srcdir/tests/integration/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
# Without strace nothing shows that the store needs a temporary file; in
# the sanitizer build there is no sandbox to refuse it.  Either way the
# test would pass whatever the fix: skipped.
command -v strace >/dev/null ||
    { echo "SKIP: no strace: that the store needs a temporary file cannot be shown"; exit 77; }
[ "$CW_SANITIZED" != yes ] ||
    { echo "SKIP: sanitizer build: no Landlock, no seccomp filter to refuse the temporary file"; exit 77; }
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

METRICS=$top_builddir/metrics/chainwatch-metrics
CHAINWATCH=$top_builddir/cli/chainwatch
PROMPARSE=$top_srcdir/tests/integration/promparse.py
DB=$T/chainwatch.db
# 40 000 blocks, one every 12 s (5.6 days: all in the 7d window), 50
# miners, each block of difficulty 1 000 000: the 7d window's grouping
# sorts 40 000 rows, about twice what SQLite keeps in memory by default.
N=40000
MINERS=50

now=$(($(date +%s) * 1000))
sh "$top_srcdir/tests/integration/bigstore.sh" "$DB" $N $MINERS || fail "the store"
[ "$(sqlite3 -readonly "$DB" 'SELECT count(*) FROM blocks')" = $N ] ||
    fail "the store has not $N blocks"

# The precondition, where strace can show it: outside any sandbox, the 7d
# window's query makes SQLite open a temporary file.  A store that needs
# none would let this test pass whatever the sandbox does.
q7d="SELECT count(*) FROM (SELECT coalesce(miner, x'') AS m, count(*),
    sum(final), min(number), max(number) FROM blocks WHERE chain_id = 1
    AND canonical = 1 AND number > 0 AND timestamp >= $now - 604800000
    GROUP BY 1)"
strace -f -e trace=openat -o "$T/strace" sqlite3 -readonly "$DB" "$q7d" \
    >"$T/q7d" 2>&1 || fail "strace sqlite3: $(cat "$T/q7d")"
grep -q 'etilqs_' "$T/strace" ||
    fail "$N blocks need no temporary file: make the store bigger"
ok "outside the sandbox the 7d window's sort opens $(grep -o '"[^"]*etilqs_[^"]*"' "$T/strace" | head -n 1)"

# It never runs as root: as root, it runs as nobody, which reads the
# store through $T (0711) and the files sqlite3 made 0644.
AS_USER=
[ "$(id -u)" = 0 ] && AS_USER="-u nobody"
# No chainwatchd: the store alone (chainwatch_up 0).
# shellcheck disable=SC2086
"$METRICS" -f -L debug -l 127.0.0.1:0 -d "$DB" -s "$T/none.sock" \
    -p "$T/port" $AS_USER >>"$T/log" 2>&1 &
MPID=$!
CW_PIDS="$CW_PIDS $MPID"
wait_for 10 "test -s '$T/port'" || fail "chainwatch-metrics did not start"
PORT=$(cat "$T/port")
if grep -q 'no Landlock' "$T/log"; then
	echo "note: no Landlock here: only the seccomp filter refuses the" \
	    "temporary file"
fi

curl -s -f -m 30 -o "$T/m" "http://127.0.0.1:$PORT/metrics" ||
    fail "no answer on /metrics"
python3 "$PROMPARSE" "$T/m" || fail "not a valid exposition"
val() {
	python3 "$PROMPARSE" "$T/m" "$1"
}
[ "$(val chainwatch_store_up)" = 1 ] ||
    fail "chainwatch_store_up $(val chainwatch_store_up): $(grep -a 'metrics: .*reading' "$T/log" | head -n 3)"
for w in 1h 24h 7d all; do
	hr=$(val "chainwatch_chain_hashrate{chain=\"planck\",window=\"$w\"}")
	# One block of 1 000 000 every 12 s.
	awk -v h="$hr" 'BEGIN { exit !(h > 83000 && h < 83700) }' ||
	    fail "the $w hashrate is $hr, not about 83333 H/s"
done
ok "/metrics: chainwatch_store_up 1, hashrate about 83333 H/s in every window"

code=$(curl -s -m 30 -o "$T/page.html" -w '%{http_code}' "http://127.0.0.1:$PORT/")
[ "$code" = 200 ] || fail "GET / gave $code"
! grep -q 'cannot read the store' "$T/page.html" ||
    fail "the status page cannot read the store: $(grep -a 'metrics: .*reading' "$T/log" | head -n 3)"
grep -q "<p>$N blocks, $MINERS miners" "$T/page.html" ||
    fail "the status page's 7d window has not $N blocks, $MINERS miners"
ok "status page: every window read, the 7d one $N blocks of $MINERS miners"
! grep -a -e 'unable to open database file' -e 'metrics: .*reading' "$T/log" ||
    fail "the metrics server failed to read the store"
kill -TERM "$MPID"
wait "$MPID" || fail "chainwatch-metrics exited with $? on SIGTERM"

# chainwatch(1): the same read path (src/view_db.c), temporary files.
for w in 24h 7d; do
	"$CHAINWATCH" -d "$DB" standings planck --window "$w" --json \
	    >"$T/s.json" 2>"$T/cw.err" ||
	    fail "chainwatch standings --window $w: $(cat "$T/cw.err")"
done
python3 - "$T/s.json" "$N" "$MINERS" <<'PY' || fail "standings --window 7d: $(head -c 300 "$T/s.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["window"] == "7d", s["window"]
assert s["blocks"] == int(sys.argv[2]), s["blocks"]
assert s["miners"] == int(sys.argv[3]), s["miners"]
PY
"$CHAINWATCH" -d "$DB" verify >"$T/verify" 2>&1 ||
    fail "chainwatch verify: $(tail -n 5 "$T/verify")"
"$CHAINWATCH" -d "$DB" blocks planck --last 1000 >/dev/null 2>"$T/cw.err" ||
    fail "chainwatch blocks: $(cat "$T/cw.err")"
# A status line, and the exit code chainwatch(1) gives its state.
"$CHAINWATCH" -d "$DB" status >"$T/status" 2>"$T/cw.err"
rc=$?
case $(sed -n 's/^planck: \([a-z]*\):.*/\1/p' "$T/status") in
ok) want=0 ;;
degraded) want=1 ;;
stalled) want=2 ;;
unreachable) want=3 ;;
*) want=none ;;
esac
[ "$rc" = "$want" ] ||
    fail "chainwatch status: exit $rc for: $(cat "$T/status" "$T/cw.err")"
grep -q '^planck: ' "$T/status" || fail "chainwatch status: $(cat "$T/status")"
ok "chainwatch standings (24h, 7d), verify, blocks and status on $N blocks"
