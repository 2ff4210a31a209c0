# bench/ingest: head messages/s chainwatchd stores into SQLite, against the
# pipe's own ceiling (run by hand: bench/ingest.sh).
noinst_PROGRAMS += bench/ingest
bench_ingest_SOURCES = bench/ingest.c
bench_ingest_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS) $(SQLITE_CFLAGS)
bench_ingest_LDADD = src/libcw.a $(MSGPACK_LIBS) $(SQLITE_LIBS)
EXTRA_DIST += bench/ingest.sh
