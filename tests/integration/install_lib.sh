# cw_install ARGS...: "make install ARGS" from the build directory, one
# test at a time.  Parallel tests share that directory, and an install
# with another prefix rewrites the files that name installation paths
# (man pages, init script, unit): two at once could install each other's.
cw_install() {
	if command -v flock >/dev/null &&
	    mkdir -p "$top_builddir/tests"; then
		flock "$top_builddir/tests/install.lock" \
		    env -u MAKEFLAGS -u MFLAGS make -s -C "$top_builddir" \
		    install "$@"
	else
		env -u MAKEFLAGS -u MFLAGS make -s -C "$top_builddir" \
		    install "$@"
	fi
}

# cw_dir NAME: a directory as this build was configured for it (prefix,
# sbindir, sysconfdir, ...), expanded by make.
cw_dir() {
	printf 'cw-dir:\n\t@echo $(%s)\n' "$1" |
	    env -u MAKEFLAGS -u MFLAGS make -s -C "$top_builddir" \
	    -f Makefile -f - cw-dir
}

# cw_stage ROOT: "make install DESTDIR=ROOT", a staging root in the
# test's own folder, whatever ./configure was given (the package's /etc
# and /usr as well as /usr/local): a test never writes into the machine.
# The configured directories go into cw_prefix, cw_sbindir, cw_bindir,
# cw_libexecdir, cw_sysconfdir, cw_runstatedir and cw_localstatedir; the
# installed files are under ROOT followed by them.
cw_stage() {
	case $1 in
	"$T"/*) ;;
	*) fail "cw_stage: $1 is not in the test's folder $T" ;;
	esac
	for _d in prefix sbindir bindir libexecdir sysconfdir runstatedir \
	    localstatedir; do
		_v=$(cw_dir $_d)
		[ -n "$_v" ] || fail "cw_stage: no $_d from the build's Makefile"
		eval "cw_$_d=\$_v"
	done
	cw_install DESTDIR="$1" >"$T/install.log" 2>&1 ||
	    { cat "$T/install.log"; fail "make install DESTDIR=$1 failed"; }
}

# cw_relocate FILE ROOT: FILE as installed, with the configured
# directories it names moved under ROOT, on standard output: an installed
# script or unit run from the staging root.
cw_relocate() {
	sed -e "s|$cw_sbindir/|$2$cw_sbindir/|g" \
	    -e "s|$cw_sysconfdir/|$2$cw_sysconfdir/|g" \
	    -e "s|$cw_runstatedir/|$2$cw_runstatedir/|g" "$1"
}
