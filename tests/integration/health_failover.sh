#!/bin/sh
# State reads of live blocks use failover, not round-robin: the first
# endpoint in configuration order answers them while it is healthy.  When
# it stops answering, reads outstanding longer than hedge_after are also
# sent to the next endpoint; once its breaker opens the next endpoint is
# preferred, and after it recovers the first is again.
. "$top_srcdir/tests/integration/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }

for n in d1 d2 d3; do
	devnode $n --seed failover --block-time 500 --backlog 300 --miners 3
done
write_conf "$T/chainwatch.conf"
sed -i 's/^block_time = .*/block_time = 500ms/' "$T/chainwatch.conf"
cat >>"$T/chainwatch.conf" <<CONF
request_timeout = 4s
connect_timeout = 1s
hedge_after = 500ms
breaker_consecutive = 3
breaker_min_span = 1s
breaker_cooldown = 2s
endpoint = d1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port
endpoint = d2 http://127.0.0.1:$d2_port ws://127.0.0.1:$d2_port
endpoint = d3 http://127.0.0.1:$d3_port ws://127.0.0.1:$d3_port
CONF
start_daemon
wait_for 60 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(sql "SELECT best_number FROM chains")" -gt 300' ||
    fail "not caught up"

# leases EP: live state reads first leased to EP since the log's line
# $mark.  (A read the preferred endpoint answers "not there yet", because
# the head came from a faster one, then goes to another: only the first
# lease of each block says who was preferred.  A sample of the preferred
# one's difficulties, read again by another, is "read again", not
# "preferred": it does not count.)  The routing rules behind
# each phase are unit-tested in tests/unit/test_route.c; here the daemon
# shows them end to end, by outcomes: who was asked, never how fast.
leases() {
	tail -n +"$mark" "$T/log" |
	    sed -n 's/.* w\/\([^:]*\): live state #\([0-9]*\) leased (preferred).*/\2 \1/p' |
	    awk '!seen[$1]++ { print $2 }' | grep -c "^$1\$"
}
state() {
	sql "SELECT state FROM endpoints WHERE name = '$1'"
}

# Healthy: d1 takes every live read.
mark=$(($(wc -l <"$T/log") + 1))
wait_for 60 'test "$(leases d1)" -ge 5' || fail "d1 took $(leases d1) live reads"
a=$(leases d1) b=$(leases d2) c=$(leases d3)
[ "$b" = 0 ] && [ "$c" = 0 ] || fail "live reads went round: d1 $a, d2 $b, d3 $c"
ok "healthy: d1 took all $a live reads"

# d1 black-holed: reads are hedged to d2, then d2 is preferred.
curl -s -m 5 -o /dev/null -d '{"clear":true,"enable":"blackhole@http"}' \
    "http://127.0.0.1:$d1_cport/control" || fail "no control port"
mark=$(($(wc -l <"$T/log") + 1))
wait_for 60 'test "$(state d1)" = open' || fail "d1 did not open: $(state d1)"
tail -n +"$mark" "$T/log" | grep -q "on w/d1; hedged" || fail "nothing was hedged away from d1"
# d2 is preferred now; d3 only takes a read when d2 is full.
mark=$(($(wc -l <"$T/log") + 1))
wait_for 60 'test "$(leases d2)" -ge 3' || fail "d2 took $(leases d2) live reads after d1 failed"
b=$(leases d2) c=$(leases d3)
[ "$c" -lt "$b" ] || fail "d3 took $c live reads, d2 $b: no failover order"
[ "$(leases d1)" = 0 ] || fail "d1 took live reads while open"
ok "d1 black-holed: hedged, then d2 preferred ($b reads)"

# d1 back: preferred again after its trial.
curl -s -m 5 -o /dev/null -d '{"clear":true}' "http://127.0.0.1:$d1_cport/control"
wait_for 60 'test "$(state d1)" = closed' || fail "d1 did not come back: $(state d1)"
mark=$(($(wc -l <"$T/log") + 1))
wait_for 60 'test "$(leases d1)" -ge 3' || fail "d1 took $(leases d1) live reads after it recovered"
a=$(leases d1) b=$(leases d2)
[ "$b" = 0 ] || fail "after recovery: d1 $a, d2 $b live reads"
ok "d1 recovered: preferred again ($a reads)"

wait_for 60 'test "$(sql "SELECT count(*) FROM blocks WHERE canonical = 1 AND (timestamp IS NULL OR difficulty IS NULL)")" = 0' ||
    fail "state reads missing: $(sql "SELECT count(*) FROM blocks WHERE canonical = 1 AND timestamp IS NULL")"
"$top_builddir/cli/chainwatch" -d "$T/chainwatch.db" verify >"$T/verify.out" 2>&1 || { cat "$T/verify.out"; fail "verify found differences"; }
ok "every canonical block has its state; verify clean"
kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
