#!/bin/sh
# The devnode's lies, each checked from a real client as
# chainwatch-devnode(1) documents it: split (its own branch, then back),
# forge_head, forge_chain, bad_number, finalized_off, wrong_header,
# wrong_count, in both formats.
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
	for lie in forge_head bad_number finalized_off wrong_header \
	    wrong_count; do
		"$PY" "$LIES" $lie $a_port $a_cport $fmt || fail "$lie ($fmt)"
	done
	"$PY" "$LIES" forge_chain $a_port $a_cport $fmt 40 ||
	    fail "forge_chain ($fmt)"
	kill $a_pid $b_pid
	wait $a_pid $b_pid || fail "devnodes did not stop cleanly"
done
echo "lies: ok"
