#!/bin/sh
# By name: libcurl resolves in a thread (AsynchDNS), through glibc's NSS
# and /etc/hosts, inside the sandbox, and the worker follows the devnode
# at that name.  Not "localhost", which curl resolves itself without NSS:
# a name of the test's own, 127.0.0.1 in a private /etc/hosts (a copy,
# bind-mounted over it in the daemon's mount namespace; the machine's is
# untouched).  Without root or a mount namespace, this cannot run.
. "$top_srcdir/tests/integration/sandbox_lib.sh"
name=cw-sandbox-test-name
! getent hosts "$name" >/dev/null 2>&1 ||
    { echo "SKIP: $name is already a name on this machine"; exit 77; }
cp /etc/hosts "$T/hosts"
echo "127.0.0.1 $name" >>"$T/hosts"
chmod 0644 "$T/hosts"
sb_ns_wrap "$T/hosts" /etc/hosts
# The name is this namespace's only; resolved there through NSS.
unshare -m --propagation private sh -c \
    'mount -n --bind "$1" /etc/hosts && getent ahostsv4 "$2"' sh "$T/hosts" "$name" \
    >"$T/getent.out" 2>&1
grep -q '^127\.0\.0\.1 ' "$T/getent.out" ||
    { echo "SKIP: NSS does not read /etc/hosts for $name here: $(cat "$T/getent.out")"; exit 77; }
! getent hosts "$name" >/dev/null 2>&1 || fail "the private /etc/hosts leaked out"

sb_setup
sb_endpoint "http://$name:$d1_port" "ws://$name:$d1_port"
start_daemon
sb_worker
wait_for 30 'test $(grep -c "w/d1: new head" "$T/log") -gt 3' ||
    fail "d1 follows no heads by name ($name)"
! grep -q "killed by its sandbox" "$T/log" ||
    fail "a worker hit its sandbox resolving $name"
[ "$(worker_pid $DAEMON_PID d1)" = "$wp" ] || fail "worker d1 was replaced"
grep -q "w/d1: serving endpoint d1 .*http://$name:$d1_port" "$T/log" ||
    fail "the worker was not given the name: $(grep 'serving endpoint' "$T/log")"
ok "by name ($name): the sandboxed worker resolves it through NSS and follows heads"
sb_stop
