# bench/scale: one chain through E endpoints (-e 200,1000,2000,5000):
# time until all are ready, PSS, the supervisor's CPU, heads per second
# (run by hand: bench/scale.sh).
noinst_PROGRAMS += bench/scale
bench_scale_SOURCES = bench/scale.c bench/benchlib.c bench/benchlib.h
bench_scale_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/workers \
	-DBENCH_SQLITE
bench_scale_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(SQLITE_CFLAGS) \
	$(JANSSON_CFLAGS)
bench_scale_LDADD = $(WRK_IO_LIBS) $(SQLITE_LIBS)
EXTRA_DIST += bench/scale.sh
