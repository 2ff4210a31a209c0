#!/bin/sh
# bench/api.sh: requests per second and p50/p99 latency of
# chainwatch-metrics' status page and /api/v1/ on a store of Planck's size
# (N blocks, 1.65 M by default, 12 s apart; 20 miners; a reorged sibling
# every 500 heights, with its reorgs row), measured by ab (apache2-utils)
# with C concurrent clients (16), each route with and without
# If-None-Match; before that, the time to build an answer not asked
# before (standings all and 7d, each miner's record), one at a time.
# Last, the daemon's head-to-row latency idle and under that load (a
# chainwatchd following a second, live chain into the same store; LIVE
# seconds each, 90 by default, 0 for none; LIVE_MS blocks, 500).
# Run from a build directory (or with top_builddir set):
#   sh ../../bench/api.sh            N=200000 REQS=2000 sh ../../bench/api.sh
# The store is made by tests/integration/bigstore.sh (the schema of
# src/schema.c, filled in SQL), as metrics_large_store.sh's is: the
# blocks, miners, standings and reorgs rows chainwatchd would write, not
# through chainwatchd.  Prints one line per route and case.
set -u
b=${top_builddir:-.}
N=${N:-1650000}
C=${C:-16}
REQS=${REQS:-2000}
MINERS=20
METRICS=$b/metrics/chainwatch-metrics
MKSCHEMA=$b/tests/integration/mkschema
for x in "$METRICS" "$MKSCHEMA"; do
	[ -x "$x" ] || { echo "build first: $x" >&2; exit 2; }
done
command -v ab >/dev/null || { echo "ab missing (apt-get install apache2-utils)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "sqlite3 missing" >&2; exit 2; }
T=$(mktemp -d /tmp/bench-api.XXXXXX)
chmod 0711 "$T"
MPID=
trap '[ -n "$MPID" ] && kill "$MPID" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
DB=$T/chainwatch.db
t0=$(date +%s)
top_builddir=$b sh "$(dirname "$0")/../tests/integration/bigstore.sh" "$DB" "$N" \
    $MINERS 500 || exit 1
sqlite3 "$DB" ANALYZE || exit 1
chmod 0644 "$DB"*
echo "store: $(sqlite3 -readonly "$DB" 'SELECT count(*) FROM blocks') blocks, $(sqlite3 -readonly "$DB" 'SELECT count(*) FROM reorgs') reorgs, $MINERS miners, $(du -m "$DB" | cut -f1) MB, made in $(($(date +%s) - t0)) s"
MINER=0x$(sqlite3 -readonly "$DB" "SELECT lower(hex(miner)) FROM standings ORDER BY blocks DESC LIMIT 1")

as_user=
[ "$(id -u)" = 0 ] && as_user="-u nobody"
# shellcheck disable=SC2086
"$METRICS" -f -l 127.0.0.1:0 -d "$DB" -s "$T/none.sock" -p "$T/port" \
    -L warn $as_user 2>"$T/metrics.log" &
MPID=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$T/port" ] || { echo "chainwatch-metrics did not start" >&2; cat "$T/metrics.log" >&2; exit 1; }
U=http://127.0.0.1:$(cat "$T/port")

# run NAME PATH [etag]: one ab run; prints NAME, requests/s, p50, p99.
run() {
	if [ $# -gt 2 ]; then
		ab -q -k -n "$REQS" -c "$C" -H "If-None-Match: $3" "$U$2" >"$T/ab" 2>&1
	else
		ab -q -k -n "$REQS" -c "$C" "$U$2" >"$T/ab" 2>&1
	fi
	awk -v name="$1" '
	    /^Requests per second:/ { rps = $4 }
	    /^Non-2xx responses:/ { non2xx = $3 }
	    /^Failed requests:/ { failed = $3 }
	    /^  50%/ { p50 = $2 } /^  99%/ { p99 = $2 }
	    END { printf "%-34s %8.1f req/s  p50 %4d ms  p99 %4d ms  failed %d  non-2xx %d\n",
	        name, rps, p50, p99, failed, non2xx }' "$T/ab"
}
# cold NAME PATH...: each path once, one after another, none asked
# before (chainwatch-metrics keeps answers per request: a repeated one is
# not built again); prints NAME, the count, p50 and the slowest.
cold() {
	name=$1
	shift
	for p in "$@"; do
		curl -s -o /dev/null -w '%{time_total}\n' "$U$p"
	done | sort -n | awk -v name="$name" '
	    { t[NR] = $1 * 1000 }
	    END { printf "%-34s %8d built   p50 %4d ms  max %4d ms\n",
	        name, NR, t[int((NR + 1) / 2)], t[NR] }'
}
etag() {
	curl -s -o /dev/null -D - "$U$1" | tr -d '\r' |
	    sed -n 's/^[Ee][Tt][Aa][Gg]: //p'
}
# Built, not kept: distinct requests, one at a time (20 each).
i=0 sa= s7=
while [ $i -lt 20 ]; do
	i=$((i + 1))
	sa="$sa /api/v1/chains/planck/standings?window=all&limit=$i"
	s7="$s7 /api/v1/chains/planck/standings?window=7d&limit=$i"
done
echo "built once each, one client:"
# shellcheck disable=SC2086
cold "standings?window=all" $sa
# shellcheck disable=SC2086
cold "standings?window=7d" $s7
# shellcheck disable=SC2086
cold "miner (each of $MINERS)" $(sqlite3 -readonly "$DB" \
    "SELECT '/api/v1/chains/planck/miners/0x' || lower(hex(miner)) FROM standings")
echo "ab: $REQS requests, $C concurrent, keep-alive; $(nproc) CPUs"
S=/api/v1/chains/planck/standings?window=all
B=/api/v1/chains/planck/blocks?last=100
M=/api/v1/chains/planck/miners/$MINER
for r in "/ /" "standings?window=all $S" "standings?window=24h /api/v1/chains/planck/standings?window=24h" \
    "standings?window=7d /api/v1/chains/planck/standings?window=7d" \
    "blocks?last=100 $B" "miner $M" "reorgs /api/v1/chains/planck/reorgs" \
    "chains /api/v1/chains"; do
	name=${r% *}
	path=${r##* }
	run "$name" "$path"
	case $path in
	/api/*) run "$name (If-None-Match)" "$path" "$(etag "$path")" ;;
	esac
done

# The daemon under that load: a chainwatchd follows a second chain, live
# (two devnodes, LIVE_MS blocks), into the same store; LIVE seconds idle,
# then LIVE seconds with 16 clients (4 on each of standings all and 7d,
# blocks?last=100 and the miner's record) on the Planck-size chain, from
# the daemon's own metrics server (as chainwatchd runs it).
# Every stored block ends each cached answer, so answers are built again
# a block time.  Head-to-row latency: a canonical block's first_seen less
# its Timestamp.Now (the devnode sets it to the millisecond it makes the
# block); p50 and p99 of the blocks first stored in each phase.
LIVE=${LIVE:-90}
LIVE_MS=${LIVE_MS:-500}
[ "$LIVE" -gt 0 ] || exit 0
DN=$b/devnode/chainwatch-devnode
CWD=$b/supervisor/chainwatchd
for x in "$DN" "$CWD" "$b/workers/chainwatch-worker"; do
	[ -x "$x" ] || { echo "build first: $x" >&2; exit 2; }
done
ms() { date +%s%3N; }
start=$(ms)
LPIDS=
trap '[ -n "$MPID" ] && kill "$MPID" 2>/dev/null; for p in $LPIDS; do kill "$p" 2>/dev/null; done; wait; rm -rf "$T"' EXIT INT TERM
for n in l1 l2; do
	"$DN" --listen 127.0.0.1:0 --control-listen 127.0.0.1:0 \
	    --port-file "$T/$n.port" --control-port-file "$T/$n.cport" \
	    --cache-dir none --seed api-live --block-time "$LIVE_MS" \
	    --backlog 100 --start-time "$start" >"$T/$n.log" 2>&1 &
	LPIDS="$LPIDS $!"
done
for n in l1 l2; do
	i=0
	while ! [ -s "$T/$n.port" ]; do
		i=$((i + 1))
		[ $i -lt 300 ] || { echo "devnode $n did not start" >&2; exit 1; }
		sleep 0.1
	done
done
[ -n "$as_user" ] && chown -R nobody "$T"
{
	echo "[daemon]"
	echo "database = $DB"
	echo "pidfile = $T/cw.pid"
	[ -n "$as_user" ] && echo "user = nobody"
	echo "worker = $(cd "$b" && pwd)/workers/chainwatch-worker"
	echo "metrics_server = $(cd "$b" && pwd)/metrics/chainwatch-metrics"
	echo "log_level = info"
	echo "control_socket = $T/ctl.sock"
	echo "metrics_listen = 127.0.0.1:0"
	echo "[chain live]"
	echo "difficulty_floor = 1"
	echo "block_time = ${LIVE_MS}ms"
	for n in l1 l2; do
		echo "endpoint = $n http://127.0.0.1:$(cat "$T/$n.port") ws://127.0.0.1:$(cat "$T/$n.port")"
	done
} >"$T/cw.conf"
"$CWD" -d -f "$T/cw.conf" >"$T/cw.log" 2>&1 &
CW=$!
LPIDS="$LPIDS $CW"
live_rows() {
	sqlite3 -readonly "$DB" "SELECT count(*) FROM blocks b JOIN chains c
	    ON c.id = b.chain_id WHERE c.name = 'live' AND b.canonical = 1" \
	    2>/dev/null || echo 0
}
i=0
until [ "$(live_rows)" -gt 105 ]; do
	i=$((i + 1))
	[ $i -lt 1200 ] || { echo "live chain not caught up; see $T/cw.log" >&2; cat "$T/cw.log" >&2; exit 1; }
	kill -0 $CW 2>/dev/null || { cat "$T/cw.log" >&2; exit 1; }
	sleep 0.1
done
LP=$(sed -n 's/.* metrics: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$T/cw.log" | tail -n 1)
[ -n "$LP" ] || { echo "the daemon's metrics server is not listening; see $T/cw.log" >&2; cat "$T/cw.log" >&2; exit 1; }
LU=http://127.0.0.1:$LP
# h2r FROM TO: p50, p99 and count of the head-to-row latency of the live
# chain's canonical blocks first stored in [FROM, TO) ms.
h2r() {
	sqlite3 -readonly "$DB" "SELECT b.first_seen - b.timestamp FROM blocks b
	    JOIN chains c ON c.id = b.chain_id WHERE c.name = 'live' AND
	    b.canonical = 1 AND b.first_seen >= $1 AND b.first_seen < $2" |
	    sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) { print "0 0 0"; exit }
	    i50 = int(NR * 0.50 + 0.5); i99 = int(NR * 0.99 + 0.5)
	    if (i50 < 1) i50 = 1; if (i99 < 1) i99 = 1
	    print v[i50], v[i99], NR }'
}
echo "live: a chainwatchd follows a second chain ($LIVE_MS ms blocks, 2 devnodes) into this store"
t0=$(ms)
sleep "$LIVE"
t1=$(ms)
k=0 ABP=
for p in "$S" "/api/v1/chains/planck/standings?window=7d" "$B" "$M"; do
	k=$((k + 1))
	ab -q -k -t "$LIVE" -n 100000000 -c 4 "$LU$p" >"$T/ab.$k" 2>&1 &
	ABP="$ABP $!"
done
# shellcheck disable=SC2086
wait $ABP
t2=$(ms)
served=$(cat "$T"/ab.* | awk '/^Complete requests:/ { n += $3 } END { print n + 0 }')
set -- $(h2r "$t0" "$t1")
i50=$1 i99=$2 in=$3
set -- $(h2r "$t1" "$t2")
echo "head-to-row idle:  p50 $i50 ms  p99 $i99 ms  ($in blocks)"
echo "head-to-row load:  p50 $1 ms  p99 $2 ms  ($3 blocks; $served API requests in $LIVE s, 16 clients)"
awk -v a="$i99" -v b="$2" 'BEGIN { if (a > 0) printf "head-to-row p99 load/idle: %.2f\n", b / a }'
