# bench/failover: p50/p99 state-read and head-to-row latency with the
# preferred endpoint black-holed, as ratios to the same run's healthy
# phase (run by hand: bench/failover.sh).
noinst_PROGRAMS += bench/failover
bench_failover_SOURCES = bench/failover.c bench/benchlib.c bench/benchlib.h
bench_failover_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/workers \
	-DBENCH_SQLITE
bench_failover_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(SQLITE_CFLAGS) \
	$(JANSSON_CFLAGS)
bench_failover_LDADD = $(WRK_IO_LIBS) $(SQLITE_LIBS)
EXTRA_DIST += bench/failover.sh
