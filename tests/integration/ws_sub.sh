#!/bin/sh
# wrk_sub against the chain emulation of tests/integration/ws_server.py:
# heads and finalized heads arrive; a dropped connection and a silent
# subscription (while HTTP is ahead) are both reconnected and subscribed
# again; a chain that stalled (HTTP not ahead) is left alone.
. "$top_srcdir/tests/integration/wrk_lib.sh"
need_websockets
wrk_client wrk_sub_client

wrk_server ws_server.py
read -r wsport rawport <"$T/ports"

rc=0
for m in normal drop silent stalled_chain nofinal; do
	echo "== $m"
	timeout 60 "$CLIENT" "ws://127.0.0.1:$wsport" "$m" 2>"$T/client.log" ||
	    rc=1
	cat "$T/client.log"
	case $m in
	drop)
		# The log names the endpoint and says what happens next.
		grep -q "ws ws://127.0.0.1:$wsport/chain/drop: ws closed (1006, .*), reconnecting in [0-9.]* s" \
		    "$T/client.log" || { echo "FAIL: no reconnect line"; rc=1; }
		;;
	silent)
		grep -q "no head for .* while HTTP is at #.*subscription dead, reconnecting in" \
		    "$T/client.log" || { echo "FAIL: no stall line"; rc=1; }
		;;
	esac
done
exit $rc
