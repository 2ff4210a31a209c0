# tests/control.mk: chainwatchd's control socket (sup_control.c linked
# alone), chainwatch reload without a daemon, and both against a daemon
# on devnodes.
check_PROGRAMS += tests/unit/test_control tests/unit/test_cli_reload
tests_unit_test_control_CFLAGS = $(UNIT_CFLAGS) $(JANSSON_CFLAGS) \
	-I$(top_srcdir)/supervisor
tests_unit_test_control_SOURCES = tests/unit/test_control.c \
	supervisor/sup_ctlreq.c \
	supervisor/sup_control.c supervisor/sup_reload_result.c
tests_unit_test_control_LDADD = $(UNIT_LIBS) $(EV_LIBS) $(JANSSON_LIBS)
tests_unit_test_cli_reload_CFLAGS = $(UNIT_CFLAGS) $(JANSSON_CFLAGS) \
	$(SQLITE_CFLAGS) -I$(top_srcdir)/cli
tests_unit_test_cli_reload_SOURCES = tests/unit/test_cli_reload.c \
	cli/cli_reload.c cli/cli_daemon.c cli/cli_fmt.c
tests_unit_test_cli_reload_LDADD = $(VIEW_LIBS) $(UNIT_LIBS)
TESTS += tests/unit/test_control tests/unit/test_cli_reload

TESTS += tests/integration/cli_reload.sh
EXTRA_DIST += tests/integration/cli_reload.sh tests/integration/ctl_client.py
