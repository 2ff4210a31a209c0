#!/bin/sh
# Started beside nodes still syncing (issue 31): a first best that the
# chain later shows to be far behind must not cap what the chain can have
# made.  1. Three devnodes of one chain, two of them 2500 blocks behind
# (lag): the first best is the old head the two agree on, the third is
# far ahead and judged against them.  Then the two catch up, one after
# the other: the three agree, the ancestry is fetched, the store follows
# the chain and no endpoint stays inconsistent.  2. One honest node still
# syncing beside a forger: the forger is judged; the honest one, come
# back synced far ahead, is believed (with the forger's real heads, or
# with no head against it when its claim's time is out), not judged, and
# the store follows it.  3. One endpoint configured, syncing at the
# start, then synced: nothing contradicts its far head, so when its
# claim's time is out the reach is suspected, not the endpoint.  4. Both
# endpoints of a chain forge the same far head at once: two agree on it,
# so it is believed and its ancestry fetched; no block of it exists, so
# both are judged within a claim's patience, and followed again once they
# tell the truth.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
CW="$top_builddir/cli/chainwatch"
LAG=2500

state_of() {
	sql "SELECT state FROM endpoints WHERE name = '$1'"
}

best() {
	sql "SELECT best_number FROM chains"
}

# nodes SEED NAME[:FAULT]...: devnodes of one chain, an empty store, and
# a configuration for them (those before are stopped and removed).
nodes() {
	_s=$1
	shift
	[ -n "$node_pids" ] && kill $node_pids 2>/dev/null
	node_pids=
	rm -f "$T"/chainwatch.db* "$T"/d?.*
	start=$(($(date +%s) * 1000))
	write_conf "$T/chainwatch.conf"
	sed -i 's/^block_time = .*/block_time = 300ms/' "$T/chainwatch.conf"
	for nf in "$@"; do
		n=${nf%%:*}
		f=
		[ "$n" != "$nf" ] && f="--fault ${nf#*:}"
		# shellcheck disable=SC2086
		devnode $n --seed "$_s" --block-time 300 --backlog 3000 \
		    --start-time "$start" $f
		node_pids="$node_pids $!"
		eval p=\$${n}_port
		echo "endpoint = $n http://127.0.0.1:$p ws://127.0.0.1:$p" \
		    >>"$T/chainwatch.conf"
	done
}

# caught_up WHAT NAME: the store's best within 2 of NAME's head.
caught_up() {
	wait_for 120 'b=$(best); h=$(head_of '"$2"'); test -n "$b" && test -n "$h" && test $((h - b)) -le 2' ||
	    fail "$1: stuck at #$(best), $2 is at #$(head_of "$2"); endpoints: $(sql "SELECT name || ' ' || state || ' (' || coalesce(state_reason, '') || ')' FROM endpoints")"
}

# The store against NAME, hash by hash, and verify.
compare() {
	# The backfill below the first best done: every number up to the best
	# canonical (slower in the sanitizer build, on a loaded machine).
	wait_for 180 'test "$(sql "SELECT count(*) FROM blocks WHERE canonical = 1")" -gt "$(best)"' ||
	    fail "$1: #0..#$(best) not all stored: $(sql "SELECT count(*) FROM blocks WHERE canonical = 1") canonical blocks, $(sql "SELECT count(*) FROM queue") queued"
	kill -TERM $DAEMON_PID
	wait $DAEMON_PID || fail "chainwatchd exited with $? on SIGTERM"
	/usr/bin/python3 "$top_srcdir/tests/integration/store_check.py" \
	    "$T/chainwatch.db" devchain "$(eval echo \$${2}_port)" \
	    --margin 10 || fail "$1: the store differs from the chain"
	"$CW" -d "$T/chainwatch.db" verify >"$T/verify.out" 2>&1 ||
	    { cat "$T/verify.out"; fail "$1: chainwatch verify found differences"; }
	ok "$1: the store equals the chain; $(tail -n 1 "$T/verify.out")"
	# Log lines name endpoints, not their row numbers.
	! grep -E ' sup: chain .*endpoint [0-9]+' "$T/log" >"$T/numbered" ||
	    fail "$1: log lines name an endpoint by number: $(head -n 2 "$T/numbered")"
}

# 1. Two of three syncing at the start, then catching up a block apart.
node_pids=
nodes sync d1 d2:lag:$LAG d3:lag:$LAG
start_daemon
wait_for 60 'test -n "$(best)"' || fail "syncing: no first best"
first=$(best)
[ "$first" -le $(($(head_of d1) - LAG + 10)) ] ||
    fail "syncing: the first best is #$first, not the old head d2 and d3 agree on"
wait_for 60 'test "$(state_of d1)" = inconsistent' ||
    fail "syncing: d1, far ahead of the two, is '$(state_of d1)'"
ok "syncing: first best #$first (d2 and d3, $LAG behind); d1 at #$(head_of d1) judged against them"
control d2 '{"disable": "lag:'$LAG'"}'
sleep 0.7
control d3 '{"disable": "lag:'$LAG'"}'
caught_up "syncing: after the two caught up" d1
for n in d1 d2 d3; do
	wait_for 60 'test "$(state_of '$n')" != inconsistent' ||
	    fail "syncing: $n still inconsistent at #$(best): $(sql "SELECT state_reason FROM endpoints WHERE name = '$n'")"
done
grep -q 'is believed (. endpoints agree on its branch)' "$T/log" ||
    fail "syncing: the log does not say why the far head was believed"
ok "syncing: followed to #$(best); $(grep -o 'is believed ([^)]*)' "$T/log" | head -n 1)"
compare syncing d1

# 2. An honest node syncing beside a forger: the forger is judged, the
# honest one believed once synced.
nodes honest d1:lag:$LAG d2:forge_head
start_daemon
wait_for 60 'test -n "$(best)"' || fail "forger: no first best"
first=$(best)
[ "$first" -le $(($(head_of d1) + 2)) ] ||
    fail "forger: the first best is #$first, the forgery's"
wait_for 60 'test "$(state_of d2)" = inconsistent' ||
    fail "forger: d2 is '$(state_of d2)', not inconsistent"
ok "forger: first best #$first; d2 inconsistent ($(sql "SELECT state_reason FROM endpoints WHERE name = 'd2'"))"
control d1 '{"disable": "lag:'$LAG'"}'
caught_up "forger: after d1 caught up" d1
[ "$(state_of d1)" != inconsistent ] ||
    fail "forger: d1 judged: $(sql "SELECT state_reason FROM endpoints WHERE name = 'd1'")"
[ "$(state_of d2)" = inconsistent ] ||
    fail "forger: d2 is '$(state_of d2)' while it still forges"
why=$(grep -o 'from d1, beyond the reach of best #[0-9]*, is believed ([^)]*)' "$T/log" | head -n 1)
[ -n "$why" ] || fail "forger: the log does not say why d1's far head was believed"
ok "forger: d1 followed to #$(best) ($why), d2 still inconsistent"
compare forger d1

# 3. A lone endpoint, syncing at the start, then synced.
nodes lone d1:lag:$LAG
start_daemon
wait_for 60 'test -n "$(best)"' || fail "lone: no first best"
first=$(best)
control d1 '{"disable": "lag:'$LAG'"}'
caught_up "lone: after d1 caught up" d1
[ "$(state_of d1)" != inconsistent ] ||
    fail "lone: d1 judged: $(sql "SELECT state_reason FROM endpoints WHERE name = 'd1'")"
why=$(grep -o 'is believed (no head against it in [0-9]* ms)' "$T/log" | head -n 1)
[ -n "$why" ] || fail "lone: the log does not say why d1's far head was believed"
ok "lone: first best #$first, then followed to #$(best) ($why)"
compare lone d1

# 4. Two endpoints agreeing on a forged far head: believed by their
# numbers, then judged when the gap below it closes no faster than the
# chain grows (the best following their real heads is no progress).
nodes doubt d1 d2
start_daemon
caught_up "doubt: at the start" d1
control d1 '{"enable": "forge_head"}'
control d2 '{"enable": "forge_head"}'
wait_for 90 'test "$(state_of d1)" = inconsistent && test "$(state_of d2)" = inconsistent' ||
    fail "doubt: d1 '$(state_of d1)', d2 '$(state_of d2)' while both forge"
judged=$(best)
control d1 '{"disable": "forge_head"}'
control d2 '{"disable": "forge_head"}'
past=$(($(head_of d1) + 20))
wait_for 120 'test "$(best)" -ge '$past ||
    fail "doubt: stuck at #$(best) below #$past; d1 '$(state_of d1)', d2 '$(state_of d2)'"
caught_up "doubt: after both told the truth again" d1
for n in d1 d2; do
	wait_for 30 'test "$(state_of '$n')" != inconsistent' ||
	    fail "doubt: $n still inconsistent: $(sql "SELECT state_reason FROM endpoints WHERE name = '$n'")"
done
ok "doubt: both judged at #$judged ($(grep -o 'did not connect in [0-9]* ms' "$T/log" | head -n 1)); followed to #$(best)"
compare doubt d1
