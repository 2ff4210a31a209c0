#!/bin/sh
# The real worker fails its setup when the configured user does not exist
# (only root drops privileges, so this needs root), exits 78 and is parked.
# The machine is left as it was: no user is created or deleted.  The user
# that vanishes lives in a copy of /etc/passwd in $T, bind-mounted over
# /etc/passwd in a mount namespace of the daemon's own (unshare -m), and
# is taken out of that copy.  Every foreground run of chainwatchd is under
# timeout: one that wrongly starts fails the test instead of hanging it.
. "$top_srcdir/tests/integration/lib.sh"

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (only root drops privileges)"; exit 77; }
command -v timeout >/dev/null || { echo "SKIP: no timeout (coreutils)"; exit 77; }
TF=${CW_WAIT_FACTOR:-1}
BOUND=$((30 * TF))	# s for a run of chainwatchd that must end by itself

# run_bounded OUT ARGS...: chainwatchd ARGS, output in OUT, its status in
# rc; a run still going after BOUND s fails the test.
run_bounded() {
	_out=$1
	shift
	timeout -k 5 "$BOUND" "$CHAINWATCHD" "$@" >"$_out" 2>&1
	rc=$?
	[ $rc -ne 124 ] && [ $rc -ne 137 ] ||
	    fail "chainwatchd $* still running after $BOUND s (it started): $(tail -n 5 "$_out")"
}

MISSING=cw-no-such-user
! getent passwd "$MISSING" >/dev/null ||
    { echo "SKIP: user $MISSING exists on this machine"; exit 77; }
write_conf "$T/chainwatch.conf" a1
sed -i "s/^user = .*/user = $MISSING/" "$T/chainwatch.conf"
# -n says so before anything runs.
run_bounded "$T/check.out" -n -f "$T/chainwatch.conf"
[ $rc -ne 0 ] || fail "-n accepted a missing user"
grep -q "chainwatch.conf:4: user $MISSING does not exist" "$T/check.out" ||
    fail "-n did not name the user: $(cat "$T/check.out")"
ok "-n reports the missing user"

# The daemon itself refuses to start with it, as -n does.
run_bounded "$T/start.out" -d -f "$T/chainwatch.conf"
[ $rc -eq 1 ] || fail "daemon with a missing user exited $rc, want 1: $(cat "$T/start.out")"
grep -q "user $MISSING does not exist" "$T/start.out" ||
    fail "the daemon did not name the user: $(cat "$T/start.out")"
ok "the daemon refuses a missing user (exit 1)"

# A user deleted after the daemon started: the worker fails its setup.
# The user is nobody's uid and gid under another name, in the daemon's
# private /etc/passwd only.
GONE=cw-gone-user
! getent passwd "$GONE" >/dev/null ||
    { echo "SKIP: user $GONE exists on this machine"; exit 77; }
nobody=$(getent passwd nobody) ||
    { echo "SKIP: no user nobody to copy"; exit 77; }
cp /etc/passwd "$T/passwd"
echo "$GONE:x:$(echo "$nobody" | cut -d: -f3-4)::/nonexistent:/usr/sbin/nologin" \
    >>"$T/passwd"
chmod 0644 "$T/passwd"
unshare -m --propagation private sh -c \
    'mount -n --bind "$1" /etc/passwd && getent passwd "$2"' sh "$T/passwd" "$GONE" \
    >"$T/ns.out" 2>&1 ||
    { echo "SKIP: cannot bind-mount a private /etc/passwd (unshare -m): $(cat "$T/ns.out")"; exit 77; }
getent passwd "$GONE" >/dev/null && fail "the private /etc/passwd leaked out"
cat >"$T/chainwatchd-ns" <<EOF
#!/bin/sh
# chainwatchd in a mount namespace where /etc/passwd is $T/passwd.
exec unshare -m --propagation private sh -c \\
    'mount -n --bind "\$0" /etc/passwd && exec "\$@"' "$T/passwd" "$CHAINWATCHD" "\$@"
EOF
chmod +x "$T/chainwatchd-ns"
CHAINWATCHD=$T/chainwatchd-ns
sed -i "s/^user = .*/user = $GONE/" "$T/chainwatch.conf"
start_daemon
wait_for 10 'grep -q "w/a1: worker pid .* ready" "$T/log"' || fail "worker did not start"
ok "the daemon starts as $GONE, known only in its own /etc/passwd"
# Out of the copy, in place: the bind mount is of that very file.
grep -v "^$GONE:" "$T/passwd" >"$T/passwd.new"
cat "$T/passwd.new" >"$T/passwd"
kill -9 "$(worker_pid $DAEMON_PID a1)"
wait_for 10 'grep -q "w/a1: user $GONE does not exist" "$T/log"' || fail "worker did not say why"
wait_for 10 'grep -q "w/a1: worker failed its setup; not restarting it until the configuration changes" "$T/log"' ||
    fail "worker not parked"
ok "a vanished user parks the worker"
kill -TERM $DAEMON_PID
wait_for 10 'dead $DAEMON_PID' || fail "daemon did not stop"
