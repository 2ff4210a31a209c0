#!/bin/sh
# Three endpoints give three workers, each dropped to the configured user.
# A SIGSTOPped worker is killed and replaced within 5 s while the other
# two keep their pids (they went on heartbeating, or the watchdog would
# have killed them too).
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
stopped_at=$(date +%s)
wait_for 5 'dead "$p2"' || fail "stopped worker $p2 still there after 5 s"
new2=""
i=0
while [ $i -lt 50 ]; do
	new2=$(worker_pid $DAEMON_PID a2)
	[ -n "$new2" ] && [ "$new2" != "$p2" ] && break
	sleep 0.1
	i=$((i + 1))
done
[ -n "$new2" ] && [ "$new2" != "$p2" ] || fail "a2 not replaced"
took=$(( $(date +%s) - stopped_at ))
[ $took -le 6 ] || fail "a2 replaced after ${took} s"
grep -q "w/a2: pid $p2 sent nothing for .* (3 heartbeats missed); killing it" "$T/log" ||
    fail "no watchdog line for a2"
ok "stopped worker killed and replaced ($p2 -> $new2)"

[ "$(worker_pid $DAEMON_PID a1)" = "$p1" ] || fail "a1 pid changed"
[ "$(worker_pid $DAEMON_PID a3)" = "$p3" ] || fail "a3 pid changed"
sleep 2
[ "$(worker_pid $DAEMON_PID a1)" = "$p1" ] || fail "a1 pid changed later"
[ "$(worker_pid $DAEMON_PID a3)" = "$p3" ] || fail "a3 pid changed later"
if grep -E -q 'w/a[13]: .*(killing|killed|exited)' "$T/log"; then
	fail "a1 or a3 was disturbed"
fi
ok "a1 and a3 kept their pids and kept heartbeating"

kill -TERM $DAEMON_PID
wait_for 10 'dead $DAEMON_PID' || fail "daemon did not stop"
