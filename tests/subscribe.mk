# subscribe = primary: the rules of who holds a chain's one subscription
# (supervisor/sup_subs.c, linked alone), and the daemon moving it among
# three devnodes as the primary is killed, black-holed and silenced.
check_PROGRAMS += tests/unit/test_subs
tests_unit_test_subs_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/supervisor
tests_unit_test_subs_SOURCES = tests/unit/test_subs.c \
	supervisor/sup_subs.c supervisor/sup_subs.h
tests_unit_test_subs_LDADD = $(UNIT_LIBS)
TESTS += tests/unit/test_subs tests/integration/subscribe_primary.sh
EXTRA_DIST += tests/integration/subscribe_primary.sh
