#!/bin/sh
# Run bench/worker from a build directory: sh bench/worker.sh (or with
# top_builddir set).  Prints the figures; the last line is for machines.
b=${top_builddir:-.}
[ -x "$b/bench/worker" ] || { echo "build first: make bench/worker" >&2; exit 2; }
exec "$b/bench/worker" -w "$b/workers/chainwatch-worker" \
    -d "$b/devnode/chainwatch-devnode" "$@"
