#!/bin/sh
# wrk_http / wrk_rpc against a local HTTP server that serves each fault
# (tests/integration/wrk_http_server.py): every fault gets its outcome
# class, a black hole ends at its deadline without holding up other
# requests, oversized answers stay within the memory cap, a batch of 100
# calls goes in one POST, and sequential requests share one connection.
. "$top_srcdir/tests/integration/wrk_lib.sh"
"$PY" -c 'import http.server' 2>/dev/null || { echo "SKIP: no $PY"; exit 77; }
wrk_client wrk_http_client

wrk_tls https://
# shellcheck disable=SC2086
wrk_server wrk_http_server.py $tls
read -r port tlsport <"$T/ports"
base="http://127.0.0.1:$port"

rc=0
for s in classes blackhole oversized "batch 100" "keepalive 50"; do
	echo "== $s"
	# shellcheck disable=SC2086
	timeout 120 "$CLIENT" "$base" $s || rc=1
done
if [ -n "$tls" ]; then
	echo "== tls"
	WRK_TEST_CA="$T/cert.pem" timeout 60 "$CLIENT" \
	    "https://127.0.0.1:$tlsport" tls 20 || rc=1
fi
exit $rc
