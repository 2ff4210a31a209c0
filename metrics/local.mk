# metrics/: chainwatch-metrics, the Prometheus exposition and /health,
# started by chainwatchd.  It judges the store with libcwview.a, as
# chainwatch status does, so both say the same.
libexec_PROGRAMS += metrics/chainwatch-metrics
metrics_chainwatch_metrics_SOURCES = metrics/mtr.h \
	metrics/mtr_main.c \
	metrics/mtr_gather.c \
	metrics/mtr_expo.c \
	metrics/mtr_health.c \
	metrics/mtr_page.c \
	metrics/mtr_api.c \
	metrics/mtr_apicache.h \
	metrics/mtr_apicache.c \
	metrics/mtr_http.c
metrics_chainwatch_metrics_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) \
	$(SQLITE_CFLAGS) $(JANSSON_CFLAGS) $(MSGPACK_CFLAGS) $(SECCOMP_CFLAGS)
metrics_chainwatch_metrics_LDADD = src/libcwhttp.a $(VIEW_LIBS) $(MHD_LIBS) \
	$(SECCOMP_LIBS) $(MSGPACK_LIBS) $(SODIUM_LIBS) $(XXHASH_LIBS) \
	-lpthread -lm
