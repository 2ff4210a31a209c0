#!/bin/sh
# Unresponsive endpoints on DEFAULT timeouts (request_timeout 10 s,
# breaker_min_span 10 s, hedge_after 1 s: none set here), one chain, three
# devnodes d1, d2, d3 (d1 preferred), 300 ms blocks.  Each of these is
# shown `unresponsive`, the chain `degraded` with "no answer for N s",
# long before any breaker can know; each clears once the endpoint answers
# again (the times are printed).  The promise is 5 s, a figure that
# chaos_defaults.sh measures and prints; asserted here is under 9.5 s,
# whatever CW_WAIT_FACTOR: before the 10 s request_timeout, so before
# any request failed and any breaker could know (a later bound would not
# tell the unresponsive rule from the breaker's):
#   first:     d3 black-holed from its start: it never answered anything;
#   blackhole: d1, the preferred endpoint, black-holed;
#   slow:      d2 answering 30 s late (slow:30000; no request it gets
#              answers in time, as with one byte a second).
# Then every endpoint equally slow (slow:3000 on all three): no endpoint
# is singled out, no `unresponsive` event is written, and status says the
# chain is slow.  Last, a breaker that opens and flips half-open and open
# again several times: its `since` stays the outage's start.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }

CW=$top_builddir/cli/chainwatch
DB=$T/chainwatch.db
LIMIT=9.5		# s from the fault to unresponsive and degraded
TF=${CW_WAIT_FACTOR:-1}	# the waits (not LIMIT) are scaled by it
# Its own waits are at most 60 s (times TF); it runs the CLI unbounded.
CHECK="timeout $((120 * TF)) /usr/bin/python3 $top_srcdir/tests/integration/chaos_check.py"
BACKLOG=200
START=$(date +%s%3N)
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

# cw ARGS: the CLI, bounded.
cw() {
	timeout $((30 * TF)) "$CW" "$@"
}
now_ms() {
	date +%s%3N
}
secs() {
	awk "BEGIN { printf \"%.1f\", $1 / 1000 }"
}
ctl() {
	eval "_cp=\$${1}_cport"
	curl -s -m 5 -o /dev/null -d "$2" "http://127.0.0.1:$_cp/control" ||
	    fail "devnode $1's control port did not answer $2"
}
state() {
	sql "SELECT state FROM endpoints WHERE name = '$1'"
}
# status_within T0 SPEC WHAT: the status matches SPEC (chaos_check.py)
# within LIMIT s of T0; sets s to how long it took.
status_within() {
	s=$($CHECK status --cw "$CW" --db "$DB" --t0 "$1" --expect "$2" \
	    --timeout $((20 * TF)) 2>"$T/status.why") ||
	    fail "$3: status not '$2' within $((20 * TF)) s: $(cat "$T/status.why")"
	echo "unresponsive: $3: $(cat "$T/status.why") after $s s"
	awk "BEGIN { exit !($s <= $LIMIT) }" ||
	    fail "$3: status '$2' only after $s s (limit $LIMIT s)"
}
# events NAME KIND T0: NAME's events of KIND since T0.
events() {
	sql "SELECT count(*) FROM endpoint_events t JOIN endpoints e ON e.id = t.endpoint_id WHERE e.name = '$1' AND t.kind = '$2' AND t.at >= $3"
}

for n in d1 d2 d3; do
	f=
	[ $n = d3 ] && f="--fault blackhole"
	# shellcheck disable=SC2086
	devnode $n --seed unresp --block-time 300 --miners 3 \
	    --backlog $BACKLOG --start-time "$START" $f
done
cat >"$T/chainwatch.conf" <<CONF
[daemon]
database = $DB
pidfile = $T/chainwatchd.pid
user = $(cw_user)
worker = $WORKER
heartbeat_interval = 500ms
stop_timeout = 2s
log_level = debug
control_socket = $T/chainwatchd.sock
metrics_listen = none

[chain devchain]
difficulty_floor = 1
block_time = 300ms
endpoint = d1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port
endpoint = d2 http://127.0.0.1:$d2_port ws://127.0.0.1:$d2_port
endpoint = d3 http://127.0.0.1:$d3_port ws://127.0.0.1:$d3_port
CONF

# first: d3 never answers its first requests.
T0=$(now_ms)
start_daemon
status_within "$T0" "degraded d3=unresponsive:no answer for [0-9]+ s" first
[ "$(events d3 unresponsive "$T0")" -ge 1 ] || fail "first: no unresponsive event for d3"
T1=$(now_ms)
ctl d3 '{"clear":true}'
wait_for 30 'test "$(state d3)" = closed' || fail "first: d3 still $(state d3) after its answers"
echo "unresponsive: first: d3 closed $(secs $(($(now_ms) - T1))) s after it answered"
[ "$(events d3 answering "$T1")" -ge 1 ] || fail "first: no answering event for d3"
ok "an endpoint that never answered: unresponsive in $s s, cleared by its answer"

$CHECK caught-up --db "$DB" --timeout $((60 * TF)) >/dev/null ||
    fail "not caught up: $(sql 'SELECT * FROM queue_summary')"
$CHECK status --cw "$CW" --db "$DB" --expect ok --timeout $((20 * TF)) >/dev/null 2>"$T/status.why" ||
    fail "not ok after catching up: $(cat "$T/status.why")"

# blackhole: the preferred endpoint.
T0=$(now_ms)
ctl d1 '{"enable":"blackhole"}'
status_within "$T0" "degraded d1=unresponsive:no answer for [0-9]+ s" blackhole
cw -d "$DB" endpoints devchain >"$T/endpoints" 2>&1
grep -A2 '^d1 ' "$T/endpoints" | grep -q '^  unresponsive .*' ||
    fail "blackhole: chainwatch endpoints does not show d1 unresponsive: $(cat "$T/endpoints")"
cw -d "$DB" status devchain >"$T/status" 2>&1
grep -q 'degraded: 1 of 3 endpoints unresponsive' "$T/status" ||
    fail "blackhole: status headline: $(cat "$T/status")"
T1=$(now_ms)
ctl d1 '{"clear":true}'
wait_for 30 'test "$(state d1)" = closed' || fail "blackhole: d1 still $(state d1) after its answers"
echo "unresponsive: blackhole: d1 closed $(secs $(($(now_ms) - T1))) s after it answered"
ok "the preferred endpoint black-holed: unresponsive in $s s, cleared by its answers"
$CHECK status --cw "$CW" --db "$DB" --expect ok --timeout $((20 * TF)) >/dev/null 2>"$T/status.why" ||
    fail "not ok after the blackhole: $(cat "$T/status.why")"

# slow: d2 answers 30 s late.
T0=$(now_ms)
ctl d2 '{"enable":"slow:30000"}'
status_within "$T0" "degraded d2=unresponsive:no answer for [0-9]+ s" slow
T1=$(now_ms)
ctl d2 '{"clear":true}'
wait_for 60 'test "$(state d2)" = closed' || fail "slow: d2 still $(state d2) after it answered"
echo "unresponsive: slow: d2 closed $(secs $(($(now_ms) - T1))) s after the fault was lifted"
ok "an endpoint answering 30 s late: unresponsive in $s s, cleared by its answers"
$CHECK status --cw "$CW" --db "$DB" --expect ok --timeout $((30 * TF)) >/dev/null 2>"$T/status.why" ||
    fail "not ok after slow: $(cat "$T/status.why")"

# Every endpoint equally slow: the chain is slow, nobody unresponsive.
T0=$(now_ms)
for n in d1 d2 d3; do
	ctl $n '{"enable":"slow:3000"}'
done
wait_for 20 'cw -d "$DB" status devchain 2>&1 | grep -q "^devchain: ok: slow: "' ||
    fail "all slow: status never says slow: $(cw -d "$DB" status devchain 2>&1)"
echo "unresponsive: all slow: $(cw -d "$DB" status devchain 2>&1 | head -1) after $(secs $(($(now_ms) - T0))) s"
# Then by the chain's latency, once measured: a longer stretch.
wait_for 60 'cw -d "$DB" status devchain 2>&1 | grep -q "^devchain: ok: slow: answers take"' ||
    fail "all slow: status never says slow: $(cw -d "$DB" status devchain 2>&1)"
echo "unresponsive: all slow: $(cw -d "$DB" status devchain 2>&1 | head -1) after $(secs $(($(now_ms) - T0))) s"
for n in d1 d2 d3; do
	[ "$(events $n unresponsive "$T0")" = 0 ] ||
	    fail "all slow: $n was made unresponsive: $(sql "SELECT t.detail FROM endpoint_events t JOIN endpoints e ON e.id = t.endpoint_id WHERE e.name = '$n' AND t.kind = 'unresponsive' AND t.at >= $T0")"
done
cw -d "$DB" status --json devchain >"$T/json" 2>&1
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["chains"][0]
assert c["slow"] and c["slow_since"], c
assert all(e["state"] == "closed" for e in c["endpoints"]), c
' "$T/json" || fail "all slow: --json: $(cat "$T/json")"
T1=$(now_ms)
for n in d1 d2 d3; do
	ctl $n '{"clear":true}'
done
wait_for 60 'cw -d "$DB" status devchain 2>&1 | grep -q "^devchain: ok: 3 endpoints healthy"' ||
    fail "all slow: status still $(cw -d "$DB" status devchain 2>&1 | head -1)"
echo "unresponsive: all slow: healthy again $(secs $(($(now_ms) - T1))) s after"
ok "every endpoint slow: status says slow, no endpoint singled out"

# One outage, several flips: refused connections open d3's breaker (the
# peer rule: failures over 2 s while d1 and d2 answer); its trials fail
# and it flips half-open and open again; its since stays the outage's
# start.
T0=$(now_ms)
ctl d3 '{"enable":"refuse"}'
wait_for 60 'test "$(state d3)" = open' || fail "flips: d3's breaker never opened: $(state d3)"
since=$(sql "SELECT state_since FROM endpoints WHERE name = 'd3'")
wait_for 90 'test "$(events d3 half-open "$T0")" -ge 3 && test "$(events d3 open "$T0")" -ge 4' ||
    fail "flips: d3 flipped only $(events d3 half-open "$T0") times"
now=$(sql "SELECT state || ' ' || state_since || ' ' || state_reason FROM endpoints WHERE name = 'd3'")
[ "$(echo "$now" | cut -d' ' -f2)" = "$since" ] ||
    fail "flips: d3's since moved: $since, now $now"
echo "$now" | grep -q 'on trial at' ||
    fail "flips: d3's reason does not name its last trial: $now"
cw -d "$DB" --json status devchain 2>/dev/null >"$T/json" ||
    cw -d "$DB" status --json devchain >"$T/json" 2>&1
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["chains"][0]
d3 = [e for e in c["endpoints"] if e["name"] == "d3"][0]
assert d3["since"] == int(sys.argv[2]), (d3, sys.argv[2])
' "$T/json" "$since" || fail "flips: status shows another since: $(cat "$T/json")"
ok "d3's breaker flipped $(events d3 half-open "$T0") times half-open; since stays $since ($now)"
ctl d3 '{"clear":true}'
kill -TERM $DAEMON_PID
wait_for 20 'dead $DAEMON_PID' || fail "daemon did not stop"
wait $DAEMON_PID || fail "daemon exited with $?"
