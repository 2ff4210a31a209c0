#!/usr/bin/python3
# Compares the state a chainwatch store holds for its canonical blocks
# (difficulty, timestamp) with a devnode's answers, but for the top 20
# blocks (as store_check.py: they may be newer than the devnode's head).
# Prints the first differences; exits 1 if there is one, or no block.
#   state_check.py DB RPC_PORT
import json, sqlite3, sys, urllib.request
db, port = sys.argv[1], int(sys.argv[2])
KEYS = {"difficulty": "0xf70798a3fbcee5a2d178b8c516e36ae559769e16105568cee9f916e870cb6e6f",
        "timestamp": "0xf0c365c3cf59d671eb72da0e7a4113c49f1f0515f462cdcf84e0f1d6045dfcbb"}
con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)

rows = con.execute("SELECT lower(hex(hash)), number, hex(difficulty), "
                   "timestamp FROM blocks WHERE canonical = 1 AND "
                   "timestamp IS NOT NULL AND number <= (SELECT "
                   "best_number FROM chains) - 20 ORDER BY number").fetchall()
bad = 0
for i in range(0, len(rows), 100):
    part = rows[i:i + 100]
    calls = []
    for h, n, d, t in part:
        calls.append({"jsonrpc": "2.0", "id": len(calls), "method":
                      "state_getStorage", "params": [KEYS["difficulty"], "0x" + h]})
        calls.append({"jsonrpc": "2.0", "id": len(calls), "method":
                      "state_getStorage", "params": [KEYS["timestamp"], "0x" + h]})
    req = urllib.request.Request("http://127.0.0.1:%d/" % port,
                                 data=json.dumps(calls).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        ans = {a["id"]: a.get("result") for a in json.load(r)}
    for k, (h, n, d, t) in enumerate(part):
        want_d = ans[2 * k][2:].upper() if ans[2 * k] else None
        ts = ans[2 * k + 1]
        want_t = int.from_bytes(bytes.fromhex(ts[2:]), "little") if ts else None
        if (d or None) != want_d or t != want_t:
            bad += 1
            if bad <= 5:
                print("#%d: difficulty %s timestamp %s, d1 has %s %s" %
                      (n, d, t, want_d, want_t))
print("state values: %d blocks, %d differ from d1's" % (len(rows), bad))
sys.exit(1 if bad or not rows else 0)
