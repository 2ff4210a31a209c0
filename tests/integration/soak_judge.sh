#!/bin/sh
# The soak's judgement of a trend (bench/soak.py selftest): on made-up
# series of known truth, shaped as the hour's workers' heap (short lives,
# lasting noise, bursts), the 95 % interval of a trendless series holds 0
# in 90 % of runs at least, and a leak of 1.5 MB/h is judged growing in
# 90 % at least.  A judgement that calls noise growth, or misses a leak,
# fails it.
. "$top_srcdir/tests/integration/lib.sh"

command -v python3 >/dev/null || fail "python3 is needed"
python3 "$top_srcdir/bench/soak.py" selftest >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ $rc = 0 ] || fail "bench/soak.py selftest: the judgement of trends is wrong"
echo "PASS: the soak's judgement of trends"
