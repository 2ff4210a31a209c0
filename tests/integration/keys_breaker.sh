#!/bin/sh
# The breaker, hedging and concurrency keys of chainwatch.conf(5), each
# proven through chainwatchd's configuration (issue 13, item 5; the map of
# every key to its test is at the top of keys.sh).  One daemon, one chain
# per key, each on its own devnodes, each set so that the default value of
# its key would give another result:
#   rate   breaker_failure_rate = 15: 25% of answers fail (default 50:
#          never opens); opened by the rate rule at 15..49%
#   win    breaker_window = 2s: after healthy traffic, all answers fail;
#          the opening rate counts only the last 2 s of outcomes, far
#          fewer than the endpoint had (default 60 s: all of them)
#   min    breaker_min_samples = 60: every answer fails from the start;
#          the rate rule waits for 60 outcomes (default: 20)
#   cool   breaker_cooldown = 200ms, breaker_cooldown_max = 400ms: failed
#          trials come 200 ms, then 400 ms apart and no further (defaults:
#          5 s, doubling up to 5 min)
#   hedge  hedge_after = 250ms, hedge_quantile = 0: reads of a slowed
#          preferred endpoint are hedged after 250 ms (default: 1 s), and
#          never sooner (the quantile is off)
#   quant  hedge_quantile = 30, hedge_after = 60s: reads keep being hedged
#          after ~50 ms although half the latencies are slow (default 95:
#          the delay climbs to the slow latency and hedging stops)
#   infl   max_inflight = 7: an endpoint has 7 requests out (default: 64),
#          never more: its adaptive window grows to the cap on a slow
#          endpoint whose latency stays flat, over a backlog long enough
#          to keep it busy the whole test
# The run rule is kept out of the rate chains (breaker_consecutive =
# 1000).  Timed checks are lower bounds, or bounded by what the default
# the key replaces would give (upper bounds widened by CW_WAIT_FACTOR up
# to that, never past it); measured figures are printed.
. "$top_srcdir/tests/integration/lib.sh"
TF=${CW_WAIT_FACTOR:-1}
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }

now=$(date +%s%3N)
for n in r w m; do
	devnode d$n --seed keys-$n --block-time 200 --backlog 20
done
# The endpoints of one chain serve one chain: one seed, one start time.
for n in c1 c2; do
	devnode d$n --seed keys-c --block-time 200 --backlog 20 --start-time $now
done
for n in h1 h2; do
	devnode d$n --seed keys-h --block-time 200 --backlog 20 --start-time $now
done
for n in q1 q2; do
	devnode d$n --seed keys-q --block-time 200 --backlog 20 --start-time $now
done
for n in i1 i2; do
	devnode d$n --seed keys-i --block-time 500 --backlog 20000 \
	    --start-time $now --fault slow:1000@http
done

# fault DEVNODE JSON: a control request.
fault() {
	eval "_cp=\$d${1}_cport"
	_code=$(curl -s -m 5 -o "$T/fault.out" -w '%{http_code}' -d "$2" \
	    "http://127.0.0.1:$_cp/control")
	[ "$_code" = 200 ] || fail "d$1 refused $2: $_code $(cat "$T/fault.out")"
}
ep() {
	eval "_p=\$d${1}_port"
	echo "endpoint = $1 http://127.0.0.1:$_p ws://127.0.0.1:$_p"
}
# The rate rule alone, opened for good.
rate_only="breaker_consecutive = 1000
breaker_cooldown = 1h
breaker_cooldown_max = 1h"

write_conf "$T/chainwatch.conf"
sed -i 's/^\[chain devchain\]/[chain rate]/; s/^block_time = .*/block_time = 200ms/' \
    "$T/chainwatch.conf"
cat >>"$T/chainwatch.conf" <<CONF
breaker_failure_rate = 15
breaker_window = 10s
breaker_min_samples = 5
$rate_only
$(ep r)

[chain win]
difficulty_floor = 1
block_time = 200ms
breaker_window = 2s
breaker_min_samples = 5
$rate_only
$(ep w)

[chain min]
difficulty_floor = 1
block_time = 200ms
breaker_min_samples = 60
$rate_only
$(ep m)

[chain cool]
difficulty_floor = 1
block_time = 200ms
breaker_consecutive = 1
breaker_min_span = 0
breaker_cooldown = 200ms
breaker_cooldown_max = 400ms
$(ep c1)
$(ep c2)

[chain hedge]
block_time = 200ms
hedge_after = 250ms
hedge_quantile = 0
$(ep h1)
$(ep h2)

[chain quant]
block_time = 200ms
hedge_after = 60s
hedge_quantile = 30
$(ep q1)
$(ep q2)

[chain infl]
block_time = 500ms
request_timeout = 30s
max_inflight = 7
$(ep i1)
$(ep i2)
CONF
# At once, before any answer: m's every answer is a failure (its facts
# are fetched first, so it starts).
start_daemon
wait_for 30 'grep -q " sup: w/m: chain .* genesis" "$T/log"' || fail "m never started"
fault m '{"enable":"http_500@http"}'
m_mark=$(wc -l <"$T/log")

# opened EP: the reason of EP's first opening, from the log (a chain's
# only endpoint may close again at once: when all are open, requests
# still go to them, and one success closes).
opened() {
	sed -n 's/.* sup: w\/'"$1"': endpoint unhealthy: \(.*\); requests go elsewhere.*/\1/p' \
	    "$T/log" | head -n 1
}
# Outcomes of EP in the log's lines FROM to TO (every one reaches the
# breaker): its own polls, rate_limited aside, and the live reads leased
# to it.  Backfill answers are not logged: a lower bound.
outcomes() {
	sed -n "$2,$3p" "$T/log" |
	    grep -c -e " sup: w/$1: .* \(ok\|absent\|rpc_error\|http_4xx\|http_5xx\|transport\|timeout\|malformed\|too_large\) in [0-9]* ms" \
	    -e " sup: w/$1: live state #[0-9]* leased"
}
# "P% failures over W (F of N)" -> "P F N" (whatever names the failures)
rate_of() {
	echo "$1" | sed -n 's/^\([0-9]*\)% [^(]*(\([0-9]*\) of \([0-9]*\)).*/\1 \2 \3/p'
}
msec() {
	awk -F'[:. ]' '{ print ((($1 * 60) + $2) * 60 + $3) * 1000 + $4 }'
}

# Warm up: every chain followed for a while (the hedging delay has its
# samples, the window its healthy history).
wait_for 60 'grep -q " sup: w/h1: live state" "$T/log" && grep -q " sup: w/q1: live state" "$T/log"' ||
    fail "chains hedge and quant not followed"
wait_for 60 'test "$(outcomes w 1 \$)" -ge 60' ||
    fail "w had only $(outcomes w 1 \$) healthy outcomes"

! grep ' sup: w/.*quarantined' "$T/log" || fail "an endpoint is quarantined"
fault r '{"enable":"http_503@http%25"}'
w_from=$(($(wc -l <"$T/log") + 1))
fault w '{"enable":"http_500@http"}'
fault c1 '{"enable":"http_500@http"}'
fault h1 '{"enable":"slow:800@http"}'
fault q1 '{"enable":"slow:800@http"}'

# --- breaker_failure_rate
wait_for 60 'test -n "$(opened r)"' || fail "r did not open on 25% failures"
set -- $(rate_of "$(opened r)")
[ $# = 3 ] && [ "$1" -ge 15 ] && [ "$1" -lt 50 ] ||
    fail "r opened, but not by a rate of 15..49%: $(opened r)"
ok "breaker_failure_rate = 15: r opened: $(opened r)"

# --- breaker_window
wait_for 60 'test -n "$(opened w)"' || fail "w did not open"
set -- $(rate_of "$(opened w)")
[ $# = 3 ] || fail "w not opened by the rate rule: $(opened w)"
open_at=$(grep -n -m 1 ' sup: w/w: endpoint unhealthy' "$T/log" | cut -d: -f1)
had=$(outcomes w 1 "$open_at")
[ "$had" -ge 20 ] || fail "w had only $had outcomes: not a test of the window"
[ $(($3 * 2)) -le "$had" ] ||
    fail "w's rate counted $3 of its $had outcomes: older than 2 s kept"
ok "breaker_window = 2s: w opened on $2 of $3 outcomes in the window, of the $had it had"

# --- breaker_min_samples
wait_for 90 'test -n "$(opened m)"' || fail "m did not open"
set -- $(rate_of "$(opened m)")
[ $# = 3 ] || fail "m not opened by the rate rule: $(opened m)"
before=$(outcomes m 1 "$m_mark")
[ $((before * 2)) -lt 60 ] ||
    fail "m had $before successes before its fault: not a test of min_samples"
[ "$3" -ge 60 ] || fail "m opened on $3 outcomes, want 60 or more: $(opened m)"
ok "breaker_min_samples = 60: m opened on $2 of $3 outcomes ($before before the fault)"

# --- breaker_cooldown, breaker_cooldown_max: the time from each opening
# to the next trial, over 10 trials: capped, about 200 ms then 400 ms
# each (4 s in all); doubling without the cap (the default max, 5 min),
# 400 ms to 102 s after the first, and the median of those 9 is 6.4 s.
wait_for 60 'test "$(grep -c " sup: w/c1: trying the endpoint again" "$T/log")" -ge 10' ||
    fail "c1 had $(grep -c ' sup: w/c1: trying the endpoint again' "$T/log") trials, want 10"
gaps=$(grep -e ' sup: w/c1: endpoint unhealthy' -e ' sup: w/c1: trying the endpoint again' "$T/log" |
    awk -F'[:. ]' '{ t = ((($1 * 60) + $2) * 60 + $3) * 1000 + $4 }
	/unhealthy/ { o = t; next }
	o != "" { printf "%d ", t - o; o = "" }' | cut -d' ' -f1-10)
echo "c1: opened -> trial, ms: $gaps"
set -- $gaps
[ "$1" -ge 190 ] || fail "c1's first trial after $1 ms, before the 200 ms cooldown"
shift
for g in "$@"; do
	[ "$g" -ge 390 ] || fail "c1 tried after $g ms, before its doubled cooldown (400 ms)"
done
# 1600 ms times CW_WAIT_FACTOR for a loaded machine, but never past
# 3200 ms, half the uncapped median: the check must fail with the cap
# ignored.
bound=$((1600 * TF))
[ "$bound" -le 3200 ] || bound=3200
med=$(printf '%s\n' "$@" | sort -n | sed -n 5p)
[ "$med" -lt "$bound" ] ||
    fail "c1's cooldown grew past breaker_cooldown_max (median gap $med ms, bound $bound ms)"
ok "breaker_cooldown = 200ms, breaker_cooldown_max = 400ms: trials after $gaps ms"

# --- hedge_after (hedge_quantile = 0)
hedges() {
	sed -n 's/.* out for \([0-9]*\) ms on w\/'"$1"'; hedged$/\1/p' "$T/log"
}
wait_for 60 'test "$(hedges h1 | wc -l)" -ge 8' ||
    fail "reads of h1 (800 ms) hedged $(hedges h1 | wc -l) times, want 8"
lo=$(hedges h1 | sort -n | head -n 1)
hi=$(hedges h1 | sort -n | tail -n 1)
med=$(hedges h1 | sort -n | sed -n "$(($(hedges h1 | wc -l) / 2 + 1))p")
[ "$lo" -ge 240 ] || fail "a read of h1 hedged after $lo ms, before hedge_after"
# Queued behind each other at the devnode, h1's answers take over 1 s:
# the default would hedge them too, after 1 s, so no median of 1 s or
# more proves the key.  Below that, the bound is as wide as it can be
# (650 ms past the 250, more with CW_WAIT_FACTOR, up to 999 ms).
bound=$((250 + 650 * TF))
[ "$bound" -lt 1000 ] || bound=999
[ "$med" -le "$bound" ] ||
    fail "reads of h1 hedged after $med ms (median, bound $bound ms): not 250, as the default 1 s would"
ok "hedge_after = 250ms: $(hedges h1 | wc -l) reads of h1 hedged after $lo..$hi ms (median $med)"

# --- hedge_quantile = 30
wait_for 60 'test "$(hedges q1 | awk "\$1 < 400" | wc -l)" -ge 20' ||
    fail "reads of q1 hedged early only $(hedges q1 | awk '$1 < 400' | wc -l) times: $(hedges q1 | tr '\n' ' ')"
ok "hedge_quantile = 30: $(hedges q1 | awk '$1 < 400' | wc -l) reads of q1 hedged before 400 ms (last: $(hedges q1 | tail -n 5 | tr '\n' ' ')ms)"

# --- max_inflight: the daemon's own count of requests out, sampled.
/usr/bin/python3 - "$T/chainwatchd.sock" i1 i2 >"$T/inflight" <<'EOF' ||
import json, socket, sys, time
def walk(j, out):
    if isinstance(j, dict):
        if "endpoint" in j and "inflight" in j:
            out[j["endpoint"]] = j["inflight"]
        for v in j.values():
            walk(v, out)
    elif isinstance(j, list):
        for v in j:
            walk(v, out)
top = {n: 0 for n in sys.argv[2:]}
end = time.time() + 60
while time.time() < end:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(sys.argv[1])
    s.sendall(b'{"cmd":"status"}\n')
    data = b""
    while True:
        c = s.recv(65536)
        if not c:
            break
        data += c
    s.close()
    got = {}
    walk(json.loads(data), got)
    for n in top:
        top[n] = max(top[n], got.get(n, 0))
    if max(top.values()) >= 7 and time.time() > end - 55:
        break
    time.sleep(0.05)
print(" ".join("%s %d" % (n, v) for n, v in top.items()))
EOF
    fail "cannot read the status"
read -r _ m1 _ m2 <"$T/inflight"
[ "$m1" -le 7 ] && [ "$m2" -le 7 ] || fail "more than 7 requests out: i1 $m1, i2 $m2"
[ "$m1" = 7 ] || [ "$m2" = 7 ] || fail "never 7 requests out: i1 $m1, i2 $m2"
ok "max_inflight = 7: at most i1 $m1, i2 $m2 requests out"
