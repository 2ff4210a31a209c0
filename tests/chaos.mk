# The chaos matrix of endpoint faults against one chainwatchd and three
# devnodes (issue 6): every scenario, its figures, and what must hold.
CHAOS_TESTS = tests/integration/chaos.sh tests/integration/unresponsive.sh
TESTS += $(CHAOS_TESTS)
EXTRA_DIST += $(CHAOS_TESTS) tests/integration/chaos_check.py
