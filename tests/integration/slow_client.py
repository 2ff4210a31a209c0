#!/usr/bin/env python3
# Hostile HTTP clients for the metrics tests; each prints "ready" once it
# holds its connections, then holds them until killed.
#
#   slow_client.py noread PORT   asks for /metrics 200 times on one
#                                connection with a tiny receive buffer
#                                and never reads an answer
#   slow_client.py half PORT     sends half a request line, then nothing
#   slow_client.py idle N PORT   opens N connections and sends nothing
import socket
import sys
import time


def connect(port, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(('127.0.0.1', port))
    return s


def main(argv):
    held = []
    if argv[1] == 'noread':
        s = connect(int(argv[2]), rcvbuf=1024)
        s.setblocking(False)
        req = b'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'
        sent = 0
        # Send what the server takes; it stops taking once its answers
        # fill our buffer, which is the point.
        deadline = time.time() + 5
        while sent < 200 and time.time() < deadline:
            try:
                s.send(req)
                sent += 1
            except BlockingIOError:
                time.sleep(0.05)
        held.append(s)
    elif argv[1] == 'half':
        s = connect(int(argv[2]))
        s.sendall(b'GET /metr')
        held.append(s)
    elif argv[1] == 'idle':
        for _ in range(int(argv[2])):
            held.append(connect(int(argv[3])))
    else:
        print('usage: slow_client.py noread|half|idle ...', file=sys.stderr)
        return 2
    print('ready', flush=True)
    time.sleep(600)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
