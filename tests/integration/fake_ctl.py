#!/usr/bin/env python3
# Plays chainwatchd's control socket for the metrics tests: every
# connection gets one request line and, for {"cmd": "metrics"}, the JSON
# in ANSWER_FILE, read afresh each time so that a test can change it.
# "silent" in ANSWER_FILE: read the request and never answer.
#
#   fake_ctl.py SOCKET ANSWER_FILE   (runs until killed; logs requests)
import json
import os
import socket
import sys
import threading
import time


def serve(conn, answer_file):
    with conn:
        conn.settimeout(10)
        data = b''
        while not data.endswith(b'\n'):
            chunk = conn.recv(4096)
            if not chunk:
                return
            data += chunk
        req = json.loads(data)
        print('request %s' % req.get('cmd'), flush=True)
        with open(answer_file) as fp:
            answer = fp.read()
        if answer.strip() == 'silent':
            time.sleep(30)
            return
        if req.get('cmd') != 'metrics':
            answer = json.dumps({'ok': False, 'error': 'not faked'})
        conn.sendall(answer.encode() + b'\n')


def main():
    path, answer_file = sys.argv[1], sys.argv[2]
    if os.path.exists(path):
        os.unlink(path)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o660)
    s.listen(16)
    while True:
        conn, _ = s.accept()
        threading.Thread(target=serve, args=(conn, answer_file),
                         daemon=True).start()


if __name__ == '__main__':
    main()
