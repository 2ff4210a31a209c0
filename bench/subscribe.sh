#!/bin/sh
# bench/subscribe.sh: `subscribe = all` against `subscribe = primary`, in
# one run, on one machine.  For each mode: three devnodes of one chain and
# a chainwatchd with default settings but that key; the daemon follows the
# chain healthy for a phase, then the first endpoint drops every
# WebSocket connection (ws_drop) for a phase: under primary the
# subscription moves to the second; then the holder of a subscription
# (under all: the first endpoint) goes silent (ws_silent) for a phase:
# under primary the stall rule moves it on.  From the store, for the canonical
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

# sample: the WebSocket connections of the three devnodes, summed, once a
# second for secs seconds.
sample() {
	_end=$(( $(ms) + secs * 1000 ))
	while [ "$(ms)" -lt $_end ]; do
		echo $(( $(wsc d1) + $(wsc d2) + $(wsc d3) ))
		sleep 1
	done | tr '\n' ' '
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
		echo "difficulty_floor = 1"
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
	# Each phase samples the connections once a second for secs.
	t0=$(ms)
	conns=$(sample)
	t1=$(ms)
	ctl d1 '{"clear":true,"enable":"ws_drop"}'
	dconns=$(sample)
	t2=$(ms)
	ctl d1 '{"clear":true}'
	# The holder goes silent (under all: d1, as every endpoint holds one).
	silent=d1
	if [ "$mode" = primary ]; then
		for n in d1 d2 d3; do
			[ "$(wsc $n)" = 1 ] && silent=$n && break
		done
	fi
	ctl $silent '{"clear":true,"enable":"ws_silent"}'
	sconns=$(sample)
	t3=$(ms)
	ctl $silent '{"clear":true}'
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
	python3 - "$d/cw.db" "$t0" "$t1" "$t2" "$t3" "$block" "$conns" \
	    "$dconns" "$sconns" >"$T/$mode.fig" <<'EOF'
import sqlite3, sys
db, t0, t1, t2, t3, block = sys.argv[1], *map(int, sys.argv[2:7])
conns = [[int(x) for x in a.split()] for a in sys.argv[7:10]]
con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)


def q(v, p):
    # Nearest rank: the smallest value with at least p% at or below it.
    v = sorted(v)
    if not v:
        return 0
    k = (len(v) * p + 99) // 100
    return v[max(k, 1) - 1]


out = []
for a, z in ((t0, t1), (t1, t2), (t2, t3)):
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
    out += [(z - a) / 1000, len(lat), q(lat, 50), q(lat, 99), late,
            missing]
out += [sum(c) / max(len(c), 1) for c in conns]
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
PH = ("healthy", "d1 ws_drop", "holder ws_silent")
N = 6


def r(x, y):
    # figures under 1 ms taken as 1 ms: the store counts whole ms
    return max(x, 1) / max(y, 1)


print("  %-25s %5s %6s %8s %8s %5s %7s %5s" % ("mode / phase", "secs",
      "blocks", "head p50", "head p99", "late", "missing", "conns"))
for name, f in (("all", a), ("primary", p)):
    for i, ph in enumerate(PH):
        o = i * N
        print("  %-25s %5.0f %6d %5d ms %5d ms %5d %7d %5.1f" % (
            name + " / " + ph, f[o], f[o + 1], f[o + 2], f[o + 3], f[o + 4],
            f[o + 5], f[3 * N + i]))
for i, ph in enumerate(PH):
    o = i * N
    print("  %-25s %5s %6s %8.2f %8.2f %5s %7s %5.2f" % (
        "primary / all, " + ph.split()[-1], "", "", r(p[o + 2], a[o + 2]),
        r(p[o + 3], a[o + 3]), "", "", r(p[3 * N + i], a[3 * N + i])))
print("  (late: stored more than one block time after it was made; "
      "missing: heights absent at the end)")
kv = []
for name, f in (("all", a), ("primary", p)):
    for i, ph in enumerate(("healthy", "drop", "silent")):
        o = i * N
        kv += ["%s_%s_head_p50_ms=%d" % (name, ph, f[o + 2]),
               "%s_%s_head_p99_ms=%d" % (name, ph, f[o + 3]),
               "%s_%s_late=%d" % (name, ph, f[o + 4]),
               "%s_%s_missing=%d" % (name, ph, f[o + 5]),
               "%s_%s_conns=%.1f" % (name, ph, f[3 * N + i])]
print(" ".join(kv))
EOF
