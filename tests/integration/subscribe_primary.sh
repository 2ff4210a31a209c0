#!/bin/sh
# subscribe = primary (issue 13, item 1): one chainwatchd, chain "prim"
# on three devnodes of one seed (d1 d2 d3, in that order) and chain "all"
# with subscribe = all on two more.  Each devnode tells how many WebSocket
# connections it holds (control status, wsConnections): of prim's, only
# the holder of the subscription has one.  The holder is killed (kill -9,
# then started again on its port), black-holed, ws_drop-ed and
# ws_silent-ed in turn: each time the subscription moves within a
# deadline (the time it took is printed) to the endpoint the rule names,
# and at the end back to d1 once d1 has been healthy for the stable
# period (30 s at these block times).  At the end
# no height is missing: the store is the devnode's chain hash by hash
# (store_check.py) and `chainwatch verify` agrees.  Chain "all" keeps a
# subscription on each of its endpoints throughout.  `chainwatch status`
# names the holder each time, in its text and --json.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
CW=$top_builddir/cli/chainwatch

MOVE_DEADLINE=20	# s: a generous bound; the figure is printed
BACK_DEADLINE=90	# s: the stable period (30 s), and a margin

now=$(date +%s%3N)
for n in 1 2 3; do
	devnode d$n --seed subprim --block-time 300 --backlog 30 \
	    --start-time "$now"
done
for n in a b; do
	devnode d$n --seed suball --block-time 300 --backlog 30 \
	    --start-time "$now"
done

ep() {
	eval "_p=\$d${1}_port"
	echo "endpoint = d$1 http://127.0.0.1:$_p ws://127.0.0.1:$_p"
}
write_conf "$T/chainwatch.conf"
sed -i 's/^\[chain devchain\]/[chain prim]/; s/^block_time = .*/block_time = 300ms/' \
    "$T/chainwatch.conf"
cat >>"$T/chainwatch.conf" <<CONF
subscribe = primary
request_timeout = 2s
breaker_min_span = 1s
breaker_cooldown = 1s
breaker_cooldown_max = 2s
$(ep 1)
$(ep 2)
$(ep 3)

[chain all]
difficulty_floor = 1
block_time = 300ms
subscribe = all
$(ep a)
$(ep b)
CONF

# wsc N: devnode dN's WebSocket connections (-1: it does not answer).
wsc() {
	eval "_cp=\$d${1}_cport"
	curl -s -m 2 "http://127.0.0.1:$_cp/control" 2>/dev/null |
	    python3 -c 'import json,sys; print(json.load(sys.stdin)["wsConnections"])' \
	    2>/dev/null || echo -1
}
# holder N [SKIP]: dN holds prim's one connection, the others none (but
# devnode SKIP, black-holed: it does not see its connections close).
holder() {
	for _n in 1 2 3; do
		[ "$_n" = "$2" ] && continue
		_c=$(wsc $_n)
		if [ "$_n" = "$1" ]; then
			[ "$_c" = 1 ] || return 1
		else
			[ "$_c" = 0 ] || [ "$_c" = -1 ] || return 1
		fi
	done
}
counts() {
	echo "d1=$(wsc 1) d2=$(wsc 2) d3=$(wsc 3)"
}
fault() {
	eval "_cp=\$d${1}_cport"
	_code=$(curl -s -m 5 -o "$T/fault.out" -w '%{http_code}' -d "$2" \
	    "http://127.0.0.1:$_cp/control")
	[ "$_code" = 200 ] || fail "d$1 refused $2: $_code $(cat "$T/fault.out")"
}
ms() {
	date +%s%3N
}
# said N: chainwatch status says dN holds prim's subscription, in its text
# and its --json; chain all, subscribe = all, names no holder.
said() {
	"$CW" -d "$T/chainwatch.db" -s "$T/chainwatchd.sock" status \
	    >"$T/st.txt" 2>&1
	grep -q "^  subscription on d$1 since [0-9:]*\$" "$T/st.txt" || return 1
	[ "$(grep -c '^  subscription' "$T/st.txt")" = 1 ] || return 1
	"$CW" -d "$T/chainwatch.db" -s "$T/chainwatchd.sock" status --json \
	    >"$T/st.json" 2>&1
	python3 - "$T/st.json" "d$1" <<'PY'
import json, sys
c = {x["name"]: x for x in json.load(open(sys.argv[1]))["chains"]}
p, a = c["prim"], c["all"]
assert p["subscribe"] == "primary", p
assert p["subscription"]["endpoint"] == sys.argv[2], p["subscription"]
assert p["subscription"]["live"] is True, p["subscription"]
assert isinstance(p["subscription"]["since"], int), p["subscription"]
assert a["subscribe"] == "all" and a["subscription"] is None, a
PY
}

start_daemon
wait_for 30 holder 1 || fail "d1 does not hold the only subscription: $(counts)"
ok "d1, first in order, holds prim's only subscription: $(counts)"
wait_for 10 said 1 || { cat "$T/st.txt" "$T/st.json"; fail "status does not say d1 holds the subscription"; }
ok "chainwatch status names d1 as the holder: $(grep '^  subscription' "$T/st.txt")"
wait_for 30 'test "$(wsc a)" = 1 && test "$(wsc b)" = 1' ||
    fail "subscribe = all: da=$(wsc a) db=$(wsc b), not one each"
ok "subscribe = all: both endpoints of chain all subscribed"
# It stays so: d2 and d3 open no subscription of their own.
sleep 3
holder 1 || fail "after 3 s: $(counts)"

# scenario NAME FROM TO BREAK MEND [1]: break dFROM, which holds the
# subscription; it moves to dTO within the deadline; mend dFROM.  With 1,
# dFROM's own count is not read while it is broken (black-holed), and
# once mended it must see its old connection closed by the worker.
# The faults follow one another within the stable period, so each move
# also shows the choice among endpoints that all failed lately: the one
# whose failure is oldest.
scenario() {
	_name=$1 _from=$2 _to=$3
	t0=$(ms)
	eval "$4"
	wait_for $MOVE_DEADLINE holder $_to ${6:+$_from} ||
	    fail "$_name: the subscription did not move from d$_from to d$_to within ${MOVE_DEADLINE} s: $(counts)"
	moved=$(( $(ms) - t0 ))
	echo "measured: $_name: moved to d$_to in $moved ms"
	grep "chain prim: subscription moves from d$_from to d$_to" "$T/log" |
	    tail -n 1 | grep . || fail "$_name: no log line of the move"
	wait_for 10 said $_to || { cat "$T/st.txt" "$T/st.json"; fail "$_name: status does not name d$_to as the holder"; }
	eval "$5"
	if [ -n "$6" ]; then
		wait_for 20 holder $_to ||
		    fail "$_name: d$_from still holds a connection once mended: $(counts)"
	fi
	ok "$_name of d$_from: moved to d$_to in $moved ms"
}

kill_d1='kill -9 $(pgrep -P $$ -f "$T/d1.port"); d1_old=$d1_port'
restart_d1='rm -f "$T/d1.port" "$T/d1.cport"; devnode d1 --seed subprim --block-time 300 --backlog 30 --start-time "$now" --listen 127.0.0.1:$d1_old'
# d1 killed: d2, never failed.  d2 black-holed: d3, never failed.  d3
# dropped: d1 and d2 failed lately, d1 first.  d1 silent: d2 (d3's
# failure is later).
scenario "kill -9" 1 2 "$kill_d1" "$restart_d1"
[ "$d1_port" = "$d1_old" ] || fail "d1 came back on port $d1_port, not $d1_old"
scenario blackhole 2 3 "fault 2 '{\"enable\":\"blackhole\"}'" \
    "fault 2 '{\"clear\":true}'" 1
scenario ws_drop 3 1 "fault 3 '{\"enable\":\"ws_drop\"}'" \
    "fault 3 '{\"clear\":true}'"
scenario ws_silent 1 2 "fault 1 '{\"enable\":\"ws_silent\"}'" \
    "fault 1 '{\"clear\":true}'"
# d1, first in order, takes it back once healthy for the stable period.
t1=$(ms)
wait_for $BACK_DEADLINE holder 1 ||
    fail "the subscription did not come back to d1 within ${BACK_DEADLINE} s: $(counts)"
back=$(( $(ms) - t1 ))
echo "measured: back on d1 $back ms after it was mended"
[ $back -ge 25000 ] || fail "back on d1 after $back ms, before the stable period"
wait_for 10 said 1 || { cat "$T/st.txt" "$T/st.json"; fail "status does not name d1 again"; }
ok "back on d1 after $back ms (the stable period is 30 s)"
test "$(wsc a)" = 1 && test "$(wsc b)" = 1 ||
    fail "subscribe = all: da=$(wsc a) db=$(wsc b) at the end"

# Nothing missed: caught up, the store is the chain.
wait_for 60 'test "$(sql "SELECT count(*) FROM queue")" = 0' ||
    fail "queue not drained: $(sql 'SELECT * FROM queue_summary')"
kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
/usr/bin/python3 "$top_srcdir/tests/integration/store_check.py" \
    "$T/chainwatch.db" prim "$d2_port" --margin 5 ||
    fail "the store of prim differs from the devnode's chain"
"$CW" -d "$T/chainwatch.db" verify >"$T/verify.out" 2>&1 ||
    { cat "$T/verify.out"; fail "chainwatch verify found differences"; }
ok "no height missed: the store is the chain, and verify agrees"
