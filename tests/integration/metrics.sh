#!/bin/sh
# chainwatchd runs chainwatch-metrics: scrapes parse strictly and agree
# with the store, a black-holed endpoint's breaker shows open, /health
# goes 200 (ok), 200 (degraded), 503 (unreachable) and 200 again, clients
# that stall hold up neither the daemon nor other scrapers, a killed
# server comes back, and a reload turns it off and on.
. "$top_srcdir/tests/integration/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

METRICS=$top_builddir/metrics/chainwatch-metrics
CHAINWATCH=$top_builddir/cli/chainwatch
PROMPARSE=$top_srcdir/tests/integration/promparse.py

# The port of the running server: the last "listening on" line.
mport() {
	sed -n 's/.* metrics: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' \
	    "$T/log" | tail -n 1
}
# The server's pid, a child of the daemon.
mpid() {
	pgrep -P "$DAEMON_PID" -f "^$METRICS " 2>/dev/null | head -n 1
}
scrape() {
	curl -s -f -m 10 -o "$1" "http://127.0.0.1:$PORT/metrics" || return 1
	python3 "$PROMPARSE" "$1" || fail "not a valid exposition: $1"
	if command -v promtool >/dev/null; then
		promtool check metrics <"$1" >"$T/promtool" 2>&1 ||
		    { cat "$T/promtool"; fail "promtool check metrics: $1"; }
	fi
}
val() {
	python3 "$PROMPARSE" "$1" "$2"
}
# Until QUERY reads WANT in a scrape (the snapshot lives 1 s).
wait_val() {
	wait_for "$3" "scrape '$T/w' && test \"\$(val '$T/w' '$1')\" = '$2'" ||
	    fail "$1 did not become $2 (is $(val "$T/w" "$1"))"
}
health() {
	curl -s -m 10 -o "$1" -w '%{http_code}' "http://127.0.0.1:$PORT/health"
}
# Until /health answers CODE with "status": STATUS.
wait_health() {
	wait_for "$3" "test \"\$(health '$T/h')\" = $1 && grep -q '^  \"status\": \"$2\"' '$T/h'" ||
	    fail "/health is not $1 $2: $(health "$T/h") $(cat "$T/h")"
}
fault() {
	curl -s -m 5 -o /dev/null -d "$2" "http://127.0.0.1:$1/control" ||
	    fail "devnode control port $1"
}

for n in d1 d2 d3; do
	devnode $n --seed metrics --block-time 500 --backlog 300 --miners 3
done
write_conf "$T/chainwatch.conf"
sed -i -e '/^metrics_listen/d' -e '/^metrics_server/d' \
    -e "/^\\[daemon\\]\$/a metrics_listen = 127.0.0.1:0\\
metrics_server = $METRICS" \
    -e 's/^block_time = .*/block_time = 500ms/' "$T/chainwatch.conf"
cat >>"$T/chainwatch.conf" <<CONF
request_timeout = 1s
connect_timeout = 1s
breaker_consecutive = 3
breaker_min_span = 1s
breaker_cooldown = 1s
endpoint = d1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port
endpoint = d2 http://127.0.0.1:$d2_port ws://127.0.0.1:$d2_port
endpoint = d3 http://127.0.0.1:$d3_port ws://127.0.0.1:$d3_port
CONF
start_daemon
wait_for 20 'test -n "$(mport)"' || fail "no metrics server"
PORT=$(mport)
wait_for 60 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(sql "SELECT best_number FROM chains")" -gt 300' ||
    fail "not caught up"
ok "chainwatch-metrics listens on 127.0.0.1:$PORT"

# It runs 10 below the daemon: its readers do not delay the heads.
mn=$(ps -o ni= -p "$(mpid)" | tr -d ' ')
dn=$(ps -o ni= -p "$DAEMON_PID" | tr -d ' ')
[ -n "$mn" ] && [ -n "$dn" ] && [ "$mn" -eq "$(( dn + 10 > 19 ? 19 : dn + 10 ))" ] ||
    fail "the server's nice is '$mn', the daemon's '$dn'"
ok "the server's nice $mn, the daemon's $dn"

# The figures agree with the store and with each other.
wait_val chainwatch_up 1 20
wait_val 'chainwatch_endpoint_state{state="closed"}' 3 20
# A fresh snapshot, not the one wait_val saw, and the store read at once
# after it: parsing takes long enough for blocks to come meanwhile.
sleep 1.1
curl -s -f -m 10 -o "$T/m1" "http://127.0.0.1:$PORT/metrics" || fail "scrape"
sql "SELECT name, best_number FROM endpoints UNION ALL
    SELECT 'chain', best_number FROM chains" >"$T/store1"
python3 "$PROMPARSE" "$T/m1" || fail "not a valid exposition: $T/m1"
head=$(val "$T/m1" 'chainwatch_chain_head_height{chain="devchain"}')
best=$(sed -n 's/^chain|//p' "$T/store1")
[ "$head" -ge $((best - 2)) ] && [ "$head" -le $((best + 2)) ] ||
    fail "head height $head, the store has $best"
[ "$(val "$T/m1" 'chainwatch_chain_status{status="ok"}')" = 1 ] ||
    fail "chain not ok: $(grep chain_status "$T/m1")"
for d in d1 d2 d3; do
	n=$(val "$T/m1" "chainwatch_endpoint_requests_total{endpoint=\"$d\"}")
	c=$(val "$T/m1" "chainwatch_endpoint_request_duration_seconds_count{endpoint=\"$d\"}")
	[ "$n" = "$c" ] || fail "$d: $n requests but a histogram of $c"
	eb=$(val "$T/m1" "chainwatch_endpoint_head_height{endpoint=\"$d\"}")
	es=$(sed -n "s/^$d|//p" "$T/store1")
	[ "$eb" -ge $((es - 2)) ] && [ "$eb" -le $((es + 2)) ] ||
	    fail "$d: head height $eb, the store has $es"
done
r1=$(val "$T/m1" chainwatch_endpoint_requests_total)
ok "head #$head (store #$best), $r1 requests, histograms agree"
sleep 2
scrape "$T/m2" || fail "scrape"
r2=$(val "$T/m2" chainwatch_endpoint_requests_total)
[ "$r2" -gt "$r1" ] || fail "requests_total did not grow: $r1 then $r2"
b2=$(val "$T/m2" chainwatch_chain_blocks_ingested_total)
[ "$b2" -gt 300 ] || fail "blocks ingested: $b2"
ok "requests_total grows ($r1, then $r2); $b2 blocks ingested"
# The daemon's page cache holds the pages it stored: some, at most 64 MB.
cb=$(val "$T/m2" chainwatch_store_cache_bytes)
[ -n "$cb" ] && [ "$cb" -gt 0 ] && [ "$cb" -le $((64 * 1048576)) ] ||
    fail "chainwatch_store_cache_bytes: '$cb'"
ok "the daemon's page cache: $cb bytes"
# Memory in use, of each process, as its allocator says (glibc here).
for v in chainwatch_daemon_heap_bytes chainwatch_metrics_heap_bytes \
    'chainwatch_endpoint_worker_heap_bytes{chain="devchain",endpoint="d1"}'; do
	hb=$(val "$T/m2" "$v")
	[ -n "$hb" ] && [ "$hb" -gt 65536 ] && [ "$hb" -lt $((256 * 1048576)) ] ||
	    fail "$v: '$hb'"
done
ok "heap in use: the daemon's, the server's and d1's worker's"
mc=$(val "$T/m2" chainwatch_metrics_cache_bytes)
[ -n "$mc" ] && [ "$mc" -gt 0 ] && [ "$mc" -le $((4 * 1048576)) ] ||
    fail "chainwatch_metrics_cache_bytes: '$mc'"
ok "the server's page cache: $mc bytes"
wait_health 200 ok 10
ok "/health: 200 ok"

# One endpoint black-holed: its breaker opens, the chain is degraded.
fault "$d3_cport" '{"clear":true,"enable":"blackhole@http"}'
wait_val 'chainwatch_endpoint_breaker_state{endpoint="d3",state="open"}' 1 30
wait_health 200 degraded 20
grep -q '"name": "d3"' "$T/h" || fail "d3 not in /health"
ok "d3 black-holed: breaker open, /health 200 degraded"

# Every endpoint down: unreachable, 503.
fault "$d1_cport" '{"clear":true,"enable":"refuse"}'
fault "$d2_cport" '{"clear":true,"enable":"refuse"}'
wait_health 503 unreachable 40
python3 - "$T/h" <<'PY' || fail "/health body: $(cat "$T/h")"
import json, sys
h = json.load(open(sys.argv[1]))
c = h["chains"][0]
assert c["status"] == "unreachable", c
for e in c["endpoints"]:
    assert e["state"] in ("open", "half-open", "down"), e
    assert e["reason"], e
PY
ok "all endpoints down: /health 503 unreachable, each with a reason"

fault "$d1_cport" '{"clear":true}'
fault "$d2_cport" '{"clear":true}'
fault "$d3_cport" '{"clear":true}'
wait_health 200 ok 60
ok "faults cleared: /health 200 ok again"

# Clients that stall: one never reads, one sends half a request, twenty
# sit idle.  The daemon stores heads, chainwatch status and scrapes answer.
stall_clients "$PORT"
best=$(sql "SELECT best_number FROM chains")
wait_for 20 'test "$(sql "SELECT best_number FROM chains")" -gt $((best + 3))' ||
    fail "the daemon stopped storing heads"
timeout 20 "$CHAINWATCH" -f "$T/chainwatch.conf" status >"$T/status" 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || fail "chainwatch status: exit $rc: $(cat "$T/status")"
grep -q '^devchain: ' "$T/status" || fail "chainwatch status: $(cat "$T/status")"
for i in 1 2 3; do
	sleep 1.1
	scrape "$T/m3" || fail "a scrape failed while clients stall"
done
[ "$(val "$T/m3" chainwatch_up)" = 1 ] || fail "chainwatch_up is not 1"
alive "$DAEMON_PID" || fail "daemon gone"
kill $STALL_PIDS
ok "stalling clients: heads stored, chainwatch status and scrapes answered"

# kill -9: chainwatchd restarts it.
old=$(mpid)
[ -n "$old" ] || fail "no chainwatch-metrics child of the daemon"
n=$(grep -c ' metrics: listening on ' "$T/log")
kill -9 "$old"
wait_for 20 'test "$(grep -c " metrics: listening on " "$T/log")" -gt $n' ||
    fail "not restarted after kill -9"
grep -q "metrics: pid $old killed by signal 9" "$T/log" || fail "no log of the kill"
PORT=$(mport)
new=$(mpid)
[ -n "$new" ] && [ "$new" != "$old" ] || fail "pid $new after $old"
wait_val chainwatch_up 1 10
ok "kill -9 of pid $old: restarted as pid $new on port $PORT"

# Reload: metrics_listen none stops it, an address starts it again.
sed -i 's/^metrics_listen = .*/metrics_listen = none/' "$T/chainwatch.conf"
kill -HUP "$DAEMON_PID"
wait_for 20 'test -z "$(mpid)" && dead '"$new" || fail "not stopped by the reload"
grep -q 'metrics: pid '"$new"' stopped' "$T/log" || fail "no log of the stop"
n=$(grep -c ' metrics: listening on ' "$T/log")
sed -i 's/^metrics_listen = .*/metrics_listen = 127.0.0.1:0/' "$T/chainwatch.conf"
kill -HUP "$DAEMON_PID"
wait_for 20 'test "$(grep -c " metrics: listening on " "$T/log")" -gt $n' ||
    fail "not started again by the reload"
PORT=$(mport)
wait_val chainwatch_up 1 10
ok "reload: stopped with metrics_listen = none, started again with an address"

# A server that cannot be run is not restarted until its settings change.
sed -i "s|^metrics_server = .*|metrics_server = $T/no-such-server|" "$T/chainwatch.conf"
kill -HUP "$DAEMON_PID"
wait_for 20 'grep -q "metrics: chainwatch-metrics failed its setup; not restarting" "$T/log"' ||
    fail "a server that cannot be run is not parked"
n=$(grep -c ' metrics: listening on ' "$T/log")
sed -i "s|^metrics_server = .*|metrics_server = $METRICS|" "$T/chainwatch.conf"
kill -HUP "$DAEMON_PID"
wait_for 20 'test "$(grep -c " metrics: listening on " "$T/log")" -gt $n' ||
    fail "not started again once metrics_server is right"
PORT=$(mport)
wait_val chainwatch_up 1 10
ok "a metrics_server that cannot be run is parked, and started once fixed"

# Shutdown stops it too.
last=$(mpid)
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "daemon exited with $?"
dead "$last" || fail "chainwatch-metrics pid $last outlived the daemon"
grep -q "metrics: pid $last stopped" "$T/log" || fail "no log of its stop"
ok "SIGTERM: the daemon stops the metrics server and exits 0"
