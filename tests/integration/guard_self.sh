#!/bin/sh
# The guard (guard.sh) on a folder of its own (CW_GUARD_ROOTS): nothing
# changed passes; a new file fails; a file of chainwatch's name rewritten
# in place (an install over one already there) fails, whether its size
# or only its time changed.
. "$top_srcdir/tests/integration/lib.sh"
GUARD=$top_srcdir/tests/integration/guard.sh
R=$T/root
mkdir -p "$R/etc/init.d" "$T/b" || fail mkdir
echo "#!/bin/sh" >"$R/etc/init.d/chainwatch"
echo "other" >"$R/etc/other"

# guard begin|end: the guard on $R, its listings in $T/b/tests/guard.
guard() {
	CW_GUARD_ROOTS=$R top_builddir=$T/b timeout 60 sh "$GUARD" "$1" \
	    >"$T/guard.out" 2>&1
}

guard begin || fail "begin: $(cat "$T/guard.out")"
echo "changed" >"$R/etc/other"
guard end || fail "nothing new, another file changed: $(cat "$T/guard.out")"
ok "nothing new: it passes ($(tail -n 1 "$T/guard.out"))"

guard begin || fail "begin"
mkdir -p "$R/etc/chainwatch" && echo "[global]" >"$R/etc/chainwatch/chainwatch.conf"
guard end && fail "a new file: it passed"
grep -q "$R/etc/chainwatch/chainwatch.conf" "$T/guard.out" ||
    fail "a new file: not named: $(cat "$T/guard.out")"
rm -rf "$R/etc/chainwatch"
ok "a new file: it fails, naming it"

guard begin || fail "begin"
echo "#!/bin/sh -e" >"$R/etc/init.d/chainwatch"
guard end && fail "chainwatch's init script rewritten, another size: it passed"
grep -q "$R/etc/init.d/chainwatch" "$T/guard.out" ||
    fail "rewritten: not named: $(cat "$T/guard.out")"
ok "chainwatch's init script rewritten: it fails"

guard begin || fail "begin"
touch -d '2001-01-01' "$R/etc/init.d/chainwatch"
guard end && fail "chainwatch's init script touched, same size: it passed"
ok "chainwatch's init script rewritten with the same size: it fails"
