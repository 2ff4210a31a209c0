# Shared by the sandbox tests (sandbox.sh, sandbox_denials.sh,
# sandbox_landlock.sh, sandbox_tls.sh, sandbox_names.sh; sourced, not
# run): lib.sh, the probe, and a daemon that follows a devnode d1 with the
# real worker and metrics server.
. "$top_srcdir/tests/integration/lib.sh"
PROBE=$top_builddir/tests/integration/sandbox_probe
# The worker's sandbox lets it read what these name: not here, so that
# only its own list of paths is tested.
unset SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v timeout >/dev/null || { echo "SKIP: no timeout (coreutils)"; exit 77; }
SB_TF=${CW_WAIT_FACTOR:-1}

# sb_setup: devnode d1 and $T/chainwatch.conf following it over
# http/ws on 127.0.0.1, with the metrics server on.
sb_setup() {
	devnode d1 --seed sandbox --block-time 500
	write_conf "$T/chainwatch.conf"
	sed -i -e '/^metrics_listen/d' -e '/^metrics_server/d' \
	    -e "/^\\[daemon\\]\$/a metrics_listen = 127.0.0.1:0\\
metrics_server = $top_builddir/metrics/chainwatch-metrics" "$T/chainwatch.conf"
	sed -i 's/^block_time = .*/block_time = 500ms/' "$T/chainwatch.conf"
	# Its descriptors follow its connections: 64 + max_inflight + 1.
	echo "max_inflight = 200" >>"$T/chainwatch.conf"
	echo "endpoint = d1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port" \
	    >>"$T/chainwatch.conf"
}

# sb_endpoint HTTP_URL WS_URL: d1's endpoint line, for the next start.
sb_endpoint() {
	sed -i "s|^endpoint = d1 .*|endpoint = d1 $1 $2|" "$T/chainwatch.conf"
}

# sb_worker: wait for d1's worker; its pid in wp.
sb_worker() {
	wait_for 20 'test -n "$(worker_pid $DAEMON_PID d1)"' || fail "no worker d1"
	wp=$(worker_pid $DAEMON_PID d1)
}

# sb_stop: SIGTERM the daemon and wait until it is gone.
sb_stop() {
	kill -TERM "$DAEMON_PID"
	wait_for 20 'dead $DAEMON_PID' || fail "daemon did not stop"
}

# sb_probe SOCKET: sandbox_probe on $T and SOCKET, bounded; its lines in
# $T/probe, its stderr in $T/probe.err.
sb_probe() {
	timeout -k 5 $((60 * SB_TF)) "$PROBE" "$T" "$1" >"$T/probe" 2>"$T/probe.err" ||
	    fail "sandbox_probe ($?): $(cat "$T/probe" "$T/probe.err")"
	cat "$T/probe"
}

# expect_line LINE: sandbox_probe said it.
expect_line() {
	grep -q -x "$1" "$T/probe" || fail "want '$1' from sandbox_probe, got: $(cat "$T/probe")"
}

# sb_ns_wrap FILE SYSTEM_FILE: chainwatchd is from now on started in a
# mount namespace of its own where SYSTEM_FILE is FILE (bind-mounted; the
# machine's file is untouched).  Needs root; skips (77) with the reason
# if a namespace cannot be had.
sb_ns_wrap() {
	[ "$(id -u)" = 0 ] ||
	    { echo "SKIP: a private $2 (mount namespace) needs root"; exit 77; }
	unshare -m --propagation private sh -c 'mount -n --bind "$1" "$2"' sh \
	    "$1" "$2" >"$T/ns.out" 2>&1 ||
	    { echo "SKIP: cannot bind-mount a private $2 (unshare -m): $(cat "$T/ns.out")"; exit 77; }
	cat >"$T/chainwatchd-ns" <<EOF
#!/bin/sh
# chainwatchd in a mount namespace where $2 is $1.
exec unshare -m --propagation private sh -c \\
    'mount -n --bind "$1" "$2" && exec "\$@"' sh "$CHAINWATCHD" "\$@"
EOF
	chmod +x "$T/chainwatchd-ns"
	CHAINWATCHD=$T/chainwatchd-ns
}
