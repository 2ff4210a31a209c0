#!/bin/sh
# Lying heads cost only the liar.  Two devnodes of one chain; the second
# lies in turn with a head far ahead whose parent is unknown, a forged
# branch whose bottom never resolves, and a head numbered 50 above its
# parent (Quantus), then with a finalized head off the canonical chain
# (Substrate).  After each: the liar is 'inconsistent' with a reason, the
# daemon answers, the queue stays bounded, the best head is the honest
# one, no block is final that is not canonical, and once the liar tells
# the truth again it is cleared.  At the end the store equals the honest
# chain hash by hash and 'chainwatch verify' is clean.  Then a first start
# on an empty store with d2 forging from the start: d1's head is the first.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
CW="$top_builddir/cli/chainwatch"
QUEUE_MAX=5000	# rows: backfill windows, never the lie's millions

d2_state() {
	sql "SELECT state FROM endpoints WHERE name = 'd2'"
}

# conf FORMAT: a configuration for d1 and d2 in $T/chainwatch.conf.
conf() {
	write_conf "$T/chainwatch.conf"
	sed -i 's/^block_time = .*/block_time = 300ms/' "$T/chainwatch.conf"
	echo "format = $1" >>"$T/chainwatch.conf"
	for n in d1 d2; do
		eval p=\$${n}_port
		echo "endpoint = $n http://127.0.0.1:$p ws://127.0.0.1:$p" \
		    >>"$T/chainwatch.conf"
	done
}

caught_up() {
	wait_for 120 'test "$(sql "SELECT best_number FROM chains")" -ge "$(head_of d1)" 2>/dev/null || test "$(($(head_of d1) - $(sql "SELECT best_number FROM chains")))" -le 2 2>/dev/null' ||
	    fail "not following d1: best $(sql 'SELECT best_number FROM chains'), d1 at $(head_of d1)"
}

# lie FAULT WHAT: d2 tells the lie until it is judged; everything holds.
lie() {
	control d2 "{\"enable\": \"$1\"}"
	rows=0
	t0=$(date +%s)
	while [ "$(d2_state)" != inconsistent ]; do
		[ $(($(date +%s) - t0)) -lt 90 ] ||
		    fail "$2: d2 is '$(d2_state)' after 90 s, not inconsistent"
		alive $DAEMON_PID || fail "$2: chainwatchd exited"
		q=$(sql "SELECT count(*) FROM queue")
		[ "${q:-0}" -gt $rows ] && rows=$q
		sleep 0.5
	done
	took=$(($(date +%s) - t0))
	why=$(sql "SELECT state_reason FROM endpoints WHERE name = 'd2'")
	[ -n "$why" ] || fail "$2: inconsistent without a reason"
	[ $rows -le $QUEUE_MAX ] || fail "$2: $rows queue rows"
	best=$(sql "SELECT best_number FROM chains")
	honest=$(head_of d1)
	[ "$best" -le $((honest + 2)) ] ||
	    fail "$2: best #$best, d1 is at #$honest"
	bad=$(sql "SELECT count(*) FROM blocks WHERE final = 1 AND canonical = 0")
	[ "$bad" = 0 ] || fail "$2: $bad blocks final and not canonical"
	bad=$(sql "SELECT count(*) FROM blocks b JOIN blocks p ON p.chain_id = b.chain_id AND p.hash = b.parent WHERE b.number != p.number + 1")
	[ "$bad" = 0 ] || fail "$2: $bad blocks not numbered their parent's + 1"
	timeout 10 "$CW" -f "$T/chainwatch.conf" status >"$T/status" 2>&1
	[ $? -le 1 ] || fail "$2: status did not answer: $(cat "$T/status")"
	grep -q 'd2' "$T/status" || fail "$2: status does not name d2: $(cat "$T/status")"
	ok "$2: d2 inconsistent in $took s ($why), queue <= $rows rows, best #$best (d1 #$honest)"
	control d2 "{\"disable\": \"$1\"}"
	wait_for 90 'test "$(d2_state)" != inconsistent' ||
	    fail "$2: d2 still inconsistent 90 s after it stopped lying"
	caught_up
	ok "$2: d2 cleared once it told the truth ($(d2_state))"
}

# The store against d1, hash by hash, and verify.
compare() {
	kill -TERM $DAEMON_PID
	wait $DAEMON_PID || fail "chainwatchd exited with $? on SIGTERM"
	/usr/bin/python3 "$top_srcdir/tests/integration/store_check.py" \
	    "$T/chainwatch.db" devchain "$d1_port" --margin 10 ||
	    fail "$1: the store differs from the honest chain"
	"$CW" -d "$T/chainwatch.db" verify >"$T/verify.out" 2>&1 ||
	    { cat "$T/verify.out"; fail "$1: chainwatch verify found differences"; }
	ok "$1: the store equals the honest chain; $(tail -n 1 "$T/verify.out")"
}

# pair FORMAT SEED BACKLOG [OPTION...]: d1 and d2, one chain, an empty
# store (those of a pair before are stopped and removed).
pair() {
	_f=$1 _s=$2 _b=$3
	shift 3
	[ -n "$d1_pid" ] && kill $d1_pid $d2_pid 2>/dev/null
	rm -f "$T"/chainwatch.db* "$T"/d1.* "$T"/d2.*
	start=$(($(date +%s) * 1000))
	for n in d1 d2; do
		devnode $n --seed "$_s" --format "$_f" --block-time 300 \
		    --backlog "$_b" --start-time "$start" "$@"
		eval ${n}_pid=$!
	done
	conf "$_f"
}

# Quantus: heads that do not connect, and a number that is not its
# parent's + 1.
d1_pid=
pair quantus heads 200
start_daemon
caught_up
ok "following both devnodes at #$(sql 'SELECT best_number FROM chains')"
lie forge_head "a head 10^9 blocks ahead with an unknown parent"
lie forge_chain:40 "a forged branch 40 deep that never connects"
lie forge_chain:1000 "a forged branch 1000 deep"
lie bad_number:50 "a head numbered its parent's + 50"
compare quantus

# A liar at the first start: an empty store, and d2 announcing only a
# forged head 10^9 ahead from the very start.  Nothing links a head yet;
# the first best is d1's, never the forgery, and d2 is judged after.
pair quantus first 50
control d2 '{"enable": "forge_head"}'
start_daemon
wait_for 60 'test -n "$(sql "SELECT best_number FROM chains")"' ||
    fail "first start: no first best"
first=$(sql "SELECT best_number FROM chains")
[ "$first" -le $(($(head_of d1) + 2)) ] ||
    fail "first start: the first best is #$first, d1 is at #$(head_of d1)"
how=$(grep -o 'first head #[0-9]* [^ ]*: .*' "$T/log" | head -n 1)
[ -n "$how" ] || fail "first start: the log does not say how the first head was chosen"
wait_for 90 'test "$(d2_state)" = inconsistent' ||
    fail "first start: d2 is '$(d2_state)', not inconsistent"
ok "first start beside a liar: $how; d2 inconsistent ($(sql "SELECT state_reason FROM endpoints WHERE name = 'd2'"))"
control d2 '{"disable": "forge_head"}'
caught_up
compare "first start"

# Substrate: a finalized head that is not on the canonical chain.
pair substrate heads-sub 200 --finality-lag 5
start_daemon
caught_up
lie finalized_off "a finalized head off the canonical chain"
compare substrate
