#!/bin/sh
# bench/subscribe.sh: `subscribe = all` against `subscribe = primary`, in
# one run, on one machine.  For each mode: three devnodes of one chain and
# a chainwatchd with default settings but that key; the daemon follows the
# chain healthy for a phase, then the first endpoint drops every
# WebSocket connection (ws_drop) for a phase: under primary the
# subscription moves to the second.  From the store, for the canonical
# blocks first stored in each phase: p50 and p99 of the head-to-row
# latency (first_seen - the block's Timestamp.Now, which the devnode sets
# to the millisecond it makes the block, as bench/failover does), the
# blocks that came late (more than one block time after they were made:
# not from a live subscription, but from a probe or catch-up), and the
# heights missing when the run ends; from the devnodes, the WebSocket
# connections held (sampled each second).  Ratios are primary / all.
#
#   sh bench/subscribe.sh [-t secs per phase] [-m block ms]
# from a build directory (or with top_builddir set).  The last line is
# for machines.
b=${top_builddir:-.}
for p in supervisor/chainwatchd workers/chainwatch-worker \
    devnode/chainwatch-devnode; do
	[ -x "$b/$p" ] || { echo "build first: $b/$p is missing" >&2; exit 2; }
done
command -v sqlite3 >/dev/null && command -v curl >/dev/null &&
    command -v python3 >/dev/null ||
    { echo "bench/subscribe.sh needs sqlite3, curl and python3" >&2; exit 2; }
b=$(cd "$b" && pwd)
secs=30
block=500
while getopts t:m: o; do
	case $o in
	t) secs=$OPTARG ;;
	m) block=$OPTARG ;;
	*) echo "usage: sh bench/subscribe.sh [-t secs] [-m block ms]" >&2
	   exit 64 ;;
	esac
done

T=$(mktemp -d /tmp/cw-subscribe.XXXXXX) || exit 1
chmod 755 "$T"
PIDS=
cleanup() {
	for p in $PIDS; do
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ms() {
	date +%s%3N
}
wsc() {
	curl -s -m 2 "http://127.0.0.1:$(cat "$T/$1.cport")/control" |
	    python3 -c 'import json,sys; print(json.load(sys.stdin)["wsConnections"])' \
	    2>/dev/null || echo 0
}
ctl() {
	curl -s -m 5 -o /dev/null -d "$2" \
	    "http://127.0.0.1:$(cat "$T/$1.cport")/control"
}

# run MODE: one daemon in that mode; leaves its figures in $T/MODE.fig.
run() {
	mode=$1
	d=$T/$mode
	mkdir -p "$d"
	chmod 755 "$d"
	start=$(ms)
	for n in d1 d2 d3; do
		"$b/devnode/chainwatch-devnode" --listen 127.0.0.1:0 \
		    --control-listen 127.0.0.1:0 --port-file "$T/$n.port" \
		    --control-port-file "$T/$n.cport" --cache-dir none \
		    --seed "subscribe-$mode" --block-time "$block" \
		    --backlog 100 --start-time "$start" >"$d/$n.log" 2>&1 &
		PIDS="$PIDS $!"
	done
	for n in d1 d2 d3; do
		i=0
		while ! [ -s "$T/$n.port" ] || ! [ -s "$T/$n.cport" ]; do
			i=$((i + 1))
			[ $i -lt 300 ] || { echo "devnode $n did not start" >&2; exit 1; }
			sleep 0.1
		done
	done
	user=
	[ "$(id -u)" = 0 ] && user=nobody
	{
		echo "[daemon]"
		echo "database = $d/cw.db"
		echo "pidfile = $d/cw.pid"
		echo "user = $user"
		echo "worker = $b/workers/chainwatch-worker"
		echo "log_level = info"
		echo "control_socket = $d/ctl.sock"
		echo "metrics_listen = none"
		echo "[chain bench]"
		echo "block_time = ${block}ms"
		echo "subscribe = $mode"
		for n in d1 d2 d3; do
			p=$(cat "$T/$n.port")
			echo "endpoint = $n http://127.0.0.1:$p ws://127.0.0.1:$p"
		done
	} >"$d/cw.conf"
	"$b/supervisor/chainwatchd" -d -f "$d/cw.conf" >"$d/log" 2>&1 &
	cw=$!
	PIDS="$PIDS $cw"
	i=0
	until [ "$(sqlite3 -readonly "$d/cw.db" 'SELECT count(*) FROM blocks
	    WHERE canonical = 1 AND state_at IS NOT NULL' 2>/dev/null || echo 0)" -gt 105 ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || { echo "$mode: not caught up; see $d/log" >&2; exit 1; }
		kill -0 $cw 2>/dev/null || { cat "$d/log" >&2; exit 1; }
		sleep 0.1
	done
	t0=$(ms)
	conns=
	for _ in $(seq "$secs"); do
		conns="$conns $(( $(wsc d1) + $(wsc d2) + $(wsc d3) ))"
		sleep 1
	done
	t1=$(ms)
	ctl d1 '{"clear":true,"enable":"ws_drop"}'
	mconns=
	for _ in $(seq "$secs"); do
		mconns="$mconns $(( $(wsc d1) + $(wsc d2) + $(wsc d3) ))"
		sleep 1
	done
	t2=$(ms)
	ctl d1 '{"clear":true}'
	# Whatever the move left for catch-up is stored before counting.
	i=0
	while [ "$(sqlite3 -readonly "$d/cw.db" 'SELECT count(*) FROM queue')" != 0 ] &&
	    [ $i -lt 200 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	kill -TERM $cw
	wait $cw
	for p in $PIDS; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	PIDS=
	rm -f "$T"/d?.port "$T"/d?.cport
	python3 - "$d/cw.db" "$t0" "$t1" "$t2" "$block" "$conns" "$mconns" \
	    >"$T/$mode.fig" <<'EOF'
import sqlite3, sys
db, t0, t1, t2, block = sys.argv[1], *map(int, sys.argv[2:6])
conns = [int(x) for x in sys.argv[6].split()]
mconns = [int(x) for x in sys.argv[7].split()]
con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)


def q(v, p):
    # Nearest rank: the smallest value with at least p% at or below it.
    v = sorted(v)
    if not v:
        return 0
    k = (len(v) * p + 99) // 100
    return v[max(k, 1) - 1]


out = []
for a, z in ((t0, t1), (t1, t2)):
    rows = con.execute("SELECT number, first_seen - timestamp FROM blocks "
                       "WHERE canonical = 1 AND first_seen >= ? AND "
                       "first_seen < ? AND timestamp IS NOT NULL",
                       (a, z)).fetchall()
    lat = [r[1] for r in rows]
    nums = [r[0] for r in rows]
    missing = 0
    if nums:
        have = {r[0] for r in con.execute(
            "SELECT number FROM blocks WHERE canonical = 1 AND number "
            "BETWEEN ? AND ?", (min(nums), max(nums)))}
        missing = sum(1 for n in range(min(nums), max(nums) + 1)
                      if n not in have)
    late = sum(1 for x in lat if x > block)
    out += [len(lat), q(lat, 50), q(lat, 99), late, missing]
out += [sum(conns) / max(len(conns), 1), sum(mconns) / max(len(mconns), 1)]
print(" ".join(str(x) for x in out))
EOF
}

printf 'bench/subscribe: 3 devnodes, %s ms blocks, %s s per phase, default ' "$block" "$secs"
printf 'settings but subscribe, %s cores\n' "$(nproc)"
run all
run primary
python3 - "$T/all.fig" "$T/primary.fig" <<'EOF'
import sys
a = [float(x) for x in open(sys.argv[1]).read().split()]
p = [float(x) for x in open(sys.argv[2]).read().split()]
names = ["blocks", "head p50", "head p99", "late", "missing"]


def r(x, y):
    # figures under 1 ms taken as 1 ms: the store counts whole ms
    return max(x, 1) / max(y, 1)


print("  %-22s %8s %8s %8s %6s %8s %6s" % ("mode / phase", "blocks",
      "head p50", "head p99", "late", "missing", "conns"))
for name, f in (("all", a), ("primary", p)):
    for i, ph in enumerate(("healthy", "d1 ws_drop")):
        o = i * 5
        print("  %-22s %8d %5d ms %5d ms %6d %8d %6.1f" % (
            name + " / " + ph, f[o], f[o + 1], f[o + 2], f[o + 3], f[o + 4],
            f[10 + i]))
print("  %-22s %8s %8.2f %8.2f %6s %8s %6.2f" % ("primary / all, healthy",
      "", r(p[1], a[1]), r(p[2], a[2]), "", "", r(p[10], a[10])))
print("  %-22s %8s %8.2f %8.2f %6s %8s %6.2f" % ("primary / all, ws_drop",
      "", r(p[6], a[6]), r(p[7], a[7]), "", "", r(p[11], a[11])))
print("all_head_p50_ms=%d all_head_p99_ms=%d primary_head_p50_ms=%d "
      "primary_head_p99_ms=%d all_drop_head_p99_ms=%d "
      "primary_drop_head_p99_ms=%d all_conns=%.1f primary_conns=%.1f "
      "all_drop_late=%d primary_drop_late=%d all_missing=%d "
      "primary_missing=%d" % (a[1], a[2], p[1], p[2], a[7], p[7], a[10],
                              p[10], a[8], p[8], a[4] + a[9], p[4] + p[9]))
EOF
