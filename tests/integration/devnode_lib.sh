# Shared by tests/integration/devnode_*.sh (sourced, not run): start and
# stop devnodes in a temporary directory, talk JSON-RPC with curl, fail
# with a message.  Every devnode listens on 127.0.0.1 port 0 and tells
# its ports through files; everything started is killed on exit.

: "${top_builddir:?top_builddir is not set (run through make check)}"
: "${top_srcdir:?top_srcdir is not set (run through make check)}"
DEVNODE="$top_builddir/devnode/chainwatch-devnode"
CLIENT="$top_srcdir/tests/integration/devnode_client.py"
PY=/usr/bin/python3
# The client is imported from the source tree: leave no bytecode there.
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

T=$(mktemp -d "${TMPDIR:-/tmp}/devnode-test.XXXXXX") || exit 99
PIDS=
# Every devnode must stop cleanly on SIGTERM (status 0; 127 is one the
# test already waited for) and leave no sanitizer report in its log.
cleanup() {
	_rc=$?
	for p in $PIDS; do
		kill "$p" 2>/dev/null
	done
	for p in $PIDS; do
		wait "$p" 2>/dev/null
		_s=$?
		if [ $_s -ne 0 ] && [ $_s -ne 127 ]; then
			echo "FAIL: devnode $p exited with status $_s" >&2
			_rc=1
		fi
	done
	if grep -l -e 'Sanitizer' -e 'runtime error:' "$T"/*.log \
	    >"$T/sanitizer" 2>/dev/null; then
		for f in $(cat "$T/sanitizer"); do
			echo "FAIL: sanitizer report in $f:" >&2
			cat "$f" >&2
		done
		_rc=1
	fi
	rm -rf "$T"
	exit $_rc
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

fail() {
	echo "FAIL: $*" >&2
	for f in "$T"/*.log; do
		[ -f "$f" ] || continue
		echo "--- $f (last lines)" >&2
		tail -n 20 "$f" >&2
	done
	# Called in a subshell ($(rpc ...), a pipeline), exit ends only that
	# subshell, and its caller would go on with an empty value: the
	# test's own shell ($$, there too) is ended as well, by its TERM trap
	# (exit 1, then cleanup).  /proc/self here is this very process: the
	# shell opens a builtin's redirection itself.
	read -r _self _ </proc/self/stat
	[ "$_self" = "$$" ] || kill -TERM $$
	exit 1
}

# The WebSocket checks need Debian's python3-websockets: skip without it.
need_websockets() {
	if ! "$PY" -c 'import websockets' 2>/dev/null; then
		echo "SKIP: /usr/bin/python3 with python3-websockets is needed"
		exit 77
	fi
}

need_curl() {
	command -v curl >/dev/null 2>&1 || { echo "SKIP: no curl"; exit 77; }
}

# dn_spawn NAME [devnode options...]: start it; dn_wait NAME: wait until
# it is ready and set NAME_port, NAME_cport and NAME_pid.  dn_start does
# both.
dn_spawn() {
	_n=$1
	shift
	rm -f "$T/$_n.port" "$T/$_n.cport"
	"$DEVNODE" --listen 127.0.0.1:0 --control-listen 127.0.0.1:0 \
	    --port-file "$T/$_n.port" --control-port-file "$T/$_n.cport" \
	    --cache-dir none "$@" >"$T/$_n.log" 2>&1 &
	PIDS="$PIDS $!"
	eval "${_n}_pid=$!"
}

dn_wait() {
	_n=$1
	eval "_pid=\$${_n}_pid"
	_i=0
	while [ ! -s "$T/$_n.port" ] || [ ! -s "$T/$_n.cport" ]; do
		if ! kill -0 "$_pid" 2>/dev/null; then
			fail "devnode $_n exited before it was ready"
		fi
		_i=$((_i + 1))
		[ $_i -lt 600 ] || fail "devnode $_n not ready in 60 s"
		sleep 0.1
	done
	eval "${_n}_port=\$(cat \"\$T/\$_n.port\")"
	eval "${_n}_cport=\$(cat \"\$T/\$_n.cport\")"
}

dn_start() {
	dn_spawn "$@"
	dn_wait "$1"
}

# rpc PORT JSON: the answer body (no answer fails the test, in $(...) too).
rpc() {
	curl -s -m 5 -H 'Content-Type: application/json' -d "$2" \
	    "http://127.0.0.1:$1/" || fail "no answer on port $1 to $2"
}

# ctl CPORT JSON: a control request on the control port.
ctl() {
	curl -s -m 5 -d "$2" "http://127.0.0.1:$1/control" >/dev/null ||
	    fail "control port $1 did not answer $2"
}

# jget JSON EXPR: a value out of a JSON text (EXPR in Python, on j).
jget() {
	printf '%s' "$1" | "$PY" -c 'import json,sys
j = json.load(sys.stdin)
v = eval(sys.argv[1])
print(json.dumps(v) if not isinstance(v, str) else v)' "$2" ||
	    fail "cannot read $2 from: $1"
}

# expect WHAT GOT WANT
expect() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

# fetched WHAT VALUE: a value fetched from a devnode is there: neither
# empty nor (in whole or in part) null, what a failed or wrong fetch gives.
fetched() {
	case $2 in
	'' | *null*) fail "$1: fetched '$2'" ;;
	esac
}

# expect_same WHAT GOT WANT, expect_differ WHAT A B: two fetched values
# are one, or two; never two empty or null answers taken for a match.
expect_same() {
	fetched "$1" "$2"
	fetched "$1 (wanted)" "$3"
	expect "$1" "$2" "$3"
}
expect_differ() {
	fetched "$1" "$2"
	fetched "$1" "$3"
	[ "$2" != "$3" ] || fail "$1: both '$2'"
}
