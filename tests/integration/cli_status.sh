#!/bin/sh
# chainwatch status: a crafted store with a chain in each status (ok,
# degraded, stalled, unreachable, and never-judged endpoints), the lines
# for people, --json, and the exit status of each.
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
}
# name -> (slow_reason, slow_since)
slow = {"lima": ("answers take 3.0 s (median)", T_HALF)}
want_status = dict(alpha="ok", bravo="degraded", charlie="stalled",
                   delta="stalled", echo="unreachable", foxtrot="degraded",
                   golf="ok", hotel="degraded", india="degraded",
                   juliet="stalled", kilo="degraded", lima="ok")
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
        out.append("INSERT INTO endpoints (id, chain_id, name, rpc_url, "
                   "ws_url, position, configured, state, state_since, "
                   "state_reason, pruning_bound) VALUES (%d, %d, '%s', "
                   "'http://127.0.0.1:1', 'ws://127.0.0.1:1', %d, %d, '%s', "
                   "%s, %s, %s);" % (eid, cid + 1, en, pos, conf, st,
                   q(since), q(reason), q(bound)))
ids = {}
eid = 0
for cid, (name, (upd, best, final, eps)) in enumerate(sorted(chains.items())):
    for en, *_ in eps:
        eid += 1
        ids[en] = eid
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
""".format(ok=hms(T_OK), op=hms(T_OPEN), hf=hms(T_HALF), run=RUN, rate=RATE,
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
        stale=st in ("stalled", "unreachable"),
        # No daemon runs on this store: who subscribes is not known.
        subscribe=None, subscription=None,
        endpoints=[dict(name=en, state=s, since=since,
                        since_iso=None if since is None else iso(since),
                        reason=reason or None, pruning_bound=bound,
                        worker_trouble=trouble.get(en))
                   for (en, s, since, reason, bound, conf) in eps if conf])
json.dump(expect, open(sys.argv[3], "w"), indent=1)
PY
{
	echo "PRAGMA journal_mode = WAL;"
	cat "$T/schema.sql" "$T/data.sql"
} | sqlite3 "$DB" >/dev/null || fail "sqlite3: cannot build the store"

# Every chain, for people: exactly the lines expected, 80 columns at most.
expect_rc 1 cw -d "$DB" status >"$T/out"
sed -e "s/([0-9]* s ago)/(N s ago)/" -e "s/([0-9]* ms ago)/(N s ago)/" "$T/out" >"$T/got"
diff -u "$T/want" "$T/got" || fail "status: unexpected lines"
awk 'length($0) > 80 { print; exit 1 }' "$T/out" ||
    fail "status: wider than 80 columns"
ok "status of every chain, for people"

# One chain at a time: its block only, and its exit status.
for c in alpha:0 bravo:1 charlie:1 delta:1 echo:1 foxtrot:1 golf:0 hotel:1 \
    india:1 juliet:1 kilo:1 lima:0; do
	name=${c%:*}
	expect_rc "${c#*:}" cw -d "$DB" status "$name" >"$T/one"
	head -n 1 "$T/one" | grep -q "^$name: " ||
	    fail "status $name: $(head -n 1 "$T/one")"
	[ "$(grep -c '^[a-z]*: ' "$T/one")" = 1 ] ||
	    fail "status $name: more than its own block"
done
ok "status CHAIN exits 0 for ok, 1 for degraded, stalled, unreachable"

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
expect_rc 1 cw -d "$DB" status --json >"$T/j"
check_json "$T/j" || fail "status --json"
expect_rc 0 cw -d "$DB" status --json alpha >"$T/j"
check_json "$T/j" alpha || fail "status --json alpha"
expect_rc 1 cw -d "$DB" status echo --json >"$T/j"
check_json "$T/j" echo || fail "status echo --json"
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
