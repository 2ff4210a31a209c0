#!/bin/sh
# A preferred endpoint that prunes old state: its "state already
# discarded" answers are answers, not failures, over the whole run (the
# daemon's counters of d1's requests hold no failure, and its breaker
# never left closed: no open, half-open or closed event of d1 in the
# store); its pruning bound is recorded and the old reads go to the
# archive endpoint at once, so every difficulty is read.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }

devnode d1 --seed pruned --block-time 100 --backlog 2000 --state-pruning 200
devnode d2 --seed pruned --block-time 100 --backlog 2000
write_conf "$T/chainwatch.conf"
sed -i 's/^block_time = .*/block_time = 100ms/' "$T/chainwatch.conf"
cat >>"$T/chainwatch.conf" <<CONF
endpoint = d1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port
endpoint = d2 http://127.0.0.1:$d2_port ws://127.0.0.1:$d2_port
CONF
start_daemon
wait_for 90 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(sql "SELECT best_number FROM chains")" -gt 2050' ||
    fail "not caught up: $(sql 'SELECT * FROM queue_summary')"
bound=$(sql "SELECT pruning_bound FROM endpoints WHERE name = 'd1'")
[ -n "$bound" ] && [ "$bound" -gt 1000 ] || fail "d1's pruning bound is '$bound'"
grep -q "w/d1: state pruned at #[0-9]* and below" "$T/log" || fail "no log line for d1's pruning"
# Over the whole run, not only at its end: the daemon's counters of d1's
# requests by outcome class (from 0 at its start) hold its pruned answers
# as answers, and no failure of any class.
never_failed d1 pruned
/usr/bin/python3 "$top_srcdir/tests/integration/store_check.py" \
    "$T/chainwatch.db" devchain "$d2_port" --margin 20 --state ||
    fail "state reads were lost to pruning"
ok "d1 pruned below #$bound: its old reads went to d2, all difficulties read; no failure counted against d1 ($COUNTED), its breaker never left closed"
