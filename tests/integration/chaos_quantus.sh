#!/bin/sh
# The failures of the chaos matrix that an endpoint's health must show,
# on the default timeouts and breaker settings and at Quantus's own 12 s
# blocks (issue 29), where the daemon asks an endpoint something only now
# and then: a refusing, resetting or black-holed preferred endpoint must
# be shown degraded, named with the right class, within chaos.sh's bound
# all the same (10 s times CW_WAIT_FACTOR; the 5 s promise is measured by
# bench/chaos.sh).  The other scenarios at
# 12 s (503, malformed, 429, slow, ws_drop, ws_silent, wrong_genesis,
# pruned, down, sigstop; 20-50 s each) are bench/chaos.sh's, which prints
# the figures of every one: CHAOS_ONLY picks them here too.
# The state waits are printed, not judged (chaos.sh judges them at 1 s
# blocks; bench/chaos.sh prints them at 12 s).
# The plain build measures it: timing on the settings users run.
if [ "$CW_SANITIZED" = yes ] && [ -z "$CW_CHAOS_DEFAULTS" ]; then
	echo "SKIP: the plain build's run measures the defaults" \
	    "(CW_CHAOS_DEFAULTS=1 runs it here too)"
	exit 77
fi
CHAOS_TIMEOUTS=default
CHAOS_BLOCK_MS=12000
CHAOS_ONLY=${CHAOS_ONLY:-"refuse reset blackhole"}
CHAOS_WAIT_BOUND=no
export CHAOS_TIMEOUTS CHAOS_BLOCK_MS CHAOS_ONLY CHAOS_WAIT_BOUND
exec /bin/sh "$top_srcdir/tests/integration/chaos.sh"
