#!/bin/sh
# The guard: no test writes into the machine.  "guard.sh begin", made by
# make check before any test starts (tests/local.mk), lists what the
# suite could touch -- /etc, /usr, /var/lib, /run and $HOME -- and
# "guard.sh end", the test guard_end.guard that runs after all the others,
# lists them again and fails on anything new: an install that missed its staging root, a user added, a
# pidfile or socket left in /run, a cache in $HOME.  A path with
# "chainwatch" in its name is listed with its size and modification time,
# so that an install over a chainwatch already there (a package, a source
# install) fails too; others by name only (the machine's own files change
# while the suite runs: another build, the package manager).  Left out: this tree
# and its build (which may live in $HOME), $TMPDIR, and the state that
# the package manager and the init system keep of their own (/var/lib/apt,
# /var/lib/dpkg, /var/lib/systemd, /run/systemd, /run/user).
# CW_GUARD_ROOTS, if set, replaces the list of places (the guard's own
# test of itself uses a folder of its own).
set -u
dir=${top_builddir:?}/tests/guard
roots=${CW_GUARD_ROOTS:-"/etc /usr /var/lib /run ${HOME:-/root}"}

real() {
	(cd "$1" 2>/dev/null && pwd -P) || echo "$1"
}

listing() {
	_src=$(real "${top_srcdir:?}")
	_bld=$(real "$top_builddir")
	_tmp=$(real "${TMPDIR:-/tmp}")
	# shellcheck disable=SC2086
	find $roots -xdev \( -path /var/lib/apt -o -path /var/lib/dpkg -o \
	    -path /var/lib/systemd -o -path /run/systemd -o -path /run/user \
	    -o -path "$_src" -o -path "$_bld" -o -path "$_tmp" \) -prune -o \
	    \( -name '*chainwatch*' -printf '%p %s %T@\n' \) -o -print \
	    2>/dev/null | sort
}

case ${1:-} in
begin)
	mkdir -p "$dir" || exit 99
	listing >"$dir/before" || exit 99
	echo "guard: $(wc -l <"$dir/before") paths under $roots listed before the tests"
	;;
end)
	[ -s "$dir/before" ] || { echo "FAIL: no listing from guard.sh begin in $dir"; exit 1; }
	listing >"$dir/after" || exit 99
	comm -13 "$dir/before" "$dir/after" >"$dir/new"
	if [ -s "$dir/new" ]; then
		echo "FAIL: the tests left $(wc -l <"$dir/new") new or changed paths outside their folders:"
		head -n 50 "$dir/new"
		exit 1
	fi
	echo "ok: nothing new under $roots after the tests"
	;;
*)
	echo "usage: guard.sh begin|end" >&2
	exit 99
	;;
esac
