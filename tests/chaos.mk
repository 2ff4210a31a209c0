# The chaos matrix of endpoint faults against one chainwatchd and three
# devnodes (issue 6): every scenario, its figures, and what must hold;
# again on the default timeouts (chaos_defaults.sh, issue 13), and on them
# at Quantus's 12 s blocks (chaos_quantus.sh, issue 29).
CHAOS_TESTS = tests/integration/chaos.sh tests/integration/chaos_defaults.sh \
	tests/integration/chaos_quantus.sh \
	tests/integration/unresponsive.sh
TESTS += $(CHAOS_TESTS)
EXTRA_DIST += $(CHAOS_TESTS) tests/integration/chaos_check.py
