#!/usr/bin/python3
"""A TCP listener on 127.0.0.1 whose accept queue is full: connections to
it are never established (their SYNs are dropped), so a client's connect
times out.  Prints nothing; writes its port to the file given, then sleeps
until killed."""
import os
import socket
import sys
import time

srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", 0))
srv.listen(0)
held = []
for _ in range(16):
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.settimeout(0.5)
    try:
        c.connect(srv.getsockname())
    except (socket.timeout, BlockingIOError):
        c.close()
        break
    held.append(c)
else:
    sys.exit("the accept queue never filled")
tmp = sys.argv[1] + ".tmp"
with open(tmp, "w") as f:
    f.write("%d\n" % srv.getsockname()[1])
os.rename(tmp, sys.argv[1])
while True:
    time.sleep(3600)
