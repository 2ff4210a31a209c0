#!/bin/sh
# A reader keeps an old transaction open while chainwatchd backfills, so
# the checkpoints cannot pass it.  Once the WAL holds 64 MB the backfill
# must wait (its answers held, no new work asked) rather than grow the
# WAL, heads must go on, and the endpoints whose answers wait must not be
# taken for unresponsive (their breakers stay closed): their answers
# came.  Once the reader lets go, the backfill finishes, its history
# becomes final without growing the WAL past 96 MB, and the store is
# whole.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
CW=$top_builddir/cli/chainwatch
BACKLOG=40000
MB=1048576

for n in d1 d2; do
	devnode $n --seed walhold --block-time 1000 --backlog $BACKLOG
done
write_conf "$T/chainwatch.conf"
for n in d1 d2; do
	eval p=\$${n}_port
	echo "endpoint = $n http://127.0.0.1:$p ws://127.0.0.1:$p" >>"$T/chainwatch.conf"
done
start_daemon
wait_for 60 'test "$(sql "SELECT count(*) FROM blocks")" -gt 0' ||
    fail "no block stored"

# The reader: a read transaction, held until $T/release exists.
python3 - "$T/chainwatch.db" "$T/reading" "$T/release" >"$T/reader.out" 2>&1 <<'PY' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN")
db.execute("SELECT count(*) FROM blocks WHERE number < 0").fetchall()
open(sys.argv[2], "w").close()
end = time.monotonic() + 300
while not os.path.exists(sys.argv[3]) and time.monotonic() < end:
    time.sleep(0.05)
db.execute("COMMIT")
PY
READER=$!
CW_PIDS="$CW_PIDS $READER"
wait_for 20 'test -f "$T/reading"' || fail "the reader did not start: $(cat "$T/reader.out")"
ok "a reader holds a transaction from $(sql 'SELECT count(*) FROM blocks') blocks on"

wait_for 120 'grep -q "the checkpoints behind: backfill waits" "$T/log"' ||
    fail "the WAL never passed 64 MB: $(stat -c %s "$T/chainwatch.db-wal") bytes, $(sql 'SELECT count(*) FROM blocks') blocks"
best0=$(sql "SELECT best_number FROM chains")
ok "the WAL passed 64 MB ($(stat -c %s "$T/chainwatch.db-wal") bytes); best #$best0"

# Held: four times the least overdue bound (2 s), and heads go on.
sleep 8
wal=$(stat -c %s "$T/chainwatch.db-wal")
states=$(sql "SELECT group_concat(name || '=' || state, ' ') FROM endpoints ORDER BY name")
best1=$(sql "SELECT best_number FROM chains")
[ "$wal" -lt $((96 * MB)) ] || fail "the WAL grew to $wal bytes while the reader held it: the backfill did not wait"
ok "the WAL stays at $((wal / MB)) MB while the reader holds it"
[ "$best1" -gt "$best0" ] || fail "no head stored while the backfill waited (best #$best0, then #$best1)"
ok "heads go on: best #$best0 -> #$best1"
[ "$states" = "d1=closed d2=closed" ] || {
	grep 'unresponsive\|slow' "$T/log" | tail -n 5
	fail "endpoints whose answers wait in the daemon: $states"
}
if grep -q 'endpoint unresponsive' "$T/log"; then
	grep 'endpoint unresponsive' "$T/log" | head -n 3
	fail "an endpoint was taken for unresponsive while its answers waited"
fi
ok "endpoints $states"

# The reader lets go: the backfill finishes, then its blocks become final
# all at once (the history links only at the end), a slice at a time.
# The WAL's largest size meanwhile, sampled every 0.1 s: slices of 10000
# blocks wrote 40 MB a commit, back to back.
touch "$T/release"
wait $READER || fail "the reader failed: $(cat "$T/reader.out")"
(
	max=0
	while [ ! -f "$T/final" ]; do
		s=$(stat -c %s "$T/chainwatch.db-wal" 2>/dev/null || echo 0)
		[ "$s" -gt "$max" ] && max=$s && echo "$max" >"$T/walmax"
		sleep 0.1
	done
) &
SAMPLER=$!
CW_PIDS="$CW_PIDS $SAMPLER"
wait_for 180 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(sql "SELECT count(*) FROM blocks WHERE canonical = 1 AND number <= $BACKLOG AND difficulty IS NOT NULL")" -ge $BACKLOG' ||
    fail "backfill not finished: $(sql 'SELECT * FROM queue_summary'); $(sql "SELECT count(*) FROM blocks WHERE canonical = 1 AND difficulty IS NOT NULL") blocks"
ok "backfill finished after the reader let go: $(sql "SELECT count(*) FROM blocks WHERE canonical = 1") blocks"
wait_for 120 'test "$(sql "SELECT coalesce(final_number, 0) FROM chains")" -ge $((BACKLOG - 200))' ||
    fail "not final: final_number $(sql 'SELECT final_number FROM chains'), best $(sql 'SELECT best_number FROM chains')"
touch "$T/final"
wait $SAMPLER
walmax=$(cat "$T/walmax")
[ "$walmax" -lt $((96 * MB)) ] ||
    fail "the WAL grew to $((walmax / MB)) MB while the backfill finished and its blocks became final"
ok "final to #$(sql 'SELECT final_number FROM chains'); the WAL at most $((walmax / MB)) MB meanwhile"
kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
"$CW" -d "$T/chainwatch.db" verify >"$T/verify.out" 2>&1 ||
    { cat "$T/verify.out"; fail "chainwatch verify found differences"; }
ok "chainwatch verify: $(tail -n 1 "$T/verify.out")"
