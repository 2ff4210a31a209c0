#!/bin/sh
# The real worker fails its setup when the configured user does not exist
# (only root drops privileges, so this needs root), exits 78 and is parked.
. "$top_srcdir/tests/integration/lib.sh"

[ "$(id -u)" = 0 ] || { echo "needs root"; exit 77; }
write_conf "$T/chainwatch.conf" a1
sed -i 's/^user = .*/user = cw-no-such-user/' "$T/chainwatch.conf"
# -n says so before anything runs.
"$CHAINWATCHD" -n -f "$T/chainwatch.conf" >"$T/check.out" 2>&1 && fail "-n accepted a missing user"
grep -q "chainwatch.conf:4: user cw-no-such-user does not exist" "$T/check.out" ||
    fail "-n did not name the user: $(cat "$T/check.out")"
ok "-n reports the missing user"

# The daemon itself refuses to start with it, as -n does.
"$CHAINWATCHD" -d -f "$T/chainwatch.conf" >"$T/start.out" 2>&1
[ $? -eq 1 ] || fail "daemon started with a missing user"

# A user deleted after the daemon started: the worker fails its setup.
useradd_ok=0
if command -v useradd >/dev/null && useradd -r -M -s /usr/sbin/nologin cw-gone-user 2>/dev/null; then
	useradd_ok=1
fi
[ $useradd_ok -eq 1 ] || { echo "cannot create a user"; exit 77; }
CW_CLEANUP="userdel -f cw-gone-user 2>/dev/null"
sed -i 's/^user = .*/user = cw-gone-user/' "$T/chainwatch.conf"
userdel cw-gone-user 2>/dev/null
useradd -r -M -s /usr/sbin/nologin cw-gone-user
start_daemon
wait_for 5 'grep -q "w/a1: worker pid .* ready" "$T/log"' || { userdel -f cw-gone-user; fail "worker did not start"; }
userdel -f cw-gone-user 2>/dev/null
kill -9 "$(worker_pid $DAEMON_PID a1)"
wait_for 5 'grep -q "w/a1: user cw-gone-user does not exist" "$T/log"' || fail "worker did not say why"
wait_for 5 'grep -q "w/a1: worker failed its setup; not restarting it until the configuration changes" "$T/log"' ||
    fail "worker not parked"
ok "a vanished user parks the worker"
kill -TERM $DAEMON_PID
wait_for 10 'dead $DAEMON_PID' || fail "daemon did not stop"
