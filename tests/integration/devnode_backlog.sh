#!/bin/sh
# --backlog: the chain starts that high; with --cache-dir the generated
# hashes are kept, a second start reads them instead of hashing, a
# longer backlog extends them, and a damaged cache is noticed and
# rebuilt.  The hashes are the same every way.
. "$top_srcdir/tests/integration/devnode_lib.sh"
need_curl

N=20000
hash_at() {
	jget "$(rpc $1 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"chain_getBlockHash\",\"params\":[[$2]]}")" 'j["result"]'
}
run() {
	_name=$1
	shift
	dn_start $_name --block-time 10000 "$@"
	eval "_port=\$${_name}_port"
	head=$(jget "$(rpc $_port '{"jsonrpc":"2.0","id":1,"method":"chain_getHeader"}')" \
	    'int(j["result"]["number"], 16)')
	hashes=$(hash_at $_port "0, 1, 777, $((N / 2)), $N")
	health=$(jget "$(rpc $_port '{"jsonrpc":"2.0","id":1,"method":"system_health"}')" \
	    'j["result"]["isSyncing"]')
	eval "kill \$${_name}_pid; wait \$${_name}_pid"
}

run plain --backlog $N
[ "$head" -ge $N ] || fail "--backlog $N: head #$head"
expect "synced" "$health" false
ref=$hashes

# dn_start passes --cache-dir none; a later --cache-dir wins.
run cold --backlog $N --cache-dir "$T/cache"
expect_same "cold hashes" "$hashes" "$ref"
ls "$T"/cache/devnode-quantus-*.chain >/dev/null 2>&1 ||
    fail "no cache file written"
run warm --backlog $N --cache-dir "$T/cache"
expect_same "warm hashes" "$hashes" "$ref"
grep -q "blocks from cache" "$T/warm.log" || fail "warm start hashed again"

# Longer than the cache: what is there is read, the rest hashed.
run longer --backlog $((N + 3000)) --cache-dir "$T/cache"
expect_same "longer hashes" "$hashes" "$ref"
grep -q "main chain: 200[0-9][0-9] blocks from cache" "$T/longer.log" ||
    fail "the longer start did not use the cache"
grep -q "hashed" "$T/longer.log" || fail "no ready line"

# Another seed is another cache file.
run other --backlog 2000 --seed other --cache-dir "$T/cache"
[ "$(ls "$T"/cache/*.chain | wc -l)" -eq 2 ] || fail "one cache file per chain"

# A damaged cache is ignored and rewritten.
f=$(ls -S "$T"/cache/*.chain | head -n 1)
printf 'XXXXXXXXXXXXXXXX' | dd of="$f" bs=1 seek=$((128 + 32 * ($N - 1))) \
    conv=notrunc 2>/dev/null
run damaged --backlog $N --cache-dir "$T/cache"
expect_same "damaged cache hashes" "$hashes" "$ref"
grep -q "ignoring" "$T/damaged.log" ||
    fail "the damaged cache was not noticed"
echo "backlog: ok"
