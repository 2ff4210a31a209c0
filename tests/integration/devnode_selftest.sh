#!/bin/sh
# chainwatch-devnode --self-test (header JSON against header_to_json,
# re-hashing and parent links in both formats, every served quantus seal
# against its parent's served difficulty, the difficulty against QPoW's
# retarget rule, the WebSocket handshake digest, the fault parser, the
# oversized stream) and its exit codes for bad command lines.
. "$top_srcdir/tests/integration/devnode_lib.sh"

"$DEVNODE" --self-test >"$T/selftest.log" 2>&1 || fail "self-test failed"
grep -q "all checks passed" "$T/selftest.log" || fail "self-test silent"

usage_exit() {
	"$DEVNODE" "$@" >/dev/null 2>&1
	rc=$?
	[ $rc -eq 100 ] || fail "chainwatch-devnode $*: exit $rc, want 100"
}
usage_exit --format nonsense
usage_exit --block-time 0
usage_exit --fault nonsense
usage_exit --fault http_500@ws
usage_exit --fault slow
usage_exit --reorg-every 5 --reorg-depth 5
usage_exit --reorg-depth 3
usage_exit --spec-change 10 --spec-change 10
usage_exit unexpected-argument
usage_exit --listen localhost:80
usage_exit --control-listen 127.0.0.1
usage_exit --difficulty 0
usage_exit --min-difficulty 5 --difficulty 4
"$DEVNODE" --help >"$T/help" 2>&1 || fail "--help failed"

# Every option and every fault the usage names is in the manual page.
MAN="$top_srcdir/man/chainwatch-devnode.1"
for o in $(grep -o -e '--[a-z][a-z-]*' "$T/help" | sort -u); do
	grep -q -F -e ".It Fl \\${o#-}" "$MAN" || fail "option $o is not in $MAN"
done
for f in refuse reset blackhole slow http_500 http_503 rate_limit malformed \
    truncated oversized ws_drop ws_silent stall wrong_genesis; do
	grep -q "Cm $f" "$MAN" || fail "fault $f is not in $MAN"
	grep -q "$f" "$T/help" || fail "fault $f is not in --help"
done

# A port that is taken: a system failure, exit 111.
need_curl
dn_start a --block-time 1000
"$DEVNODE" --listen "127.0.0.1:$a_port" --cache-dir none >"$T/taken.log" 2>&1
rc=$?
[ $rc -eq 111 ] || fail "listening on a taken port: exit $rc, want 111"
echo "self-test and exit codes: ok"
