#!/usr/bin/env python3
"""The supervisor's files call each other without cycles.

Reads the symbols of chainwatchd's object files with nm: a file that
leaves a function undefined which another file defines calls that file.
(Data is not a call: the daemon's globals in chainwatchd.c, the list of
workers in sup_spawn.c, are read by files below them.)  Prints the
layers, lowest first, and exits 1 naming the files of any cycle.
Usage: layers.py BUILDDIR
"""
import glob
import os
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", obj], check=True, capture_output=True,
                         text=True).stdout
    defined, wanted = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            wanted.add(f[1])
        elif len(f) == 3 and f[1] == "T":
            defined.add(f[2])
    return defined, wanted


def main():
    objs = sorted(glob.glob(os.path.join(sys.argv[1], "supervisor",
                                         "chainwatchd-*.o")))
    if not objs:
        print("no chainwatchd objects under", sys.argv[1])
        return 1
    name = {o: os.path.basename(o)[len("chainwatchd-"):-2] + ".c"
            for o in objs}
    syms = {name[o]: symbols(o) for o in objs}
    owner = {}
    for f, (defined, _) in syms.items():
        for s in defined:
            owner[s] = f
    calls = {f: sorted({owner[s] for s in wanted if s in owner} - {f})
             for f, (_, wanted) in syms.items()}
    # Peel off files that call nothing left, layer by layer.
    left, layers = set(calls), []
    while left:
        layer = sorted(f for f in left if not set(calls[f]) & left)
        if not layer:
            break
        layers.append(layer)
        left -= set(layer)
    for i, layer in enumerate(layers):
        print("layer %d: %s" % (i, " ".join(layer)))
    if left:
        # What remains holds at least one cycle: show it.
        start = sorted(left)[0]
        path, f = [start], start
        while True:
            f = sorted(set(calls[f]) & left)[0]
            if f in path:
                cycle = path[path.index(f):] + [f]
                break
            path.append(f)
        print("cycle: " + " -> ".join(cycle))
        for f in sorted(left):
            print("  %s calls %s" % (f, ", ".join(
                g for g in calls[f] if g in left)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
