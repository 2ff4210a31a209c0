#!/usr/bin/python3
"""Checks of the devnode's lying faults, from a real client.

Used by tests/integration/devnode_lies.sh: each subcommand switches one
lie on through the control port, checks that it is served exactly as
chainwatch-devnode(1) says, over HTTP and WebSocket, switches it off and
checks the truth is back.  Exits 0 (pass) or 1 (fail).
"""
import asyncio
import sys
import time
import urllib.error

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


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    try:
        if cmd == "split":
            asyncio.run(cmd_split(int(args[0]), int(args[1]), int(args[2]),
                                  args[3]))
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
