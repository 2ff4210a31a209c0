#!/bin/sh
# HTTP faults, each checked with curl: refuse, reset, blackhole, slow,
# http_500, http_503, rate_limit, malformed, truncated, oversized; percentages and
# targets; the control path (POST /control on the main port, dev_fault)
# keeps working under them; --fault at start; a clean stop on SIGTERM
# with a request held by a fault.
. "$top_srcdir/tests/integration/devnode_lib.sh"
need_curl

dn_start f --block-time 100 --backlog 50
P=$f_port
C=$f_cport
REQ='{"jsonrpc":"2.0","id":7,"method":"chain_getBlockHash","params":[1]}'
good=$(rpc $P "$REQ")
expect "no fault" "$(jget "$good" 'j["id"]')" 7
# status BODYFILE: the HTTP status of REQ (000 when there is none).
status() {
	curl -s -m "${2:-5}" -o "$T/body" -w '%{http_code}' -d "$REQ" \
	    "http://127.0.0.1:$P/"
}
on() {
	ctl $C "{\"clear\":true,\"enable\":\"$1\"}"
}

on http_500
expect "http_500" "$(status)" 500
# The control path on the main port works whatever the HTTP faults.
curl -s -m 5 -d '{"clear":true,"enable":"http_503"}' \
    "http://127.0.0.1:$P/control" \
    >/dev/null || fail "POST /control on the main port under http_500"
expect "http_503" "$(status)" 503
r=$(rpc $P '{"jsonrpc":"2.0","id":1,"method":"dev_fault","params":["clear"]}')
expect "dev_fault under http_503" "$(jget "$r" 'j["result"]["faults"]')" "[]"
expect "cleared" "$(status)" 200

on rate_limit
expect "rate_limit status" "$(status)" 429
expect "rate_limit error" "$(jget "$(cat "$T/body")" 'j["error"]["code"]')" -32999

on malformed
expect "malformed status" "$(status)" 200
"$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/body" 2>/dev/null &&
    fail "malformed: the body parses as JSON"

on truncated
curl -s -m 5 -D "$T/hdr" -o "$T/body" -d "$REQ" "http://127.0.0.1:$P/"
rc=$?
expect "truncated: curl exit (partial file)" "$rc" 18
cl=$(tr -d '\r' <"$T/hdr" | sed -n 's/^[Cc]ontent-[Ll]ength: //p')
got=$(wc -c <"$T/body")
[ "$got" -lt "$cl" ] || fail "truncated: $got of $cl bytes"

on oversized
curl -s -m 20 -o "$T/big" -w '%{http_code}' -d "$REQ" "http://127.0.0.1:$P/" \
    >"$T/code"
expect "oversized status" "$(cat "$T/code")" 200
size=$(wc -c <"$T/big")
[ "$size" -ge 67108864 ] || fail "oversized: only $size bytes"
expect "oversized is JSON" \
    "$("$PY" -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["id"], len(j["result"]) > 1000)' "$T/big")" \
    "7 True"
rm -f "$T/big"

on slow:400
t0=$("$PY" -c 'import time; print(time.monotonic())')
expect "slow status" "$(status)" 200
el=$("$PY" -c "import time; print(int((time.monotonic() - $t0) * 1000))")
[ "$el" -ge 380 ] || fail "slow:400 answered in $el ms"

on blackhole
expect "blackhole" "$(status 1)" 000
# A request held by blackhole is answered once the fault is lifted.
curl -s -m 10 -o "$T/held" -d "$REQ" "http://127.0.0.1:$P/" &
held=$!
sleep 0.3
ctl $C '{"clear":true}'
wait $held || fail "held request not answered after blackhole"
expect "held answer" "$(jget "$(cat "$T/held")" 'j["id"]')" 7

on refuse
curl -s -m 2 -o /dev/null -d "$REQ" "http://127.0.0.1:$P/"
expect "refuse: connection refused" "$?" 7
ctl $C '{"clear":true}'
expect "listening again" "$(status)" 200

# reset: accepted, then a TCP RST; curl sees it while connecting (7) or
# reading (56), and says "reset" either way, never "refused".
on reset
curl -sSv -m 2 -o /dev/null -d "$REQ" "http://127.0.0.1:$P/" 2>"$T/err"
rc=$?
[ $rc -eq 7 ] || [ $rc -eq 56 ] || fail "reset: curl exit $rc"
grep -q "reset by peer" "$T/err" || fail "reset: curl said $(tail -3 "$T/err")"
ctl $C '{"clear":true}'

# Half the answers: exactly every second one fails.
on 'http_500%50'
codes=""
for i in 1 2 3 4; do codes="$codes $(status)"; done
expect "http_500%50" "$codes" " 200 500 200 500"

# Targets: a WebSocket-only fault leaves HTTP alone.
on 'slow:3000@ws'
expect "slow@ws over HTTP" "$(status 2)" 200
ctl $C '{"clear":true}'

# --fault at start.
dn_start g --block-time 100 --backlog 50 --fault http_503 --fault stall@ws
st=$(curl -s -m 5 "http://127.0.0.1:$g_cport/control")
expect "start faults" "$(jget "$st" 'j["faults"]')" '["http_503@http", "stall@ws"]'
expect "http_503 at start" \
    "$(curl -s -m 5 -o /dev/null -w '%{http_code}' -d "$REQ" "http://127.0.0.1:$g_port/")" 503

# A clean stop, with a request held by blackhole.
ctl $C '{"enable":"blackhole"}'
curl -s -m 10 -o /dev/null -d "$REQ" "http://127.0.0.1:$P/" &
sleep 0.3
kill -TERM "$f_pid"
i=0
while kill -0 "$f_pid" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 50 ] || fail "devnode did not stop in 5 s on SIGTERM"
	sleep 0.1
done
wait "$f_pid"
rc=$?
expect "exit status on SIGTERM" "$rc" 0
grep -q "stopped" "$T/f.log" || fail "no 'stopped' line"
kill -INT "$g_pid"
wait "$g_pid"
expect "exit status on SIGINT" "$?" 0
echo "http faults: ok"
