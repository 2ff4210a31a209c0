#!/bin/sh
# The LSB init script, installed into a staging root (make install
# DESTDIR=, never into the machine, whatever ./configure was given), with
# the paths it names moved into that root: it starts the daemon, reloads
# it, reports its status and stops it.  (Paths compiled into the programs
# keep the configured ones, so the test's configuration names the worker
# and the pidfile.)
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/install_lib.sh"

R=$T/root
cw_stage "$R"
P=$R$cw_prefix
[ -x "$R$cw_sysconfdir/init.d/chainwatch" ] || fail "no init script installed"
[ -f "$R$cw_sysconfdir/chainwatch/chainwatch.conf" ] || fail "no configuration installed"
UNIT=$P/lib/systemd/system/chainwatch.service
[ -f "$UNIT" ] || fail "no systemd unit installed"
grep -q "^ExecStart=$cw_sbindir/chainwatchd\$" "$UNIT" ||
    fail "systemd unit does not name the installed daemon: $(grep '^ExecStart=' "$UNIT")"
grep -q '^ExecReload=kill -HUP \$MAINPID$' "$UNIT" ||
    fail "systemd unit does not reload with SIGHUP"
grep -q "^DAEMON=$cw_sbindir/chainwatchd\$" "$R$cw_sysconfdir/init.d/chainwatch" ||
    fail "the init script does not name the installed daemon"
INIT=$T/chainwatch.init
cw_relocate "$R$cw_sysconfdir/init.d/chainwatch" "$R" >"$INIT"
chmod +x "$INIT"
grep -q "^DAEMON=$R$cw_sbindir/chainwatchd\$" "$INIT" ||
    fail "the init script's paths were not moved into $R"
CONF=$R$cw_sysconfdir/chainwatch/chainwatch.conf
RUN=$R$cw_runstatedir
mkdir -p "$RUN" "$R$cw_localstatedir/lib/chainwatch"
ok "installed under $R (prefix $cw_prefix, sysconfdir $cw_sysconfdir)"

conf() {
	cat >"$CONF" <<CONF
[daemon]
database = $R$cw_localstatedir/lib/chainwatch/chainwatch.db
pidfile = $RUN/chainwatchd.pid
worker = $R$cw_libexecdir/chainwatch-worker
user = $(cw_user)
heartbeat_interval = 500ms
control_socket = $RUN/chainwatchd.sock
metrics_listen = none

[chain devchain]
difficulty_floor = 1
CONF
	for _n in "$@"; do
		# One port per name, whichever configuration names it.
		[ -s "$T/port.$_n" ] || closed_port >"$T/port.$_n"
		_port=$(cat "$T/port.$_n")
		echo "endpoint = $_n http://127.0.0.1:$_port ws://127.0.0.1:$_port" \
		    >>"$CONF"
	done
}

conf e1
"$INIT" status >/dev/null
[ $? -eq 3 ] || fail "status of a stopped daemon is not 3"
"$INIT" start >"$T/out" 2>&1 || { cat "$T/out"; fail "start failed"; }
pidfile=$RUN/chainwatchd.pid
[ -s "$pidfile" ] || fail "no pidfile at $pidfile"
pid=$(cat "$pidfile")
CW_PIDS="$CW_PIDS $pid"
alive "$pid" || fail "daemon not running after start"
"$INIT" status >"$T/out" 2>&1 || fail "status of a running daemon failed"
grep -q "chainwatchd is running (pid $pid)" "$T/out" || fail "status: $(cat "$T/out")"
wait_for 5 'test "$(worker_count $pid)" -eq 1' || fail "no worker"
ok "start, status: running (pid $pid)"

conf e1 e2
"$INIT" reload >"$T/out" 2>&1 || { cat "$T/out"; fail "reload failed"; }
wait_for 5 'test "$(worker_count $pid)" -eq 2' || fail "reload did not add the endpoint"
e1=$(worker_pid $pid e1)
ok "reload added an endpoint"

echo "bogus line" >>"$CONF"
"$INIT" reload >"$T/out" 2>&1 && fail "reload accepted a broken file"
grep -q "chainwatch.conf:.*: expected KEY = VALUE" "$T/out" || fail "reload did not say why: $(cat "$T/out")"
[ "$(worker_pid $pid e1)" = "$e1" ] || fail "a refused reload changed a worker"
"$INIT" status >/dev/null || fail "daemon gone after a refused reload"
ok "reload of a broken file refused, daemon unchanged"

# This daemon's own workers, not any other chainwatch's on the machine.
workers=$(pgrep -P "$pid")
[ -n "$workers" ] || fail "no worker of pid $pid before stop"
"$INIT" stop >"$T/out" 2>&1 || { cat "$T/out"; fail "stop failed"; }
dead "$pid" || fail "daemon still running after stop"
for w in $workers; do
	kill -0 "$w" 2>/dev/null && fail "worker $w left after stop"
done
"$INIT" status >/dev/null
[ $? -eq 3 ] || fail "status after stop is not 3"
ok "stop"

# A start that cannot work reports the daemon's error and status.
conf e1
sed -i "s|^database = .*|database = $T/missing-dir/cw.db|" "$CONF"
"$INIT" start >"$T/out" 2>&1
rc=$?
# A directory it needs is missing: the configuration is invalid (1),
# and the line that names it is given.
[ $rc -eq 1 ] || fail "start with a database in a missing directory returned $rc, want 1: $(cat "$T/out")"
grep -q "chainwatch.conf:[0-9]*: database .*missing-dir/cw.db" "$T/out" ||
    fail "start did not say why, with the line: $(cat "$T/out")"
"$INIT" status >/dev/null
[ $? -eq 3 ] || fail "a failed start left something running"
ok "failed start reported with status $rc"
