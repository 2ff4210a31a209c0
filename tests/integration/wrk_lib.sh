# Shared by the worker's integration tests (http_faults.sh,
# ws_conformance.sh, ws_sub.sh, http_devnode.sh, ws_devnode.sh; sourced,
# not run): one wrk_*_client program against a python3 test server or a
# devnode.  $T, cleanup, fail and dn_start come from devnode_lib.sh.

. "$top_srcdir/tests/integration/devnode_lib.sh"

# Everything here is on 127.0.0.1: no proxy may stand in between.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

# devnode_lib.sh's cleanup wants a clean exit from everything in PIDS; a
# python3 server dies of the SIGTERM, so it is stopped here, before that.
wrk_spid=
wrk_status() {
	return "$1"
}
wrk_cleanup() {
	_wrc=$?
	if [ -n "$wrk_spid" ]; then
		kill "$wrk_spid" 2>/dev/null && wait "$wrk_spid" 2>/dev/null
	fi
	wrk_status "$_wrc"
	cleanup
}
trap wrk_cleanup EXIT

wrk_need_devnode() {
	[ -x "$DEVNODE" ] || { echo "SKIP: $DEVNODE not built"; exit 77; }
}

# wrk_client NAME: CLIENT is that test program, which must be built.
wrk_client() {
	CLIENT="$top_builddir/tests/integration/$1"
	[ -x "$CLIENT" ] || fail "$CLIENT not built"
}

# wrk_tls SCHEME: a throw-away certificate for 127.0.0.1 in $T; tls gets
# "CERT KEY" for the server, or stays empty and SCHEME goes untested.
wrk_tls() {
	tls=
	if command -v openssl >/dev/null 2>&1 &&
	    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
	    -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 2 \
	    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
	    >"$T/openssl.out" 2>&1; then
		tls="$T/cert.pem $T/key.pem"
	else
		echo "note: no openssl, $1 not tested"
	fi
}

# wrk_server SCRIPT [ARGS...]: run tests/integration/SCRIPT with python3
# and wait until it has written its ports to $T/ports.  Its stderr goes
# to $T/server.log.
wrk_server() {
	_script="$top_srcdir/tests/integration/$1"
	shift
	"$PY" "$_script" "$T/ports" "$@" 2>"$T/server.log" &
	wrk_spid=$!
	_i=0
	while [ ! -s "$T/ports" ]; do
		_i=$((_i + 1))
		if [ $_i -gt 100 ] || ! kill -0 "$wrk_spid" 2>/dev/null; then
			fail "test server did not start"
		fi
		sleep 0.1
	done
}

# wrk_devnode: chainwatch-devnode with a block every 300 ms, as the
# clients' devnode scenarios expect; sets devnode_port and devnode_cport.
# Its log is $T/devnode.log.
wrk_devnode() {
	cd "$T" || exit 1
	dn_start devnode --block-time 300 --log-level warn
}

# wrk_exit RC NAME: exit with RC, after showing $T/NAME.log if RC is not 0.
wrk_exit() {
	[ "$1" -eq 0 ] || { echo "-- $2 log"; cat "$T/$2.log"; }
	exit "$1"
}
