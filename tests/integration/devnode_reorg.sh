#!/bin/sh
# Deterministic reorgs, seen by a WebSocket subscriber: block numbers
# repeat, every announced block's parent is the block announced below it
# (checked by lookup, and by hashing for the substrate format), and the
# old branch stays answerable by hash, its state kept above finality
# (quantus run, default lag) and discarded below (substrate run, lag 3).
. "$top_srcdir/tests/integration/devnode_lib.sh"
need_curl
need_websockets

dn_start q --block-time 50 --backlog 100 --reorg-every 10 --reorg-depth 2-4
"$PY" "$CLIENT" reorg $q_port quantus 10 || fail "quantus reorg"
dn_start s --format substrate --block-time 50 --backlog 100 \
    --reorg-every 12 --reorg-depth 3 --finality-lag 3
"$PY" "$CLIENT" reorg $s_port substrate 10 || fail "substrate reorg"

# Reorgs in the backlog: an old-branch block's hash from the parent link
# of its successor on the same branch is known to chain_getHeader.
dn_start b --block-time 1000 --backlog 60 --reorg-every 20 --reorg-depth 5
c=$(jget "$(rpc $b_port '{"jsonrpc":"2.0","id":1,"method":"chain_getBlockHash","params":[40]}')" 'j["result"]')
expect "canonical #40 known" \
    "$(jget "$(rpc $b_port "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"chain_getHeader\",\"params\":[\"$c\"]}")" 'int(j["result"]["number"], 16)')" 40
echo "reorg: ok"
