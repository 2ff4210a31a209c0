#!/bin/sh
# Run bench/devnode from a build directory: sh bench/devnode.sh (or with
# top_builddir set).  Prints the figures; the last line is for machines.
b=${top_builddir:-.}
[ -x "$b/bench/devnode" ] || { echo "build first: make bench/devnode" >&2; exit 2; }
exec "$b/bench/devnode" -d "$b/devnode/chainwatch-devnode" "$@"
