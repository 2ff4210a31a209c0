# bench/ingest: head messages/s chainwatchd stores into SQLite, against the
# pipe's own ceiling (run by hand: bench/ingest.sh).  benchlib.c brings the
# worker's HTTP client along with its store reader.
noinst_PROGRAMS += bench/ingest
bench_ingest_SOURCES = bench/ingest.c bench/benchlib.c bench/benchlib.h
bench_ingest_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/workers -DBENCH_SQLITE
bench_ingest_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS) \
	$(MSGPACK_CFLAGS) $(SQLITE_CFLAGS)
bench_ingest_LDADD = $(WRK_IO_LIBS) $(MSGPACK_LIBS) $(SQLITE_LIBS)
EXTRA_DIST += bench/ingest.sh
