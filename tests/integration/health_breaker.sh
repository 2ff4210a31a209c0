#!/bin/sh
# An endpoint that stops answering is taken out of the work (its breaker
# opens), the chain is still followed through the other one, and the
# endpoint comes back after a trial once it answers again.  Its state is
# stored and kept across a restart.
. "$top_srcdir/tests/integration/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }

for n in d1 d2; do
	devnode $n --seed health --block-time 100 --backlog 1500 --miners 3
done
write_conf "$T/chainwatch.conf"
sed -i 's/^block_time = .*/block_time = 100ms/' "$T/chainwatch.conf"
cat >>"$T/chainwatch.conf" <<CONF
request_timeout = 1s
connect_timeout = 1s
breaker_consecutive = 3
breaker_min_span = 1s
breaker_cooldown = 1s
endpoint = d1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port
endpoint = d2 http://127.0.0.1:$d2_port ws://127.0.0.1:$d2_port
CONF
start_daemon
wait_for 60 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(sql "SELECT best_number FROM chains")" -gt 1500' ||
    fail "not caught up"
state() {
	sql "SELECT state FROM endpoints WHERE name = '$1'"
}
wait_for 10 'test "$(state d2)" = closed || test "$(state d2)" = unknown' || fail "d2 not healthy at first"

curl -s -m 5 -o /dev/null -d '{"clear":true,"enable":"blackhole@http"}' \
    "http://127.0.0.1:$d2_cport/control" || fail "no control port"
wait_for 20 'test "$(state d2)" = open' || fail "d2's breaker did not open: $(state d2)"
grep -q 'w/d2: endpoint unhealthy: .*timeout' "$T/log" || fail "no log line for d2 opening"
ok "d2 black-holed: its breaker opened ($(sql "SELECT state_reason FROM endpoints WHERE name = 'd2'"))"

# The chain goes on through d1.
best=$(sql "SELECT best_number FROM chains")
wait_for 20 'test "$(sql "SELECT best_number FROM chains")" -gt $((best + 20))' || fail "chain stopped with d2 down"
[ "$(state d1)" != open ] || fail "d1 opened too"
ok "followed through d1 meanwhile"

# A restart keeps d2 out: the store says it is down.
kill -TERM $DAEMON_PID
wait $DAEMON_PID
start_daemon
wait_for 10 'grep -E -q "w/d2: endpoint was (open|half-open) at the last run" "$T/log"' || fail "state not restored"
ok "restart: d2 restored as $(state d2)"

curl -s -m 5 -o /dev/null -d '{"clear":true}' "http://127.0.0.1:$d2_cport/control"
wait_for 30 'test "$(state d2)" = closed' || fail "d2 did not come back: $(state d2)"
grep -q 'w/d2: endpoint healthy again' "$T/log" || fail "no log line for d2 closing"
n=$(sql "SELECT count(*) FROM endpoint_events e JOIN endpoints p ON p.id = e.endpoint_id WHERE p.name = 'd2' AND e.kind IN ('open', 'half-open', 'closed')")
[ "$n" -ge 3 ] || fail "only $n breaker events for d2"
ok "d2 answered a trial and is back ($n breaker events)"
kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
