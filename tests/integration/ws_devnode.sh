#!/bin/sh
# wrk_sub against chainwatch-devnode: heads arrive; under ws_drop the
# subscription reconnects; under ws_silent, with HTTP ahead, the silence
# is noticed and the subscription reconnects; heads follow each time.
CLIENT="$top_builddir/tests/integration/wrk_sub_client"
DEVNODE="$top_builddir/devnode/chainwatch-devnode"

[ -x "$DEVNODE" ] || { echo "SKIP: $DEVNODE not built"; exit 77; }
[ -x "$CLIENT" ] || { echo "FAIL: $CLIENT not built"; exit 1; }

# Everything here is on 127.0.0.1: no proxy may stand in between.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

dir=$(mktemp -d) || exit 1
dpid=
cleanup() {
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

cd "$dir" || exit 1
"$DEVNODE" --listen 127.0.0.1:0 --control-listen 127.0.0.1:0 \
    --port-file "$dir/port" --control-port-file "$dir/ctl" \
    --block-time 300 --log-level warn 2>"$dir/devnode.log" &
dpid=$!
i=0
while [ ! -s "$dir/port" ] || [ ! -s "$dir/ctl" ]; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 "$dpid" 2>/dev/null; then
		echo "FAIL: devnode did not start"; cat "$dir/devnode.log"
		exit 1
	fi
	sleep 0.1
done

timeout 60 "$CLIENT" "ws://127.0.0.1:$(cat "$dir/port")" devnode \
    "http://127.0.0.1:$(cat "$dir/ctl")" 2>"$dir/client.log"
rc=$?
cat "$dir/client.log"
grep -q "ws closed (1006, .*), reconnecting in [0-9.]* s" "$dir/client.log" ||
    { echo "FAIL: no reconnect line after ws_drop"; rc=1; }
grep -q "no head for .* while HTTP is at #.*reconnecting in" "$dir/client.log" ||
    { echo "FAIL: no stall line after ws_silent"; rc=1; }
[ $rc -eq 0 ] || { echo "-- devnode log"; cat "$dir/devnode.log"; }
exit $rc
