#!/bin/sh
# An endpoint that answers 429 with Retry-After: 6 is left alone for the
# 6 s it asked (its live reads go to the other endpoint meanwhile), not
# for the 1 s slow-down step a bare 429 gets.
. "$top_srcdir/tests/integration/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }

for n in d1 d2; do
	devnode $n --seed retry --block-time 300 --backlog 50
done
write_conf "$T/chainwatch.conf"
sed -i 's/^block_time = .*/block_time = 300ms/' "$T/chainwatch.conf"
for n in d1 d2; do
	eval p=\$${n}_port
	echo "endpoint = $n http://127.0.0.1:$p ws://127.0.0.1:$p" >>"$T/chainwatch.conf"
done
ctl() {
	curl -s -m 5 -o /dev/null -d "$2" "http://127.0.0.1:$1/control" ||
	    fail "devnode control port $1"
}
# Live reads leased to endpoint $1 in the log from line $2 on.
leases() {
	sed -n "$2,\$p" "$T/log" | grep -c " sup: w/$1: live [a-z]* #[0-9]* leased"
}
# hh:mm:ss.mmm at the start of log line $1 -> ms of the day
ms_at() {
	sed -n "$1p" "$T/log" | awk -F'[:. ]' '{ print (($1 * 60 + $2) * 60 + $3) * 1000 + $4 }'
}

start_daemon
wait_for 60 'test "$(sql "SELECT count(*) FROM queue")" = 0 && test "$(leases d1 1)" -ge 3' ||
    fail "d1 is not serving live reads: $(leases d1 1) leased, queue $(sql 'SELECT * FROM queue_summary')"

from=$(($(wc -l <"$T/log") + 1))
ctl $d1_cport '{"clear":true,"enable":"rate_limit:6@http"}'
# The first 429 that names its wait (the worker's poll of d1 logs it).
first() {
	sed -n "$from,\$p" "$T/log" | grep -n " sup: w/d1: poll rate_limited in .*; retry after 6 s" |
	    head -n 1 | cut -d: -f1
}
wait_for 20 'test -n "$(first)"' || fail "no 429 with Retry-After from d1 in the log"
ctl $d1_cport '{"clear":true}'
at=$((from + $(first) - 1))
wait_for 30 'test "$(leases d1 $at)" -ge 1' ||
    fail "d1 got no live read within 30 s of its Retry-After"
next=$(sed -n "$at,\$p" "$T/log" | grep -n " sup: w/d1: live [a-z]* #[0-9]* leased" |
    head -n 1 | cut -d: -f1)
next=$((at + next - 1))
gap=$(($(ms_at $next) - $(ms_at $at)))
[ $gap -lt 0 ] && gap=$((gap + 86400000))
others=$(sed -n "$at,${next}p" "$T/log" | grep -c " sup: w/d2: live [a-z]* #[0-9]* leased")
echo "429 at line $at, next live read leased to d1 $gap ms later; d2 took $others meanwhile"
[ $gap -ge 5500 ] || fail "d1 was left alone $gap ms, not the 6 s it asked"
[ "$others" -ge 1 ] || fail "no live read went to d2 while d1 waited"
ok "Retry-After: 6 honoured: d1 left alone $gap ms, d2 served $others live reads"
