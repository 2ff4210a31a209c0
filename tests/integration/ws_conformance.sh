#!/bin/sh
# wrk_ws against an independent WebSocket implementation (Debian's
# python3-websockets, tests/integration/ws_server.py): big and fragmented
# messages, pings, masking, close codes 1000/1001/1011/1006/1009, and
# handshakes that must be refused or must time out.
. "$top_srcdir/tests/integration/wrk_lib.sh"
need_websockets
wrk_client wrk_ws_client

wrk_tls wss://
# shellcheck disable=SC2086
wrk_server ws_server.py $tls
read -r wsport rawport wssport <"$T/ports"

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
		WRK_TEST_CA="$T/cert.pem" timeout 60 "$CLIENT" \
		    "wss://127.0.0.1:$wssport" "ws://127.0.0.1:$rawport" "$s" ||
		    rc=1
	done
fi
# The server's view: every closing handshake answered, no bad frame.
sleep 0.5
if grep UNCLEAN "$T/server.log"; then
	echo "FAIL: the server saw unclean closes"
	rc=1
fi
wrk_exit $rc server
