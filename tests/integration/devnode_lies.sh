#!/bin/sh
# The devnode's lies, each checked from a real client as
# chainwatch-devnode(1) documents it: split (its own branch, then back),
# forge_head, forge_chain, bad_number, finalized_off, wrong_header,
# wrong_count, difficulty_x100, difficulty_div100, timestamp_ahead,
# timestamp_early, in both formats, and
# bad_seal on quantus.
. "$top_srcdir/tests/integration/devnode_lib.sh"
need_curl
need_websockets
LIES="$top_srcdir/tests/integration/devnode_lies.py"

start=$("$PY" -c 'import time; print(int(time.time() * 1000) - 2000)')
for fmt in substrate quantus; do
	dn_start a --seed lies --format $fmt --block-time 100 --backlog 100 \
	    --start-time "$start" --finality-lag 5
	dn_start b --seed lies --format $fmt --block-time 100 --backlog 100 \
	    --start-time "$start" --finality-lag 5
	"$PY" "$LIES" split $a_port $b_port $b_cport $fmt ||
	    fail "split ($fmt)"
	lies="forge_head bad_number finalized_off wrong_header wrong_count
	    difficulty_x100 difficulty_div100 timestamp_ahead timestamp_early"
	[ $fmt = quantus ] && lies="$lies bad_seal"
	for lie in $lies; do
		"$PY" "$LIES" $lie $a_port $a_cport $fmt || fail "$lie ($fmt)"
	done
	"$PY" "$LIES" forge_chain $a_port $a_cport $fmt 40 ||
	    fail "forge_chain ($fmt)"
	kill $a_pid $b_pid
	wait $a_pid $b_pid || fail "devnodes did not stop cleanly"
done

# Reorg shapes: two devnodes of one chain, whose fork choices differ, at
# its first reorg (#12, depth 4): x takes the second branch, y keeps the
# first; the branches' lengths and work, from their answers.
for work in lighter shorter; do
	if [ $work = lighter ]; then
		cx=longest cy=heaviest
	else
		cx=heaviest cy=longest
	fi
	start=$("$PY" -c 'import time; print(int(time.time() * 1000))')
	opts="--seed shapes --block-time 200 --backlog 3 --start-time $start
	    --reorg-every 12 --reorg-depth 4 --reorg-work $work"
	dn_spawn x $opts --fork-choice $cx
	dn_spawn y $opts --fork-choice $cy
	dn_wait x
	dn_wait y
	"$PY" "$LIES" reorg_work $x_port $y_port $work 30 ||
	    fail "--reorg-work $work"
	kill $x_pid $y_pid
	wait $x_pid $y_pid || fail "devnodes did not stop cleanly"
done
echo "lies: ok"
