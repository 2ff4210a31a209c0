#!/bin/sh
# Secrets in endpoint URLs are never shown.  One devnode reached through
# URLs that carry a password, an API key and a token in the query string,
# and a project id made secret by secret_params.  Not one of the secrets
# may appear in chainwatchd -nv, the daemon's and workers' log (at debug),
# the store, chainwatch endpoints and status (text and JSON), the control
# socket's answer or the metrics -- while the devnode is followed through
# those very URLs, so the secrets are really used.  Each surface must
# show what it is for before it counts as holding no secret: a command
# exits as chainwatch(1) says for the state (endpoints 0; status 0 when
# every chain is ok, else 1), prints to its standard output, names the
# chain and the endpoint, and with --json prints JSON that does; a crash
# or a usage error shows no secret and proves nothing.
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
# The chain is ok, as status should then say (it exits 0 only then).
wait_for 20 '"$CW" -f "$T/chainwatch.conf" status' ||
    fail "status never ok: $("$CW" -f "$T/chainwatch.conf" status 2>&1)"
for v in "endpoints" "endpoints --json" "status" "status --json"; do
	"$CW" -f "$T/chainwatch.conf" $v >"$T/out" 2>"$T/err"
	rc=$?
	[ -s "$T/out" ] || fail "chainwatch $v printed nothing (exit $rc): $(cat "$T/err")"
	case $v in
	*--json)
		python3 -c 'import json,sys; json.load(sys.stdin)' <"$T/out" ||
		    fail "chainwatch $v (exit $rc): not JSON: $(head -n 20 "$T/out")" ;;
	esac
	# What chainwatch(1) says it exits with for what it shows.
	case $v in
	endpoints*) want=0 ;;
	"status --json")
		want=$(python3 -c '
import json, sys
chains = json.load(sys.stdin)["chains"]
print(0 if chains and all(c["status"] == "ok" for c in chains) else 1)
' <"$T/out") || fail "chainwatch $v: no chains: $(head -n 20 "$T/out")" ;;
	status)
		if grep -q '^devchain: ok: ' "$T/out" &&
		    ! grep -q '^[^ ]*: \(degraded\|stalled\|unreachable\)' "$T/out"; then
			want=0
		else
			want=1
		fi ;;
	esac
	[ "$rc" = "$want" ] ||
	    fail "chainwatch $v exited $rc, not $want for what it shows: $(cat "$T/out" "$T/err" | head -n 20)"
	case $v in
	*--json)
		# Naming the chain and d1, with its URLs redacted.
		python3 -c '
import json, sys
doc = json.load(sys.stdin)
if "chains" in doc:
    eps = [(c["name"], e["name"]) for c in doc["chains"] for e in c["endpoints"]]
else:
    eps = [(e["chain"], e["name"]) for e in doc["endpoints"]]
    urls = [e for e in doc["endpoints"] if e["name"] == "d1" and
            "apikey=***" in e["rpc_url"] and "projectId=***" in e["ws_url"]]
    if not urls:
        sys.exit("d1 without its redacted URLs: %r" % doc["endpoints"])
if ("devchain", "d1") not in eps:
    sys.exit("no endpoint d1 of devchain: %r" % eps)
' <"$T/out" 2>"$T/why" || fail "chainwatch $v: $(cat "$T/why")"
		;;
	endpoints)
		grep -q '^devchain: best #[0-9]' "$T/out" && grep -q '^d1  http://u:\*\*\*@' "$T/out" &&
		    grep -q 'projectId=\*\*\*' "$T/out" ||
		    fail "chainwatch endpoints does not show devchain and d1, redacted: $(cat "$T/out")" ;;
	status)
		grep -q '^devchain: ' "$T/out" && grep -q '^  d1  ' "$T/out" ||
		    fail "chainwatch status does not name devchain and d1: $(cat "$T/out")" ;;
	esac
	check "$T/out" "chainwatch $v"
	check "$T/err" "chainwatch $v (its standard error)"
done
ok "chainwatch endpoints and status, text and --json, exit as documented and show devchain's d1"
$CTL ask "$T/chainwatchd.sock" status >"$T/ctl" || fail "control socket status"
python3 -c 'import json,sys; json.load(sys.stdin)' <"$T/ctl" && grep -q '"d1"' "$T/ctl" ||
    fail "the control socket's status does not name d1: $(head -c 2000 "$T/ctl")"
check "$T/ctl" "the control socket"
wait_for 20 'test -n "$(sed -n "s/.* metrics: listening on 127\.0\.0\.1:\([0-9]*\)\$/\1/p" "$T/log" | tail -n 1)"' ||
    fail "no metrics server"
mp=$(sed -n 's/.* metrics: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$T/log" | tail -n 1)
curl -s -f -m 10 -o "$T/metrics" "http://127.0.0.1:$mp/metrics" || fail "scrape"
grep -q 'endpoint="d1"' "$T/metrics" ||
    fail "the metrics name no endpoint d1: $(head -n 20 "$T/metrics")"
check "$T/metrics" "the metrics"
# A reload logs and stores the endpoints again.
kill -HUP $DAEMON_PID
wait_for 20 'grep -q "reloaded" "$T/log"' || fail "no reload"
kill -TERM $DAEMON_PID
wait_for 20 "dead $DAEMON_PID" || fail "chainwatchd did not stop within 20 s"
wait $DAEMON_PID || fail "chainwatchd exited with $?"
grep -q "d1" "$T/log" || fail "the log names nothing"
check "$T/log" "the daemon's log"
ok "no secret in the store, chainwatch endpoints/status, the control socket, the metrics or the log"
