#!/usr/bin/python3
"""Checks of the devnode's lying faults, from a real client.

Used by tests/integration/devnode_lies.sh: each subcommand switches one
lie on through the control port, checks that it is served exactly as
chainwatch-devnode(1) says, over HTTP and WebSocket, switches it off and
checks the truth is back.  Exits 0 (pass) or 1 (fail).
"""
import asyncio
import json
import sys
import time
import urllib.error
import urllib.request

import websockets

from devnode_client import (Fail, TIMEOUT, call, check, connect, control,
                            http, next_note, num, substrate_hash)

NOW_KEY = "0xf0c365c3cf59d671eb72da0e7a4113c49f1f0515f462cdcf84e0f1d6045dfcbb"


def header(port, h=None):
    return http(port, "chain_getHeader", [h] if h is not None else None)[
        "result"]


def block_hash(port, n=None):
    return http(port, "chain_getBlockHash", [n] if n is not None else None)[
        "result"]


def status(cport):
    return control(cport, {})


def hash_ok(fmt, h, want):
    """The header hashes to want (checked for substrate, where the client
    can hash; for quantus the hash is checked by the links)."""
    return fmt != "substrate" or substrate_hash(h) == want


def wait_for(what, cond, timeout):
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise Fail("%s: not within %.0fs" % (what, timeout))
        time.sleep(0.05)


async def cmd_split(port_a, port_b, cport_b, fmt):
    """b leaves the shared chain a also follows, mines its own branch
    (HTTP heads, hashes, headers, storage; WebSocket heads), then returns
    to it: a reorg for its followers, its branch still known by hash."""
    ws = await connect(port_b)
    await call(ws, "chain_subscribeNewHeads")
    await next_note(ws)
    st = control(cport_b, {"enable": "split"})
    base = st["http"]["split"]["base"]
    check(st["ws"]["split"]["base"] == base, "split: ws and http bases")
    # Three blocks of its own (at half the chain's pace).
    wait_for("split: 3 blocks of its own",
             lambda: status(cport_b)["http"]["split"]["blocks"] >= 3, 20)
    head = header(port_b)
    top = num(head)
    check(top > base, "split: head #%d not above base #%d" % (top, base))
    # Walk down b's branch by parent hash to the base: every header is
    # answerable by hash, is what getBlockHash(n) says, and differs from
    # the shared chain's block at that number (a follows the shared one).
    h, hh = head, block_hash(port_b)
    check(hash_ok(fmt, head, hh), "split head hash %s" % hh)
    own = []
    while num(h) > base:
        n = num(h)
        check(block_hash(port_b, n) == hh, "split #%d: getBlockHash" % n)
        wait_for("a reaches #%d" % n, lambda: num(header(port_a)) >= n, 10)
        check(block_hash(port_a, n) != hh,
              "split #%d: same hash on both devnodes" % n)
        st_now = http(port_b, "state_getStorage", [NOW_KEY, hh])
        check(st_now.get("result") not in (None, "0x"),
              "split #%d: no Timestamp.Now: %r" % (n, st_now))
        own.append((n, hh, h))
        parent = header(port_b, h["parentHash"])
        check(parent is not None and num(parent) == n - 1,
              "split #%d: parent %s unknown" % (n, h["parentHash"]))
        check(hash_ok(fmt, parent, h["parentHash"]),
              "split #%d: parent hash" % (n - 1))
        h, hh = parent, h["parentHash"]
    check(hh == block_hash(port_a, base),
          "split: base #%d is not the shared chain's block" % base)
    # a's blocks above the base are unknown to b while it is split.
    ah = block_hash(port_a, base + 1)
    check(header(port_b, ah) is None,
          "split: b knows a's #%d during the split" % (base + 1))
    # WebSocket: b's subscribers were told its own blocks.
    told = {}
    deadline = time.monotonic() + 10
    while not any(v == own[0][2] for v in told.values()):
        check(time.monotonic() < deadline, "split: WebSocket never told %d"
              % own[0][0])
        x = (await next_note(ws))["params"]["result"]
        told[num(x)] = x
    # Back to the shared chain: b reorgs onto it.
    control(cport_b, {"disable": "split"})
    st = status(cport_b)
    check(st["http"]["split"] is None, "split off: status %r" % st["http"])
    nb = num(header(port_b))
    for n, hh, _ in own:
        check(block_hash(port_b, n) == block_hash(port_a, n),
              "after split: #%d differs from the shared chain" % n)
        check(header(port_b, hh) is not None,
              "after split: own block #%d forgotten" % n)
    # The subscribers see the shared chain's blocks at the split's heights.
    deadline = time.monotonic() + 10
    replaced = False
    while not replaced:
        check(time.monotonic() < deadline, "split off: no reorg announced")
        x = (await next_note(ws))["params"]["result"]
        replaced = num(x) <= top and x != told.get(num(x))
    await ws.close()
    print("split: left at #%d, %d own blocks up to #%d, back at #%d"
          % (base, len(own), top, nb))


DIFF_KEY = ("0xf70798a3fbcee5a2d178b8c516e36ae559769e16105568cee9f916e870cb"
            "6e6f")
FAR = 1000000000


async def heads_until(ws, pred, what, timeout=10):
    """New-heads notifications until one satisfies pred; all seen."""
    seen = []
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        check(left > 0, "%s: not announced within %ds" % (what, timeout))
        note = await next_note(ws, left)
        seen.append(note)
        if pred(note["params"]["result"]):
            return seen


def forged_on(st, lie, k, what):
    """The best the lie was forged on (its number less k): the head the
    status shows, or the one before when a block came in between."""
    on, head = lie["number"] - k, st["http"]["head"]
    check(head - 1 <= on <= head, "%s: #%d, head #%d" % (what, lie["number"],
                                                          head))
    return on


def forged_of(st, name):
    lie = st["http"]["lies"].get(name)
    check(lie is not None, "%s: no forgery in the status %r"
          % (name, st["http"]))
    check(st["ws"]["lies"].get(name) == lie, "%s: ws and http differ" % name)
    return lie


async def cmd_forge_head(port, cport, fmt):
    """forge_head[:N]: a head at best+N on a parent nobody has."""
    ws = await connect(port)
    await call(ws, "chain_subscribeNewHeads")
    await next_note(ws)
    st = control(cport, {"enable": "forge_head"})
    lie = forged_of(st, "forge_head")
    best = forged_on(st, lie, FAR, "forge_head")
    h = header(port)
    check(num(h) == lie["number"], "forge_head: chain_getHeader() #%d"
          % num(h))
    check(block_hash(port) == lie["hash"], "forge_head: chain_getBlockHash()")
    check(hash_ok(fmt, h, lie["hash"]), "forge_head: hash of the encoding")
    check(header(port, lie["hash"]) == h, "forge_head: by hash")
    check(header(port, h["parentHash"]) is None,
          "forge_head: its parent %s is known" % h["parentHash"])
    # By number, the truth: the real chain goes on.
    check(block_hash(port, best) is not None and
          block_hash(port, best + 1000) is None, "forge_head: by number")
    # WebSocket: real heads go on, the forged one comes with them.
    seen = await heads_until(ws, lambda x: num(x) == lie["number"],
                             "forge_head")
    check(seen[-1]["params"]["result"] == h, "forge_head: ws header differs")
    seen = await heads_until(ws, lambda x: num(x) < FAR, "real head")
    control(cport, {"disable": "forge_head"})
    check(num(header(port)) < FAR, "forge_head off: still forged")
    check(header(port, lie["hash"]) == h, "forge_head off: forgotten")
    # An argument, and a percentage spread evenly over answers.
    st = control(cport, {"enable": "forge_head:5%50"})
    lie = forged_of(st, "forge_head")
    forged_on(st, lie, 5, "forge_head:5")
    forged = sum(1 for _ in range(10) if block_hash(port) == lie["hash"])
    check(forged == 5, "forge_head:5%%50: %d of 10 answers forged" % forged)
    control(cport, {"clear": True})
    await ws.close()
    print("forge_head: #%d on unknown parent over HTTP and WebSocket; "
          "forge_head:5%%50 forged 5 of 10" % (best + FAR))


async def cmd_forge_chain(port, cport, fmt, k):
    """forge_chain:K: a head at best+K, K forged headers down to best+1,
    whose parent nobody has: K fetches, and it never connects."""
    ws = await connect(port)
    await call(ws, "chain_subscribeNewHeads")
    await next_note(ws)
    st = control(cport, {"enable": "forge_chain:%d" % k})
    lie = forged_of(st, "forge_chain")
    best = forged_on(st, lie, k, "forge_chain")
    h = header(port)
    check(num(h) == lie["number"] and block_hash(port) == lie["hash"],
          "forge_chain: chain_getHeader() #%d" % num(h))
    fetched, hh = 0, lie["hash"]
    while h is not None:
        check(hash_ok(fmt, h, hh), "forge_chain: hash at #%d" % num(h))
        check(block_hash(port, num(h)) != hh,
              "forge_chain: #%d is canonical" % num(h))
        bottom = num(h)
        hh = h["parentHash"]
        h = header(port, hh)
        fetched += 1
        check(h is None or num(h) == bottom - 1, "forge_chain: numbers")
        check(fetched <= k, "forge_chain: more than %d headers" % k)
    check(fetched == k and bottom == best + 1,
          "forge_chain: %d headers down to #%d" % (fetched, bottom))
    seen = await heads_until(ws, lambda x: num(x) == best + k, "forge_chain")
    check(seen[-1]["params"]["result"] == header(port, lie["hash"]),
          "forge_chain: ws header")
    control(cport, {"clear": True})
    check(block_hash(port) != lie["hash"], "forge_chain off: still forged")
    await ws.close()
    print("forge_chain:%d: #%d..#%d, bottom parent unknown, %d fetches"
          % (k, best + 1, best + k, fetched))


async def cmd_bad_number(port, cport, fmt):
    """bad_number[:K]: the real best as parent, number parent+K."""
    ws = await connect(port)
    await call(ws, "chain_subscribeNewHeads")
    await next_note(ws)
    for spec, k in (("bad_number", 50), ("bad_number:7", 7)):
        st = control(cport, {"enable": spec})
        lie = forged_of(st, "bad_number")
        best = forged_on(st, lie, k, spec)
        h = header(port)
        check(num(h) == best + k, "%s: #%d on head #%d" % (spec, num(h),
                                                            best))
        check(hash_ok(fmt, h, lie["hash"]), "%s: hash" % spec)
        check(h["parentHash"] == block_hash(port, best),
              "%s: parent is not the best block #%d" % (spec, best))
        check(num(header(port, h["parentHash"])) == best,
              "%s: parent's number" % spec)
        seen = await heads_until(ws, lambda x: x == h, spec)
        control(cport, {"clear": True})
    check(num(header(port)) < best + 7, "bad_number off")
    await ws.close()
    print("bad_number: #%d+50 and +7 on the real best" % best)


async def cmd_finalized_off(port, cport, fmt):
    """finalized_off: the finalized head is a block off the chain: a
    sibling of the finalized block, on its real parent."""
    ws = await connect(port)
    await call(ws, "chain_subscribeFinalizedHeads")
    await next_note(ws)
    st = control(cport, {"enable": "finalized_off"})
    lie = forged_of(st, "finalized_off")
    fh = http(port, "chain_getFinalizedHead")["result"]
    check(fh == lie["hash"], "finalized_off: chain_getFinalizedHead %s" % fh)
    h = header(port, fh)
    n = num(h)
    check(h is not None and hash_ok(fmt, h, fh), "finalized_off: by hash")
    check(block_hash(port, n) != fh, "finalized_off: #%d is canonical" % n)
    check(block_hash(port, n - 1) == h["parentHash"],
          "finalized_off: parent is not the canonical #%d" % (n - 1))
    deadline = time.monotonic() + 10
    while True:
        check(time.monotonic() < deadline, "finalized_off: not announced")
        x = (await next_note(ws))["params"]["result"]
        if x == h:
            break
    control(cport, {"clear": True})
    fh = http(port, "chain_getFinalizedHead")["result"]
    fn = num(header(port, fh))
    check(block_hash(port, fn) == fh, "finalized_off off: not canonical")
    await ws.close()
    print("finalized_off: #%d %s off the chain, over HTTP and WebSocket"
          % (n, lie["hash"][:18]))


async def cmd_wrong_header(port, cport, fmt):
    """wrong_header: by number or hash, the next block's header."""
    best = num(header(port))
    ns = list(range(best - 10, best - 5))
    hashes = http(port, "chain_getBlockHash", [ns + [n + 1 for n in ns]])[
        "result"]
    truth = dict(zip(ns + [n + 1 for n in ns], hashes))
    ws = await connect(port)
    control(cport, {"enable": "wrong_header"})
    for n in ns:
        check(block_hash(port, n) == truth[n + 1],
              "wrong_header: chain_getBlockHash(%d)" % n)
        h = header(port, truth[n])
        check(num(h) == n + 1 and hash_ok(fmt, h, truth[n + 1]),
              "wrong_header: chain_getHeader(#%d) is #%d" % (n, num(h)))
        r = await call(ws, "chain_getHeader", [truth[n]], rid=n)
        check(r["result"] == h, "wrong_header: ws answer")
    got = http(port, "chain_getBlockHash", [ns])["result"]
    check(got == [truth[n + 1] for n in ns], "wrong_header: list")
    control(cport, {"clear": True})
    check(num(header(port, truth[ns[0]])) == ns[0], "wrong_header off")
    await ws.close()
    print("wrong_header: #%d..#%d answered with the next block"
          % (ns[0], ns[-1]))


async def cmd_bad_seal(port, cport, fmt):
    """bad_seal: a head at best+1 on the best block, well formed (a
    pow_ Seal of 64 bytes, last), whose seal fails the best block's
    difficulty (that failure is checked by the self-test, which can
    hash); quantus only."""
    ws = await connect(port)
    await call(ws, "chain_subscribeNewHeads")
    await next_note(ws)
    st = control(cport, {"enable": "bad_seal"})
    lie = forged_of(st, "bad_seal")
    best = forged_on(st, lie, 1, "bad_seal")
    h = header(port)
    check(num(h) == best + 1 and block_hash(port) == lie["hash"],
          "bad_seal: chain_getHeader() #%d" % num(h))
    check(h["parentHash"] == block_hash(port, best),
          "bad_seal: parent is not the best block #%d" % best)
    check(header(port, lie["hash"]) == h, "bad_seal: by hash")
    seal = h["digest"]["logs"][-1]
    check(seal[:12] == "0x05706f775f" and len(seal) == 2 + 2 * 71,
          "bad_seal: last log %s is not a 64-byte pow_ Seal" % seal[:16])
    seen = await heads_until(ws, lambda x: x == h, "bad_seal")
    control(cport, {"clear": True})
    check(block_hash(port) != lie["hash"], "bad_seal off: still forged")
    await ws.close()
    print("bad_seal: #%d %s on the best block over HTTP and WebSocket"
          % (best + 1, lie["hash"][:18]))


async def storage_lie(port, cport, fault, key, lie):
    """A storage fault: at a fixed block, over HTTP and WebSocket, the
    value with the fault on is lie(truth), and the truth is back after."""
    h = block_hash(port, 5)
    ws = await connect(port)

    def value(v):
        check(v is not None, "%s: no value at #5" % fault)
        return int.from_bytes(bytes.fromhex(v[2:]), "little")

    truth = value(http(port, "state_getStorage", [key, h])["result"])
    control(cport, {"enable": fault})
    got = value(http(port, "state_getStorage", [key, h])["result"])
    check(got == lie(truth), "%s: %d, truth %d" % (fault, got, truth))
    r = await call(ws, "state_getStorage", [key, h], rid=7)
    check(value(r["result"]) == got, "%s: ws answer" % fault)
    control(cport, {"clear": True})
    back = value(http(port, "state_getStorage", [key, h])["result"])
    check(back == truth, "%s off: %d, truth %d" % (fault, back, truth))
    await ws.close()
    print("%s: %d for %d at #5, over HTTP and WebSocket" % (fault, got, truth))


async def cmd_difficulty_x100(port, cport, fmt):
    """difficulty_x100: QPoW.CurrentDifficulty answers times 100."""
    await storage_lie(port, cport, "difficulty_x100", DIFF_KEY,
                      lambda d: d * 100)


async def cmd_difficulty_div100(port, cport, fmt):
    """difficulty_div100: QPoW.CurrentDifficulty answers divided by 100."""
    await storage_lie(port, cport, "difficulty_div100", DIFF_KEY,
                      lambda d: d // 100)


async def cmd_timestamp_ahead(port, cport, fmt):
    """timestamp_ahead: Timestamp.Now answers a day ahead."""
    await storage_lie(port, cport, "timestamp_ahead", NOW_KEY,
                      lambda t: t + 86400000)


async def cmd_timestamp_early(port, cport, fmt):
    """timestamp_early: Timestamp.Now of an even block is its parent's;
    an odd block's stays true."""
    def now(n):
        v = http(port, "state_getStorage", [NOW_KEY, block_hash(port, n)])
        check(v["result"] is not None, "timestamp_early: no value at #%d" % n)
        return int.from_bytes(bytes.fromhex(v["result"][2:]), "little")

    truth = [now(n) for n in (5, 6, 7)]
    control(cport, {"enable": "timestamp_early"})
    got = [now(n) for n in (5, 6, 7)]
    control(cport, {"clear": True})
    check(truth[1] - truth[0] >= 100, "timestamp_early: #6 %d ms after #5"
          % (truth[1] - truth[0]))
    check(got == [truth[0], truth[0], truth[2]],
          "timestamp_early: %s, truth %s" % (got, truth))
    check([now(n) for n in (5, 6, 7)] == truth, "timestamp_early off")
    print("timestamp_early: #6 answers %d (#5's), truth %d" %
          (got[1], truth[1]))


def batch(port, calls):
    """A raw batch; returns the decoded answer (a list, or not)."""
    body = [{"jsonrpc": "2.0", "id": i + 1, "method": m, "params": p}
            for i, (m, p) in enumerate(calls)]
    req = urllib.request.Request(
        "http://127.0.0.1:%d/" % port, data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
        raw = r.read()
    return json.loads(raw) if raw else None


async def cmd_wrong_count(port, cport, fmt):
    """wrong_count[:MODE]: storage answers that do not fit the request."""
    best = num(header(port))
    b, p = block_hash(port, best - 3), block_hash(port, best - 4)
    calls = [("state_getStorage", [NOW_KEY, b]),
             ("state_getStorage", [DIFF_KEY, b]),
             ("system_chain", [])]
    truth = batch(port, calls)
    now_p = http(port, "state_getStorage", [NOW_KEY, p])["result"]
    check(len(truth) == 3, "honest batch: %r" % truth)
    # :0 (default): one storage answer fewer, two for a single call.
    control(cport, {"enable": "wrong_count"})
    got = batch(port, calls)
    check(sorted(x["id"] for x in got) == [1, 3],
          "wrong_count: ids %r" % [x["id"] for x in got])
    one = http(port, "state_getStorage", [NOW_KEY, b])
    check(isinstance(one, list) and len(one) == 2 and
          all(x["id"] == 1 for x in one), "wrong_count: single %r" % one)
    check("result" in http(port, "system_chain"), "wrong_count: not storage")
    # :1, the first item for another block (the parent).
    control(cport, {"clear": True, "enable": "wrong_count:1"})
    got = {x["id"]: x["result"] for x in batch(port, calls)}
    check(got[1] == now_p and now_p != truth[0]["result"],
          "wrong_count:1: first item %r, parent's %r" % (got[1], now_p))
    check(got[2] == truth[1]["result"], "wrong_count:1: second item")
    # :2, the first item for another key (Timestamp.Now: difficulty).
    control(cport, {"clear": True, "enable": "wrong_count:2"})
    got = {x["id"]: x["result"] for x in batch(port, calls)}
    check(got[1] == truth[1]["result"], "wrong_count:2: first item %r"
          % got[1])
    # A percentage counts storage requests.
    control(cport, {"clear": True, "enable": "wrong_count%50"})
    short = sum(1 for _ in range(6) if len(batch(port, calls)) == 2)
    check(short == 3, "wrong_count%%50: %d of 6 short" % short)
    control(cport, {"clear": True})
    check(batch(port, calls) == truth, "wrong_count off")
    print("wrong_count: short batch, double single, parent's value, "
          "another key's value; %50 hit 3 of 6")


def difficulty(port, h):
    v = http(port, "state_getStorage", [DIFF_KEY, h])["result"]
    check(v is not None, "no difficulty at %s" % h)
    return int.from_bytes(bytes.fromhex(v[2:]), "little")


def branch_known(mine, other, lo):
    """The hashes of mine's chain from lo up that other knows by hash:
    the branch of a reorg both have (other has it as a side branch)."""
    out = []
    n = lo
    while True:
        h = block_hash(mine, n)
        if h is None or header(other, h) is None:
            return out
        out.append(h)
        n += 1


async def cmd_reorg_work(port_x, port_y, work, seconds):
    """--reorg-work lighter|shorter: x's fork choice takes the second
    branch, y's keeps the first.  The branches, from both devnodes'
    answers: lighter, the second longer but with less summed difficulty;
    shorter, the second shorter but heavier.  x's subscribers see the
    reorg (numbers repeat), y's see none."""
    wx = await connect(port_x)
    wy = await connect(port_y)
    await call(wx, "chain_subscribeNewHeads")
    await call(wy, "chain_subscribeNewHeads")
    seen_x, seen_y = {}, {}
    repeat_x = repeat_y = None
    deadline = time.monotonic() + seconds
    while repeat_x is None or len(seen_x) < 3:
        check(time.monotonic() < deadline, "%s: x never reorged" % work)
        h = (await next_note(wx))["params"]["result"]
        n = num(h)
        if repeat_x is None and seen_x and n <= max(seen_x) and \
                seen_x.get(n) != h:
            repeat_x = (n, max(seen_x))
            seen_x = {}
        seen_x[n] = h
    # y: drain what came meanwhile; a number may not repeat.
    try:
        while True:
            h = (await asyncio.wait_for(wy.recv(), 0.05))
            h = json.loads(h)
            if "method" not in h:
                continue
            h = h["params"]["result"]
            if seen_y and num(h) <= max(seen_y):
                repeat_y = num(h)
            seen_y[num(h)] = h
    except asyncio.TimeoutError:
        pass
    check(repeat_y is None, "%s: y reorged at #%s" % (work, repeat_y))
    await wx.close()
    await wy.close()
    # Where they part, and each branch as the other devnode knows it.
    n = 1
    while block_hash(port_x, n) == block_hash(port_y, n):
        n += 1
    lo = n
    first = branch_known(port_y, port_x, lo)
    second = branch_known(port_x, port_y, lo)
    check(first and second, "%s: branches %r %r" % (work, first, second))
    w1 = sum(difficulty(port_y, h) for h in first)
    w2 = sum(difficulty(port_x, h) for h in second)
    # Each branch links down to the common ancestor.
    for port, br in ((port_y, first), (port_x, second)):
        for i, h in enumerate(br):
            hd = header(port, h)
            check(hd["parentHash"] == (br[i - 1] if i else
                                       block_hash(port_x, lo - 1)),
                  "%s: branch link at #%d" % (work, lo + i))
    if work == "lighter":
        check(len(second) > len(first) and w2 < w1,
              "lighter: second %d blocks work %d, first %d blocks work %d"
              % (len(second), w2, len(first), w1))
    else:
        check(len(second) < len(first) and w2 > w1,
              "shorter: second %d blocks work %d, first %d blocks work %d"
              % (len(second), w2, len(first), w1))
    # x replaced the first branch's top; what it showed first was y's.
    check(repeat_x[0] <= lo + len(first) - 1, "%s: x's repeat" % work)
    print("%s: from #%d, first branch %d blocks work %d (kept by y), "
          "second %d blocks work %d (taken by x at #%d after #%d)"
          % (work, lo, len(first), w1, len(second), w2, repeat_x[0],
             repeat_x[1]))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    try:
        if cmd == "split":
            asyncio.run(cmd_split(int(args[0]), int(args[1]), int(args[2]),
                                  args[3]))
        elif cmd == "reorg_work":
            asyncio.run(cmd_reorg_work(int(args[0]), int(args[1]), args[2],
                                       float(args[3])))
        elif cmd == "forge_chain":
            asyncio.run(cmd_forge_chain(int(args[0]), int(args[1]), args[2],
                                        int(args[3])))
        elif cmd in ("forge_head", "bad_number", "finalized_off",
                     "wrong_header", "wrong_count", "bad_seal",
                     "difficulty_x100", "difficulty_div100",
                     "timestamp_ahead", "timestamp_early"):
            asyncio.run(globals()["cmd_" + cmd](int(args[0]), int(args[1]),
                                                args[2]))
        else:
            print("unknown command %s" % cmd, file=sys.stderr)
            return 2
    except Fail as e:
        print("FAIL: %s: %s" % (cmd, e), file=sys.stderr)
        return 1
    except (asyncio.TimeoutError, websockets.WebSocketException,
            urllib.error.URLError, OSError) as e:
        print("FAIL: %s: %s: %s" % (cmd, type(e).__name__, e),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
