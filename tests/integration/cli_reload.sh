#!/bin/sh
# chainwatch reload against chainwatchd on devnodes: the tally it prints,
# the workers that restart and those that do not, configuration errors
# with their lines, a daemon that is not running; and a control socket
# (mode 0660) that clients which never read, never send, or come too
# many at once cannot block.
. "$top_srcdir/tests/integration/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

CHAINWATCH=$top_builddir/cli/chainwatch
CTL="python3 $top_srcdir/tests/integration/ctl_client.py"
SOCK=$T/chainwatchd.sock
CONF=$T/chainwatch.conf

# cw: chainwatch, its stderr in $T/cw.err; a sanitizer report fails.
cw() {
	"$CHAINWATCH" "$@" 2>"$T/cw.err"
	_cw_rc=$?
	if grep -q -e 'Sanitizer' -e 'runtime error:' "$T/cw.err"; then
		cat "$T/cw.err"
		fail "sanitizer report from chainwatch $*"
	fi
	return $_cw_rc
}

# expect_rc WANT COMMAND...: run, and fail unless it exits with WANT.
expect_rc() {
	_want=$1
	shift
	"$@"
	_rc=$?
	[ "$_rc" = "$_want" ] || { cat "$T/cw.err"; fail "exit status $_rc, not $_want: $*"; }
}

# json 'PYTHON EXPRESSION over j': evaluate it over the daemon's answer
# to "status", printed.
json_status() {
	$CTL ask "$SOCK" status >"$T/status.json" || fail "no status answer"
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$T/status.json" "$1" || fail "status answer: $1"
}

best() {
	sql "SELECT coalesce(max(best_number), 0) FROM chains"
}

for n in d1 d2; do
	devnode $n --seed reload --block-time 200 --backlog 50 --miners 2
done
write_conf "$CONF"
sed -i 's/^block_time = .*/block_time = 200ms/' "$CONF"
cat >>"$CONF" <<CONF
endpoint = r1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port
endpoint = r2 http://127.0.0.1:$d2_port ws://127.0.0.1:$d2_port
endpoint = r3 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port
CONF
cp "$CONF" "$T/first.conf"

# Before the daemon runs.
expect_rc 7 cw -f "$CONF" reload >"$T/out"
[ "$(cat "$T/cw.err")" = "chainwatch: chainwatchd is not running (nothing answers on $SOCK)" ] ||
    fail "not running: $(cat "$T/cw.err")"
[ ! -s "$T/out" ] || fail "not running: output on stdout"
ok "no daemon: reload says so and exits 7"

start_daemon
wait_for 10 'test "$(worker_count $DAEMON_PID)" -eq 3' || fail "no workers"
wait_for 10 'grep -q "w/r3: worker pid .* ready" "$T/log"' || fail "r3 not ready"
[ -S "$SOCK" ] || fail "no control socket at $SOCK"
mode=$(stat -c %a "$SOCK")
[ "$mode" = 660 ] || fail "control socket mode $mode, not 660"
ok "control socket $SOCK, mode $mode"

# status: live state of this daemon.
[ "$(json_status 'j["ok"] and j["pid"]')" = "$DAEMON_PID" ] || fail "status pid"
[ "$(json_status 'j["config"]')" = "$CONF" ] || fail "status config"
[ "$(json_status '" ".join(sorted(e["endpoint"] for e in j["endpoints"]))')" = "r1 r2 r3" ] ||
    fail "status endpoints"
r1=$(worker_pid $DAEMON_PID r1)
r2=$(worker_pid $DAEMON_PID r2)
r3=$(worker_pid $DAEMON_PID r3)
[ "$(json_status '[e["pid"] for e in j["endpoints"] if e["endpoint"] == "r3"][0]')" = "$r3" ] ||
    fail "status: r3's pid is not $r3"
[ "$(json_status 'type(j["started_at"]).__name__ + " " + str(len(j["chains"]))')" = "int 1" ] ||
    fail "status: started_at, chains"
ok "status answers with the daemon's pid, config, endpoints and workers"

# r3 moves to d2 (changed), r4 is new; r1 and r2 are kept.
sed -i "s|^endpoint = r3 .*|endpoint = r3 http://127.0.0.1:$d2_port ws://127.0.0.1:$d2_port|" "$CONF"
echo "endpoint = r4 http://127.0.0.1:$d2_port ws://127.0.0.1:$d2_port" >>"$CONF"
expect_rc 0 cw -f "$CONF" reload >"$T/out"
[ "$(cat "$T/out")" = "reloaded: 1 endpoint added, 1 changed, 2 kept" ] ||
    fail "reload printed: $(cat "$T/out") $(cat "$T/cw.err")"
[ ! -s "$T/cw.err" ] || fail "reload said on stderr: $(cat "$T/cw.err")"
wait_for 10 'test -n "$(worker_pid $DAEMON_PID r4)"' || fail "r4 has no worker"
wait_for 10 'dead "$r3"' || fail "r3's old worker $r3 still runs"
wait_for 10 'test -n "$(worker_pid $DAEMON_PID r3)"' || fail "r3 not restarted"
[ "$(worker_pid $DAEMON_PID r1)" = "$r1" ] || fail "r1 was restarted"
[ "$(worker_pid $DAEMON_PID r2)" = "$r2" ] || fail "r2 was restarted"
grep -q "control socket: reload asked by pid" "$T/log" || fail "reload not logged"
ok "reload: $(cat "$T/out"); r1 $r1 and r2 $r2 kept, r3 restarted, r4 started"

# Removing one: ", 1 removed", and the --json answer.
sed -i '/^endpoint = r4 /d' "$CONF"
r4=$(worker_pid $DAEMON_PID r4)
expect_rc 0 cw -s "$SOCK" reload >"$T/out"
[ "$(cat "$T/out")" = "reloaded: 0 endpoints added, 0 changed, 1 removed, 3 kept" ] ||
    fail "reload printed: $(cat "$T/out")"
wait_for 10 'dead "$r4"' || fail "r4's worker $r4 still runs"
expect_rc 0 cw -s "$SOCK" reload --json >"$T/out.json"
python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
assert j["ok"] is True and (j["added"], j["changed"], j["removed"], j["kept"]) == (0, 0, 0, 3), j' \
    "$T/out.json" || fail "reload --json: $(cat "$T/out.json")"
ok "reload: removed, and --json"

# A broken file: the daemon's errors with file and line, exit 1, and
# nothing changes.  With -f the CLI finds them itself; with -s the daemon
# does.
r3=$(worker_pid $DAEMON_PID r3)
cp "$CONF" "$T/good.conf"
printf '[chain broken]\nblock_time = never\nendpoint = x\n' >>"$CONF"
line=$(grep -n '^block_time = never' "$CONF" | cut -d: -f1)
expect_rc 1 cw -s "$SOCK" reload >"$T/out"
[ ! -s "$T/out" ] || fail "broken file: output on stdout: $(cat "$T/out")"
grep -q "^$CONF:$line: block_time: 'never' is not a duration" "$T/cw.err" ||
    fail "broken file: no error with its line: $(cat "$T/cw.err")"
[ "$(grep -c "^$CONF:[0-9]*: " "$T/cw.err")" -ge 2 ] || fail "broken file: one error only: $(cat "$T/cw.err")"
tail -n 1 "$T/cw.err" | grep -q '^chainwatch: not reloaded' || fail "broken file: no last word"
grep -q "not reloading: " "$T/log" || fail "the daemon did not refuse the file"
expect_rc 1 cw -f "$CONF" reload >"$T/out"
grep -q "^$CONF:$line: block_time: 'never' is not a duration" "$T/cw.err" ||
    fail "broken file with -f: $(cat "$T/cw.err")"
sleep 1
alive $DAEMON_PID || fail "the daemon died"
[ "$(worker_pid $DAEMON_PID r1)" = "$r1" ] || fail "r1 changed on a bad reload"
[ "$(worker_pid $DAEMON_PID r3)" = "$r3" ] || fail "r3 changed on a bad reload"
ok "broken file: errors with their lines, exit 1, nothing changed"
cp "$T/good.conf" "$CONF"

# A client that asks and never reads, held while others are served and
# heads still come in.
wait_for 30 'test "$(best)" -gt 0' || fail "no heads stored"
# Long enough for a loaded machine; it is stopped once seen alive.
$CTL hold "$SOCK" 60 "$T/hold.ready" &
hold_pid=$!
wait_for 10 'test -f "$T/hold.ready"' || fail "holding client did not start"
b0=$(best)
expect_rc 0 cw -s "$SOCK" reload >"$T/out"
[ "$(cat "$T/out")" = "reloaded: 0 endpoints added, 0 changed, 3 kept" ] ||
    fail "reload beside a client that does not read: $(cat "$T/out")"
[ "$(json_status 'j["ok"]')" = True ] || fail "status beside a client that does not read"
wait_for 10 'test "$(best)" -gt "$b0"' || fail "heads stopped beside a client that does not read"
alive $hold_pid || fail "the holding client is gone already"
kill $hold_pid 2>/dev/null
wait $hold_pid 2>/dev/null
ok "a client that never reads its answer blocks nobody (best $b0 -> $(best))"

# CONTROL_CLIENTS_MAX (16) clients that send nothing: a 17th is turned
# away at once, a reload meanwhile too (busy, exit 111); they are
# dropped after 5 s, and the next client is answered.
$CTL idle "$SOCK" 17 "$T/idle.ready" "$T/idle.json" &
idle_pid=$!
wait_for 10 'test -f "$T/idle.ready"' || fail "idle clients did not start"
expect_rc 111 cw -s "$SOCK" reload >"$T/out"
grep -q "busy" "$T/cw.err" || fail "reload while busy: $(cat "$T/cw.err")"
wait $idle_pid || fail "idle clients failed"
python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
assert "busy" in j["last"] and "no end" not in j["last"], j
assert j["dropped"] == 16, j' "$T/idle.json" || fail "idle clients: $(cat "$T/idle.json")"
[ "$(grep -c 'sent no request in 5 s; dropped' "$T/log")" -ge 16 ] || fail "drops not logged"
grep -q 'clients already; turned away' "$T/log" || fail "turning away not logged"
[ "$(json_status 'j["ok"]')" = True ] || fail "no answer after the idle clients"
expect_rc 0 cw -s "$SOCK" reload >"$T/out"
ok "17 idle clients: one turned away, 16 dropped, then a client answered"

# A flood of clients while all 16 places are taken: one line for the
# first turned away, then one line counting the rest (not 300 lines).
lines0=$(grep -c 'clients already; turned away' "$T/log")
$CTL flood "$SOCK" 16 300 "$T/flood.ready" &
flood_pid=$!
wait_for 20 'test -f "$T/flood.ready"' || fail "the flood did not start"
wait $flood_pid || fail "the flood failed"
wait_for 10 'grep -q "more clients turned away in" "$T/log"' ||
    fail "the flood was not counted: $(grep 'turned away' "$T/log" | tail -n 3)"
lines=$(($(grep -c 'clients already; turned away' "$T/log") - lines0))
told=$(sed -n 's/.*\.\.\. \([0-9]*\) more clients turned away in.*/\1/p' \
    "$T/log" | awk '{ n += $1 } END { print n + 0 }')
[ "$lines" -le 3 ] || fail "$lines lines for one flood of turned-away clients"
[ $((lines + told)) -ge 300 ] ||
    fail "a flood of 300 told as $lines lines and $told more"
ok "300 clients turned away: $lines line(s) and a count of $told more"

# A daemon that does not accept (stopped, backlog full): the CLI gives
# up within its deadline instead of hanging.
kill -STOP $DAEMON_PID
$CTL fill "$SOCK" 64 12 "$T/fill.ready" &
fill_pid=$!
wait_for 10 'test -f "$T/fill.ready"' || { kill -CONT $DAEMON_PID; fail "fill did not start"; }
timeout 20 "$CHAINWATCH" -s "$SOCK" reload >"$T/out" 2>"$T/cw.err"
rc=$?
kill -CONT $DAEMON_PID
[ $rc = 111 ] || fail "reload to a stopped daemon: exit $rc: $(cat "$T/cw.err")"
grep -q "in 5 s" "$T/cw.err" || fail "reload to a stopped daemon: $(cat "$T/cw.err")"
kill $fill_pid 2>/dev/null
wait $fill_pid 2>/dev/null
ok "stopped daemon: $(cat "$T/cw.err")"
wait_for 20 '$CTL ask "$SOCK" status | grep -q "\"ok\":true"' || fail "no answer after SIGCONT"

# A second daemon on the same socket (another pidfile) does not take it.
sed -e "s|^pidfile = .*|pidfile = $T/other.pid|" \
    -e "s|^database = .*|database = $T/other.db|" "$CONF" >"$T/other.conf"
"$CHAINWATCHD" -d -f "$T/other.conf" >"$T/other.log" 2>&1
rc=$?
[ $rc = 111 ] || fail "a second daemon on the socket exited $rc"
grep -q "another daemon answers on it" "$T/other.log" || fail "second daemon: $(cat "$T/other.log")"
! grep -q -e Sanitizer -e 'runtime error:' "$T/other.log" || fail "second daemon: $(cat "$T/other.log")"
[ "$(json_status 'j["pid"]')" = "$DAEMON_PID" ] || fail "the socket changed hands"
ok "a second daemon refuses to take a live socket"

# killed: the socket stays, nothing answers, the next start replaces it;
# a clean stop removes it.
kill -9 $DAEMON_PID
wait_for 10 'dead $DAEMON_PID' || fail "daemon survived SIGKILL"
[ -S "$SOCK" ] || fail "no stale socket after SIGKILL"
expect_rc 7 cw -f "$CONF" reload
start_daemon
grep -q "removed a stale socket" "$T/log" || fail "stale socket not replaced"
expect_rc 0 cw -f "$CONF" reload >"$T/out"
kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
[ ! -e "$SOCK" ] || fail "socket left after a clean stop"
expect_rc 7 cw -f "$CONF" reload
ok "stale socket replaced at start, removed at stop"
