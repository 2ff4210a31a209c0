# cli/: chainwatch(1), the command-line view of the store.  It reads the
# store and asks the daemon through libcwview.a (src/view.mk), as
# chainwatch-metrics does; what is here is the command line and the text.
bin_PROGRAMS += cli/chainwatch
cli_chainwatch_SOURCES = \
	cli/chainwatch.c cli/cli.h \
	cli/cli_daemon.c \
	cli/cli_reload.c \
	cli/cli_fmt.c cli/cli_fmt.h \
	cli/cli_endpoints.c \
	cli/cli_queue.c \
	cli/cli_blocks.c \
	cli/cli_forks.c \
	cli/cli_standings.c \
	cli/cli_status.c \
	cli/cli_verify.c
cli_chainwatch_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(JANSSON_CFLAGS) \
	$(INIH_CFLAGS)
cli_chainwatch_LDADD = $(VIEW_LIBS) $(INIH_LIBS)
