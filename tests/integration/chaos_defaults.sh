#!/bin/sh
# The chaos matrix of chaos.sh on the DEFAULT timeouts and breaker
# settings (request_timeout 10 s, breaker_min_span 10 s, hedge_after 1 s,
# none set in its configuration): every scenario must reach the right
# status within chaos.sh's bound all the same (issue 13; the 5 s promise
# is bench/chaos.sh's figure), through the unresponsive
# rule and the breaker's peer rule rather than short timeouts.
# Its point is timing on the settings users run, which the plain build
# measures; chaos.sh runs the same scenarios under the sanitizers.
if [ "$CW_SANITIZED" = yes ] && [ -z "$CW_CHAOS_DEFAULTS" ]; then
	echo "SKIP: the plain build's run measures the defaults" \
	    "(CW_CHAOS_DEFAULTS=1 runs it here too)"
	exit 77
fi
CHAOS_TIMEOUTS=default
export CHAOS_TIMEOUTS
exec /bin/sh "$top_srcdir/tests/integration/chaos.sh"
