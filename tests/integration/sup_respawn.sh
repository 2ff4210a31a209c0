#!/bin/sh
# kill -9 of a worker: it is respawned with backoff, 1 s after the first
# death, 2 s after the second, and its restarts are counted.
. "$top_srcdir/tests/integration/lib.sh"

write_conf "$T/chainwatch.conf" a1 a2
start_daemon
wait_for 5 'test "$(worker_count $DAEMON_PID)" -eq 2' || fail "no workers"

# respawned OLD_PID: wait for a new a1 worker; print its pid.
respawned() {
	_i=0
	while [ $_i -lt 100 ]; do
		_p=$(worker_pid $DAEMON_PID a1)
		if [ -n "$_p" ] && [ "$_p" != "$1" ]; then
			echo "$_p"
			return 0
		fi
		sleep 0.05
		_i=$((_i + 1))
	done
	return 1
}

# Milliseconds since the epoch, for lower bounds only.
ms() {
	date +%s%3N
}

p=$(worker_pid $DAEMON_PID a1)
t0=$(ms)
kill -9 "$p"
p_b=$(respawned "$p") || fail "a1 not respawned after kill -9"
t1=$(ms)
[ $((t1 - t0)) -ge 900 ] || fail "respawned after $((t1 - t0)) ms, before the 1 s backoff"
grep -q "w/a1: pid $p killed by signal 9" "$T/log" || fail "death not logged"
grep -q 'w/a1: restart 1, in 1.0 s' "$T/log" || fail "restart 1 not logged"
ok "respawned after $((t1 - t0)) ms"

wait_for 5 'grep -q "w/a1: worker pid $p_b ready" "$T/log"' || fail "new a1 not ready"
t0=$(ms)
kill -9 "$p_b"
p_c=$(respawned "$p_b") || fail "a1 not respawned after the second kill -9"
t1=$(ms)
[ $((t1 - t0)) -ge 1900 ] || fail "second respawn after $((t1 - t0)) ms, before the 2 s backoff"
grep -q 'w/a1: restart 2, in 2.0 s' "$T/log" || fail "restart 2 not logged"
ok "second respawn after $((t1 - t0)) ms"

# The other endpoint was not affected.
grep -q 'w/a2: .*killed' "$T/log" && fail "a2 was disturbed"
kill -TERM $DAEMON_PID
wait_for 10 'dead $DAEMON_PID' || fail "daemon did not stop"
