#!/bin/sh
# One real worker whose configured format does not fit its endpoint's
# headers (issue 12, item 3), against a quantus and a substrate devnode:
# its facts say so (fits=0, with the evidence); every header it fetches,
# by number or by hash, is malformed and carries no header; and the heads
# of its subscription are dropped, not forwarded.  With the right format
# the same requests give the node's own hashes and heads go on.
. "$top_srcdir/tests/integration/devnode_lib.sh"
need_curl
need_websockets
HARNESS=$top_builddir/tests/integration/wrk_harness
WORKER=$top_builddir/workers/chainwatch-worker

dn_start q --block-time 100 --backlog 50
dn_start s --format substrate --block-time 100 --backlog 50

# hash_of PORT N: the hash the devnode serves for block N.
hash_of() {
	jget "$(rpc $1 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"chain_getBlockHash\",\"params\":[$2]}")" 'j["result"]'
}

# session NAME PORT FORMAT: a worker of that format on the devnode at
# PORT, at debug level, running the commands on stdin; output in
# $T/NAME.out, its log in $T/NAME.log.
session() {
	_n=$1
	"$HARNESS" -w "$WORKER" -r "http://127.0.0.1:$2" \
	    -s "ws://127.0.0.1:$2" -f "$3" -b 100 -t 2000 -c 1000 -v \
	    >"$T/$_n.out" 2>"$T/$_n.log"
	_rc=$?
	if [ $_rc -ne 0 ] || grep -q 'worker exited\|worker killed\|timeout waiting\|bad message' "$T/$_n.out"; then
		cat "$T/$_n.out"
		fail "$_n: the harness or the worker failed ($_rc)"
	fi
}
has() {
	grep -E -q "$2" "$T/$1.out" || { cat "$T/$1.out"; fail "$1: no line matching: $2"; }
}
# Within the session: wait (20 s at most) until the worker's log shows
# that a head of the subscription was dropped for its format.
DROPPED="i=0; until grep -q 'head dropped: headers do not fit the format' \"\$L\"; do i=\$((i + 1)); [ \$i -lt 200 ] || exit 1; sleep 0.1; done"

# A quantus node read as substrate: decodes, hashes elsewhere.
h7=$(hash_of $q_port 7)
L=$T/q_as_substrate.log session q_as_substrate $q_port substrate <<CMDS
wait_info
headers 5 6
hashes $h7
run L=$T/q_as_substrate.log; $DROPPED
CMDS
has q_as_substrate '^info ok .* fits=0 why=header: #[0-9]+ hashes to 0x[0-9a-f]{10}\.\.\. as substrate, not 0x'
has q_as_substrate '^item 0 malformed [0-9]+ms #0 0x0{64} .* why=header: #5 hashes to 0x[0-9a-f]{10}\.\.\. as substrate, not 0x'
has q_as_substrate '^item 1 malformed [0-9]+ms #0 .* why=header: #6 hashes to '
has q_as_substrate "^item 0 malformed [0-9]+ms #0 .* why=header: #7 hashes to 0x[0-9a-f]{10}\.\.\. as substrate, not $(echo "$h7" | cut -c1-12)\.\.\."
grep -q 'head dropped: headers do not fit the format' "$T/q_as_substrate.log" ||
    fail "q_as_substrate: no head was seen dropped"
! grep -q '^head ' "$T/q_as_substrate.out" ||
    fail "q_as_substrate: a head was forwarded: $(grep -m 1 '^head ' "$T/q_as_substrate.out")"
echo "ok: quantus node, substrate format: fits=0, headers malformed, heads dropped"

# A substrate node read as quantus: does not decode.
h7=$(hash_of $s_port 7)
session s_as_quantus $s_port quantus <<CMDS
wait_info
headers 5
hashes $h7
run L=$T/s_as_quantus.log; $DROPPED
CMDS
has s_as_quantus '^info ok .* fits=0 why=header: does not decode as quantus: zkTreeRoot: missing'
has s_as_quantus '^item 0 malformed [0-9]+ms #0 .* why=header: does not decode as quantus: zkTreeRoot: missing'
grep -q 'head dropped: headers do not fit the format' "$T/s_as_quantus.log" ||
    fail "s_as_quantus: no head was seen dropped"
! grep -q '^head ' "$T/s_as_quantus.out" ||
    fail "s_as_quantus: a head was forwarded"
echo "ok: substrate node, quantus format: fits=0, headers malformed, heads dropped"

# The right formats: the node's hashes, and heads go on.
for c in q:quantus s:substrate; do
	n=${c%%:*}
	eval port=\$${n}_port
	h5=$(hash_of $port 5)
	h7=$(hash_of $port 7)
	session "$n-right" $port ${c#*:} <<CMDS
wait_info
headers 5
hashes $h7
wait_head 1
CMDS
	has "$n-right" '^info ok .* fits=1 why=$'
	has "$n-right" "^item 0 ok [0-9]+ms #5 $h5 "
	has "$n-right" "^item 0 ok [0-9]+ms #7 $h7 "
	has "$n-right" '^head new #[0-9]+ 0x'
	echo "ok: ${c#*:} node, ${c#*:} format: fits=1, the node's hashes, heads forwarded"
done
