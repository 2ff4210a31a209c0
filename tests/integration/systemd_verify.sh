#!/bin/sh
# The installed systemd unit passes systemd-analyze verify: its syntax,
# its Exec*= programs (installed under a temporary prefix, since verify
# wants them to exist) and, where man(1) is there, its Documentation=
# pages, looked up in the same prefix.  Skips where systemd-analyze is not.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/install_lib.sh"

command -v systemd-analyze >/dev/null ||
    { echo "SKIP: no systemd-analyze"; exit 77; }

P=$T/prefix
cw_install prefix="$P" exec_prefix="$P" sysconfdir="$P/etc" \
    localstatedir="$P/var" runstatedir="$P/var/run" >"$T/install.log" 2>&1 ||
    { cat "$T/install.log"; fail "make install prefix=$P failed"; }
UNIT=$P/lib/systemd/system/chainwatch.service
[ -f "$UNIT" ] || fail "no unit installed at $UNIT"
grep -q "^ExecStart=$P/sbin/chainwatchd\$" "$UNIT" ||
    fail "the unit does not name the installed daemon: $(grep '^ExecStart=' "$UNIT")"

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
sed "s|^ExecStart=.*|ExecStart=$P/sbin/no-such-daemon|" "$UNIT" \
    >"$T/chainwatch.service"
MANPATH=$P/share/man systemd-analyze verify $man_opt "$T/chainwatch.service" \
    >"$T/verify" 2>&1 && fail "verify passed a unit without its daemon"
grep -q 'no-such-daemon' "$T/verify" || fail "verify did not say why: $(cat "$T/verify")"
ok "a unit without its daemon is refused"
