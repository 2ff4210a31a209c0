#!/bin/sh
# Run the fuzz targets for a number of executions each and print, per
# target, the executions, their rate, the edges covered and the findings.
# From a build configured with CC=clang --enable-fuzzing (make
# fuzz-targets first):
#     sh ../../bench/fuzz.sh RUNS [TARGET...]
# New inputs go to a fresh directory under ${TMPDIR:-/tmp}, kept with the
# findings and the logs; the seed corpora in the tree are only read.
b=${top_builddir:-.}
src=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:?usage: fuzz.sh RUNS [TARGET...]}
shift
targets=${*:-"rpc header_scale header_json ws sub msg conf control devnode metrics"}
out=$(mktemp -d "${TMPDIR:-/tmp}/cw-fuzz.XXXXXX") || exit 1
printf '%-14s %12s %10s %7s %9s  %s\n' target runs execs/s edges seconds \
    findings
status=0
for t in $targets; do
	bin=$b/fuzz/fuzz_$t
	[ -x "$bin" ] || { echo "$bin: build first: make fuzz-targets" >&2
		exit 2; }
	case $t in
	ws) d=ws ;; msg) d=msgpack ;; conf) d=conf ;; header_scale) d= ;;
	*) d=json ;;
	esac
	mkdir -p "$out/$t"
	start=$(date +%s)
	"$bin" -runs="$runs" -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix="$out/$t-" \
	    ${d:+-dict="$src/fuzz/dict/$d.dict"} \
	    "$out/$t" "$src/fuzz/corpus/$t" >"$out/$t.log" 2>&1
	secs=$(($(date +%s) - start))
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/$t.log")
	cov=$(grep -E '^#[0-9]+.*(DONE|cov:)' "$out/$t.log" | tail -n 1 |
	    sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	found=$(cd "$out" && ls | grep "^$t-" | tr '\n' ' ')
	[ -n "$found" ] && status=1
	printf '%-14s %12s %10s %7s %9s  %s\n' "$t" "${n:-?}" "${rate:-?}" \
	    "${cov:-?}" "$secs" "${found:-none}"
done
echo "logs, new inputs and findings: $out"
exit $status
