#!/bin/sh
# An operator's sqlite3 holds the store's write lock (BEGIN IMMEDIATE)
# for 30 s while chainwatchd follows two devnodes: the daemon must not
# exit, status must say store-blocked and why, and once the lock is gone
# the store must equal the chain hash by hash with nothing lost.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
CW=$top_builddir/cli/chainwatch

for n in d1 d2; do
	devnode $n --seed busy --block-time 200 --backlog 600 \
	    --reorg-every 25 --reorg-depth 1-5 --miners 4
done
write_conf "$T/chainwatch.conf"
sed -i 's/^block_time = .*/block_time = 200ms/' "$T/chainwatch.conf"
for n in d1 d2; do
	eval p=\$${n}_port
	echo "endpoint = $n http://127.0.0.1:$p ws://127.0.0.1:$p" >>"$T/chainwatch.conf"
done
start_daemon
wait_for 120 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(sql "SELECT best_number FROM chains")" -gt 600' ||
    fail "not caught up: $(sql 'SELECT * FROM queue_summary')"
before=$(sql "SELECT best_number FROM chains")
ok "caught up to #$before"

# The lock, as an operator's sqlite3 would hold it, for 30 s.
hold_lock 30
wait_for 130 'test -f "$T/locked"' || fail "no write lock taken: $(cat "$T/holder.out")"
t0=$(date +%s)
ok "another process holds BEGIN IMMEDIATE"

wait_for 20 '"$CW" -f "$T/chainwatch.conf" status >"$T/status.out" 2>&1; grep -q "store-blocked: locked by another process" "$T/status.out"' ||
    { cat "$T/status.out"; fail "status does not say store-blocked"; }
ok "status: $(head -n 1 "$T/status.out")"
"$CW" -f "$T/chainwatch.conf" status --json >"$T/status.json" 2>/dev/null
grep -q '"store-blocked"' "$T/status.json" || fail "status --json lacks store-blocked: $(cat "$T/status.json")"

# The daemon lives through the whole hold, and heads keep coming.
while alive $HOLDER; do
	alive $DAEMON_PID || fail "chainwatchd exited while the store was locked"
	sleep 0.5
done
wait $HOLDER || fail "the lock holder failed: $(cat "$T/holder.out")"
held=$(( $(date +%s) - t0 ))
[ "$held" -ge 25 ] || fail "the lock was held $held s only"
ok "lock held $held s; chainwatchd still running"
grep -q "waits in memory, retrying" "$T/log" || fail "no log line said the store was locked"
blocked_lines=$(grep -c "database is locked at" "$T/log")
[ "$blocked_lines" -le 2 ] || fail "$blocked_lines lines said the store was locked (once is enough)"

# It resumes by itself, and takes what waited.
wait_for 60 '"$CW" -f "$T/chainwatch.conf" status >"$T/status.out" 2>&1; ! grep -q store-blocked "$T/status.out"' ||
    fail "still store-blocked after the lock was gone"
grep -q "writable again" "$T/log" || fail "no log line said the store was writable again"
ok "resumed: $(grep 'writable again' "$T/log" | tail -n 1 | sed 's/.*database/database/')"
wait_for 60 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(sql "SELECT best_number FROM chains")" -gt $((before + 100))' ||
    fail "not caught up after the lock: best $(sql 'SELECT best_number FROM chains'), $(sql 'SELECT * FROM queue_summary')"
ok "following again at #$(sql 'SELECT best_number FROM chains')"

kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
/usr/bin/python3 "$top_srcdir/tests/integration/store_check.py" \
    "$T/chainwatch.db" devchain "$d1_port" --margin 20 --state ||
    fail "the store differs from the devnode's chain"
ok "store equals the devnode's canonical chain"
"$CW" -d "$T/chainwatch.db" verify >"$T/verify.out" 2>&1 ||
    { cat "$T/verify.out"; fail "chainwatch verify found differences"; }
ok "chainwatch verify: $(tail -n 1 "$T/verify.out")"
