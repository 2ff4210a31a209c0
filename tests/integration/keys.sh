#!/bin/sh
# Every key of chainwatch.conf(5) does what its page says, through the
# daemon's own configuration (issue 13, item 5).  Each key has a test that
# would fail if the key did nothing (if the default were used instead):
#
#   key                   where its effect is checked
#   database              every test (the store file in $T); restart
#                         warning on reload: cli_reload.sh
#   synchronous           here: read back from the daemon's connection at
#                         start and after a reload that changes it
#   store_cache           here: PRAGMA cache_size read back, at start and
#                         after a reload that changes it
#   pidfile               initd.sh, sup_setup.sh (written, locked)
#   user                  sup_setup.sh (a missing user parks the worker;
#                         root only)
#   worker                every test (the worker program of the build)
#   log_level             every test (debug lines read from $T/log)
#   worker_memory_limit   here: RLIMIT_AS in /proc/PID/limits of a worker
#   heartbeat_interval    sup_workers.sh (a stopped worker killed as hung)
#   stop_timeout          here: a worker that ignores SIGTERM is killed
#                         after stop_timeout, not after the default 5 s
#                         (sup_stop.sh: killed at all)
#   control_socket        cli_*.sh (chainwatch talks to it)
#   control_owner         here: owner of the socket (root only)
#   control_group         here: group of the socket (root only)
#   metrics_listen        metrics.sh (served there; none: no server)
#   metrics_server        metrics.sh, secrets.sh
#   secret_params         secrets.sh
#   endpoint              every test
#   rpc_url, ws_url       here: chain `silent` is the legacy pair, its
#                         endpoint named after the host
#   format                wrong_format.sh (a wrong format quarantines,
#                         the corrected one after a reload follows)
#   block_time            store_follow.sh; here through stall_factor
#   backfill_from         store_crash.sh
#   subscribe             subscribe_primary.sh (primary: one connection
#                         among three devnodes; all: one on each)
#   stall_factor          here: a silent subscription is declared dead
#                         after stall_factor x block_time
#   connect_timeout       here: a listener that never accepts gives a
#                         timeout after connect_timeout (HTTP and WS)
#   request_timeout       health_breaker.sh (black-holed: timeout)
#   max_response          here: an answer above the cap is too_large
#   breaker_consecutive,
#   breaker_min_span      health_breaker.sh, health_failover.sh
#   breaker_failure_rate,
#   breaker_window,
#   breaker_min_samples,
#   breaker_cooldown,
#   breaker_cooldown_max,
#   max_inflight,
#   hedge_after,
#   hedge_quantile        keys_breaker.sh
#   difficulty_floor      trust_lies.sh (honest: at the devnodes' floor of
#                         1, every difficulty as recomputed; the default
#                         would differ from each), test_chain.c
#                         test_retarget (a floor of 40 gives a child of
#                         30 its 40)
#
# Timed checks here are lower bounds where they can be (a timer never fires
# early), and otherwise bounded by the default the key replaces, so that
# a slow machine cannot fail them; measured times are printed.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }

devnode d1 --seed keys-e --block-time 500 --backlog 50
devnode d2 --seed keys-s --block-time 500 --backlog 50
devnode d3 --seed keys-b --block-time 500 --backlog 50
/usr/bin/python3 "$top_srcdir/tests/integration/full_listener.py" \
    "$T/hole.port" &
CW_PIDS="$CW_PIDS $!"
wait_for 20 'test -s "$T/hole.port"' || fail "no full listener"
hole=$(cat "$T/hole.port")

root=
[ "$(id -u)" = 0 ] && getent passwd nobody >/dev/null &&
    getent group nogroup >/dev/null && root=1
write_conf "$T/chainwatch.conf"
# A worker stopped with SIGSTOP must be killed by the stop timeout, not
# found hung first: heartbeats are slow here.
sed -i -e 's/^block_time = .*/block_time = 500ms/' \
    -e 's/^stop_timeout = .*/stop_timeout = 8s/' \
    -e 's/^heartbeat_interval = .*/heartbeat_interval = 30s/' \
    "$T/chainwatch.conf"
sed -i '/^\[chain/i synchronous = full\nstore_cache = 3M\nworker_memory_limit = 300M\n' \
    "$T/chainwatch.conf"
[ -n "$root" ] && sed -i '/^\[chain/i control_owner = nobody\ncontrol_group = nogroup\n' \
    "$T/chainwatch.conf"
cat >>"$T/chainwatch.conf" <<CONF
endpoint = e1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port

[chain silent]
difficulty_floor = 1
block_time = 500ms
stall_factor = 10
rpc_url = http://127.0.0.1:$d2_port
ws_url = ws://127.0.0.1:$d2_port

[chain big]
difficulty_floor = 1
block_time = 500ms
max_response = 64K
endpoint = b1 http://127.0.0.1:$d3_port ws://127.0.0.1:$d3_port

[chain hole]
difficulty_floor = 1
block_time = 500ms
connect_timeout = 1s
request_timeout = 30s
endpoint = h1 http://127.0.0.1:$hole ws://127.0.0.1:$hole
CONF
start_daemon
wait_for 30 'grep -q " sup: w/127.0.0.1: subscription live" "$T/log" && grep -q " sup: w/b1: subscription live" "$T/log"' ||
    fail "127.0.0.1 and b1 not subscribed"

# --- synchronous: what the daemon's connection reads back, then a live
# change through a reload.
grep -q ' sup: database: synchronous = full$' "$T/log" ||
    fail "synchronous = full not read back from the store at start"
ok "synchronous = full: the daemon's connection reads back full"
grep -q ' sup: database: cache_size = 3072 KB$' "$T/log" ||
    fail "store_cache = 3M not read back from the store at start"
ok "store_cache = 3M: the daemon's connection reads back 3072 KB"

# --- worker_memory_limit: RLIMIT_AS of a worker, unless the build has
# AddressSanitizer (the page says so; the worker logs it).
wpid=$(worker_pid $DAEMON_PID e1)
[ -n "$wpid" ] || fail "no worker e1"
wait_for 20 "grep -q '^Max address space' /proc/$wpid/limits" ||
    fail "no /proc/$wpid/limits"
if grep -q 'w/e1: built with sanitizers' "$T/log"; then
	echo "skip: worker_memory_limit (sanitizer build: not applied)"
else
	lim=$(awk '/^Max address space/ { print $4 }' "/proc/$wpid/limits")
	[ "$lim" = 314572800 ] ||
	    fail "worker e1 has RLIMIT_AS '$lim', want 314572800 (300M)"
	ok "worker_memory_limit = 300M: RLIMIT_AS of e1 is $lim bytes"
fi

# --- control_owner, control_group: the socket's owner and group.
if [ -n "$root" ]; then
	og=$(stat -c '%U:%G' "$T/chainwatchd.sock")
	[ "$og" = nobody:nogroup ] ||
	    fail "control socket is $og, want nobody:nogroup"
	ok "control_owner, control_group: the socket is $og"
else
	echo "skip: control_owner, control_group (not root)"
fi

# --- max_response: a 1 MiB answer (below the default 16M) is too_large
# under a 64K cap.
curl -s -m 5 -o /dev/null -d '{"enable":"oversized:1@http"}' \
    "http://127.0.0.1:$d3_cport/control" || fail "no control port"
wait_for 30 'grep -q " sup: w/b1: .* too_large in " "$T/log"' ||
    fail "no too_large outcome for b1 with max_response = 64K"
ok "max_response = 64K: $(grep -m 1 ' sup: w/b1: .* too_large in ' "$T/log" | cut -d' ' -f3-)"
curl -s -m 5 -o /dev/null -d '{"clear":true}' \
    "http://127.0.0.1:$d3_cport/control"

# --- connect_timeout: the listener never accepts; each attempt, HTTP and
# WebSocket, times out after 1 s, not the default 5 s nor request_timeout.
wait_for 30 'grep -q " sup: w/h1: .* timeout in [0-9]* ms: Failed to connect" "$T/log"' ||
    fail "no connect timeout for h1"
ms=$(sed -n 's/.* sup: w\/h1: .* timeout in \([0-9]*\) ms: Failed to connect.*/\1/p' \
    "$T/log" | head -n 1)
[ "$ms" -ge 950 ] && [ "$ms" -lt 5000 ] ||
    fail "h1's HTTP connect timed out after $ms ms, want 1000"
wait_for 30 'grep -q " sup: w/h1: subscription down: .*connect failed.* after [0-9]* ms: Timeout" "$T/log"' ||
    fail "no WebSocket connect timeout for h1"
wms=$(sed -n 's/.* sup: w\/h1: subscription down: .*connect failed.* after \([0-9]*\) ms: Timeout.*/\1/p' \
    "$T/log" | head -n 1)
[ "$wms" -ge 950 ] && [ "$wms" -lt 5000 ] ||
    fail "h1's WebSocket connect timed out after $wms ms, want 1000"
ok "connect_timeout = 1s: HTTP connect timed out in $ms ms, WebSocket in $wms ms"

# --- stall_factor: with the subscription silent while HTTP goes on, the
# legacy endpoint's (127.0.0.1) subscription is dead after 10 x 500 ms, not the default 3 x 500 ms.
curl -s -m 5 -o /dev/null -d '{"enable":"ws_silent@ws"}' \
    "http://127.0.0.1:$d2_cport/control" || fail "no control port"
wait_for 60 'grep -q " sup: w/127.0.0.1: subscription down: no head for" "$T/log"' ||
    fail "127.0.0.1's silent subscription was never declared dead"
secs=$(sed -n 's/.* sup: w\/127.0.0.1: subscription down: no head for \([0-9.]*\) s.*/\1/p' \
    "$T/log" | head -n 1)
awk "BEGIN { exit !($secs >= 4.9) }" ||
    fail "127.0.0.1's subscription was dead after $secs s, want 5 s (10 x 500ms)"
ok "stall_factor = 10: silent subscription dead after $secs s"
curl -s -m 5 -o /dev/null -d '{"clear":true}' \
    "http://127.0.0.1:$d2_cport/control"

# --- synchronous, live: a reload to normal is applied and read back, with
# no restart warning.
sed -i -e 's/^synchronous = full/synchronous = normal/' \
    -e 's/^store_cache = 3M/store_cache = 1M/' "$T/chainwatch.conf"
mark=$(($(wc -l <"$T/log") + 1))
kill -HUP $DAEMON_PID
wait_for 30 'tail -n +$mark "$T/log" | grep -q " sup: reloaded "' || fail "no reload"
tail -n +$mark "$T/log" | grep -q ' sup: synchronous changed to normal: applied to the open database' ||
    fail "reload did not apply synchronous"
tail -n +$mark "$T/log" | grep -q ' sup: database: synchronous = normal$' ||
    fail "synchronous = normal not read back after the reload"
! tail -n +$mark "$T/log" | grep -q 'takes a restart' ||
    fail "reload of synchronous warned about a restart"
ok "synchronous: a reload to normal applied it to the open database"
tail -n +$mark "$T/log" | grep -q ' sup: database: cache_size = 1024 KB$' ||
    fail "store_cache = 1M not read back after the reload"
ok "store_cache: a reload to 1M applied it to the open database"

# --- stop_timeout: e1 ignores SIGTERM (stopped); at shutdown it is killed
# 8 s after it was asked to stop: not earlier, as the default would.
wpid=$(worker_pid $DAEMON_PID e1)
kill -STOP "$wpid"
kill -TERM $DAEMON_PID
wait_for 60 "! alive $DAEMON_PID" || fail "daemon did not stop"
msec() {
	awk -F'[:. ]' '{ print ((($1 * 60) + $2) * 60 + $3) * 1000 + $4 }'
}
t0=$(grep -m 1 ' sup: w/e1: running + stop -> ' "$T/log" | msec)
t1=$(grep ' sup: w/e1: pid .* killed by signal 9' "$T/log" | tail -n 1 |
    msec)
[ -n "$t0" ] && [ -n "$t1" ] || fail "no stop and kill of e1 in the log"
el=$((t1 - t0))
[ $el -lt 0 ] && el=$((el + 86400000))
[ $el -ge 7900 ] || fail "e1 was killed $el ms after SIGTERM, want 8000"
ok "stop_timeout = 8s: e1, stopped, was killed $el ms after SIGTERM"
