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
