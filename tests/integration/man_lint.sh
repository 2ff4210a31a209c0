#!/bin/sh
# Every manual page is clean under mandoc -Tlint (warnings and worse;
# "referenced manual not found" is a style note about the local manpath).
. "$top_srcdir/tests/integration/lib.sh"

command -v mandoc >/dev/null || { echo "SKIP: no mandoc"; exit 77; }
n=0
for page in "$top_builddir"/man/chainwatchd.8 "$top_builddir"/man/chainwatch-worker.8 \
    "$top_builddir"/man/chainwatch.conf.5 "$top_srcdir"/man/chainwatch-devnode.1 \
    "$top_srcdir"/man/chainwatch.1 "$top_srcdir"/man/chainwatch.db.5; do
	[ -f "$page" ] || fail "no manual page $page"
	mandoc -Tlint -Wwarning "$page" >"$T/lint" 2>&1 ||
	    { cat "$T/lint"; fail "mandoc -Tlint: $page"; }
	n=$((n + 1))
done
ok "$n manual pages clean"
