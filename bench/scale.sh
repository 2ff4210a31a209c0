#!/bin/sh
# Run bench/scale from a build directory: sh bench/scale.sh (or with
# top_builddir set).  Prints the figures; the last line is for machines.
b=${top_builddir:-.}
[ -x "$b/bench/scale" ] || { echo "build first: make bench/scale" >&2; exit 2; }
exec "$b/bench/scale" -b "$b" "$@"
