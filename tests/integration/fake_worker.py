#!/usr/bin/python3
# A stand-in for chainwatch-worker that misbehaves on purpose, chosen by
# the prefix of its endpoint name (argv[1]).  It speaks the real protocol
# on fd 3 so that the supervisor's checks meet real packets.
import os
import socket
import struct
import sys
import time

MSG_MAX = 1024 * 1024
CONFIG, HELLO, HEARTBEAT = 1, 2, 3


def uint(v):
    if v < 0x80:
        return bytes([v])
    if v < 0x100:
        return b"\xcc" + bytes([v])
    if v < 0x10000:
        return b"\xcd" + struct.pack(">H", v)
    return b"\xce" + struct.pack(">I", v)


def string(s):
    b = s.encode()
    return bytes([0xa0 | len(b)]) + b


def message(mtype, gen, fields):
    body = bytes([0x80 | len(fields)])
    for k, v in fields.items():
        body += string(k) + uint(v)
    return b"\x93" + uint(mtype) + uint(gen) + body


def parse_gen(packet):
    # [1, gen, {...}]: 0x93, 0x01, then gen as a msgpack unsigned int.
    if packet[:2] != b"\x93\x01":
        sys.exit(101)
    tag = packet[2]
    if tag < 0x80:
        return tag
    size = {0xcc: 1, 0xcd: 2, 0xce: 4}[tag]
    return int.from_bytes(packet[3:3 + size], "big")


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "?"
    mode = name.split("-")[0]
    if mode == "setup":
        sys.exit(78)
    sock = socket.socket(fileno=3)
    gen = parse_gen(sock.recv(MSG_MAX))
    sock.send(message(HELLO, gen, {"pid": os.getpid()}))
    heartbeat = message(HEARTBEAT, gen, {"rss_kb": 1})
    bad = {
        "garbage": b"\xc1",
        "oversized": b"\x00" * (MSG_MAX + 1),
        "future": message(HEARTBEAT, gen + 1, {"rss_kb": 1}),
        "unknown": message(99, gen, {}),
        "config": message(CONFIG, gen, {}),
        "nofield": message(HEARTBEAT, gen, {}),
        "stale": message(HEARTBEAT, gen - 1, {"rss_kb": 1}),
    }.get(mode)
    deadline = time.time() + 30
    while time.time() < deadline:
        sock.send(heartbeat)
        time.sleep(0.2)
        if bad is not None:
            sock.send(bad)
    sys.exit(0)


if __name__ == "__main__":
    main()
