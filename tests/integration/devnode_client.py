#!/usr/bin/python3
"""WebSocket and HTTP checks against a running chainwatch-devnode.

Used by tests/integration/devnode_*.sh: each subcommand runs one group of
checks, prints what it saw, and exits 0 (pass) or 1 (fail).  Needs
Debian's python3-websockets (the shell scripts skip with 77 without it).
"""
import asyncio
import base64
import hashlib
import json
import os
import socket
import struct
import sys
import traceback
import time
import urllib.error
import urllib.request

import websockets

TIMEOUT = 5.0


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def http(port, method, params=None, rid=1, timeout=TIMEOUT):
    """One JSON-RPC call over HTTP; returns the decoded answer."""
    body = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        body["params"] = params
    req = urllib.request.Request(
        "http://127.0.0.1:%d/" % port, data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


def control(cport, body):
    req = urllib.request.Request(
        "http://127.0.0.1:%d/control" % cport, data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
        return json.loads(r.read())


def url(port):
    return "ws://127.0.0.1:%d/" % port


async def connect(port, **kw):
    kw.setdefault("ping_interval", None)
    kw.setdefault("max_size", 16 << 20)
    kw.setdefault("open_timeout", TIMEOUT)
    return await websockets.connect(url(port), **kw)


async def call(ws, method, params=None, rid=1, timeout=TIMEOUT):
    """Send a call and return its answer, skipping notifications."""
    msg = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    await ws.send(json.dumps(msg))
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise asyncio.TimeoutError()
        m = json.loads(await asyncio.wait_for(ws.recv(), left))
        if isinstance(m, dict) and m.get("id") == rid:
            return m


async def next_note(ws, timeout=TIMEOUT):
    """The next subscription notification (answers are skipped)."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise asyncio.TimeoutError()
        m = json.loads(await asyncio.wait_for(ws.recv(), left))
        if isinstance(m, dict) and "method" in m:
            return m


def num(header):
    return int(header["number"], 16)


# -- substrate hashing, to check parent links independently ------------

def compact(n):
    if n < 1 << 6:
        return bytes([n << 2])
    if n < 1 << 14:
        return struct.pack("<H", n << 2 | 1)
    if n < 1 << 30:
        return struct.pack("<I", n << 2 | 2)
    b = n.to_bytes((n.bit_length() + 7) // 8, "little")
    return bytes([(len(b) - 4) << 2 | 3]) + b


def substrate_hash(h):
    """blake2b-256 of the SCALE header, as a substrate node hashes it."""
    logs = h["digest"]["logs"]
    enc = bytes.fromhex(h["parentHash"][2:]) + compact(num(h))
    enc += bytes.fromhex(h["stateRoot"][2:])
    enc += bytes.fromhex(h["extrinsicsRoot"][2:])
    enc += compact(len(logs))
    for log in logs:
        enc += bytes.fromhex(log[2:])
    return "0x" + hashlib.blake2b(enc, digest_size=32).hexdigest()


# -- subcommands ------------------------------------------------------

async def cmd_subscribe(port):
    """First notification is the current head; unsubscribe; batches."""
    ws = await connect(port)
    before = num(http(port, "chain_getHeader")["result"])
    sub = await call(ws, "chain_subscribeNewHeads", rid=1)
    sid = sub["result"]
    check(isinstance(sid, str) and sid, "subscription id %r" % (sub,))
    first = await next_note(ws)
    after = num(http(port, "chain_getHeader")["result"])
    check(first["method"] == "chain_newHead", "method %r" % first)
    check(first["params"]["subscription"] == sid, "subscription id")
    n = num(first["params"]["result"])
    check(before <= n <= after, "first notification #%d is not the head "
          "(%d..%d)" % (n, before, after))
    second = await next_note(ws)
    check(num(second["params"]["result"]) >= n, "second notification")
    fin = await call(ws, "chain_subscribeFinalizedHeads", rid=2)
    note = await next_note(ws)
    while note["method"] != "chain_finalizedHead":
        note = await next_note(ws)
    fh = http(port, "chain_getFinalizedHead")["result"]
    fnum = num(http(port, "chain_getHeader", [fh])["result"])
    got = num(note["params"]["result"])
    check(abs(got - fnum) <= 2, "finalized notification #%d vs finalized "
          "head #%d" % (got, fnum))
    check(note["params"]["subscription"] == fin["result"], "finalized id")
    # A batch over WebSocket.
    await ws.send(json.dumps([
        {"jsonrpc": "2.0", "id": 10, "method": "system_chain"},
        {"jsonrpc": "2.0", "id": 11, "method": "chain_getBlockHash",
         "params": [0]}]))
    while True:
        m = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
        if isinstance(m, list):
            break
    check(sorted(x["id"] for x in m) == [10, 11], "ws batch %r" % m)
    r = await call(ws, "chain_unsubscribeNewHeads", [sid], rid=3)
    check(r.get("result") is True, "unsubscribe %r" % r)
    r = await call(ws, "chain_unsubscribeNewHeads", [sid], rid=4)
    check(r.get("result") is False, "second unsubscribe %r" % r)
    await ws.close()
    print("subscribe: first notification #%d is the head; finalized #%d; "
          "batch and unsubscribe ok" % (n, got))


def parent_ok(port, header, parent_header, fmt):
    """header's parentHash names parent_header (by lookup and hashing)."""
    got = http(port, "chain_getHeader", [header["parentHash"]])["result"]
    if got != parent_header:
        return False
    if fmt == "substrate":
        return substrate_hash(parent_header) == header["parentHash"]
    return True


async def cmd_reorg(port, fmt, seconds):
    """Numbers repeat; every parent link holds; old blocks stay known."""
    ws = await connect(port)
    await call(ws, "chain_subscribeNewHeads")
    latest = {}         # number -> the header last announced at it
    replaced = []       # headers of old-branch blocks
    repeats = 0
    links = 0
    deadline = time.monotonic() + seconds
    after_repeat = 0
    while time.monotonic() < deadline:
        h = (await next_note(ws))["params"]["result"]
        n = num(h)
        if n in latest and latest[n] != h:
            replaced.append(latest[n])
        if latest and n <= max(latest):
            repeats += 1
        if n - 1 in latest:
            check(parent_ok(port, h, latest[n - 1], fmt),
                  "#%d: parentHash %s is not the block announced at #%d"
                  % (n, h["parentHash"], n - 1))
            links += 1
        latest[n] = h
        if repeats:
            after_repeat += 1
            if after_repeat > 8 and len(replaced) >= 2:
                break
    await ws.close()
    check(repeats > 0, "no block number repeated in %ss" % seconds)
    check(replaced, "no block was replaced")
    # The old branch: known by hash, not canonical, its state kept until
    # its height is finalized and discarded after.
    best = http(port, "chain_getHeader")["result"]
    fhash = http(port, "chain_getFinalizedHead")["result"]
    final = num(http(port, "chain_getHeader", [fhash])["result"])
    kept = dropped = 0
    for old in replaced:
        n = num(old)
        ohash = None
        # Its hash: the parentHash of its old-branch child, or by hashing.
        for h in replaced:
            if num(h) == n + 1:
                ohash = h["parentHash"]
        if ohash is None and fmt == "substrate":
            ohash = substrate_hash(old)
        if ohash is None:
            continue
        got = http(port, "chain_getHeader", [ohash])["result"]
        check(got == old, "old-branch block #%d not answerable by hash" % n)
        canon = http(port, "chain_getBlockHash", [n])["result"]
        check(canon != ohash, "old-branch block #%d still canonical" % n)
        st = http(port, "state_getStorage",
                  ["0xf70798a3fbcee5a2d178b8c516e36ae559769e16105568cee9f916e870cb6e6f",
                   ohash])
        if n > final:
            check("result" in st and st["result"] is not None,
                  "state of old-branch block #%d above finality #%d: %r"
                  % (n, final, st))
            kept += 1
        else:
            check("error" in st and st["error"]["code"] == 4003 and
                  "State already discarded for " + ohash in
                  st["error"]["message"],
                  "state of old-branch block #%d: %r" % (n, st))
            dropped += 1
        print("old branch #%d %s: known, not canonical, state %s"
              % (n, ohash[:18], "kept" if n > final else "discarded"))
    print("reorg: %d repeats, %d parent links checked, %d old-branch "
          "blocks (state kept %d, discarded %d), head #%d, final #%d"
          % (repeats, links, len(replaced), kept, dropped, num(best), final))


async def cmd_ping(port, ms):
    """A raw client: the server pings by itself, every MS."""
    s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n" % key).encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += s.recv(4096)
    head, buf = buf.split(b"\r\n\r\n", 1)
    check(head.startswith(b"HTTP/1.1 101"), "handshake: %r" % head[:40])
    accept = base64.b64encode(hashlib.sha1(
        (key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
    check(b"Sec-WebSocket-Accept: " + accept in head, "Sec-WebSocket-Accept")
    t0 = time.monotonic()
    pings = 0
    while pings < 2 and time.monotonic() - t0 < 3 * ms / 1000 + 2:
        while len(buf) < 2:
            buf += s.recv(4096)
        op, ln = buf[0] & 15, buf[1] & 127
        hl = 2 + (2 if ln == 126 else 8 if ln == 127 else 0)
        while len(buf) < hl:
            buf += s.recv(4096)
        if ln == 126:
            ln = struct.unpack(">H", buf[2:4])[0]
        elif ln == 127:
            ln = struct.unpack(">Q", buf[2:10])[0]
        while len(buf) < hl + ln:
            buf += s.recv(4096)
        payload, buf = buf[hl:hl + ln], buf[hl + ln:]
        if op == 9:
            pings += 1
            mask = os.urandom(4)
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            s.sendall(bytes([0x8A, 0x80 | len(payload)]) + mask + data)
    s.close()
    el = time.monotonic() - t0
    check(pings >= 2, "%d pings in %.1fs" % (pings, el))
    print("ping: %d pings in %.2fs (interval %d ms)" % (pings, el, ms))


async def closed_within(ws, seconds):
    try:
        while True:
            await asyncio.wait_for(ws.recv(), seconds)
    except websockets.ConnectionClosed:
        return True
    except asyncio.TimeoutError:
        return False


async def quiet_for(ws, seconds):
    """True if nothing arrives for that long."""
    try:
        await asyncio.wait_for(ws.recv(), seconds)
        return False
    except asyncio.TimeoutError:
        return True


async def cmd_ws_faults(port, cport, block_ms):
    b = block_ms / 1000.0
    clear = {"clear": True}

    # ws_drop: open connections close; new ones too, while it is on.
    ws = await connect(port)
    await call(ws, "system_health")
    control(cport, {"enable": "ws_drop"})
    check(await closed_within(ws, 2), "ws_drop: connection still open")
    ws = await connect(port)
    check(await closed_within(ws, 2), "ws_drop: new connection not dropped")
    control(cport, clear)
    ws = await connect(port)
    r = await call(ws, "system_health")
    check("result" in r, "after ws_drop: %r" % r)
    # ws_drop:MS closes each connection MS after it opened.
    control(cport, {"enable": "ws_drop:300"})
    t0 = time.monotonic()
    ws2 = await connect(port)
    check(await closed_within(ws2, 3), "ws_drop:300: not dropped")
    el = time.monotonic() - t0
    check(0.2 <= el <= 2.5, "ws_drop:300 dropped after %.2fs" % el)
    control(cport, clear)
    print("ws_drop: ok (ws_drop:300 after %.2fs)" % el)

    # ws_silent: no notifications, answers still come.
    ws = await connect(port)
    await call(ws, "chain_subscribeNewHeads")
    await next_note(ws)
    control(cport, {"enable": "ws_silent"})
    r = await call(ws, "system_health", rid=5)
    check("result" in r, "ws_silent: answer missing")
    check(await quiet_for(ws, max(6 * b, 0.4)),
          "ws_silent: notification arrived")
    control(cport, clear)
    note = await next_note(ws, timeout=10 * b + 2)
    check(note["method"] == "chain_newHead", "after ws_silent")
    await ws.close()
    print("ws_silent: ok")

    # slow: every answer waits.
    ws = await connect(port)
    control(cport, {"enable": "slow:400@ws"})
    t0 = time.monotonic()
    await call(ws, "system_chain", rid=6)
    el = time.monotonic() - t0
    check(el >= 0.35, "slow:400@ws answered in %.3fs" % el)
    r = http(port, "system_chain")
    check("result" in r, "slow@ws touched HTTP")
    control(cport, clear)
    print("slow@ws: answer after %.2fs" % el)

    # malformed: the answer is not JSON.
    control(cport, {"enable": "malformed@ws"})
    await ws.send(json.dumps({"jsonrpc": "2.0", "id": 7,
                              "method": "system_chain"}))
    raw = await asyncio.wait_for(ws.recv(), TIMEOUT)
    try:
        json.loads(raw)
        check(False, "malformed@ws: answer parses: %r" % raw)
    except ValueError:
        pass
    control(cport, clear)
    await ws.close()
    print("malformed@ws: ok")

    # rate_limit over WebSocket: -32999 to every call.
    ws = await connect(port)
    control(cport, {"enable": "rate_limit@ws"})
    r = await call(ws, "system_chain", rid=8)
    check(r.get("error", {}).get("code") == -32999, "rate_limit@ws: %r" % r)
    control(cport, clear)
    r = await call(ws, "system_chain", rid=9)
    check("result" in r, "after rate_limit: %r" % r)
    print("rate_limit@ws: ok")

    # oversized: a message of at least the size asked for.
    control(cport, {"enable": "oversized:2@ws"})
    await ws.send(json.dumps({"jsonrpc": "2.0", "id": 10,
                              "method": "chain_getHeader"}))
    raw = await asyncio.wait_for(ws.recv(), TIMEOUT)
    control(cport, clear)
    check(len(raw) >= 2 << 20, "oversized:2@ws: %d bytes" % len(raw))
    big = json.loads(raw)
    check(big["id"] == 10 and len(big["result"]) > 100, "oversized shape")
    await ws.close()
    # A client with a 1 MiB limit gives up on it.
    ws = await connect(port, max_size=1 << 20, close_timeout=0.2)
    control(cport, {"enable": "oversized:2@ws"})
    await ws.send(json.dumps({"jsonrpc": "2.0", "id": 11,
                              "method": "chain_getHeader"}))
    check(await closed_within(ws, 5), "oversized: 1 MiB client not closed")
    control(cport, clear)
    print("oversized@ws: %d bytes of valid JSON" % len(raw))

    # truncated: half a frame, then the connection goes.
    ws = await connect(port)
    control(cport, {"enable": "truncated@ws"})
    await ws.send(json.dumps({"jsonrpc": "2.0", "id": 12,
                              "method": "chain_getHeader"}))
    check(await closed_within(ws, 3), "truncated@ws: connection open")
    check(ws.close_code == 1006, "truncated@ws: close code %r"
          % ws.close_code)
    control(cport, clear)
    print("truncated@ws: ok")

    # blackhole: nothing answers, not even the handshake; HTTP works.
    ws = await connect(port)
    control(cport, {"enable": "blackhole@ws"})
    await ws.send(json.dumps({"jsonrpc": "2.0", "id": 13,
                              "method": "system_chain"}))
    check(await quiet_for(ws, 0.5), "blackhole@ws: answered")
    try:
        await asyncio.wait_for(connect(port, close_timeout=0.1), 0.5)
        check(False, "blackhole@ws: handshake answered")
    except (asyncio.TimeoutError, websockets.InvalidHandshake,
            OSError):
        pass
    check("result" in http(port, "system_chain"), "blackhole@ws hit HTTP")
    control(cport, clear)
    # The held request is answered once the fault is lifted.
    r = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
    check(r.get("id") == 13, "after blackhole: %r" % r)
    await ws.close()
    print("blackhole@ws: ok")

    # refuse@ws: open connections close, handshakes fail, HTTP works.
    ws = await connect(port)
    control(cport, {"enable": "refuse@ws"})
    check(await closed_within(ws, 2), "refuse@ws: connection open")
    try:
        await asyncio.wait_for(connect(port, close_timeout=0.1), 2)
        check(False, "refuse@ws: handshake accepted")
    except (websockets.InvalidHandshake, websockets.ConnectionClosed,
            OSError, EOFError, asyncio.TimeoutError):
        pass
    check("result" in http(port, "system_chain"), "refuse@ws hit HTTP")
    control(cport, clear)
    ws = await connect(port)
    await ws.close()
    print("refuse@ws: ok")


async def cmd_chain_faults(port, cport, block_ms):
    """stall and wrong_genesis, seen over HTTP and WebSocket."""
    b = block_ms / 1000.0
    g0 = http(port, "chain_getBlockHash", [0])["result"]
    ws = await connect(port)
    await call(ws, "chain_subscribeNewHeads")
    await next_note(ws)
    control(cport, {"enable": "stall"})
    h1 = num(http(port, "chain_getHeader")["result"])
    # Drain what was in flight, then nothing may come.
    await asyncio.sleep(b)
    try:
        while True:
            await asyncio.wait_for(ws.recv(), 0.01)
    except asyncio.TimeoutError:
        pass
    check(await quiet_for(ws, max(8 * b, 0.5)), "stall: notification came")
    h2 = num(http(port, "chain_getHeader")["result"])
    check(h1 == h2, "stall: HTTP head moved %d -> %d" % (h1, h2))
    st = control(cport, {})
    check(st["liveHead"] > h2, "stall: the live chain stopped too")
    control(cport, {"clear": True})
    note = await next_note(ws, timeout=10 * b + 2)
    h3 = num(note["params"]["result"])
    check(h3 > h2, "after stall: #%d" % h3)
    print("stall: head held at #%d, resumed at #%d" % (h2, h3))

    # wrong_genesis over HTTP only: another chain there, WS unchanged.
    control(cport, {"enable": "wrong_genesis@http"})
    deadline = time.monotonic() + 10
    while True:
        g1 = http(port, "chain_getBlockHash", [0])["result"]
        if g1 != g0 or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.05)
    check(g1 != g0, "wrong_genesis: same genesis %s" % g1)
    r = await call(ws, "chain_getBlockHash", [0], rid=20)
    check(r["result"] == g0, "wrong_genesis@http changed WebSocket")
    hh = num(http(port, "chain_getHeader")["result"])
    check(hh > 0, "wrong_genesis chain has no height")
    control(cport, {"clear": True})
    check(http(port, "chain_getBlockHash", [0])["result"] == g0,
          "wrong_genesis: not lifted")
    await ws.close()
    print("wrong_genesis: genesis %s instead of %s, head #%d"
          % (g1[:18], g0[:18], hh))


NOW_KEY = "0xf0c365c3cf59d671eb72da0e7a4113c49f1f0515f462cdcf84e0f1d6045dfcbb"


def block_ms(port, h):
    v = http(port, "state_getStorage", [NOW_KEY, h])["result"]
    return int.from_bytes(bytes.fromhex(v[2:]), "little")


def cmd_same_chain(ports, block_ms_, offsets):
    """Devnodes with one seed: the same hashes, and every block made at
    the same time (Timestamp.Now) or, with offsets "0,B", one block time
    apart, so that heads are never more than a block time apart.  Block
    times are what each devnode computes, not what a loaded test machine
    observes."""
    heads = [num(http(p, "chain_getHeader")["result"]) for p in ports]
    n = min(heads)
    picks = sorted(set([0, 1, n // 2, n - 1, n]))
    a = http(ports[0], "chain_getBlockHash", [picks])["result"]
    for p in ports[1:]:
        c = http(p, "chain_getBlockHash", [picks])["result"]
        check(a == c, "hashes differ at %r: %r vs %r" % (picks, a, c))
    seen = set()
    for p in ports[1:]:
        d = set(block_ms(p, h) - block_ms(ports[0], h) for h in a)
        check(len(d) == 1, "blocks made at varying offsets %r" % d)
        d = d.pop()
        check(abs(d) in offsets, "blocks made %d ms apart (allowed: %r)"
              % (d, offsets))
        seen.add(abs(d))
    slack = 2 + max(offsets) // block_ms_
    check(max(heads) - min(heads) <= slack, "heads %r" % heads)
    print("same chain on ports %s: heads %r, hashes equal, blocks made "
          "%s ms apart" % (ports, heads, sorted(seen)))


def raw_request(port, body, extra=b""):
    """A keep-alive JSON-RPC POST as bytes, for a raw socket."""
    data = json.dumps(body).encode()
    return (b"POST / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n"
            % (port, len(data)) + extra + b"\r\n" + data)


def raw_answer(s):
    """Read one HTTP answer from a socket: (status line, headers+body)."""
    got = b""
    while b"\r\n\r\n" not in got:
        chunk = s.recv(4096)
        if not chunk:
            raise Fail("the connection ended before an answer")
        got += chunk
    head, rest = got.split(b"\r\n\r\n", 1)
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            n = int(v)
            while len(rest) < n:
                chunk = s.recv(4096)
                if not chunk:
                    raise Fail("the answer was cut")
                rest += chunk
    return head.split(b"\r\n")[0], rest


def expect_reset(s, what):
    """The next read on s must fail with ECONNRESET, not an orderly end."""
    try:
        while True:
            chunk = s.recv(4096)
            check(chunk, "%s: an orderly end, not a reset" % what)
    except ConnectionResetError:
        return
    except socket.timeout:
        raise Fail("%s: no reset within %.0f s" % (what, TIMEOUT))


def send_expect_reset(s, data, what):
    """Send data on s, then expect the reset; a reset that comes while
    sending (a loaded machine: the RST before the last bytes) counts."""
    try:
        s.sendall(data)
    except (ConnectionResetError, BrokenPipeError):
        return
    expect_reset(s, what)


def cmd_reset(port, cport):
    """The reset fault: RST at accept, on a kept-alive HTTP connection,
    on WebSocket handshakes and open WebSocket connections."""
    clear = {"clear": True}
    req = raw_request(port, {"jsonrpc": "2.0", "id": 3,
                             "method": "system_chain"})
    # A kept-alive connection answered, then reset on its next request.
    s = socket.create_connection(("127.0.0.1", port), TIMEOUT)
    s.sendall(req)
    line, _ = raw_answer(s)
    check(b" 200 " in line, "before reset: %r" % line)
    control(cport, {"enable": "reset@http"})
    send_expect_reset(s, req, "reset@http on a kept-alive connection")
    s.close()
    # On both transports: accepted, then reset before any answer.
    control(cport, {"clear": True, "enable": "reset"})
    try:
        s = socket.create_connection(("127.0.0.1", port), TIMEOUT)
    except ConnectionResetError:
        # With a timeout the connect waits in poll(): the RST that
        # follows the accept can be there before it returns.
        pass
    else:
        send_expect_reset(s, req, "reset at accept")
        s.close()
    # WebSocket only: an open connection is reset, a handshake too, and
    # HTTP is left alone.
    control(cport, clear)
    key = base64.b64encode(os.urandom(16))
    up = (b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
          b"Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
          b"Sec-WebSocket-Version: 13\r\n\r\n" % (port, key))
    s = socket.create_connection(("127.0.0.1", port), TIMEOUT)
    s.sendall(up)
    line, _ = raw_answer(s)
    check(b" 101 " in line, "handshake: %r" % line)
    control(cport, {"enable": "reset@ws"})
    expect_reset(s, "reset@ws on an open WebSocket")
    s.close()
    s = socket.create_connection(("127.0.0.1", port), TIMEOUT)
    send_expect_reset(s, up, "reset@ws on a handshake")
    s.close()
    check("result" in http(port, "system_chain"), "reset@ws hit HTTP")
    control(cport, clear)
    check("result" in http(port, "system_chain"), "after reset")
    print("reset: ok")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    try:
        if cmd == "subscribe":
            asyncio.run(cmd_subscribe(int(args[0])))
        elif cmd == "reorg":
            asyncio.run(cmd_reorg(int(args[0]), args[1], float(args[2])))
        elif cmd == "ping":
            asyncio.run(cmd_ping(int(args[0]), int(args[1])))
        elif cmd == "ws_faults":
            asyncio.run(cmd_ws_faults(int(args[0]), int(args[1]),
                                      int(args[2])))
        elif cmd == "chain_faults":
            asyncio.run(cmd_chain_faults(int(args[0]), int(args[1]),
                                         int(args[2])))
        elif cmd == "reset":
            cmd_reset(int(args[0]), int(args[1]))
        elif cmd == "same_chain":
            cmd_same_chain([int(a) for a in args[2:]], int(args[0]),
                           [int(o) for o in args[1].split(",")])
        else:
            print("unknown command %s" % cmd, file=sys.stderr)
            return 2
    except Fail as e:
        print("FAIL: %s: %s" % (cmd, e), file=sys.stderr)
        return 1
    except (asyncio.TimeoutError, websockets.WebSocketException,
            urllib.error.URLError, OSError) as e:
        # Where: one client serves many checks.
        tb = [f for f in traceback.extract_tb(e.__traceback__)
              if f.filename == __file__][-1]
        print("FAIL: %s: %s: %s (line %d: %s)" % (cmd, type(e).__name__, e,
              tb.lineno, tb.line), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
