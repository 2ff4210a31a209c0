# src/cli.mk: chainwatch(1), the command-line view of the store.  (u512,
# which it shares with chainwatchd, is in libcw.a: see src/local.mk.)
bin_PROGRAMS += src/chainwatch
src_chainwatch_SOURCES = \
	src/chainwatch.c src/cli.h \
	src/cli_ctl.c src/cli_ctl.h \
	src/cli_daemon.c \
	src/cli_db.c \
	src/cli_reload.c \
	src/cli_fmt.c src/cli_fmt.h \
	src/cli_endpoints.c \
	src/cli_queue.c \
	src/cli_blocks.c \
	src/cli_standings.c \
	src/cli_status.c \
	src/cli_verify.c
src_chainwatch_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(JANSSON_CFLAGS) \
	$(INIH_CFLAGS)
src_chainwatch_LDADD = src/libcw.a $(SQLITE_LIBS) $(JANSSON_LIBS) \
	$(INIH_LIBS)
