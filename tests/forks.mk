# tests/forks.mk: forks between endpoints with a real daemon and two
# devnodes of one seed, one of them split (the unit test of src/forks.c
# is in tests/local.mk).
FORKS_TESTS = tests/integration/trust_forks.sh
TESTS += $(FORKS_TESTS)
EXTRA_DIST += $(FORKS_TESTS)
