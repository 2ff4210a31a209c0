#!/bin/sh
# Devnodes with one seed are redundant endpoints of one chain: identical
# hashes, heads within a block of each other; with --start-time given,
# and with the default start time when started together.  Another seed
# is another chain.
. "$top_srcdir/tests/integration/devnode_lib.sh"
need_curl
need_websockets

start=$("$PY" -c 'import time; print(int(time.time() * 1000) - 2000)')
dn_start a --seed same --block-time 50 --backlog 200 --start-time "$start"
dn_start b --seed same --block-time 50 --backlog 200 --start-time "$start" \
    --threads 1
dn_start c --seed same --block-time 50 --backlog 200 --start-time "$start" \
    --format quantus
# One start time: every block is made at the same moment by all three.
"$PY" "$CLIENT" same_chain 50 0 $a_port $b_port $c_port ||
    fail "three devnodes with one seed and start time disagree"
# Two seconds of a 50 ms chain had passed at start: heads are past 200.
h=$(jget "$(rpc $a_port '{"jsonrpc":"2.0","id":1,"method":"chain_getHeader"}')" \
    'int(j["result"]["number"], 16)')
[ "$h" -ge 230 ] || fail "head #$h: the start time in the past was ignored"

# The default start time: started together (within a block time), they
# make every block at the same time or one block time apart.
dn_spawn d --seed other --block-time 1000 --backlog 100
dn_spawn e --seed other --block-time 1000 --backlog 100
dn_wait d
dn_wait e
"$PY" "$CLIENT" same_chain 1000 0,1000 $d_port $e_port ||
    fail "two devnodes started together with one seed disagree"

ga=$(jget "$(rpc $a_port '{"jsonrpc":"2.0","id":1,"method":"chain_getBlockHash","params":[0]}')" 'j["result"]')
gd=$(jget "$(rpc $d_port '{"jsonrpc":"2.0","id":1,"method":"chain_getBlockHash","params":[0]}')" 'j["result"]')
expect_differ "two seeds, two genesis hashes" "$ga" "$gd"
echo "redundant: ok"
