#!/bin/sh
# Three endpoints give three workers, each dropped to the configured user.
# A SIGSTOPped worker is killed by the heartbeat watchdog (3 missed
# heartbeats of 500 ms) and replaced: the product's promise is within 5 s;
# the test allows 10 s, times CW_WAIT_FACTOR, and prints what it took.
# The other two keep their pids and go on talking to the daemon (their
# polls' outcomes reach it) for longer than the watchdog's limit.
. "$top_srcdir/tests/integration/lib.sh"

write_conf "$T/chainwatch.conf" a1 a2 a3
start_daemon
wait_for 5 'test "$(worker_count $DAEMON_PID)" -eq 3' ||
    fail "expected 3 workers, have $(worker_count $DAEMON_PID)"
ok "3 endpoints, 3 workers"

p1=$(worker_pid $DAEMON_PID a1)
p2=$(worker_pid $DAEMON_PID a2)
p3=$(worker_pid $DAEMON_PID a3)
[ -n "$p1" ] && [ -n "$p2" ] && [ -n "$p3" ] || fail "workers not found by name"
want_user=$(cw_user)
for p in $p1 $p2 $p3; do
	u=$(ps -o user= -p "$p" | tr -d ' ')
	[ "$u" = "$want_user" ] || fail "worker $p runs as $u, want $want_user"
done
ok "workers run as $want_user"
wait_for 5 'grep -q "w/a3: worker pid .* ready" "$T/log"' || fail "no ready line"

kill -STOP "$p2"
stopped_at=$(date +%s%3N)
# One bound for the kill and the replacement, on the clock (wait_for
# scales it by CW_WAIT_FACTOR).
wait_for 10 'dead "$p2" && new2=$(worker_pid $DAEMON_PID a2) && test -n "$new2" && test "$new2" != "$p2"' ||
    fail "stopped worker $p2 not killed and replaced within $((10 * ${CW_WAIT_FACTOR:-1})) s"
new2=$(worker_pid $DAEMON_PID a2)
took=$(( $(date +%s%3N) - stopped_at ))
grep -q "w/a2: pid $p2 sent nothing for .* (3 heartbeats missed); killing it" "$T/log" ||
    fail "no watchdog line for a2"
ok "stopped worker killed and replaced ($p2 -> $new2) in $took ms"

[ "$(worker_pid $DAEMON_PID a1)" = "$p1" ] || fail "a1 pid changed"
[ "$(worker_pid $DAEMON_PID a3)" = "$p3" ] || fail "a3 pid changed"
# Not a sleep: each of a1 and a3 is heard three more times (a poll's
# outcome a second), over 2 s, past the watchdog's 1.5 s limit.
mark=$(wc -l <"$T/log")
heard() {
	tail -n +"$((mark + 1))" "$T/log" | grep -c " sup: w/$1: poll "
}
wait_for 15 'test "$(heard a1)" -ge 3 && test "$(heard a3)" -ge 3' ||
    fail "a1 or a3 went silent: $(heard a1) and $(heard a3) polls heard"
[ "$(worker_pid $DAEMON_PID a1)" = "$p1" ] || fail "a1 pid changed later"
[ "$(worker_pid $DAEMON_PID a3)" = "$p3" ] || fail "a3 pid changed later"
if grep -E -q 'w/a[13]: .*(killing|killed|exited)' "$T/log"; then
	fail "a1 or a3 was disturbed"
fi
ok "a1 and a3 kept their pids and kept talking ($(heard a1) and $(heard a3) polls since)"

kill -TERM $DAEMON_PID
wait_for 10 'dead $DAEMON_PID' || fail "daemon did not stop"
