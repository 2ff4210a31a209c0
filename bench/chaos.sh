#!/bin/sh
# bench/chaos.sh: the whole chaos matrix on the settings users run -- the
# default timeouts and breaker, blocks every 12 s as Quantus makes them --
# RUNS times, and a table of what each scenario took: from the fault to
# the right status (degraded, naming d1 and the class), to d1's breaker
# opening ("-": it stayed closed while the fault was on), and from the
# fault's end to ok again.  The scenarios are tests/integration/chaos.sh's
# (refuse, reset, blackhole, 503, 429, slow, malformed, ws_drop,
# ws_silent, wrong_genesis, pruned, down, sigstop); its state waits are
# printed, not judged.  At the longer hold of -H a black hole shows when
# its breaker opens on defaults.
#
#   sh bench/chaos.sh [-b build-dir] [-m block-ms] [-H hold-s] [-r runs]
#       [-o output] [SCENARIO...]
#   sh bench/chaos.sh -R output	(the table of an earlier run's output)
#
# Run from a build directory (or give -b).  Asserts nothing; a scenario
# whose checks failed is marked "!" and its log kept in the output (-o
# keeps the output).
set -u
b=${top_builddir:-.}
block_ms=12000
hold=
runs=1
out=
table=
while getopts b:m:H:r:o:R: o; do
	case $o in
	o) out=$OPTARG ;;
	R) table=$OPTARG ;;
	b) b=$OPTARG ;;
	m) block_ms=$OPTARG ;;
	H) hold=$OPTARG ;;
	r) runs=$OPTARG ;;
	*) echo "usage: sh bench/chaos.sh [-b build-dir] [-m block-ms]" \
	    "[-H hold-s] [-r runs] [-o output] [SCENARIO...] | -R output" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))

# The table: one row per scenario, each figure as min / median / max over
# the runs, from the output of the runs.
table() {
	awk '
function stat(list,   n, a, i, j, t, m) {
	n = split(list, a, " ")
	if (n == 0) return "-"
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	if (n == 1) return a[1]
	m = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	return sprintf("%s/%.2f/%s", a[1], m, a[n])
}
# "down" has a status per endpoint killed (d1/d2/d3): its worst.
function worst(f,   p, n, i, w) {
	n = split(f, p, "/")
	w = ""
	for (i = 1; i <= n; i++)
		if (p[i] ~ /^[0-9.]+$/ && (w == "" || p[i] + 0 > w + 0)) w = p[i]
	return w
}
/^--- run / { run++ }
/^chaos: .* status / {
	# chaos.sh prints its lines again at its end: each once a run.
	if ((run SUBSEP $0) in dup) next
	dup[run SUBSEP $0] = 1
	s = $2
	if (!(s in seen)) { seen[s] = 1; order[++k] = s }
	for (i = 3; i <= NF; i++) {
		if ($i == "status" && worst($(i + 1)) != "")
			st[s] = st[s] " " worst($(i + 1))
		if ($i == "breaker") {
			if ($(i + 1) ~ /^[0-9.]+$/) br[s] = br[s] " " $(i + 1)
			else nbr[s]++
		}
		if ($i == "recovered" && $(i + 1) ~ /^[0-9.]+$/)
			rc[s] = rc[s] " " $(i + 1)
	}
}
/^  FAIL / {
	s = $2
	sub(/:$/, "", s)
	bad[s] = 1
}
END {
	printf "%-14s %-18s %-18s %-8s %-18s\n", "scenario", "status s",
	    "breaker s", "closed", "recovered s"
	for (i = 1; i <= k; i++) {
		s = order[i]
		printf "%-14s %-18s %-18s %-8d %-18s%s\n", s, stat(st[s]),
		    stat(br[s]), nbr[s], stat(rc[s]), (s in bad) ? " !" : ""
	}
	print "(min/median/max over the runs; down: the worst of its three" \
	    " statuses; closed: runs whose breaker stayed closed while the" \
	    " fault was on; !: a check of the scenario failed)"
}' "$1"
}

if [ -n "$table" ]; then
	table "$table"
	exit 0
fi

b=$(cd "$b" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
for p in supervisor/chainwatchd workers/chainwatch-worker \
    devnode/chainwatch-devnode cli/chainwatch; do
	[ -x "$b/$p" ] || { echo "build first: $b/$p is missing" >&2; exit 2; }
done
py=$(sed -n 's/^PYTHON3 = //p' "$b/Makefile")
sanitized=$(sed -n 's/^enable_sanitizers = //p' "$b/Makefile")

if [ -z "$out" ]; then
	out=$(mktemp "${TMPDIR:-/tmp}/cw-chaos.XXXXXX") || exit 2
	trap 'rm -f "$out"' EXIT
fi
: >"$out"
echo "chaos matrix: blocks every $block_ms ms, default timeouts and" \
    "breaker, $runs run(s)${hold:+, faults held $hold s}"
i=1
while [ $i -le "$runs" ]; do
	echo "--- run $i" | tee -a "$out"
	top_builddir=$b top_srcdir=$src CW_SANITIZED=$sanitized \
	    CW_PYTHON3=$py CHAOS_TIMEOUTS=default CHAOS_BLOCK_MS=$block_ms \
	    CHAOS_WAIT_BOUND=no CHAOS_HOLD=$hold CHAOS_ONLY="$*" \
	    CHAOS_STATUS_LIMIT=5 \
	    sh "$src/tests/integration/chaos.sh" 2>&1 |
	    tee -a "$out" | grep -E '^(chaos: .* status|  FAIL |FAIL)'
	i=$((i + 1))
done

echo
table "$out"
