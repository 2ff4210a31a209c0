#!/bin/sh
# WebSocket side: subscriptions (the first notification is the head),
# server pings, and every fault seen by a WebSocket client: ws_drop,
# ws_silent, slow, malformed, rate_limit, oversized, truncated,
# blackhole, refuse; reset (RST) on kept-alive HTTP, handshakes and open
# WebSockets; stall and wrong_genesis over both transports.
. "$top_srcdir/tests/integration/devnode_lib.sh"
need_curl
need_websockets

dn_start w --block-time 50 --backlog 200 --ping-interval 200
"$PY" "$CLIENT" subscribe $w_port || fail "subscriptions"
"$PY" "$CLIENT" ping $w_port 200 || fail "pings"
"$PY" "$CLIENT" ws_faults $w_port $w_cport 50 || fail "WebSocket faults"
"$PY" "$CLIENT" reset $w_port $w_cport || fail "reset"
"$PY" "$CLIENT" chain_faults $w_port $w_cport 50 || fail "chain faults"
echo "ws faults: ok"
