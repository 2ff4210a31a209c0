#!/bin/sh
# Crash test: chainwatchd is killed with SIGKILL 20 times at random moments
# during backfill and reorgs, and restarted each time.  At the end every
# canonical block from backfill_from to the head is there exactly once,
# equal to the devnode's, with its state read; the standings agree with
# the blocks (chainwatch verify); and no lease is left.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }

for n in d1 d2; do
	devnode $n --seed crash --block-time 100 --backlog 6000 \
	    --reorg-every 10 --reorg-depth 1-5 --miners 4
done
write_conf "$T/chainwatch.conf"
sed -i 's/^block_time = .*/block_time = 100ms/' "$T/chainwatch.conf"
echo "backfill_from = 500" >>"$T/chainwatch.conf"
for n in d1 d2; do
	eval p=\$${n}_port
	echo "endpoint = $n http://127.0.0.1:$p ws://127.0.0.1:$p" >>"$T/chainwatch.conf"
done

# A pseudo-random delay of 100 to 1400 ms.
delay() {
	n=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
	awk -v n="$n" 'BEGIN { printf "%.3f", (n % 1300 + 100) / 1000 }'
}

i=0
while [ $i -lt 20 ]; do
	start_daemon
	d=$(delay)
	delays="$delays $d"
	sleep "$d"
	kill -9 $DAEMON_PID
	wait $DAEMON_PID 2>/dev/null
	i=$((i + 1))
done
ok "20 kill -9 after (s):$delays; stored by then: $(sql 'SELECT count(*) FROM blocks') blocks"

start_daemon
wait_for 120 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(sql "SELECT best_number FROM chains")" -gt 6000' ||
    fail "not caught up after the crashes: $(sql 'SELECT * FROM queue_summary')"
kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
/usr/bin/python3 "$top_srcdir/tests/integration/store_check.py" \
    "$T/chainwatch.db" devchain "$d1_port" --margin 20 --state ||
    fail "the store differs from the devnode's chain after the crashes"
below=$(sql "SELECT count(*) FROM blocks WHERE number < 500")
[ "$below" = 0 ] || fail "$below blocks below backfill_from stored"
if [ -x "$top_builddir/cli/chainwatch" ]; then
	"$top_builddir/cli/chainwatch" -d "$T/chainwatch.db" verify >"$T/verify.out" 2>&1 ||
	    { cat "$T/verify.out"; fail "chainwatch verify found differences"; }
fi
mismatch=$(sql "SELECT count(*) FROM standings s WHERE s.blocks != (SELECT count(*) FROM blocks b WHERE b.chain_id = s.chain_id AND b.canonical = 1 AND b.number > 0 AND coalesce(b.miner, x'') = s.miner)")
[ "$mismatch" = 0 ] || fail "$mismatch standings rows disagree with the blocks"
ok "after 20 crashes: the chain is complete, exactly once, and verify is clean"
