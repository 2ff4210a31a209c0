"""WebSocket peers on 127.0.0.1 for the wrk_ws and wrk_sub tests.

Usage: ws_server.py PORTFILE [CERT KEY] -- writes "WSPORT RAWPORT WSSPORT"
there; WSSPORT (the ws paths over TLS) is 0 without a certificate.

WSPORT is python3-websockets (an independent RFC 6455 implementation; as a
server it rejects unmasked client frames with 1002).  Paths:
  /echo  /big  /fragments  /ping  /masking  /close/CODE  /drop  /toolarge
  /reject  /chain/{normal,drop,silent,nofinal}
RAWPORT is a plain TCP server for handshakes websockets would never send:
  /badaccept  /silent  /split  /notws
"""
import asyncio
import base64
import hashlib
import http
import json
import os
import ssl
import sys

import websockets

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
BIG = 200000
COUNTER = [1000]
CONNS = [0]


def pattern(n):
    return "".join(chr(ord("a") + i % 26) for i in range(n))


async def chain(ws, mode):
    """A node's head subscriptions; heads every 100 ms, zero-padded."""
    CONNS[0] += 1
    conn = CONNS[0]
    subs = {}
    subscribed = asyncio.Event()

    async def reader():
        async for msg in ws:
            req = json.loads(msg)
            m, rid = req.get("method"), req.get("id")
            if m == "chain_subscribeNewHeads":
                subs["new"] = "new-%d" % conn
                await ws.send(json.dumps(
                    {"jsonrpc": "2.0", "result": subs["new"], "id": rid}))
                subscribed.set()
            elif m == "chain_subscribeFinalizedHeads":
                if mode == "nofinal":
                    await ws.send(json.dumps({"jsonrpc": "2.0", "id": rid,
                        "error": {"code": -32601,
                                  "message": "Method not found"}}))
                else:
                    subs["fin"] = "fin-%d" % conn
                    await ws.send(json.dumps(
                        {"jsonrpc": "2.0", "result": subs["fin"], "id": rid}))

    task = asyncio.ensure_future(reader())
    try:
        await asyncio.wait_for(subscribed.wait(), 5)
        sent = 0
        while True:
            n = COUNTER[0]
            COUNTER[0] += 1
            head = {"parentHash": "0x" + "00" * 32, "number": "0x%08x" % n,
                    "stateRoot": "0x" + "11" * 32,
                    "extrinsicsRoot": "0x" + "22" * 32,
                    "digest": {"logs": []}}
            await ws.send(json.dumps({"jsonrpc": "2.0",
                "method": "chain_newHead",
                "params": {"subscription": subs["new"], "result": head}}))
            if "fin" in subs and n % 3 == 0:
                fin = dict(head, number="0x%x" % (n - 2))
                await ws.send(json.dumps({"jsonrpc": "2.0",
                    "method": "chain_finalizedHead",
                    "params": {"subscription": subs["fin"], "result": fin}}))
            sent += 1
            if mode == "drop" and sent == 3:
                ws.transport.abort()
                return
            if mode == "silent" and sent == 3:
                await ws.wait_closed()
                return
            await asyncio.sleep(0.1)
    except (websockets.ConnectionClosed, asyncio.TimeoutError):
        pass
    finally:
        task.cancel()


def expect(ws, code, what):
    """The client's side of a closing handshake, as this server saw it."""
    got = ws.close_rcvd.code if ws.close_rcvd is not None else None
    if got != code:
        print("UNCLEAN %s: client's close frame %s, want %d" % (what, got, code),
              file=sys.stderr, flush=True)


async def handler(ws, path=None):
    path = ws.path
    try:
        if path == "/echo":
            async for msg in ws:
                await ws.send(msg)
        elif path == "/big":
            msg = await ws.recv()
            ok = len(msg) == BIG and msg == pattern(BIG)
            await ws.send("big-ok %d" % len(msg) if ok else "big-bad %d" % len(msg))
            await ws.send(pattern(BIG))
            await ws.wait_closed()
            expect(ws, 1000, path)
        elif path == "/fragments":
            await ws.send(["frag-1|", "frag-2|", "frag-3"])
            big = pattern(7 * 30000)
            await ws.send([big[i:i + 30000] for i in range(0, len(big), 30000)])
            await ws.wait_closed()
            expect(ws, 1000, path)
        elif path == "/ping":
            waiter = await ws.ping(b"are-you-there")
            try:
                await asyncio.wait_for(waiter, 3)
                await ws.send("pong-ok")
            except asyncio.TimeoutError:
                await ws.send("pong-missing")
            await ws.wait_closed()
            expect(ws, 1000, path)
        elif path == "/masking":
            # Reading a frame at all means it was masked: websockets fails
            # the connection with 1002 on an unmasked client frame.
            await ws.recv()
            await ws.send("masked-ok")
            await ws.wait_closed()
            expect(ws, 1000, path)
        elif path.startswith("/close/"):
            await ws.recv()
            await ws.close(int(path[7:]), "closing as asked")
            expect(ws, int(path[7:]), path)
        elif path == "/drop":
            await ws.recv()
            ws.transport.abort()
        elif path == "/toolarge":
            await ws.send(pattern(BIG))
            await ws.wait_closed()
            expect(ws, 1009, path)
        elif path.startswith("/chain/"):
            await chain(ws, path[7:])
    except websockets.ConnectionClosed as e:
        # 1002 here would mean an unmasked or otherwise bad client frame.
        if e.rcvd is not None and e.rcvd.code == 1002:
            print("UNCLEAN %s: protocol error %s" % (path, e), file=sys.stderr,
                  flush=True)


async def process_request(path, headers):
    if path == "/reject":
        return http.HTTPStatus.FORBIDDEN, [], b"not here\n"
    return None


async def raw(reader, writer):
    """Handshake answers that no conforming server sends."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        writer.close()
        return
    lines = head.decode("latin-1").split("\r\n")
    path = lines[0].split(" ")[1]
    key = ""
    for l in lines[1:]:
        if l.lower().startswith("sec-websocket-key:"):
            key = l.split(":", 1)[1].strip()
    accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
    ok = ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
          "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n")
    if path == "/badaccept":
        writer.write((ok % base64.b64encode(b"x" * 20).decode()).encode())
    elif path == "/split":
        # The 101 and the first frame in one segment.
        payload = b"early-frame"
        writer.write((ok % accept).encode() + bytes([0x81, len(payload)]) + payload)
    elif path == "/notws":
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi")
    # /silent: say nothing
    try:
        await writer.drain()
        await reader.read()  # until the client goes away
    except ConnectionError:
        pass
    writer.close()


async def main():
    ws = await websockets.serve(handler, "127.0.0.1", 0, ping_interval=None,
                                max_size=4 * 1024 * 1024,
                                process_request=process_request)
    rs = await asyncio.start_server(raw, "127.0.0.1", 0)
    tls_port = 0
    if len(sys.argv) > 3:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[2], sys.argv[3])
        wss = await websockets.serve(handler, "127.0.0.1", 0,
                                     ping_interval=None,
                                     max_size=4 * 1024 * 1024,
                                     process_request=process_request,
                                     ssl=ctx)
        tls_port = wss.sockets[0].getsockname()[1]
    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d %d %d\n" % (ws.sockets[0].getsockname()[1],
                                rs.sockets[0].getsockname()[1], tls_port))
    os.rename(tmp, sys.argv[1])
    await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main())
