# Shared by the chainwatch(1) tests: a store made with the real schema
# (mkschema) and crafted rows, and the standings python3 expects of it.
. "$top_srcdir/tests/integration/lib.sh"

CHAINWATCH=$top_builddir/cli/chainwatch
MKSCHEMA=$top_builddir/tests/integration/mkschema

command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
[ -x "$CHAINWATCH" ] || fail "no $CHAINWATCH"

# cw: run chainwatch.  Any sanitizer report fails the test, and is shown
# even when the caller redirects the output (fd 3 is the test's own
# stdout).  $CW_AS may hold a command prefix (setpriv ...) to run it as
# another user.
exec 3>&1
CW_AS=
cw() {
	$CW_AS "$CHAINWATCH" "$@" 2>"$T/cw.err"
	_cw_rc=$?
	if grep -q -e 'Sanitizer' -e 'runtime error:' "$T/cw.err"; then
		{
			cat "$T/cw.err"
			fail "sanitizer report from chainwatch $*"
		} >&3
	fi
	cat "$T/cw.err" >&2
	return $_cw_rc
}

# expect_rc WANT COMMAND...: run, and fail unless it exits with WANT.
expect_rc() {
	_want=$1
	shift
	"$@"
	_rc=$?
	[ "$_rc" = "$_want" ] || fail "exit status $_rc, not $_want: $*"
}

SS58_A=$("$MKSCHEMA" ss58 1111111111111111111111111111111111111111111111111111111111111111) ||
    fail "mkschema ss58"
SS58_B=$("$MKSCHEMA" ss58 2222222222222222222222222222222222222222222222222222222222222222)
SS58_C=$("$MKSCHEMA" ss58 3333333333333333333333333333333333333333333333333333333333333333)
export SS58_A SS58_B SS58_C

# cli_store DB: a WAL store with two chains.  planck has a genesis and 30
# canonical blocks (best 30, final 27) spread over 10 days, a fork block
# at 30, a block with no miner (unsealed), one whose difficulty is
# unknown (so its child's work is), and standings that agree; heisenberg has nothing yet.  Writes
# $T/expect.json: the standings python3 computes for every window, and
# for final blocks only: the genesis counts nowhere, the unsealed block
# apart from the miners.
cli_store() {
	"$MKSCHEMA" >"$T/schema.sql" || fail "mkschema"
	python3 - "$T/data.sql" "$T/expect.json" <<'PY' || fail "python3 store"
import hashlib, json, os, sys, time

now = int(time.time() * 1000)
A, B, C = (bytes([x]) * 32 for x in (0x11, 0x22, 0x33))
ss58 = {A: os.environ["SS58_A"], B: os.environ["SS58_B"],
        C: os.environ["SS58_C"], b"": "unknown"}
MIN, HOUR, DAY = 60000, 3600000, 86400000

def h(tag):
    return hashlib.sha256(tag.encode()).digest()

def diff(n):
    return 2**100 + n * 1000003	# sums beyond 64 bits, exact matters

# number -> (miner, age): a miner of None is a block without one.
plan = {}
for n in range(1, 11): plan[n] = (A, 10 * DAY)
for n in range(11, 21): plan[n] = (B, 2 * DAY)
for n in range(21, 26): plan[n] = (C, 2 * HOUR)
plan.update({26: (A, 10 * MIN), 27: (A, 9 * MIN), 28: (B, 8 * MIN),
             29: (None, 7 * MIN), 30: (C, 6 * MIN)})
best, final = 30, 27
# The genesis: no miner, a difficulty, a time; never in the standings.
rows = [dict(number=0, hash=h("planck 0"), parent=bytes(32), miner=None,
             difficulty=diff(0), ts=now - 11 * DAY, canonical=1, final=1)]
for n in range(1, best + 1):
    miner, age = plan[n]
    d = None if n == 12 else diff(n)	# difficulty not read yet
    rows.append(dict(number=n, hash=h("planck %d" % n),
                     parent=h("planck %d" % (n - 1)), miner=miner,
                     difficulty=d, ts=now - age, canonical=1,
                     final=int(n <= final)))
# A block that lost a reorg: never counted.
rows.append(dict(number=30, hash=h("fork 30"), parent=h("planck 29"),
                 miner=C, difficulty=diff(999), ts=now - 6 * MIN,
                 canonical=0, final=0))

# Each block's work: the difficulty at its parent (unknown for #13,
# whose parent's was not read).
by_hash = {r["hash"]: r for r in rows}
for r in rows:
    p = by_hash.get(r["parent"]) if r["number"] > 0 else None
    r["work"] = None if p is None else p["difficulty"]

def x(b):
    return "x'%s'" % b.hex()

def sql_val(v):
    return "NULL" if v is None else str(v)

out = []
out.append("INSERT INTO chains (id, name, format, block_time, "
           "finality_depth, best_number, best_hash, final_number, "
           "updated_at) VALUES (1, 'planck', 'quantus', 12000, 3, %d, %s, "
           "%d, 1735787045678);" % (best, x(h("planck %d" % best)), final))
out.append("INSERT INTO chains (id, name, format, block_time, "
           "finality_depth) VALUES (2, 'heisenberg', 'quantus', 12000, 100);")
for acc in (A, B, C):
    out.append("INSERT INTO miners VALUES (%s, '%s');" % (x(acc), ss58[acc]))
for r in rows:
    d, w = r["difficulty"], r["work"]
    out.append("INSERT INTO blocks (chain_id, hash, number, parent, miner, "
               "difficulty, difficulty_f, work, work_f, timestamp, "
               "canonical, final, first_seen) VALUES (1, %s, %d, %s, %s, "
               "%s, %s, %s, %s, %d, %d, %d, %d);" % (x(r["hash"]),
               r["number"], x(r["parent"]),
               "NULL" if r["miner"] is None else x(r["miner"]),
               "NULL" if d is None else x(d.to_bytes(64, "little")),
               "NULL" if d is None else repr(float(d)),
               "NULL" if w is None else x(w.to_bytes(64, "little")),
               "NULL" if w is None else repr(float(w)), r["ts"],
               r["canonical"], r["final"], r["ts"] + 500))

def standings(since=None, final_only=False):
    acc = {}
    for r in rows:
        if not r["canonical"] or (since is not None and r["ts"] < since):
            continue
        if r["number"] == 0:
            continue
        if final_only and not r["final"]:
            continue
        m = r["miner"] or b""
        s = acc.setdefault(m, dict(blocks=0, final=0, work=0, final_work=0,
                                   first=None, last=None))
        s["blocks"] += 1
        s["final"] += r["final"]
        s["work"] += r["work"] or 0
        if r["final"]:
            s["final_work"] += r["work"] or 0
        s["first"] = r["number"] if s["first"] is None else min(s["first"], r["number"])
        s["last"] = r["number"] if s["last"] is None else max(s["last"], r["number"])
    return acc

for m, s in sorted(standings().items()):
    out.append("INSERT INTO standings VALUES (1, %s, %d, %d, '%d', %r, "
               "'%d', %d, %d);" % (x(m), s["blocks"], s["final"], s["work"],
               float(s["work"]), s["final_work"], s["first"], s["last"]))
open(sys.argv[1], "w").write("\n".join(out) + "\n")

# The hashrate estimator of chainwatch(1): the window's work less its
# earliest block's, over the span of its block times.
def span(since=None, final_only=False):
    ws = [r for r in rows if r["canonical"] and r["number"] > 0 and
          r["miner"] is not None and (since is None or r["ts"] >= since) and
          (not final_only or r["final"])]
    if not ws:
        return None, None
    return min(ws, key=lambda r: (r["ts"], r["number"])), max(r["ts"] for r in ws)

def rows_of(acc, first=None, last=None):
    u = acc.pop(b"", None)
    unsealed = dict(blocks=0, provisional=0, final=0, work="0",
                    first_number=None, last_number=None)
    if u is not None:
        unsealed = dict(blocks=u["blocks"], provisional=u["blocks"] - u["final"],
                        final=u["final"], work=str(u["work"]),
                        first_number=u["first"], last_number=u["last"])
    total = sum(s["blocks"] for s in acc.values())
    def hashrate(work, m):
        if first is None or first["work"] is None or last <= first["ts"]:
            return None
        if m is None or m == (first["miner"] or b""):
            work -= first["work"]
        return work * 1000.0 / (last - first["ts"])
    rs = [dict(miner=ss58[m], account=("0x" + m.hex()) if m else None,
               blocks=s["blocks"], provisional=s["blocks"] - s["final"],
               final=s["final"], work=str(s["work"]),
               share=100.0 * s["blocks"] / total,
               first_number=s["first"], last_number=s["last"],
               hashrate=hashrate(s["work"], m))
          for m, s in acc.items()]
    rs.sort(key=lambda r: (-r["blocks"], -int(r["work"]), r["miner"]))
    for i, r in enumerate(rs):
        r["rank"] = i + 1
    return dict(blocks=total, miners=len(rs), rows=rs, unsealed=unsealed,
                hashrate=hashrate(sum(s["work"] for s in acc.values()), None),
                span_first_ms=first["ts"] if first else None,
                span_last_ms=last)

expect = {}
for w, ms in (("all", None), ("1h", HOUR), ("24h", DAY), ("7d", 7 * DAY)):
    since = None if ms is None else now - ms
    expect[w] = rows_of(standings(since), *span(since))
    expect[w + " final"] = rows_of(standings(since, True), *span(since, True))
json.dump(expect, open(sys.argv[2], "w"), indent=1)
PY
	rm -f "$1"
	{
		echo "PRAGMA journal_mode = WAL;"
		cat "$T/schema.sql" "$T/data.sql"
	} | sqlite3 "$1" >/dev/null || fail "sqlite3: cannot build the store $1"
}
