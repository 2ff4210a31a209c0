#!/usr/bin/python3
# Compares a chainwatch store with a devnode's canonical chain, block by
# block, and checks the store's own invariants.  Prints every difference;
# exits 1 if there is one.
#   store_check.py DB CHAIN RPC_PORT [--margin N] [--state] [--live]
# --live: the daemon still runs, so a lease in the queue is work out now
# (a live block's state read), not one a stopped daemon left behind.
import json
import sqlite3
import sys
import urllib.request

args = sys.argv[1:]
db, chain, port = args[0], args[1], int(args[2])
margin = int(args[args.index("--margin") + 1]) if "--margin" in args else 20
want_state = "--state" in args
live = "--live" in args
diffs = []


def rpc(method, params):
    req = urllib.request.Request(
        "http://127.0.0.1:%d/" % port,
        data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": method,
                         "params": params}).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)["result"]


con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
row = con.execute("SELECT id, best_number, backfill_from FROM chains "
                  "WHERE name = ?", (chain,)).fetchone()
if row is None:
    print("no chain %s in the store" % chain)
    sys.exit(1)
cid, best, low = row
top = best - margin
canon = dict(con.execute(
    "SELECT number, lower(hex(hash)) FROM blocks WHERE chain_id = ? AND "
    "canonical = 1", (cid,)).fetchall())
for n in range(low, top + 1, 500):
    nums = list(range(n, min(n + 500, top + 1)))
    hashes = rpc("chain_getBlockHash", [nums])
    for k, h in zip(nums, hashes):
        got = canon.get(k)
        if got is None:
            diffs.append("#%d: missing from the store" % k)
        elif "0x" + got != h:
            diffs.append("#%d: store 0x%s, devnode %s" % (k, got, h))
dup = con.execute("SELECT number, count(*) FROM blocks WHERE chain_id = ? "
                  "AND canonical = 1 GROUP BY number HAVING count(*) > 1",
                  (cid,)).fetchall()
for n, c in dup:
    diffs.append("#%d: %d canonical blocks" % (n, c))
if want_state:
    for (n,) in con.execute(
            "SELECT number FROM blocks WHERE chain_id = ? AND canonical = 1 "
            "AND number <= ? AND (difficulty IS NULL OR timestamp IS NULL)",
            (cid, top)):
        diffs.append("#%d: difficulty or timestamp not read" % n)
leased = con.execute("SELECT count(*) FROM queue WHERE state = 'leased'"
                     ).fetchone()[0]
if leased and not live:
    diffs.append("%d leases left in the queue" % leased)
for d in diffs[:50]:
    print(d)
print("store_check: %s #%d..#%d against the devnode: %d differences" %
      (chain, low, top, len(diffs)))
sys.exit(1 if diffs else 0)
