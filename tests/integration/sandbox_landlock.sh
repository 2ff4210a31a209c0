#!/bin/sh
# What Landlock forbids, for real: sandbox_probe applies the worker's
# sandbox, and /etc/hosts (name resolution needs it) can be read while
# /etc/passwd, outside the worker's list of paths, cannot.  A kernel
# without Landlock, or the sanitizer build (which leaves it out), cannot
# run this.
. "$top_srcdir/tests/integration/sandbox_lib.sh"
[ "$CW_SANITIZED" != yes ] ||
    { echo "SKIP: the sanitizer build runs its workers without Landlock"; exit 77; }

# No daemon: the connect action aims at a socket nobody listens on.
sb_probe "$T/no.sock"
if grep -q "no Landlock" "$T/probe.err"; then
	echo "SKIP: this kernel has no Landlock: $(grep "no Landlock" "$T/probe.err" | head -n 1)"
	exit 77
fi
# The filter lets read-only opens through: a denied one is Landlock's.
expect_line 'read: allowed'
expect_line 'open: denied (Permission denied)'
ok "under Landlock: /etc/hosts read, /etc/passwd denied"
