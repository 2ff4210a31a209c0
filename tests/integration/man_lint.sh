#!/bin/sh
# Every manual page of the build is installed by "make install" and is
# clean under mandoc -Tlint, style included, and every reference to a
# chainwatch page names one that exists.  (mandoc only looks for other
# pages under /usr/share/man, so "referenced manual not found" is checked
# here instead.)  ./quickstart test installs mandoc; without it the test
# skips, except in CI, where a missing linter must not pass unseen.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/install_lib.sh"

if ! command -v mandoc >/dev/null; then
	[ -n "${CI:-}" ] && fail "no mandoc in CI (apt-get install mandoc)"
	echo "SKIP: no mandoc"
	exit 77
fi

# The pages: generated ones in the build's man/, the others in the
# source's; chainwatch-metrics.8 and any later page are found the same way.
pages=
for f in "$top_builddir"/man/*.[1-9] "$top_srcdir"/man/*.[1-9]; do
	[ -f "$f" ] || continue
	b=${f##*/}
	case " $pages " in
	*" $b "*) ;;
	*) pages="$pages $b" ;;
	esac
done
for b in chainwatchd.8 chainwatch.1 chainwatch.conf.5 chainwatch-devnode.1 \
    chainwatch-worker.8 chainwatch.db.5; do
	case " $pages " in
	*" $b "*) ;;
	*) fail "no manual page $b in the build" ;;
	esac
done

# Lint the installed copies: what users get, with paths filled in.
D=$T/dest
cw_install DESTDIR="$D" >"$T/install.log" 2>&1 ||
    { cat "$T/install.log"; fail "make install DESTDIR=$D failed"; }
n=0
for b in $pages; do
	sec=${b##*.}
	inst=$(find "$D" -type f -path "*/man$sec/$b" | head -n 1)
	[ -n "$inst" ] || fail "make install did not install $b (in man$sec/)"
	if grep -n '@[a-z_]*@' "$inst" >"$T/subst"; then
		cat "$T/subst"
		fail "$b: placeholder left unsubstituted"
	fi
	mandoc -Tlint -Wstyle "$inst" >"$T/lint" 2>&1
	rc=$?
	grep -v -e 'referenced manual not found' -e 'outdated mandoc.db' \
	    "$T/lint" >"$T/lint.left"
	if [ $rc -ge 2 ] || [ -s "$T/lint.left" ]; then
		cat "$T/lint.left"
		fail "mandoc -Tlint: $b (exit $rc)"
	fi
	# Cross-references to our own pages must resolve.
	for x in $(grep -o 'Xr chainwatch[A-Za-z0-9._-]* [1-9]' "$inst" |
	    sed 's/^Xr \(.*\) \([1-9]\)$/\1.\2/' | sort -u); do
		case " $pages " in
		*" $x "*) ;;
		*) fail "$b refers to $x, which is no page of the build" ;;
		esac
	done
	n=$((n + 1))
done
ok "$n manual pages installed and clean:$pages"
