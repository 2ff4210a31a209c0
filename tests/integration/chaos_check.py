#!/usr/bin/python3
# What tests/integration/chaos.sh asks of the store and of chainwatch
# status, one subcommand each; figures go to stdout, reasons to stderr,
# exit 1 when the check fails.
#   chaos_check.py status --cw BIN --db DB --expect SPEC --t0 MS --timeout S
#   chaos_check.py caught-up --db DB --timeout S
#   chaos_check.py waits --db DB --from MS --to MS [--settle S]
#       [--exclude MS-MS]...
#   chaos_check.py store --db DB --port RPC_PORT [--margin N]
#   chaos_check.py events --db DB --from MS --endpoints a,b
#   chaos_check.py hedges --socket PATH
#
# A status SPEC is the chain statuses allowed, comma-separated, then one
# item per endpoint that may or must be unhealthy:
#   d1:REGEX         d1 unhealthy (not closed or unknown), its reason
#                    matching REGEX (Python, case-insensitive)
#   d1=STATE:REGEX   the same, in exactly that state
#   d1?              d1 in any state
# Every endpoint not named must be healthy.
import json
import re
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request

HEALTHY = ("closed", "unknown")
DIFFICULTY_KEY = ("0xf70798a3fbcee5a2d178b8c516e36ae5"
                  "59769e16105568cee9f916e870cb6e6f")
# twox128("Timestamp") ++ twox128("Now")
TIMESTAMP_KEY = ("0xf0c365c3cf59d671eb72da0e7a4113c4"
                 "9f1f0515f462cdcf84e0f1d6045dfcbb")


def opt(args, name, default=None):
    if name in args:
        return args[args.index(name) + 1]
    if default is None:
        sys.exit("chaos_check: %s is required" % name)
    return default


def now_ms():
    return int(time.time() * 1000)


def db_open(path):
    return sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=10)


# ---- status ----

def parse_spec(spec):
    words = spec.split()
    statuses = words[0].split(",")
    eps = {}
    for w in words[1:]:
        if w.endswith("?"):
            eps[w[:-1]] = None
            continue
        if "~" in w:
            # NAME~REGEX: its worker's trouble (a hang, a death) is shown,
            # as the endpoint's state or as its recent worker_trouble.
            name, _, regex = w.partition("~")
            eps[name] = ("~", re.compile(regex, re.I))
            continue
        name, _, regex = w.partition(":")
        name, _, state = name.partition("=")
        eps[name] = (state or None, re.compile(regex or ".", re.I))
    return statuses, eps


def judge(chain, statuses, eps):
    """None if the chain's status matches, else why not."""
    if chain["status"] not in statuses:
        return "status %s, want %s" % (chain["status"], "|".join(statuses))
    for e in chain["endpoints"]:
        want = eps.get(e["name"], "healthy")
        reason = e.get("reason") or ""
        if want is None:
            continue
        if want == "healthy":
            if e["state"] not in HEALTHY:
                return "%s is %s (%s), want healthy" % (e["name"],
                                                        e["state"], reason)
            continue
        state, regex = want
        if state == "~":
            t = e.get("worker_trouble") or {}
            text = "%s %s" % (t.get("kind", ""), t.get("detail", ""))
            if not (t and regex.search(text)) and not (
                    e["state"] not in HEALTHY and regex.search(reason)):
                return "%s shows no worker trouble /%s/ (%s, %s)" % (
                    e["name"], regex.pattern, e["state"], t or "none")
            continue
        if e["state"] in HEALTHY or (state and e["state"] != state):
            return "%s is %s, want %s" % (e["name"], e["state"],
                                          state or "unhealthy")
        if not regex.search(reason):
            return "%s is %s with reason '%s', want /%s/" % (
                e["name"], e["state"], reason, regex.pattern)
    return None


def summary(chain):
    return "%s: %s; %s" % (chain["status"], chain.get("message", ""), "; ".join(
        "%s %s%s" % (e["name"], e["state"],
                     " (%s)" % e["reason"] if e.get("reason") else "")
        for e in chain["endpoints"]))


def cmd_status(args):
    cw, db = opt(args, "--cw"), opt(args, "--db")
    statuses, eps = parse_spec(opt(args, "--expect"))
    t0 = int(opt(args, "--t0", str(now_ms())))
    limit = float(opt(args, "--timeout", "5"))
    last = "no answer"
    while True:
        p = subprocess.run([cw, "-d", db, "status", "--json"],
                           capture_output=True, text=True)
        t = now_ms()
        try:
            chain = json.loads(p.stdout)["chains"][0]
            why = judge(chain, statuses, eps)
            last = "%s [%s]" % (why, summary(chain)) if why else None
        except (ValueError, KeyError, IndexError):
            last = "chainwatch status: %s %s" % (p.stdout.strip(),
                                                 p.stderr.strip())
        if last is None:
            print("%.1f" % ((t - t0) / 1000.0))
            print(summary(chain), file=sys.stderr)
            return 0
        if t - t0 > limit * 1000:
            print("%.1f" % ((t - t0) / 1000.0))
            print(last, file=sys.stderr)
            return 1
        time.sleep(0.1)


# ---- the store ----

def chain_row(con):
    return con.execute("SELECT id, best_number, backfill_from FROM chains"
                       ).fetchone()


def owed(con):
    """Canonical blocks below the best without their state, and holes."""
    cid, best, low = chain_row(con)
    if best is None:
        return 1
    n, missing = con.execute(
        "SELECT count(*), sum(timestamp IS NULL OR difficulty IS NULL OR "
        "state_at IS NULL) FROM blocks WHERE chain_id = ? AND "
        "canonical = 1 AND number BETWEEN ? AND ?",
        (cid, low, best - 1)).fetchone()
    return (best - low) - n + (missing or 0)


def cmd_caught_up(args):
    db = opt(args, "--db")
    limit = float(opt(args, "--timeout", "20"))
    t0 = now_ms()
    while True:
        con = db_open(db)
        left = owed(con)
        con.close()
        if left == 0:
            print("%.1f" % ((now_ms() - t0) / 1000.0))
            return 0
        if now_ms() - t0 > limit * 1000:
            print("%d canonical blocks below the best still lack a "
                  "header or state" % left, file=sys.stderr)
            return 1
        time.sleep(0.2)


def cmd_waits(args):
    """
    The longest state wait (state_at - first_seen) of the canonical
    blocks first stored in [from, to] outside the excluded spans, the
    block it was, how many blocks, how many lack their state, and the
    longest head delay (first_seen - the block's own Timestamp.Now).
    With --settle S, blocks that lack their state are waited for up to
    S seconds: a block stored just before `to` may have its read in
    flight; how long any state took is judged by the wait figure.
    """
    db = opt(args, "--db")
    lo, hi = int(opt(args, "--from")), int(opt(args, "--to"))
    settle = float(opt(args, "--settle", "0"))
    excl = [tuple(int(x) for x in args[i + 1].split("-"))
            for i, a in enumerate(args) if a == "--exclude"]
    t0 = now_ms()
    while True:
        con = db_open(db)
        rows = con.execute(
            "SELECT number, first_seen, state_at, timestamp FROM blocks "
            "WHERE canonical = 1 AND first_seen BETWEEN ? AND ? "
            "ORDER BY number", (lo, hi)).fetchall()
        con.close()
        if (all(r[2] is not None for r in rows if not any(
                a <= r[1] <= b for a, b in excl)) or
                now_ms() - t0 > settle * 1000):
            break
        time.sleep(0.2)
    worst, at, n, missing, head = 0, -1, 0, 0, 0
    for number, seen, state_at, ts in rows:
        if any(a <= seen <= b for a, b in excl):
            continue
        n += 1
        if state_at is None:
            missing += 1
            continue
        if state_at - seen > worst:
            worst, at = state_at - seen, number
        if ts is not None and seen - ts > head:
            head = seen - ts
    print("%d %d %d %d %d" % (worst, at, n, missing, head))
    return 0


def rpc_batch(port, calls):
    body = [{"jsonrpc": "2.0", "id": i, "method": m, "params": p}
            for i, (m, p) in enumerate(calls)]
    req = urllib.request.Request(
        "http://127.0.0.1:%d/" % port, data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        out = json.load(r)
    out.sort(key=lambda a: a["id"])
    return [a.get("result") for a in out]


def le_hex(blob):
    return None if blob is None else "0x" + blob.hex()


def cmd_store(args):
    """
    Every canonical height from backfill_from to best - margin holds the
    devnode's block, with its difficulty and timestamp; nothing else.
    """
    db, port = opt(args, "--db"), int(opt(args, "--port"))
    margin = int(opt(args, "--margin", "2"))
    con = db_open(db)
    cid, best, low = chain_row(con)
    top = best - margin
    rows = {n: (h, d, ts) for n, h, d, ts in con.execute(
        "SELECT number, hash, difficulty, timestamp FROM blocks WHERE "
        "chain_id = ? AND canonical = 1 AND number BETWEEN ? AND ?",
        (cid, low, top))}
    dup = con.execute("SELECT count(*) FROM (SELECT number FROM blocks "
                      "WHERE chain_id = ? AND canonical = 1 GROUP BY number "
                      "HAVING count(*) > 1)", (cid,)).fetchone()[0]
    others = con.execute("SELECT count(*) FROM blocks WHERE chain_id = ? "
                         "AND canonical = 0", (cid,)).fetchone()[0]
    con.close()
    diffs = []
    if dup:
        diffs.append("%d heights with two canonical blocks" % dup)
    for n0 in range(low, top + 1, 200):
        nums = list(range(n0, min(n0 + 200, top + 1)))
        hashes = rpc_batch(port, [("chain_getBlockHash", [nums])])[0]
        calls = []
        for h in hashes:
            calls.append(("state_getStorage", [DIFFICULTY_KEY, h]))
            calls.append(("state_getStorage", [TIMESTAMP_KEY, h]))
        state = rpc_batch(port, calls)
        for i, (n, h) in enumerate(zip(nums, hashes)):
            got = rows.get(n)
            if got is None:
                diffs.append("#%d: missing from the store" % n)
                continue
            if le_hex(got[0]) != h:
                diffs.append("#%d: store %s, devnode %s" % (n,
                                                            le_hex(got[0]), h))
                continue
            if le_hex(got[1]) != state[2 * i]:
                diffs.append("#%d: difficulty %s, devnode %s" % (
                    n, le_hex(got[1]), state[2 * i]))
            want_ts = state[2 * i + 1]
            want_ts = (int.from_bytes(bytes.fromhex(want_ts[2:]), "little")
                       if want_ts else None)
            if got[2] != want_ts:
                diffs.append("#%d: timestamp %s, devnode %s" % (n, got[2],
                                                                want_ts))
    for d in diffs[:20]:
        print(d, file=sys.stderr)
    # Without reorgs on the devnodes, a non-canonical block is one that
    # came from somewhere else (another genesis): said, not failed.
    print("#%d..#%d: %d differences, %d non-canonical blocks" % (
        low, top, len(diffs), others))
    return 1 if diffs else 0


def cmd_events(args):
    """Breaker openings and quarantines of these endpoints since from."""
    db, lo = opt(args, "--db"), int(opt(args, "--from"))
    names = opt(args, "--endpoints").split(",")
    con = db_open(db)
    rows = con.execute(
        "SELECT p.name, e.kind, coalesce(e.detail, '') FROM endpoint_events "
        "e JOIN endpoints p ON p.id = e.endpoint_id WHERE e.at >= ? AND "
        "e.kind IN ('open', 'quarantined') AND p.name IN (%s) ORDER BY e.at"
        % ",".join("?" * len(names)), [lo] + names).fetchall()
    con.close()
    for name, kind, detail in rows:
        print("%s %s: %s" % (name, kind, detail))
    return 1 if rows else 0


def cmd_hedges(args):
    """The chain's hedge counter from the daemon's control socket, or ?."""
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(3)
        s.connect(opt(args, "--socket"))
        s.sendall(b'{"cmd": "metrics"}\n')
        s.shutdown(socket.SHUT_WR)
        buf = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            buf += b
        s.close()
        j = json.loads(buf)
        chains = j.get("chains") or j.get("metrics", {}).get("chains")
        print("%d %d" % (chains[0]["hedges"], chains[0]["hedges_won"]))
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        print("? ?")
    return 0


COMMANDS = {"status": cmd_status, "caught-up": cmd_caught_up,
            "waits": cmd_waits, "store": cmd_store, "events": cmd_events,
            "hedges": cmd_hedges}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit("usage: chaos_check.py %s ..." % "|".join(COMMANDS))
    sys.exit(COMMANDS[sys.argv[1]](sys.argv[2:]))
