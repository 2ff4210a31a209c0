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
never_failed d1 ready
ok "601 blocks with state stored from d1 at most 30 calls a batch (limit learned: $limit; $refusals refusals logged); no failure counted ($COUNTED), its breaker never left closed"
