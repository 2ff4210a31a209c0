#!/usr/bin/env python3
"""The supervisor's files call each other without cycles, and only down
the intended order of layers (ORDER).

Reads the symbols of chainwatchd's object files with nm: a file that
leaves a function undefined which another file defines calls that file.
(Data is not a call: the daemon's globals in chainwatchd.c, the list of
workers in sup_spawn.c, are read by files below them.)  Prints the
layers, lowest first, and exits 1 naming the files of any cycle, any
call that goes up or sideways in ORDER, and any file ORDER does not
list exactly once.
Usage: layers.py BUILDDIR
"""
import glob
import os
import subprocess
import sys


# The intended layers, top first: a file calls only files of the layers
# below its own.  A new file is placed here (supervisor/local.mk says why
# each layer is where it is).
ORDER = [
    ["chainwatchd.c"],
    ["sup_control.c"],
    ["sup_reload.c"],
    ["sup_metrics.c"],
    ["sup_spawn.c"],
    ["sup_dispatch.c"],
    # The scheduler: answers and the tick over endpoint judging, over
    # requests and leases, over the workers' load.
    ["sup_reply.c", "sup_snapshot.c", "sup_tick.c"],
    ["sup_judge.c"],
    ["sup_sched.c"],
    ["sup_load.c"],
    ["sup_primary.c"],
    ["sup_health.c"],
    # The chain module, its entry points first.
    ["sup_chain.c"],
    ["sup_cross.c", "sup_retarget.c"],
    ["sup_time.c"],
    ["sup_claim.c"],
    ["sup_choice.c"],
    ["sup_final.c"],
    ["sup_block.c", "sup_window.c"],
    ["sup_child.c", "sup_endpoint.c", "sup_forks.c", "sup_queue.c",
     "sup_seal.c", "sup_standing.c"],
    # Pure machines and checks, and the channels.
    ["sup_answer.c", "sup_backlog.c", "sup_breaker.c", "sup_chan.c",
     "sup_ctlreq.c", "sup_depth.c", "sup_fork.c", "sup_fsm.c", "sup_lease.c",
     "sup_overdue.c", "sup_reload_result.c", "sup_route.c", "sup_stats.c",
     "sup_subs.c"],
    ["sup_store_file.c"],
    ["sup_store.c"],
    ["sup_wal.c"],
]


def order_errors(calls):
    """Calls that do not go down ORDER, and files not listed once."""
    level, errs = {}, []
    for i, layer in enumerate(ORDER):
        for f in layer:
            if f in level:
                errs.append("%s is listed twice in ORDER" % f)
            level[f] = i
    for f in sorted(calls):
        if f not in level:
            errs.append("%s is not in ORDER" % f)
    for f in sorted(set(level) - set(calls)):
        errs.append("%s is in ORDER but not built" % f)
    for f in sorted(calls):
        for g in calls[f]:
            if f in level and g in level and level[g] <= level[f]:
                errs.append("%s calls %s, which is not below it" % (f, g))
    return errs


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
    errs = order_errors(calls)
    for e in errs:
        print("order: " + e)
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
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
