# tests/cli.mk: u512, and chainwatch(1) against stores built with the real
# schema (mkschema prints it) and crafted with sqlite3.
check_PROGRAMS += tests/unit/test_u512
tests_unit_test_u512_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_u512_LDADD = src/libcw.a $(CMOCKA_LIBS)
TESTS += tests/unit/test_u512

check_PROGRAMS += tests/unit/test_hashrate
tests_unit_test_hashrate_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_hashrate_LDADD = src/libcw.a $(CMOCKA_LIBS)
TESTS += tests/unit/test_hashrate

# When an endpoint is behind or stuck (view_status.c), at any block time.
check_PROGRAMS += tests/unit/test_view_lag
tests_unit_test_view_lag_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) \
	$(SQLITE_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_test_view_lag_LDADD = $(VIEW_LIBS) $(CMOCKA_LIBS)
TESTS += tests/unit/test_view_lag

check_PROGRAMS += tests/integration/mkschema
tests_integration_mkschema_LDADD = src/libcw.a $(SODIUM_LIBS) \
	$(XXHASH_LIBS)

CLI_TESTS = \
	tests/integration/cli_standings.sh \
	tests/integration/cli_verify.sh \
	tests/integration/cli_open.sh \
	tests/integration/cli_status.sh \
	tests/integration/cli_status_live.sh \
	tests/integration/cli_views.sh
TESTS += $(CLI_TESTS)
EXTRA_DIST += $(CLI_TESTS) tests/integration/cli_lib.sh
