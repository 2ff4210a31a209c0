"""A JSON-RPC HTTP server on 127.0.0.1 with faults chosen by path, for
tests/integration/http_faults.sh (until chainwatch-devnode serves them).

Usage: wrk_http_server.py PORTFILE [CERT KEY] -- binds port 0 and writes
"PORT TLSPORT" there; TLSPORT serves the same over HTTPS (0 without a
certificate).
Paths: /ok (JSON-RPC, methods below), /blackhole, /slow/MS, /http_500,
/http_503, /http_404, /rate_limit, /malformed, /truncated, /oversized,
/oversized_cl, /stats (counters as JSON).
"""
import json
import random
import select
import os
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATS = {"connections": {}, "posts": {}, "calls": {}}
CONN_SEEN = set()
NEXT_CONN = [0]
BIG = 64 * 1024 * 1024


def count(kind, path, n=1):
    with LOCK:
        STATS[kind][path] = STATS[kind].get(path, 0) + n


def rpc_answer(call):
    """One JSON-RPC call: methods that produce each kind of answer."""
    cid = call.get("id")
    m = call.get("method")
    params = call.get("params") or []
    if m == "echo":
        return {"jsonrpc": "2.0", "id": cid, "result": params[0] if params else None}
    if m == "null":
        return {"jsonrpc": "2.0", "id": cid, "result": None}
    if m == "pruned":
        return {"jsonrpc": "2.0", "id": cid,
                "error": {"code": 4003, "message": "State already discarded"}}
    if m == "discarded":
        return {"jsonrpc": "2.0", "id": cid,
                "error": {"code": -32000,
                          "message": "State already discarded for BlockId::Hash(0x00)"}}
    if m == "nocode":
        return {"id": cid, "error": {"message": "boom"}, "jsonrpc": "2.0"}
    if m == "ratelimit":
        return {"jsonrpc": "2.0", "id": cid,
                "error": {"code": -32999, "message": "Too many requests"}}
    if m == "padded":
        return {"result": {"number": "0x%016x" % params[0], "parentHash": "0x00"},
                "id": cid, "jsonrpc": "2.0"}
    if m == "noresult":
        return {"jsonrpc": "2.0", "id": cid}
    return {"jsonrpc": "2.0", "id": cid,
            "error": {"code": -32601, "message": "Method not found"}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def setup(self):
        super().setup()
        # Headers and body go out in two writes: without this, Nagle and
        # the client's delayed ACK add 40 ms to every answer.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with LOCK:
            NEXT_CONN[0] += 1
            self.conn_id = NEXT_CONN[0]

    def note_connection(self, path):
        with LOCK:
            key = (path, self.conn_id)
            if key in CONN_SEEN:
                return
            CONN_SEEN.add(key)
        count("connections", path)

    def reply(self, status, body, ctype="application/json", extra=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def stream(self, with_length):
        """An answer far above any cap, written until the client leaves."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if with_length:
            self.send_header("Content-Length", str(BIG))
        else:
            self.send_header("Connection", "close")
        self.end_headers()
        chunk = b"[" + b'"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",' * 2000
        sent = 0
        try:
            while sent < BIG:
                self.wfile.write(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def do_POST(self):
        path = self.path
        body = self.read_body()
        self.note_connection(path)
        count("posts", path)
        if path == "/stats":
            with LOCK:
                self.reply(200, json.dumps(STATS))
            return
        if path == "/blackhole":
            # Never answer: wait until the client gives up (or 60 s).
            end = time.time() + 60
            while time.time() < end:
                r, _, _ = select.select([self.connection], [], [], 0.2)
                if r and not self.connection.recv(1, socket.MSG_PEEK):
                    break
            self.close_connection = True
            return
        if path.startswith("/slow/"):
            time.sleep(int(path[6:]) / 1000.0)
            path = "/ok"
        if path == "/http_500":
            self.reply(500, "Internal Server Error", "text/plain")
            return
        if path == "/http_503":
            self.reply(503, "<html>503 Service Unavailable</html>", "text/html")
            return
        if path == "/http_404":
            self.reply(404, "not found", "text/plain")
            return
        if path == "/rate_limit":
            self.reply(429, '{"error":"slow down"}', extra=(("Retry-After", "1"),))
            return
        if path == "/malformed":
            self.reply(200, '{"jsonrpc":"2.0","result": this is not json')
            return
        if path == "/truncated":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "200")
            self.end_headers()
            self.wfile.write(b'{"jsonrpc":"2.0","id":1,"result":"0x')
            self.wfile.flush()
            self.close_connection = True
            return
        if path == "/oversized":
            self.stream(False)
            return
        if path == "/oversized_cl":
            self.stream(True)
            return
        if path != "/ok":
            self.reply(404, "no such fault", "text/plain")
            return
        try:
            req = json.loads(body)
        except ValueError:
            self.reply(200, json.dumps({"jsonrpc": "2.0", "id": None,
                       "error": {"code": -32700, "message": "Parse error"}}))
            return
        if isinstance(req, list):
            count("calls", path, len(req))
            out = [rpc_answer(c) for c in req]
            random.shuffle(out)  # nodes may answer a batch in any order
        else:
            count("calls", path)
            out = rpc_answer(req)
        self.reply(200, json.dumps(out))


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    tls_port = 0
    if len(sys.argv) > 3:
        tls = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        tls.daemon_threads = True
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[2], sys.argv[3])
        tls.socket = ctx.wrap_socket(tls.socket, server_side=True)
        tls_port = tls.server_address[1]
        threading.Thread(target=tls.serve_forever, daemon=True).start()
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write("%d %d\n" % (srv.server_address[1], tls_port))
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    srv.serve_forever()


if __name__ == "__main__":
    main()
