#!/bin/sh
# chainwatch status: a crafted store with a chain in each status (ok,
# degraded, stalled, unreachable, and never-judged endpoints; endpoints
# behind and stuck, and a split on record, each degraded, and endpoints
# short of either), the lines for people, --json, and the exit status of
# each: 0 ok, 1 degraded, 2 stalled, 3 unreachable, the worst of them.
. "$top_srcdir/tests/integration/cli_lib.sh"

# Local times in the output are then UTC, which python3 can predict.
TZ=UTC
export TZ
DB=$T/status.db

"$MKSCHEMA" >"$T/schema.sql" || fail "mkschema"
python3 - "$T/data.sql" "$T/want" "$T/expect.json" <<'PY' || fail "python3 store"
import json, sys, time

now = int(time.time() * 1000)
S, MIN, DAY = 1000, 60000, 86400000
BT = 12 * S

def hms(ms):
    return time.strftime("%H:%M:%S", time.gmtime(ms // 1000))

def iso(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms // 1000))

# name -> (updated_at or None, best, final, endpoints); an endpoint is
# (name, state, since or None, reason or None, pruning_bound, configured).
T_OPEN = now - 5 * MIN
T_HALF = now - 4 * MIN
T_OK = now - 30 * MIN
RUN = "3 timeouts in a row since 19:52:12 UTC"
TRIAL = "HTTP 5xx answer on trial at 12:10:00, down since 12:03:07 UTC"
RATE = "62% timeouts over 60 s (31 of 50)"
GENESIS = "wrong genesis: serves 0x5e7648c73d4a..., chain hotel has " \
          "0xe896fcdd3c30..."
INCONS = "head #1000000327 0x1234abcd... never connected"
UNLINKED = "headers #100..#199: #105 has parent 0x00000000... is not #104 " \
           "0x68000000...: the range does not link"
LONG = "transport error on trial at 12:10:00, down since 12:03:07 UTC " \
       "(and then some more words)"
chains = {
    "alpha": (now - 20 * S, 100, 90, [
        ("a1-alpha", "closed", T_OK, None, None, 1),
        ("a2-alpha", "closed", T_OK, "", 40, 1)]),
    "bravo": (now - 20 * S, 1650505, 1650405, [
        ("a1-bravo", "closed", T_OK, None, None, 1),
        ("a2-bravo", "open", T_OPEN, RUN, 1650000, 1),
        ("a3-bravo", "half-open", T_HALF, RATE, None, 1),
        ("a4-bravo", "closed", T_OK, None, None, 1)]),
    # Old heads, endpoints fine; its open endpoint does not matter.
    "charlie": (now - 3 * DAY - 5 * S, 500, 400, [
        ("a1-charlie", "closed", T_OK, None, None, 1),
        ("a2-charlie", "open", T_OPEN, RUN, None, 1)]),
    "delta": (None, None, None, [
        ("a1-delta", "unknown", None, None, None, 1)]),
    # Every configured endpoint down; the unconfigured one does not count.
    "echo": (now - 10 * MIN, 7000, 6900, [
        ("a1-echo", "open", T_OPEN, RUN, 6000, 1),
        ("a2-echo", "half-open", T_HALF, LONG, None, 1),
        ("old-echo", "closed", T_OK, None, None, 0)]),
    # Never judged is not unreachable: one open of three is degraded.
    "foxtrot": (now - 20 * S, 10, 5, [
        ("a1-foxtrot", "unknown", None, None, None, 1),
        ("a2-foxtrot", "unknown", None, None, None, 1),
        ("a3-foxtrot", "open", T_OPEN, TRIAL, None, 1)]),
    "golf": (now - 20 * S, 10, 5, [
        ("a1-golf", "unknown", None, None, None, 1)]),
    # A worker that hung 2 min ago and is back, one down, one quarantined.
    "hotel": (now - 20 * S, 50, 40, [
        ("a1-hotel", "closed", T_OK, None, None, 1),
        ("a2-hotel", "down", T_HALF, "worker died: signal 9", None, 1),
        ("a3-hotel", "quarantined", T_OPEN, GENESIS, None, 1)]),
    # One endpoint inconsistent: degraded, named, its reason shown.
    "india": (now - 20 * S, 60, 50, [
        ("a1-india", "closed", T_OK, None, None, 1),
        ("a2-india", "inconsistent", T_OPEN, INCONS, None, 1)]),
    # Inconsistent or down, every one: nobody believed is stalled.
    "juliet": (now - 20 * S, 70, 60, [
        ("a1-juliet", "inconsistent", T_OPEN, UNLINKED, None, 1),
        ("a2-juliet", "down", T_HALF, "worker died: signal 9", None, 1)]),
    # One endpoint overdue while the others answer: degraded, named.
    "kilo": (now - 20 * S, 80, 70, [
        ("a1-kilo", "unresponsive", T_HALF, "no answer for 3 s", None, 1),
        ("a2-kilo", "closed", T_OK, None, None, 1)]),
    # Every endpoint as slow: ok, and the headline says so.
    "lima": (now - 20 * S, 90, 80, [
        ("a1-lima", "closed", T_OK, None, None, 1),
        ("a2-lima", "closed", T_OK, None, None, 1)]),
    # A node 25 blocks behind, keeping pace: behind since the chain went
    # past its head (the block above it first seen 5 min ago).
    "mike": (now - 5 * S, 100, 90, [
        ("a1-mike", "closed", T_OK, None, None, 1),
        ("a2-mike", "closed", T_OK, None, None, 1)]),
    # No new head from a2 for 2 min while the chain went on: stuck.
    "november": (now - 5 * S, 100, 90, [
        ("a1-november", "closed", T_OK, None, None, 1),
        ("a2-november", "closed", T_OK, None, None, 1),
        ("a3-november", "closed", T_OK, None, None, 1)]),
    # A split on record for 73 s, the endpoints on two branches.
    "oscar": (now - 5 * S, 65, 55, [
        ("a1-oscar", "closed", T_OK, None, None, 1),
        ("a2-oscar", "closed", T_OK, None, None, 1),
        ("a3-oscar", "closed", T_OK, None, None, 1)]),
    # Short of behind and stuck: 2 blocks below for 10 min, its heads
    # fresh; 10 blocks below for 10 s (under 3 block times, 36 s); a head
    # 25 s old (under 5 block times, 60 s) with the chain past it for 20 s:
    # margins of 25 s or more for a loaded machine between the store made
    # here and the status read.  And a split that ended.
    "papa": (now - 5 * S, 100, 90, [
        ("a1-papa", "closed", T_OK, None, None, 1),
        ("a2-papa", "closed", T_OK, None, None, 1),
        ("a3-papa", "closed", T_OK, None, None, 1),
        ("a4-papa", "closed", T_OK, None, None, 1)]),
}
# Endpoint heads: name -> (best_number, best_at, tip_at); blocks: chain ->
# [(number, first_seen)] of canonical blocks; the status expected of each
# (behind, condition, condition_since).
T_PASSED = now - 5 * MIN
T_STUCK = now - 2 * MIN
heads = {
    "a1-mike": (100, now - 5 * S, now - 5 * S),
    "a2-mike": (75, now - 6 * S, now - 6 * S),
    "a1-november": (100, now - 5 * S, now - 5 * S),
    "a2-november": (90, T_STUCK, T_STUCK - 3 * S),
    "a3-november": (100, now - 5 * S, None),
    "a1-oscar": (65, now - 5 * S, now - 5 * S),
    "a2-oscar": (63, now - 8 * S, now - 8 * S),
    "a3-oscar": (64, now - 9 * S, now - 9 * S),
    "a1-papa": (100, now - 5 * S, now - 5 * S),
    "a2-papa": (98, now - 5 * S, now - 5 * S),
    "a3-papa": (90, now - 5 * S, now - 5 * S),
    "a4-papa": (99, now - 25 * S, now - 25 * S),
}
blocks = {"mike": [(76, T_PASSED)], "november": [(91, now - 110 * S)],
          "oscar": [(64, now - 3 * S)],
          "papa": [(99, now - 10 * MIN), (91, now - 10 * S),
                   (100, now - 20 * S)]}
T_SPLIT = now - 73 * S
# chain -> (first_seen, ended, branches, ancestor, [(endpoint, branch, tip)])
splits = {"oscar": [(T_SPLIT, None, 2, 49, [("a1-oscar", 1, 65),
                                            ("a3-oscar", 1, 64),
                                            ("a2-oscar", 2, 63)])],
          "papa": [(now - 20 * MIN, now - 15 * MIN, 2, 80,
                    [("a1-papa", 1, 85), ("a2-papa", 2, 84)])]}
lag = {"a1-mike": (0, "ok", None), "a2-mike": (25, "behind", T_PASSED),
       "a1-november": (0, "ok", None),
       "a2-november": (10, "stuck", T_STUCK),
       "a3-november": (0, "ok", None),
       "a1-oscar": (0, "ok", None), "a2-oscar": (2, "ok", None),
       "a3-oscar": (1, "ok", None),
       "a1-papa": (0, "ok", None), "a2-papa": (2, "ok", None),
       "a3-papa": (10, "ok", None), "a4-papa": (1, "ok", None)}
# name -> (slow_reason, slow_since)
slow = {"lima": ("answers take 3.0 s (median)", T_HALF)}
want_status = dict(alpha="ok", bravo="degraded", charlie="stalled",
                   delta="stalled", echo="unreachable", foxtrot="degraded",
                   golf="ok", hotel="degraded", india="degraded",
                   juliet="stalled", kilo="degraded", lima="ok",
                   mike="degraded", november="degraded", oscar="degraded",
                   papa="ok")
# Worker troubles: (endpoint, kind, detail, at); status shows the last
# hang or death of the last 15 minutes.
T_HUNG = now - 2 * MIN
T_DIED = now - 4 * MIN
events = [("a1-hotel", "died", "signal 6", now - 20 * MIN),
          ("a1-hotel", "hung", "silent for 6.0 s", T_HUNG),
          ("a1-hotel", "stopped", "signal 9", T_HUNG + 10),
          ("a2-hotel", "died", "signal 9", T_DIED),
          ("a2-alpha", "died", "signal 9", now - 16 * MIN)]
trouble = {"a1-hotel": dict(kind="hung", detail="silent for 6.0 s", at=T_HUNG,
                            at_iso=None),
           "a2-hotel": dict(kind="died", detail="signal 9", at=T_DIED,
                            at_iso=None)}

def q(v):
    return "NULL" if v is None else "'%s'" % v if isinstance(v, str) else str(v)

out, eid = [], 0
for cid, (name, (upd, best, final, eps)) in enumerate(sorted(chains.items())):
    sr, ss = slow.get(name, (None, None))
    out.append("INSERT INTO chains (id, name, format, block_time, "
               "finality_depth, best_number, final_number, updated_at, "
               "slow_reason, slow_since) "
               "VALUES (%d, '%s', 'quantus', %d, 100, %s, %s, %s, %s, %s);"
               % (cid + 1, name, BT, q(best), q(final), q(upd), q(sr),
                  q(ss)))
    for pos, (en, st, since, reason, bound, conf) in enumerate(eps):
        eid += 1
        hb, ha, ta = heads.get(en, (None, None, None))
        out.append("INSERT INTO endpoints (id, chain_id, name, rpc_url, "
                   "ws_url, position, configured, state, state_since, "
                   "state_reason, pruning_bound, best_number, best_at, "
                   "tip_at) VALUES (%d, %d, '%s', "
                   "'http://127.0.0.1:1', 'ws://127.0.0.1:1', %d, %d, '%s', "
                   "%s, %s, %s, %s, %s, %s);" % (eid, cid + 1, en, pos, conf,
                   st, q(since), q(reason), q(bound), q(hb), q(ha), q(ta)))
    for number, seen in blocks.get(name, []):
        out.append("INSERT INTO blocks (chain_id, hash, number, parent, "
                   "canonical, first_seen) VALUES (%d, randomblob(32), %d, "
                   "randomblob(32), 1, %d);" % (cid + 1, number, seen))
ids = {}
eid = 0
for cid, (name, (upd, best, final, eps)) in enumerate(sorted(chains.items())):
    for en, *_ in eps:
        eid += 1
        ids[en] = eid
sid = 0
for cid, name in enumerate(sorted(chains)):
    for first, ended, nb, anc, sides in splits.get(name, []):
        sid += 1
        out.append("INSERT INTO splits (id, chain_id, first_seen, last_seen, "
                   "ended, branches, ancestor_number) VALUES (%d, %d, %d, %d, "
                   "%s, %d, %d);" % (sid, cid + 1, first, now - S, q(ended),
                                     nb, anc))
        for en, br, tip in sides:
            out.append("INSERT INTO split_sides (split_id, endpoint_id, "
                       "branch, tip_number, tip_hash) VALUES (%d, %d, %d, %d, "
                       "randomblob(32));" % (sid, ids[en], br, tip))
for en, kind, detail, at in events:
    out.append("INSERT INTO endpoint_events (endpoint_id, at, kind, detail) "
               "VALUES (%d, %d, '%s', '%s');" % (ids[en], at, kind, detail))
for t in trouble.values():
    t["at_iso"] = iso(t["at"])
open(sys.argv[1], "w").write("\n".join(out) + "\n")

# What people see; ages of seconds are "N s ago" (they move while we run).
want = """\
alpha: ok: 2 endpoints healthy
  best #100 (N s ago), final #90
  a1-alpha  closed     since {ok}
  a2-alpha  closed     since {ok}

bravo: degraded: 2 of 4 endpoints unreachable: a2-bravo, timeout since {op}
    a3-bravo, timeout since {hf}
  best #1650505 (N s ago), final #1650405
  a1-bravo  closed     since {ok}
  a2-bravo  open       since {op}  {run}
  a3-bravo  half-open  since {hf}  {rate}
  a4-bravo  closed     since {ok}

charlie: stalled: no head stored for 3 d (block time 12 s)
  best #500 (3 d ago), final #400
  a1-charlie  closed     since {ok}
  a2-charlie  open       since {op}  {run}

delta: stalled: no head stored yet
  no best block yet
  a1-delta  unknown    never judged

echo: unreachable: 2 of 2 endpoints unreachable: a1-echo, timeout since {op}
    a2-echo, transport error since {hf}
  best #7000 (10 min ago), final #6900
  standings served from the store as of {echo}
  a1-echo  open       since {op}  {run}
  a2-echo  half-open  since {hf}
    {long}...

foxtrot: degraded: 1 of 3 endpoints unreachable:
    a3-foxtrot, HTTP 5xx answer since {op}
  best #10 (N s ago), final #5
  a1-foxtrot  unknown    never judged
  a2-foxtrot  unknown    never judged
  a3-foxtrot  open       since {op}
    {trial}

golf: ok: 1 endpoint healthy
  best #10 (N s ago), final #5
  a1-golf  unknown    never judged

hotel: degraded: 2 of 3 endpoints unreachable:
    a2-hotel, worker died: signal 9 since {hf}
    a3-hotel, wrong genesis since {op}
  best #50 (N s ago), final #40
  a1-hotel  closed       since {ok}
    worker hung 2 min ago: silent for 6.0 s
  a2-hotel  down         since {hf}  worker died: signal 9
    worker died 4 min ago: signal 9
  a3-hotel  quarantined  since {op}
    {gen}

india: degraded: 1 of 2 endpoints inconsistent:
    a2-india, inconsistent since {op}
  best #60 (N s ago), final #50
  a1-india  closed        since {ok}
  a2-india  inconsistent  since {op}
    {incons}

juliet: stalled: none believed: 1 of 2 endpoints unreachable, 1 inconsistent:
    a1-juliet, inconsistent since {op}
    a2-juliet, worker died: signal 9 since {hf}
  best #70 (N s ago), final #60
  a1-juliet  inconsistent  since {op}
    {unlinked}
  a2-juliet  down          since {hf}  worker died: signal 9

kilo: degraded: 1 of 2 endpoints unresponsive:
    a1-kilo, no answer for 3 s since {hf}
  best #80 (N s ago), final #70
  a1-kilo  unresponsive  since {hf}  no answer for 3 s
  a2-kilo  closed        since {ok}

lima: ok: slow: answers take 3.0 s (median)
  best #90 (N s ago), final #80
  a1-lima  closed     since {ok}
  a2-lima  closed     since {ok}

mike: degraded: 1 of 2 endpoints behind:
    a2-mike, 25 blocks behind since {pa}
  best #100 (N s ago), final #90
  a1-mike  closed     since {ok}
  a2-mike  closed     since {ok}

november: degraded: 1 of 3 endpoints stuck:
    a2-november, stuck at #90 since {st}
  best #100 (N s ago), final #90
  a1-november  closed     since {ok}
  a2-november  closed     since {ok}
  a3-november  closed     since {ok}

oscar: degraded: split for 73 s: a1-oscar, a3-oscar at #65 / a2-oscar at #63
  best #65 (N s ago), final #55
  a1-oscar  closed     since {ok}
  a2-oscar  closed     since {ok}
  a3-oscar  closed     since {ok}

papa: ok: 4 endpoints healthy
  best #100 (N s ago), final #90
  a1-papa  closed     since {ok}
  a2-papa  closed     since {ok}
  a3-papa  closed     since {ok}
  a4-papa  closed     since {ok}
""".format(pa=hms(T_PASSED), st=hms(T_STUCK), ok=hms(T_OK), op=hms(T_OPEN), hf=hms(T_HALF), run=RUN, rate=RATE,
           trial=TRIAL, long=LONG[:73], echo=hms(now - 10 * MIN), gen=GENESIS,
           incons=INCONS, unlinked=UNLINKED[:73] + "...")
open(sys.argv[2], "w").write(want)

expect = {}
for name, (upd, best, final, eps) in chains.items():
    st = want_status[name]
    expect[name] = dict(
        name=name, status=st, best=best, final=final, updated_at=upd,
        updated_at_iso=None if upd is None else iso(upd), block_time=BT,
        slow=slow.get(name, (None, None))[0],
        slow_since=slow.get(name, (None, None))[1],
        unproven=None, unproven_since=None, unproven_blocks=0,
        rule_doubt=None, rule_doubt_since=None, retarget=None,
        stale=st in ("stalled", "unreachable"),
        # No daemon runs on this store: who subscribes is not known.
        subscribe=None, subscription=None,
        split=None,
        endpoints=[dict(name=en, state=s, since=since,
                        since_iso=None if since is None else iso(since),
                        reason=reason or None, pruning_bound=bound,
                        worker_trouble=trouble.get(en),
                        best_number=heads.get(en, (None,))[0],
                        behind=lag.get(en, (None,))[0],
                        condition=lag.get(en, (None, None))[1],
                        condition_since=lag.get(en, (None, None, None))[2],
                        condition_since_iso=None if lag.get(en, (0, 0, None))[2] is None
                        else iso(lag[en][2]))
                   for (en, s, since, reason, bound, conf) in eps if conf])
expect["oscar"]["split"] = dict(
    id=1, since=T_SPLIT, since_iso=iso(T_SPLIT), branches=2,
    ancestor_number=49,
    sides=[dict(endpoint="a1-oscar", branch=1, tip_number=65),
           dict(endpoint="a3-oscar", branch=1, tip_number=64),
           dict(endpoint="a2-oscar", branch=2, tip_number=63)])
json.dump(expect, open(sys.argv[3], "w"), indent=1)
PY
{
	echo "PRAGMA journal_mode = WAL;"
	cat "$T/schema.sql" "$T/data.sql"
} | sqlite3 "$DB" >/dev/null || fail "sqlite3: cannot build the store"

# Every chain, for people: exactly the lines expected, 80 columns at most.
expect_rc 3 cw -d "$DB" status >"$T/out"
# The split's 73 s were counted when the store was made: a loaded machine
# may take a few seconds from there to here.
sed -e "s/([0-9]* s ago)/(N s ago)/" -e "s/([0-9]* ms ago)/(N s ago)/" \
    -e "s/split for 7[3-9] s/split for 73 s/" "$T/out" >"$T/got"
diff -u "$T/want" "$T/got" || fail "status: unexpected lines"
awk 'length($0) > 80 { print; exit 1 }' "$T/out" ||
    fail "status: wider than 80 columns"
ok "status of every chain, for people"

# One chain at a time: its block only, and its exit status.
for c in alpha:0 bravo:1 charlie:2 delta:2 echo:3 foxtrot:1 golf:0 hotel:1 \
    india:1 juliet:2 kilo:1 lima:0 mike:1 november:1 oscar:1 papa:0; do
	name=${c%:*}
	expect_rc "${c#*:}" cw -d "$DB" status "$name" >"$T/one"
	head -n 1 "$T/one" | grep -q "^$name: " ||
	    fail "status $name: $(head -n 1 "$T/one")"
	[ "$(grep -c '^[a-z]*: ' "$T/one")" = 1 ] ||
	    fail "status $name: more than its own block"
done
ok "status CHAIN exits 0 for ok, 1 degraded, 2 stalled, 3 unreachable"

# check_json FILE [CHAIN]: the --json output against expect.json.
check_json() {
	python3 - "$1" "$T/expect.json" "${2:-}" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))
names = [sys.argv[3]] if sys.argv[3] else sorted(want)
if [c["name"] for c in got["chains"]] != names:
    sys.exit("chains: %r, want %r" % ([c["name"] for c in got["chains"]],
             names))
for g, name in zip(got["chains"], names):
    if not isinstance(g.pop("message"), str):
        sys.exit(name + ": message")
    if g != want[name]:
        sys.exit("%s:\n%r\nwant\n%r" % (name, g, want[name]))
PY
}
expect_rc 3 cw -d "$DB" status --json >"$T/j"
check_json "$T/j" || fail "status --json"
# No socket to ask (-d, no configuration): whether a daemon runs, and
# how its store is, are not known.
python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
assert j["daemon_running"] is None and j["daemon_store"] is None, j
' "$T/j" || fail "status --json: daemon_running, daemon_store not null"
expect_rc 0 cw -d "$DB" status --json alpha >"$T/j"
check_json "$T/j" alpha || fail "status --json alpha"
expect_rc 3 cw -d "$DB" status echo --json >"$T/j"
check_json "$T/j" echo || fail "status echo --json"
for c in mike november oscar papa; do
	cw -d "$DB" status --json "$c" >"$T/j"
	check_json "$T/j" "$c" || fail "status --json $c"
done
ok "--json for every chain and for one"

# Wrong command lines and stores.
expect_rc 100 cw -d "$DB" status nosuch >/dev/null 2>"$T/err"
grep -q "no chain 'nosuch' (known: alpha, bravo" "$T/err" ||
    fail "unknown chain: $(cat "$T/err")"
expect_rc 100 cw -d "$DB" status alpha bravo >/dev/null 2>&1
expect_rc 100 cw -d "$DB" status --bogus >/dev/null 2>&1
expect_rc 111 cw -d "$T/none.db" status >/dev/null 2>&1
expect_rc 0 cw -d "$DB" status -h >"$T/usage"
grep -q 'chainwatch status \[chain\] \[--json\]' "$T/usage" ||
    fail "usage does not name status"

# Canonical blocks whose seal fails a difficulty one endpoint answered:
# alpha, ok otherwise, is degraded and says how many.
cp "$DB" "$T/unproven.db"
sqlite3 "$T/unproven.db" "INSERT INTO blocks (chain_id, hash, number, parent,
    canonical, first_seen, proven) SELECT id, randomblob(32), n, randomblob(32),
    1, 1, 0 FROM chains, (SELECT 99 AS n UNION SELECT 100) WHERE name =
    'alpha'" || fail "sqlite3 unproven"
expect_rc 1 cw -d "$T/unproven.db" status alpha >"$T/out"
# (The line wraps under 80 columns.)
head -n 2 "$T/out" | tr -s ' \n' '  ' | grep -q '^alpha: degraded: 2 canonical blocks unproven: their seal fails the difficulty one endpoint answered ' ||
    fail "unproven blocks: $(cat "$T/out")"
cw -d "$T/unproven.db" status --json alpha | python3 -c '
import json, sys
c = json.load(sys.stdin)["chains"][0]
sys.exit(0 if c["unproven_blocks"] == 2 and c["status"] == "degraded" else 1)' ||
    fail "unproven_blocks in --json"
ok "unproven canonical blocks: degraded, counted"

# Timestamps in doubt (every endpoint ahead of this clock): alpha, ok
# otherwise, is degraded and says why, and --json has it.
cp "$DB" "$T/clock.db"
sqlite3 "$T/clock.db" "UPDATE chains SET rule_doubt = 'every endpoint''s
    timestamps are ahead of this clock (w/a1-alpha''s by 42 s): this clock
    may be behind', rule_doubt_since = 1 WHERE name = 'alpha'" ||
    fail "sqlite3 clock"
expect_rc 1 cw -d "$T/clock.db" status alpha >"$T/out"
tr -s ' \n' '  ' <"$T/out" | grep -q "^alpha: degraded: rule in doubt: every endpoint's timestamps are ahead of this clock (w/a1-alpha's by 42 s): this clock may be behind " ||
    fail "time doubt: $(cat "$T/out")"
cw -d "$T/clock.db" status --json alpha | python3 -c '
import json, sys
c = json.load(sys.stdin)["chains"][0]
sys.exit(0 if c["rule_doubt"].startswith("every endpoint") and
         c["rule_doubt_since"] == 1 and c["status"] == "degraded" else 1)' ||
    fail "rule_doubt in --json"
ok "timestamps in doubt: degraded, said"

# A runtime whose retarget rule is not known: said, the status kept.
cp "$DB" "$T/retarget.db"
sqlite3 "$T/retarget.db" "UPDATE chains SET retarget = 'not recomputed:
    runtime quantus-runtime 153 has no retarget rule known here
    (quantus-runtime 142 to 145)' WHERE name = 'alpha'" ||
    fail "sqlite3 retarget"
expect_rc 0 cw -d "$T/retarget.db" status alpha >"$T/out"
tr -s ' \n' '  ' <"$T/out" | grep -q "^alpha: ok: .*; difficulties not recomputed: runtime quantus-runtime 153 has no retarget rule known here" ||
    fail "retarget: $(cat "$T/out")"
ok "an unknown retarget rule: said, still ok"

# An empty store: nothing is not ok.
"$MKSCHEMA" | sqlite3 "$T/empty.db" >/dev/null || fail "empty store"
expect_rc 0 cw -d "$T/empty.db" status >"$T/out"
grep -q '^no chains stored yet$' "$T/out" || fail "empty store: $(cat "$T/out")"
ok "exit status 100, 111, and an empty store"

# Standings of an unreachable chain are served, marked stale; others not.
cw -d "$DB" standings echo >"$T/out" || fail "standings of an unreachable chain failed"
grep -q '^stale: every endpoint is unreachable' "$T/out" || fail "no stale mark: $(cat "$T/out")"
cw -d "$DB" standings alpha >"$T/out" || fail "standings alpha failed"
grep -q '^stale:' "$T/out" && fail "a healthy chain's standings marked stale"
cw -d "$DB" standings echo --json | /usr/bin/python3 -c 'import json, sys
j = json.load(sys.stdin)
assert j["stale"] is True, j' || fail "--json lacks stale: true"
ok "standings of an unreachable chain are marked stale"

# chainwatch-metrics judges the endpoints as status does: one
# chainwatch_endpoint_condition series per condition, 1 for the one
# status gives, none for an endpoint with no head.
METRICS=$top_builddir/metrics/chainwatch-metrics
if [ -x "$METRICS" ] && command -v curl >/dev/null; then
	# It never runs as root: then as nobody, who may read the store.
	as=
	if [ "$(id -u)" = 0 ]; then
		as="-u nobody"
		chmod a+r "$DB"*
	fi
	# shellcheck disable=SC2086
	"$METRICS" -f -l 127.0.0.1:0 -d "$DB" -s "$T/none.sock" \
	    -p "$T/mport" $as >"$T/metrics.log" 2>&1 &
	CW_PIDS="$CW_PIDS $!"
	wait_for 10 "test -s '$T/mport'" ||
	    fail "chainwatch-metrics did not start: $(cat "$T/metrics.log")"
	curl -s -f -m 10 -o "$T/scrape" "http://127.0.0.1:$(cat "$T/mport")/metrics" ||
	    fail "no answer on /metrics"
	cw -d "$DB" status --json >"$T/j"
	python3 - "$T/scrape" "$T/j" <<'PY' || fail "chainwatch_endpoint_condition differs from status"
import json, re, sys
got = {}
for line in open(sys.argv[1]):
    m = re.match(r'chainwatch_endpoint_condition\{chain="([^"]*)",'
                 r'endpoint="([^"]*)",condition="([^"]*)"\} (\d)$', line)
    if m and m.group(4) == "1":
        got[(m.group(1), m.group(2))] = m.group(3)
want = {(c["name"], e["name"]): e["condition"]
        for c in json.load(open(sys.argv[2]))["chains"]
        for e in c["endpoints"] if e["condition"] is not None}
if got != want:
    sys.exit("scrape %r\nstatus %r" % (sorted(got.items()), sorted(want.items())))
if want[("mike", "a2-mike")] != "behind" or \
        want[("november", "a2-november")] != "stuck":
    sys.exit("status: %r" % want)
PY
	ok "chainwatch-metrics: chainwatch_endpoint_condition as status judges it"
fi
