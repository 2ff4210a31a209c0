# cli/: chainwatch(1), the command-line view of the store.  (u512, which
# it shares with chainwatchd, is in libcw.a: see src/local.mk.)
bin_PROGRAMS += cli/chainwatch
cli_chainwatch_SOURCES = \
	cli/chainwatch.c cli/cli.h \
	cli/cli_ctl.c cli/cli_ctl.h \
	cli/cli_daemon.c \
	cli/cli_db.c \
	cli/cli_reload.c \
	cli/cli_fmt.c cli/cli_fmt.h \
	cli/cli_endpoints.c \
	cli/cli_queue.c \
	cli/cli_blocks.c \
	cli/cli_standings.c \
	cli/cli_status.c \
	cli/cli_verify.c
cli_chainwatch_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(JANSSON_CFLAGS) \
	$(INIH_CFLAGS)
cli_chainwatch_LDADD = src/libcw.a $(SQLITE_LIBS) $(JANSSON_LIBS) \
	$(INIH_LIBS)
