# supervisor/: chainwatchd, which runs the workers and owns the store.
sbin_PROGRAMS += supervisor/chainwatchd
supervisor_chainwatchd_SOURCES = \
	supervisor/chainwatchd.c \
	supervisor/sup.h \
	supervisor/sup_chain.c \
	supervisor/sup_control.c \
	supervisor/sup_dispatch.c \
	supervisor/sup_breaker.c supervisor/sup_breaker.h \
	supervisor/sup_fsm.c supervisor/sup_fsm.h \
	supervisor/sup_health.c \
	supervisor/sup_lease.c \
	supervisor/sup_metrics.c \
	supervisor/sup_queue.c \
	supervisor/sup_reload.c \
	supervisor/sup_reload_result.c \
	supervisor/sup_spawn.c \
	supervisor/sup_stats.c \
	supervisor/sup_store.c
supervisor_chainwatchd_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS) \
	$(SQLITE_CFLAGS) $(INIH_CFLAGS) $(JANSSON_CFLAGS)
supervisor_chainwatchd_LDADD = src/libcw.a $(MSGPACK_LIBS) $(SQLITE_LIBS) \
	$(INIH_LIBS) $(EV_LIBS) $(JANSSON_LIBS) $(SODIUM_LIBS) $(XXHASH_LIBS)
