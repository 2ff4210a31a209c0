#!/bin/sh
# Lying endpoints cost only themselves (issue 12).  Each lie gets a run of
# its own (a fresh store, the liar d2 preferred, d1 honest), so that one
# lie's breaker never hides the next one's check; each run ends with the
# store equal to the honest chain hash by hash, every state value d1's,
# nothing queued and the daemon up.
#   answers: a header answer for another number, a storage answer short
#   of one value, a storage answer with another key's value: malformed
#   for d2, counted (its breaker opens where d1 does not take most of the
#   work first: the state reads d2 is preferred for), the log line names
#   the request and what differed, the item goes to d1.  The first two
#   the worker finds; the third only the daemon's own check.
#   timestamps a day ahead: past this clock + 30 s, rejected as the
#   answers above are; timestamps of even blocks equal to their
#   parents': d2 judged, the blocks read again.
#   seals: heads whose seal fails the difficulty at their parent are
#   recorded unproven, never canonical in the end; every canonical block
#   of every run proven, its work its parent's difficulty (verify).
#   difficulties a hundredfold: found false by d1's answer and the seals,
#   replaced, d2 judged.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }

# One start time: the two devnodes then agree on every timestamp too.
start=$(($(date +%s) * 1000))
for n in d1 d2; do
	devnode $n --seed lies --block-time 100 --backlog 600 --miners 3 \
	    --start-time "$start"
done
write_conf "$T/chainwatch.conf"
sed -i 's/^block_time = .*/block_time = 100ms/' "$T/chainwatch.conf"
cat >>"$T/chainwatch.conf" <<CONF
request_timeout = 2s
breaker_consecutive = 3
breaker_min_span = 500ms
breaker_cooldown = 1s
endpoint = d2 http://127.0.0.1:$d2_port ws://127.0.0.1:$d2_port
endpoint = d1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port
CONF

# fault NODE SPEC: what the devnode does from now on ('' for nothing).
fault() {
	eval _cp=\$${1}_cport
	if [ -n "$2" ]; then
		_body="{\"clear\":true,\"enable\":\"$2\"}"
	else
		_body='{"clear":true}'
	fi
	curl -sf -m 5 -o "$T/ctl.out" -d "$_body" \
	    "http://127.0.0.1:$_cp/control" ||
	    fail "devnode $1: fault '$2' refused: $(cat "$T/ctl.out" 2>/dev/null)"
}

# run LABEL SPEC [D1SPEC]: a fresh store with d2 lying as SPEC over HTTP
# (and d1 as D1SPEC, when given); returns
# with the chain caught up (nothing queued, past the backlog) and the
# log of this run in $T/run.log.
LOG_AT=0
run() {
	if [ -n "$DAEMON_PID" ]; then
		kill -TERM "$DAEMON_PID"
		wait "$DAEMON_PID" || fail "$1: the last run's daemon exited with $?"
	fi
	rm -f "$T"/chainwatch.db "$T"/chainwatch.db-wal "$T"/chainwatch.db-shm
	D1_LIES=${3:-}
	fault d1 "$D1_LIES"
	fault d2 "$2"
	LOG_AT=$( { wc -l <"$T/log"; } 2>/dev/null || echo 0)
	RUN_AT=$(date +%s)
	start_daemon
	tip=$(curl -sf -m 5 -d '{"id":1,"jsonrpc":"2.0","method":"chain_getHeader","params":[]}' \
	    "http://127.0.0.1:$d1_port/" | sed 's/.*"number":"\(0x[0-9a-f]*\)".*/\1/')
	tip=$(printf '%d' "$tip")
	wait_for 120 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(sql "SELECT best_number FROM chains")" -gt $((tip + 20))' ||
	    fail "$1: not caught up: $(sql 'SELECT * FROM queue_summary'), best $(sql 'SELECT best_number FROM chains') of $tip"
	alive "$DAEMON_PID" || fail "$1: the daemon died"
}

# this_run: the log lines of the current run.
this_run() {
	tail -n +$((LOG_AT + 1)) "$T/log"
}

# expect_line LABEL ERE: a line of this run matches.
expect_line() {
	wait_for 20 'this_run | grep -E -q "$2"' ||
	    fail "$1: no log line matching: $2"
	ok "$1: $(this_run | grep -E "$2" | head -n 1 | sed 's/^.*\(w\/d2: \)/\1/' | cut -c1-160)"
}

# malformed NAME: the daemon's count of NAME's malformed answers.
malformed() {
	/usr/bin/python3 "$top_srcdir/tests/integration/ctl_client.py" ask \
	    "$T/chainwatchd.sock" metrics | /usr/bin/python3 -c '
import json, sys
eps = json.load(sys.stdin)["endpoints"]
print([e for e in eps if e["endpoint"] == sys.argv[1]][0]["requests"]["malformed"])
' "$1"
}

# malformed_rises LABEL: d2's malformed answers are counted, d1's are not.
malformed_rises() {
	wait_for 30 'test "$(malformed d2)" -gt 0' ||
	    fail "$1: d2's malformed answers not counted: $(malformed d2)"
	[ "$(malformed d1)" = 0 ] || fail "$1: d1 has $(malformed d1) malformed answers"
	ok "$1: d2 answered $(malformed d2) times malformed, d1 never"
}

# breaker_opened LABEL: d2's breaker opened (on those failures: d2 fails
# nothing else).
breaker_opened() {
	_q="SELECT e.detail FROM endpoint_events e JOIN endpoints p ON p.id = e.endpoint_id WHERE p.name = 'd2' AND e.kind = 'open'"
	wait_for 30 'test -n "$(sql "$_q")"' ||
	    fail "$1: d2's breaker did not open: $(sql "SELECT state, state_reason FROM endpoints WHERE name = 'd2'")"
	ok "$1: d2's breaker opened ($(sql "$_q" | head -n 1))"
}

# inflight NAME: the daemon's requests out to NAME.
inflight() {
	/usr/bin/python3 "$top_srcdir/tests/integration/ctl_client.py" ask \
	    "$T/chainwatchd.sock" metrics | /usr/bin/python3 -c '
import json, sys
eps = json.load(sys.stdin)["endpoints"]
print([e for e in eps if e["endpoint"] == sys.argv[1]][0]["inflight"])
' "$1"
}

# stall NODE LABEL: NODE's chain stops where it is.
stall() {
	eval _cp=\$${1}_cport
	curl -sf -m 5 -o /dev/null -d '{"enable":"stall"}' \
	    "http://127.0.0.1:$_cp/control" || fail "$2: $1: no stall"
}

# stalled_head NODE: the higher of NODE's heads over HTTP and WebSocket,
# from its control port (whatever its lies).
stalled_head() {
	eval _cp=\$${1}_cport
	curl -sf -m 5 "http://127.0.0.1:$_cp/control" | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)
print(max(s["http"]["head"], s["ws"]["head"]))'
}

# honest_store LABEL: the chains stop where they are and the daemon,
# once it has nothing out nor queued, stops; then the store is d1's
# chain, hash by hash, every difficulty and timestamp d1's value; d1
# never answered malformed.
honest_store() {
	# d2 first, d1 once it is as far: every block the daemon has then
	# is d1's too, and its state d1's to answer (a block d2 alone had,
	# on a loaded machine where d1's ticks come late, would wait for
	# its state, unproven, for ever: the liar's answers never count).
	stall d2 "$1"
	_h2=$(stalled_head d2)
	wait_for 30 'test "$(stalled_head d1)" -ge "$_h2"' ||
	    fail "$1: d1 not at d2's #$_h2 within 30 s: #$(stalled_head d1)"
	stall d1 "$1"
	wait_for 30 'test "$(inflight d1)" = 0 && test "$(inflight d2)" = 0 &&
	    test "$(sql "SELECT count(*) FROM queue")" = 0' ||
	    fail "$1: requests still out: d1 $(inflight d1), d2 $(inflight d2), queued $(sql 'SELECT * FROM queue_summary')"
	# What the lie cost, for the record (no assertion on speed).
	echo "cost: $1: $(malformed d2) malformed answers of d2, daemon" \
	    "$(awk -v t="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / t }' \
	    "/proc/$DAEMON_PID/stat") s CPU," \
	    "$(ps -o rss= -p "$DAEMON_PID" | tr -d ' ') kB RSS," \
	    "$(($(date +%s) - RUN_AT)) s from start to stop"
	kill -TERM "$DAEMON_PID"
	wait "$DAEMON_PID" || fail "$1: daemon exited with $?"
	DAEMON_PID=
	honest_check "$1" "$d1_port"
	# (When d1 lies as d2 does, either may be the first found so.)
	[ -z "$D1_LIES" ] && this_run |
	    grep -q 'w/d1: answer to request .* malformed' &&
	    fail "$1: d1's answers were found malformed"
	this_run | grep -q 'w/d1: endpoint inconsistent' &&
	    fail "$1: d1 became inconsistent"
	# d1's seals, mined for real, all pass.
	_bad=$(sqlite3 "$T/chainwatch.db" "SELECT count(*) FROM blocks WHERE
	    canonical = 1 AND proven IS NOT 1 AND number > 0 AND parent IN
	    (SELECT hash FROM blocks WHERE difficulty IS NOT NULL)")
	[ "$_bad" = 0 ] || fail "$1: $_bad canonical blocks not proven"
	ok "$1: store equals d1's chain, every state value d1's, nothing queued, verify clean"
}

# --- no lie: what the same run costs when both endpoints are honest ------
run honest ''
# The devnodes' difficulties follow the retarget rule as the daemon
# recomputes it (block time 100 ms, floor 1): not one read again for it.
this_run | grep -q 'difficulties recomputed by the rule of runtime quantus-runtime 145 (block time 100 ms, floor 1)' ||
    fail "honest: the retarget rule not in force: $(this_run | grep 'difficulties' | head -n 3)"
this_run | grep -E "is not the retarget rule's|rule may have changed" &&
    fail "honest: the devnodes' difficulties differ from the retarget rule"
ok "honest: every difficulty as the retarget rule recomputes it"
honest_store honest

# --- answers: a header answer for another number --------------------------
# One chain_getBlockHash(0) in five lies too, so d2 is quarantined now
# and then (wrong genesis) and released again.
run wrong_header 'wrong_header@http%20'
malformed_rises wrong_header
expect_line wrong_header 'w/d2: answer to request [0-9]+ \((headers #[0-9]+\.\.#[0-9]+|header 0x[0-9a-f]+\.\.\. by hash)\) (malformed: header #[0-9]+ for number [0-9]+|malformed: header does not hash|does not answer it: header)'
honest_store wrong_header

# --- answers: a storage answer short of one value -------------------------
run wrong_count_short 'wrong_count:0@http'
malformed_rises wrong_count_short
expect_line wrong_count_short 'w/d2: answer to request [0-9]+ \([0-9]+ storage keys of (block #[0-9]+|[0-9]+ blocks #[0-9]+\.\.#[0-9]+)\) (malformed: no answer carries the call.s id|does not answer it: [0-9]+ values for [0-9]+ keys asked)'
breaker_opened wrong_count_short
honest_store wrong_count_short

# --- answers: a storage answer with another key's value -------------------
# Checked by the daemon itself: the worker passes any value through.
run wrong_count_key 'wrong_count:2@http'
malformed_rises wrong_count_key
expect_line wrong_count_key 'w/d2: answer to request [0-9]+ \([0-9]+ storage keys of (block #[0-9]+|[0-9]+ blocks #[0-9]+\.\.#[0-9]+)\) does not answer it: value [0-9]+ is (8 bytes, its key.s are 64|64 bytes, its key.s are 8); counted malformed, its item goes back to the queue'
breaker_opened wrong_count_key
honest_store wrong_count_key

# --- seals: heads whose seal fails the difficulty at their parent ---------
# d2 announces, on the real best block, a well-formed head whose nonce
# does not meet that block's difficulty (issue 26).  The daemon records
# and logs the failure; the honest chain, heavier as it grows, is the one
# stored.
run bad_seal 'bad_seal'
expect_line bad_seal 'chain devchain: block #[0-9]+ 0x[0-9a-f]+\.\.\.: seal meets at most [0-9]+, the difficulty at its parent is [0-9]+ \(first from d2\): unproven'
failed=$(sql "SELECT count(*) FROM blocks WHERE proven = 0")
[ "$failed" -gt 0 ] || fail "bad_seal: no block recorded unproven"
ok "bad_seal: $failed blocks recorded unproven"
# Counted against d2, which served them, not d1; chainwatch endpoints
# says so under d2.
sf=$(sql "SELECT seals_failed FROM endpoints WHERE name = 'd2'")
[ "$sf" -gt 0 ] && [ "$(sql "SELECT seals_failed FROM endpoints WHERE name = 'd1'")" = 0 ] ||
    fail "bad_seal: seals_failed $(sql "SELECT group_concat(name || ' ' || seals_failed) FROM endpoints")"
"$top_builddir/cli/chainwatch" -d "$T/chainwatch.db" endpoints >"$T/eps.out" 2>&1
grep -E -q "^ +[0-9]+ blocks? it served first failed the seal check" "$T/eps.out" ||
    fail "bad_seal: chainwatch endpoints does not say so: $(cat "$T/eps.out")"
ok "bad_seal: d2 served $sf of them, d1 none"
honest_store bad_seal

# --- difficulties: d2 answers each a hundredfold --------------------------
# The seals of d1's blocks, mined for the true difficulty, fail d2's
# answers: each failure has that difficulty read again by d1, whose
# answer the seals meet: d1's is stored, d2 judged, and every other
# difficulty d2 answered read again (issue 26).  The standings' work
# then equals the honest node's.
run difficulty_x100 'difficulty_x100'
expect_line difficulty_x100 "chain devchain: difficulty at #[0-9]+: d2 answered [0-9]+, d1 answers [0-9]+; the seals of its children meet d1's only: d1's is stored, d2 is judged"
honest_store difficulty_x100

# --- timestamps: a block from the future ----------------------------------
# d2's Timestamp.Now answers are a day ahead: past this clock + 30 s, no
# node imports such a block.  Its answers are rejected by name, counted
# malformed, and the items go to d1 (d1's timestamps are this clock's).
run timestamp_ahead 'timestamp_ahead'
malformed_rises timestamp_ahead
expect_line timestamp_ahead 'w/d2: answer to request [0-9]+ \([0-9]+ storage keys of (block #[0-9]+|[0-9]+ blocks #[0-9]+\.\.#[0-9]+)\) does not answer it: the timestamp of #[0-9]+ is 8640[0-9] s ahead of this clock \(at most 30 s\)'
breaker_opened timestamp_ahead
honest_store timestamp_ahead

# Both endpoints a day ahead: this clock is suspected, not them (said
# once, and by status); their answers are taken, and nobody is judged.
run clock_behind 'timestamp_ahead' 'timestamp_ahead'
expect_line clock_behind "chain devchain: every endpoint's timestamps are ahead of this clock"
"$top_builddir/cli/chainwatch" -d "$T/chainwatch.db" status >"$T/status.out" 2>&1
tr -s ' \n' '  ' <"$T/status.out" | grep -q "rule in doubt: every endpoint's timestamps are ahead of this clock" ||
    fail "clock_behind: status does not say so: $(cat "$T/status.out")"
ok "clock_behind: status says so"
honest_store clock_behind

# --- timestamps: sooner after the parent than the chain allows ------------
# d2's Timestamp.Now of every even block is its parent's: 0 ms after it,
# a block no node imports (at least 100 ms at 12 s blocks, 1 ms at these
# 100 ms ones).  Where d2 answered the parent's too, d2 is judged; where
# d1 did, both blocks are read again.  The store ends with d1's values.
run timestamp_early 'timestamp_early'
expect_line timestamp_early 'w/d2: endpoint inconsistent: block #[0-9]+ 0x[0-9a-f]+\.\.\.: the timestamp of #[0-9]+ is 0 ms after its parent.s \(at least 1\), which it answered too'
honest_store timestamp_early
