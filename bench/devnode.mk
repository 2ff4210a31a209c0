# bench/devnode: requests/s of chainwatch-devnode and its start time with
# Planck's height of backlog (run by hand: bench/devnode.sh).
noinst_PROGRAMS += bench/devnode
bench_devnode_SOURCES = bench/devnode.c
bench_devnode_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS)
bench_devnode_LDADD = $(CURL_LIBS)
EXTRA_DIST += bench/devnode.sh
