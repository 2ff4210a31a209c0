#!/bin/sh
# wrk_http / wrk_rpc against a local HTTP server that serves each fault
# (tests/integration/wrk_http_server.py): every fault gets its outcome
# class, a black hole ends at its deadline without holding up other
# requests, oversized answers stay within the memory cap, a batch of 100
# calls goes in one POST, and sequential requests share one connection.
PY=/usr/bin/python3
CLIENT="$top_builddir/tests/integration/wrk_http_client"
SERVER="$top_srcdir/tests/integration/wrk_http_server.py"

"$PY" -c 'import http.server' 2>/dev/null || { echo "SKIP: no $PY"; exit 77; }
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

# A throw-away certificate for 127.0.0.1, for the https:// run.
tls=
if command -v openssl >/dev/null 2>&1 &&
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
    -nodes -keyout "$dir/key.pem" -out "$dir/cert.pem" -days 2 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    >"$dir/openssl.log" 2>&1; then
	tls="$dir/cert.pem $dir/key.pem"
else
	echo "note: no openssl, https:// not tested"
fi

# shellcheck disable=SC2086
"$PY" "$SERVER" "$dir/port" $tls 2>"$dir/server.log" &
spid=$!
i=0
while [ ! -s "$dir/port" ]; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 "$spid" 2>/dev/null; then
		echo "FAIL: test server did not start"; cat "$dir/server.log"
		exit 1
	fi
	sleep 0.1
done
read -r port tlsport <"$dir/port"
base="http://127.0.0.1:$port"

rc=0
for s in classes blackhole oversized "batch 100" "keepalive 50"; do
	echo "== $s"
	# shellcheck disable=SC2086
	timeout 120 "$CLIENT" "$base" $s || rc=1
done
if [ -n "$tls" ]; then
	echo "== tls"
	WRK_TEST_CA="$dir/cert.pem" timeout 60 "$CLIENT" \
	    "https://127.0.0.1:$tlsport" tls 20 || rc=1
fi
exit $rc
