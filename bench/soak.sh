#!/bin/sh
# bench/soak.sh: a soak of days in an hour.  Three chainwatch-devnodes of
# one Quantus chain (250 ms blocks, so an hour is two days of 12 s blocks;
# a reorg every 50 blocks, 1 to 3 deep) and one chainwatchd with its
# chainwatch-metrics, all on 127.0.0.1 (ports 0 and port files) in a
# temporary directory of their own.  A seeded random schedule brings one
# fault after another (see FAULTS below) while a loop runs chainwatch
# views and /api/v1 requests; every INTERVAL s a sample of the daemon's
# processes and store goes to a CSV.  At the end it judges the run (see
# JUDGEMENT) and exits 1 if the judgement fails.
#
#   sh bench/soak.sh [-b build-dir] [-t DURATION] [-s SEED] [-o DIR]
#       [-i INTERVAL] [-k]
#
#   -b  the build directory (default $top_builddir, else .)
#   -t  how long, e.g. 180, 3m, 1h (default 1h); the last quarter of
#       it, 75 s at most, is quiet, for the store to catch up
#   -s  the schedule's seed (default random); printed at the start, and
#       the same seed with the same -t replays the same schedule
#   -o  where the outputs go (default ./soak-SEED): samples.csv,
#       faults.csv, clients.csv, summary.txt, chart.svg, the schedule,
#       and on failure the daemon's and devnodes' logs
#   -i  seconds between samples (default 10)
#   -k  keep the working directory (store, logs) and say where
#
# Run from a build directory: sh ../../bench/soak.sh -t 3m (the
# sanitizer build's too: -b build/sanitize; a sanitizer report anywhere
# fails the run).  Not part of the suite.  Needs sqlite3, curl and
# python3; root for the disk-full fault (a small tmpfs holds the store),
# which is skipped otherwise, saying why.
#
# FAULTS, dealt by bench/soak.py from a shuffled deck (every kind once
# before any comes again), one after another, each held h to 2h s with a
# quiet h/2 to h after it (h = the run's length / 100, 2 to 15 s, less,
# down to 1 s, where one deck would not fit otherwise: a run of 3
# minutes brings every kind once): on a
# random devnode, each fault it has (black hole, refuse, 503, slow 1.5 s,
# 429, malformed, truncated, 16 MiB answers, WebSocket drops, silent
# subscriptions, stall, 40 blocks of lag, wrong genesis, a batch limit of
# 4) and each lie (split, forge_head, forge_chain, bad_number,
# finalized_off, wrong_header, wrong_count 0-2); kill -9 of a worker;
# kill -9 of chainwatchd and a restart; SIGSTOP then SIGCONT of a worker
# and of a devnode; SIGHUP with an endpoint e4 added or removed, or an
# endpoint's URLs changed; sqlite3 holding the store's write lock 10 s;
# the store's disk left with 1 MB (under store_reserve).  Meanwhile a
# chainwatch view or an /api/v1 (/metrics, /health) request a second.
#
# SAMPLES (samples.csv, a row every -i s): RSS, PSS, anonymous memory
# (smaps_rollup), open descriptors (and how many are established TCP
# connections), threads and CPU seconds of chainwatchd, of each endpoint's
# worker and of chainwatch-metrics; the store's size (its pages) and the
# WAL file's; the queue's rows; the chain's lag (the devnodes' own head,
# liveHead, less the store's best); processes of a killed daemon still
# alive; failed client requests; and, from chainwatch-metrics, the heap
# in use of chainwatchd, of each worker and of chainwatch-metrics.
#
# JUDGEMENT (soak.py judge; summary.txt, chart.svg):
#   - chainwatchd stops on SIGTERM with status 0 and leaves no process
#     behind; the store equals each devnode (all honest by then) hash for
#     hash over its canonical range less the last 20 blocks, with every
#     state read (tests/integration/store_check.py), chainwatch verify
#     finds nothing, the devnodes stop with 0, no sanitizer report, no
#     view or API request failed as a program (a signal, a 5xx);
#   - no sample breaks a bound: the WAL at most 64 MB (where the backfill
#     waits and the WAL is cut back to); the queue and the lag at most 8
#     more than before the first fault, unless a fault was on less than
#     a minute before; chainwatchd and e1-e3's workers running, except
#     then; no process of a killed daemon left 15 s after;
#   - each memory (RSS, anonymous, heap), descriptor and thread series (PSS is
#     printed, not judged: its share of library pages moves with every
#     process on the machine that maps them), after the first 20 % of
#     the run (10 minutes at most) and the first 2 minutes of each
#     process's life (a fresh process fills its caches), has a
#     least-squares slope (one per series, pooled over the processes of
#     one role, each with its own intercept) whose 95 % interval holds 0,
#     or whose fitted rise over the window is within its tolerance
#     (memory: 5 % of its mean, at least 256 KB; 2 fds; half a thread).
#     The interval is widened by the residuals' lag-1 correlation r, by
#     sqrt((1 + r) / (1 - r)): samples 10 s apart are not independent,
#     a burst lifts several in a row (soak.py selftest shows on made-up
#     series that it holds 0 about 95 % of the time without a trend and
#     sees a leak of 1.5 MB/h every time);
#     memory is not judged in a sanitizer build (ASan's quarantine keeps
#     freed memory, up to 256 MB a process: it grows there by design)
#     unless ASAN_OPTIONS sets quarantine_size_mb (=1 keeps it flat).
#     A page cache holds what it reads until it is full: chainwatchd's
#     memory is judged less its page cache as it says (sampled from
#     chainwatch_store_cache_bytes), chainwatch-metrics' less its own
#     (chainwatch_metrics_cache_bytes; in a CSV of before it said, the
#     store's size up to its 2 MB cache).  Heap in use (what each process has
#     allocated and not freed, as its allocator says in the
#     *_heap_bytes gauges) is judged as memory too: where RSS grows and
#     heap does not, the allocator kept pages after a burst; where heap
#     grows, something is kept that should not be.
set -u
b=${top_builddir:-.}
dur=1h
seed=
out=
interval=10
keep=
while getopts b:t:s:o:i:k o; do
	case $o in
	b) b=$OPTARG ;;
	t) dur=$OPTARG ;;
	s) seed=$OPTARG ;;
	o) out=$OPTARG ;;
	i) interval=$OPTARG ;;
	k) keep=1 ;;
	*) sed -n '12,13p' "$0" | sed 's/^#  //' >&2; exit 2 ;;
	esac
done
case ${dur%[hms]} in
'' | *[!0-9]*) echo "soak: -t $dur: not a duration (180, 3m, 1h)" >&2; exit 2 ;;
esac
case $dur in
*h) secs=$((${dur%h} * 3600)) ;;
*m) secs=$((${dur%m} * 60)) ;;
*) secs=${dur%s} ;;
esac
[ "$secs" -ge 120 ] || { echo "soak: -t $dur: at least 2 minutes" >&2; exit 2; }
case $interval in
'' | *[!0-9]* | 0) echo "soak: -i $interval: whole seconds" >&2; exit 2 ;;
esac
[ -n "$seed" ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
b=$(cd "$b" && pwd) || exit 2
SRC=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
HELPER=$SRC/bench/soak.py
DAEMON=$b/supervisor/chainwatchd
WORKER=$b/workers/chainwatch-worker
DEVNODE=$b/devnode/chainwatch-devnode
METRICS=$b/metrics/chainwatch-metrics
CW=$b/cli/chainwatch
for x in "$DAEMON" "$WORKER" "$DEVNODE" "$METRICS" "$CW"; do
	[ -x "$x" ] || { echo "soak: build first: $x is missing" >&2; exit 2; }
done
for c in sqlite3 curl "$PY"; do
	command -v "$c" >/dev/null || { echo "soak: needs $c" >&2; exit 2; }
done
[ -n "$out" ] || out=./soak-$seed
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
rm -f "$out"/samples.csv "$out"/faults.csv "$out"/clients.csv

W=$(mktemp -d "${TMPDIR:-/tmp}/cw-soak.XXXXXX") || exit 2
# As /run is: the metrics server runs as the workers' user and reaches
# the control socket and the store here.
chmod 0711 "$W"
BLOCK_MS=250
BACKLOG=1000
QUIET=$((secs / 4))	# s without faults at the end
[ $QUIET -le 75 ] || QUIET=75
PIDS=			# devnodes and loops: what cleanup kills
MOUNTED=
DB=$W/chainwatch.db
SOCK=$W/chainwatchd.sock
LOG=$W/daemon.log
user=$(id -un)
[ "$(id -u)" = 0 ] && user=nobody
T0=$(date +%s)
now_ms() {
	date +%s%3N
}
say() {
	echo "soak: $(($(date +%s) - T0)) s: $*"
}

# kill_tree PID: SIGKILL a process and every descendant, all found in
# one listing first (a SIGSTOPped one too: SIGKILL needs no SIGCONT).
kill_tree() {
	ps -e -o pid=,ppid= | awk -v root="$1" '
	    { parent[$1] = $2 }
	    END {
		tree[root] = 1
		do {
			more = 0
			for (p in parent)
				if (!(p in tree) && (parent[p] in tree)) {
					tree[p] = 1
					more = 1
				}
		} while (more)
		for (p in tree)
			print p
	    }' | while read -r _p; do
		kill -9 "$_p" 2>/dev/null
	done
}

cleanup() {
	_rc=$?
	trap - EXIT INT TERM HUP
	for p in $PIDS $(cat "$W/sup.pid" 2>/dev/null) $(pgrep -P $$); do
		kill_tree "$p"
	done
	wait 2>/dev/null
	if [ -n "$MOUNTED" ]; then
		umount -n "$W/fs" 2>/dev/null || umount -n -l "$W/fs"
	fi
	if [ -n "$keep" ]; then
		echo "soak: kept $W"
	else
		rm -rf "$W"
	fi
	exit $_rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
trap 'exit 141' PIPE

# The store on a small tmpfs of its own, for the disk-full fault: as root
# and where mounting works.  64 MB for the WAL's bound, room for the
# store's growth (about 0.6 KB a block, here 4 blocks a second), with
# room to spare.
FS_MB=$((96 + secs * 4 * 4 / 1024))
DISKFULL=
if [ "$(id -u)" != 0 ]; then
	DISKFULL="not root: no tmpfs can be mounted"
elif mkdir "$W/fs" && mount -n -t tmpfs -o "size=${FS_MB}m,mode=0755" \
    tmpfs "$W/fs" 2>"$W/mount.err"; then
	MOUNTED=1
	DB=$W/fs/chainwatch.db
else
	DISKFULL="cannot mount a tmpfs: $(cat "$W/mount.err")"
fi

# devnode NAME: start it (again on its old port after a stop); all three
# share the start time, so they serve one chain block for block.
START=$(now_ms)
devnode() {
	_p=$(cat "$W/$1.port" 2>/dev/null || echo 0)
	rm -f "$W/$1.port" "$W/$1.cport"
	"$DEVNODE" --listen "127.0.0.1:$_p" --control-listen 127.0.0.1:0 \
	    --port-file "$W/$1.port" --control-port-file "$W/$1.cport" \
	    --cache-dir none --seed soak --block-time $BLOCK_MS \
	    --backlog $BACKLOG --start-time "$START" --miners 6 \
	    --reorg-every 50 --reorg-depth 1-3 >>"$W/$1.log" 2>&1 &
	echo $! >"$W/$1.pid"
	PIDS="$PIDS $!"
}
wait_file() {	# FILE SECONDS
	_i=0
	while [ ! -s "$1" ] && [ $_i -lt $(($2 * 10)) ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -s "$1" ]
}
for d in d1 d2 d3; do
	devnode $d
done
for d in d1 d2 d3; do
	wait_file "$W/$d.cport" 60 || { cat "$W/$d.log"; echo "soak: devnode $d did not start" >&2; exit 1; }
done
port() {
	cat "$W/$1.port"
}
cport() {
	cat "$W/$1.cport"
}

# The configuration: endpoints e1-e3 on d1-d3; a reload may add e4 (on
# d1, its URLs told apart by a query) or take it away, or change one
# endpoint's URLs (the query ?v=N).
endpoint_line() {	# NAME DEVNODE [QUERY]
	_p=$(port "$2")
	echo "endpoint = $1 http://127.0.0.1:$_p/${3:+?$3} ws://127.0.0.1:$_p/${3:+?$3}"
}
write_conf() {
	cat >"$W/chainwatch.conf" <<CONF
[daemon]
database = $DB
pidfile = $W/chainwatchd.pid
user = $user
worker = $WORKER
heartbeat_interval = 1s
stop_timeout = 3s
log_level = info
store_cache = 1M
control_socket = $SOCK
metrics_listen = 127.0.0.1:0
metrics_server = $METRICS

[chain soak]
difficulty_floor = 1
block_time = ${BLOCK_MS}ms
request_timeout = 3s
connect_timeout = 2s
CONF
	cat "$W/endpoints" >>"$W/chainwatch.conf"
}
{
	endpoint_line e1 d1
	endpoint_line e2 d2
	endpoint_line e3 d3
} >"$W/endpoints"
write_conf

# start_daemon: chainwatchd in the foreground, its pid in $W/sup.pid;
# returns once it logged that it starts.
start_daemon() {
	_n=$(grep -c ' sup: chainwatchd .* starting' "$LOG" 2>/dev/null)
	"$DAEMON" -d -f "$W/chainwatch.conf" >>"$LOG" 2>&1 &
	echo $! >"$W/sup.pid"
	_i=0
	while [ "$(grep -c ' sup: chainwatchd .* starting' "$LOG")" -le "${_n:-0}" ]; do
		kill -0 "$(cat "$W/sup.pid")" 2>/dev/null ||
		    { tail -n 20 "$LOG"; echo "soak: chainwatchd exited at start" >&2; exit 1; }
		_i=$((_i + 1))
		[ $_i -lt 300 ] || { echo "soak: chainwatchd did not start" >&2; exit 1; }
		sleep 0.1
	done
}
sup_pid() {
	cat "$W/sup.pid" 2>/dev/null
}
# worker_pid NAME: the worker of endpoint NAME, a child of the daemon.
worker_pid() {
	pgrep -P "$(sup_pid)" -f "^chainwatch-worker $1\$" 2>/dev/null | head -n 1
}
metrics_pid() {
	pgrep -P "$(sup_pid)" -f "^$METRICS " 2>/dev/null | head -n 1
}
metrics_port() {
	sed -n 's/.* metrics: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' \
	    "$LOG" | tail -n 1
}
sql() {
	sqlite3 -readonly -cmd '.timeout 5000' "$DB" "$1" 2>/dev/null
}

echo "soak: seed $seed, $secs s, samples every $interval s, outputs in $out"
echo "soak: replay with: sh $0 -t $secs -s $seed"
echo "soak: 3 devnodes, $BLOCK_MS ms blocks, reorgs every 50 blocks (1-3 deep), backlog $BACKLOG"
[ -z "$DISKFULL" ] && echo "soak: store on a ${FS_MB} MB tmpfs" ||
    echo "soak: disk-full fault skipped: $DISKFULL"
start_daemon
_i=0
until [ "$(sql 'SELECT count(*) FROM queue')" = 0 ] &&
    [ "$(sql 'SELECT best_number FROM chains')" -gt $BACKLOG ] 2>/dev/null; do
	_i=$((_i + 1))
	[ $_i -lt 1200 ] || { tail -n 30 "$LOG"; echo "soak: not caught up in 120 s" >&2; exit 1; }
	sleep 0.1
done
say "caught up to #$(sql 'SELECT best_number FROM chains')"

# --- sampling ---------------------------------------------------------
# proc_cols PID: rss_kb,pss_kb,fds,threads,cpu_s,tcp,anon_kb of a
# process, or empty; tcp: its descriptors that are established TCP
# connections (a worker's keep-alive pool holds up to max_inflight + 1
# of them); anon: its anonymous memory (heap, stacks), its own.
HZ=$(getconf CLK_TCK)
proc_cols() {
	if [ -z "$1" ] || [ ! -r "/proc/$1/smaps_rollup" ]; then
		echo ",,,,,,"
		return
	fi
	_rss=$(awk '/^Rss:/ { print $2 }' "/proc/$1/smaps_rollup" 2>/dev/null)
	_pss=$(awk '/^Pss:/ { print $2 }' "/proc/$1/smaps_rollup" 2>/dev/null)
	_anon=$(awk '/^Anonymous:/ { print $2 }' "/proc/$1/smaps_rollup" 2>/dev/null)
	_thr=$(awk '/^Threads:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
	_fdl=$(ls -l "/proc/$1/fd" 2>/dev/null | grep -- '->')
	_fds=$(echo "$_fdl" | grep -c -- '->')
	_tcp=$(echo "$_fdl" | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p' |
	    awk 'FILENAME != "-" { if ($4 == "01") est[$10] = 1; next }
		est[$1] { n++ } END { print n + 0 }' \
	    "/proc/$1/net/tcp" "/proc/$1/net/tcp6" - 2>/dev/null)
	_cpu=$(awk -v hz="$HZ" '{ sub(/^.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' \
	    "/proc/$1/stat" 2>/dev/null)
	echo "$_rss,$_pss,$_fds,$_thr,$_cpu,$_tcp,$_anon"
}
# live_head: the chain's own head (liveHead: what no fault hides), from
# the first devnode that answers its control port.
live_head() {
	for _d in d1 d2 d3; do
		_h=$(curl -s -m 1 "http://127.0.0.1:$(cport $_d)/control" 2>/dev/null |
		    sed -n 's/.*"liveHead":\([0-9]*\).*/\1/p')
		[ -n "$_h" ] && { echo "$_h"; return; }
	done
}
# The processes the daemon ever had, "pid starttime" a line: one still
# alive that is no child of the running daemon is left behind (orphans).
seen_add() {
	[ -n "$1" ] || return 0
	_st=$(awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null)
	[ -n "$_st" ] || return 0
	grep -q "^$1 $_st\$" "$W/seen" 2>/dev/null || echo "$1 $_st" >>"$W/seen"
}
orphans() {
	_n=0
	_sup=$(sup_pid)
	while read -r _p _st; do
		_now=$(awk '{ sub(/^.*\) /, ""); print $2, $20 }' "/proc/$_p/stat" 2>/dev/null)
		[ -n "$_now" ] || continue
		[ "${_now#* }" = "$_st" ] || continue
		[ "${_now% *}" = "$_sup" ] || _n=$((_n + 1))
	done <"$W/seen"
	echo $_n
}
HEADER="t,epoch_ms,fault,sup_pid,sup_rss_kb,sup_pss_kb,sup_fds,sup_threads,sup_cpu_s,sup_tcp,sup_anon_kb,sup_children"
for e in e1 e2 e3 e4 metrics; do
	HEADER="$HEADER,${e}_pid,${e}_rss_kb,${e}_pss_kb,${e}_fds,${e}_threads,${e}_cpu_s,${e}_tcp,${e}_anon_kb"
done
HEADER="$HEADER,store_kb,wal_kb,queue_rows,best,live_head,lag,orphans,clients_failed,sup_cache_kb"
HEADER="$HEADER,sup_heap_kb,e1_heap_kb,e2_heap_kb,e3_heap_kb,e4_heap_kb,metrics_heap_kb,metrics_cache_kb"
# gauge_kb SCRAPE NAME: the value of NAME (labels and all) in a scrape of
# /metrics, in KB; empty if it is not there.
gauge_kb() {
	printf '%s\n' "$1" | awk -v n="$2" '
	    index($0, n " ") == 1 && $2 ~ /^[0-9]+$/ { printf "%d", $2 / 1024; exit }'
}
sample() {
	_sup=$(sup_pid)
	kill -0 "$_sup" 2>/dev/null || _sup=
	_kids=
	[ -n "$_sup" ] && _kids=$(pgrep -P "$_sup" | wc -l)
	_row="$(($(date +%s) - T0)),$(now_ms),$(cat "$W/fault.now" 2>/dev/null || echo -),$_sup,$(proc_cols "$_sup"),$_kids"
	for _e in e1 e2 e3 e4 metrics; do
		if [ -z "$_sup" ]; then
			_p=
		elif [ $_e = metrics ]; then
			_p=$(metrics_pid)
		else
			_p=$(worker_pid $_e)
		fi
		seen_add "$_p"
		_row="$_row,$_p,$(proc_cols "$_p")"
	done
	# The store's size as SQLite sees it (its pages, those only in the
	# WAL too), and the WAL file's.
	_store=$(sql 'SELECT page_count * page_size / 1024 FROM
	    pragma_page_count(), pragma_page_size()')
	_wal=$(($(stat -c %s "$DB-wal" 2>/dev/null || echo 0) / 1024))
	_q=$(sql 'SELECT count(*) FROM queue')
	_best=$(sql "SELECT best_number FROM chains WHERE name = 'soak'")
	_live=$(live_head)
	_lag=
	[ -n "$_best" ] && [ -n "$_live" ] && _lag=$((_live - _best))
	_cf=$(grep -c ',fail,' "$out/clients.csv" 2>/dev/null)
	# The supervisor's page cache, as it says (chainwatch-metrics'
	# chainwatch_store_cache_bytes): its memory less that is judged.
	# And the memory each process has allocated and not freed, as its
	# allocator says (the *_heap_bytes gauges): a leak grows it, what
	# the allocator keeps after a burst grows only RSS.
	_m=
	_mp=$(metrics_port)
	[ -n "$_sup" ] && [ -n "$_mp" ] && _m=$(curl -s -m 2 \
	    "http://127.0.0.1:$_mp/metrics" 2>/dev/null)
	_cache=$(gauge_kb "$_m" chainwatch_store_cache_bytes)
	_heaps=$(gauge_kb "$_m" chainwatch_daemon_heap_bytes)
	for _e in e1 e2 e3 e4; do
		_heaps="$_heaps,$(gauge_kb "$_m" \
		    "chainwatch_endpoint_worker_heap_bytes{chain=\"soak\",endpoint=\"$_e\"}")"
	done
	_heaps="$_heaps,$(gauge_kb "$_m" chainwatch_metrics_heap_bytes)"
	_heaps="$_heaps,$(gauge_kb "$_m" chainwatch_metrics_cache_bytes)"
	echo "$_row,$_store,$_wal,$_q,$_best,$_live,$_lag,$(orphans),${_cf:-0},$_cache,$_heaps" >>"$out/samples.csv"
}
echo "$HEADER" >"$out/samples.csv"
: >"$W/seen"
echo - >"$W/fault.now"
(
	_next=$(date +%s)
	while [ ! -f "$W/stop.sampler" ]; do
		sample
		_next=$((_next + interval))
		while [ "$(date +%s)" -lt $_next ] && [ ! -f "$W/stop.sampler" ]; do
			sleep 0.5
		done
	done
	sample
) &
SAMPLER=$!
PIDS="$PIDS $SAMPLER"

# --- views and API requests, throughout -------------------------------
# One request about every second, in turn; a line each in clients.csv:
# epoch_ms,what,ok|fail,exit status or HTTP code,ms.  A CLI that fails
# as a program must (a signal, a sanitizer report) counts as fail; an
# error it reports (the store busy, say) is its answer.
echo "epoch_ms,what,result,code,ms" >"$out/clients.csv"
(
	n=0
	while [ ! -f "$W/stop.clients" ]; do
		n=$((n + 1))
		t=$(now_ms)
		case $((n % 12)) in
		0) what="chainwatch status"; set -- status ;;
		1) what="chainwatch endpoints --json"; set -- endpoints --json ;;
		2) what="chainwatch queue"; set -- queue ;;
		3) what="chainwatch blocks"; set -- blocks soak --last 20 ;;
		4) what="chainwatch forks"; set -- forks ;;
		5) what="chainwatch standings"; set -- standings soak --window all ;;
		6) what="chainwatch verify"; set -- verify ;;
		*) what=api; set -- ;;
		esac
		if [ "$what" = api ]; then
			case $((n % 12)) in
			7) path=/metrics ;;
			8) path=/health ;;
			9) path=/api/v1/chains ;;
			10) path=/api/v1/chains/soak/standings?window=24h ;;
			*) path=/api/v1/chains/soak/blocks?last=100 ;;
			esac
			what="GET $path"
			mp=$(metrics_port)
			code=$(curl -s -m 10 -o /dev/null -w '%{http_code}' \
			    "http://127.0.0.1:${mp:-1}$path" 2>/dev/null)
			# 000: no server (the daemon was down), 503 from
			# /health: the chain is unreachable; neither is
			# the server's fault.  A 5xx of the API is.
			case $code in
			5??) [ "$path" = /health ] && res=ok || res=fail ;;
			*) res=ok ;;
			esac
		else
			"$CW" -d "$DB" -s "$SOCK" "$@" >/dev/null 2>"$W/cli.err"
			code=$?
			res=ok
			if [ $code -ge 128 ] || grep -q -e Sanitizer -e 'runtime error:' "$W/cli.err"; then
				res=fail
				cat "$W/cli.err" >>"$out/clients.err"
			fi
		fi
		echo "$t,$what,$res,$code,$(($(now_ms) - t))" >>"$out/clients.csv"
		sleep 1
	done
) &
CLIENTS=$!
PIDS="$PIDS $CLIENTS"

# --- the faults -------------------------------------------------------
# fault_begin LABEL, fault_end [NOTE]: the fault's interval in faults.csv
# (and in the samples' fault column while it lasts).
fault_begin() {
	F_LABEL=$(echo "$1" | tr ',' ';')
	F_T=$(($(date +%s) - T0))
	F_START=$(now_ms)
	echo "$F_LABEL" >"$W/fault.now"
}
fault_end() {
	_end=$(now_ms)
	echo - >"$W/fault.now"
	# The note quoted, as CSV: reload summaries hold commas.
	echo "$F_KIND,$F_TGT,$F_ARG,$F_START,$_end,\"$(echo "${1:-}" | tr '"' "'")\"" \
	    >>"$out/faults.csv"
	echo "soak: $F_T s: $F_LABEL: $(awk -v a="$F_START" -v b="$_end" 'BEGIN { printf "%.1f", (b - a) / 1000 }') s${1:+; $1}"
}
# ctl DEVNODE JSON: a control request; the devnode's answer if it refused.
ctl() {
	_a=$(curl -s -m 5 -d "$2" "http://127.0.0.1:$(cport "$1")/control")
	case $_a in
	*'"error"'* | '') echo "devnode $1 refused $2: $_a" ;;
	esac
}
# starttime PID: when it started (clock ticks since boot), to tell a pid
# from its reuse.
starttime() {
	awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null
}
# reload: SIGHUP with the endpoints of $W/endpoints, and its log line.
RELOADS=0
reload() {
	write_conf
	_n=$(grep -c ' reloaded ' "$LOG")
	kill -HUP "$(sup_pid)"
	_i=0
	while [ "$(grep -c ' reloaded ' "$LOG")" -le "$_n" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	grep ' reloaded ' "$LOG" | tail -n 1 | sed 's/.* reloaded [^:]*: //' |
	    grep . || echo "no reload logged in 10 s"
}
# lock_store SECONDS: sqlite3 holds the store's write lock (BEGIN
# IMMEDIATE, with the shell's own busy timeout) that long once it has it.
lock_store() {
	rm -f "$W/locked"
	{
		echo ".timeout 60000"
		echo "BEGIN IMMEDIATE;"
		echo ".system touch $W/locked"
		_i=0
		while [ ! -f "$W/locked" ] && [ $_i -lt 700 ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
		sleep "$1"
		echo "COMMIT;"
	} | sqlite3 -bail "$DB" >"$W/lock.out" 2>&1
}

# run_fault KIND TARGET ARG HOLD
run_fault() {
	F_KIND=$1 F_TGT=$2 F_ARG=$3
	case $1 in
	fault)
		fault_begin "$3 on $2"
		_why=$(ctl "$2" "{\"clear\":true,\"enable\":\"$3\"}")
		sleep "$4"
		ctl "$2" '{"clear":true}' >/dev/null
		fault_end "$_why"
		;;
	kill_worker)
		_p=$(worker_pid "$2")
		fault_begin "kill -9 of $2's worker $_p"
		if [ -n "$_p" ]; then
			kill -9 "$_p"
			sleep "$4"
			fault_end
		else
			fault_end "no worker of $2 to kill"
		fi
		;;
	kill_daemon)
		_sup=$(sup_pid)
		_kids=$(pgrep -P "$_sup" | tr '\n' ' ')
		fault_begin "kill -9 of chainwatchd $_sup"
		kill -9 "$_sup"
		wait "$_sup" 2>/dev/null
		sleep "$4"
		# Its workers and metrics server go by themselves.
		_left=
		_i=0
		while [ $_i -lt 100 ]; do
			_left=
			for _k in $_kids; do
				kill -0 "$_k" 2>/dev/null && _left="$_left $_k"
			done
			[ -z "$_left" ] && break
			sleep 0.1
			_i=$((_i + 1))
		done
		start_daemon
		fault_end "${_left:+children still alive 10 s after:$_left; }restarted as $(sup_pid)"
		;;
	stop_worker)
		_p=$(worker_pid "$2")
		fault_begin "SIGSTOP of $2's worker $_p"
		if [ -z "$_p" ]; then
			fault_end "no worker of $2 to stop"
			return
		fi
		_st=$(starttime "$_p")
		kill -STOP "$_p"
		sleep "$4"
		if [ "$(starttime "$_p")" = "$_st" ]; then
			kill -CONT "$_p"
			fault_end "continued"
		else
			fault_end "the daemon replaced it"
		fi
		;;
	stop_devnode)
		_p=$(cat "$W/$2.pid")
		fault_begin "SIGSTOP of devnode $2"
		kill -STOP "$_p"
		sleep "$4"
		kill -CONT "$_p"
		fault_end
		;;
	hup_endpoint)
		if grep -q '^endpoint = e4 ' "$W/endpoints"; then
			fault_begin "SIGHUP, e4 removed"
			sed -i '/^endpoint = e4 /d' "$W/endpoints"
		else
			fault_begin "SIGHUP, e4 added (on d1)"
			endpoint_line e4 d1 e4 >>"$W/endpoints"
		fi
		_r=$(reload)
		sleep "$4"
		fault_end "$_r"
		;;
	hup_change)
		RELOADS=$((RELOADS + 1))
		_d=d${2#e}
		fault_begin "SIGHUP, $2's URLs changed"
		sed -i "/^endpoint = $2 /d" "$W/endpoints"
		endpoint_line "$2" "$_d" "v=$RELOADS" >>"$W/endpoints"
		_r=$(reload)
		sleep "$4"
		fault_end "$_r"
		;;
	write_lock)
		lock_store "$4" &
		_lp=$!
		_i=0
		while [ ! -f "$W/locked" ] && [ $_i -lt 700 ] && kill -0 $_lp 2>/dev/null; do
			sleep 0.1
			_i=$((_i + 1))
		done
		if [ -f "$W/locked" ]; then
			fault_begin "write lock held by sqlite3 for $4 s"
			wait $_lp
			fault_end "taken after $_i tries of 0.1 s"
		else
			fault_begin "write lock"
			wait $_lp
			fault_end "sqlite3 had no lock: $(tr '\n' ' ' <"$W/lock.out")"
		fi
		;;
	disk_full)
		if [ -n "$DISKFULL" ]; then
			fault_begin "disk full"
			fault_end "skipped: $DISKFULL"
			return
		fi
		# 1 MB left: less than store_reserve (2M).
		_av=$(df -k "$W/fs" | awk 'NR == 2 { print $4 }')
		fault_begin "disk full (1 MB of $FS_MB left)"
		dd if=/dev/zero of="$W/fs/filler" bs=1k count=$((_av - 1024)) \
		    >/dev/null 2>&1
		sleep "$4"
		rm -f "$W/fs/filler"
		fault_end
		;;
	*)
		fault_begin "$1"
		fault_end "unknown fault kind"
		;;
	esac
}

# --- the schedule -----------------------------------------------------
"$PY" "$HELPER" schedule "$seed" "$secs" $((secs - QUIET)) \
    >"$out/schedule" || exit 1
FAULT_END=$((T0 + secs - QUIET))
say "faults until $((FAULT_END - T0)) s, then $QUIET s quiet"
echo "kind,target,arg,start_ms,end_ms,note" >"$out/faults.csv"
exec 3<"$out/schedule"
while read -r kind tgt arg hold gap <&3; do
	# A fault must end before the quiet time begins.
	awk -v n="$(date +%s)" -v h="$hold" -v e="$FAULT_END" \
	    'BEGIN { exit !(n + h + 1 < e) }' || break
	run_fault "$kind" "$tgt" "$arg" "$hold"
	sleep "$gap"
done
exec 3<&-
say "$(($(wc -l <"$out/faults.csv") - 1)) faults"
while [ "$(date +%s)" -lt "$FAULT_END" ]; do
	sleep 1
done
say "quiet: the store catches up"
while [ "$(date +%s)" -lt $((T0 + secs)) ]; do
	sleep 1
done

# --- the end ----------------------------------------------------------
# The daemon stopped (SIGTERM, exit 0), then the store against each
# devnode (every fault lifted: all honest) and chainwatch verify; the
# devnodes must stop cleanly too.  What was found goes to end.txt, one
# "key value..." a line, for soak.py to judge.
touch "$W/stop.sampler" "$W/stop.clients"
wait "$SAMPLER" "$CLIENTS" 2>/dev/null
say "stopping"
END=$W/end.txt
# stop PID: SIGTERM; its exit status in STOPPED, "1 hung" (and SIGKILL)
# if it did not exit within 30 s.  (Not in $(...): only this shell may
# wait for its children.)
stop() {
	kill -TERM "$1" 2>/dev/null
	_i=0
	while kill -0 "$1" 2>/dev/null &&
	    [ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" != Z ]; do
		_i=$((_i + 1))
		if [ $_i -gt 300 ]; then
			kill_tree "$1"
			wait "$1" 2>/dev/null
			STOPPED="1 hung: no exit 30 s after SIGTERM"
			return
		fi
		sleep 0.1
	done
	wait "$1"
	STOPPED=$?
}
stop "$(sup_pid)"
echo "daemon_exit $STOPPED" >"$END"
_i=0
# What the daemon had (workers, metrics server) is gone with it.
while [ "$(orphans)" -gt 0 ] && [ $_i -lt 100 ]; do
	sleep 0.1
	_i=$((_i + 1))
done
echo "left_behind $(orphans)" >>"$END"
CHECK=$SRC/tests/integration/store_check.py
for d in d1 d2 d3; do
	"$PY" "$CHECK" "$DB" soak "$(port $d)" --margin 20 --state \
	    >"$out/store_check.$d" 2>&1
	echo "store_$d $? $(tail -n 1 "$out/store_check.$d")" >>"$END"
done
"$CW" -d "$DB" verify >"$out/verify.txt" 2>&1
echo "verify $? $(tail -n 1 "$out/verify.txt")" >>"$END"
for d in d1 d2 d3; do
	stop "$(cat "$W/$d.pid")"
	echo "devnode_$d $STOPPED" >>"$END"
done
_san=$(grep -l -e 'Sanitizer' -e 'runtime error:' "$LOG" "$W"/d?.log \
    "$out/clients.err" 2>/dev/null | tr '\n' ' ')
if [ -n "$_san" ]; then
	echo "sanitizer 1 reports in $_san" >>"$END"
else
	echo "sanitizer 0 no report" >>"$END"
fi
_cf=$(grep -c ',fail,' "$out/clients.csv")
echo "clients $([ "$_cf" = 0 ] && echo 0 || echo 1) $_cf failed of $(($(wc -l <"$out/clients.csv") - 1))" >>"$END"
cp "$END" "$out/end.txt"
# In a sanitizer build ASan's quarantine keeps what is freed, up to
# 256 MB a process: memory grows by design there (a worker 37 MB in 40 s
# here; none with quarantine_size_mb=1), and is judged only when
# ASAN_OPTIONS sets the quarantine's size.
memory=judged
case ${ASAN_OPTIONS:-} in
*quarantine_size_mb=*) ;;
*) grep -q __asan_init "$DAEMON" && memory=asan ;;
esac
"$PY" "$HELPER" judge "$out" "$secs" "$interval" "$memory" |
    tee "$out/summary.txt"
rc=$?
# tee's status is the pipeline's: the judgement's is in the summary.
grep -q '^soak: PASS' "$out/summary.txt" && rc=0 || rc=1
if [ $rc -ne 0 ]; then
	cp "$LOG" "$out/daemon.log"
	for d in d1 d2 d3; do
		cp "$W/$d.log" "$out/$d.log"
	done
fi
exit $rc
