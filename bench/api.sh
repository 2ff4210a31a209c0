#!/bin/sh
# bench/api.sh: requests per second and p50/p99 latency of
# chainwatch-metrics' status page and /api/v1/ on a store of Planck's size
# (N blocks, 1.65 M by default, 12 s apart; 20 miners; a reorged sibling
# every 500 heights, with its reorgs row), measured by ab (apache2-utils)
# with C concurrent clients (16), each route with and without
# If-None-Match; before that, the time to build an answer not asked
# before (standings all and 7d, each miner's record), one at a time.
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
