#!/usr/bin/env python3
"""TLS in front of a plain TCP server on 127.0.0.1, for tests.

Usage: tls_proxy.py PORTFILE CERT KEY TARGET_PORT

Listens on a free port of 127.0.0.1 (written to PORTFILE once ready),
terminates TLS with CERT and KEY, and copies bytes both ways to
127.0.0.1:TARGET_PORT, one upstream connection per client.  Each
handshake that succeeds is counted on stderr ("handshake N").
"""
import asyncio
import os
import ssl
import sys

handshakes = 0


async def pipe(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
        pass
    finally:
        try:
            writer.close()
        except Exception:
            pass


async def serve(target, client_r, client_w):
    global handshakes
    handshakes += 1
    print("handshake %d" % handshakes, file=sys.stderr, flush=True)
    try:
        up_r, up_w = await asyncio.open_connection("127.0.0.1", target)
    except OSError:
        client_w.close()
        return
    await asyncio.gather(pipe(client_r, up_w), pipe(up_r, client_w))


async def main():
    portfile, cert, key, target = sys.argv[1:5]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    server = await asyncio.start_server(
        lambda r, w: serve(int(target), r, w), "127.0.0.1", 0, ssl=ctx)
    port = server.sockets[0].getsockname()[1]
    tmp = portfile + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.rename(tmp, portfile)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    asyncio.run(main())
