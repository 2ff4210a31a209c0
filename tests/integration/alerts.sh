#!/bin/sh
# The Prometheus alert rules pass promtool's check and their unit tests
# (etc/prometheus/chainwatch.rules.test.yml), and every metric, label
# and fixed label value that the rules and the Grafana dashboard name is
# in a live scrape of chainwatch-metrics under chainwatchd following a
# devnode (tests/integration/promnames.py).
. "$top_srcdir/tests/integration/lib.sh"
command -v promtool >/dev/null || { echo "SKIP: no promtool (Debian package prometheus)"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
python3 -c 'import yaml' 2>/dev/null || { echo "SKIP: no python3-yaml"; exit 77; }
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

METRICS=$top_builddir/metrics/chainwatch-metrics
RULES=$top_srcdir/etc/prometheus/chainwatch.rules.yml
RTEST=$top_srcdir/etc/prometheus/chainwatch.rules.test.yml
DASH=$top_srcdir/etc/grafana/chainwatch.json
NAMES=$top_srcdir/tests/integration/promnames.py

promtool check rules "$RULES" >"$T/out" 2>&1 || { cat "$T/out"; fail "promtool check rules"; }
ok "$(grep -o '[0-9]* rules found' "$T/out")"
# promtool reads the rule file relative to the test file, from anywhere.
(cd "$T" && promtool test rules "$RTEST") >"$T/out" 2>&1 ||
    { cat "$T/out"; fail "promtool test rules"; }
grep -q SUCCESS "$T/out" || { cat "$T/out"; fail "promtool test rules said no SUCCESS"; }
ok "promtool test rules: $(grep -c 'alertname:' "$RTEST") alert checks pass"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$DASH" ||
    fail "$DASH is not JSON"
python3 "$NAMES" --selftest >"$T/out" 2>&1 || { cat "$T/out"; fail "promnames.py selftest"; }

# A live scrape: chainwatchd with its metrics server, following two
# devnodes until the daemon answers and its counters and histograms
# have samples.
mport() {
	sed -n 's/.* metrics: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' \
	    "$T/log" | tail -n 1
}
devnode d1 --seed alerts --block-time 500 --backlog 50 --miners 3
devnode d2 --seed alerts --block-time 500 --backlog 50 --miners 3
write_conf "$T/chainwatch.conf"
sed -i -e '/^metrics_listen/d' \
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
CONF
start_daemon
wait_for 20 'test -n "$(mport)"' || fail "no metrics server"
PORT=$(mport)
scrape() {
	curl -s -f -m 10 -o "$T/scrape" "http://127.0.0.1:$PORT/metrics"
}
has() {
	grep -q "^$1" "$T/scrape"
}
wait_for 60 'scrape && has "chainwatch_up 1" &&
    has "chainwatch_store_blocked{" &&
    has "chainwatch_chain_finalized_height{" &&
    has "chainwatch_endpoint_request_duration_seconds_bucket{" &&
    has "chainwatch_endpoint_heads_first_total{"' ||
    fail "no full scrape: $(cat "$T/scrape" 2>/dev/null | grep -v '^#' | head -n 20)"
ok "scraped chainwatch-metrics on 127.0.0.1:$PORT"

python3 "$NAMES" "$T/scrape" "$RULES" "$DASH" >"$T/out" 2>&1 ||
    { cat "$T/out"; fail "the rules or the dashboard name what chainwatch does not export"; }
ok "$(cat "$T/out")"

# The rules on the live scrape, held for 40 minutes: a healthy chain
# raises no alert at all.
LIVE=$top_srcdir/tests/integration/alerts_live.py
live() {
	rm -rf "$T/live" && mkdir "$T/live" &&
	python3 "$LIVE" "$RULES" "$T/scrape" "$T/live" "$@" >"$T/out" 2>&1 ||
	    { cat "$T/out"; fail "alerts_live.py"; }
	(cd "$T/live" && promtool test rules test.yml) >"$T/out" 2>&1 ||
	    { cat "$T/out"; fail "the rules on the scrape $(cp "$T/scrape" "$T/live/" && echo "in $T/live")"; }
}
wait_for 30 'scrape && has "chainwatch_chain_status{chain=\"devchain\",status=\"ok\"} 1" &&
    has "chainwatch_endpoint_state{chain=\"devchain\",endpoint=\"d2\",state=\"closed\"} 1"' ||
    fail "chain not ok: $(grep 'status\|_state{' "$T/scrape")"
live
ok "the rules on a live scrape of a healthy chain: no alert"

# d2 black-holed: once its breaker is open and the chain degraded, the
# same scrape held raises exactly these two alerts.
curl -s -m 5 -o /dev/null -d '{"enable":"blackhole"}' \
    "http://127.0.0.1:$d2_cport/control" || fail "devnode d2 control port"
wait_for 60 'scrape && has "chainwatch_chain_status{chain=\"devchain\",status=\"degraded\"} 1" &&
    has "chainwatch_endpoint_state{chain=\"devchain\",endpoint=\"d2\",state=\"closed\"} 0"' ||
    fail "d2 black-holed, but: $(grep 'status\|_state{' "$T/scrape")"
live ChainwatchChainDegraded:severity=warning,chain=devchain,status=degraded \
    ChainwatchEndpointUnreachable:severity=warning,chain=devchain,endpoint=d2
ok "the rules on a live scrape with d2 black-holed: ChainwatchChainDegraded, ChainwatchEndpointUnreachable for d2"

# The cross-check refuses a name chainwatch does not export.
sed 's/chainwatch_chain_tips/chainwatch_chain_forks/' "$DASH" >"$T/bad.json"
python3 "$NAMES" "$T/scrape" "$RULES" "$T/bad.json" >"$T/out" 2>&1 &&
    fail "promnames.py accepted a dashboard naming chainwatch_chain_forks"
grep -q 'chainwatch_chain_forks is not in the scrape' "$T/out" ||
    fail "promnames.py did not say why: $(cat "$T/out")"
ok "a dashboard naming a metric that is not exported is refused"
