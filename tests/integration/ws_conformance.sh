#!/bin/sh
# wrk_ws against an independent WebSocket implementation (Debian's
# python3-websockets, tests/integration/ws_server.py): big and fragmented
# messages, pings, masking, close codes 1000/1001/1011/1006/1009, and
# handshakes that must be refused or must time out.
PY=/usr/bin/python3
CLIENT="$top_builddir/tests/integration/wrk_ws_client"
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

# A throw-away certificate for 127.0.0.1, for the wss:// runs.
tls=
if command -v openssl >/dev/null 2>&1 &&
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
    -nodes -keyout "$dir/key.pem" -out "$dir/cert.pem" -days 2 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    >"$dir/openssl.log" 2>&1; then
	tls="$dir/cert.pem $dir/key.pem"
else
	echo "note: no openssl, wss:// not tested"
fi

# shellcheck disable=SC2086
"$PY" "$SERVER" "$dir/ports" $tls 2>"$dir/server.log" &
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
read -r wsport rawport wssport <"$dir/ports"

rc=0
for s in big fragments ping masking close_1000 close_1001 close_1011 drop \
    toolarge client_close free_in_cb reject badaccept notws split hs_timeout \
    refused; do
	echo "== $s"
	timeout 60 "$CLIENT" "ws://127.0.0.1:$wsport" \
	    "ws://127.0.0.1:$rawport" "$s" || rc=1
done
if [ -n "$tls" ]; then
	# The same client code over TLS (curl_easy_send/recv through OpenSSL).
	for s in big fragments ping close_1001 drop toolarge untrusted; do
		echo "== wss $s"
		WRK_TEST_CA="$dir/cert.pem" timeout 60 "$CLIENT" \
		    "wss://127.0.0.1:$wssport" "ws://127.0.0.1:$rawport" "$s" ||
		    rc=1
	done
fi
# The server's view: every closing handshake answered, no bad frame.
sleep 0.5
if grep UNCLEAN "$dir/server.log"; then
	echo "FAIL: the server saw unclean closes"
	rc=1
fi
[ $rc -eq 0 ] || { echo "-- server log"; cat "$dir/server.log"; }
exit $rc
