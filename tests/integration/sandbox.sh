#!/bin/sh
# The sandbox, for real.  A daemon's worker following a devnode runs with
# its seccomp filter (Seccomp: 2) and no new privileges, and keeps
# following heads; the metrics server is not root; the store and its WAL
# are not readable by others.  sandbox_probe applies the worker's sandbox
# and tries what it forbids: each is denied or killed, and reported with
# the supervisor's line.  Under the sanitizers the filter and Landlock are
# left out (the worker says so), and so are their checks.
. "$top_srcdir/tests/integration/lib.sh"
PROBE=$top_builddir/tests/integration/sandbox_probe
# The worker's sandbox lets it read what these name: not here, so that
# only its own list of paths is tested.
unset SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }

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
start_daemon
wait_for 20 'test -n "$(worker_pid $DAEMON_PID d1)"' || fail "no worker d1"
wp=$(worker_pid $DAEMON_PID d1)
wait_for 30 'grep -q "w/d1: new head" "$T/log"' || fail "d1 follows no heads"
heads=$(grep -c "w/d1: new head" "$T/log")
wait_for 30 "test \$(grep -c 'w/d1: new head' \"\$T/log\") -gt $((heads + 3))" ||
    fail "d1 stopped following heads"
[ "$(worker_pid $DAEMON_PID d1)" = "$wp" ] || fail "worker d1 was replaced"
! grep -q "killed by its sandbox" "$T/log" || fail "a worker hit its sandbox"
ok "worker $wp follows heads under its sandbox"

status=/proc/$wp/status
grep -q '^NoNewPrivs:[[:space:]]*1$' "$status" ||
    fail "worker: $(grep NoNewPrivs "$status")"
ok "worker: NoNewPrivs 1"
nofile=$(awk '/^Max open files/ { print $4 }' "/proc/$wp/limits")
[ "$nofile" = 265 ] || fail "worker: RLIMIT_NOFILE $nofile, want 265 (64 + max_inflight 200 + 1)"
core=$(awk '/^Max core file size/ { print $5 }' "/proc/$wp/limits")
[ "$core" = 0 ] || fail "worker: RLIMIT_CORE $core, want 0"
ok "worker: RLIMIT_NOFILE 265 (64 + max_inflight 200 + 1), RLIMIT_CORE 0"
if [ "$CW_SANITIZED" = yes ]; then
	echo "sanitizer build: Seccomp and the probe's checks skipped (the" \
	    "worker runs without its filter and Landlock)"
	grep -q "w/d1: built with sanitizers: sandbox relaxed" "$T/log" ||
	    fail "the worker did not say its sandbox is relaxed"
else
	grep -q '^Seccomp:[[:space:]]*2$' "$status" ||
	    fail "worker: $(grep '^Seccomp:' "$status")"
	ok "worker: Seccomp 2"
fi

# The metrics server: never root.
wait_for 20 'grep -q "metrics: listening on" "$T/log"' ||
    fail "no metrics server"
mp=$(pgrep -P "$DAEMON_PID" -f '^[^ ]*chainwatch-metrics ' | head -n 1)
[ -n "$mp" ] || fail "metrics process not found"
muid=$(awk '/^Uid:/ { print $3 }' "/proc/$mp/status")
[ "$muid" != 0 ] || fail "chainwatch-metrics $mp runs as uid 0"
grep -q '^NoNewPrivs:[[:space:]]*1$' "/proc/$mp/status" ||
    fail "metrics: no NoNewPrivs"
ok "metrics server $mp runs as uid $muid, NoNewPrivs 1"
if [ "$CW_SANITIZED" != yes ]; then
	grep -q '^Seccomp:[[:space:]]*2$' "/proc/$mp/status" ||
	    fail "metrics: $(grep '^Seccomp:' "/proc/$mp/status")"
	ok "metrics server: Seccomp 2"
fi

# The store and its WAL: nothing for others.
for f in "$T/chainwatch.db" "$T/chainwatch.db-wal" "$T/chainwatch.db-shm"; do
	[ -e "$f" ] || continue
	mode=$(stat -c %a "$f")
	case $mode in
	*0) ;;
	*) fail "$f is mode $mode: readable by others" ;;
	esac
	ok "$(basename "$f"): mode $mode"
done
kill -TERM "$DAEMON_PID"
wait_for 20 'dead $DAEMON_PID' || fail "daemon did not stop"

# Over TLS: at its first handshake, inside its sandbox, the worker's
# OpenSSL reads the system's CA certificates and checks the server's
# against them.  The proxy's is self-signed, so the check fails with
# "self-signed certificate", which proves the CA file was read: without
# it, curl says "error setting certificate file" (and a forbidden call
# would end the worker).
ca=/etc/ssl/certs/ca-certificates.crt
if [ -s "$ca" ] && command -v openssl >/dev/null 2>&1 &&
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
    -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 2 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    >"$T/openssl.out" 2>&1; then
	python3 "$top_srcdir/tests/integration/tls_proxy.py" "$T/tls.port" \
	    "$T/cert.pem" "$T/key.pem" "$d1_port" 2>"$T/tls.log" &
	CW_PIDS="$CW_PIDS $!"
	wait_for 20 'test -s "$T/tls.port"' || fail "TLS proxy did not start"
	tp=$(cat "$T/tls.port")
	sed -i "s|^endpoint = d1 .*|endpoint = d1 https://127.0.0.1:$tp wss://127.0.0.1:$tp|" \
	    "$T/chainwatch.conf"
	: >"$T/log"
	start_daemon
	wait_for 20 'test -n "$(worker_pid $DAEMON_PID d1)"' || fail "no worker d1"
	wp=$(worker_pid $DAEMON_PID d1)
	wait_for 30 'grep -q "w/d1: poll transport .*SSL certificate problem: self-signed certificate" "$T/log"' ||
	    fail "no certificate check over https"
	wait_for 30 'grep -q "w/d1: .*ws closed (1006, connect failed: SSL certificate problem: self-signed certificate)" "$T/log"' ||
	    fail "no certificate check over wss"
	! grep -q -i "error setting certificate\|killed by its sandbox" "$T/log" ||
	    fail "the sandbox kept the worker from its CA certificates"
	[ "$(worker_pid $DAEMON_PID d1)" = "$wp" ] || fail "worker d1 was replaced"
	ok "over TLS (https, wss) the sandboxed worker reads $ca and checks the server"
	kill -TERM "$DAEMON_PID"
	wait_for 20 'dead $DAEMON_PID' || fail "daemon did not stop"
	sed -i "s|^endpoint = d1 .*|endpoint = d1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port|" \
	    "$T/chainwatch.conf"
else
	echo "note: no openssl or no $ca, TLS not tested"
fi

# By name: libcurl resolves in a thread (AsynchDNS), through glibc's
# NSS and /etc/hosts, inside the sandbox.  Only where this host's name
# is 127.0.0.1 (curl resolves "localhost" itself).
name=$(hostname 2>/dev/null)
if [ -n "$name" ] && [ "$name" != localhost ] &&
    getent ahostsv4 "$name" 2>/dev/null | grep -q '^127\.0\.0\.1 '; then
	sed -i "s|^endpoint = d1 .*|endpoint = d1 http://$name:$d1_port ws://$name:$d1_port|" \
	    "$T/chainwatch.conf"
	: >"$T/log"
	start_daemon
	wait_for 20 'test -n "$(worker_pid $DAEMON_PID d1)"' || fail "no worker d1"
	wp=$(worker_pid $DAEMON_PID d1)
	wait_for 30 'test $(grep -c "w/d1: new head" "$T/log") -gt 3' ||
	    fail "d1 follows no heads by name ($name)"
	! grep -q "killed by its sandbox" "$T/log" ||
	    fail "a worker hit its sandbox resolving $name"
	[ "$(worker_pid $DAEMON_PID d1)" = "$wp" ] || fail "worker d1 was replaced"
	ok "by name ($name): the sandboxed worker resolves it and follows heads"
	kill -TERM "$DAEMON_PID"
	wait_for 20 'dead $DAEMON_PID' || fail "daemon did not stop"
	sed -i "s|^endpoint = d1 .*|endpoint = d1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port|" \
	    "$T/chainwatch.conf"
else
	echo "note: this host's name is not 127.0.0.1: resolution not tested"
fi

[ "$CW_SANITIZED" = yes ] && exit 0

# An older world-readable store is made 0640 at start.
chmod 0644 "$T/chainwatch.db"
start_daemon
wait_for 20 'grep -q "was readable by others, now mode 0640" "$T/log"' ||
    fail "world-readable store not fixed"
[ "$(stat -c %a "$T/chainwatch.db")" = 640 ] || fail "store not 0640"
ok "a world-readable store is made 0640"
kill -TERM "$DAEMON_PID"
wait_for 20 'dead $DAEMON_PID' || fail "daemon did not stop"

# A control socket to aim at: the daemon's, while it runs.
start_daemon
wait_for 20 'test -S "$T/chainwatchd.sock"' || fail "no control socket"
"$PROBE" "$T" "$T/chainwatchd.sock" >"$T/probe" 2>"$T/probe.err" ||
    fail "sandbox_probe: $(cat "$T/probe" "$T/probe.err")"
cat "$T/probe"
expect_line() {
	grep -q -x "$1" "$T/probe" || fail "want '$1' from sandbox_probe"
}
expect_line 'read: allowed'
if grep -q "no Landlock" "$T/probe.err"; then
	echo "this kernel has no Landlock: reading /etc/passwd not checked"
else
	expect_line 'open: denied (Permission denied)'
fi
expect_line 'create: worker killed by its sandbox: syscall [0-9]* (openat)'
expect_line 'exec: worker killed by its sandbox: syscall [0-9]* (execve)'
expect_line 'fork: worker killed by its sandbox: syscall [0-9]* (clone)'
expect_line 'connect: denied (Permission denied)'
[ ! -e "$T/created" ] || fail "the sandboxed probe created a file"
grep -q "exec: killed by its sandbox: syscall [0-9]* (execve)" \
    "$T/probe.err" || fail "the trap wrote no line to stderr"
ok "open, create, exec, fork, connect: each denied or killed and reported"

kill -TERM "$DAEMON_PID"
wait_for 20 'dead $DAEMON_PID' || fail "daemon did not stop"

# The probe as a daemon's worker: it calls execve under the sandbox, and
# chainwatchd names the call.
sed -i "s|^worker = .*|worker = $PROBE|" "$T/chainwatch.conf"
start_daemon
wait_for 20 'grep -q "w/d1: worker killed by its sandbox: syscall [0-9]* (execve)" "$T/log"' ||
    fail "chainwatchd did not name the call its worker's sandbox stopped"
grep "w/d1: worker killed by its sandbox" "$T/log" | head -n 1
ok "chainwatchd logs the call that the sandbox stopped"
kill -TERM "$DAEMON_PID"
wait_for 20 'dead $DAEMON_PID' || fail "daemon did not stop"

# Descriptors: a soft limit below what the endpoints need is raised
# (twice the endpoints plus 64, and 1024 more, within the hard limit);
# a hard limit below it is said in the log.
sed -i "s|^worker = .*|worker = $WORKER|" "$T/chainwatch.conf"
ulimit -Sn 200
start_daemon
wait_for 20 'test -n "$(worker_pid $DAEMON_PID d1)"' || fail "no worker d1"
soft=$(awk '/^Max open files/ { print $4 }' "/proc/$DAEMON_PID/limits")
hard=$(awk '/^Max open files/ { print $5 }' "/proc/$DAEMON_PID/limits")
want=1154
[ "$hard" != unlimited ] && [ "$hard" -lt $want ] && want=$hard
[ "$soft" = "$want" ] || fail "chainwatchd's soft RLIMIT_NOFILE is $soft, not $want (hard $hard)"
kill -TERM "$DAEMON_PID"
wait_for 20 'dead $DAEMON_PID' || fail "daemon did not stop"
ulimit -n 60
start_daemon
wait_for 20 'grep -q "1 endpoint needs about 65 descriptors, and the limit is 60" "$T/log"' ||
    fail "no word of a hard limit below what the endpoints need"
ok "descriptors: a soft limit of 200 raised to $soft; a hard limit of 60 said in the log"
