#!/bin/sh
# Forks between endpoints, with a real daemon and two devnodes of one
# seed.  While both follow the shared chain, chainwatch forks shows one
# branch and chainwatch_chain_tips is 1; with the split fault on devnode
# d2, it shows two branches parting where d2 left (as both devnodes say
# over RPC), the store gets a split with its sides, the metric is 2; with
# the fault off, the tips agree again and the split is ended.  A daemon
# killed during the split goes on with it after a restart.  The store
# starts at schema version 2, with rows, and is migrated in place.
. "$top_srcdir/tests/integration/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

CHAINWATCH=$top_builddir/cli/chainwatch
METRICS=$top_builddir/metrics/chainwatch-metrics
MKSCHEMA=$top_builddir/tests/integration/mkschema
PROMPARSE=$top_srcdir/tests/integration/promparse.py

# rpc PORT METHOD PARAMS: the result, as JSON text.
rpc() {
	curl -s -m 5 -H 'Content-Type: application/json' -d \
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$2\",\"params\":$3}" \
	    "http://127.0.0.1:$1/" |
	    python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["result"]))'
}
# block_hash PORT N: the hash the devnode serves at height N, lower case.
block_hash() {
	rpc "$1" chain_getBlockHash "[$2]" | tr -d '"' | tr 'A-F' 'a-f'
}
# forks_json: chainwatch forks --json of devchain into $T/f.json.
forks_json() {
	"$CHAINWATCH" -d "$T/chainwatch.db" forks devchain --json \
	    >"$T/f.json" 2>"$T/f.err"
}
# fj 'PYTHON EXPRESSION': true when it holds of c, the chain's object in a
# fresh chainwatch forks --json (tips by endpoint in t).
fj() {
	forks_json || return 1
	python3 - "$T/f.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["chains"][0]
t = {x["endpoint"]: x for x in c["tips"]}
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
# jq_ 'PYTHON EXPRESSION': its value, from the last $T/f.json.
jq_() {
	python3 - "$T/f.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["chains"][0]
t = {x["endpoint"]: x for x in c["tips"]}
print(eval(sys.argv[2]))
PY
}
mport() {
	sed -n 's/.* metrics: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' \
	    "$T/log" | tail -n 1
}
# tips_metric: chainwatch_chain_tips of devchain in a fresh scrape.
tips_metric() {
	curl -s -f -m 10 -o "$T/m" "http://127.0.0.1:$PORT/metrics" &&
	    python3 "$PROMPARSE" "$T/m" >/dev/null &&
	    python3 "$PROMPARSE" "$T/m" 'chainwatch_chain_tips{chain="devchain"}'
}

# A store of schema version 2 with a chain and an endpoint in it.
"$MKSCHEMA" 2 | sqlite3 "$T/chainwatch.db" >/dev/null || fail "old schema"
sqlite3 "$T/chainwatch.db" >/dev/null <<SQL || fail "old rows"
INSERT INTO chains (id, name, format, block_time, finality_depth)
    VALUES (1, 'devchain', 'quantus', 250, 100);
INSERT INTO endpoints (id, chain_id, name, rpc_url, ws_url, position,
    heads_seen) VALUES (1, 1, 'd1', 'http://old', 'ws://old', 0, 7);
SQL

start=$(python3 -c 'import time; print(int(time.time() * 1000) - 2000)')
for n in d1 d2; do
	devnode $n --seed forks --block-time 250 --backlog 40 \
	    --start-time "$start"
done
write_conf "$T/chainwatch.conf"
sed -i -e '/^metrics_listen/d' \
    -e "/^\\[daemon\\]\$/a metrics_listen = 127.0.0.1:0\\
metrics_server = $METRICS" \
    -e 's/^block_time = .*/block_time = 250ms/' "$T/chainwatch.conf"
for n in d1 d2; do
	eval p=\$${n}_port
	echo "endpoint = $n http://127.0.0.1:$p ws://127.0.0.1:$p" >>"$T/chainwatch.conf"
done
start_daemon

# Migrated in place: through version 3 (and any later one), the old rows
# kept, the new columns there.
wait_for 20 'test "$(sql "PRAGMA user_version")" -ge 3' ||
    fail "schema version $(sql 'PRAGMA user_version'), not 3 or later"
grep -q 'migrating to schema version 3' "$T/log" ||
    fail "no 'migrating to schema version 3' in the log"
[ "$(sql "SELECT id FROM chains WHERE name = 'devchain'")" = 1 ] ||
    fail "the chain's row was not kept"
[ "$(sql "SELECT heads_seen >= 7 FROM endpoints WHERE name = 'd1'")" = 1 ] ||
    fail "d1's counters were not kept"
ok "store of schema 2 migrated in place to 3, its rows kept"

wait_for 20 'test -n "$(mport)"' || fail "no metrics server"
PORT=$(mport)

# Both on the shared chain: one branch, whatever their lag.
wait_for 60 "fj 'c[\"branches\"] == 1 and not c[\"split\"] and all(x[\"ancestry\"] == \"branch\" and x[\"branch\"] == 1 for x in c[\"tips\"])'" ||
    fail "no single branch: $(cat "$T/f.json" "$T/f.err")"
"$CHAINWATCH" -d "$T/chainwatch.db" forks >"$T/f.txt" 2>&1 ||
    fail "chainwatch forks: $(cat "$T/f.txt")"
head -n 1 "$T/f.txt" | grep -q '^devchain: one branch, tip #[0-9]*$' ||
    fail "chainwatch forks says: $(cat "$T/f.txt")"
wait_for 20 'test "$(tips_metric)" = 1' ||
    fail "chainwatch_chain_tips is $(tips_metric), not 1"
[ "$(sql 'SELECT count(*) FROM splits')" = 0 ] ||
    fail "a split recorded while both follow one chain"
ok "one chain: one branch, no split, chainwatch_chain_tips 1"

# d2 leaves the shared chain.
curl -s -m 5 -d '{"enable": "split"}' "http://127.0.0.1:$d2_cport/control" \
    >"$T/split.json" || fail "devnode d2's control port"
base=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["http"]["split"]["base"])' "$T/split.json") ||
    fail "no split base in $(cat "$T/split.json")"
wait_for 60 "fj 'c[\"branches\"] == 2 and c[\"recorded\"] and c[\"ancestor_number\"] == $base and t[\"d1\"][\"branch\"] == 1 and t[\"d2\"][\"branch\"] == 2'" ||
    fail "no split above #$base shown: $(cat "$T/f.json" "$T/f.err")"
# Against the devnodes' own answers: the ancestor is the block both serve
# at the base; each tip is the block its devnode serves at that height,
# and d2's is not d1's there.
anc=$(jq_ 'c["ancestor_hash"]')
[ "$anc" = "$(block_hash "$d1_port" "$base")" ] &&
    [ "$anc" = "$(block_hash "$d2_port" "$base")" ] ||
    fail "ancestor $anc is not the devnodes' block #$base"
n2=$(jq_ 't["d2"]["number"]')
h2=$(jq_ 't["d2"]["hash"]')
[ "$h2" = "$(block_hash "$d2_port" "$n2")" ] ||
    fail "d2's tip $h2 is not d2's block #$n2"
n1=$(jq_ 't["d1"]["number"]')
[ "$(jq_ 't["d1"]["hash"]')" = "$(block_hash "$d1_port" "$n1")" ] ||
    fail "d1's tip is not d1's block #$n1"
[ "$h2" != "$(block_hash "$d1_port" "$n2")" ] ||
    fail "d2's tip #$n2 is on d1's chain"
[ "$(jq_ 't["d1"]["length"] == t["d1"]["number"] - '"$base"' and t["d2"]["length"] == t["d2"]["number"] - '"$base")" = True ] ||
    fail "lengths above #$base wrong: $(cat "$T/f.json")"
[ "$(jq_ 'c["work_is"]')" = difficulty ] || fail "quantus work is not difficulty"
ok "split shown: d1 #$n1, d2 #$n2, parting above #$base as both devnodes say"

# The store has it, for people too, and so do the text and the metric.
[ "$(sql "SELECT count(*) FROM splits WHERE ended IS NULL AND ancestor_number = $base AND lower(hex(ancestor_hash)) = substr('$anc', 3)")" = 1 ] ||
    fail "no open split above #$base: $(sql 'SELECT * FROM splits')"
[ "$(sql "SELECT group_concat(endpoint || ':' || branch, ' ') FROM recent_splits WHERE ended IS NULL")" = "d1:1 d2:2" ] ||
    fail "recent_splits: $(sql 'SELECT * FROM recent_splits')"
[ "$(sql "SELECT count(*) FROM recent_splits WHERE ended IS NULL AND length = tip_number - $base")" = 2 ] ||
    fail "split_sides lengths: $(sql 'SELECT * FROM split_sides')"
"$CHAINWATCH" -d "$T/chainwatch.db" forks devchain >"$T/f.txt" 2>&1 ||
    fail "chainwatch forks: $(cat "$T/f.txt")"
head -n 1 "$T/f.txt" | grep -q "^devchain: split: 2 branches above #$base (0x[0-9a-f]*), since " ||
    fail "chainwatch forks says: $(cat "$T/f.txt")"
grep -q "chain devchain: split into 2 branches above #$base: d1 #" "$T/log" ||
    fail "the split is not logged"
wait_for 20 'test "$(tips_metric)" = 2' ||
    fail "chainwatch_chain_tips is $(tips_metric), not 2"
ok "split recorded (splits, recent_splits, log), chainwatch_chain_tips 2"
cp "$T/f.txt" "$T/split.txt"

# A daemon killed during the split goes on with it after a restart, down
# long enough for d2's branch to grow 8 blocks past what is stored: their
# parents, by hash, are d2's alone, and a parent d1 lacks must go to d2
# (once asked of d1 over and over, d2's claim never connected and d2 got
# no work again).
last=$(sql 'SELECT last_seen FROM splits WHERE id = 1')
kill -9 $DAEMON_PID
wait $DAEMON_PID 2>/dev/null
# head_number PORT: the number of the devnode's best block.
head_number() {
	rpc "$1" chain_getHeader '[]' |
	    python3 -c 'import json, sys; print(int(json.load(sys.stdin)["number"], 16))'
}
stored2=$(sql "SELECT tip_number FROM recent_splits WHERE ended IS NULL AND endpoint = 'd2'")
wait_for 20 'test "$(head_number "$d2_port")" -ge $((stored2 + 8))' ||
    fail "d2 did not go on from #$stored2"
gone=$(head_number "$d2_port")
start_daemon
wait_for 60 'test "$(sql "SELECT last_seen > $last AND ended IS NULL FROM splits WHERE id = 1")" = 1' ||
    fail "the split did not go on after a restart: $(sql 'SELECT * FROM splits')"
wait_for 30 "fj 't[\"d2\"][\"branch\"] == 2 and t[\"d2\"][\"number\"] >= $gone'" ||
    fail "d2's branch did not reach #$gone, d2's head while the daemon was down: $(cat "$T/f.json" "$T/f.err"); $(grep 'did not connect' "$T/log")"
[ "$(sql 'SELECT count(*) FROM splits')" = 1 ] ||
    fail "the restart recorded another split: $(sql 'SELECT * FROM splits')"
wait_for 20 'test "$(grep -c " metrics: listening on " "$T/log")" -ge 2' ||
    fail "no metrics server after the restart"
PORT=$(mport)
ok "after kill -9 and a restart the same split goes on; d2's branch, #$stored2 stored, reached #$gone"

# Back to the shared chain: one branch, the split ended.
curl -s -m 5 -o /dev/null -d '{"disable": "split"}' \
    "http://127.0.0.1:$d2_cport/control" || fail "devnode d2's control port"
wait_for 60 "fj 'c[\"branches\"] == 1 and not c[\"recorded\"] and c[\"splits\"][0][\"ended\"] is not None'" ||
    fail "the tips do not agree again: $(cat "$T/f.json" "$T/f.err")"
[ "$(sql "SELECT count(*) FROM splits WHERE ended IS NOT NULL AND ended >= first_seen")" = 1 ] &&
    [ "$(sql 'SELECT count(*) FROM splits')" = 1 ] ||
    fail "splits: $(sql 'SELECT * FROM splits')"
wait_for 20 'test "$(tips_metric)" = 1' ||
    fail "chainwatch_chain_tips is $(tips_metric), not 1"
grep -q 'chain devchain: the endpoints.* tips are on one branch again: split 1 ended' "$T/log" ||
    fail "the end of the split is not logged"
ok "split ended: one branch again, chainwatch_chain_tips 1"

kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
"$CHAINWATCH" -d "$T/chainwatch.db" forks devchain --json >"$T/f.json" ||
    fail "chainwatch forks with the daemon down"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); c = d["chains"][0]; assert len(c["splits"]) == 1 and {s["endpoint"] for s in c["splits"][0]["sides"]} == {"d1", "d2"}' "$T/f.json" ||
    fail "forks --json after the daemon stopped: $(cat "$T/f.json")"
fk=$(sqlite3 -readonly "$T/chainwatch.db" 'PRAGMA foreign_key_check' | wc -l)
[ "$fk" = 0 ] || fail "$fk rows break a foreign key"
ok "the split stays in the store; no foreign key broken"
if [ -n "$CW_SHOW" ]; then
	cat "$T/split.txt"
	sqlite3 -readonly -header -column "$T/chainwatch.db" \
	    'SELECT chain, split, first_seen, ended, seconds, ancestor_number, endpoint, branch, tip_number, length FROM recent_splits'
fi
