#!/bin/sh
# Three devnodes of one chain with frequent reorgs: chainwatchd backfills a
# few thousand blocks, then follows live.  The store must equal the
# devnode's canonical chain hash by hash, with every difficulty and
# timestamp read, and the standings must agree with the blocks.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }

for n in d1 d2 d3; do
	devnode $n --seed follow --block-time 100 --backlog 3000 \
	    --reorg-every 15 --reorg-depth 1-8 --miners 5 \
	    --spec-change 1500:146
done
write_conf "$T/chainwatch.conf"
sed -i 's/^block_time = .*/block_time = 100ms/' "$T/chainwatch.conf"
for n in d1 d2 d3; do
	eval p=\$${n}_port
	echo "endpoint = $n http://127.0.0.1:$p ws://127.0.0.1:$p" >>"$T/chainwatch.conf"
done
start_daemon

# Backfilled and caught up: nothing queued, and well past the backlog.
wait_for 120 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(sql "SELECT best_number FROM chains")" -gt 3050' ||
    fail "not caught up: $(sql 'SELECT * FROM queue_summary'), best $(sql 'SELECT best_number FROM chains')"
ok "backfilled to #$(sql 'SELECT best_number FROM chains') and following"
first=$(sql "SELECT first_number FROM runtime_versions WHERE spec_version = 146")
[ "$first" = 1500 ] || fail "runtime 146 first seen at '$first', not at #1500"
ok "runtime upgrade to 146 recorded at #1500"
# No retarget rule known for 146: said, in the store and by status.
[ "$(sql "SELECT retarget FROM chains")" = "not recomputed: runtime quantus-runtime 146 has no retarget rule known here (quantus-runtime 142 to 145)" ] ||
    fail "retarget: $(sql "SELECT retarget FROM chains")"
"$top_builddir/cli/chainwatch" -d "$T/chainwatch.db" status >"$T/status.out"
tr -s ' \n' '  ' <"$T/status.out" | grep -q "difficulties not recomputed: runtime quantus-runtime 146" ||
    fail "status does not say the difficulties are not recomputed: $(cat "$T/status.out")"
ok "runtime 146: difficulties not recomputed, said"
reorgs=$(sql "SELECT count(*) FROM reorgs")
[ "$reorgs" -gt 0 ] || fail "no reorg seen, though the devnodes reorg every 15 blocks"

# Stop, so that the store holds still while it is compared.
kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
/usr/bin/python3 "$top_srcdir/tests/integration/store_check.py" \
    "$T/chainwatch.db" devchain "$d1_port" --margin 20 --state ||
    fail "the store differs from the devnode's chain"
ok "store equals the devnode's canonical chain; $reorgs reorgs followed"

# Standings: counts per miner equal the canonical blocks, every one.
mismatch=$(sql "SELECT count(*) FROM standings s WHERE s.blocks != (SELECT count(*) FROM blocks b WHERE b.chain_id = s.chain_id AND b.canonical = 1 AND b.number > 0 AND coalesce(b.miner, x'') = s.miner) OR s.final_blocks != (SELECT count(*) FROM blocks b WHERE b.chain_id = s.chain_id AND b.final = 1 AND b.number > 0 AND coalesce(b.miner, x'') = s.miner)")
[ "$mismatch" = 0 ] || fail "$mismatch standings rows disagree with the blocks"
# The genesis is stored, sealed by no one, and counted nowhere: no
# unsealed row (every devnode block after it has a miner).
[ "$(sql "SELECT count(*) FROM blocks WHERE number = 0 AND canonical = 1")" = 1 ] ||
    fail "the genesis is not stored"
[ "$(sql "SELECT count(*) FROM standings WHERE miner = x'' AND blocks > 0")" = 0 ] ||
    fail "the genesis or an unsealed block is counted: $(sql "SELECT * FROM standings WHERE miner = x''")"
if [ -x "$top_builddir/cli/chainwatch" ]; then
	"$top_builddir/cli/chainwatch" -d "$T/chainwatch.db" verify >"$T/verify.out" 2>&1 ||
	    { cat "$T/verify.out"; fail "chainwatch verify found differences"; }
	ok "chainwatch verify: $(tail -n 1 "$T/verify.out")"
fi
ok "standings agree with the blocks"
fk=$(sqlite3 -readonly "$T/chainwatch.db" 'PRAGMA foreign_key_check' | wc -l)
[ "$fk" = 0 ] || fail "$fk rows break a foreign key"
ok "no foreign key is broken"
