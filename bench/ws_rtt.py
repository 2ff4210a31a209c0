#!/usr/bin/python3
"""bench/ws_rtt.py: one call at a time to a chainwatch-devnode, over its
WebSocket and over HTTP, as a client that waits for each answer does (a
worker's subscription, polkadot-js over WebSocket).  Prints the mean time
per call on each and their ratio; asserts nothing.

  /usr/bin/python3 bench/ws_rtt.py [-b build-dir] [-n calls]

Needs Debian's python3-websockets.
"""
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

import websockets

build, n = ".", 200
args = sys.argv[1:]
while args:
    a = args.pop(0)
    if a == "-b":
        build = args.pop(0)
    elif a == "-n":
        n = int(args.pop(0))
    else:
        sys.exit("usage: bench/ws_rtt.py [-b build-dir] [-n calls]")
CALL = {"jsonrpc": "2.0", "id": 1, "method": "chain_getHeader", "params": []}


async def over_ws(port):
    async with websockets.connect("ws://127.0.0.1:%d/" % port) as ws:
        t = time.monotonic()
        for _ in range(n):
            await ws.send(json.dumps(CALL))
            await ws.recv()
        return (time.monotonic() - t) * 1000 / n


def over_http(port):
    t = time.monotonic()
    for _ in range(n):
        req = urllib.request.Request(
            "http://127.0.0.1:%d/" % port, data=json.dumps(CALL).encode(),
            headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=10).read()
    return (time.monotonic() - t) * 1000 / n


with tempfile.TemporaryDirectory() as d:
    pf = os.path.join(d, "port")
    dn = subprocess.Popen(
        [os.path.join(build, "devnode/chainwatch-devnode"), "--listen",
         "127.0.0.1:0", "--control-listen", "127.0.0.1:0", "--port-file",
         pf, "--control-port-file", os.path.join(d, "cport"),
         "--cache-dir", "none", "--backlog", "10"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(pf) and os.path.getsize(pf) > 0:
                break
            time.sleep(0.1)
        port = int(open(pf).read())
        ws_ms = asyncio.run(over_ws(port))
        http_ms = over_http(port)
    finally:
        dn.terminate()
        dn.wait()
print("bench/ws_rtt: %d calls one at a time to chainwatch-devnode" % n)
print("  websocket %.2f ms/call, http %.2f ms/call, ratio ws/http %.2f"
      % (ws_ms, http_ms, ws_ms / http_ms))
print("ws_ms=%.3f http_ms=%.3f ratio=%.2f" % (ws_ms, http_ms,
                                              ws_ms / http_ms))
