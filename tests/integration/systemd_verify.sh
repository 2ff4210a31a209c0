#!/bin/sh
# The installed systemd unit passes systemd-analyze verify: its syntax,
# its Exec*= programs (installed into a staging root, make install
# DESTDIR=, never into the machine; verify wants them to exist, so the
# unit is checked with its paths moved into that root) and, where man(1)
# is there, its Documentation= pages, looked up in the same root.  Skips
# where systemd-analyze is not.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/install_lib.sh"

command -v systemd-analyze >/dev/null ||
    { echo "SKIP: no systemd-analyze"; exit 77; }

R=$T/root
cw_stage "$R"
P=$R$cw_prefix
INSTALLED=$P/lib/systemd/system/chainwatch.service
[ -f "$INSTALLED" ] || fail "no unit installed at $INSTALLED"
grep -q "^ExecStart=$cw_sbindir/chainwatchd\$" "$INSTALLED" ||
    fail "the unit does not name the installed daemon: $(grep '^ExecStart=' "$INSTALLED")"
UNIT=$T/chainwatch.service
cw_relocate "$INSTALLED" "$R" >"$UNIT"
grep -q "^ExecStart=$R$cw_sbindir/chainwatchd\$" "$UNIT" ||
    fail "the unit's paths were not moved into $R: $(grep '^ExecStart=' "$UNIT")"

if command -v man >/dev/null; then
	man_opt=--man=yes
else
	man_opt=--man=no
fi
# verify says what is wrong on its output, but exits 0 for some of it
# (an unknown key, a bad value): any word from it is a failure.
MANPATH=$P/share/man systemd-analyze verify $man_opt "$UNIT" >"$T/verify" 2>&1
rc=$?
if [ $rc -ne 0 ] || [ -s "$T/verify" ]; then
	cat "$T/verify"
	fail "systemd-analyze verify $UNIT (exit $rc)"
fi
ok "systemd-analyze verify $man_opt: the unit is clean"

# And it can fail: a unit whose daemon is missing is refused.
mkdir -p "$T/broken"
sed "s|^ExecStart=.*|ExecStart=$R$cw_sbindir/no-such-daemon|" "$UNIT" \
    >"$T/broken/chainwatch.service"
MANPATH=$P/share/man systemd-analyze verify $man_opt "$T/broken/chainwatch.service" \
    >"$T/verify" 2>&1 && fail "verify passed a unit without its daemon"
grep -q 'no-such-daemon' "$T/verify" || fail "verify did not say why: $(cat "$T/verify")"
ok "a unit without its daemon is refused"
