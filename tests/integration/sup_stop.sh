#!/bin/sh
# SIGTERM: every process is gone and the exit status is 0, even with a
# worker that cannot act on TERM (stopped), which is killed after
# stop_timeout.  kill -9 of the supervisor: every worker exits by itself
# within 2 s.
. "$top_srcdir/tests/integration/lib.sh"

write_conf "$T/chainwatch.conf" a1 a2 a3
start_daemon
wait_for 5 'test "$(worker_count $DAEMON_PID)" -eq 3' || fail "no workers"
pids=$(pgrep -P $DAEMON_PID)
[ -s "$T/chainwatchd.pid" ] || fail "no pidfile"
[ "$(cat "$T/chainwatchd.pid")" = "$DAEMON_PID" ] || fail "pidfile has the wrong pid"

# A second daemon on the same pidfile refuses to start.
"$CHAINWATCHD" -d -f "$T/chainwatch.conf" >"$T/second.log" 2>&1
rc=$?
[ $rc -eq 111 ] || fail "second daemon exited $rc, want 111"
grep -q "already running (pid $DAEMON_PID" "$T/second.log" || fail "second daemon did not say why"
ok "second daemon refused"

kill -STOP $(worker_pid $DAEMON_PID a3)
kill -TERM $DAEMON_PID
wait $DAEMON_PID
rc=$?
[ $rc -eq 0 ] || fail "daemon exited with $rc after SIGTERM"
for p in $pids; do
	dead "$p" || fail "worker $p still running after the daemon stopped"
done
[ ! -e "$T/chainwatchd.pid" ] || fail "pidfile left behind"
ok "SIGTERM: exit 0, no process left, pidfile removed"

start_daemon
wait_for 5 'test "$(worker_count $DAEMON_PID)" -eq 3' || fail "no workers after restart"
pids=$(pgrep -P $DAEMON_PID)
kill -9 $DAEMON_PID
for p in $pids; do
	wait_for 2 'dead "$p"' || fail "worker $p survived its supervisor by 2 s"
done
ok "kill -9 of the supervisor: all workers gone"
