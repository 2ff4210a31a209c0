#!/bin/sh
# State pruning: state older than --state-pruning blocks answers 4003
# "State already discarded for 0x…" (state_getStorage and
# state_getRuntimeVersion), or null with --pruned-null; recent state is
# there; an archive node has it all.
. "$top_srcdir/tests/integration/devnode_lib.sh"
need_curl

DIFF=0xf70798a3fbcee5a2d178b8c516e36ae559769e16105568cee9f916e870cb6e6f
hash_at() {
	jget "$(rpc $1 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"chain_getBlockHash\",\"params\":[$2]}")" 'j["result"]'
}
storage_at() {
	rpc $1 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"state_getStorage\",\"params\":[\"$DIFF\",\"$2\"]}"
}

dn_start p --block-time 2000 --backlog 500 --state-pruning 64
old=$(hash_at $p_port 10)
a=$(storage_at $p_port "$old")
expect "pruned code" "$(jget "$a" 'j["error"]["code"]')" 4003
expect "pruned message" "$(jget "$a" 'j["error"]["message"]')" \
    "Client error: UnknownBlock: State already discarded for $old"
v=$(rpc $p_port "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"state_getRuntimeVersion\",\"params\":[\"$old\"]}")
expect "pruned runtime version" "$(jget "$v" 'j["error"]["code"]')" 4003
recent=$(hash_at $p_port 490)
expect "recent state" "$(jget "$(storage_at $p_port "$recent")" 'len(j["result"])')" 130
# The header of a pruned block is still there.
expect "pruned header" \
    "$(jget "$(rpc $p_port "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"chain_getHeader\",\"params\":[\"$old\"]}")" 'int(j["result"]["number"], 16)')" 10

dn_start n --block-time 2000 --backlog 500 --state-pruning 64 --pruned-null
expect "pruned null" "$(jget "$(storage_at $n_port "$old")" 'j["result"]')" null
expect "pruned null, no error" "$(jget "$(storage_at $n_port "$old")" '"error" in j')" false
expect "null node, recent" "$(jget "$(storage_at $n_port "$recent")" 'len(j["result"])')" 130

dn_start a --block-time 2000 --backlog 500
expect "archive" "$(jget "$(storage_at $a_port "$old")" 'len(j["result"])')" 130
echo "pruning: ok"
