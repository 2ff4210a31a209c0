#!/usr/bin/python3
"""Writes the seed corpora of fuzz/ from a real chainwatch-devnode.

Starts one devnode per chain format (127.0.0.1, port 0), captures its
answers over HTTP (rpc, header_json, devnode requests) and a raw
WebSocket stream of new heads (ws: handshake answer and frames as sent;
sub: the messages in them), then runs fuzz_mkseed for the packed IPC
messages and the SCALE headers, and copies the test vectors' headers and
the configurations of tests/conf.  (fuzz/corpus/metrics holds what a
chainwatchd on two devnodes and a dead endpoint answered on its control
socket to metrics, status and an unknown command, taken with
tests/integration/ctl_client.py ask SOCK CMD.)  Rerun it when a format
changes:
    fuzz/mkcorpus.py BUILDDIR
"""
import base64
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                        os.path.join(SRC, "build", "default"))
OUT = os.path.join(SRC, "fuzz", "corpus")
KEY = "dGhlIHNhbXBsZSBub25jZQ=="   # RFC 6455 1.3, as fuzz_ws.c expects


def write(target, name, data, sel=None):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        if sel is not None:
            f.write(bytes([sel]))
        f.write(data)


def start(tmp, fmt):
    pf = os.path.join(tmp, fmt + ".port")
    p = subprocess.Popen(
        [os.path.join(BUILD, "devnode", "chainwatch-devnode"),
         "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0",
         "--port-file", pf, "--control-port-file", pf + ".c",
         "--cache-dir", "none", "--format", fmt, "--backlog", "40",
         "--block-time", "500", "--reorg-every", "10", "--reorg-depth", "2",
         "--finality-lag", "4", "--state-pruning", "20"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        if os.path.exists(pf) and os.path.getsize(pf) > 0:
            return p, int(open(pf).read())
        time.sleep(0.1)
    p.kill()
    sys.exit("devnode did not start")


def post(port, body):
    req = urllib.request.Request("http://127.0.0.1:%d/" % port,
                                 data=body.encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.read()
    except urllib.error.HTTPError as e:
        return e.read()


def call(method, params=None, rid=1):
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                       "params": params if params is not None else []})


def http_seeds(port, fmt):
    sel_fmt = 1 if fmt == "substrate" else 0
    best = json.loads(post(port, call("chain_getHeader")))["result"]
    number = int(best["number"], 16)
    bh = json.loads(post(port, call("chain_getBlockHash", [number])))["result"]
    gh = json.loads(post(port, call("chain_getBlockHash", [0])))["result"]
    calls = {
        "header": call("chain_getHeader", [bh]),
        "hash": call("chain_getBlockHash", [number - 1]),
        "runtime": call("state_getRuntimeVersion", [bh]),
        "chain": call("system_chain"),
        "storage": call("state_getStorage",
                        ["0x26aa394eea5630e07c48ae0c9558cef7"
                         "02a5c1b19ab7a04f536c519aca4983ac", bh]),
        "pruned": call("state_getStorage",
                       ["0x26aa394eea5630e07c48ae0c9558cef7"
                        "02a5c1b19ab7a04f536c519aca4983ac", gh]),
        "unknown": call("no_such_method"),
        "badparams": call("chain_getHeader", [17]),
    }
    for name, body in calls.items():
        ans = post(port, body)
        write("devnode", "%s-%s.json" % (fmt, name), body, sel=0)
        # rpc: single call, NULL_ABSENT for storage, status 200.
        write("rpc", "%s-%s.json" % (fmt, name), ans,
              sel=0x10 if name in ("storage", "pruned") else 0)
    batch = "[" + ",".join(call("chain_getBlockHash", [number - i], i + 1)
                           for i in range(3)) + "]"
    write("devnode", "%s-batch.json" % fmt, batch, sel=0)
    write("rpc", "%s-batch.json" % fmt, post(port, batch),
          sel=1 | (2 << 1))
    hb = "[" + ",".join(call("chain_getHeader", [h], i + 1) for i, h in
                        enumerate([bh, gh])) + "]"
    write("rpc", "%s-headers.json" % fmt, post(port, hb), sel=1 | (1 << 1))
    write("devnode", "%s-fault.json" % fmt,
          call("dev_fault", [{"enable": "wrong_count"}]), sel=0)
    write("devnode", "%s-subscribe.json" % fmt,
          call("chain_subscribeNewHeads"), sel=1)
    write("devnode", "%s-unsubscribe.json" % fmt,
          call("chain_unsubscribeNewHeads", ["0000000000000001"]), sel=1)
    hdr = json.loads(post(port, call("chain_getHeader", [bh])))["result"]
    write("header_json", "%s-best.json" % fmt, json.dumps(hdr), sel=sel_fmt)
    return hdr


def ws_seeds(port, fmt):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
               "Upgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
               % (port, KEY)).encode())
    for rid, m in ((1, "chain_subscribeNewHeads"),
                   (2, "chain_subscribeFinalizedHeads")):
        payload = call(m, rid=rid).encode()
        mask = b"\x01\x02\x03\x04"
        frame = bytes([0x81, 0x80 | len(payload)]) + mask + bytes(
            b ^ mask[i % 4] for i, b in enumerate(payload))
        s.sendall(frame)
    data, end = b"", time.time() + 3
    while time.time() < end:
        s.settimeout(max(0.1, end - time.time()))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        data += chunk
    s.close()
    write("ws", "%s-stream.bin" % fmt, data)
    hdr_end = data.index(b"\r\n\r\n") + 4
    write("ws", "%s-handshake.bin" % fmt, data[:hdr_end])
    # The server's frames are unmasked: take the messages apart.
    p, msgs = hdr_end, []
    while p + 2 <= len(data):
        n = data[p + 1] & 0x7f
        q = p + 2
        if n == 126:
            n, q = int.from_bytes(data[q:q + 2], "big"), q + 2
        elif n == 127:
            n, q = int.from_bytes(data[q:q + 8], "big"), q + 8
        if q + n > len(data):
            break
        if data[p] & 0x0f == 1:
            msgs.append(data[q:q + n])
        p = q + n
    sel_fmt = 2 if fmt == "substrate" else 0
    for i, m in enumerate(msgs[:6]):
        doc = json.loads(m)
        sel = sel_fmt | (1 if "method" in doc else 0)
        write("sub", "%s-%d.json" % (fmt, i), m, sel=sel)


def main():
    tmp = tempfile.mkdtemp(prefix="mkcorpus.")
    try:
        for fmt in ("quantus", "substrate"):
            p, port = start(tmp, fmt)
            try:
                hdr = http_seeds(port, fmt)
                ws_seeds(port, fmt)
            finally:
                p.terminate()
                p.wait()
            hf = os.path.join(tmp, fmt + "-best.json")
            with open(hf, "w") as f:
                json.dump(hdr, f)
            subprocess.run([os.path.join(BUILD, "fuzz", "fuzz_mkseed"),
                            "scale", os.path.join(OUT, "header_scale"), fmt,
                            hf], check=True)
        # The published and generated header vectors.
        for vf, fmt, key in (("quantus-vectors.json", "quantus", "header"),
                             ("substrate-vectors.json", "substrate", "rpc")):
            vs = json.load(open(os.path.join(SRC, "tests", "vectors", vf)))
            for i, v in enumerate(vs["headers"]):
                h = dict(v[key])
                if "numberRpc" in h:
                    h["number"] = h.pop("numberRpc")
                name = "%s-vector-%02d.json" % (fmt, i)
                write("header_json", name, json.dumps(h),
                      sel=1 if fmt == "substrate" else 0)
                hf = os.path.join(tmp, name)
                with open(hf, "w") as f:
                    json.dump(h, f)
                subprocess.run([os.path.join(BUILD, "fuzz", "fuzz_mkseed"),
                                "scale", os.path.join(OUT, "header_scale"),
                                fmt, hf], check=True)
        subprocess.run([os.path.join(BUILD, "fuzz", "fuzz_mkseed"), "msg",
                        os.path.join(OUT, "msg")], check=True)
        for f in glob.glob(os.path.join(SRC, "tests", "conf", "*.in")):
            shutil.copy(f, os.path.join(OUT, "conf", os.path.basename(f)))
        shutil.copy(os.path.join(SRC, "etc", "chainwatch.conf.sample"),
                    os.path.join(OUT, "conf", "etc-chainwatch.conf"))
        for name, line in (("status", '{"cmd":"status"}'),
                           ("metrics", '{"cmd": "metrics"}\r'),
                           ("reload", '{"cmd":"reload"}'),
                           ("unknown", '{"cmd":"stop"}'),
                           ("extra", '{"cmd":"status","x":1}'),
                           ("dup", '{"cmd":"status","cmd":"reload"}'),
                           ("notobj", '["status"]')):
            write("control", name, line)
    finally:
        shutil.rmtree(tmp)


main()
