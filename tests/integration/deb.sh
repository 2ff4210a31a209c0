#!/bin/sh
# The Debian packages: built with dpkg-buildpackage from the release
# files (make distdir: what the tarball holds), lintian-clean, installed
# with dpkg -i; the service, started through its init script, follows a
# chainwatch-devnode of the package and "chainwatch status" says ok; it
# stops; dpkg -r keeps the store, the user and the configuration; dpkg -P
# leaves nothing of them, and no process.
#
# It installs into this machine, so it runs only as root, one at a time
# (a lock on /run/lock), and only where nothing of chainwatch is installed
# already: it skips rather than touch a chainwatch installed from source.
#
# In the suite the packages are built with DEB_BUILD_OPTIONS=nocheck: the
# tests a package build runs are the plain build's suite, which the suite
# runs already (make distcheck), and would add some 15 minutes.  With
# CW_DEB_ROUTE=readme it follows the README's "Install on Debian" as
# written instead, from a clean clone of this tree: "apt-get build-dep ./"
# and "dpkg-buildpackage -us -uc -b", tests included, nothing new on the
# machine outside the clone and its parent; "apt install" of both
# packages, the configuration edited, "chainwatchd -n", the service
# restarted through the init script and "chainwatch status".
. "$top_srcdir/tests/integration/lib.sh"
ROUTE=${CW_DEB_ROUTE:-}

skip() {
	echo "SKIP: $*"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "not root: the packages are installed into the machine"
# The packages are built from the sources by dpkg-buildpackage, never with
# this build's sanitizers: one run (the plain build's) checks them.
[ "$CW_SANITIZED" = yes ] && skip "sanitizer build: the packages are the same as the plain build's, which checks them"
# Inside a package build (debian/rules' dh_auto_test): it would build and
# install the package being built.
[ -n "${CW_IN_PACKAGE_BUILD:-}" ] && skip "inside a package build"
case $ROUTE in
''|readme) ;;
*) fail "CW_DEB_ROUTE=$ROUTE: only 'readme' is known" ;;
esac
for c in dpkg-buildpackage dh lintian fakeroot dpkg-deb flock curl; do
	command -v $c >/dev/null ||
	    skip "no $c (Debian packages dpkg-dev, debhelper, lintian, fakeroot, util-linux, curl)"
done

# The directory itself is the lock: a file of ours would be left there.
exec 9</run/lock || skip "cannot open /run/lock"
flock -w 600 9 || skip "another run of this test holds /run/lock"

# Nothing of chainwatch may be there: the purge at the end removes what
# the packages own, and the user and store of the name chainwatch.
PKGS="chainwatch chainwatch-devnode"
for p in $PKGS; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	case $st in
	''|not-installed) ;;
	*) skip "package $p is $st already" ;;
	esac
done
for f in /etc/chainwatch /var/lib/chainwatch /etc/init.d/chainwatch \
    /etc/default/chainwatch /usr/sbin/chainwatchd /usr/bin/chainwatch \
    /usr/bin/chainwatch-devnode /usr/libexec/chainwatch-worker \
    /usr/libexec/chainwatch-metrics /lib/systemd/system/chainwatch.service \
    /run/chainwatchd.pid /run/chainwatchd.sock; do
	[ -e "$f" ] && skip "$f exists: chainwatch is installed from source here"
done
getent passwd chainwatch >/dev/null && skip "a user chainwatch exists already (the purge would remove it)"
getent group chainwatch >/dev/null && skip "a group chainwatch exists already"

# What a build could leave on the machine (the guard's places, less what
# the guard leaves out: the package manager's and the init system's own
# state; systemd-analyze verify, which the package's tests run, marks
# /run/systemd), to compare before and after the build.
machine() {
	find /etc /usr /var/lib /run "${HOME:-/root}" -xdev \( \
	    -path /var/lib/apt -o -path /var/lib/dpkg -o \
	    -path /var/lib/systemd -o -path /run/systemd -o -path /run/user \
	    -o -path "$T" \) -prune -o -print 2>/dev/null | sort
}

# What has chainwatch in its name before, to compare with after the purge.
# (/usr/local is not the packages', and may hold a source install.)
leftovers() {
	find /etc /var/lib /var/log /run /lib/systemd /usr -xdev \
	    -path /usr/local -prune -o -name '*chainwatch*' -print 2>/dev/null |
	    sort
}

# dpkg ARGS...: dpkg, waiting up to 2 minutes for another dpkg or apt
# on the machine to let go of its lock.
dpkg_w() {
	_i=0
	while :; do
		dpkg "$@" >"$T/dpkg.log" 2>&1 && return 0
		grep -q 'locked by another process' "$T/dpkg.log" &&
		    [ $_i -lt 120 ] || return 1
		sleep 1
		_i=$((_i + 1))
	done
}

leftovers >"$T/before"

# Whatever happens, the machine is left as it was: none of these was
# there (checked above) and this run holds the lock, so whatever is there
# now is this run's, even what a broken postrm would leave.
INSTALLED=
undo() {
	[ -n "$INSTALLED" ] || return 0
	[ -x /etc/init.d/chainwatch ] && /etc/init.d/chainwatch stop >/dev/null 2>&1
	dpkg_w -P $PKGS
	getent passwd chainwatch >/dev/null && userdel chainwatch
	getent group chainwatch >/dev/null && groupdel chainwatch
	rm -rf /etc/chainwatch /var/lib/chainwatch
	[ -n "$POLICY" ] && rm -f /usr/sbin/policy-rc.d
}
CW_CLEANUP=undo
POLICY=

VERSION=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
[ -n "$VERSION" ] || fail "no PACKAGE_VERSION in $top_builddir/config.h"
mkdir -p "$T/src"
if [ "$ROUTE" = readme ]; then
	# A clean clone, and the README's two commands as written (the
	# prompt of build-dep, if it has anything to install, answered yes).
	command -v git >/dev/null || skip "no git"
	git -C "$top_srcdir" rev-parse --git-dir >/dev/null 2>&1 ||
	    skip "$top_srcdir is not a git checkout to clone"
	SRC=$T/src/chainwatch
	git clone -q "$top_srcdir" "$SRC" || fail "git clone $top_srcdir"
	ok "a clean clone of $(git -C "$SRC" log -1 --format='%h %s') in $SRC"
	t0=$(date +%s)
	# build-dep installs what is missing (the machine changes, as the
	# README says); from then on the build itself may leave nothing.
	(cd "$SRC" && yes | apt-get build-dep ./) >"$T/build.log" 2>&1 ||
	    { tail -n 30 "$T/build.log"; fail "apt-get build-dep ./"; }
	machine >"$T/machine.before"
	# As a user types it: no DEB_BUILD_OPTIONS of the caller's (nocheck),
	# nothing of this make's; bounded, as every test is.
	(cd "$SRC" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u top_srcdir \
	    -u top_builddir -u DEB_BUILD_OPTIONS timeout 5400 \
	    dpkg-buildpackage -us -uc -b) >>"$T/build.log" 2>&1 ||
	    { tail -n 60 "$T/build.log"; fail "apt-get build-dep ./ && dpkg-buildpackage -us -uc -b"; }
	# Its tests ran and passed: the suite's own count, not a step's name.
	total=$(sed -n 's/^# TOTAL: *\([0-9]*\)$/\1/p' "$T/build.log" | tail -n 1)
	passed=$(sed -n 's/^# PASS: *\([0-9]*\)$/\1/p' "$T/build.log" | tail -n 1)
	[ "${total:-0}" -gt 0 ] && [ "${passed:-0}" -gt 0 ] ||
	    fail "the package build ran no tests (# TOTAL: ${total:-none}, # PASS: ${passed:-none})"
	tests=$(grep -E '^# (PASS|FAIL|SKIP|ERROR):' "$T/build.log" | tr '\n' ' ')
	machine >"$T/machine.after"
	comm -13 "$T/machine.before" "$T/machine.after" >"$T/machine.new"
	[ -s "$T/machine.new" ] &&
	    fail "the build left on the machine: $(head -n 20 "$T/machine.new")"
	ok "apt-get build-dep ./ && dpkg-buildpackage -us -uc -b: $(($(date +%s) - t0)) s, its tests: $tests; nothing new on the machine"
else
	# The release files, as make dist would pack them.
	SRC=$T/src/chainwatch-$VERSION
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$top_builddir" \
	    distdir distdir="$SRC" >"$T/distdir.log" 2>&1 ||
	    { cat "$T/distdir.log"; fail "make distdir"; }
	[ -x "$SRC/debian/rules" ] || fail "debian/ is not in the release files"
	chmod -R u+w "$SRC"
	ok "release files of $VERSION in $SRC"
	# Compiled once, tests not run (see above; what the suite leaves on
	# the machine is the guard's, guard_end.guard).
	(cd "$SRC" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u top_srcdir \
	    -u top_builddir DEB_BUILD_OPTIONS='nocheck parallel=2' \
	    dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1 ||
	    { tail -n 40 "$T/build.log"; fail "dpkg-buildpackage"; }
fi
DEB=$(ls "$T"/src/chainwatch_"$VERSION"-*_*.deb 2>/dev/null)
DEVDEB=$(ls "$T"/src/chainwatch-devnode_"$VERSION"-*_*.deb 2>/dev/null)
[ -f "$DEB" ] && [ -f "$DEVDEB" ] ||
    fail "no chainwatch_$VERSION and chainwatch-devnode_$VERSION packages: $(ls "$T/src")"
ok "built $(basename "$DEB") and $(basename "$DEVDEB")"

# Errors and warnings fail; overrides are in debian/*.lintian-overrides.
lintian --fail-on error,warning "$DEB" "$DEVDEB" >"$T/lintian" 2>&1
rc=$?
grep -E '^[EW]: ' "$T/lintian" && fail "lintian"
[ $rc -eq 0 ] || { cat "$T/lintian"; fail "lintian exited with $rc"; }
ok "lintian: no error, no warning"

# What the packages hold, and say.
dpkg-deb -c "$DEB" | awk '{ print $6 }' | sed 's|^\.||' >"$T/files"
for f in /usr/sbin/chainwatchd /usr/bin/chainwatch \
    /usr/libexec/chainwatch-worker /usr/libexec/chainwatch-metrics \
    /etc/chainwatch/chainwatch.conf /etc/init.d/chainwatch \
    /lib/systemd/system/chainwatch.service \
    /usr/share/chainwatch/chainwatch.rules.yml \
    /usr/share/chainwatch/chainwatch.json \
    /usr/share/chainwatch/openapi.json \
    /usr/share/man/man8/chainwatchd.8.gz /usr/share/man/man1/chainwatch.1.gz \
    /usr/share/man/man5/chainwatch.conf.5.gz \
    /usr/share/man/man8/chainwatch-metrics.8.gz \
    /usr/share/man/man8/chainwatch-worker.8.gz; do
	grep -qx "$f" "$T/files" || fail "chainwatch package lacks $f"
done
grep -E '^/(run|var)/' "$T/files" && fail "the package ships what the postinst or the boot makes"
dpkg-deb -c "$DEVDEB" >"$T/devfiles" || fail "dpkg-deb -c $DEVDEB"
grep -q '\./usr/bin/chainwatch-devnode$' "$T/devfiles" ||
    fail "chainwatch-devnode package lacks its program"
dpkg-deb --ctrl-tarfile "$DEB" | tar -xOf - ./conffiles >"$T/conffiles"
grep -qx /etc/chainwatch/chainwatch.conf "$T/conffiles" ||
    fail "chainwatch.conf is not a conffile: $(cat "$T/conffiles")"
v=$(dpkg-deb -f "$DEB" Version)
[ "${v%-*}" = "$VERSION" ] || fail "package version $v, configure.ac says $VERSION"
deps=$(dpkg-deb -f "$DEB" Depends)
for d in adduser libsqlite3-0 libev4 libmicrohttpd12; do
	echo "$deps" | grep -q "$d" || fail "Depends lacks $d: $deps"
done
ok "version $v, conffile, Depends from the libraries: $deps"

# conf PORT: a configuration for the devnode on PORT.  The package's
# paths are the defaults.
conf() {
	cat <<CONF
[daemon]
user = chainwatch
heartbeat_interval = 500ms
metrics_listen = 127.0.0.1:0

[chain devchain]
difficulty_floor = 1
block_time = 500ms
endpoint = dev http://127.0.0.1:$1 ws://127.0.0.1:$1
CONF
}

INSTALLED=1
DEVNODE=/usr/bin/chainwatch-devnode
if [ "$ROUTE" = readme ]; then
	# As the README says.  The service must not start on the sample,
	# whose endpoints are public hosts no test may reach: the postinst
	# is told so by a policy-rc.d, as in a container's image.
	# (One there already, as in a container's image, must say no too.)
	if [ -e /usr/sbin/policy-rc.d ]; then
		/usr/sbin/policy-rc.d chainwatch start >/dev/null 2>&1
		[ $? -eq 101 ] ||
		    skip "/usr/sbin/policy-rc.d would let the service start on the sample's public endpoints"
	else
		POLICY=1
		printf '#!/bin/sh\n# deb.sh: no service starts while it installs.\nexit 101\n' \
		    >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d ||
		    fail "cannot write /usr/sbin/policy-rc.d"
	fi
	(cd "$SRC" && sh -c 'yes | apt install ../chainwatch_*.deb ../chainwatch-devnode_*.deb') \
	    >"$T/apt.log" 2>&1 ||
	    { tail -n 30 "$T/apt.log"; fail "apt install ../chainwatch_*.deb ../chainwatch-devnode_*.deb"; }
	[ -n "$POLICY" ] && rm -f /usr/sbin/policy-rc.d
	POLICY=
	devnode dev --seed deb --block-time 500 --backlog 20 --miners 3
	dev_pid=${CW_PIDS##* }
	# "Edit the one file": the devnode's chain for the sample's.
	conf "$dev_port" >/etc/chainwatch/chainwatch.conf
	chainwatchd -n >"$T/n" 2>&1 || fail "chainwatchd -n: $(cat "$T/n")"
	grep -qx 'configuration OK' "$T/n" || fail "chainwatchd -n said: $(cat "$T/n")"
	INIT=restart
	ok "apt install of both packages; chainwatchd -n: configuration OK"
else
	# The devnode from its package, on a free port.
	dpkg_w -i "$DEVDEB" || { cat "$T/dpkg.log"; fail "dpkg -i $DEVDEB"; }
	devnode dev --seed deb --block-time 500 --backlog 20 --miners 3
	dev_pid=${CW_PIDS##* }
	ok "chainwatch-devnode of the package on 127.0.0.1:$dev_port"
	# A configuration for it, in place before the package so that its
	# postinst, where services may start, never starts one on the sample
	# (which names public endpoints).
	mkdir /etc/chainwatch
	conf "$dev_port" >/etc/chainwatch/chainwatch.conf
	dpkg_w -i --force-confold "$DEB" ||
	    { cat "$T/dpkg.log"; fail "dpkg -i $DEB"; }
	INIT=start
fi
dpkg-query -W -f='${Status}\n' $PKGS >"$T/st"
[ "$(grep -c 'install ok installed' "$T/st")" = 2 ] || fail "not installed: $(cat "$T/st")"
getent passwd chainwatch >"$T/pw" || fail "postinst made no user chainwatch"
[ "$(cut -d: -f7 "$T/pw")" = /usr/sbin/nologin ] || fail "user chainwatch can log in: $(cat "$T/pw")"
[ "$(cut -d: -f3 "$T/pw")" -lt 1000 ] || fail "user chainwatch is not a system user: $(cat "$T/pw")"
[ "$(stat -c '%a %U %G' /var/lib/chainwatch)" = "750 chainwatch chainwatch" ] ||
    fail "/var/lib/chainwatch is $(stat -c '%a %U %G' /var/lib/chainwatch)"
ok "installed; user $(cut -d: -f1,3 "$T/pw"), /var/lib/chainwatch 750 chainwatch"

# The service, through the init script (it may run already where the
# postinst could start it; the README's route restarts it).
/etc/init.d/chainwatch $INIT >"$T/out" 2>&1 || { cat "$T/out"; fail "init script $INIT"; }
[ -s /run/chainwatchd.pid ] || fail "no /run/chainwatchd.pid"
pid=$(cat /run/chainwatchd.pid)
[ "$(readlink "/proc/$pid/exe")" = /usr/sbin/chainwatchd ] ||
    fail "pid $pid is not /usr/sbin/chainwatchd"
/etc/init.d/chainwatch status >"$T/out" 2>&1 || fail "init script status: $(cat "$T/out")"
wait_for 60 'chainwatch status >"$T/status" 2>&1' ||
    fail "chainwatch status: $(cat "$T/status")"
grep -q '^devchain: ok' "$T/status" || fail "chainwatch status: $(cat "$T/status")"
w=$(pgrep -P "$pid" -f '^chainwatch-worker dev$')
[ -n "$w" ] || fail "no worker of endpoint dev"
[ "$(ps -o user= -p "$w")" = chainwatch ] || fail "worker runs as $(ps -o user= -p "$w")"
[ -f /var/lib/chainwatch/chainwatch.db ] || fail "no store in /var/lib/chainwatch"
wait_for 20 'pgrep -P $pid -f "^/usr/libexec/chainwatch-metrics " >"$T/m"' ||
    fail "chainwatchd runs no /usr/libexec/chainwatch-metrics"
ok "running (pid $pid, worker $w as chainwatch, metrics $(cat "$T/m")); chainwatch status: $(head -n 1 "$T/status")"

/etc/init.d/chainwatch stop >"$T/out" 2>&1 || { cat "$T/out"; fail "init script stop"; }
dead "$pid" || fail "chainwatchd still runs after stop"
wait_for 10 "dead $w" || fail "worker $w still runs after stop"
/etc/init.d/chainwatch status >/dev/null 2>&1
[ $? -eq 3 ] || fail "init script status after stop is not 3"
ok "stopped through the init script"

# Processes of the packages' programs.
ours() {
	for _p in /proc/[0-9]*; do
		case $(readlink "$_p/exe" 2>/dev/null) in
		/usr/sbin/chainwatchd*|/usr/bin/chainwatch*|/usr/libexec/chainwatch-*)
			echo "${_p#/proc/}" ;;
		esac
	done
}

# Remove: programs gone, the store, the user and the configuration kept.
kill "$dev_pid" 2>/dev/null
dpkg_w -r $PKGS || { cat "$T/dpkg.log"; fail "dpkg -r"; }
[ -e /usr/sbin/chainwatchd ] && fail "dpkg -r left /usr/sbin/chainwatchd"
[ -f /var/lib/chainwatch/chainwatch.db ] || fail "dpkg -r removed the store"
getent passwd chainwatch >/dev/null || fail "dpkg -r removed the user"
[ -f /etc/chainwatch/chainwatch.conf ] || fail "dpkg -r removed the configuration"
ok "removed; store, user and configuration kept"

dpkg_w -P $PKGS || { cat "$T/dpkg.log"; fail "dpkg -P"; }
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'installed' &&
	    fail "$p still known to dpkg: $(dpkg-query -W -f='${Status}' "$p")"
done
getent passwd chainwatch && fail "dpkg -P left the user chainwatch"
getent group chainwatch && fail "dpkg -P left the group chainwatch"
[ -e /var/lib/chainwatch ] && fail "dpkg -P left /var/lib/chainwatch"
[ -e /etc/chainwatch ] && fail "dpkg -P left /etc/chainwatch"
wait_for 10 'test -z "$(ours)"' || fail "processes left: $(ours)"
leftovers >"$T/after"
diff "$T/before" "$T/after" >"$T/diff" || fail "left behind: $(cat "$T/diff")"
ok "purged: no file, user, group, store or process left"
