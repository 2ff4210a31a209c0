#!/bin/sh
# A chain's `format` that does not fit an endpoint is found at once (issue
# 12, item 3): each wrong format against each kind of devnode, alone and
# beside an endpoint of the right format on the same chain.  Two devnodes
# (quantus, substrate) and four chains in one daemon:
#   sub      format = substrate: s-sub (right) and q-sub (a quantus node)
#   qua      format = quantus:   q-qua (right) and s-qua (a substrate node)
#   subonly  format = substrate: q-lone alone
#   quaonly  format = quantus:   s-lone alone
# Each wrong endpoint ends quarantined with the reason "headers do not hash
# as FORMAT: is `format` right?" in the store, `chainwatch status` and
# `chainwatch endpoints`; not one block is stored from it (the right
# chains equal their devnode hash by hash, the lone ones hold nothing);
# `chainwatch verify` is clean and the daemon keeps running.  Then the
# lone chains' format is corrected and the daemon reloaded: the quarantine
# ends and their blocks are the devnode's.  Last, the probe: chain swap
# (substrate) follows a substrate node until a quantus node takes its
# port; the endpoint is quarantined for its format and not one of the
# quantus node's blocks is stored.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
CLI=$top_builddir/cli/chainwatch
CHECK=$top_srcdir/tests/integration/store_check.py

devnode q --seed wrong-format --block-time 200 --backlog 150
devnode s --seed wrong-format --format substrate --block-time 200 \
    --backlog 150
qu="http://127.0.0.1:$q_port ws://127.0.0.1:$q_port"
su="http://127.0.0.1:$s_port ws://127.0.0.1:$s_port"
# swapnode FORMAT: the node behind chain swap's URL (the same port once it
# is known), its chain fixed by seed and start time; sets x_pid, x_port.
X_START=$(date +%s%3N)
swapnode() {
	rm -f "$T/x.port" "$T/x.cport"
	"$DEVNODE" --listen "127.0.0.1:${x_port:-0}" \
	    --control-listen 127.0.0.1:0 --port-file "$T/x.port" \
	    --control-port-file "$T/x.cport" --cache-dir none --seed swap \
	    --format "$1" --block-time 200 --backlog 150 \
	    --start-time "$X_START" >>"$T/x.log" 2>&1 &
	x_pid=$!
	CW_PIDS="$CW_PIDS $x_pid"
	wait_for 60 "test -s '$T/x.port' && test -s '$T/x.cport'" ||
	    fail "devnode x ($1) did not start"
	x_port=$(cat "$T/x.port")
}
swapnode substrate

# The test's daemon section, and its own chains.
write_conf "$T/daemon.conf"
sed '/^\[chain /,$d' "$T/daemon.conf" >"$T/chainwatch.conf"
# chains SUBONLY_FORMAT QUAONLY_FORMAT
chains() {
	sed '/^\[chain /,$d' "$T/daemon.conf"
	cat <<CONF
[chain sub]
format = substrate
block_time = 200ms
endpoint = s-sub $su
endpoint = q-sub $qu

[chain qua]
difficulty_floor = 1
format = quantus
block_time = 200ms
endpoint = q-qua $qu
endpoint = s-qua $su

[chain subonly]
format = $1
block_time = 200ms
endpoint = q-lone $qu

[chain quaonly]
format = $2
block_time = 200ms
endpoint = s-lone $su

[chain swap]
format = substrate
block_time = 200ms
endpoint = x-swap http://127.0.0.1:$x_port ws://127.0.0.1:$x_port
CONF
}
chains substrate quantus >"$T/chainwatch.conf"
t_start=$(date +%s%3N)
start_daemon

state() {
	sql "SELECT state || '|' || coalesce(state_reason, '') FROM endpoints WHERE name = '$1'"
}
reason_sub='headers do not hash as substrate: is `format` right?'
reason_qua='headers do not hash as quantus: is `format` right?'
for e in q-sub q-lone; do
	wait_for 60 "test \"\$(state $e)\" = 'quarantined|$reason_sub'" ||
	    fail "$e: '$(state $e)', not quarantined for its format"
done
for e in s-qua s-lone; do
	wait_for 60 "test \"\$(state $e)\" = 'quarantined|$reason_qua'" ||
	    fail "$e: '$(state $e)', not quarantined for its format"
done
last=$(sql "SELECT max(state_since) FROM endpoints WHERE name IN ('q-sub', 'q-lone', 's-qua', 's-lone')")
ok "the four wrong endpoints quarantined, each naming its chain's format, the last $((last - t_start)) ms after the daemon started"
grep -q 'w/q-sub: headers do not hash as substrate: .* (header: #[0-9]* hashes to 0x.* as substrate, not 0x' "$T/log" ||
    fail "the log does not show the evidence for q-sub"

# The right endpoints keep working: caught up past the backlog, and live.
caught_up() {
	test "$(sql "SELECT count(*) FROM queue q JOIN chains c ON c.id = q.chain_id WHERE c.name = '$1'")" = 0 &&
	    test "$(sql "SELECT coalesce(best_number, 0) FROM chains WHERE name = '$1'")" -gt "$2"
}
for c in sub qua swap; do
	wait_for 90 "caught_up $c 170" ||
	    fail "chain $c not caught up: best $(sql "SELECT best_number FROM chains WHERE name = '$c'")"
done
for e in s-sub q-qua x-swap; do
	[ "$(state $e)" = 'closed|' ] || fail "$e: '$(state $e)', not closed"
done
ok "the right endpoints closed; sub at #$(sql "SELECT best_number FROM chains WHERE name = 'sub'"), qua at #$(sql "SELECT best_number FROM chains WHERE name = 'qua'")"

# What people see: the endpoint's line, "quarantined" and the reason on
# it or on the two lines below it.
# shown FILE ENDPOINT REASON
shown() {
	/usr/bin/python3 - "$@" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
for i, l in enumerate(lines):
    if l.split()[:1] == [sys.argv[2]]:
        near = lines[i:i + 3]
        if any("quarantined" in n.split() for n in near) and \
                any(n.strip() == sys.argv[3] for n in near):
            sys.exit(0)
sys.exit(1)
PY
}
"$CLI" -d "$T/chainwatch.db" status >"$T/status" 2>&1
"$CLI" -d "$T/chainwatch.db" endpoints >"$T/endpoints" 2>&1
for f in status endpoints; do
	for e in q-sub:sub q-lone:sub s-qua:qua s-lone:qua; do
		eval "reason=\$reason_${e#*:}"
		shown "$T/$f" "${e%:*}" "$reason" ||
		    { cat "$T/$f"; fail "$f: ${e%:*} not shown quarantined for its format"; }
	done
done
"$CLI" -d "$T/chainwatch.db" endpoints --json >"$T/endpoints.json" 2>&1
/usr/bin/python3 - "$T/endpoints.json" "$reason_sub" "$reason_qua" <<'PY' ||
import json, sys
doc = json.load(open(sys.argv[1]))
eps = {}
def walk(o):
    if isinstance(o, dict):
        if "name" in o and "state" in o:
            eps[o["name"]] = o
        for v in o.values():
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(doc)
want = {"q-sub": sys.argv[2], "q-lone": sys.argv[2], "s-qua": sys.argv[3],
        "s-lone": sys.argv[3]}
for name, reason in want.items():
    e = eps.get(name)
    if e is None or e["state"] != "quarantined" or e.get("reason") != reason:
        sys.exit("%s: %s" % (name, e))
PY
    fail "endpoints --json: $(cat "$T/endpoints.json")"
ok "status and endpoints show each quarantine and its reason"

# Not one block from a wrong endpoint, nor of a lone wrong chain.
from_wrong=$(sql "SELECT count(*) FROM blocks b JOIN endpoints e ON e.id = b.first_endpoint_id WHERE e.name IN ('q-sub', 's-qua', 'q-lone', 's-lone')")
[ "$from_wrong" = 0 ] || fail "$from_wrong blocks stored from a wrong endpoint"
lone=$(sql "SELECT count(*) FROM blocks b JOIN chains c ON c.id = b.chain_id WHERE c.name IN ('subonly', 'quaonly')")
[ "$lone" = 0 ] || fail "$lone blocks stored on the chains with a wrong format"
for c in sub qua; do
	n=$(sql "SELECT count(*) FROM blocks b JOIN chains c ON c.id = b.chain_id WHERE c.name = '$c' AND b.canonical = 0")
	[ "$n" = 0 ] || fail "chain $c: $n non-canonical blocks, though the devnodes never reorg"
done
ok "no block from a wrong endpoint"

alive $DAEMON_PID || fail "the daemon is gone"
"$CLI" -d "$T/chainwatch.db" verify >"$T/verify.out" 2>&1 ||
    { cat "$T/verify.out"; fail "chainwatch verify found differences"; }
/usr/bin/python3 "$CHECK" "$T/chainwatch.db" sub "$s_port" --margin 20 --live ||
    fail "chain sub differs from the substrate devnode"
/usr/bin/python3 "$CHECK" "$T/chainwatch.db" qua "$q_port" --margin 20 --live ||
    fail "chain qua differs from the quantus devnode"
ok "sub and qua equal their devnodes hash by hash; verify clean"

# A corrected configuration ends the quarantine, as for a wrong genesis:
# the lone endpoints' workers restart with the right format.
chains quantus substrate >"$T/chainwatch.conf"
kill -HUP $DAEMON_PID
for e in q-lone s-lone; do
	wait_for 60 "test \"\$(state $e)\" = 'closed|'" ||
	    fail "$e: '$(state $e)' after the format was corrected"
done
for c in subonly quaonly; do
	wait_for 90 "caught_up $c 170" ||
	    fail "chain $c not caught up after the reload"
done
grep -q 'w/q-lone: serves the chain.s genesis again' "$T/log" ||
    fail "the end of q-lone's quarantine is not logged"
for e in q-sub s-qua; do
	[ "$(state $e)" = "quarantined|$(if [ $e = q-sub ]; then echo "$reason_sub"; else echo "$reason_qua"; fi)" ] ||
	    fail "$e: '$(state $e)' after a reload that did not fix it"
done
ok "after the reload the lone chains follow their nodes; q-sub, s-qua stay quarantined"

# Another node behind the same URL, of the other format: the worker's
# probe finds out and the endpoint is quarantined for its format.
kill -TERM $x_pid
wait $x_pid 2>/dev/null
t_swap=$(date +%s%3N)
swapnode quantus
wait_for 60 "test \"\$(state x-swap)\" = 'quarantined|$reason_sub'" ||
    fail "x-swap: '$(state x-swap)' after a quantus node took its port"
t_q=$(date +%s%3N)
ok "x-swap quarantined for its format $((t_q - t_swap)) ms after the quantus node took its port"
kill -TERM $x_pid
wait $x_pid 2>/dev/null

kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
# The substrate node of chain swap again (the same chain, on a new port):
# the store holds its blocks only.
x_port=
swapnode substrate
n=$(sql "SELECT count(*) FROM blocks b JOIN chains c ON c.id = b.chain_id WHERE c.name = 'swap' AND b.canonical = 0")
[ "$n" = 0 ] || fail "chain swap: $n non-canonical blocks"
/usr/bin/python3 "$CHECK" "$T/chainwatch.db" swap "$x_port" --margin 0 ||
    fail "chain swap holds a block its substrate node does not have"
for c in subonly:$q_port quaonly:$s_port sub:$s_port qua:$q_port; do
	/usr/bin/python3 "$CHECK" "$T/chainwatch.db" "${c%%:*}" "${c#*:}" \
	    --margin 20 || fail "chain ${c%%:*} differs from its devnode"
done
"$CLI" -d "$T/chainwatch.db" verify >"$T/verify.out" 2>&1 ||
    { cat "$T/verify.out"; fail "chainwatch verify found differences"; }
ok "every chain equals its devnode; verify clean"
