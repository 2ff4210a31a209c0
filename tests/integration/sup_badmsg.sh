#!/bin/sh
# A worker that sends a malformed, oversized, unknown or out-of-sequence
# message is killed, logged with its endpoint and the reason; a message of
# a stale generation is dropped.  A worker that fails its setup is not
# respawned until its configuration changes, and that is logged once.
. "$top_srcdir/tests/integration/lib.sh"

[ -x /usr/bin/python3 ] || { echo "no /usr/bin/python3"; exit 77; }
WORKER=$top_srcdir/tests/integration/fake_worker.py
write_conf "$T/chainwatch.conf" garbage-1 oversized-1 future-1 unknown-1 \
    config-1 nofield-1 stale-1 setup-1
start_daemon

expect_kill() {
	wait_for 10 "grep -q 'w/$1: pid [0-9]* sent a bad message ($2); killing it' \"\$T/log\"" ||
	    fail "$1: no kill for '$2'"
	ok "$1 killed: $2"
}
expect_kill garbage-1 'not msgpack'
expect_kill oversized-1 '1048577 bytes, over the 1048576 byte limit'
expect_kill future-1 'generation [0-9]*, expected [0-9]*'
expect_kill unknown-1 'unknown message type'
expect_kill config-1 'unexpected config message'
expect_kill nofield-1 'heartbeat without rss_kb'
# Killed workers come back (they are respawned with backoff).
wait_for 5 'grep -q "w/garbage-1: restart 1, in 1.0 s" "$T/log"' || fail "garbage-1 not respawned"

wait_for 5 'grep -q "w/stale-1: dropped heartbeat of stale generation" "$T/log"' ||
    fail "stale message not dropped"
# Dropped, not killed for it (a loaded machine may kill a slow fake
# worker for its missed heartbeats: that is not what is tested here).
grep -q 'w/stale-1: pid [0-9]* sent a bad message' "$T/log" &&
    fail "stale-1 was killed for its stale message"
ok "stale generation dropped, worker kept"

wait_for 5 'grep -q "w/setup-1: worker failed its setup; not restarting it until the configuration changes" "$T/log"' ||
    fail "setup failure not reported"
# Not again while the loop works on: garbage-1 is killed and respawned
# twice more meanwhile (a positive event, not a sleep).
restarts() {
	grep -c 'w/garbage-1: restart [0-9]*, in' "$T/log"
}
r=$(restarts)
wait_for 30 'test "$(restarts)" -ge $((r + 2))' || fail "garbage-1 not respawned again"
n=$(grep -c 'w/setup-1: worker failed its setup' "$T/log")
[ "$n" -eq 1 ] || fail "setup failure logged $n times"
grep -q 'w/setup-1: restart' "$T/log" && fail "setup-1 was restarted"
kill -HUP $DAEMON_PID
wait_for 5 'grep -q "reloaded .*8 kept" "$T/log"' || fail "no reload"
r=$(restarts)
wait_for 40 'test "$(restarts)" -gt $r' || fail "garbage-1 not respawned after the reload"
n=$(grep -c 'w/setup-1: worker failed its setup' "$T/log")
[ "$n" -eq 1 ] || fail "an unchanged reload restarted setup-1"
sed -i 's|^endpoint = setup-1 http://127.0.0.1:[0-9]*|endpoint = setup-1 http://127.0.0.1:'"$(closed_port)"'|' \
    "$T/chainwatch.conf"
kill -HUP $DAEMON_PID
wait_for 5 'test "$(grep -c "w/setup-1: worker failed its setup" "$T/log")" -eq 2' ||
    fail "a changed configuration did not retry setup-1"
ok "setup failure parked until the configuration changed"

kill -TERM $DAEMON_PID
wait_for 10 'dead $DAEMON_PID' || fail "daemon did not stop"
