# metrics/: chainwatch-metrics, the Prometheus exposition and /health,
# started by chainwatchd.  It judges the store with the CLI's own code
# (cli_status_json and what that needs), so both say the same.
libexec_PROGRAMS += metrics/chainwatch-metrics
metrics_chainwatch_metrics_SOURCES = metrics/mtr.h \
	metrics/mtr_main.c \
	metrics/mtr_gather.c \
	metrics/mtr_expo.c \
	metrics/mtr_health.c \
	metrics/mtr_http.c \
	cli/cli_ctl.c cli/cli_ctl.h \
	cli/cli_daemon.c \
	cli/cli_db.c \
	cli/cli_fmt.c cli/cli_fmt.h \
	cli/cli_status.c
metrics_chainwatch_metrics_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/cli \
	$(MHD_CFLAGS) $(SQLITE_CFLAGS) $(JANSSON_CFLAGS) $(INIH_CFLAGS)
metrics_chainwatch_metrics_LDADD = src/libcw.a $(MHD_LIBS) $(SQLITE_LIBS) \
	$(JANSSON_LIBS) $(INIH_LIBS) -lpthread -lm
