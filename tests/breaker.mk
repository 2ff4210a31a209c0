# The endpoint circuit breaker (supervisor/sup_breaker.c), linked alone.
check_PROGRAMS += tests/unit/test_breaker
tests_unit_test_breaker_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/supervisor
tests_unit_test_breaker_SOURCES = tests/unit/test_breaker.c \
	supervisor/sup_breaker.c supervisor/sup_breaker.h
tests_unit_test_breaker_LDADD = $(UNIT_LIBS)
TESTS += tests/unit/test_breaker
