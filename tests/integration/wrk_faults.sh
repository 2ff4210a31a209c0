#!/bin/sh
# One real worker against chainwatch-devnode: every fault gives its
# outcome class and the worker keeps running and answering (its pid never
# changes: the harness reports any exit).  DESIGN.md, "Endpoint health".
. "$top_srcdir/tests/integration/devnode_lib.sh"
need_curl
need_websockets
HARNESS=$top_builddir/tests/integration/wrk_harness
WORKER=$top_builddir/workers/chainwatch-worker

dn_start d --block-time 100 --backlog 50 --state-pruning 10
P=$d_port
C=$d_cport
CTL="curl -s -m 5 -o /dev/null http://127.0.0.1:$C/control -d"
hash_of() {
	jget "$(rpc $P "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"chain_getBlockHash\",\"params\":[$1]}")" 'j["result"]'
}

# session NAME [harness options]: run the commands on stdin; output in
# $T/NAME.out.  The worker must not have died.
session() {
	_n=$1
	shift
	"$HARNESS" -w "$WORKER" -r "http://127.0.0.1:$P" \
	    -s "ws://127.0.0.1:$P" -b 100 -t 1000 -c 1000 "$@" \
	    >"$T/$_n.out" 2>"$T/$_n.log"
	_rc=$?
	if [ $_rc -ne 0 ] || grep -q 'worker exited\|worker killed\|timeout waiting\|bad message' "$T/$_n.out"; then
		cat "$T/$_n.out"
		fail "$_n: the harness or the worker failed ($_rc)"
	fi
}
# has NAME REGEX: the session's output has a matching line.
has() {
	grep -E -q "$2" "$T/$1.out" || { cat "$T/$1.out"; fail "$1: no line matching: $2"; }
}

# blackhole: timeout within the 1 s deadline; then the same worker answers.
session blackhole <<CMDS
wait_info
run $CTL '{"clear":true,"enable":"blackhole@http"}'
headers 3
run $CTL '{"clear":true}'
headers 4
CMDS
has blackhole '^item 0 timeout [0-9]+ms #0 '
ms=$(sed -n 's/^item 0 timeout \([0-9]*\)ms .*/\1/p' "$T/blackhole.out")
[ "$ms" -ge 900 ] && [ "$ms" -le 3000 ] || fail "blackhole: timeout after $ms ms, deadline 1000 ms"
has blackhole '^item 0 ok [0-9]+ms #4 '
echo "ok: blackhole -> timeout after $ms ms, then ok"

# Answer-level faults: each its class, each followed by a good answer.
for f in http_503:http_5xx http_500:http_5xx rate_limit:rate_limited \
    malformed:malformed truncated:transport refuse:transport; do
	fault=${f%%:*}
	class=${f#*:}
	session "$fault" <<CMDS
wait_info
run $CTL '{"clear":true,"enable":"$fault@http"}'
headers 5
genesis
run $CTL '{"clear":true}'
headers 6
CMDS
	has "$fault" "^item 0 $class [0-9]+ms #0 "
	has "$fault" "^res genesis id=[0-9]+ $class "
	has "$fault" '^item 0 ok [0-9]+ms #6 '
	echo "ok: $fault -> $class"
done
# The default 429 says Retry-After: 1, and the worker passes it on; one
# that asks 7 s, and one that says nothing.
retries() {
	echo $(sed -n 's/^res headers .* retry=\([0-9]*\)ms$/\1/p' "$T/$1.out")
}
[ "$(retries rate_limit)" = "1000 0" ] ||
    fail "rate_limit: Retry-After passed on as '$(retries rate_limit)' ms, not '1000 0'"
session retry_after <<CMDS
wait_info
run $CTL '{"clear":true,"enable":"rate_limit:7@http"}'
headers 5
run $CTL '{"clear":true,"enable":"rate_limit:0@http"}'
headers 6
run $CTL '{"clear":true}'
CMDS
[ "$(retries retry_after)" = "7000 0" ] ||
    fail "retry_after: Retry-After passed on as '$(retries retry_after)' ms, not '7000 0'"
echo "ok: rate_limit -> Retry-After passed on (1 s, 7 s, none)"

# oversized: too_large at the 1 MiB cap, and the worker's memory stays
# bounded though the devnode sends 64 MiB.
session oversized -m 1048576 <<CMDS
wait_info
sleep 1200
run $CTL '{"clear":true,"enable":"oversized@http"}'
headers 7
headers 8
headers 9
run $CTL '{"clear":true}'
sleep 1200
headers 10
CMDS
has oversized '^item 0 too_large [0-9]+ms #0 '
has oversized '^item 0 ok [0-9]+ms #10 '
first=$(sed -n 's/^heartbeat rss_kb=//p' "$T/oversized.out" | head -n 1)
last=$(sed -n 's/^heartbeat rss_kb=//p' "$T/oversized.out" | tail -n 1)
[ -n "$first" ] && [ -n "$last" ] || fail "oversized: no heartbeats"
[ $((last - first)) -lt 16384 ] || fail "oversized: RSS grew from $first to $last kB"
echo "ok: oversized -> too_large, RSS $first -> $last kB"

# At the default cap (16 MiB) the answers' memory is given back once they
# are dropped: glibc kept it in the heap for good before the worker fixed
# its mmap threshold (+16-25 MB a worker in bench/soak).  The sanitizers'
# allocator keeps freed memory on purpose: the plain build judges.
if [ "$CW_SANITIZED" != yes ]; then
	session oversized16 -m 16777216 <<CMDS
wait_info
sleep 1200
run $CTL '{"clear":true,"enable":"oversized@http"}'
headers 7
headers 8
run $CTL '{"clear":true}'
headers 10
sleep 1200
headers 11
CMDS
	has oversized16 '^item 0 too_large [0-9]+ms #0 '
	first=$(sed -n 's/^heartbeat rss_kb=//p' "$T/oversized16.out" | head -n 1)
	last=$(sed -n 's/^heartbeat rss_kb=//p' "$T/oversized16.out" | tail -n 1)
	[ -n "$first" ] && [ -n "$last" ] || fail "oversized16: no heartbeats"
	[ $((last - first)) -lt 8192 ] ||
	    fail "oversized16: RSS $first -> $last kB after two 16 MiB answers were dropped"
	echo "ok: oversized at 16 MiB -> memory given back, RSS $first -> $last kB"
fi

# WebSocket garbage counts against the endpoint: notifications that are
# not JSON are malformed, a message past the cap is too_large (the
# answer to subscribing again, once the connection is dropped).
session ws_malformed <<CMDS
wait_sub live
run $CTL '{"clear":true,"enable":"malformed@ws"}'
wait_outcome ws malformed
run $CTL '{"clear":true}'
CMDS
has ws_malformed '^outcome ws malformed .*why=message is not JSON'
echo "ok: malformed@ws -> outcome ws malformed"
session ws_oversized -m 1048576 <<CMDS
wait_sub live
run $CTL '{"clear":true,"enable":["oversized:2@ws","ws_drop:1000@ws"]}'
wait_outcome ws too_large
run $CTL '{"clear":true}'
wait_sub live
CMDS
has ws_oversized '^outcome ws too_large .*why=message larger than 1048576 bytes'
echo "ok: oversized@ws -> outcome ws too_large"

# ws_drop: the subscription goes down, reconnects and subscribes again.
session ws_drop <<CMDS
wait_sub live
wait_head 55
run $CTL '{"clear":true,"enable":"ws_drop@ws"}'
wait_sub down
run $CTL '{"clear":true}'
wait_sub live
wait_head 60
CMDS
has ws_drop '^sub down '
has ws_drop '^sub live reconnects=[1-9]'
echo "ok: ws_drop -> reconnected and subscribed again"

# ws_silent: heads stop while HTTP shows newer ones: taken as dead.
session ws_silent <<CMDS
wait_sub live
run $CTL '{"clear":true,"enable":"ws_silent@ws"}'
wait_sub down
run $CTL '{"clear":true}'
wait_sub live
CMDS
has ws_silent '^sub down .*why=.*(stall|silent|no head)'
has ws_silent '^sub live reconnects=[1-9]'
echo "ok: ws_silent -> detected, subscribed again"

# A subscription silent from the start, three times in a row: the wait
# before reconnecting doubles each time (0.5-1 s, 1-2 s, 2-4 s), since
# none delivered a head; it starts over only after one that did (and
# lived a stall period).
session ws_silent_again <<CMDS
wait_sub live
run $CTL '{"clear":true,"enable":"ws_silent@ws"}'
wait_sub down
wait_sub live
wait_sub down
wait_sub live
wait_sub down
run $CTL '{"clear":true}'
wait_sub live
CMDS
waits=$(sed -n 's/.*subscription dead, reconnecting in \([0-9.]*\) s$/\1/p' \
    "$T/ws_silent_again.log" | head -n 3 | tr '\n' ' ')
echo "$waits" | awk '{ exit !(NF == 3 && $1 <= 1.0 && $2 >= 1.0 &&
    $2 <= 2.0 && $3 >= 2.0 && $3 <= 4.0) }' ||
    fail "ws_silent_again: waits before reconnecting '$waits' s, want 0.5-1, 1-2, 2-4"
echo "ok: ws_silent_again -> reconnected after $waits s"

# A worker that gets the CPU late (a machine of 2000 workers): stopped 2 s
# while heads and a poll's answer wait in its sockets, it reads them before
# it judges.  The subscription runs 400 ms behind HTTP (slow@ws), so a
# judgement made first would find HTTP ahead and the last head 2 s old,
# and take the subscription for dead: it did, since libev runs a turn's
# timers before the I/O that came with them.  A head reported after the
# SIGCONT shows the worker's first turn since is in the output.
$CTL '{"clear":true,"enable":"slow:400@ws"}' || fail "starved: no control"
session starved <<CMDS
wait_sub live
sleep 1500
run w=\$(pgrep -P \$PPID | grep -vx \$\$); kill -STOP \$w && sleep 2 && kill -CONT \$w
sleep 2000
CMDS
$CTL '{"clear":true}'
sed -n '/^ran /,$p' "$T/starved.out" | grep -q '^head new ' ||
    { cat "$T/starved.out"; fail "starved: no head from the worker within 2 s of its SIGCONT"; }
! grep -E '^(sub down|outcome .* timeout)' "$T/starved.out" ||
    fail "starved: the worker judged before reading what had come"
echo "ok: starved -> what came while it was stopped read before the subscription and the deadlines are judged"

# Pruned state is absent (4003), recent state is there.
old=$(hash_of 2)
best=$(jget "$(rpc $P '{"jsonrpc":"2.0","id":1,"method":"chain_getHead","params":[]}')" 'j["result"]')
fetched "pruned: the best hash" "$best"
fetched "pruned: the hash of #2" "$old"
KEY=0xf70798a3fbcee5a2d178b8c516e36ae559769e16105568cee9f916e870cb6e6f
NOW=0xf0c365c3cf59d671eb72da0e7a4113c49f1f0515f462cdcf84e0f1d6045dfcbb
session pruned <<CMDS
storage $KEY $old $KEY $best $NOW $best
CMDS
has pruned '^value 0 absent [0-9]+ms value=0x why=.*State already discarded'
has pruned '^value 1 ok [0-9]+ms value=0x[0-9a-f]{128} '
has pruned '^value 2 ok [0-9]+ms value=0x[0-9a-f]{16} '
echo "ok: pruned state -> absent; recent state -> a 64-byte difficulty and a timestamp, in one batch"

# Heads that come before the facts wait for them, with the time each came:
# HTTP slowed to 2.5 s a call (the facts take two calls; the deadline is
# 4 s) while the subscription's heads come every 100 ms: the last 16 wait
# (new and finalized).  The worker used to drop them,
# and the first that reached the daemon was one it could not link.
$CTL '{"clear":true,"enable":"slow:2500@http"}' || fail "early: no control"
session early -t 4000 <<CMDS
wait_info
sleep 300
CMDS
$CTL '{"clear":true}'
at=$(sed -n 's/^info ok at=\([0-9]*\) .*/\1/p' "$T/early.out")
seen=$(sed -n 's/^head new .* seen=\([0-9]*\)$/\1/p' "$T/early.out" |
    sort -n | head -n 1)
[ -n "$at" ] && [ -n "$seen" ] || { cat "$T/early.out"; fail "early: no facts or no head"; }
[ $((at - seen)) -ge 300 ] || { cat "$T/early.out"; fail "early: the first head came $((at - seen)) ms before the facts reached the harness, not 300 or more: held heads were dropped"; }
echo "ok: early heads held until the facts, the first $((at - seen)) ms before them"
