#!/bin/sh
# Every manual page of the build is installed by "make install" and is
# clean under mandoc -Tlint, style included, and every reference to a
# chainwatch page names one that exists.  (mandoc only looks for other
# pages under /usr/share/man, so "referenced manual not found" is checked
# here instead.)  ./quickstart test installs mandoc; without it the test
# skips, except in CI, where a missing linter must not pass unseen.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/install_lib.sh"

# The docs against the code, before any page is linted (these need no
# mandoc): what the README and the pages say that the code decides.
README=$top_srcdir/README.md
MAN=$top_srcdir/man

# An unknown command names every command chainwatch(1) documents (one
# .Ss each, HASHRATE aside), and nothing else.
"$top_builddir/cli/chainwatch" -d "$T/none.db" stats >/dev/null 2>"$T/stats"
[ $? = 100 ] || fail "chainwatch stats: not a usage error: $(cat "$T/stats")"
listed=$(sed -n "s/.*unknown command 'stats' (\([^)]*\)).*/\1/p" "$T/stats" |
    sed 's/ or /, /' | tr -d ' ' | tr ',' '\n' | sort | tr '\n' ' ')
documented=$(sed -n 's/^\.Ss \([a-z][a-z]*\)$/\1/p' "$MAN/chainwatch.1" | sort |
    tr '\n' ' ')
[ -n "$listed" ] && [ "$listed" = "$documented" ] ||
    fail "chainwatch stats lists '$listed', chainwatch(1) documents '$documented'"

# The demo's configuration (./quickstart demo-conf) passes chainwatchd -n,
# every path it names included; it serves the status page, changes no
# timeout or breaker setting (as the README says), and runs as nobody
# only when it says why.
mkdir -p "$T/demo"
sh "$top_srcdir/quickstart" demo-conf "$top_builddir" "$T/demo" \
    >"$T/demo.conf" || fail "quickstart demo-conf"
"$top_builddir/supervisor/chainwatchd" -n -f "$T/demo.conf" >"$T/demo.n" 2>&1 ||
    fail "the demo's configuration: $(cat "$T/demo.n")"
grep -q '^metrics_listen = 127\.0\.0\.1:0$' "$T/demo.conf" ||
    fail "the demo serves no status page on a free port"
# (difficulty_floor is the devnodes' least difficulty, a fact of the
# chain, not a setting of the daemon's.)
left=$(sed -n '/^\[chain demo\]$/,$p' "$T/demo.conf" | grep -v '^#' |
    sed -n 's/^\([a-z_]*\) = .*/\1/p' | sort -u |
    grep -Ev '^(format|block_time|difficulty_floor|endpoint)$')
[ -z "$left" ] ||
    fail "the demo sets $left: the README says it runs on the defaults"
grep -q 'shortens `request_timeout`' "$README" &&
    fail "the README says the demo shortens request_timeout"
grep -q 'status page: http://127\.0\.0\.1:' "$README" &&
    grep -q 'echo "status page: ' "$top_srcdir/quickstart" ||
    fail "the demo's frame or the README's sample lacks the status page"
if grep -q '^user = nobody$' "$T/demo.conf"; then
	grep -q 'does not create' "$top_srcdir/quickstart" &&
	    grep -q 'the demo creates no user' "$README" ||
	    fail "the demo runs as nobody without saying why"
fi

# What makes a chain unreachable: view_status.c counts unresponsive
# endpoints with the unreachable ones; the README and chainwatch(1) say so.
grep -q 's->n_down + s->n_mute == s->n_eps' "$top_srcdir/src/view_status.c" ||
    fail "view_status.c's rule for unreachable changed: check the docs"
grep -A1 '^  \* `unreachable`:' "$README" | tr '\n' ' ' | grep -q 'unresponsive' ||
    fail "README, status: unreachable without unresponsive"
grep -A1 '^\*\*unreachable\*\* --' "$README" | tr '\n' ' ' | grep -q 'unresponsive' ||
    fail "README, troubleshooting: unreachable without unresponsive"
grep -A1 '^\.It Cm unreachable$' "$MAN/chainwatch.1" | grep -q 'unresponsive' ||
    fail "chainwatch(1): unreachable without unresponsive"

# chainwatch.db(5) describes the schema version the migrations make.
"$top_builddir/tests/integration/mkschema" >"$T/schema.sql" ||
    fail "mkschema"
sqlite3 "$T/schema.db" <"$T/schema.sql" || fail "sqlite3: the schema"
v=$(sqlite3 "$T/schema.db" 'PRAGMA user_version')
grep -q "^This page describes version $v:\$" "$MAN/chainwatch.db.5" ||
    fail "chainwatch.db(5) does not describe version $v"
[ "$(sed -n "/'PRAGMA user_version' .schema\$/{n;p;}" "$MAN/chainwatch.db.5")" = "$v" ] ||
    fail "chainwatch.db(5): its sqlite3 example shows another user_version than $v"
[ "$(sed -n '/^This page describes version/,/^\.El/s/^\.It \([0-9]*\)$/\1/p' \
    "$MAN/chainwatch.db.5" | tail -n 1)" = "$v" ] ||
    fail "chainwatch.db(5): the list of versions does not end at $v"

# One control socket path: chainwatchd(8) and chainwatch.conf(5) take the
# configured runstatedir; the README's table and chainwatch(1)'s FILES,
# written for the same configure line, agree with it.
run=$(sed -n 's/.*--runstatedir=\([^ `]*\).*/\1/p' "$README" | sort -u)
[ "$(echo "$run" | wc -l)" = 1 ] && [ -n "$run" ] ||
    fail "the README's configure lines name runstatedirs: $run"
grep -q "^| \`$run/chainwatchd.sock\` |" "$README" ||
    fail "README, Files and paths: the socket is not in $run"
grep -q "^\.It Pa $run/chainwatchd.sock\$" "$MAN/chainwatch.1" &&
    grep -q "runstatedir Ns = Ns Pa $run" "$MAN/chainwatch.1" ||
    fail "chainwatch(1), FILES: the socket is not in $run"
grep -q '^\.It Pa @runstatedir@/chainwatchd.sock$' "$MAN/chainwatchd.8.in" ||
    fail "chainwatchd(8), FILES: the socket is not in @runstatedir@"
# The probes' cadence and cost in chainwatch.conf(5) (block_time) are
# src/proto.h's: at 12 s blocks one every PROTO_POLL_MAX_MS, so many an
# hour, so many more than one a block time would be.
python3 - "$top_srcdir/src/proto.h" "$top_srcdir/man/chainwatch.conf.5.in" <<'PY' ||
import re, sys
h = open(sys.argv[1]).read()
c = dict((k, int(v)) for k, v in
         re.findall(r'#define (PROTO_\w+)\s+(\d+)', h))
m = " ".join(open(sys.argv[2]).read().split())
words = {1: "once", 2: "twice", 3: "three", 4: "four"}
want = ("at least every %g s and at most every %g s, and %s times more, %g s apart"
        % (c["PROTO_POLL_MAX_MS"] / 1000, c["PROTO_POLL_MIN_MS"] / 1000,
           words[c["PROTO_REPOLL_N"]], c["PROTO_REPOLL_MS"] / 1000))
if want not in m:
    sys.exit("chainwatch.conf(5) lacks: " + want)
hour = 3600000 // c["PROTO_POLL_MAX_MS"]
more = hour - 3600 // 12
if ("at 12 s blocks that is %d probes an hour per endpoint" % hour) not in m \
        or (" %d more than one a block time would be" % more) not in m:
    sys.exit("chainwatch.conf(5): not %d probes an hour, %d more" % (hour, more))
PY
    fail "chainwatch.conf(5)'s probe figures are not src/proto.h's"
ok "the docs agree with the code: the demo, unreachable, schema version $v, $run, the probes"

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
