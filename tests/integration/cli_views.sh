#!/bin/sh
# chainwatch endpoints, queue and blocks (with status and standings)
# against a store filled by a real run: two reorging devnodes and one that
# refuses.  Every view for people (80 columns) and as --json (checked
# against the store with python3), while the daemon runs and once it is
# stopped (a line on stderr says so); then crafted queue items and wide
# values, and the ways a command line can be wrong.
. "$top_srcdir/tests/integration/cli_lib.sh"
[ -x "$CHAINWATCHD" ] || fail "no $CHAINWATCHD"

DB=$T/chainwatch.db
SOCK=$T/chainwatchd.sock

# Same seed: one chain, reorganised every few blocks.  d3 refuses every
# connection, so its breaker opens and it has a reason.
for n in d1 d2; do
	devnode $n --seed views --block-time 200 --backlog 200 \
	    --reorg-every 5 --reorg-depth 1-3 --miners 4
done
devnode d3 --seed views --block-time 200 --backlog 200 --fault refuse
write_conf "$T/chainwatch.conf"
sed -i -e 's/^block_time = .*/block_time = 200ms/' -e '/^control_socket/d' \
    -e "/^\[daemon\]/a control_socket = $SOCK" "$T/chainwatch.conf"
cat >>"$T/chainwatch.conf" <<CONF
request_timeout = 1s
connect_timeout = 1s
breaker_consecutive = 3
breaker_min_span = 1s
breaker_cooldown = 60s
endpoint = a1-views http://127.0.0.1:$d1_port ws://127.0.0.1:$d1_port
endpoint = a2-views http://watch:secret@127.0.0.1:$d2_port ws://127.0.0.1:$d2_port
endpoint = a3-views http://127.0.0.1:$d3_port ws://127.0.0.1:$d3_port
CONF
start_daemon

# Caught up past the backlog, reorgs followed live (so that reorged blocks
# are stored), and a3 found unreachable, with a reason.
best() { sql "SELECT best_number FROM chains"; }
reorged() { sql "SELECT count(*) FROM blocks WHERE canonical = 0"; }
queued() { sql "SELECT count(*) FROM queue"; }
a3() { sql "SELECT state, state_reason FROM endpoints WHERE name = 'a3-views'"; }
filled() {
	[ "$(queued)" = 0 ] && [ "$(best)" -gt 230 ] && [ "$(reorged)" -gt 1 ] &&
	    a3 | grep -Evq '^(closed|unknown)\||\|$'
}
wait_for 90 '! alive $DAEMON_PID || filled' ||
    fail "no store: best $(best), $(reorged) reorged, $(queued) queued, a3 $(a3)"
alive $DAEMON_PID || fail "chainwatchd exited"
ok "store filled: best #$(best), $(reorged) reorged blocks, a3 $(a3)"

# narrow FILE: every line fits 80 columns.
narrow() {
	awk 'length($0) > 80 { print FILENAME ": " $0; exit 1 }' "$1" ||
	    fail "wider than 80 columns"
}

# daemon_json FILE WANT: daemon_running is WANT (true, false or null).
daemon_json() {
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
want = {"true": True, "false": False, "null": None}[sys.argv[2]]
assert j["daemon_running"] is want, j["daemon_running"]
' "$1" "$2" || fail "$1: daemon_running is not $2"
}

VIEWS='status|endpoints|endpoints devchain|queue|queue devchain'
VIEWS="$VIEWS|blocks devchain|blocks devchain --last 3|standings devchain"
VIEWS="$VIEWS|forks|forks devchain"
NOT_RUNNING='^chainwatch: chainwatchd is not running; this is the store as of [0-9]+ (ms|s|min) ago$'

# views: every view, for people and as JSON; stderr is empty while the
# daemon runs ($DAEMON), and one line saying it is not once it stopped.
views() {
	_ifs=$IFS
	IFS='|'
	set -- $VIEWS
	IFS=$_ifs
	_n=0
	while [ $# -gt 0 ]; do
		_n=$((_n + 1))
		for _j in "" --json; do
			# status exits 1: a3 makes the chain degraded.
			cw -f "$T/chainwatch.conf" $1 $_j >"$T/v$_n$_j" \
			    2>"$T/e$_n$_j"
			_rc=$?
			[ $_rc = 0 ] || [ "$1" = status ] ||
			    fail "chainwatch $1 $_j: exit status $_rc"
			if [ "$_j" = --json ]; then
				python3 -m json.tool "$T/v$_n$_j" >/dev/null ||
				    fail "$1 --json: not JSON"
			else
				narrow "$T/v$_n$_j"
			fi
			if [ "$DAEMON" = running ]; then
				[ -s "$T/e$_n$_j" ] && fail "$1 $_j:" \
				    "stderr while the daemon runs: $(cat "$T/e$_n$_j")"
			else
				[ "$(wc -l <"$T/e$_n$_j")" = 1 ] &&
				    grep -Eq "$NOT_RUNNING" "$T/e$_n$_j" ||
				    fail "$1 $_j: not one 'not running' line:" \
				    "$(cat "$T/e$_n$_j")"
			fi
		done
		shift
	done
}
# verify_json WANT: verify --json says daemon_running WANT too.
verify_json() {
	cw -f "$T/chainwatch.conf" verify --json >"$T/verify.json" \
	    2>"$T/verify.err"
	[ $? -le 1 ] || fail "verify --json: $(cat "$T/verify.err")"
	daemon_json "$T/verify.json" "$1"
}
DAEMON=running
views
for n in 2 4 6; do
	daemon_json "$T/v$n--json" true
done
verify_json true
ok "every view while chainwatchd runs: no warning, daemon_running true"

# -d with the configuration's own store asks its socket; -d with another
# store cannot know that store's daemon: no 'not running' line then.
cw -d "$DB" -f "$T/chainwatch.conf" endpoints --json >"$T/j" 2>"$T/err" ||
    fail "endpoints -d, the configuration's store"
[ -s "$T/err" ] && fail "-d, the configuration's store: $(cat "$T/err")"
daemon_json "$T/j" true
sed -e "s|^database = .*|database = $T/other.db|" \
    -e "s|^control_socket = .*|control_socket = $T/other.sock|" \
    "$T/chainwatch.conf" >"$T/other.conf"
cw -d "$DB" -f "$T/other.conf" endpoints --json >"$T/j" 2>"$T/err" ||
    fail "endpoints -d, another configuration's"
[ -s "$T/err" ] && fail "-d, another configuration's store: $(cat "$T/err")"
daemon_json "$T/j" null
ok "-d asks the configuration's socket only for the configuration's store"

kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
DAEMON=stopped
views
verify_json false
for n in 2 4 6; do
	daemon_json "$T/v$n--json" false
done
ok "every view once it stopped: 'chainwatchd is not running; ...' on stderr"

# Without a configuration to name the socket it cannot tell: no line.
cw -d "$DB" -f "$T/none.conf" endpoints --json >"$T/j" 2>"$T/err" ||
    fail "endpoints -d"
[ -s "$T/err" ] && fail "a line without a socket to ask: $(cat "$T/err")"
daemon_json "$T/j" null
# -s names the socket instead; one left by a killed daemon is no daemon.
python3 -c '
import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])
' "$T/stale.sock" || fail "python3: a stale socket"
for s in "$T/nothere.sock" "$T/stale.sock"; do
	cw -d "$DB" -s "$s" queue >/dev/null 2>"$T/err" || fail "queue -s $s"
	grep -Eq "$NOT_RUNNING" "$T/err" || fail "-s $s: $(cat "$T/err")"
done
ok "no socket known: nothing said, daemon_running null; -s, a stale socket"

# A daemon whose store is locked (played by a socket that answers its
# status): the store-blocked line is not cut, whatever its length; it
# wraps within 80 columns.
python3 - "$T/busy.sock" "$(($(date +%s) * 1000))" >"$T/busy.log" 2>&1 <<'PY' &
import json, os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(4)
answer = json.dumps({"ok": True, "pid": 1, "store": {"state": "store-blocked",
    "reason": "locked by another process (database is locked)",
    "since": int(sys.argv[2]), "waiting_messages": 42}}).encode() + b"\n"
while True:
    c, _ = s.accept()
    data = b""
    while not data.endswith(b"\n"):
        d = c.recv(4096)
        if not d:
            break
        data += d
    c.sendall(answer)
    c.close()
PY
CW_PIDS="$CW_PIDS $!"
wait_for 10 "test -S '$T/busy.sock'" || fail "no fake socket: $(cat "$T/busy.log")"
# A blocked store makes the status degraded at least (exit 1); the
# chains, stale since the daemon stopped, may say worse (chainwatch(1)).
cw -d "$DB" -s "$T/busy.sock" status --json >"$T/bj" 2>"$T/err"
want=$(python3 - "$T/bj" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["daemon_store"]["state"] == "store-blocked", j["daemon_store"]
rc = {"ok": 0, "degraded": 1, "stalled": 2, "unreachable": 3}
print(max([1] + [rc[c["status"]] for c in j["chains"]]))
PY
) || fail "status --json of a store-blocked daemon: $(cat "$T/bj" "$T/err")"
cw -d "$DB" -s "$T/busy.sock" status >"$T/out" 2>"$T/err"
rc=$?
[ $rc = "$want" ] ||
    fail "status of a store-blocked daemon: exit status $rc, not $want"
narrow "$T/out"
sed -n '1,/^$/p' "$T/out" | tr -s ' \n' '  ' |
    grep -Eq '^chainwatchd: store-blocked: locked by another process \(database is locked\), since [0-9:]+; 42 messages from workers wait in memory $' ||
    { cat "$T/out"; fail "status: the store-blocked line is cut"; }
grep -q '\.\.\.$' "$T/out" && sed -n '1,/^$/p' "$T/out" | grep -q '\.\.\.$' &&
    { cat "$T/out"; fail "status: the store-blocked line ends in ..."; }
ok "status: the store-blocked line whole, wrapped in 80 columns"

# endpoints --json against the store, field by field.
cw -d "$DB" endpoints --json >"$T/j" || fail "endpoints --json"
python3 - "$DB" "$T/j" <<'PY' || fail "endpoints --json differs from the store"
import json, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
got = json.load(open(sys.argv[2]))
def iso(ms):
    return None if ms is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms // 1000))
want = []
for (chain, name, pos, state, since, reason, best, best_at, cbest, lag, hf,
     hs, pb, rs, rpc, ws, sc, sn, sv, sf) in db.execute(
        "SELECT c.name, e.name, e.position, e.state, e.state_since, "
        "e.state_reason, e.best_number, e.best_at, c.best_number, e.lag_ms, "
        "e.heads_first, e.heads_seen, e.pruning_bound, e.restarts, "
        "e.rpc_url, e.ws_url, e.system_chain, e.spec_name, e.spec_version, "
        "e.seals_failed "
        "FROM endpoints e JOIN chains c ON c.id = e.chain_id "
        "WHERE e.configured = 1 ORDER BY c.name, e.position, e.name"):
    want.append(dict(chain=chain, name=name, position=pos, state=state,
        since=iso(since), since_ms=since, reason=reason or None,
        best_number=best, best_at=iso(best_at), best_at_ms=best_at,
        behind=None if best is None or cbest is None else cbest - best,
        lag_ms=lag, heads_first=hf, heads_seen=hs, pruning_bound=pb,
        restarts=rs, seals_failed=sf, rpc_url=rpc, ws_url=ws,
        system_chain=sc, spec_name=sn, spec_version=sv))
if len(want) != 3:
    sys.exit("%d endpoints in the store, not 3" % len(want))
# How each keeps up is status's judgement as of now (cli_status.sh and
# cli_status_live.sh test it): here, that it is there.  a3 brought no
# head: not known.
conds = [g.pop("condition") for g in got["endpoints"]]
for g in got["endpoints"]:
    if (g.pop("condition_since") is None) != (g.pop("condition_since_ms") is None):
        sys.exit("condition_since and condition_since_ms disagree: %r" % g)
if any(c not in (None, "ok", "behind", "stuck") for c in conds) or \
        conds[2] is not None:
    sys.exit("conditions: %r" % conds)
for g, w in zip(got["endpoints"], want):
    if g != w:
        sys.exit("%s:\n got %r\nwant %r" % (w["name"], g, w))
if len(got["endpoints"]) != len(want):
    sys.exit("%d endpoints, want %d" % (len(got["endpoints"]), len(want)))
a3 = got["endpoints"][2]
if a3["state"] in ("closed", "unknown") or not a3["reason"]:
    sys.exit("a3-views: %r" % a3)
if got["endpoints"][0]["heads_seen"] < 1:
    sys.exit("a1-views saw no head")
PY
# For people: a line with the name and URLs, then the state; a3's reason.
cw -d "$DB" endpoints devchain >"$T/out" 2>/dev/null || fail "endpoints devchain"
narrow "$T/out"
python3 - "$T/out" "$T/j" <<'PY' || { cat "$T/out"; fail "endpoints for people"; }
import json, sys
lines = open(sys.argv[1]).read().split("\n")
eps = json.load(open(sys.argv[2]))["endpoints"]
if not lines[0].startswith("devchain: best #%d (" % (eps[0]["best_number"] + eps[0]["behind"])):
    sys.exit("heading: %r" % lines[0])
if lines[1].split() != "endpoint rpc url ws url".split() or \
   lines[2].split() != "state since best behind lag first seen pruned restarts".split():
    sys.exit("header: %r" % lines[1:3])
for e in eps:
    i = [k for k, l in enumerate(lines) if l.startswith(e["name"] + " ")]
    if len(i) != 1:
        sys.exit("%s: %d name lines" % (e["name"], len(i)))
    i = i[0]
    if lines[i].split() != [e["name"], e["rpc_url"], e["ws_url"]]:
        sys.exit("%s: %r" % (e["name"], lines[i]))
    row = lines[i + 1].split()
    if row[0] != e["state"] or row[-1] != str(e["restarts"]) or \
       str(e["heads_first"]) not in row or str(e["heads_seen"]) not in row:
        sys.exit("%s: %r" % (e["name"], lines[i + 1]))
    if e["reason"] and lines[i + 2] != "    " + e["reason"]:
        sys.exit("%s: reason %r" % (e["name"], lines[i + 2]))
PY
grep -q secret "$T/out" "$T/j" && fail "a password is shown"
grep -q 'http://watch:\*\*\*@127' "$T/out" || fail "no redacted URL"
ok "endpoints: --json equals the store; the table names, states, reasons"

# blocks --json against the store: every block of the last N heights,
# reorged ones too, newest first.
check_blocks() {
	python3 - "$DB" "$1" "$2" <<'PY'
import json, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
got = json.load(open(sys.argv[2]))
last = int(sys.argv[3])
def iso(ms):
    return None if ms is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms // 1000))
cid, best, final = db.execute("SELECT id, best_number, final_number FROM chains WHERE name = 'devchain'").fetchone()
ss58 = dict(db.execute("SELECT account, ss58 FROM miners"))
names = dict(db.execute("SELECT id, name FROM endpoints"))
nums = [r[0] for r in db.execute("SELECT DISTINCT number FROM blocks WHERE chain_id = ? ORDER BY number DESC LIMIT ?", (cid, last))]
want = []
for (h, n, p, miner, d, ts, can, fin, ru, ep, fs, sa, pv) in db.execute(
        "SELECT hash, number, parent, miner, difficulty, timestamp, "
        "canonical, final, runtime_updated, first_endpoint_id, first_seen, "
        "state_at, proven FROM blocks WHERE chain_id = ? AND number >= ?",
        (cid, min(nums))):
    acc = miner if miner else b""
    want.append(dict(number=n, hash="0x" + h.hex(), parent="0x" + p.hex(),
        status="reorged" if not can else "final" if fin else "provisional",
        canonical=bool(can), final=bool(fin), reorged=not can,
        miner=ss58.get(acc, "0x" + acc.hex()),
        account="0x" + miner.hex() if miner else None,
        difficulty=None if d is None else str(int.from_bytes(d, "little")),
        timestamp=iso(ts), timestamp_ms=ts, first_seen=iso(fs),
        first_seen_ms=fs, first_endpoint=names.get(ep), state_at=iso(sa),
        state_at_ms=sa, runtime_updated=bool(ru),
        proven=None if pv is None else bool(pv)))
want.sort(key=lambda b: (-b["number"], not b["canonical"], b["first_seen_ms"], b["hash"]))
for g in got["blocks"]:
    f = g.pop("difficulty_f")
    if (f is None) != (g["difficulty"] is None) or \
       (f is not None and abs(f / int(g["difficulty"]) - 1) > 1e-15):
        sys.exit("#%d: difficulty_f %r" % (g["number"], f))
for k, v in (("chain", "devchain"), ("best_number", best),
             ("final_number", final), ("last", last), ("heights", len(nums)),
             ("reorged", sum(b["reorged"] for b in want))):
    if got[k] != v:
        sys.exit("%s: %r, want %r" % (k, got[k], v))
if len(got["blocks"]) != len(want):
    sys.exit("%d blocks, want %d" % (len(got["blocks"]), len(want)))
for g, w in zip(got["blocks"], want):
    if g != w:
        sys.exit("got  %r\nwant %r" % (g, w))
PY
}
heights=$(sql "SELECT count(DISTINCT number) FROM blocks")
# N that reaches the highest reorged block, so that some are shown.
reach=$(sql "SELECT (SELECT max(number) FROM blocks) - max(number) + 1
    FROM blocks WHERE canonical = 0")
for n in 1 20 "$reach" 100000; do
	if [ "$n" = 20 ]; then
		cw -d "$DB" blocks devchain --json >"$T/b.json" 2>/dev/null
	else
		cw -d "$DB" blocks --last "$n" --json devchain >"$T/b.json" 2>/dev/null
	fi || fail "blocks --last $n --json"
	check_blocks "$T/b.json" "$n" || fail "blocks --last $n --json differs from the store"
done
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["heights"] == int(sys.argv[2]) and j["last"] == 100000, j["heights"]
' "$T/b.json" "$heights" || fail "blocks --last 100000: not every height"
ok "blocks --json for the last 1, 20, $reach and every height equals the store"

# For people: one row per block in the same order, reorged ones marked.
cw -d "$DB" blocks devchain --last "$reach" --json >"$T/b.json" 2>/dev/null
cw -d "$DB" blocks devchain --last "$reach" >"$T/out" 2>/dev/null ||
    fail "blocks --last $reach"
narrow "$T/out"
python3 - "$T/out" "$T/b.json" <<'PY' || { cat "$T/out"; fail "blocks for people"; }
import json, re, sys
lines = open(sys.argv[1]).read().split("\n")
j = json.load(open(sys.argv[2]))
if j["reorged"] < 1:
    sys.exit("no reorged block in the last %d heights" % j["last"])
if lines[0] != "devchain: best #%d, final #%d" % (j["best_number"], j["final_number"]):
    sys.exit("heading %r" % lines[0])
if lines[2].split() != "number state hash miner diff pow age first".split():
    sys.exit("header %r" % lines[2])
rows = lines[3:3 + len(j["blocks"])]
short = {"final": "final", "provisional": "prov", "reorged": "reorged"}
for r, b in zip(rows, j["blocks"]):
    f = r.split()
    if f[:3] != [str(b["number"]), short[b["status"]], b["hash"][:10]] or \
       f[-1] != (b["first_endpoint"] or "-"):
        sys.exit("row %r for %r" % (r, b))
    # An age, as chainwatch(1) writes them: ms under a second, then whole.
    pow = {None: "-", True: "ok", False: "FAIL"}[b["proven"]]
    if f[5] != pow:
        sys.exit("pow %r for %r" % (f[5], b))
    if not re.fullmatch(r"(\d{1,3} ms|\d+ (s|min|h|d))( ahead)?|-", " ".join(f[6:-1])):
        sys.exit("age %r in %r" % (" ".join(f[6:-1]), r))
    m = b["miner"]
    if f[3] != (m if len(m) <= 17 else m[:8] + "..." + m[-6:]):
        sys.exit("miner %r for %r" % (f[3], m))
def counted(n, what):
    return "%d %s%s" % (n, what, "" if n == 1 else "s")
want = "%s, %s, %d reorged" % (counted(j["heights"], "height"),
                               counted(len(j["blocks"]), "block"), j["reorged"])
if lines[3 + len(j["blocks"])] != "" or lines[4 + len(j["blocks"])] != want:
    sys.exit("summary %r, want %r" % (lines[4 + len(j["blocks"]):], want))
PY
ok "blocks for people: $(tail -n 1 "$T/out")"

# The devnode mines real seals: every block whose parent's difficulty is
# stored is proven, none fails.
unproven=$(sql "SELECT count(*) FROM blocks b JOIN blocks p ON
    p.chain_id = b.chain_id AND p.hash = b.parent
    WHERE p.difficulty IS NOT NULL AND b.proven IS NOT 1")
proven=$(sql "SELECT count(*) FROM blocks WHERE proven = 1")
[ "$unproven" = 0 ] && [ "$proven" -gt 0 ] ||
    fail "seals: $proven proven, $unproven with their parent's difficulty not"
ok "seals: $proven blocks proven, none failed"

# queue --json against the store (empty now, or nearly).
check_queue() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
got = json.load(open(sys.argv[2]))
exact = sys.argv[3] == "exact"
def iso(ms):
    return None if ms is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms // 1000))
now = int(time.time() * 1000)
chains = [c for c in got["chains"]]
names = [r[0] for r in db.execute("SELECT name FROM chains ORDER BY name")]
if [c["chain"] for c in chains] != names:
    sys.exit("chains %r" % [c["chain"] for c in chains])
ep = dict(db.execute("SELECT id, name FROM endpoints"))
for c in chains:
    items = db.execute("SELECT q.id, q.kind, q.state, q.range_from, q.range_to, "
        "q.block_hash, q.block_number, q.attempts, q.next_attempt, "
        "q.last_outcome, q.last_error, q.last_endpoint_id, "
        "q.lease_endpoint_id, q.lease_deadline, q.created_at FROM queue q "
        "JOIN chains c ON c.id = q.chain_id WHERE c.name = ?",
        (c["chain"],)).fetchall()
    kinds = []
    for kind in ("headers", "parent", "state", "runtime"):
        its = [i for i in items if i[1] == kind]
        k = dict(kind=kind, pending=sum(i[2] == "pending" for i in its),
                 leased=sum(i[2] == "leased" for i in its),
                 blocks=sum(i[4] - i[3] + 1 if i[3] is not None else 1 for i in its),
                 max_attempts=max(i[7] for i in its) if its else None,
                 oldest=iso(min(i[14] for i in its)) if its else None,
                 oldest_ms=min(i[14] for i in its) if its else None)
        g = dict(c["kinds"][len(kinds)])
        if g.pop("due") + g.pop("waiting") != k["pending"]:
            sys.exit("%s: due and waiting are not the pending" % kind)
        if exact:
            k["due"] = sum(i[2] == "pending" and i[8] <= now for i in its)
            k["waiting"] = k["pending"] - k["due"]
            g = c["kinds"][len(kinds)]
        if g != k:
            sys.exit("%s:\n got %r\nwant %r" % (kind, g, k))
        kinds.append(k)
    failed = [i for i in items if i[9] is not None or i[10] is not None]
    failed.sort(key=lambda i: (-i[8], -i[0]))
    want = [dict(id=i[0], kind=i[1], state=i[2], range_from=i[3],
                 range_to=i[4],
                 block_hash=None if i[5] is None else "0x" + i[5].hex(),
                 block_number=i[6], attempts=i[7], last_outcome=i[9],
                 last_error=i[10], last_endpoint=ep.get(i[11]),
                 lease_endpoint=ep.get(i[12]), lease_deadline=iso(i[13]),
                 lease_deadline_ms=i[13], next_attempt=iso(i[8]),
                 next_attempt_ms=i[8], created_at=iso(i[14]),
                 created_at_ms=i[14]) for i in failed[:5]]
    top = dict(items=len(items), pending=sum(k["pending"] for k in kinds),
               leased=sum(k["leased"] for k in kinds),
               blocks=sum(k["blocks"] for k in kinds), failing=len(failed))
    for key, v in top.items():
        if c[key] != v:
            sys.exit("%s: %r, want %r" % (key, c[key], v))
    if c["last_failed"] != want:
        sys.exit("last_failed:\n got %r\nwant %r" % (c["last_failed"], want))
PY
}
cw -d "$DB" queue --json >"$T/j" 2>/dev/null || fail "queue --json"
check_queue "$DB" "$T/j" loose || fail "queue --json differs from the store"
cw -d "$DB" queue >"$T/out" 2>/dev/null || fail "queue"
[ "$(sql 'SELECT count(*) FROM queue')" != 0 ] ||
    grep -q '^devchain: nothing queued$' "$T/out" || fail "queue: $(cat "$T/out")"
ok "queue of the run: --json equals the store"

# A queue with work in every state: due, waiting out a backoff, leased,
# failed more often than shown (latest next attempt first).
sqlite3 "$DB" ".backup '$T/q.db'" || fail "sqlite3 .backup"
python3 - "$T/q.db" <<'PY' || fail "python3: queue items"
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
now = int(time.time() * 1000)
MIN, H = 60000, 3600000
cid = db.execute("SELECT id FROM chains").fetchone()[0]
a1, a3 = (db.execute("SELECT id FROM endpoints WHERE name = ?", (n,)).fetchone()[0]
          for n in ("a1-views", "a3-views"))
db.execute("DELETE FROM queue")
def add(kind, state, rng=None, at=None, attempts=0, nxt=0, outcome=None,
        error=None, ep=None, lease=None, created=now - 10 * MIN):
    db.execute("INSERT INTO queue (chain_id, kind, range_from, range_to, "
        "block_hash, block_number, state, lease_endpoint_id, lease_deadline, "
        "attempts, next_attempt, last_outcome, last_error, last_endpoint_id, "
        "created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (cid, kind, rng[0] if rng else None, rng[1] if rng else None,
         at[0] if at else None, at[1] if at else None, state,
         lease[0] if lease else None, lease[1] if lease else None,
         attempts, nxt, outcome, error, ep, created))
add("headers", "pending", (1000, 1063), attempts=3, nxt=now + H,
    outcome="timeout", error="no answer in 1000 ms", ep=a3,
    created=now - 20 * MIN)
add("headers", "pending", (1064, 1127), nxt=now - H)
add("headers", "leased", (1128, 1191), attempts=1, lease=(a1, now + 30000))
add("state", "leased", (500, 531), attempts=2, lease=(a1, now + 30000),
    nxt=now + 30 * MIN, outcome="http_5xx", error="HTTP 503 " + "x" * 90,
    ep=a3, created=now - 3 * H)
add("parent", "pending", at=(bytes([7]) * 32, 999), attempts=2,
    nxt=now + 5 * MIN, outcome="transport", error="connection refused",
    ep=a3)
for k in range(6):
    add("runtime", "pending", at=(bytes([k + 1]) * 32, 805 - k), attempts=1,
        nxt=now - (k + 1) * MIN, outcome="rate_limited",
        error="too many requests", ep=a3)
db.commit()
PY
cw -d "$T/q.db" queue --json >"$T/j" 2>/dev/null || fail "queue --json (crafted)"
check_queue "$T/q.db" "$T/j" exact || fail "queue --json (crafted) differs"
cw -d "$T/q.db" queue devchain >"$T/out" 2>/dev/null || fail "queue (crafted)"
narrow "$T/out"
python3 - "$T/out" <<'PY' || { cat "$T/out"; fail "queue for people"; }
import re, sys
t = open(sys.argv[1]).read()
want = r"""devchain: 11 items \(9 pending, 2 leased\), 231 blocks
  kind     pending  leased  blocks  due  waiting  attempts  oldest
  headers        2       1     192    1        1         3  20 min ago
  parent         1       0       1    0        1         2  10 min ago
  state          0       1      32    0        0         2  3 h ago
  runtime        6       0       6    6        0         1  10 min ago

  9 items failed; the last 5:
  kind     blocks     tries  outcome       endpoint  next
  headers  1000-1063      3  timeout       a3-views  in (59|60) min
      no answer in 1000 ms
  state    500-531        2  http_5xx      a3-views  leased
      HTTP 503
      x{74}
      x{16}
  parent   #999           2  transport     a3-views  in [45] min
      connection refused
  runtime  #805           1  rate_limited  a3-views  due
      too many requests
  runtime  #804           1  rate_limited  a3-views  due
      too many requests
"""
if not re.fullmatch(want, t):
    sys.exit("not the lines expected")
PY
ok "queue: kinds, due and waiting, leased, the last 5 failures of 9"

# A split with an endpoint merely behind it: a1 on the canonical tip, a2
# on 6 blocks of a branch of its own above #best-10, a3 14 blocks below
# that.  a3 is behind, never a negative "above", in the table, the
# recorded sides (a row as daemons before stored it: length -4) and
# --json.
sqlite3 "$DB" ".backup '$T/f.db'" || fail "sqlite3 .backup"
python3 - "$T/f.db" <<'PY' || fail "python3: a split"
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
now = int(time.time() * 1000)
cid, best = db.execute("SELECT id, best_number FROM chains").fetchone()
ep = dict(db.execute("SELECT name, id FROM endpoints"))
canon = dict(db.execute("SELECT number, hash FROM blocks WHERE chain_id = ? "
    "AND canonical = 1", (cid,)))
anc = best - 10
parent = canon[anc]
for n in range(anc + 1, anc + 7):
    h = bytes([0xf0]) + n.to_bytes(31, "little")
    db.execute("INSERT INTO blocks (chain_id, hash, number, parent, "
        "canonical, first_seen) VALUES (?, ?, ?, ?, 0, ?)",
        (cid, h, n, parent, now))
    parent = h
def tip(name, number, h):
    db.execute("UPDATE endpoints SET tip_hash = ?, tip_number = ?, "
        "tip_at = ? WHERE id = ?", (h, number, now, ep[name]))
tip("a1-views", best, canon[best])
tip("a2-views", anc + 6, parent)
tip("a3-views", anc - 14, canon[anc - 14])
db.execute("DELETE FROM split_sides")
db.execute("DELETE FROM splits")
sid = db.execute("INSERT INTO splits (chain_id, first_seen, last_seen, "
    "branches, ancestor_number, ancestor_hash) VALUES (?, ?, ?, 2, ?, ?)",
    (cid, now - 5000, now, anc, canon[anc])).lastrowid
for name, br, n, h, length in (("a1-views", 1, best, canon[best], 10),
        ("a2-views", 2, anc + 6, parent, 6),
        ("a3-views", 1, anc - 4, canon[anc - 4], -4)):
    db.execute("INSERT INTO split_sides VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (sid, ep[name], br, n, h, length, str(length), length))
# The best block 2.5 s old: its age is "2 s", never "2500 ms".
db.execute("UPDATE blocks SET timestamp = ? WHERE chain_id = ? AND hash = ?",
    (now - 2500, cid, canon[best]))
db.commit()
PY
fbest=$(sqlite3 "$T/f.db" "SELECT best_number FROM chains") ||
    fail "sqlite3: best"
cw -d "$T/f.db" blocks devchain --last 10 >"$T/out" 2>/dev/null ||
    fail "blocks (a 2.5 s old block)"
grep -Eq "^ *$fbest +prov +0x[0-9a-f]{8} +[^ ]+ +[^ ]+ +(ok|-) +[2-9] s +[^ ]+\$" \
    "$T/out" || { cat "$T/out"; fail "blocks: the age of a 2.5 s old block"; }
anc=$(sqlite3 "$T/f.db" "SELECT ancestor_number FROM splits") ||
    fail "sqlite3: the split"
cw -d "$T/f.db" forks devchain >"$T/out" 2>/dev/null || fail "forks (a split)"
narrow "$T/out"
grep -Eq "^devchain: split: 2 branches above #$anc \\(0x[0-9a-f]{8}\\), since [0-9]+ s ago\$" \
    "$T/out" || { cat "$T/out"; fail "forks: the headline"; }
grep -Eq "^  a3-views +#$((anc - 14)) +0x[0-9a-f]{8} +[0-9.]+ m?s ago +1 +14 behind +-\$" \
    "$T/out" || { cat "$T/out"; fail "forks: a3 is not 14 behind"; }
grep -Eq "^  a2-views +#$((anc + 6)) +0x[0-9a-f]{8} +[0-9.]+ m?s ago +2 +6 +" \
    "$T/out" || { cat "$T/out"; fail "forks: a2 is not 6 above"; }
grep -Eq "^ +[0-9]+  [0-9]+ s ago  5\\.0 s +going on  #$anc\$" "$T/out" ||
    { cat "$T/out"; fail "forks: a split that lasted 5 s is not '5.0 s'"; }
tr -s ' \n' '  ' <"$T/out" | grep -Fq "branch 1: a1-views #$((anc + 10)) (+10), a3-views #$((anc - 4)) (4 behind); branch 2: a2-views #$((anc + 6)) (+6)" ||
    { cat "$T/out"; fail "forks: the recorded sides"; }
grep -Eq ' -[0-9]|\(\+?-[0-9]' "$T/out" &&
    { cat "$T/out"; fail "forks: a negative figure"; }
cw -d "$T/f.db" forks devchain --json >"$T/j" 2>/dev/null || fail "forks --json"
python3 - "$T/j" "$anc" <<'PY' || fail "forks --json: behind"
import json, sys
c = json.load(open(sys.argv[1]))["chains"][0]
anc = int(sys.argv[2])
t = {x["endpoint"]: x for x in c["tips"]}
want = {"a1-views": (1, 10, 0), "a2-views": (2, 6, 0), "a3-views": (1, 0, 14)}
for name, (br, length, behind) in want.items():
    got = (t[name]["branch"], t[name]["length"], t[name]["behind"])
    assert got == (br, length, behind), (name, got)
d = {x["endpoint"]: x for x in c["splits"][0]["sides"]}
assert (d["a3-views"]["length"], d["a3-views"]["behind"]) == (0, 4), d
assert (d["a1-views"]["length"], d["a1-views"]["behind"]) == (10, 0), d
for b in c["branch_list"]:
    assert b["behind"] == 0 and b["length"] >= 0, b
PY
ok "forks: an endpoint below the split is behind, never a negative above"

# Wide values still fit: long names, a long state, nine-digit numbers.
sqlite3 "$T/q.db" ".backup '$T/w.db'" || fail "sqlite3 .backup"
sqlite3 "$T/w.db" "
    UPDATE chains SET name = 'a-chain-with-a-long-name-32-chrs',
      best_number = best_number + 987654300,
      final_number = final_number + 987654300;
    UPDATE blocks SET number = number + 987654300;
    UPDATE endpoints SET name = 'endpoint-' || id || '-with-a-32-char-name-x',
      state = 'quarantined', state_since = $(($(date +%s) - 100 * 60))000,
      best_number = 1, heads_first = 2654321, heads_seen = 2654321,
      pruning_bound = 987654321, restarts = 123, lag_ms = 7200000,
      state_reason = 'serves genesis 0x' || hex(randomblob(32)) || ', not ours',
      rpc_url = 'https://watch:***@a-long-host-name.example.org:9944/rpc/path',
      ws_url = 'wss://watch:***@a-long-host-name.example.org:9944/ws/path';
    UPDATE queue SET attempts = 12345, range_from = range_from + 987654300,
      range_to = range_to + 987654300,
      last_outcome = CASE WHEN last_outcome IS NULL THEN NULL
        ELSE 'rate_limited' END,
      last_endpoint_id = (SELECT max(id) FROM endpoints);" ||
    fail "sqlite3 wide"
for v in "endpoints" "queue" "blocks a-chain-with-a-long-name-32-chrs" \
    "status" "standings a-chain-with-a-long-name-32-chrs" \
    "endpoints a-chain-with-a-long-name-32-chrs"; do
	cw -d "$T/w.db" $v >"$T/out" 2>/dev/null
	[ $? = 0 ] || [ "$v" = status ] || fail "$v (wide)"
	narrow "$T/out"
done
cw -d "$T/w.db" endpoints >"$T/out" 2>/dev/null
grep -Eq '^  quarantined +100 min ago +1 +98765' "$T/out" ||
    { cat "$T/out"; fail "quarantined"; }
grep -q '^endpoint-1-with-a-32-char-name-x$' "$T/out" ||
    { cat "$T/out"; fail "long URLs: name line"; }
grep -q '^  wss://watch:\*\*\*@a-long-host-name.example.org:9944/ws/path$' \
    "$T/out" || { cat "$T/out"; fail "long URLs: the ws URL on a line of its own"; }
grep -q '\.\.\.$' "$T/out" && { cat "$T/out"; fail "endpoints: a line was cut"; }
cw -d "$T/w.db" queue >"$T/out" 2>/dev/null
grep -q '\.\.\.$' "$T/out" && { cat "$T/out"; fail "queue: a line was cut"; }
grep -Eq '^  headers +987655300-987655363 +12345 +rate_limited +endpoint-3-wi\.\.\. +in' \
    "$T/out" || { cat "$T/out"; fail "queue (wide)"; }
ok "wide values fit 80 columns"

# An inconsistent endpoint: its state and reason, as text and as JSON.
R='head #1000000327 0x1234abcd... never connected'
sqlite3 "$T/w.db" "UPDATE endpoints SET state = 'inconsistent',
    state_reason = '$R' WHERE id = 1" || fail "sqlite3 inconsistent"
cw -d "$T/w.db" endpoints >"$T/out" 2>/dev/null || fail "endpoints"
narrow "$T/out"
grep -Eq '^  inconsistent +100 min ago +1 +98765' "$T/out" ||
    { cat "$T/out"; fail "inconsistent: its state"; }
grep -Fq "$R" "$T/out" || { cat "$T/out"; fail "inconsistent: its reason"; }
cw -d "$T/w.db" endpoints --json >"$T/j" 2>/dev/null || fail "endpoints --json"
python3 - "$T/j" "$R" <<'PY' || fail "endpoints --json: inconsistent"
import json, sys
eps = json.load(open(sys.argv[1]))["endpoints"]
e = [x for x in eps if x["name"] == "endpoint-1-with-a-32-char-name-x"]
assert len(e) == 1 and e[0]["state"] == "inconsistent", e
assert e[0]["reason"] == sys.argv[2], e
PY
ok "endpoints: an inconsistent one, its reason, text and --json"

# status and standings tell ages the same way.
cw -d "$DB" standings devchain >"$T/out" 2>/dev/null || fail "standings"
grep -Eq '^as of [0-9]+ (ms|s|min) ago, best #[0-9]+, final #[0-9]+$' "$T/out" ||
    fail "standings: $(sed -n 2p "$T/out")"
cw -d "$DB" status >"$T/out" 2>/dev/null
grep -Eq '^  best #[0-9]+ \([0-9]+ (ms|s|min) ago\), final #[0-9]+$' "$T/out" ||
    fail "status: $(sed -n 2p "$T/out")"
ok "status and standings: ages"

# The command line.
expect_rc 100 cw -d "$DB" blocks 2>"$T/err"
grep -q 'blocks: name the chain' "$T/err" || fail "blocks without chain"
expect_rc 100 cw -d "$DB" blocks devchain devchain 2>/dev/null
for v in "blocks nosuch" "endpoints nosuch" "queue nosuch"; do
	expect_rc 100 cw -d "$DB" $v >"$T/out" 2>"$T/err"
	grep -q "^chainwatch: $DB: no chain 'nosuch' (known: devchain)\$" \
	    "$T/err" || fail "$v: $(cat "$T/err")"
	[ -s "$T/out" ] && fail "$v: output"
done
for n in 0 -1 x 1x '' 99999999999999999999; do
	expect_rc 100 cw -d "$DB" blocks devchain --last "$n" 2>"$T/err"
	grep -q -- "^chainwatch: blocks: --last '$n': use a number of heights, 1 or more\$" \
	    "$T/err" || fail "--last '$n': $(cat "$T/err")"
done
expect_rc 100 cw -d "$DB" blocks devchain --last 2>/dev/null
for v in "endpoints --frob" "queue --frob" "blocks devchain --frob" \
    "endpoints devchain devchain" "queue devchain devchain" \
    "forks --frob" "forks devchain devchain"; do
	expect_rc 100 cw -d "$DB" $v >/dev/null 2>"$T/err"
	grep -q '^usage: chainwatch' "$T/err" || fail "$v: no usage"
done
for v in endpoints queue blocks forks; do
	expect_rc 0 cw $v --help >"$T/out"
	grep -q "^       chainwatch $v " "$T/out" || fail "$v --help"
done
ok "usage errors exit 100 and say why"
