#!/bin/sh
# JSON-RPC over HTTP: every method, batches, Substrate's error codes,
# a subscription over HTTP (-32603), storage and runtime versions, spec
# changes with RuntimeEnvironmentUpdated, finality, both chain formats.
. "$top_srcdir/tests/integration/devnode_lib.sh"
need_curl

dn_start q --block-time 1000 --backlog 300 --spec-version 5 \
    --spec-change 150 --spec-change 200:9 --miners 3
P=$q_port
call() {
	rpc $P "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$1\",\"params\":$2}"
}

# Block hashes: a number, a hex number, a list, none (best), too high.
h0=$(jget "$(call chain_getBlockHash '[0]')" 'j["result"]')
h0x=$(jget "$(call chain_getBlockHash '["0x0"]')" 'j["result"]')
expect_same "hash of 0x0" "$h0x" "$h0"
l=$(call chain_getBlockHash '[[0, "0x1", 99999999]]')
expect_same "list[0]" "$(jget "$l" 'j["result"][0]')" "$h0"
expect "list[2]" "$(jget "$l" 'j["result"][2]')" "null"
best=$(jget "$(call chain_getBlockHash '[]')" 'j["result"]')
hdr=$(call chain_getHeader "[\"$best\"]")
n=$(jget "$hdr" 'int(j["result"]["number"], 16)')
[ "$n" -ge 300 ] || fail "best block #$n below the backlog"
expect "zkTreeRoot" "$(jget "$hdr" '"zkTreeRoot" in j["result"]')" "true"
expect "logs" "$(jget "$hdr" '[l[:12] for l in j["result"]["digest"]["logs"]]')" \
    '["0x06706f775f", "0x05706f775f"]'
expect "log sizes" "$(jget "$hdr" '[len(l) for l in j["result"]["digest"]["logs"]]')" \
    '[78, 144]'
expect "unknown hash" \
    "$(jget "$(call chain_getHeader '["0x1111111111111111111111111111111111111111111111111111111111111111"]')" 'j["result"]')" \
    "null"
# The parent of the best block is block n-1.
p=$(jget "$hdr" 'j["result"]["parentHash"]')
expect_same "parent" "$(jget "$(call chain_getBlockHash "[$((n - 1))]")" 'j["result"]')" "$p"
# Finality: best - 100 for quantus.
fh=$(jget "$(call chain_getFinalizedHead '[]')" 'j["result"]')
fn=$(jget "$(call chain_getHeader "[\"$fh\"]")" 'int(j["result"]["number"], 16)')
b2=$(jget "$(call chain_getHeader '[]')" 'int(j["result"]["number"], 16)')
[ $((b2 - fn)) -ge 100 ] && [ $((b2 - fn)) -le 101 ] ||
    fail "finalized #$fn, best #$b2: not best - 100"
blk=$(call chain_getBlock "[\"$h0\"]")
expect "chain_getBlock" "$(jget "$blk" 'j["result"]["block"]["extrinsics"]')" "[]"

# Errors.
expect "parse error" "$(jget "$(rpc $P '{"jsonrpc":')" 'j["error"]["code"]')" -32700
expect "invalid request" "$(jget "$(rpc $P '{"id":1}')" 'j["error"]["code"]')" -32600
expect "empty batch" "$(jget "$(rpc $P '[]')" 'j["error"]["code"]')" -32600
expect "no method" "$(jget "$(call no_such_method '[]')" 'j["error"]["code"]')" -32601
expect "bad params" "$(jget "$(call chain_getBlockHash '[-1]')" 'j["error"]["code"]')" -32602
expect "bad hash" "$(jget "$(call chain_getHeader '["0x12"]')" 'j["error"]["code"]')" -32602
expect "too high" "$(jget "$(call chain_getBlockHash '["0x100000000"]')" 'j["error"]["code"]')" -32602
expect "subscribe over HTTP" \
    "$(jget "$(call chain_subscribeNewHeads '[]')" 'j["error"]["code"]')" -32603
expect "finalized over HTTP" \
    "$(jget "$(call chain_subscribeFinalizedHeads '[]')" 'j["error"]["code"]')" -32603

# Batches: answers by id, notifications get none, errors stay per call.
b=$(rpc $P '[{"jsonrpc":"2.0","id":1,"method":"system_chain"},
  {"jsonrpc":"2.0","method":"system_health"},
  {"jsonrpc":"2.0","id":"two","method":"nope"},
  {"jsonrpc":"2.0","id":3,"method":"chain_getBlockHash","params":[0]},
  5]')
expect "batch ids" "$(jget "$b" '[x.get("id") for x in j]')" '[1, "two", 3, null]'
expect "batch error" "$(jget "$b" 'j[1]["error"]["code"]')" -32601
expect "batch bad item" "$(jget "$b" 'j[3]["error"]["code"]')" -32600
expect_same "batch hash" "$(jget "$b" 'j[2]["result"]')" "$h0"
big=$("$PY" -c 'import json; print(json.dumps([{"jsonrpc":"2.0","id":i,"method":"chain_getHeader"} for i in range(100)]))')
expect "batch of 100" "$(jget "$(rpc $P "$big")" 'len(j)')" 100
expect "only notifications" "$(rpc $P '{"jsonrpc":"2.0","method":"system_chain"}')" ""

# system_ and rpc_.
expect "properties" "$(jget "$(call system_properties '[]')" 'j["result"]["ss58Format"]')" 189
expect "health" "$(jget "$(call system_health '[]')" 'j["result"]["isSyncing"]')" false
expect "rpc_methods" \
    "$(jget "$(call rpc_methods '[]')" '"state_getStorage" in j["result"]["methods"]')" true
expect "chain name" "$(jget "$(call system_chain '[]')" 'j["result"]')" Devnode

# Storage: difficulty (U512 LE) and Timestamp.Now (u64 LE ms).
DIFF=0xf70798a3fbcee5a2d178b8c516e36ae559769e16105568cee9f916e870cb6e6f
NOW=0xf0c365c3cf59d671eb72da0e7a4113c49f1f0515f462cdcf84e0f1d6045dfcbb
d=$(jget "$(call state_getStorage "[\"$DIFF\"]")" 'j["result"]')
expect "difficulty length" "${#d}" 130
d1=$(jget "$(call state_getStorage "[\"$DIFF\", \"$(jget "$(call chain_getBlockHash '[250]')" 'j["result"]')\"]")" 'j["result"]')
d2=$(jget "$(call state_getStorage "[\"$DIFF\", \"$(jget "$(call chain_getBlockHash '[251]')" 'j["result"]')\"]")" 'j["result"]')
# The default genesis difficulty, 4, is below what one step of QPoW's
# retarget rule moves (D/2048), so it stays; the self-test checks the
# rule where it moves.
four=0x04$(printf '%0126d' 0)
expect "difficulty at 250" "$d1" "$four"
expect "difficulty at 251" "$d2" "$four"
ts=$(jget "$(call state_getStorage "[\"$NOW\"]")" 'int.from_bytes(bytes.fromhex(j["result"][2:]), "little")')
now=$("$PY" -c 'import time; print(int(time.time() * 1000))')
[ $((now - ts)) -ge 0 ] && [ $((now - ts)) -le 10000 ] ||
    fail "Timestamp.Now $ts is not near now ($now)"
expect "unknown key" "$(jget "$(call state_getStorage '["0x1234"]')" 'j["result"]')" null
expect "state at unknown block" \
    "$(jget "$(call state_getStorage "[\"$DIFF\", \"0x$(printf '%064d' 7)\"]")" 'j["error"]["code"]')" 4003

# Runtime versions: 5, then 6 from block 150, then 9 from block 200.
ver() {
	h=$(jget "$(call chain_getBlockHash "[$1]")" 'j["result"]')
	jget "$(call state_getRuntimeVersion "[\"$h\"]")" 'j["result"]["specVersion"]'
}
expect "spec at 149" "$(ver 149)" 5
expect "spec at 150" "$(ver 150)" 6
expect "spec at 199" "$(ver 199)" 6
expect "spec at 200" "$(ver 200)" 9
updated() {
	h=$(jget "$(call chain_getBlockHash "[$1]")" 'j["result"]')
	jget "$(call chain_getHeader "[\"$h\"]")" \
	    '[l for l in j["result"]["digest"]["logs"] if l == "0x08"]'
}
expect "RuntimeEnvironmentUpdated at 150" "$(updated 150)" '["0x08"]'
expect "none at 151" "$(updated 151)" '[]'
expect "RuntimeEnvironmentUpdated at 200" "$(updated 200)" '["0x08"]'
expect "specName" "$(jget "$(call state_getRuntimeVersion '[]')" 'j["result"]["specName"]')" quantus-runtime

# Miners: from the seed, three of them, each with an ss58 address.
m=$(call dev_miners '[]')
expect "miners" "$(jget "$m" 'len(j["result"])')" 3
expect "ss58" "$(jget "$m" 'j["result"][0]["ss58"][:2]')" qz

# The substrate format: compact numbers, no zkTreeRoot, blake2b hashes.
dn_start s --format substrate --block-time 1000 --backlog 50
sh=$(rpc $s_port '{"jsonrpc":"2.0","id":1,"method":"chain_getHeader"}')
expect "substrate zkTreeRoot" "$(jget "$sh" '"zkTreeRoot" in j["result"]')" false
expect "substrate ss58" \
    "$(jget "$(rpc $s_port '{"jsonrpc":"2.0","id":1,"method":"system_properties"}')" 'j["result"]["ss58Format"]')" 42
"$PY" - "$s_port" <<'PYEOF' || fail "substrate hashes"
import os, sys
sys.path.insert(0, os.environ["top_srcdir"] + "/tests/integration")
from devnode_client import http, substrate_hash
port = int(sys.argv[1])
for n in (1, 2, 30):
    h = http(port, "chain_getBlockHash", [n])["result"]
    hdr = http(port, "chain_getHeader", [h])["result"]
    assert substrate_hash(hdr) == h, (n, h)
PYEOF
g1=$(jget "$(rpc $s_port '{"jsonrpc":"2.0","id":1,"method":"chain_getBlockHash","params":[0]}')" 'j["result"]')
expect_differ "substrate and quantus genesis" "$g1" "$h0"
echo "rpc: ok (best #$b2, finalized #$fn)"
