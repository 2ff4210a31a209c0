# libcwview.a: the store read-only, each chain's status and the control
# socket's client, for the programs that show what chainwatchd keeps:
# chainwatch (cli/) and chainwatch-metrics (metrics/).  A library of its
# own so that libcw.a, which the workers link, needs no SQLite.
noinst_LIBRARIES += src/libcwview.a
src_libcwview_a_SOURCES = src/view.h \
	src/view_db.c \
	src/u512_sql.c src/u512_sql.h \
	src/view_status.c \
	src/view_forks.c \
	src/view_fmt.c \
	src/view_standings.c \
	src/view_blocks.c \
	src/view_eps.c \
	src/view_history.c \
	src/view_ctl.c src/view_ctl.h
src_libcwview_a_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(JANSSON_CFLAGS)
VIEW_LIBS = src/libcwview.a src/libcw.a $(SQLITE_LIBS) $(JANSSON_LIBS)
