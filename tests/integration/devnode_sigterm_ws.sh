#!/bin/sh
# SIGTERM stops a devnode that holds a thousand WebSocket connections,
# each subscribed to new heads and no longer read (heads queued for
# each): it exits with status 0 within a bound (a deadlock was noted).
# The descriptors' soft limit is raised for the devnode and the client,
# or the test skips.
. "$top_srcdir/tests/integration/devnode_lib.sh"
N=1000
[ -x "$PY" ] || { echo "SKIP: no $PY"; exit 77; }
want=$((N + 200))
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $want ]; then
	ulimit -S -n $want 2>/dev/null || {
		echo "SKIP: cannot raise the descriptors' limit to $want (hard $(ulimit -H -n))"
		exit 77
	}
fi
bound=30
nm "$DEVNODE" 2>/dev/null | grep -q __asan_init && bound=90

dn_start a --block-time 200
"$PY" "$top_srcdir/tests/integration/devnode_ws_many.py" "$a_port" $N \
    "$T/ready" stall >"$T/client.log" 2>&1 &
client=$!
i=0
while [ ! -s "$T/ready" ]; do
	kill -0 $client 2>/dev/null || fail "the client ended: $(cat "$T/client.log")"
	i=$((i + 1))
	[ $i -le $((bound * 10)) ] || fail "$N connections not open within $bound s"
	sleep 0.1
done
# The client reads nothing now: heads queue up for every connection.
sleep 2
echo "$(cat "$T/ready") connections; heads flowing; SIGTERM"
kill -TERM $a_pid
i=0
while kill -0 $a_pid 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt $((bound * 10)) ]; then
		kill -ABRT $a_pid 2>/dev/null
		fail "the devnode did not stop within $bound s of SIGTERM with $N WebSocket connections"
	fi
	sleep 0.1
done
wait $a_pid
st=$?
[ $st -eq 0 ] || fail "the devnode exited with status $st"
echo "stopped in about $((i / 10)).$((i % 10)) s"
kill $client 2>/dev/null
wait $client 2>/dev/null
exit 0
