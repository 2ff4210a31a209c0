#!/bin/sh
# chainwatch-metrics alone, against a crafted store and a fake control
# socket: every family parses strictly (and passes promtool where Debian's
# prometheus package is installed), carries what the two sources hold,
# label values are escaped, /health says 200 or 503 as documented, the
# store's figures stay when chainwatchd does not answer, hostile clients
# stall nobody, privileges drop, and the manual page names every family.
. "$top_srcdir/tests/integration/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

METRICS=$top_builddir/metrics/chainwatch-metrics
MKSCHEMA=$top_builddir/tests/integration/mkschema
PROMPARSE=$top_srcdir/tests/integration/promparse.py
FAKE_CTL=$top_srcdir/tests/integration/fake_ctl.py

python3 "$PROMPARSE" --selftest || fail "promparse self-test"

# scrape FILE: GET /metrics into FILE and check it strictly.
scrape() {
	curl -s -f -m 10 -o "$1" "http://127.0.0.1:$PORT/metrics" ||
	    fail "no answer on /metrics"
	python3 "$PROMPARSE" "$1" || fail "not a valid exposition: $1"
	if command -v promtool >/dev/null; then
		promtool check metrics <"$1" >"$T/promtool" 2>&1 ||
		    { cat "$T/promtool"; fail "promtool check metrics: $1"; }
	fi
}
# val FILE QUERY: the value of a series (summed over the ones it matches).
val() {
	python3 "$PROMPARSE" "$1" "$2"
}
expect() {
	_v=$(val "$1" "$2")
	[ "$_v" = "$3" ] || fail "$2 is $_v, not $3"
}
# health FILE: the status code of GET /health, its body in FILE.
health() {
	curl -s -m 10 -o "$1" -w '%{http_code}' "http://127.0.0.1:$PORT/health"
}
# Wait out the snapshot cache (1 s) until QUERY reads WANT.
wait_val() {
	wait_for 10 "scrape '$T/w' && test \"\$(val '$T/w' '$1')\" = '$2'" ||
	    fail "$1 did not become $2 (is $(val "$T/w" "$1"))"
}

# The store: planck degraded (a2 open), heisenberg ok, a queue.
now=$(($(date +%s) * 1000))
"$MKSCHEMA" >"$T/schema.sql" || fail mkschema
sqlite3 "$T/chainwatch.db" <"$T/schema.sql" >/dev/null || fail "schema"
sqlite3 "$T/chainwatch.db" >/dev/null <<SQL || fail "store rows"
PRAGMA journal_mode = WAL;
INSERT INTO chains (id, name, format, block_time, finality_depth,
    best_number, final_number, updated_at)
    VALUES (1, 'planck', 'quantus', 12000, 100, 500, 400, $now),
    (2, 'heisenberg', 'quantus', 12000, 100, 80, NULL, $now);
INSERT INTO endpoints (id, chain_id, name, rpc_url, ws_url, position, state,
    state_since, state_reason, best_number, lag_ms, heads_seen,
    heads_first, restarts, seals_failed)
    VALUES (1, 1, 'a1', 'http://a1', 'ws://a1', 0, 'closed', $now, NULL,
    500, 0, 10, 7, 0, 0),
    (2, 1, 'a2', 'http://a2', 'ws://a2', 1, 'open', $now,
    '3 timeouts in a row since 12:00:00', 497, 1500, 9, 2, 5, 4),
    (3, 2, 'h1', 'http://h1', 'ws://h1', 0, 'closed', $now, NULL, 80, 0,
    80, 80, 0, 0);
INSERT INTO queue (chain_id, kind, range_from, range_to, created_at)
    VALUES (1, 'headers', 1, 100, $now);
INSERT INTO queue (chain_id, kind, block_hash, block_number, state,
    lease_endpoint_id, lease_deadline, created_at)
    VALUES (1, 'parent', x'0101010101010101010101010101010101010101010101010101010101010101',
    42, 'leased', 2, $now, $now);
-- planck's a1 and a2 on two blocks #500 of one parent: a split; h1 alone.
INSERT INTO blocks (chain_id, hash, number, parent, first_seen, proven)
    VALUES
    (1, x'$(printf '%064d' 499)', 499, x'$(printf '%064d' 498)', $now, 1),
    (1, x'$(printf 'a%063d' 500)', 500, x'$(printf '%064d' 499)', $now, 0),
    (1, x'$(printf 'b%063d' 500)', 500, x'$(printf '%064d' 499)', $now,
    NULL),
    (2, x'$(printf '%064d' 80)', 80, x'$(printf '%064d' 79)', $now, NULL);
UPDATE endpoints SET tip_hash = x'$(printf 'a%063d' 500)', tip_number = 500,
    tip_at = $now WHERE id = 1;
UPDATE endpoints SET tip_hash = x'$(printf 'b%063d' 500)', tip_number = 500,
    tip_at = $now WHERE id = 2;
UPDATE endpoints SET tip_hash = x'$(printf '%064d' 80)', tip_number = 80,
    tip_at = $now WHERE id = 3;
SQL

# What chainwatchd would answer; one endpoint's name needs escaping and
# its histogram is not cumulative, so it must be left out.
cat >"$T/answer" <<'JSON'
{"ok": true,
 "endpoints": [
  {"endpoint": "a1", "chain": "planck",
   "requests": {"ok": 100, "absent": 5, "timeout": 3},
   "latency_le_seconds": [0.005, 0.01, 0.1, 10.0],
   "latency_cumulative": [50, 90, 100, 108, 108], "latency_count": 108,
   "latency_sum_seconds": 2.5, "pid": 1, "worker_state": "running",
   "ready": true, "restarts": 0, "rss_bytes": 12345678, "inflight": 2,
   "hedges": 4, "breaker": "closed", "breaker_reason": "",
   "breaker_since": 0, "pruning_bound": -1},
  {"endpoint": "a2", "chain": "planck", "requests": {"timeout": 7},
   "latency_le_seconds": [0.005, 0.01, 0.1, 10.0],
   "latency_cumulative": [0, 0, 0, 7, 7], "latency_count": 7,
   "latency_sum_seconds": 7.0, "ready": false, "restarts": 2,
   "rss_bytes": 0, "inflight": 0, "hedges": 0, "breaker": "open"},
  {"endpoint": "we\"ird\\name", "chain": "planck", "requests": {"ok": 1},
   "latency_le_seconds": [1, 2], "latency_cumulative": [3, 2, 3],
   "latency_count": 3, "latency_sum_seconds": 1, "ready": true,
   "restarts": 0, "rss_bytes": 1, "inflight": 0, "hedges": 0,
   "breaker": "closed"},
  {"endpoint": "h1", "chain": "heisenberg", "requests": {"ok": 80},
   "latency_le_seconds": [0.005, 0.01, 0.1, 10.0],
   "latency_cumulative": [80, 80, 80, 80, 80], "latency_count": 80,
   "latency_sum_seconds": 0.08, "ready": true, "restarts": 0,
   "rss_bytes": 1000, "inflight": 0, "hedges": 0, "breaker": "closed"}],
 "chains": [
  {"chain": "planck", "best_number": 501, "final_number": 401,
   "blocks_ingested": 42, "hedges": 4, "hedges_won": 1, "seals_failed": 3},
  {"chain": "heisenberg", "best_number": 80, "final_number": null,
   "blocks_ingested": 80, "hedges": 0, "hedges_won": 0}]}
JSON
python3 "$FAKE_CTL" "$T/ctl.sock" "$T/answer" >"$T/fake.log" 2>&1 &
FAKE_PID=$!
CW_PIDS="$CW_PIDS $FAKE_PID"
wait_for 10 "test -S '$T/ctl.sock'" || fail "fake control socket"

# It never runs as root: as root, it is refused without -u, and runs as
# nobody here, the fake socket open to it.
AS_USER=
if [ "$(id -u)" = 0 ]; then
	rc=0
	"$METRICS" -f -l 127.0.0.1:0 -d "$T/chainwatch.db" -s "$T/ctl.sock" \
	    >"$T/root.log" 2>&1 || rc=$?
	[ "$rc" = 78 ] && grep -q "refusing to run as root" "$T/root.log" ||
	    fail "as root without -u: status $rc, $(cat "$T/root.log")"
	ok "as root without -u: refused"
	AS_USER="-u nobody"
	chmod 0666 "$T/ctl.sock"
fi

# start_metrics [options]: run it on 127.0.0.1:0; sets PORT and MPID.
start_metrics() {
	rm -f "$T/port"
	# shellcheck disable=SC2086
	"$METRICS" -f -L debug -l 127.0.0.1:0 -d "$T/chainwatch.db" \
	    -s "$T/ctl.sock" -p "$T/port" $AS_USER "$@" >>"$T/log" 2>&1 &
	MPID=$!
	CW_PIDS="$CW_PIDS $MPID"
	wait_for 10 "test -s '$T/port'" || fail "chainwatch-metrics did not start"
	PORT=$(cat "$T/port")
	grep -q "metrics: listening on 127.0.0.1:$PORT\$" "$T/log" ||
	    fail "no 'listening on 127.0.0.1:$PORT' in the log"
}
start_metrics

scrape "$T/m1"
expect "$T/m1" chainwatch_up 1
expect "$T/m1" chainwatch_store_up 1
# The supervisor's head is fresher than the store's.
expect "$T/m1" 'chainwatch_chain_head_height{chain="planck"}' 501
expect "$T/m1" 'chainwatch_chain_finalized_height{chain="planck"}' 401
expect "$T/m1" 'chainwatch_chain_head_height{chain="heisenberg"}' 80
expect "$T/m1" 'chainwatch_chain_finalized_height{chain="heisenberg"}' none
expect "$T/m1" 'chainwatch_chain_status{chain="planck",status="degraded"}' 1
expect "$T/m1" 'chainwatch_chain_status{chain="planck"}' 1
expect "$T/m1" 'chainwatch_chain_status{chain="heisenberg",status="ok"}' 1
expect "$T/m1" 'chainwatch_chain_tips{chain="planck"}' 2
expect "$T/m1" 'chainwatch_chain_tips{chain="heisenberg"}' 1
expect "$T/m1" 'chainwatch_chain_blocks_ingested_total{chain="planck"}' 42
expect "$T/m1" 'chainwatch_chain_hedges_won_total{chain="planck"}' 1
expect "$T/m1" 'chainwatch_chain_seals_failed_total{chain="planck"}' 3
expect "$T/m1" 'chainwatch_chain_seals_failed_total{chain="heisenberg"}' 0
expect "$T/m1" 'chainwatch_chain_queue_items{chain="planck",kind="headers",state="pending"}' 1
expect "$T/m1" 'chainwatch_chain_queue_blocks{chain="planck",kind="headers",state="pending"}' 100
expect "$T/m1" 'chainwatch_chain_queue_items{chain="planck",kind="parent",state="leased"}' 1
expect "$T/m1" 'chainwatch_chain_queue_items{chain="heisenberg"}' 0
ok "chain figures: heads, status, counters, queue"

expect "$T/m1" 'chainwatch_endpoint_requests_total{endpoint="a1"}' 108
expect "$T/m1" 'chainwatch_endpoint_requests_total{endpoint="a1",outcome="timeout"}' 3
expect "$T/m1" 'chainwatch_endpoint_requests_total{endpoint="a1",outcome="too_large"}' 0
expect "$T/m1" 'chainwatch_endpoint_request_duration_seconds_bucket{endpoint="a1",le="0.01"}' 90
expect "$T/m1" 'chainwatch_endpoint_request_duration_seconds_bucket{endpoint="a1",le="10"}' 108
expect "$T/m1" 'chainwatch_endpoint_request_duration_seconds_bucket{endpoint="a1",le="+Inf"}' 108
expect "$T/m1" 'chainwatch_endpoint_request_duration_seconds_count{endpoint="a1"}' 108
expect "$T/m1" 'chainwatch_endpoint_request_duration_seconds_sum{endpoint="a1"}' 2.5
expect "$T/m1" 'chainwatch_endpoint_breaker_state{endpoint="a2",state="open"}' 1
expect "$T/m1" 'chainwatch_endpoint_breaker_state{endpoint="a2"}' 1
expect "$T/m1" 'chainwatch_endpoint_state{endpoint="a2",state="open"}' 1
expect "$T/m1" 'chainwatch_endpoint_state{endpoint="a1",state="closed"}' 1
expect "$T/m1" 'chainwatch_endpoint_queue_leased{endpoint="a2"}' 1
expect "$T/m1" 'chainwatch_endpoint_queue_leased{endpoint="a1"}' 0
expect "$T/m1" 'chainwatch_endpoint_inflight_requests{endpoint="a1"}' 2
expect "$T/m1" 'chainwatch_endpoint_head_height{endpoint="a2"}' 497
expect "$T/m1" 'chainwatch_endpoint_head_lag_blocks{endpoint="a2"}' 3
expect "$T/m1" 'chainwatch_endpoint_head_lag_seconds{endpoint="a2"}' 1.5
expect "$T/m1" 'chainwatch_endpoint_heads_first_total{endpoint="a1"}' 7
expect "$T/m1" 'chainwatch_endpoint_seals_failed_total{endpoint="a2"}' 4
expect "$T/m1" 'chainwatch_endpoint_seals_failed_total{endpoint="a1"}' 0
expect "$T/m1" 'chainwatch_endpoint_worker_restarts_total{endpoint="a2"}' 2
expect "$T/m1" 'chainwatch_endpoint_worker_rss_bytes{endpoint="a1"}' 12345678
expect "$T/m1" 'chainwatch_endpoint_worker_ready{endpoint="a2"}' 0
expect "$T/m1" 'chainwatch_endpoint_hedges_total{endpoint="a1"}' 4
# Known only to the supervisor, with a name to escape and a bad histogram.
expect "$T/m1" 'chainwatch_endpoint_requests_total{chain="planck",endpoint="we\"ird\\name"}' 1
expect "$T/m1" 'chainwatch_endpoint_request_duration_seconds_count{endpoint="we\"ird\\name"}' none
expect "$T/m1" 'chainwatch_endpoint_state{endpoint="we\"ird\\name"}' none
grep -q 'endpoint="we\\"ird\\\\name"' "$T/m1" || fail "label value not escaped"
ok "endpoint figures: requests, histogram, breaker, queue, heads, worker"

# /health: degraded is 200; unreachable 503; stalled 200.
code=$(health "$T/h")
[ "$code" = 200 ] || fail "/health of a degraded chain: $code"
python3 - "$T/h" <<'PY' || fail "/health body: $(cat "$T/h")"
import json, sys
h = json.load(open(sys.argv[1]))
assert h["status"] == "degraded" and h["chainwatchd"] is True, h
c = {x["name"]: x for x in h["chains"]}
assert c["planck"]["status"] == "degraded" and c["heisenberg"]["status"] == "ok"
e = {x["name"]: x for x in c["planck"]["endpoints"]}
assert e["a2"]["state"] == "open" and "timeouts" in e["a2"]["reason"], e
PY
ok "/health: 200 and the states of a degraded chain"
sql_w() { sqlite3 "$T/chainwatch.db" "$1" || fail "sqlite3 $1"; }
sql_w "UPDATE endpoints SET state = 'open' WHERE name = 'a1'"
wait_for 10 'test "$(health "$T/h")" = 503' || fail "/health not 503 with planck unreachable"
grep -q '"status": "unreachable"' "$T/h" || fail "body: $(cat "$T/h")"
ok "/health: 503 when a chain is unreachable"
sql_w "UPDATE endpoints SET state = 'closed' WHERE name IN ('a1', 'a2')"
sql_w "UPDATE chains SET updated_at = $now - 3600000 WHERE name = 'heisenberg'"
wait_for 10 'test "$(health "$T/h")" = 200 && grep -q "\"status\": \"stalled\"" "$T/h"' ||
    fail "/health of a stalled chain: $(cat "$T/h")"
ok "/health: 200 with status stalled for a chain that makes no blocks"
sql_w "UPDATE chains SET updated_at = $now WHERE name = 'heisenberg'"
# Its one endpoint inconsistent: heard, not believed; the chain stalled.
sql_w "UPDATE endpoints SET state = 'inconsistent', state_reason = 'head #99 never connected' WHERE name = 'h1'"
wait_val 'chainwatch_endpoint_state{endpoint="h1",state="inconsistent"}' 1
wait_val 'chainwatch_chain_status{chain="heisenberg",status="stalled"}' 1
expect "$T/w" 'chainwatch_endpoint_state{endpoint="h1",state="unknown"}' 0
expect "$T/w" 'chainwatch_endpoint_state{endpoint="h1"}' 1
test "$(health "$T/h")" = 200 || fail "/health with an inconsistent endpoint"
grep -q 'none believed: 1 of 1 endpoint inconsistent' "$T/h" ||
    fail "/health body: $(cat "$T/h")"
sql_w "UPDATE endpoints SET state = 'closed', state_reason = NULL WHERE name = 'h1'"
ok "an inconsistent endpoint: its state gauge, its chain stalled"

# Other paths and methods; / is the status page (status_page.sh), whose
# HTML must balance with this store's odd names too.
code=$(curl -s -m 5 -o "$T/page.html" -w '%{http_code}' "http://127.0.0.1:$PORT/")
[ "$code" = 200 ] || fail "GET / gave $code"
python3 "$top_srcdir/tests/integration/pagecheck.py" lint "$T/page.html" ||
    fail "the status page of the crafted store"
# The last blocks: #500 0xa000... marked unproven (its seal failed), #499
# proven, #500 0xb000... not checked.
grep -q '<tr class="unproven"><td class="n">500</td><td>[a-z]*</td><td>0xa0000000</td>.*<td><b>unproven</b></td>' "$T/page.html" ||
    fail "the unproven block is not marked: $(grep -o '<table class="blocks">.*' "$T/page.html" | head -c 600)"
grep -q '<tr><td class="n">499</td>.*<td>ok</td>' "$T/page.html" &&
    grep -q '<tr><td class="n">500</td><td>[a-z]*</td><td>0xb0000000</td>.*<td>-</td>' "$T/page.html" ||
    fail "the last blocks' seals are not shown"
ok "the page lists the last blocks, the unproven one marked"
code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/nope")
[ "$code" = 404 ] || fail "GET /nope gave $code"
code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST -d x=1 "http://127.0.0.1:$PORT/metrics")
[ "$code" = 405 ] || fail "POST /metrics gave $code"
curl -s -m 5 -I "http://127.0.0.1:$PORT/metrics" >"$T/head" || fail "HEAD"
head -n 1 "$T/head" | grep -q ' 200' || fail "HEAD /metrics: $(head -n 1 "$T/head")"
ok "/ is a page, 404 for other paths, 405 for POST, HEAD works"

# Hostile clients: one never reads its answers, one stops mid-request,
# twenty sit idle.  Everyone else is served meanwhile.
stall_clients "$PORT"
for i in 1 2 3 4 5; do
	scrape "$T/m2"
	sleep 0.3
done
expect "$T/m2" chainwatch_up 1
ok "5 scrapes answered while clients stall"
kill $STALL_PIDS

# chainwatchd not answering: the store's figures, chainwatch_up 0.
kill "$FAKE_PID"
wait "$FAKE_PID" 2>/dev/null
wait_val chainwatch_up 0
scrape "$T/m3"
expect "$T/m3" chainwatch_store_up 1
expect "$T/m3" 'chainwatch_chain_head_height{chain="planck"}' 500
expect "$T/m3" 'chainwatch_endpoint_head_height{endpoint="a1"}' 500
expect "$T/m3" 'chainwatch_endpoint_worker_restarts_total{endpoint="a2"}' 5
expect "$T/m3" 'chainwatch_endpoint_requests_total' none
expect "$T/m3" 'chainwatch_endpoint_breaker_state' none
expect "$T/m3" 'chainwatch_chain_blocks_ingested_total' none
code=$(health "$T/h")
[ "$code" = 200 ] || fail "/health without chainwatchd: $code"
grep -q '"chainwatchd": false' "$T/h" || fail "body: $(cat "$T/h")"
ok "without chainwatchd: the store's figures and chainwatch_up 0"
# The families chainwatch-metrics(8) marks "daemon" are absent as a whole,
# HELP and TYPE too, while chainwatch_up is 0; they are all there with it.
daemon_fams=$(awk '/^\.It Va / { f = $3; next } f != "" && /^daemon:/ { print f; f = "" }' \
    "$top_builddir/man/chainwatch-metrics.8")
[ "$(echo "$daemon_fams" | wc -w)" -ge 10 ] ||
    fail "chainwatch-metrics(8) marks only: $daemon_fams"
for f in $daemon_fams; do
	grep -q "^# TYPE $f " "$T/m1" || fail "$f has no TYPE with chainwatch_up 1"
	! grep -q -e "^# HELP $f " -e "^# TYPE $f " -e "^$f[{ ]" "$T/m3" ||
	    fail "$f is in the exposition with chainwatch_up 0: $(grep "$f" "$T/m3" | head -n 2)"
done
ok "without chainwatchd: $(echo $daemon_fams | wc -w) daemon families absent, HELP and TYPE too"

# SIGTERM: a clean exit.
kill -TERM "$MPID"
wait "$MPID"
rc=$?
[ "$rc" = 0 ] || fail "chainwatch-metrics exited with $rc on SIGTERM"
ok "SIGTERM: exit 0"

# As root with -u and -g: it runs as the user and reaches a socket of
# that group, which is not the user's own.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 &&
    getent group daemon >/dev/null; then
	rm -f "$T/ctl.sock"
	python3 "$FAKE_CTL" "$T/ctl.sock" "$T/answer" >"$T/fake.log" 2>&1 &
	FAKE_PID=$!
	CW_PIDS="$CW_PIDS $FAKE_PID"
	wait_for 10 "test -S '$T/ctl.sock'" || fail "fake control socket"
	chgrp daemon "$T/ctl.sock"
	chmod 0660 "$T/ctl.sock"
	chmod 0711 "$T"		# as /run is: the socket's mode decides
	start_metrics -u nobody -g daemon
	[ "$(ps -o user= -p "$MPID")" = nobody ] ||
	    fail "runs as $(ps -o user= -p "$MPID"), not nobody"
	scrape "$T/m4"
	expect "$T/m4" chainwatch_up 1
	expect "$T/m4" chainwatch_store_up 1
	ok "-u nobody -g daemon: runs as nobody, reads the socket and the store"
	kill -TERM "$MPID"
	wait "$MPID" || fail "exit status $? after -u"
fi

# The manual page documents every family, and lints clean.
page=$top_builddir/man/chainwatch-metrics.8
[ -f "$page" ] || fail "no $page"
for f in $(sed -n 's/^# TYPE \([^ ]*\) .*/\1/p' "$T/m1"); do
	grep -q "^\\.It Va $f\$" "$page" || fail "$f is not in chainwatch-metrics(8)"
done
if command -v mandoc >/dev/null; then
	mandoc -Tlint -Wwarning "$page" >"$T/lint" 2>&1 ||
	    { cat "$T/lint"; fail "mandoc -Tlint: $page"; }
fi
ok "chainwatch-metrics(8) names all $(grep -c '^# TYPE' "$T/m1") families"
