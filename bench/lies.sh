#!/bin/sh
# bench/lies.sh: what one lying endpoint costs the daemon.  For each lie
# the devnode can tell, a fresh run: two devnodes of one chain, chainwatchd
# following both; once the backlog is in, the second devnode starts lying
# for SECS seconds.  Printed per lie: the supervisor's CPU seconds over the
# phase, the most queue rows seen, its peak RSS, what the store says of the
# liar, and whether the store still equals the honest chain -- with the
# CPU and queue figures as ratios to the honest run of the same invocation.
#
#   sh bench/lies.sh [-b build-dir] [-t secs] [-m block-ms] [LIE...]
#
# Run from a build directory (or give -b).  Asserts nothing.
set -u
b=${top_builddir:-.}
secs=30
block_ms=250
while getopts b:t:m: o; do
	case $o in
	b) b=$OPTARG ;;
	t) secs=$OPTARG ;;
	m) block_ms=$OPTARG ;;
	*) echo "usage: sh bench/lies.sh [-b build-dir] [-t secs]" \
	    "[-m block-ms] [LIE...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
b=$(cd "$b" && pwd)
for p in supervisor/chainwatchd workers/chainwatch-worker \
    devnode/chainwatch-devnode; do
	[ -x "$b/$p" ] || { echo "build first: $b/$p is missing" >&2; exit 2; }
done
command -v sqlite3 >/dev/null || { echo "needs sqlite3" >&2; exit 2; }
command -v curl >/dev/null || { echo "needs curl" >&2; exit 2; }

# FORMAT:FAULT, honest first (the baseline).
if [ $# -gt 0 ]; then
	lies="quantus:honest $*"
else
	lies="quantus:honest quantus:forge_head quantus:forge_chain:128
	    quantus:bad_number:50 quantus:wrong_header quantus:wrong_count
	    substrate:finalized_off"
fi
backlog=300
hz=$(getconf CLK_TCK)
user=$(id -un)
[ "$(id -u)" = 0 ] && user=nobody

T=$(mktemp -d "${TMPDIR:-/tmp}/cw-lies.XXXXXX") || exit 2
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

rpc() {	# PORT METHOD PARAMS: the JSON result
	curl -s -m 5 -H 'Content-Type: application/json' -d \
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$2\",\"params\":$3}" \
	    "http://127.0.0.1:$1/" |
	    sed -n 's/.*"result":\(.*\)}$/\1/p'
}

wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$1" ]
}

cpu_ticks() {	# utime + stime of PID
	awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

# run FORMAT FAULT: one phase; prints its line, sets cpu and rows.
run() {
	fmt=$1 fault=$2
	d=$T/$fault.$fmt
	mkdir -p "$d"
	chmod 755 "$d"
	start=$(($(date +%s) * 1000))
	for n in d1 d2; do
		"$b/devnode/chainwatch-devnode" --listen 127.0.0.1:0 \
		    --control-listen 127.0.0.1:0 --port-file "$d/$n.port" \
		    --control-port-file "$d/$n.cport" --cache-dir none \
		    --format "$fmt" --seed lies --backlog $backlog \
		    --block-time "$block_ms" --start-time "$start" \
		    >"$d/$n.log" 2>&1 &
		PIDS="$PIDS $!"
		wait_file "$d/$n.port" || { echo "devnode $n did not start" >&2
		    cat "$d/$n.log" >&2; exit 1; }
	done
	p1=$(cat "$d/d1.port") p2=$(cat "$d/d2.port")
	cat >"$d/chainwatch.conf" <<CONF
[daemon]
database = $d/chainwatch.db
pidfile = $d/chainwatchd.pid
user = $user
worker = $b/workers/chainwatch-worker
control_socket = $d/chainwatchd.sock
metrics_listen = none
log_level = info

[chain lies]
difficulty_floor = 1
format = $fmt
block_time = ${block_ms}ms
endpoint = d1 http://127.0.0.1:$p1 ws://127.0.0.1:$p1
endpoint = d2 http://127.0.0.1:$p2 ws://127.0.0.1:$p2
CONF
	"$b/supervisor/chainwatchd" -d -f "$d/chainwatch.conf" \
	    >"$d/log" 2>&1 &
	cw=$!
	PIDS="$PIDS $cw"
	i=0
	while [ $i -lt 600 ]; do
		n=$(sqlite3 -readonly "$d/chainwatch.db" "SELECT count(*) FROM
		    blocks WHERE canonical = 1 AND state_at IS NOT NULL" \
		    2>/dev/null)
		[ "${n:-0}" -gt $backlog ] && break
		kill -0 $cw 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	if [ "$fault" != honest ]; then
		a=$(curl -s -m 5 -d "{\"enable\":\"$fault\"}" \
		    "http://127.0.0.1:$(cat "$d/d2.cport")/control")
		case $a in
		*'"error"'*) echo "$fmt:$fault: the devnode says $a" >&2
			stop_all
			return 1 ;;
		esac
	fi
	c0=$(cpu_ticks $cw)
	rows=0
	end=$(($(date +%s) + secs))
	while [ "$(date +%s)" -lt $end ] && kill -0 $cw 2>/dev/null; do
		q=$(sqlite3 -readonly "$d/chainwatch.db" \
		    "SELECT count(*) FROM queue" 2>/dev/null)
		[ "${q:-0}" -gt $rows ] && rows=$q
		sleep 0.5
	done
	up=yes
	kill -0 $cw 2>/dev/null || up=no
	c1=$(cpu_ticks $cw)
	hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$cw/status" 2>/dev/null)
	cpu=$(echo "$c0 $c1 $hz" | awk '{ printf "%.2f", ($2 - $1) / $3 }')
	state=$(sqlite3 -readonly "$d/chainwatch.db" "SELECT state FROM
	    endpoints WHERE name = 'd2'" 2>/dev/null)
	# The store's best against the honest devnode's, hash for hash.
	best=$(sqlite3 -readonly "$d/chainwatch.db" "SELECT number FROM
	    blocks WHERE canonical = 1 ORDER BY number DESC LIMIT 1" \
	    2>/dev/null)
	same=no
	if [ -n "$best" ]; then
		ours=$(sqlite3 -readonly "$d/chainwatch.db" "SELECT
		    lower(hex(hash)) FROM blocks WHERE canonical = 1 AND
		    number = $((best - 3))" 2>/dev/null)
		theirs=$(rpc "$p1" chain_getBlockHash "[$((best - 3))]" |
		    tr -d '"' | sed 's/^0x//')
		[ -n "$ours" ] && [ "$ours" = "$theirs" ] && same=yes
	fi
	stop_all
	printf '  %-22s %7s s %7s %7s MB  %-14s %-4s %s\n' "$fmt:$fault" \
	    "$cpu" "$rows" "$(awk "BEGIN { printf \"%.1f\", ${hwm:-0} / 1024 }")" \
	    "${state:-?}" "$up" "$same"
}

echo "bench/lies: 2 devnodes, $block_ms ms blocks, backlog $backlog," \
    "$secs s of lying by d2 per run, $(nproc) cores"
printf '  %-22s %9s %7s %10s  %-14s %-4s %s\n' "lie" "sup CPU" "queue" \
    "peak RSS" "d2 state" "up" "store = honest"
base_cpu=
base_rows=
for l in $lies; do
	fmt=${l%%:*}
	fault=${l#*:}
	line=$(run "$fmt" "$fault") || continue
	echo "$line"
	set -- $line
	if [ -z "$base_cpu" ]; then
		base_cpu=$2
		base_rows=$4
	else
		awk -v c="$2" -v bc="$base_cpu" -v r="$4" -v br="$base_rows" \
		    -v f="$fault" 'BEGIN {
			if (bc < 0.01) bc = 0.01; if (br < 1) br = 1;
			printf "  %-22s CPU x%.2f, queue rows x%.2f of honest\n",
			    "", c / bc, r / br }'
	fi
done
