#!/bin/sh
# wrk_sub against the chain emulation of tests/integration/ws_server.py:
# heads and finalized heads arrive; a dropped connection and a silent
# subscription (while HTTP is ahead) are both reconnected and subscribed
# again; a chain that stalled (HTTP not ahead) is left alone.
PY=/usr/bin/python3
CLIENT="$top_builddir/tests/integration/wrk_sub_client"
SERVER="$top_srcdir/tests/integration/ws_server.py"

"$PY" -c 'import websockets' 2>/dev/null || {
	echo "SKIP: $PY cannot import websockets (apt-get install python3-websockets)"
	exit 77
}
[ -x "$CLIENT" ] || { echo "FAIL: $CLIENT not built"; exit 1; }

# Everything here is on 127.0.0.1: no proxy may stand in between.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

dir=$(mktemp -d) || exit 1
spid=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

"$PY" "$SERVER" "$dir/ports" 2>"$dir/server.log" &
spid=$!
i=0
while [ ! -s "$dir/ports" ]; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 "$spid" 2>/dev/null; then
		echo "FAIL: test server did not start"; cat "$dir/server.log"
		exit 1
	fi
	sleep 0.1
done
read -r wsport rawport <"$dir/ports"

rc=0
for m in normal drop silent stalled_chain nofinal; do
	echo "== $m"
	timeout 60 "$CLIENT" "ws://127.0.0.1:$wsport" "$m" 2>"$dir/client.log" ||
	    rc=1
	cat "$dir/client.log"
	case $m in
	drop)
		# The log names the endpoint and says what happens next.
		grep -q "ws ws://127.0.0.1:$wsport/chain/drop: ws closed (1006, .*), reconnecting in [0-9.]* s" \
		    "$dir/client.log" || { echo "FAIL: no reconnect line"; rc=1; }
		;;
	silent)
		grep -q "no head for .* while HTTP is at #.*subscription dead, reconnecting in" \
		    "$dir/client.log" || { echo "FAIL: no stall line"; rc=1; }
		;;
	esac
done
exit $rc
