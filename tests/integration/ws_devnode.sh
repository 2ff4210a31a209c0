#!/bin/sh
# wrk_sub against chainwatch-devnode: heads arrive; under ws_drop the
# subscription reconnects; under ws_silent, with HTTP ahead, the silence
# is noticed and the subscription reconnects; heads follow each time.
. "$top_srcdir/tests/integration/wrk_lib.sh"
wrk_need_devnode
wrk_client wrk_sub_client

wrk_devnode
timeout 60 "$CLIENT" "ws://127.0.0.1:$devnode_port" devnode \
    "http://127.0.0.1:$devnode_cport" 2>"$T/client.log"
rc=$?
cat "$T/client.log"
grep -q "ws closed (1006, .*), reconnecting in [0-9.]* s" "$T/client.log" ||
    { echo "FAIL: no reconnect line after ws_drop"; rc=1; }
grep -q "no head for .* while HTTP is at #.*reconnecting in" "$T/client.log" ||
    { echo "FAIL: no stall line after ws_silent"; rc=1; }
wrk_exit $rc devnode
