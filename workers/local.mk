# workers/: chainwatch-worker, one process per endpoint.
libexec_PROGRAMS += workers/chainwatch-worker
workers_chainwatch_worker_SOURCES = workers/wrk_main.c workers/wrk.h \
	workers/wrk_ep.c workers/wrk_sandbox.c workers/wrk_sandbox.h
workers_chainwatch_worker_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS) \
	$(CURL_CFLAGS) $(JANSSON_CFLAGS) $(SODIUM_CFLAGS) $(SECCOMP_CFLAGS)
workers_chainwatch_worker_LDADD = $(WRK_IO_LIBS) $(MSGPACK_LIBS) \
	$(SODIUM_LIBS) $(XXHASH_LIBS) $(SECCOMP_LIBS)

include workers/io.mk
