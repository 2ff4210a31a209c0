#!/bin/sh
# Deep reorgs from two devnodes of one chain: each switch of branch, 40 to
# 99 blocks deep, is one row of reorgs with its depth, and the store ends
# equal to the devnode's chain hash by hash.  With longer but lighter
# second branches, the heavier stays (quantus).  Then a devnode that reorgs
# deeper than finality (120 blocks): the switch is never applied, the
# endpoint is reported (endpoint event "inconsistent"), the daemon stays
# up and its canonical set stays one chain.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }

# follow CONF_BLOCK_TIME NAME...: a conf for the devnodes named.
follow() {
	_bt=$1
	shift
	write_conf "$T/chainwatch.conf"
	sed -i "s/^block_time = .*/block_time = $_bt/" "$T/chainwatch.conf"
	for _n in "$@"; do
		eval _p=\$${_n}_port
		echo "endpoint = $_n http://127.0.0.1:$_p ws://127.0.0.1:$_p" >>"$T/chainwatch.conf"
	done
}

for n in d1 d2; do
	devnode $n --seed trust --block-time 100 --backlog 200 \
	    --reorg-every 120 --reorg-depth 40-99 --miners 4
done
follow 100ms d1 d2
start_daemon
# Three reorgs after the backlog, at #240, #360 and #480, and the chain
# linked down to the genesis.
wait_for 180 'test "$(sql "SELECT count(*) FROM reorgs")" -ge 3 && test "$(sql "SELECT best_number FROM chains")" -gt 500 &&
    test "$(sql "SELECT count(*) FROM blocks WHERE canonical = 1")" -gt "$(sql "SELECT best_number FROM chains")"' ||
    fail "not 3 reorgs: $(sql 'SELECT depth, ancestor_number FROM reorgs'), best $(sql 'SELECT best_number FROM chains')"
kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
bad=$(sql "SELECT count(*) FROM reorgs WHERE depth NOT BETWEEN 40 AND 99")
[ "$bad" = 0 ] || fail "reorgs of other depths: $(sql 'SELECT depth, ancestor_number FROM reorgs')"
# Each one: the ancestor is depth below a multiple of 120.
bad=$(sql "SELECT count(*) FROM reorgs WHERE (ancestor_number + depth) % 120 != 0")
[ "$bad" = 0 ] || fail "reorgs not where the devnode made them: $(sql 'SELECT depth, ancestor_number FROM reorgs')"
ok "reorgs, one row each: $(sql "SELECT group_concat(depth || '@' || ancestor_number, ' ') FROM reorgs")"
/usr/bin/python3 "$top_srcdir/tests/integration/store_check.py" \
    "$T/chainwatch.db" devchain "$d1_port" --margin 20 ||
    fail "the store differs from the devnode's chain"
"$top_builddir/cli/chainwatch" -d "$T/chainwatch.db" verify >"$T/verify.out" 2>&1 ||
    { cat "$T/verify.out"; fail "chainwatch verify found differences"; }
ok "store equals the devnode's chain; verify: $(tail -n 1 "$T/verify.out")"

# Quantus chooses the heaviest branch: with reorgs whose second branch is
# longer but lighter, l1 keeps the first (as Quantus nodes do), l2 takes
# the longer.  The store must follow l1: the difficulties of both
# branches are read before choosing.  (Their chains part at the first
# reorg, #120, after the backlog: before it, the first head may come
# from either.)
rm -f "$T/chainwatch.db" "$T/chainwatch.db-wal" "$T/chainwatch.db-shm"
devnode l1 --seed light --block-time 100 --backlog 100 --reorg-every 120 \
    --reorg-depth 40-99 --reorg-work lighter --fork-choice heaviest
devnode l2 --seed light --block-time 100 --backlog 100 --reorg-every 120 \
    --reorg-depth 40-99 --reorg-work lighter --fork-choice longest
follow 100ms l1 l2
start_daemon
# Past 3 reorgs, and linked down to the genesis: a first head taken late
# (the devnodes disagree from #120 on, and the daemon waits for two to
# agree up to 10 s) is already past #520, with the blocks below it still
# to be fetched.
wait_for 180 'test "$(sql "SELECT best_number FROM chains")" -gt 520 &&
    test "$(sql "SELECT count(*) FROM blocks WHERE canonical = 1")" -gt "$(sql "SELECT best_number FROM chains")"' ||
    fail "not past 3 reorgs and linked: best $(sql 'SELECT best_number FROM chains'), $(sql 'SELECT count(*) FROM blocks WHERE canonical = 1') canonical"
kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
/usr/bin/python3 "$top_srcdir/tests/integration/store_check.py" \
    "$T/chainwatch.db" devchain "$l1_port" --margin 20 ||
    fail "the store does not follow the heaviest chain"
"$top_builddir/cli/chainwatch" -d "$T/chainwatch.db" verify >"$T/verify.out" 2>&1 ||
    { cat "$T/verify.out"; fail "chainwatch verify found differences"; }
ok "longer but lighter branches lost; verify: $(tail -n 1 "$T/verify.out")"

# A reorg deeper than finality is a lie: never applied.
rm -f "$T/chainwatch.db" "$T/chainwatch.db-wal" "$T/chainwatch.db-shm"
devnode d3 --seed deep --block-time 100 --backlog 150 --finality-lag 200 \
    --reorg-every 200 --reorg-depth 120 --miners 4
follow 100ms d3
start_daemon
wait_for 120 'test "$(sql "SELECT count(*) FROM endpoint_events WHERE kind = '"'inconsistent'"'")" -ge 1' ||
    fail "the deep reorg was not reported: best $(sql 'SELECT best_number FROM chains'), reorgs $(sql 'SELECT depth FROM reorgs')"
kill -0 $DAEMON_PID || fail "the daemon died"
ok "reported: $(sql "SELECT detail FROM endpoint_events WHERE kind = 'inconsistent' LIMIT 1")"
deep=$(sql "SELECT count(*) FROM reorgs WHERE depth > 100")
[ "$deep" = 0 ] || fail "a reorg deeper than finality was applied"
kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
broken=$(sql "SELECT count(*) FROM blocks b WHERE canonical = 1 AND number > (SELECT min(number) FROM blocks WHERE canonical = 1) AND NOT EXISTS (SELECT 1 FROM blocks p WHERE p.hash = b.parent AND p.canonical = 1 AND p.number = b.number - 1)")
[ "$broken" = 0 ] || fail "$broken canonical blocks without a canonical parent"
final_off=$(sql "SELECT count(*) FROM blocks WHERE final = 1 AND canonical = 0")
[ "$final_off" = 0 ] || fail "$final_off final blocks off the chain"
"$top_builddir/cli/chainwatch" -d "$T/chainwatch.db" verify >"$T/verify.out" 2>&1 ||
    { cat "$T/verify.out"; fail "chainwatch verify found differences"; }
ok "the chain below finality stays; verify: $(tail -n 1 "$T/verify.out")"
