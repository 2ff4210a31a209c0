#!/bin/sh
# A difficulty no seal refutes is still a claim (issue 26): d2, preferred
# for the state reads, answers every difficulty a hundredth of the truth,
# which every seal meets.  One block of each state answer is read again
# by another endpoint; d1 and d2 disagree and the seals tell neither
# apart, so d3 is asked: two against one judge d2, whose every other
# difficulty is read again.  In the end the store holds d1's values for
# every block, its work is the honest node's (verify is clean), and
# neither d1 nor d3 was judged.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }

# Difficulty 400: a hundredth of it is 4, not 0.
start=$(($(date +%s) * 1000))
for n in d1 d2 d3; do
	devnode $n --seed divided --block-time 200 --backlog 300 --miners 3 \
	    --difficulty 400 --min-difficulty 400 --start-time "$start"
done
curl -sf -m 5 -o "$T/ctl.out" -d '{"enable":"difficulty_div100"}' \
    "http://127.0.0.1:$d2_cport/control" ||
    fail "devnode d2: difficulty_div100 refused: $(cat "$T/ctl.out")"
write_conf "$T/chainwatch.conf"
sed -i -e 's/^block_time = .*/block_time = 200ms/' \
    -e 's/^difficulty_floor = .*/difficulty_floor = 400/' "$T/chainwatch.conf"
cat >>"$T/chainwatch.conf" <<CONF
endpoint = d2 http://127.0.0.1:$d2_port ws://127.0.0.1:$d2_port
endpoint = d1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port
endpoint = d3 http://127.0.0.1:$d3_port ws://127.0.0.1:$d3_port
CONF
start_daemon

wait_for 60 'grep -E -q "difficulty at #[0-9]+: d2 answered [0-9]+, d[13] and d[13] answer [0-9]+: d2 is judged" "$T/log"' ||
    fail "d2 not judged: $(grep -E 'difficulty at' "$T/log" | tail -n 3)"
ok "$(grep -E -m 1 'difficulty at #[0-9]+: d2 answered [0-9]+, d[13] and d[13] answer [0-9]+: d2 is judged' "$T/log" | sed 's/^.*chain devchain: //')"

# Caught up: nothing queued (every disputed difficulty read again), the
# best past d1's tip at the start.
tip=$(curl -sf -m 5 -d '{"id":1,"jsonrpc":"2.0","method":"chain_getHeader","params":[]}' \
    "http://127.0.0.1:$d1_port/" | sed 's/.*"number":"\(0x[0-9a-f]*\)".*/\1/')
tip=$(printf '%d' "$tip")
wait_for 120 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(sql "SELECT best_number FROM chains")" -gt $((tip + 10))' ||
    fail "not caught up: $(sql 'SELECT * FROM queue_summary'), best $(sql 'SELECT best_number FROM chains') of $tip"
for n in d1 d2 d3; do
	eval _cp=\$${n}_cport
	curl -sf -m 5 -o /dev/null -d '{"enable":"stall"}' \
	    "http://127.0.0.1:$_cp/control" || fail "$n: no stall"
done
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "daemon exited with $?"
DAEMON_PID=
# Each block's work is its parent's difficulty, d1's, and the standings
# sum it (verify): the honest node's work.
honest_check divided "$d1_port"
grep -E -q 'w/d[13]: endpoint inconsistent' "$T/log" &&
    fail "an honest endpoint was judged: $(grep -E 'w/d[13]: endpoint inconsistent' "$T/log" | head -n 1)"
ok "the store is d1's chain with d1's difficulties, verify clean, d1 and d3 never judged"
