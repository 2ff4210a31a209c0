#!/bin/sh
# The failures of the chaos matrix that an endpoint's health must show,
# on the default timeouts and breaker settings and at Quantus's own 12 s
# blocks (issue 29), where the daemon asks an endpoint something only now
# and then: a refusing, resetting, black-holed, 503-answering or malformed preferred
# endpoint must be shown degraded, named with the right class, within
# 5 s all the same (times CW_WAIT_FACTOR, as chaos.sh's bounds).
# The state waits are printed, not judged: at 12 s blocks a block's live
# read, moved to d2 the moment d1 failed, now and then goes unanswered
# until its lease ends 4 s later (seen in malformed and down; chaos.sh
# judges them at 1 s blocks).  "down" reaches its statuses in 2-3 s here
# too; CHAOS_ONLY=down runs it.
# The plain build measures it: timing on the settings users run.
if [ "$CW_SANITIZED" = yes ] && [ -z "$CW_CHAOS_DEFAULTS" ]; then
	echo "SKIP: the plain build's run measures the defaults" \
	    "(CW_CHAOS_DEFAULTS=1 runs it here too)"
	exit 77
fi
CHAOS_TIMEOUTS=default
CHAOS_BLOCK_MS=12000
CHAOS_ONLY=${CHAOS_ONLY:-"refuse reset blackhole 503 malformed"}
CHAOS_WAIT_BOUND=no
export CHAOS_TIMEOUTS CHAOS_BLOCK_MS CHAOS_ONLY CHAOS_WAIT_BOUND
exec /bin/sh "$top_srcdir/tests/integration/chaos.sh"
