#!/usr/bin/env python3
"""Clients of chainwatchd's control socket for tests/integration/cli_reload.sh,
well-behaved and not.

  ctl_client.py ask SOCK CMD           print the answer to {"cmd": CMD}
  ctl_client.py hold SOCK SECONDS READY
        send a status request, never read the answer, hold the connection
  ctl_client.py idle SOCK N READY OUT
        open N connections that send nothing; write to OUT what each got
  ctl_client.py fill SOCK N SECONDS READY
        open up to N connections without waiting for any, and hold them
  ctl_client.py flood SOCK N M READY
        open N connections that send nothing, then M that close at once,
        and hold the first N for 2 s
READY is a file created once the connections are made.
"""

import errno
import json
import socket
import sys
import time


def connect(path, blocking=True):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(blocking)
    s.connect(path)
    return s


def ready(path):
    with open(path, "w") as f:
        f.write("ready\n")


def ask(path, cmd):
    s = connect(path)
    s.settimeout(10)
    s.sendall(json.dumps({"cmd": cmd}).encode() + b"\n")
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    sys.stdout.write(data.decode())


def hold(path, seconds, ready_file):
    s = connect(path)
    # As small as the system allows: the answer stays in the daemon's
    # hands as far as the socket lets it.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
    s.sendall(b'{"cmd":"status"}\n')
    ready(ready_file)
    time.sleep(seconds)
    s.close()


def idle(path, n, ready_file, out):
    conns = [connect(path) for _ in range(n)]
    ready(ready_file)
    for c in conns:
        c.settimeout(0.5)
    # The last one is turned away at once, with a reason.
    last = conns[-1]
    got = b""
    try:
        while True:
            chunk = last.recv(4096)
            if not chunk:
                break
            got += chunk
    except socket.timeout:
        got += b" (no end)"
    # The others are answered nothing until the daemon drops them.
    t0 = time.monotonic()
    dropped = []
    for c in conns[:-1]:
        c.settimeout(max(0.1, 15 - (time.monotonic() - t0)))
        try:
            dropped.append(c.recv(4096) == b"")
        except socket.timeout:
            dropped.append(False)
    with open(out, "w") as f:
        json.dump({"last": got.decode(errors="replace"),
                   "dropped": sum(dropped),
                   "after": round(time.monotonic() - t0, 1)}, f)
    for c in conns:
        c.close()


def fill(path, n, seconds, ready_file):
    conns = []
    for _ in range(n):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.connect(path)
        except OSError as e:
            s.close()
            if e.errno != errno.EAGAIN:
                raise
            continue
        conns.append(s)
    ready(ready_file)
    time.sleep(seconds)
    for c in conns:
        c.close()


def flood(path, n, m, ready_file):
    conns = [connect(path) for _ in range(n)]
    for _ in range(m):
        connect(path).close()
    ready(ready_file)
    time.sleep(2)
    for c in conns:
        c.close()


def main():
    cmd = sys.argv[1]
    a = sys.argv[2:]
    if cmd == "ask":
        ask(a[0], a[1])
    elif cmd == "hold":
        hold(a[0], float(a[1]), a[2])
    elif cmd == "idle":
        idle(a[0], int(a[1]), a[2], a[3])
    elif cmd == "fill":
        fill(a[0], int(a[1]), float(a[2]), a[3])
    elif cmd == "flood":
        flood(a[0], int(a[1]), int(a[2]), a[3])
    else:
        sys.exit("unknown command " + cmd)


main()
