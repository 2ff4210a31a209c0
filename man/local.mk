# man/: one page per program, plus the configuration file.  Pages that
# name installation paths are made from .in files by $(edit).
GEN_MANS = man/chainwatchd.8 man/chainwatch-worker.8 man/chainwatch.conf.5
man_MANS = $(GEN_MANS)
EXTRA_DIST += man/chainwatchd.8.in man/chainwatch-worker.8.in \
	man/chainwatch.conf.5.in
CLEANFILES += $(GEN_MANS)

man/chainwatchd.8: $(srcdir)/man/chainwatchd.8.in paths.stamp
	$(AM_V_GEN)$(MKDIR_P) man && $(edit) $(srcdir)/man/chainwatchd.8.in >$@
man/chainwatch-worker.8: $(srcdir)/man/chainwatch-worker.8.in paths.stamp
	$(AM_V_GEN)$(MKDIR_P) man && $(edit) $(srcdir)/man/chainwatch-worker.8.in >$@
man/chainwatch.conf.5: $(srcdir)/man/chainwatch.conf.5.in paths.stamp
	$(AM_V_GEN)$(MKDIR_P) man && $(edit) $(srcdir)/man/chainwatch.conf.5.in >$@

include man/devnode.mk
include man/cli.mk
include man/metrics.mk
