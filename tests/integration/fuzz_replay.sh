#!/bin/sh
# Every fuzz target replays its seed corpus (fuzz/corpus/NAME) through its
# plain main() driver (fuzz/replay.c), in any build: each input must go
# through the real parser without a crash, and under the sanitizer build
# without a finding.  The libFuzzer runs are tests/integration/fuzz.sh.
. "$top_srcdir/tests/integration/lib.sh"

targets="rpc header_scale header_json ws sub msg conf control devnode metrics"
for t in $targets; do
	bin="$top_builddir/fuzz/replay_$t"
	dir="$top_srcdir/fuzz/corpus/$t"
	[ -x "$bin" ] || fail "$bin is not built"
	n=$(find "$dir" -type f | wc -l)
	[ "$n" -gt 0 ] || fail "no seeds in $dir"
	out=$("$bin" "$dir" 2>&1) || {
		printf '%s\n' "$out" >&2
		fail "replay_$t failed on its corpus $dir"
	}
	case $out in
	*"replayed $n inputs"*) echo "ok: $out" ;;
	*) printf '%s\n' "$out" >&2; fail "replay_$t replayed not all $n seeds" ;;
	esac
done
echo "PASS: every target replayed its corpus"
