# man/metrics.mk: chainwatch-metrics(8), which names installation paths.
man_MANS += man/chainwatch-metrics.8
EXTRA_DIST += man/chainwatch-metrics.8.in
CLEANFILES += man/chainwatch-metrics.8

man/chainwatch-metrics.8: $(srcdir)/man/chainwatch-metrics.8.in paths.stamp
	$(AM_V_GEN)$(MKDIR_P) man && $(edit) $(srcdir)/man/chainwatch-metrics.8.in >$@
