#!/bin/sh
# The sandbox, for real.  A daemon's worker following a devnode runs with
# its seccomp filter (Seccomp: 2) and no new privileges, and keeps
# following heads; the metrics server is not root; the store and its WAL
# are not readable by others; a world-readable store is made 0640; the
# descriptor limits are raised, or said to be short.  Under the
# sanitizers the filter and Landlock are left out, and the worker must say
# so instead of having Seccomp 2.  The rest of the sandbox is tested
# apart, each skipped (77) with its reason where it cannot run:
# sandbox_denials.sh (what the filter forbids: not under the sanitizers),
# sandbox_landlock.sh (what Landlock forbids: not on a kernel without it),
# sandbox_tls.sh (the system's CA certificates read inside the sandbox)
# and sandbox_names.sh (a name resolved through NSS inside it).
. "$top_srcdir/tests/integration/sandbox_lib.sh"

# A value of the user's is kept as it is (tests/unit/test_mem.c).
unset GLIBC_TUNABLES
sb_setup
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
	# Built with the sanitizers, the worker runs without its filter and
	# Landlock, and says so.
	grep -q "w/d1: built with sanitizers: sandbox relaxed" "$T/log" ||
	    fail "the worker did not say its sandbox is relaxed"
	ok "worker: sanitizer build, says its sandbox is relaxed"
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

# Both are given an allocator without glibc's per-thread cache, which
# kept a worker's heap 200-250 KB over its usual for minutes after a
# burst (chainwatch-worker(8)).  Their environ is readable by root only
# (they are not dumpable).
if [ "$(id -u)" = 0 ]; then
	for p in "$wp" "$mp"; do
		v=$(tr '\0' '\n' <"/proc/$p/environ" | grep '^GLIBC_TUNABLES=')
		[ "$v" = GLIBC_TUNABLES=glibc.malloc.tcache_count=0 ] ||
		    fail "$p: '$v', want GLIBC_TUNABLES=glibc.malloc.tcache_count=0"
	done
	ok "worker and metrics server: GLIBC_TUNABLES=glibc.malloc.tcache_count=0"
else
	ok "not root: the children's GLIBC_TUNABLES not read"
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
sb_stop

# An older world-readable store is made 0640 at start.
chmod 0644 "$T/chainwatch.db"
start_daemon
wait_for 20 'grep -q "was readable by others, now mode 0640" "$T/log"' ||
    fail "world-readable store not fixed"
[ "$(stat -c %a "$T/chainwatch.db")" = 640 ] || fail "store not 0640"
ok "a world-readable store is made 0640"
sb_stop

# Descriptors: a soft limit below what the endpoints need is raised
# (twice the endpoints plus 64, and 1024 more, within the hard limit);
# a hard limit below it is said in the log.
ulimit -Sn 200
start_daemon
wait_for 20 'test -n "$(worker_pid $DAEMON_PID d1)"' || fail "no worker d1"
soft=$(awk '/^Max open files/ { print $4 }' "/proc/$DAEMON_PID/limits")
hard=$(awk '/^Max open files/ { print $5 }' "/proc/$DAEMON_PID/limits")
want=1154
[ "$hard" != unlimited ] && [ "$hard" -lt $want ] && want=$hard
[ "$soft" = "$want" ] || fail "chainwatchd's soft RLIMIT_NOFILE is $soft, not $want (hard $hard)"
sb_stop
ulimit -n 60
start_daemon
wait_for 20 'grep -q "1 endpoint needs about 65 descriptors, and the limit is 60" "$T/log"' ||
    fail "no word of a hard limit below what the endpoints need"
ok "descriptors: a soft limit of 200 raised to $soft; a hard limit of 60 said in the log"
