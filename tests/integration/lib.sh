# Shared helpers for the integration tests (POSIX sh).  Each test sources
# this, works in its own temporary directory and kills what it started.
# top_builddir and top_srcdir are exported by the test harness.

: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"

CHAINWATCHD=$top_builddir/supervisor/chainwatchd
WORKER=$top_builddir/workers/chainwatch-worker
DEVNODE=$top_builddir/devnode/chainwatch-devnode

T=$(mktemp -d "${TMPDIR:-/tmp}/cw-test.XXXXXX") || exit 99
# As /run is: the metrics server, which a root daemon runs as its user,
# reaches the control socket here (the socket's mode and group decide).
chmod 0711 "$T"
# python3 is configure's, ahead of any shim on PATH (see configure.ac).
if [ -x "$CW_PYTHON3" ]; then
	mkdir "$T/bin" && ln -s "$CW_PYTHON3" "$T/bin/python3" &&
	    PATH=$T/bin:$PATH && export PATH
fi
CW_PIDS=
CW_T0=$(date +%s)
CW_DEV_START=$((CW_T0 * 1000))
if [ "$CW_SANITIZED" = yes ] && [ -z "$CW_WAIT_FACTOR" ]; then
	CW_WAIT_FACTOR=3
fi

# kill_tree PID: SIGKILL a process and its descendants, children first.
kill_tree() {
	for _c in $(pgrep -P "$1" 2>/dev/null); do
		kill_tree "$_c"
	done
	kill -9 "$1" 2>/dev/null
}

cleanup() {
	_rc=$?
	[ -n "$CW_CLEANUP" ] && eval "$CW_CLEANUP"
	# What we started, and what it started (a daemon's workers), whatever
	# the test did; a daemon that detached left its pidfile here.  Never
	# anything else on the machine.
	for p in $CW_PIDS $(pgrep -P $$); do
		kill_tree "$p"
	done
	for f in "$T"/chainwatchd.pid "$T"/*/var/run/chainwatchd.pid; do
		[ -s "$f" ] || continue
		# Only if that pid is still our daemon, not a reused one.
		tr '\0' ' ' <"/proc/$(cat "$f")/cmdline" 2>/dev/null |
		    grep -q "$T/" && kill_tree "$(cat "$f")"
	done
	# Any sanitizer report of the daemon or a worker fails the test.
	if grep -q -e 'Sanitizer' -e 'runtime error:' "$T/log" 2>/dev/null; then
		echo "FAIL: sanitizer report in the daemon log:"
		grep -A 30 -e 'Sanitizer' -e 'runtime error:' "$T/log" | head -n 60
		_rc=1
	fi
	# The suite has a time budget: each test says what it spent.
	echo "elapsed: $(( $(date +%s) - CW_T0 )) s"
	if [ -n "$CW_KEEP" ]; then
		echo "kept $T"
	else
		rm -rf "$T"
	fi
	exit $_rc
}
trap cleanup EXIT
trap 'exit 99' INT TERM

fail() {
	echo "FAIL: $*"
	if [ -f "$T/log" ]; then
		# What the chain and the endpoints' states did over the whole
		# run (a failure's cause is often minutes before its tail).
		echo "--- daemon log, chains and endpoint states (last 150):"
		grep -a -E 'sup: (chain |w/[^ ]*: endpoint |w/[^ ]*: [a-z]+ \+ )' \
		    "$T/log" | tail -n 150
		echo "--- daemon log (last 60 lines):"
		tail -n 60 "$T/log"
	fi
	exit 1
}

ok() {
	echo "ok: $*"
}

# wait_for SECONDS 'SHELL CODE': poll until the code succeeds, for that
# many seconds of the clock (however long each try takes); three times as
# many in the sanitizer build, whose programs run 2-3x slower.  Every
# 0.1 s for the first 2 s, every 0.25 s to 10 s, then every 0.5 s: a try
# often runs the CLI, which costs 75 ms of CPU under the sanitizers, and
# the long waits are for things measured in seconds.  The tries run
# without the leak check at exit (54 ms of those 75): the same commands
# run with it everywhere else in the tests.
wait_for() {
	_end=$(( $(date +%s) + $1 * ${CW_WAIT_FACTOR:-1} ))
	_tries=0
	_wf_asan=${ASAN_OPTIONS-}
	shift
	while :; do
		ASAN_OPTIONS=${_wf_asan:+$_wf_asan:}detect_leaks=0
		export ASAN_OPTIONS
		eval "$*" >/dev/null 2>&1
		_wf_rc=$?
		ASAN_OPTIONS=$_wf_asan
		[ $_wf_rc -eq 0 ] && return 0
		[ "$(date +%s)" -lt "$_end" ] || return 1
		_tries=$((_tries + 1))
		if [ $_tries -le 20 ]; then
			sleep 0.1
		elif [ $_tries -le 52 ]; then
			sleep 0.25
		else
			sleep 0.5
		fi
	done
}

# hold_lock SECONDS: another process holds the store's write lock (BEGIN
# IMMEDIATE) for that long, as an operator's sqlite3 would, and touches
# $T/locked once it has it.  It tries every 2 ms: a daemon at work leaves
# only short gaps between its transactions, which SQLite's busy handler,
# sleeping longer and longer, misses.  Its pid: HOLDER.
hold_lock() {
	python3 - "$T/chainwatch.db" "$T/locked" "$1" >"$T/holder.out" 2>&1 <<'PY' &
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
end = time.monotonic() + 120
while True:
    try:
        db.execute("BEGIN IMMEDIATE")
        break
    except sqlite3.OperationalError as e:
        if time.monotonic() > end:
            sys.exit("no write lock in 120 s: %s" % e)
        time.sleep(0.002)
open(sys.argv[2], "w").close()
time.sleep(float(sys.argv[3]))
db.execute("COMMIT")
PY
	HOLDER=$!
	CW_PIDS="$CW_PIDS $HOLDER"
}

# Workers are exec'd as "chainwatch-worker NAME": find one by name among
# the children of the daemon with pid $1.
worker_pid() {
	pgrep -P "$1" -f "^chainwatch-worker $2\$" 2>/dev/null | head -n 1
}

# Number of worker children of daemon $1.
worker_count() {
	pgrep -P "$1" -f '^chainwatch-worker ' 2>/dev/null | wc -l
}

alive() {
	kill -0 "$1" 2>/dev/null
}

# Gone, or a zombie that its new parent has not reaped yet.
dead() {
	! kill -0 "$1" 2>/dev/null && return 0
	# A zombie whose other threads (the daemon's checkpoint thread, say
	# in an fsync) still exit holds its descriptors open until they do.
	[ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = Z ] &&
	    [ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -le 1 ]
}

# The user workers drop to: root must name one; others keep their own.
cw_user() {
	if [ "$(id -u)" = 0 ]; then
		echo nobody
	else
		id -un
	fi
}

# write_conf FILE ENDPOINT_NAME...: a daemon section for this test (its
# control socket in $T, no metrics server) and one chain whose endpoints
# point at closed local ports (closed_port).
write_conf() {
	_f=$1
	shift
	cat >"$_f" <<CONF
[daemon]
database = $T/chainwatch.db
pidfile = $T/chainwatchd.pid
user = $(cw_user)
worker = $WORKER
heartbeat_interval = 500ms
stop_timeout = 2s
log_level = debug
control_socket = $T/chainwatchd.sock
metrics_listen = none

[chain devchain]
block_time = 1s
# The devnodes mine far below Quantus's least difficulty (theirs is 1).
difficulty_floor = 1
CONF
	for _n in "$@"; do
		_port=$(closed_port)
		echo "endpoint = $_n http://127.0.0.1:$_port ws://127.0.0.1:$_port" >>"$_f"
	done
}

# closed_port: a port of 127.0.0.1 that the OS just gave and nothing
# listens on (bound, then closed): an endpoint that refuses, and never
# another program's port, as a fixed number could be.
closed_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# Start chainwatchd in the foreground on $T/chainwatch.conf, logging to
# $T/log; sets DAEMON_PID.  Returns once it handles signals (it logs
# "starting" after it set up its signal watchers).
start_daemon() {
	_starts=$(grep -c ' sup: chainwatchd .* starting' "$T/log" 2>/dev/null)
	"$CHAINWATCHD" -d -f "$T/chainwatch.conf" >>"$T/log" 2>&1 &
	DAEMON_PID=$!
	CW_PIDS="$CW_PIDS $DAEMON_PID"
	wait_for 30 "test \$(grep -c ' sup: chainwatchd .* starting' \"\$T/log\") -gt ${_starts:-0} || ! kill -0 $DAEMON_PID" ||
	    fail "chainwatchd did not start"
}

# devnode NAME [options]: start chainwatch-devnode on a free port of
# 127.0.0.1; sets NAME_port.  Its log is $T/NAME.log.
devnode() {
	_n=$1
	shift
	# One start time for every devnode of the test, unless given: honest
	# nodes agree on each block's time, and the daemon judges those that
	# do not (a devnode's clock otherwise starts when it does).
	case " $* " in
	*" --start-time "*) _st= ;;
	*) _st="--start-time $CW_DEV_START" ;;
	esac
	# shellcheck disable=SC2086
	"$DEVNODE" --listen 127.0.0.1:0 --control-listen 127.0.0.1:0 \
	    --port-file "$T/$_n.port" --control-port-file "$T/$_n.cport" \
	    --cache-dir none $_st "$@" >"$T/$_n.log" 2>&1 &
	CW_PIDS="$CW_PIDS $!"
	wait_for 60 "test -s '$T/$_n.port' && test -s '$T/$_n.cport'" ||
	    fail "devnode $_n did not start"
	eval "${_n}_port=\$(cat \"\$T/\$_n.port\")"
	eval "${_n}_cport=\$(cat \"\$T/\$_n.cport\")"
}

# chain_conf SEED BLOCK_MS BACKLOG NAME...: devnodes of one chain, started
# with one start time, and $T/chainwatch.conf following them all at their
# block time.
chain_conf() {
	_cc_seed=$1 _cc_ms=$2 _cc_backlog=$3
	shift 3
	_cc_start=$(($(date +%s) * 1000))
	write_conf "$T/chainwatch.conf"
	sed -i "s/^block_time = .*/block_time = ${_cc_ms}ms/" "$T/chainwatch.conf"
	for _cc_n in "$@"; do
		devnode $_cc_n --seed "$_cc_seed" --block-time "$_cc_ms" \
		    --backlog "$_cc_backlog" --start-time "$_cc_start"
		eval _cc_p=\$${_cc_n}_port
		echo "endpoint = $_cc_n http://127.0.0.1:$_cc_p ws://127.0.0.1:$_cc_p" \
		    >>"$T/chainwatch.conf"
	done
}

# sql 'QUERY': one answer from the store, read-only.
# stall_clients PORT: on 127.0.0.1:PORT, one client that never reads its
# answers, one that stops halfway through its request and twenty that sit
# idle; returns once all are connected, their pids in STALL_PIDS.
stall_clients() {
	STALL_PIDS=
	for _how in noread half "idle 20"; do
		# shellcheck disable=SC2086
		python3 "$top_srcdir/tests/integration/slow_client.py" $_how "$1" \
		    >"$T/slow-${_how%% *}" 2>&1 &
		STALL_PIDS="$STALL_PIDS $!"
		CW_PIDS="$CW_PIDS $!"
	done
	wait_for 20 'grep -q ready "$T/slow-noread" && grep -q ready "$T/slow-half" && grep -q ready "$T/slow-idle"' ||
	    fail "the stalling clients did not connect"
}

sql() {
	sqlite3 -readonly "$T/chainwatch.db" "$1"
}

# never_failed NAME KIND: over the whole run, no failure of any class was
# counted against endpoint NAME (the control socket's counters, from 0 at
# its start, with at least one ok), and, once the daemon is stopped (it
# has written every event then), its breaker never changed state: none
# of its events in the store is a breaker's, where one of KIND (ready,
# pruned: evidence that its events were written) is.  Its state is closed
# and the log never called it unhealthy.  Sets COUNTED to the counters.
never_failed() {
	python3 "$top_srcdir/tests/integration/ctl_client.py" ask \
	    "$T/chainwatchd.sock" metrics >"$T/counters" ||
	    fail "the control socket did not answer: $(cat "$T/counters")"
	COUNTED=$(python3 -c '
import json, sys
eps = [e for e in json.load(sys.stdin)["endpoints"] if e["endpoint"] == sys.argv[1]]
if len(eps) != 1:
    print("%s is not among the endpoints: %r" % (sys.argv[1], eps))
    sys.exit(1)
req = eps[0]["requests"]
bad = ["%s %d" % (k, req.get(k, 0)) for k in
       ("http_5xx", "transport", "timeout", "malformed", "too_large")
       if req.get(k, 0) != 0]
if req.get("ok", 0) == 0:
    bad.append("no ok answer")
print("%s%s" % ("; ".join(bad) + ": " if bad else "", req))
sys.exit(1 if bad else 0)
' "$1" <"$T/counters" 2>&1) ||
	    fail "failures counted against $1 over the run: $COUNTED"
	kill -TERM $DAEMON_PID
	wait_for 20 "dead $DAEMON_PID" || fail "chainwatchd did not stop within 20 s"
	wait $DAEMON_PID || fail "chainwatchd exited with $?"
	[ "$(sql "SELECT count(*) FROM endpoint_events v JOIN endpoints e ON
	    e.id = v.endpoint_id WHERE e.name = '$1' AND v.kind = '$2'")" -ge 1 ] ||
	    fail "no $2 event of $1 in the store: $(sql 'SELECT * FROM endpoint_events')"
	_tr=$(sql "SELECT group_concat(v.kind || ' ' || v.detail, '; ')
	    FROM endpoint_events v JOIN endpoints e ON e.id = v.endpoint_id
	    WHERE e.name = '$1' AND v.kind IN ('open', 'half-open', 'closed')")
	[ -z "$_tr" ] || fail "$1's breaker changed state during the run: $_tr"
	[ "$(sql "SELECT state FROM endpoints WHERE name = '$1'")" = closed ] ||
	    fail "$1's state at the end: $(sql "SELECT * FROM endpoint_health")"
	! grep -q "w/$1: endpoint unhealthy" "$T/log" ||
	    fail "the log says $1 was unhealthy: $(grep "w/$1: endpoint unhealthy" "$T/log" | head -n 3)"
}

# control NAME JSON: a fault request to devnode NAME (started by devnode
# NAME), which must take it.
control() {
	eval _cp=\$${1}_cport
	_a=$(curl -s -m 5 -d "$2" "http://127.0.0.1:$_cp/control")
	case $_a in
	*'"error"'*|'') fail "devnode $1 refused $2: $_a" ;;
	esac
}

# head_of NAME: devnode NAME's best number over HTTP.
head_of() {
	eval _p=\$${1}_port
	curl -s -m 5 -H 'Content-Type: application/json' -d \
	    '{"jsonrpc":"2.0","id":1,"method":"chain_getHeader","params":[]}' \
	    "http://127.0.0.1:$_p/" |
	    python3 -c 'import json, sys
print(int(json.load(sys.stdin)["result"]["number"], 16))'
}

# metrics_port: the port the daemon's metrics server listens on
# (metrics_listen 127.0.0.1:0), from the daemon's log; metrics_wait: wait
# for it, in PORT.
metrics_port() {
	sed -n 's/.* metrics: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' \
	    "$T/log" | tail -n 1
}

metrics_wait() {
	wait_for 20 'test -n "$(metrics_port)"' || fail "no metrics server"
	PORT=$(metrics_port)
}

# honest_check LABEL PORT: the store of the stopped daemon is the chain of
# the devnode on PORT hash by hash, with its every difficulty and
# timestamp (but the top 20 blocks, which may be newer than its head),
# and chainwatch verify finds nothing.
honest_check() {
	/usr/bin/python3 "$top_srcdir/tests/integration/store_check.py" \
	    "$T/chainwatch.db" devchain "$2" --margin 20 --state ||
	    fail "$1: the store differs from the honest chain"
	/usr/bin/python3 "$top_srcdir/tests/integration/state_check.py" \
	    "$T/chainwatch.db" "$2" ||
	    fail "$1: state values differ from the honest chain"
	"$top_builddir/cli/chainwatch" -d "$T/chainwatch.db" verify \
	    >"$T/verify.out" 2>&1 ||
	    fail "$1: chainwatch verify: $(head -n 5 "$T/verify.out")"
}
