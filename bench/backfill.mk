# bench/backfill: blocks/s chainwatchd backfills from slowed devnodes (-l
# ms,...; -e endpoints), against its ceilings (run by hand: bench/backfill.sh).
noinst_PROGRAMS += bench/backfill
bench_backfill_SOURCES = bench/backfill.c bench/benchlib.c bench/benchlib.h \
	bench/watch.c bench/watch.h
bench_backfill_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/workers \
	-DBENCH_SQLITE
bench_backfill_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(SQLITE_CFLAGS) \
	$(JANSSON_CFLAGS)
bench_backfill_LDADD = $(WRK_IO_LIBS) $(SQLITE_LIBS)
EXTRA_DIST += bench/backfill.sh
