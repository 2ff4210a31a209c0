#!/bin/sh
# SIGHUP after adding one endpoint, removing one, changing one and leaving
# one: exactly the expected pids change.  A broken file changes nothing
# and the log says why.
. "$top_srcdir/tests/integration/lib.sh"

write_conf "$T/chainwatch.conf" keep remove change
start_daemon
wait_for 5 'test "$(worker_count $DAEMON_PID)" -eq 3' || fail "no workers"
wait_for 5 'grep -q "w/change: worker pid .* ready" "$T/log"' || fail "not ready"
keep=$(worker_pid $DAEMON_PID keep)
remove=$(worker_pid $DAEMON_PID remove)
change=$(worker_pid $DAEMON_PID change)

# "keep" as it was, "change" on another port, "add" new.
write_conf "$T/add.conf" add
{
	grep -v '^endpoint = ' "$T/add.conf"
	grep '^endpoint = keep ' "$T/chainwatch.conf"
	grep '^endpoint = change ' "$T/chainwatch.conf" |
	    sed 's|127.0.0.1:[0-9]*|127.0.0.1:'"$(closed_port)"'|g'
	grep '^endpoint = add ' "$T/add.conf"
} >"$T/new.conf"
cp "$T/new.conf" "$T/chainwatch.conf"
kill -HUP $DAEMON_PID
wait_for 5 'grep -q "reloaded .*: 1 endpoint added, 1 changed, 1 removed, 1 kept" "$T/log"' ||
    fail "no reload summary"
wait_for 5 'test -n "$(worker_pid $DAEMON_PID add)"' || fail "added endpoint has no worker"
wait_for 5 'dead "$remove"' || fail "removed endpoint's worker $remove still runs"
wait_for 5 'dead "$change"' || fail "changed endpoint's old worker $change still runs"
wait_for 5 'test -n "$(worker_pid $DAEMON_PID change)"' || fail "changed endpoint not restarted"
[ "$(worker_pid $DAEMON_PID keep)" = "$keep" ] || fail "unchanged endpoint was restarted"
[ -z "$(worker_pid $DAEMON_PID remove)" ] || fail "removed endpoint came back"
wait_for 5 'test "$(worker_count $DAEMON_PID)" -eq 3' || fail "expected 3 workers"
ok "reload: keep $keep kept, remove stopped, change restarted, add started"

add=$(worker_pid $DAEMON_PID add)
change2=$(worker_pid $DAEMON_PID change)
cp "$T/chainwatch.conf" "$T/good.conf"
printf '[chain broken]\nblock_time = never\n' >>"$T/chainwatch.conf"
kill -HUP $DAEMON_PID
wait_for 5 'grep -q "not reloading: 2 errors; the running configuration stays" "$T/log"' ||
    fail "broken file not refused"
line=$(grep -n '^block_time = never$' "$T/chainwatch.conf" | cut -d: -f1)
grep -q "chainwatch.conf:$line: block_time: 'never' is not a duration" "$T/log" ||
    fail "the error is not logged with its line"
sleep 1
[ "$(worker_pid $DAEMON_PID keep)" = "$keep" ] || fail "keep changed on a bad reload"
[ "$(worker_pid $DAEMON_PID add)" = "$add" ] || fail "add changed on a bad reload"
[ "$(worker_pid $DAEMON_PID change)" = "$change2" ] || fail "change changed on a bad reload"
ok "broken file: nothing changed"

# The same file again: everything is kept.
cp "$T/good.conf" "$T/chainwatch.conf"
kill -HUP $DAEMON_PID
wait_for 5 'grep -q "reloaded .*: 0 endpoints added, 0 changed, 0 removed, 3 kept" "$T/log"' ||
    fail "no-op reload not logged"
[ "$(worker_pid $DAEMON_PID keep)" = "$keep" ] || fail "keep changed on a no-op reload"
kill -TERM $DAEMON_PID
wait_for 10 'dead $DAEMON_PID' || fail "daemon did not stop"
