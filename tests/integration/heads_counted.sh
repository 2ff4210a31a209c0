#!/bin/sh
# Every head an endpoint delivers is counted (endpoints.heads_seen, and
# heads_first when it brought the block first), those held as claims too:
# here the two heads that make the first best on an empty store.  Two
# devnodes of one chain with blocks every 120 s, so that nothing comes
# after the first heads for two minutes: the counts are theirs alone.
# They stayed 0 until the next block (an endpoint shown as never heard
# for a block time, 12 s on Quantus; bench/scale's readiness as late).
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }

chain_conf counted 120000 30 d1 d2
start_daemon
wait_for 60 'grep -q "first head #30 .*: two endpoints agree on it" "$T/log"' ||
    fail "no first best from the two endpoints' heads"
wait_for 30 'test "$(sql "SELECT count(*) FROM endpoints WHERE heads_seen = 1")" -eq 2 && test "$(sql "SELECT sum(heads_first) FROM endpoints")" -eq 1' ||
    fail "the first heads are not counted: $(sql "SELECT group_concat(name || ' seen ' || heads_seen || ' first ' || heads_first, ', ') FROM endpoints")"
[ "$(head_of d1)" -eq 30 ] || fail "a block came since (d1 at #$(head_of d1)): the counts are not the first heads'"
ok "the two heads that made the first best counted: $(sql "SELECT group_concat(name || ' seen ' || heads_seen || ' first ' || heads_first, ', ') FROM endpoints")"
