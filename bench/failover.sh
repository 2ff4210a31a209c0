#!/bin/sh
# Run bench/failover from a build directory: sh bench/failover.sh (or with
# top_builddir set).  Prints the figures; the last line is for machines.
b=${top_builddir:-.}
[ -x "$b/bench/failover" ] || { echo "build first: make bench/failover" >&2; exit 2; }
exec "$b/bench/failover" -b "$b" "$@"
