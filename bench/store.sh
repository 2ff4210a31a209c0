#!/bin/sh
# bench/store.sh: what the store costs per block.  Two devnodes of one
# Quantus chain (12 s blocks, 16 miners) with a backlog of N blocks;
# chainwatchd follows them until every block has its state and all but
# the last 100 are final, then stops.  Printed: the store's size and its
# bytes per block, in all and per table and index (SQLite's dbstat), and
# what a year of one chain at 12 s blocks (2 628 000 blocks) and of both
# testnets comes to at that rate.
#
#   sh bench/store.sh [-b build-dir] [-n blocks] [-m miners]
#
# Run from a build directory (or give -b).  Asserts nothing.
set -u
b=${top_builddir:-.}
n=100000
miners=16
while getopts b:n:m: o; do
	case $o in
	b) b=$OPTARG ;;
	n) n=$OPTARG ;;
	m) miners=$OPTARG ;;
	*) echo "usage: sh bench/store.sh [-b build-dir] [-n blocks]" \
	    "[-m miners]" >&2; exit 2 ;;
	esac
done
b=$(cd "$b" && pwd)
for p in supervisor/chainwatchd workers/chainwatch-worker \
    devnode/chainwatch-devnode; do
	[ -x "$b/$p" ] || { echo "build first: $b/$p is missing" >&2; exit 2; }
done
command -v sqlite3 >/dev/null || { echo "needs sqlite3" >&2; exit 2; }
user=$(id -un)
[ "$(id -u)" = 0 ] && user=nobody
block_ms=12000

T=$(mktemp -d "${TMPDIR:-/tmp}/cw-store.XXXXXX") || exit 2
chmod 755 "$T"
PIDS=
stop_all() {
	for p in $PIDS; do
		kill "$p" 2>/dev/null
	done
	for p in $PIDS; do
		wait "$p" 2>/dev/null
	done
	PIDS=
}
trap 'stop_all; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP

wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$1" ]
}
sql() {
	sqlite3 -readonly "$T/chainwatch.db" "$1" 2>/dev/null
}

start=$(($(date +%s) * 1000))
for d in d1 d2; do
	"$b/devnode/chainwatch-devnode" --listen 127.0.0.1:0 \
	    --control-listen 127.0.0.1:0 --port-file "$T/$d.port" \
	    --cache-dir none --seed store --backlog "$n" --miners "$miners" \
	    --block-time $block_ms --start-time "$start" >"$T/$d.log" 2>&1 &
	PIDS="$PIDS $!"
	wait_file "$T/$d.port" || { echo "devnode $d did not start" >&2
	    cat "$T/$d.log" >&2; exit 1; }
done
p1=$(cat "$T/d1.port") p2=$(cat "$T/d2.port")
cat >"$T/chainwatch.conf" <<CONF
[daemon]
database = $T/chainwatch.db
pidfile = $T/chainwatchd.pid
user = $user
worker = $b/workers/chainwatch-worker
control_socket = $T/chainwatchd.sock
metrics_listen = none
log_level = warn

[chain store]
difficulty_floor = 1
block_time = ${block_ms}ms
endpoint = d1 http://127.0.0.1:$p1 ws://127.0.0.1:$p1
endpoint = d2 http://127.0.0.1:$p2 ws://127.0.0.1:$p2
CONF
t0=$(date +%s)
"$b/supervisor/chainwatchd" -d -f "$T/chainwatch.conf" >"$T/log" 2>&1 &
cw=$!
PIDS="$PIDS $cw"
echo "bench/store: 2 devnodes, quantus, $n blocks of backlog, $miners miners"
while :; do
	done_=$(sql "SELECT count(*) FROM blocks WHERE canonical = 1 AND
	    state_at IS NOT NULL")
	final=$(sql "SELECT coalesce(final_number, -1) FROM chains")
	[ "${done_:-0}" -gt "$n" ] && [ "${final:--1}" -ge $((n - 100)) ] &&
	    break
	kill -0 $cw 2>/dev/null || { echo "chainwatchd stopped:" >&2
	    tail -n 5 "$T/log" >&2; exit 1; }
	sleep 1
done
echo "stored and final in $(($(date +%s) - t0)) s"
kill -TERM $cw
wait $cw
stop_all	# the devnodes

blocks=$(sql "SELECT count(*) FROM blocks")
bytes=$(sql "SELECT page_count * page_size FROM pragma_page_count(),
    pragma_page_size()")
wal=0
[ -f "$T/chainwatch.db-wal" ] && wal=$(wc -c <"$T/chainwatch.db-wal")
awk -v n="$blocks" -v s="$bytes" -v w="$wal" 'BEGIN {
	printf "%d blocks: store %.1f MB (WAL %.1f MB), %.0f bytes a block\n",
	    n, s / 1048576, w / 1048576, s / n
	y = 365.25 * 86400 / 12
	printf "a year at 12 s blocks (%d blocks): %.2f GB for one chain, " \
	    "%.2f GB for Planck and Heisenberg\n", y, y * s / n / 1e9,
	    2 * y * s / n / 1e9
}'
echo "per table and index, bytes a block:"
sql "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC" |
    awk -F'|' -v n="$blocks" '$2 / n >= 1 {
	printf "  %-28s %8.1f\n", $1, $2 / n }'
