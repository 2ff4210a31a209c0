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

# Defaults that are missing (a build tree's /usr/local/var/run, its
# libexecdir, the user chainwatch) are named as defaults, never as line 0.
printf '[chain planck]\nendpoint = a1 http://127.0.0.1:9944 ws://127.0.0.1:9944\n' \
    >"$T/defaults.conf"
"$CHAINWATCHD" -n -f "$T/defaults.conf" >"$T/defaults.out" 2>&1
grep -q ':0:' "$T/defaults.out" && fail "a line 0: $(cat "$T/defaults.out")"
grep -v '^configuration OK$' "$T/defaults.out" |
    grep -Ev "^$T/defaults.conf: ([a-z_]+) .* \(the default; no \1 line in \[daemon\]\)" &&
    fail "an error that does not say it is a default: $(cat "$T/defaults.out")"
ok "defaults that are missing are named as defaults: $(wc -l <"$T/defaults.out") lines"
