#!/bin/sh
# Over TLS: at its first handshake, inside its sandbox, the worker's
# OpenSSL reads the system's CA certificates and checks the server's
# against them.  The proxy's is self-signed, so the check fails with
# "self-signed certificate", which proves the CA file was read: without
# it, curl says "error setting certificate file" (and a forbidden call
# would end the worker).  Without the system's CA file (Debian's
# ca-certificates) or openssl to make the proxy's certificate, this
# cannot run.
. "$top_srcdir/tests/integration/sandbox_lib.sh"
ca=/etc/ssl/certs/ca-certificates.crt
[ -s "$ca" ] ||
    { echo "SKIP: no $ca (package ca-certificates): nothing for the worker to read"; exit 77; }
command -v openssl >/dev/null 2>&1 ||
    { echo "SKIP: no openssl to make the proxy's certificate"; exit 77; }
timeout $((60 * SB_TF)) openssl req -x509 -newkey ec \
    -pkeyopt ec_paramgen_curve:prime256v1 \
    -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 2 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    >"$T/openssl.out" 2>&1 ||
    fail "openssl made no certificate: $(cat "$T/openssl.out")"

sb_setup
python3 "$top_srcdir/tests/integration/tls_proxy.py" "$T/tls.port" \
    "$T/cert.pem" "$T/key.pem" "$d1_port" 2>"$T/tls.log" &
CW_PIDS="$CW_PIDS $!"
wait_for 20 'test -s "$T/tls.port"' || fail "TLS proxy did not start"
tp=$(cat "$T/tls.port")
sb_endpoint "https://127.0.0.1:$tp" "wss://127.0.0.1:$tp"
start_daemon
sb_worker
wait_for 30 'grep -q "w/d1: poll transport .*SSL certificate problem: self-signed certificate" "$T/log"' ||
    fail "no certificate check over https"
wait_for 30 'grep -q "w/d1: .*ws closed (1006, connect failed: SSL certificate problem: self-signed certificate)" "$T/log"' ||
    fail "no certificate check over wss"
! grep -q -i "error setting certificate\|killed by its sandbox" "$T/log" ||
    fail "the sandbox kept the worker from its CA certificates"
[ "$(worker_pid $DAEMON_PID d1)" = "$wp" ] || fail "worker d1 was replaced"
ok "over TLS (https, wss) the sandboxed worker reads $ca and checks the server"
sb_stop
