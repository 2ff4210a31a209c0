#!/bin/sh
# Run bench/backfill from a build directory: sh bench/backfill.sh (or with
# top_builddir set).  Prints the figures; the last line is for machines.
b=${top_builddir:-.}
[ -x "$b/bench/backfill" ] || { echo "build first: make bench/backfill" >&2; exit 2; }
exec "$b/bench/backfill" -b "$b" "$@"
