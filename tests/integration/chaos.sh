#!/bin/sh
# The chaos matrix: one chainwatchd follows a chain through three devnodes
# d1, d2, d3 (same seed, 1 s blocks, no reorgs; d1 is the preferred
# endpoint), and one scenario after another breaks something, against the
# same daemon (hedge_after 500ms, request_timeout 1.5s, breakers that open
# on 3 failures over 1 s and cool down from 1 s to 4 s):
#   refuse, reset, blackhole, 503, malformed on d1 (the devnode's faults,
#     through its control port; reset accepts then sends a TCP RST):
#     status degraded, d1 down for that kind of failure;
#   429, slow (2 s), ws_drop, ws_silent on d1: d1 still answers, so status
#     may stay ok; it must blame no other endpoint;
#   wrong_genesis: d1 serves another chain: quarantined, saying why, and
#     while it is (d2's and d3's subscriptions silent for 4 s meanwhile,
#     or until a block at long blocks, so that a hole is fetched by
#     backfill), no request of any kind leased or hedged to it, and none
#     of that chain's blocks stored;
#   pruned: d1 restarted keeping the state of its best block only, and
#     every subscription silent for 4 s (or a block) so that a hole is
#     fetched whose state d1 has discarded: status stays ok, d1's
#     breaker closed, its pruning bound recorded, the reads move on at
#     once;
#   down: d1 killed, then d2, then d3 (unreachable), then all three back;
#   sigstop: d1's worker stopped (never continued): it is killed and
#     replaced, and status says it hung (the endpoint's state while its
#     worker is down, then the worker's trouble shown for 15 minutes).
# For each: the right status within 10 s of the fault (the promise, 5 s,
# is bench/chaos.sh's figure; see STATUS_LIMIT); ok again after the
# fault is lifted (how long is printed); no canonical block lost (the hash,
# difficulty and timestamp at every height equal the devnode's) and no
# block of another chain stored; chainwatch verify finds nothing new; and
# no block first stored while a healthy endpoint existed waited longer
# than hedge_after + 1 s for its state (state_at - first_seen): with
# request_timeout at 1.5 s, only failover and hedging keep reads that fast.
# Both bounds are times CW_WAIT_FACTOR, as every wait of lib.sh (3 in the
# sanitizer build): loose bounds for a test; the figures printed are what
# was measured, and chaos_defaults.sh's, in the plain build, are the
# product's promise.
# (The timeout bounds how soon a black-holed endpoint can be judged: its
# breaker hears of nothing before its first requests time out.)
# One line of figures per scenario, e.g. (breaker: when d1's breaker
# first opened while the fault was on, "-" for never)
#   chaos: blackhole     status 2.1 s  breaker - s  max state wait 0.51 s (hedge_after
#     0.50 s)  recovered 0.4 s  [9 blocks, head delay max 0.00 s, ...]
# Every scenario runs even when one fails; the test fails at the end, with
# the figures of all and the daemon's log lines of each failed one.
. "$top_srcdir/tests/integration/lib.sh"
# The matrix on short timeouts is the sanitizer build's; the plain build
# runs it on the defaults (chaos_defaults.sh) and at 12 s blocks
# (chaos_quantus.sh), which is what users run.  CW_CHAOS_SHORT=1 runs it
# here too.
if [ "$CW_SANITIZED" != yes ] && [ -z "$CHAOS_TIMEOUTS" ] &&
    [ -z "$CHAOS_BLOCK_MS" ] && [ -z "$CW_CHAOS_SHORT" ]; then
	echo "SKIP: the sanitizer build runs the matrix on short timeouts" \
	    "(CW_CHAOS_SHORT=1 runs it here too)"
	exit 77
fi
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }

CW=$top_builddir/cli/chainwatch
CHECK="/usr/bin/python3 $top_srcdir/tests/integration/chaos_check.py"
DB=$T/chainwatch.db
# CHAOS_TIMEOUTS=default (in the environment; chaos_defaults.sh): the
# same matrix, with the same 5 s bar, on the default timeouts and breaker
# settings (request_timeout 10 s, breaker_min_span 10 s, hedge_after 1 s):
# only the unresponsive rule and the breaker's peer rule (chainwatchd(8),
# "Endpoint health") can show a failing endpoint that fast.
HEDGE_MS=500
[ "$CHAOS_TIMEOUTS" = default ] && HEDGE_MS=1000
# CHAOS_BLOCK_MS (chaos_quantus.sh: 12000, Quantus's own): the devnodes'
# and the chain's block time.  CHAOS_ONLY: the scenarios to run, by name
# (all when empty).
BLOCK_MS=${CHAOS_BLOCK_MS:-1000}
ONLY=${CHAOS_ONLY:-}
# CHAOS_WAIT_BOUND=no: the state waits are printed, not judged (see
# chaos_quantus.sh).
WAIT_BOUND=${CHAOS_WAIT_BOUND:-yes}
# The bounds and waits, times CW_WAIT_FACTOR as lib.sh's (see above).
F=${CW_WAIT_FACTOR:-1}
WAIT_LIMIT_MS=$(((HEDGE_MS + 1000) * F))
# s from the fault to the right status: the promise is 5 s (what
# bench/chaos.sh measures, CHAOS_STATUS_LIMIT=5); a test on a loaded
# machine allows twice that, which still fails the 13 s of a refusing
# endpoint at 12 s blocks before probes judged it.
STATUS_LIMIT=$((${CHAOS_STATUS_LIMIT:-10} * F))
STATUS_WAIT=$((15 * F))		# s to wait for it anyway, for the figure
RECOVER_WAIT=$((30 * F))	# s from lifting the fault to ok
HOLD=5			# s a fault stays on at least
# At long blocks, a block time and a second more: a block comes meanwhile.
[ $BLOCK_MS -gt 4000 ] && HOLD=$((BLOCK_MS / 1000 + 1))
# s to wait for a hole's backfill and what it shows: a hole is found only
# with the next head, at long blocks a block time or two later.
EVIDENCE_WAIT=$((10 + 2 * BLOCK_MS / 1000))
# CHAOS_HOLD (bench/chaos.sh -H): hold each fault longer, to see whether
# and when d1's breaker opens (the "breaker" figure).
[ -n "${CHAOS_HOLD:-}" ] && HOLD=$CHAOS_HOLD
BACKLOG=300
START=$(date +%s%3N)
FAILED=
FOREIGN=0
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

now_ms() {
	date +%s%3N
}

# secs MS: milliseconds as seconds, 2 decimals.  gt A B: A > B (decimals).
secs() {
	awk "BEGIN { printf \"%.2f\", $1 / 1000 }"
}
gt() {
	awk "BEGIN { exit !($1 > $2) }"
}

# dn NAME [devnode options]: (re)start devnode NAME, on its old port if
# it had one; sets NAME_port, NAME_cport, NAME_pid.
dn() {
	_n=$1
	shift
	eval "_p=\${${_n}_port:-0}"
	rm -f "$T/$_n.port" "$T/$_n.cport"
	"$DEVNODE" --listen "127.0.0.1:$_p" --control-listen 127.0.0.1:0 \
	    --port-file "$T/$_n.port" --control-port-file "$T/$_n.cport" \
	    --cache-dir none --seed chaos --block-time $BLOCK_MS --miners 3 \
	    --backlog $BACKLOG --start-time "$START" "$@" \
	    >>"$T/$_n.log" 2>&1 &
	eval "${_n}_pid=$!"
	CW_PIDS="$CW_PIDS $!"
	wait_for 30 "test -s '$T/$_n.port' && test -s '$T/$_n.cport'" ||
	    fail "devnode $_n did not start"
	eval "${_n}_port=\$(cat \"\$T/\$_n.port\")"
	eval "${_n}_cport=\$(cat \"\$T/\$_n.cport\")"
}

# dn_stop NAME: SIGTERM, and wait for it (20 s at most).
dn_stop() {
	eval "_pid=\$${1}_pid"
	kill -TERM "$_pid" 2>/dev/null
	wait_for 20 "dead $_pid" || fail "devnode $1 did not stop within 20 s"
	wait "$_pid" 2>/dev/null
}

# ctl NAME JSON: a control request to devnode NAME.
ctl() {
	eval "_cp=\$${1}_cport"
	curl -s -m 5 -o /dev/null -d "$2" "http://127.0.0.1:$_cp/control" ||
	    fail "devnode $1's control port did not answer $2"
}

# status_wait T0 SPEC LIMIT: seconds from T0 until status matches SPEC
# (chaos_check.py); 1 if not within LIMIT s.  The last status goes to
# $T/status.why.
status_wait() {
	$CHECK status --cw "$CW" --db "$DB" --t0 "$1" --expect "$2" \
	    --timeout "$3" 2>"$T/status.why"
}

# note WHY: the current scenario failed, for this reason.
note() {
	echo "  FAIL $SCN: $*"
	SCN_FAILED=1
}

# begin NAME: a scenario starts now.
begin() {
	SCN=$1
	SCN_FAILED=
	SCN_LOG=$(($(wc -l <"$T/log") + 1))
	SCN_HEDGES=$($CHECK hedges --socket "$T/chainwatchd.sock")
	T0=$(now_ms)
	SCN_T0=$T0
	T1=
	echo "chaos: $SCN ..."
}

# expect_status SPEC: the status must match within STATUS_LIMIT s of T0;
# sets ST to the seconds it took.
expect_status() {
	if ST=$(status_wait "$T0" "$1" $STATUS_WAIT); then
		if gt "$ST" $STATUS_LIMIT; then
			note "status right only after $ST s (limit $STATUS_LIMIT s): $(cat "$T/status.why")"
		fi
	else
		note "status not '$1' within $STATUS_WAIT s: $(cat "$T/status.why")"
		ST="-"
	fi
}

# hold: keep the fault on HOLD s from T0, and 2 s after the status, and
# until a block was stored meanwhile (the devnodes' block times vary
# around BLOCK_MS: at 12 s, 13 s may see none).
hold() {
	_end=$((T0 + HOLD * 1000))
	_now=$(now_ms)
	[ $((_now + 2000)) -lt $_end ] || _end=$((_now + 2000))
	sleep "$(secs $((_end - _now)))"
	block_stored
}

# block_stored: wait (up to 10 block times) until a block first stored
# since the scenario began, the evidence its state-wait check needs.
block_stored() {
	wait_for $((BLOCK_MS / 100 + 10)) 'test "$(sql "SELECT count(*) FROM blocks WHERE first_seen >= $SCN_T0")" -gt 0' ||
	    note "no block stored in 10 block times"
}

# silence N...: the devnodes' subscriptions silent for 4 s, or at long
# blocks until a new block was made meanwhile (their control status'
# liveHead, of the first), so that the blocks of that time are a hole.
silence() {
	for _s in "$@"; do
		ctl $_s '{"clear":true,"enable":"ws_silent@ws"}'
	done
	if [ $BLOCK_MS -le 4000 ]; then
		sleep 4
	else
		eval "_cp=\$${1}_cport"
		_h0=$(live_head "$_cp")
		wait_for $((BLOCK_MS / 100 + 10)) 'test "$(live_head "$_cp")" -gt "$_h0"' ||
		    note "no block made in 10 block times of silence"
		sleep 1
	fi
	for _s in "$@"; do
		ctl $_s '{"clear":true}'
	done
}
live_head() {
	curl -s -m 5 "http://127.0.0.1:$1/control" |
	    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["liveHead"])'
}

# recovered: T1 is when the fault was lifted; status must be ok again
# within RECOVER_WAIT s; sets REC.
recovered() {
	if ! REC=$(status_wait "$T1" ok $RECOVER_WAIT); then
		note "not ok within $RECOVER_WAIT s of lifting the fault: $(cat "$T/status.why")"
		REC="-"
	fi
	T_END=$(now_ms)
}

# finish [--exclude FROM-TO]... [--others a,b]: the checks every scenario
# ends with, and its line of figures.
finish() {
	_others=d2,d3
	_excl=
	while [ $# -gt 0 ]; do
		case $1 in
		--exclude) _excl="$_excl --exclude $2"; shift 2 ;;
		--others) _others=$2; shift 2 ;;
		*) shift ;;
		esac
	done
	$CHECK caught-up --db "$DB" --timeout 20 >/dev/null 2>"$T/why" ||
	    note "$(cat "$T/why")"
	if [ -n "$_others" ] &&
	    ! $CHECK events --db "$DB" --from "$SCN_T0" --endpoints "$_others" \
	    >"$T/why"; then
		note "healthy endpoints taken out: $(tr '\n' ';' <"$T/why")"
	fi
	# shellcheck disable=SC2086
	# A block stored just before T_END may have its state read in
	# flight: given the wait limit and more to arrive (its wait is
	# judged against the limit all the same).
	set -- $($CHECK waits --db "$DB" --from "$SCN_T0" --to "$T_END" \
	    --settle $((WAIT_LIMIT_MS / 1000 + 5)) $_excl)
	_wait=$1 _at=$2 _n=$3 _missing=$4 _head=$5
	[ "$_n" -gt 0 ] || note "no block was first stored during the scenario"
	[ "$_missing" = 0 ] || note "$_missing blocks of the scenario without their state"
	[ "$_wait" -le $WAIT_LIMIT_MS ] || [ "$WAIT_BOUND" = no ] ||
	    note "block #$_at waited $_wait ms for its state (limit $WAIT_LIMIT_MS ms)"
	if ! $CHECK store --db "$DB" --port "$d3_port" >"$T/store" 2>"$T/why"; then
		note "store differs from the devnode: $(head -n 5 "$T/why" | tr '\n' ';')"
	fi
	# The devnodes make no reorgs: a block off the chain came from
	# another chain, through an endpoint that should have been kept out.
	_foreign=$(awk '{ print $(NF - 2) }' "$T/store")
	[ "${_foreign:-0}" -le "$FOREIGN" ] ||
	    note "$((_foreign - FOREIGN)) blocks of another chain stored"
	FOREIGN=${_foreign:-0}
	# Differences verify found before are the earlier scenario's.
	"$CW" -d "$DB" verify >"$T/verify" 2>&1
	grep -v '^verify: ' "$T/verify" | sort >"$T/verify.now"
	comm -23 "$T/verify.now" "$T/verify.before" >"$T/verify.new"
	if [ -s "$T/verify.new" ]; then
		note "chainwatch verify: $(head -n 3 "$T/verify.new" | tr '\n' ';')$(tail -n 1 "$T/verify")"
	fi
	mv "$T/verify.now" "$T/verify.before"
	set -- $SCN_HEDGES $($CHECK hedges --socket "$T/chainwatchd.sock")
	if [ "$1" != "?" ] && [ "$3" != "?" ]; then
		_hedges="  hedges $(($3 - $1)) (won $(($4 - $2)))"
	else
		_hedges=
	fi
	# When d1's breaker first opened after the fault came ("-": never).
	_open=$(sql "SELECT coalesce(min(v.at), '') FROM endpoint_events v
	    JOIN endpoints e ON e.id = v.endpoint_id WHERE e.name = 'd1' AND
	    v.kind = 'open' AND v.at >= $SCN_T0 AND v.at <= ${T1:-$T_END}")
	if [ -n "$_open" ]; then
		_open="$(secs $((_open - SCN_T0)))"
	else
		_open=-
	fi
	printf 'chaos: %-13s status %s s  breaker %s s  max state wait %s s (hedge_after %s s)  recovered %s s  [%d blocks, head delay max %s s%s; %s]\n' \
	    "$SCN" "$ST" "$_open" "$(secs "$_wait")" "$(secs $HEDGE_MS)" \
	    "$REC" "$_n" "$(secs "$_head")" \
	    "$_hedges" "$(cat "$T/store")" | tee -a "$T/figures"
	if [ -n "$SCN_FAILED" ]; then
		FAILED="$FAILED $SCN"
		echo "  --- daemon log of $SCN (without heads, polls, ws):"
		sed -n "$SCN_LOG,\$p" "$T/log" | grep -v -e ' head #' \
		    -e ' in [0-9]* ms' -e ' ws ws://' -e 'control socket:' |
		    tail -n 40 | sed 's/^/  /'
	fi
}

# wanted NAME: is scenario NAME to run (CHAOS_ONLY)?
wanted() {
	[ -z "$ONLY" ] && return 0
	case " $ONLY " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# A fault of devnode d1 switched on at T0 and lifted after the hold;
# CHECK (optional) is run before it is lifted.
fault_d1() {
	wanted "$1" || return 0
	begin "$1"
	ctl d1 "{\"clear\":true,\"enable\":\"$2\"}"
	expect_status "$3"
	hold
	[ -z "${4:-}" ] || $4
	T1=$(now_ms)
	ctl d1 '{"clear":true}'
	recovered
	finish
}

for n in d1 d2 d3; do
	dn $n
done
cat >"$T/chainwatch.conf" <<CONF
[daemon]
database = $DB
pidfile = $T/chainwatchd.pid
user = $(cw_user)
worker = $WORKER
heartbeat_interval = 500ms
stop_timeout = 2s
log_level = debug
control_socket = $T/chainwatchd.sock
metrics_listen = none

[chain devchain]
block_time = ${BLOCK_MS}ms
difficulty_floor = 1
CONF
[ "$CHAOS_TIMEOUTS" = default ] || cat >>"$T/chainwatch.conf" <<CONF
request_timeout = 1500ms
connect_timeout = 2s
hedge_after = ${HEDGE_MS}ms
breaker_consecutive = 3
breaker_min_span = 1s
breaker_cooldown = 1s
breaker_cooldown_max = 4s
CONF
cat >>"$T/chainwatch.conf" <<CONF
endpoint = d1 http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port
endpoint = d2 http://127.0.0.1:$d2_port ws://127.0.0.1:$d2_port
endpoint = d3 http://127.0.0.1:$d3_port ws://127.0.0.1:$d3_port
CONF
: >"$T/verify.before"
start_daemon
wait_for 60 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(sql "SELECT best_number FROM chains")" -gt $BACKLOG' ||
    fail "not caught up: $(sql 'SELECT * FROM queue_summary'), best $(sql 'SELECT best_number FROM chains')"
status_wait "$(now_ms)" ok 10 >/dev/null ||
    fail "status not ok at the start: $(cat "$T/status.why")"
ok "backfilled to #$(sql 'SELECT best_number FROM chains'); status ok"

TRANSPORT='transport|refus|connect'
# A refusal is an answer: judged transport by its breaker, never shown
# unresponsive ("no answer for N s") first.
no_unresponsive() {
	_n=$(sql "SELECT count(*) FROM endpoint_events v JOIN endpoints e ON
	    e.id = v.endpoint_id WHERE e.name = 'd1' AND v.kind =
	    'unresponsive' AND v.at >= $SCN_T0")
	[ "$_n" = 0 ] || note "d1 shown unresponsive while it refused"
}
fault_d1 refuse refuse "degraded d1:$TRANSPORT" no_unresponsive
fault_d1 reset reset "degraded d1:$TRANSPORT" no_unresponsive
fault_d1 blackhole blackhole "degraded d1:timeout|timed.out|hung|no.answer"
fault_d1 503 http_503@http "degraded d1:5xx|503"
# Rate limiting slows an endpoint down, it is no failure; a slow endpoint
# answers: status may stay ok, and must not blame the others.
fault_d1 429 rate_limit "ok,degraded d1?"
fault_d1 slow slow:2000 "ok,degraded d1?"
fault_d1 malformed malformed "degraded d1:malformed"
fault_d1 ws_drop ws_drop@ws "ok,degraded d1?"
fault_d1 ws_silent ws_silent@ws "ok,degraded d1?"
# d1 serves another chain: quarantined, it gets no work while it lasts:
# no request of any kind is leased, hedged or sent as a trial to it
# between the daemon's log lines that put it in and take it out of
# quarantine.  The daemon logs every lease at debug (live reads as "live
# state #N leased", the rest as "headers item N leased" and the like),
# every hedge and every trial.  Meanwhile d2's and d3's subscriptions
# fall silent for 4 s, so that the blocks of that time are a hole that
# backfill fetches (headers and parents, not live work), which must go to
# them alone: the evidence must hold such leases, else it proves nothing.
if wanted wrong_genesis; then
begin wrong_genesis
ctl d1 '{"clear":true,"enable":"wrong_genesis"}'
expect_status "degraded d1=quarantined:genesis"
Q_LOG=$(($(wc -l <"$T/log") + 1))
silence d2 d3
# Backfill of the hole leased (to d2 or d3) while d1 is quarantined.
backfill_leased() {
	sed -n "$Q_LOG,\$p" "$T/log" |
	    grep -E -q ' sup: w/d[23]: [a-z]+ item [0-9]+ leased'
}
wait_for $EVIDENCE_WAIT backfill_leased ||
    note "no backfill leased after the subscriptions' silence: no evidence for the no-work check"
hold
T1=$(now_ms)
ctl d1 '{"clear":true}'
recovered
wait_for 10 'sed -n "$SCN_LOG,\$p" "$T/log" | grep -q "w/d1: serves the chain.s genesis again"' ||
    note "no log line that d1's quarantine is over"
sed -n "$SCN_LOG,\$p" "$T/log" |
    sed -n '/ sup: w\/d1: serves genesis/,/ sup: w\/d1: serves the chain.s genesis again/p' \
    >"$T/quarantine"
# The store says it too: one quarantine of d1 in the scenario, over.
q_events() {
	sql "SELECT group_concat(kind, ',') FROM (SELECT v.kind FROM
	    endpoint_events v JOIN endpoints e ON e.id = v.endpoint_id
	    WHERE e.name = 'd1' AND v.at >= $SCN_T0 AND
	    v.kind IN ('quarantined', 'released') ORDER BY v.id)"
}
wait_for 10 'test "$(q_events)" = quarantined,released' ||
    note "d1's quarantine events in the store: '$(q_events)', not quarantined,released"
if ! grep -q ' sup: w/d1: serves genesis' "$T/quarantine" ||
    ! grep -q ' sup: w/d1: serves the chain.s genesis again' "$T/quarantine"; then
	note "no quarantine of d1 in the log: the no-work check has no evidence"
elif ! grep -E -q ' sup: w/d[23]: [a-z]+ item [0-9]+ leased' "$T/quarantine" ||
    ! grep -E -q ' sup: w/d[23]: live [a-z]+ #[0-9]+ leased' "$T/quarantine"; then
	note "no backfill and live leases to d2 or d3 logged while d1 was quarantined: no evidence for the no-work check"
elif grep -E ' sup: w/d1: (.* leased|.*; hedged$|trial: )' "$T/quarantine" >"$T/why"; then
	note "work leased to d1 while quarantined: $(head -n 3 "$T/why" | tr '\n' ';')"
else
	echo "  quarantine of d1: $(grep -c ' leased' "$T/quarantine") leases ($(grep -E -c ' item [0-9]+ leased' "$T/quarantine") of backfill), none to d1"
fi
finish
fi

# The preferred endpoint keeps the state of its best block only.  Every
# subscription then falls silent for a few seconds, so that the blocks
# of that time are fetched as a hole afterwards, and their state asked of
# d1 first, which has discarded it: an answer, no failure, and the read
# must move on at once.
d1_bound() {
	sql "SELECT coalesce(pruning_bound, '') FROM endpoints WHERE name = 'd1'"
}
if wanted pruned; then
begin pruned
dn_stop d1
dn d1 --state-pruning 1
expect_status ok
silence d1 d2 d3
hold
wait_for $EVIDENCE_WAIT 'test -n "$(d1_bound)"' ||
    note "no pruning bound recorded for d1: it was never asked for old state"
T1=$(now_ms)
echo "  d1 pruned at #$(d1_bound) and below"
dn_stop d1
dn d1
recovered
finish --others d1,d2,d3
fi

# 1, then 2, then every endpoint down, then all back at once.
if wanted down; then
begin down
dn_stop d1
expect_status "degraded d1:$TRANSPORT"
ST1=$ST
hold
T0=$(now_ms)
dn_stop d2
expect_status "degraded d1:$TRANSPORT d2:$TRANSPORT"
ST2=$ST
sleep 3
T_ALL=$(now_ms)
dn_stop d3
ST3=
if ST3=$(status_wait "$T_ALL" "unreachable d1:. d2:. d3:." $STATUS_WAIT); then
	! gt "$ST3" $STATUS_LIMIT ||
	    note "unreachable only after $ST3 s"
else
	note "status not unreachable: $(cat "$T/status.why")"
fi
sleep 3
T1=$(now_ms)
for n in d1 d2 d3; do
	dn $n
done
recovered
ST="$ST1/$ST2/${ST3:--}"
finish --exclude "$T_ALL-$T_END" --others ""
fi

# d1's worker stopped: it must be killed and replaced.
if wanted sigstop; then
begin sigstop
wpid=$(worker_pid "$DAEMON_PID" d1)
[ -n "$wpid" ] || fail "no worker for d1"
kill -STOP "$wpid"
CW_PIDS="$CW_PIDS $wpid"
# When the worker is replaced, seen beside the status polls.
(
	i=0
	while [ $i -lt 400 ]; do
		p=$(worker_pid "$DAEMON_PID" d1)
		if [ -n "$p" ] && [ "$p" != "$wpid" ]; then
			now_ms >"$T/replaced"
			break
		fi
		sleep 0.05
		i=$((i + 1))
	done
) &
# Replaced at once, the endpoint is healthy again; status shows the hang.
expect_status "ok,degraded d1~hung|hang|heartbeat|silent"
wait_for 10 'dead $wpid' || note "stopped worker $wpid not killed"
wait_for 10 'test -s "$T/replaced"' || note "no new worker for d1"
block_stored
T1=$(now_ms)
recovered
finish
[ -s "$T/replaced" ] &&
    echo "  sigstop: worker $wpid killed and replaced by $(worker_pid "$DAEMON_PID" d1) $(secs $(($(cat "$T/replaced") - T0))) s after the SIGSTOP"
fi

# The store once the daemon stopped; the devnodes must stop cleanly too.
# The figures are printed whatever failed.
kill -TERM $DAEMON_PID
wait_for 20 "dead $DAEMON_PID" || fail "chainwatchd did not stop within 20 s"
wait $DAEMON_PID || FAILED="$FAILED (daemon exited with $?)"
if $CHECK store --db "$DB" --port "$d3_port"; then
	ok "final store equals the devnode's chain"
else
	FAILED="$FAILED (final store differs from the devnode)"
fi
if "$CW" -d "$DB" verify >"$T/verify" 2>&1; then
	ok "$(tail -n 1 "$T/verify")"
else
	cat "$T/verify"
	FAILED="$FAILED (final verify found differences)"
fi
for n in d1 d2 d3; do
	eval "_pid=\$${n}_pid"
	kill -TERM "$_pid"
	wait_for 20 "dead $_pid" || fail "devnode $n did not stop within 20 s"
	wait "$_pid" || FAILED="$FAILED (devnode $n exited with $?)"
done
if grep -l -e 'Sanitizer' -e 'runtime error:' "$T"/d?.log >"$T/why"; then
	cat $(cat "$T/why")
	FAILED="$FAILED (sanitizer report from a devnode)"
fi
echo "--- figures"
cat "$T/figures"
[ -z "$FAILED" ] || fail "failed:$FAILED"
