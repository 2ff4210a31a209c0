#!/usr/bin/python3
# The arithmetic of bench/soak.sh (python3 standard library only): the
# seeded schedule of faults it runs, and the judgement of its samples at
# the end (bounds, least-squares slopes, summary table, SVG chart).
#   soak.py schedule SEED SECONDS     one fault a line: KIND TARGET ARG HOLD GAP
#   soak.py judge DIR SECONDS         reads DIR/samples.csv, faults.csv, ...
import csv
import math
import random
import sys

# Every fault the soak brings, one per deck; a deck is shuffled and dealt
# whole before the next, so a run long enough for one deck has them all.
# TARGET d = a devnode, e = an endpoint (its worker), - = none.
DEVNODE_FAULTS = [
    "blackhole", "refuse", "http_503@http", "slow:1500", "rate_limit",
    "malformed", "truncated", "oversized:16", "ws_drop@ws", "ws_silent@ws",
    "stall", "lag:40", "wrong_genesis", "batch_limit:4",
    # the lies
    "split", "forge_head", "forge_chain:64", "bad_number:50",
    "finalized_off", "wrong_header", "wrong_count:0", "wrong_count:1",
    "wrong_count:2",
]
PROCESS_FAULTS = [
    ("kill_worker", "e"), ("kill_daemon", "-"), ("stop_worker", "e"),
    ("stop_devnode", "d"), ("hup_endpoint", "-"), ("hup_endpoint", "-"),
    ("hup_change", "e"), ("write_lock", "-"), ("disk_full", "-"),
]


def holds(seconds):
    """The base hold h of a fault for a run of that many seconds: a fault
    lasts h to 2h, and the quiet after it h/2 to h."""
    return max(2.0, min(15.0, seconds / 100.0))


def schedule(seed, seconds):
    rng = random.Random("soak:%s" % seed)
    h = holds(seconds)
    deck = [("fault", "d", f) for f in DEVNODE_FAULTS] + \
        [(k, t, "-") for k, t in PROCESS_FAULTS]
    out = []
    # Enough for any run: the shell stops dealing when its time is up.
    total = 0.0
    while total < seconds:
        cards = deck[:]
        rng.shuffle(cards)
        for kind, target, arg in cards:
            if target == "d":
                tgt = "d%d" % rng.randint(1, 3)
            elif target == "e":
                tgt = "e%d" % rng.randint(1, 3)
            else:
                tgt = "-"
            hold = round(rng.uniform(h, 2 * h), 1)
            if kind == "write_lock":
                hold = 10.0
            elif kind in ("kill_worker", "hup_endpoint", "hup_change"):
                hold = round(rng.uniform(1, 3), 1)
            elif kind == "kill_daemon":
                hold = round(rng.uniform(1, 3), 1)	# down before restart
            gap = round(rng.uniform(h / 2, h), 1)
            out.append("%s %s %s %s %s" % (kind, tgt, arg, hold, gap))
            total += hold + gap
    return out


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "schedule":
        for line in schedule(sys.argv[2], float(sys.argv[3])):
            print(line)
        return 0
    sys.stderr.write("usage: soak.py schedule SEED SECONDS | "
                     "judge DIR SECONDS\n")
    return 2


if __name__ == "__main__":
    sys.exit(main())
