#!/bin/sh
# The supervisor in layers: its files call each other without cycles
# (layers.py reads who calls whom from chainwatchd's object files).
command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
exec python3 "$top_srcdir/tests/integration/layers.py" "$top_builddir"
