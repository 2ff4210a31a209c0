#!/bin/sh
# Secrets in endpoint URLs are never shown.  One devnode reached through
# URLs that carry a password, an API key and a token in the query string,
# and a project id made secret by secret_params.  Not one of the secrets
# may appear in chainwatchd -nv, the daemon's and workers' log (at debug),
# the store, chainwatch endpoints and status (text and JSON), the control
# socket's answer or the metrics -- while the devnode is followed through
# those very URLs, so the secrets are really used.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
CW="$top_builddir/cli/chainwatch"
METRICS=$top_builddir/metrics/chainwatch-metrics
CTL="python3 $top_srcdir/tests/integration/ctl_client.py"
SECRETS="Pw0rdS3cret ApiK3yS3cret T0kenS3cret Pr0jectS3cret"

devnode d1 --seed secrets --block-time 300 --backlog 50
write_conf "$T/chainwatch.conf"
sed -i -e '/^metrics_listen/d' -e '/^metrics_server/d' \
    -e "/^\\[daemon\\]\$/a metrics_listen = 127.0.0.1:0\\
metrics_server = $METRICS\\
secret_params = project" \
    -e 's/^block_time = .*/block_time = 300ms/' "$T/chainwatch.conf"
echo "endpoint = d1 http://u:Pw0rdS3cret@127.0.0.1:$d1_port/?apikey=ApiK3yS3cret&n=1 ws://127.0.0.1:$d1_port/?Access_Token=T0kenS3cret&projectId=Pr0jectS3cret" \
    >>"$T/chainwatch.conf"

# check FILE WHAT: none of the secrets in it.
check() {
	for s in $SECRETS; do
		! grep -q "$s" "$1" || fail "$2 shows $s: $(grep "$s" "$1" | head -n 3)"
	done
}

"$CHAINWATCHD" -nv -f "$T/chainwatch.conf" >"$T/nv" 2>&1 ||
    fail "chainwatchd -nv: $(cat "$T/nv")"
grep -q 'apikey=\*\*\*&n=1' "$T/nv" || fail "-nv does not show the URL: $(cat "$T/nv")"
check "$T/nv" "chainwatchd -nv"
ok "chainwatchd -nv shows the URLs redacted"

start_daemon
wait_for 60 'test "$(sql "SELECT count(*) FROM blocks WHERE state_at IS NOT NULL")" -gt 50' ||
    fail "d1 not followed through its URLs: $(sql 'SELECT * FROM endpoint_health')"
wait_for 20 'grep -q "following new heads" "$T/log"' ||
    fail "no new-heads subscription through the WebSocket URL"
ok "d1 followed over both URLs, secrets and all"

sqlite3 -readonly "$T/chainwatch.db" .dump >"$T/dump"
grep -q 'Access_Token=\*\*\*&projectId=\*\*\*' "$T/dump" ||
    fail "the store's endpoints row: $(sql 'SELECT ws_url FROM endpoints')"
check "$T/dump" "the store"
for v in "endpoints" "endpoints --json" "status" "status --json"; do
	"$CW" -f "$T/chainwatch.conf" $v >"$T/out" 2>&1
	check "$T/out" "chainwatch $v"
done
$CTL ask "$T/chainwatchd.sock" status >"$T/ctl" || fail "control socket status"
check "$T/ctl" "the control socket"
wait_for 20 'test -n "$(sed -n "s/.* metrics: listening on 127\.0\.0\.1:\([0-9]*\)\$/\1/p" "$T/log" | tail -n 1)"' ||
    fail "no metrics server"
mp=$(sed -n 's/.* metrics: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$T/log" | tail -n 1)
curl -s -f -m 10 -o "$T/metrics" "http://127.0.0.1:$mp/metrics" || fail "scrape"
check "$T/metrics" "the metrics"
# A reload logs and stores the endpoints again.
kill -HUP $DAEMON_PID
wait_for 20 'grep -q "reloaded" "$T/log"' || fail "no reload"
kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "chainwatchd exited with $?"
grep -q "d1" "$T/log" || fail "the log names nothing"
check "$T/log" "the daemon's log"
ok "no secret in the store, chainwatch endpoints/status, the control socket, the metrics or the log"
