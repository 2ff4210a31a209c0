#!/bin/sh
# An endpoint that takes at most 30 calls a batch, as a Substrate node
# started with --rpc-max-batch-request-len 30 (the devnode's batch_limit
# fault: error -32010 for the whole batch): its worker learns the limit
# from the refusals and sends smaller batches, and the whole backlog,
# headers and state, is stored from it alone, with no failure counted
# against it over the whole run: the daemon's counters of d1's requests
# hold no failure and its breaker never changed state (its events in the
# store).  Without the limit learned every range fails for ever.
. "$top_srcdir/tests/integration/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
CTL="python3 $top_srcdir/tests/integration/ctl_client.py"

devnode d1 --seed batch --block-time 1000 --backlog 600 \
    --fault batch_limit:30@http
write_conf "$T/chainwatch.conf"
echo "endpoint = d1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port" >>"$T/chainwatch.conf"
start_daemon

# Every block up to the head, each with its difficulty and time.
stored() {
	test "$(sql "SELECT count(*) FROM blocks WHERE canonical = 1 AND
	    difficulty IS NOT NULL AND timestamp IS NOT NULL")" -ge 601 &&
	    test "$(sql "SELECT count(*) FROM queue")" = 0
}
wait_for 60 stored ||
    fail "backlog not stored from an endpoint that takes 30 calls a batch: $(sql "SELECT count(*) FROM blocks") blocks, queue: $(sql 'SELECT * FROM queue_summary')"
grep -q "refuses a batch of 100 calls" "$T/log" ||
    fail "the worker did not say that d1 refuses batches of 100"
limit=$(grep -o "refuses a batch of [0-9]* calls .*: at most [0-9]* a request" "$T/log" |
    tail -n 1 | sed 's/.*at most \([0-9]*\) a request/\1/')
[ -n "$limit" ] && [ "$limit" -le 30 ] && [ "$limit" -ge 15 ] ||
    fail "batch limit learned: '$limit', not 15 to 30"
refusals=$(grep -c "The batch request was too large" "$T/log")

# Over the whole run, not only at its end (a lone endpoint's breaker
# closes again on its first success): the daemon's counters of d1's
# requests by outcome class (they start at 0 with the daemon) hold no
# failure of any class, and its breaker never changed state -- no open,
# half-open or closed event of d1 in the store, where its other events
# (ready, sub_live) are, read once the daemon stopped.
$CTL ask "$T/chainwatchd.sock" metrics >"$T/counters" ||
    fail "the control socket did not answer: $(cat "$T/counters")"
counted=$(python3 -c '
import json, sys
eps = [e for e in json.load(sys.stdin)["endpoints"] if e["endpoint"] == "d1"]
if len(eps) != 1:
    print("d1 is not among the endpoints: %r" % eps)
    sys.exit(1)
req = eps[0]["requests"]
bad = ["%s %d" % (k, req.get(k, 0)) for k in
       ("http_5xx", "transport", "timeout", "malformed", "too_large")
       if req.get(k, 0) != 0]
if req.get("ok", 0) == 0:
    bad.append("no ok answer")
print("%s%s" % ("; ".join(bad) + ": " if bad else "", req))
sys.exit(1 if bad else 0)
' <"$T/counters" 2>&1) ||
    fail "failures counted against d1 over the run: $counted"
# Stopped, the daemon has written every event it had.
kill -TERM $DAEMON_PID
wait_for 20 "dead $DAEMON_PID" || fail "chainwatchd did not stop within 20 s"
wait $DAEMON_PID || fail "chainwatchd exited with $?"
[ "$(sql "SELECT count(*) FROM endpoint_events v JOIN endpoints e ON
    e.id = v.endpoint_id WHERE e.name = 'd1' AND v.kind = 'ready'")" -ge 1 ] ||
    fail "no ready event of d1 in the store: $(sql 'SELECT * FROM endpoint_events')"
transitions=$(sql "SELECT group_concat(v.kind || ' ' || v.detail, '; ')
    FROM endpoint_events v JOIN endpoints e ON e.id = v.endpoint_id
    WHERE e.name = 'd1' AND v.kind IN ('open', 'half-open', 'closed')")
[ -z "$transitions" ] ||
    fail "d1's breaker changed state during the run: $transitions"
[ "$(sql "SELECT state FROM endpoints WHERE name = 'd1'")" = closed ] ||
    fail "d1's health: $(sql "SELECT * FROM endpoint_health")"
! grep -q 'w/d1: endpoint unhealthy' "$T/log" ||
    fail "the log says d1 was unhealthy: $(grep 'w/d1: endpoint unhealthy' "$T/log" | head -n 3)"
ok "601 blocks with state stored from d1 at most 30 calls a batch (limit learned: $limit; $refusals refusals logged); no failure counted ($counted), its breaker never left closed"
