#!/bin/sh
# Expected output: chainwatchd -n on every tests/conf/*.in must print
# exactly the matching .ok file (errors, or "configuration OK").
. "$top_srcdir/tests/integration/lib.sh"

cd "$top_srcdir/tests/conf" || exit 99
n=0
for in in *.in; do
	base=${in%.in}
	"$CHAINWATCHD" -n -f "$in" >"$T/$base.out" 2>&1
	rc=$?
	if ! cmp -s "$T/$base.out" "$base.ok"; then
		echo "FAIL: $in: output differs from $base.ok:"
		diff -u "$base.ok" "$T/$base.out"
		exit 1
	fi
	if grep -q '^configuration OK$' "$base.ok"; then
		[ $rc -eq 0 ] || fail "$in: exit status $rc, want 0"
	else
		[ $rc -eq 1 ] || fail "$in: exit status $rc, want 1"
	fi
	n=$((n + 1))
done
[ $n -ge 5 ] || fail "only $n cases found"
ok "$n configuration files checked"
