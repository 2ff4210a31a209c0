#!/bin/sh
# Run bench/ingest from a build directory: sh bench/ingest.sh (or with
# top_builddir set).  Prints the figures; the last line is for machines.
b=${top_builddir:-.}
[ -x "$b/bench/ingest" ] || { echo "build first: make bench/ingest" >&2; exit 2; }
"$b/bench/ingest" -d "$b/supervisor/chainwatchd" -e 1 "$@" &&
    "$b/bench/ingest" -d "$b/supervisor/chainwatchd" -e 3 "$@"
