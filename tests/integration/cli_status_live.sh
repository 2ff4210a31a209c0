#!/bin/sh
# chainwatch status against a running chainwatchd following three devnodes
# of one chain (300 ms blocks), as a script sees it (issue 29): ok, exit
# 0; one node 25 blocks behind (lag:25) named behind, exit 1; one whose
# head froze (stall) named stuck, exit 1; a typo in a chain section of
# the configuration, status still answering from the store with a
# warning; the daemon killed, status saying so at once, exit 7; and a
# control socket that does not answer, the pidfile telling.
. "$top_srcdir/tests/integration/cli_lib.sh"
[ -x "$CHAINWATCHD" ] || fail "no $CHAINWATCHD"
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }

chain_conf live 300 40 d1 d2 d3
start_daemon

# st [ARGS]: chainwatch status on the configuration, its output in
# $T/st, its standard error in $T/st.err, its exit status in $rc.
st() {
	cw -f "$T/chainwatch.conf" status "$@" >"$T/st" 2>"$T/st.err"
	rc=$?
}
# jget EXPR: a python3 expression over the --json in $T/st (j).
jget() {
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$T/st" "$1"
}
# conds: each endpoint's condition in the --json in $T/st.
conds() {
	jget '" ".join(str(e["condition"]) for e in j["chains"][0]["endpoints"])'
}
shown() {
	echo "exit $rc; $(cat "$T/st" "$T/st.err")"
}

wait_for 60 'st --json; [ $rc = 0 ] && [ "$(conds)" = "ok ok ok" ]' ||
    fail "never ok with every endpoint's head: $(shown)"
st
[ $rc = 0 ] && grep -q '^devchain: ok: 3 endpoints healthy$' "$T/st" ||
    fail "status of a healthy chain: $(shown)"
st --json
[ $rc = 0 ] && [ "$(jget 'j["daemon_running"]')" = True ] &&
    [ "$(jget 'j["daemon_store"]["state"]')" = ok ] &&
    [ "$(conds)" = "ok ok ok" ] ||
    fail "--json of a healthy chain: $(shown)"
ok "three endpoints following: ok, exit 0, daemon_running true"

# d2 a node still syncing 25 blocks behind: behind, named, how far and
# since when.
control d2 '{"enable": "lag:25"}'
wait_for 30 'st; [ $rc = 1 ] && grep -Eq "^devchain: degraded: 1 of 3 endpoints behind: d2, [0-9]+ blocks behind since [0-9:]+$" "$T/st"' ||
    fail "d2 25 blocks behind, not named behind: $(shown)"
st --json
[ $rc = 1 ] && [ "$(conds)" = "ok behind ok" ] &&
    [ "$(jget 'j["chains"][0]["endpoints"][1]["behind"] >= 3')" = True ] ||
    fail "--json with d2 behind: $(shown)"
cw -f "$T/chainwatch.conf" endpoints >"$T/eps" 2>&1 &&
    grep -Eq '^    behind: [0-9]+ blocks below the best for ' "$T/eps" ||
    fail "endpoints does not say d2 is behind: $(cat "$T/eps")"
st
ok "d2 lag:25: $(head -n 1 "$T/st"), exit $rc; endpoints says so"

# d2 synced; d3's head frozen while d1 and d2 go on: stuck.
control d2 '{"disable": "lag:25"}'
control d3 '{"enable": "stall"}'
wait_for 30 'st; [ $rc = 1 ] && grep -Eq "^devchain: degraded: 1 of 3 endpoints stuck: d3, stuck at #[0-9]+ since [0-9:]+$" "$T/st"' ||
    fail "d3 stalled, not named stuck: $(shown)"
st --json
[ $rc = 1 ] && [ "$(conds)" = "ok ok stuck" ] ||
    fail "--json with d3 stuck: $(shown)"
st
ok "d3 stall: $(head -n 1 "$T/st"), exit $rc"

# A typo in the chain section of the file the daemon runs on: the views
# need only [daemon]'s database, control_socket and pidfile, so status
# answers as before, after a warning naming the error.
sed 's/^block_time = /blok_time = /' "$T/chainwatch.conf" >"$T/typo.conf"
cw -f "$T/typo.conf" status >"$T/typo" 2>"$T/typo.err"
trc=$?
cw -f "$T/chainwatch.conf" status >"$T/st" 2>/dev/null
[ $trc = 1 ] && grep -q '^devchain: degraded: 1 of 3 endpoints stuck: d3' "$T/typo" ||
    fail "status with a typo in [chain devchain]: exit $trc: $(cat "$T/typo" "$T/typo.err")"
grep -q "^chainwatch: warning: $T/typo.conf:[0-9]*: unknown key 'blok_time' in \[chain\]" "$T/typo.err" ||
    fail "no warning naming the typo: $(cat "$T/typo.err")"
cw -f "$T/typo.conf" status --json >"$T/st" 2>/dev/null
[ "$(jget 'j["daemon_running"]')" = True ] ||
    fail "daemon_running with a typo in [chain devchain]: $(cat "$T/st")"
# A typo in [daemon] may be the store's key itself: still refused.
sed 's/^database = /databse = /' "$T/chainwatch.conf" >"$T/typo2.conf"
expect_rc 111 cw -f "$T/typo2.conf" status >/dev/null 2>"$T/typo2.err"
grep -q 'cannot tell where the store is' "$T/typo2.err" ||
    fail "a typo in [daemon]: $(cat "$T/typo2.err")"
ok "a typo in a chain section: status exits 1 as before, with a warning; one in [daemon]: 111"

# The daemon killed: nothing answers on its socket, so status says so on
# its first line and exits 7, at once, not 10 block times later.
kill -KILL $DAEMON_PID
wait $DAEMON_PID 2>/dev/null
st
cp "$T/st" "$T/killed"
# (The line wraps at 80 columns.)
[ $rc = 7 ] && sed -n '1,/^$/p' "$T/st" | tr -s ' \n' '  ' |
    grep -Eq "^chainwatchd: not running \(nothing answers on $T/chainwatchd.sock\); the store as of [0-9]+ (ms|s) ago $" ||
    fail "status of a killed daemon: $(shown)"
st --json
[ $rc = 7 ] && [ "$(jget 'j["daemon_running"]')" = False ] &&
    [ "$(jget 'j["daemon_store"]')" = None ] &&
    [ "$(jget 'j["chains"][0]["stale"]')" = True ] ||
    fail "status --json of a killed daemon: $(shown)"
ok "daemon killed: '$(head -n 1 "$T/killed")...', exit 7 at once"

# A socket that takes connections and never answers (a hung daemon, or
# one we may not ask): the pidfile tells.  Its daemon is dead: not
# running.  A live process in it: running, though it says nothing.
rm -f "$T/chainwatchd.sock"
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(8)
open(sys.argv[2], "w").close()
time.sleep(120)
' "$T/chainwatchd.sock" "$T/listening" &
CW_PIDS="$CW_PIDS $!"
wait_for 10 'test -f "$T/listening"' || fail "no silent socket"
[ -s "$T/chainwatchd.pid" ] || fail "the killed daemon left no pidfile"
st --json
[ $rc = 7 ] && [ "$(jget 'j["daemon_running"]')" = False ] ||
    fail "a silent socket, a dead daemon's pidfile: $(shown)"
sleep 60 &
live=$!
CW_PIDS="$CW_PIDS $live"
echo $live >"$T/chainwatchd.pid"
st --json
[ $rc != 7 ] && [ "$(jget 'j["daemon_running"]')" = True ] ||
    fail "a silent socket, a live pid in the pidfile: $(shown)"
ok "a silent socket: the pidfile's dead daemon is not running, a live one runs"
