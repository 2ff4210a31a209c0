#!/bin/sh
# libFuzzer runs of every fuzz target (fuzz/, README "Fuzzing"): each for
# CW_FUZZ_SECONDS (10 s) from its seed corpus and dictionary, one at a
# time: 100 s for the 10 targets, plus about a minute to build them with
# clang.  The sanitizer build skips it: the targets are built by clang
# with its own sanitizers whatever the build, so its run only repeated
# the plain build's, and its clang build took both cores for a minute
# of the suite's 20.  Any
# crash, leak, timeout or sanitizer report fails, naming the target and
# the input that reproduces it (kept under $top_builddir/fuzz-findings/).
# Needs clang with libFuzzer (Debian's clang, libclang-rt-14-dev);
# skipped (77) without it.  A build configured with --enable-fuzzing runs
# its own targets; any other builds them with clang in the test's
# temporary directory.  CW_FUZZ_TARGETS picks some targets.
. "$top_srcdir/tests/integration/lib.sh"

targets=${CW_FUZZ_TARGETS:-"rpc header_scale header_json ws sub msg conf control devnode metrics"}
if [ "$CW_SANITIZED" = yes ] && [ "$CW_FUZZING" != yes ] &&
    [ -z "$CW_FUZZ_SECONDS" ]; then
	echo "SKIP: the plain build's run fuzzes (the targets are the same;" 	    "CW_FUZZ_SECONDS=N runs them here too)"
	exit 77
fi
secs=${CW_FUZZ_SECONDS:-10}

if [ "$CW_FUZZING" = yes ]; then
	fb=$top_builddir
else
	command -v clang >/dev/null 2>&1 || {
		echo "SKIP: clang is not installed (apt-get install clang)"
		exit 77
	}
	cat >"$T/probe.c" <<'EOC'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return d == 0 && n; }
EOC
	clang -fsanitize=fuzzer,address,undefined -o "$T/probe" "$T/probe.c" \
	    >"$T/probe.log" 2>&1 || {
		cat "$T/probe.log"
		echo "SKIP: clang cannot link libFuzzer targets" \
		    "(apt-get install libclang-rt-14-dev)"
		exit 77
	}
	fb=$T/build
	mkdir "$fb"
	echo "building the fuzz targets with clang in $fb"
	# A make of its own, not a part of the one running this test.
	(cd "$fb" && unset MAKEFLAGS MFLAGS MAKELEVEL &&
	    CC=clang "$top_srcdir/configure" -q --enable-fuzzing \
	    >configure.log 2>&1 && make -j2 fuzz-targets >make.log 2>&1) || {
		tail -n 30 "$fb/configure.log" "$fb/make.log" 2>/dev/null
		fail "the fuzz targets did not build with clang"
	}
fi

dict_of() {
	case $1 in
	ws) echo ws ;;
	msg) echo msgpack ;;
	conf) echo conf ;;
	header_scale) echo "" ;;
	*) echo json ;;
	esac
}

failed=
for t in $targets; do
	bin=$fb/fuzz/fuzz_$t
	[ -x "$bin" ] || fail "$bin is not built"
	mkdir -p "$T/corpus/$t" "$T/findings"
	d=$(dict_of $t)
	set -- -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix="$T/findings/$t-"
	[ -n "$d" ] && set -- "$@" -dict="$top_srcdir/fuzz/dict/$d.dict"
	# New inputs go to the first directory: never the tree's seeds.
	"$bin" "$@" "$T/corpus/$t" "$top_srcdir/fuzz/corpus/$t" \
	    >"$T/$t.log" 2>&1
	rc=$?
	found=$(ls "$T/findings" 2>/dev/null | grep "^$t-")
	if [ $rc -ne 0 ] || [ -n "$found" ]; then
		grep -E 'ERROR|SUMMARY|runtime error|#[0-9]+ 0x' "$T/$t.log" |
		    head -n 20 >&2
		mkdir -p "$top_builddir/fuzz-findings"
		for f in $found; do
			cp "$T/findings/$f" "$top_builddir/fuzz-findings/$f"
			echo "FINDING: fuzz_$t: reproducer" \
			    "$top_builddir/fuzz-findings/$f (replay it:" \
			    "$top_builddir/fuzz/replay_$t" \
			    "$top_builddir/fuzz-findings/$f)" >&2
		done
		echo "FAIL: fuzz_$t exited $rc (log: $T/$t.log, removed" \
		    "with the test's directory)" >&2
		failed="$failed $t"
		continue
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/$t.log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$T/$t.log")
	cov=$(grep -E '^#[0-9]+.*DONE' "$T/$t.log" | sed -n \
	    's/.*cov: \([0-9]*\).*/\1/p' | tail -n 1)
	[ -n "$runs" ] && [ "$runs" -gt 0 ] ||
		fail "fuzz_$t ran no inputs (log: $(tail -n 5 "$T/$t.log"))"
	echo "ok: fuzz_$t: $runs runs in $secs s ($rate/s), $cov edges"
done
[ -z "$failed" ] || fail "fuzz targets with findings:$failed"
echo "PASS: every fuzz target ran $secs s without a finding"
