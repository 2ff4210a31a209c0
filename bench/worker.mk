# bench/worker: headers/s of one chainwatch-worker against one devnode, as
# a ratio of the devnode's own ceiling (run by hand: bench/worker.sh).
noinst_PROGRAMS += bench/worker
bench_worker_SOURCES = bench/worker.c bench/benchlib.c bench/benchlib.h
bench_worker_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/workers
bench_worker_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(MSGPACK_CFLAGS) \
	$(JANSSON_CFLAGS)
bench_worker_LDADD = $(WRK_IO_LIBS) $(MSGPACK_LIBS)
EXTRA_DIST += bench/worker.sh
