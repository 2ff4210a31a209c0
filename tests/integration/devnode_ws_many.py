# Opens N WebSocket connections to a devnode (raw sockets: the upgrade
# by hand, then a masked text frame subscribing to new heads on each),
# writes READY to the file given once all are upgraded, and holds them
# until the devnode closes them; with "stall" it reads nothing more and
# holds them until it is killed or its parent (the test) is gone.
import base64, os, select, socket, struct, sys

port, n, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
stall = len(sys.argv) > 4 and sys.argv[4] == "stall"
SUB = b'{"jsonrpc":"2.0","id":1,"method":"chain_subscribeNewHeads","params":[]}'

def frame(payload):
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return struct.pack("!BB", 0x81, 0x80 | len(payload)) + mask + body

socks = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n" % (port, key)).encode())
    got = b""
    while b"\r\n\r\n" not in got:
        d = s.recv(4096)
        if not d:
            sys.exit("connection %d closed during the upgrade" % i)
        got += d
    if not got.startswith(b"HTTP/1.1 101"):
        sys.exit("connection %d: no upgrade: %r" % (i, got[:80]))
    s.sendall(frame(SUB))
    s.setblocking(False)
    socks.append(s)
with open(ready, "w") as f:
    f.write("READY %d\n" % len(socks))
# Drain what comes (heads), so the devnode's queues do not fill; stop
# when every connection is closed by the devnode.
open_ = set(socks)
if stall:
    import time
    parent = os.getppid()
    for _ in range(600):
        if os.getppid() != parent:
            break
        time.sleep(1)
    sys.exit(0)
while open_:
    r, _, _ = select.select(list(open_), [], [], 60)
    if not r:
        break
    for s in r:
        try:
            d = s.recv(65536)
        except (ConnectionError, BlockingIOError):
            d = b""
        if not d:
            open_.discard(s)
            s.close()
