#!/bin/sh
# What the worker's seccomp filter forbids, for real: sandbox_probe
# applies the worker's sandbox and tries each; each is denied or killed,
# and reported with the supervisor's line; run as a daemon's worker, the
# probe calls execve and chainwatchd names the call.  (Reading /etc/passwd,
# which Landlock forbids, is sandbox_landlock.sh's.)  The sanitizer build
# leaves the filter out: there this cannot run.
. "$top_srcdir/tests/integration/sandbox_lib.sh"
[ "$CW_SANITIZED" != yes ] ||
    { echo "SKIP: the sanitizer build runs its workers without the filter"; exit 77; }

sb_setup
# A control socket to aim at: the daemon's, while it runs.
start_daemon
wait_for 20 'test -S "$T/chainwatchd.sock"' || fail "no control socket"
sb_probe "$T/chainwatchd.sock"
expect_line 'read: allowed'
expect_line 'create: worker killed by its sandbox: syscall [0-9]* (openat)'
expect_line 'exec: worker killed by its sandbox: syscall [0-9]* (execve)'
expect_line 'fork: worker killed by its sandbox: syscall [0-9]* (clone)'
expect_line 'connect: denied (Permission denied)'
[ ! -e "$T/created" ] || fail "the sandboxed probe created a file"
grep -q "exec: killed by its sandbox: syscall [0-9]* (execve)" \
    "$T/probe.err" || fail "the trap wrote no line to stderr"
ok "create, exec, fork, connect: each denied or killed and reported"
sb_stop

# The probe as a daemon's worker: it calls execve under the sandbox, and
# chainwatchd names the call.
sed -i "s|^worker = .*|worker = $PROBE|" "$T/chainwatch.conf"
start_daemon
wait_for 20 'grep -q "w/d1: worker killed by its sandbox: syscall [0-9]* (execve)" "$T/log"' ||
    fail "chainwatchd did not name the call its worker's sandbox stopped"
grep "w/d1: worker killed by its sandbox" "$T/log" | head -n 1
ok "chainwatchd logs the call that the sandbox stopped"
sb_stop
