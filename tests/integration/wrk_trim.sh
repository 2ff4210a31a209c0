#!/bin/sh
# What a burst took in a worker is given back (wrk_http.c): a backfill
# has many requests out at once, each in a slot of its own (an easy
# handle, its buffers); once it is over and the endpoint only follows,
# the slots beyond the most in use since are freed within a minute,
# rather than kept for the worker's life.
. "$top_srcdir/tests/integration/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }

devnode d1 --seed trim --block-time 1000 --backlog 3000
write_conf "$T/chainwatch.conf"
echo "endpoint = e1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port" \
    >>"$T/chainwatch.conf"
start_daemon

wait_for 120 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(sql "SELECT best_number FROM chains")" -gt 3000' ||
    fail "not caught up: best $(sql 'SELECT best_number FROM chains')"
ok "backfilled to #$(sql 'SELECT best_number FROM chains')"
# Freed down to the few a followed chain needs (probes, a block's reads).
wait_for 90 'grep -q " w/e1: http: [0-9]* idle request slots* freed, [0-9] kept$" "$T/log"' ||
    fail "e1's idle request slots were not freed down to a few: $(grep -o 'http: [0-9]* idle request.*' "$T/log" | tail -n 3 | tr '\n' ';')"
ok "e1: $(grep -o 'http: [0-9]* idle request slots* freed, [0-9] kept$' "$T/log" | tail -n 1)"
