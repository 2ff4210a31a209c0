# etc/: the sample configuration, the LSB init script and the systemd unit.
# The script and the unit name installation paths, filled in by $(edit).
dist_doc_DATA = etc/chainwatch.conf.sample README.md
initddir = $(sysconfdir)/init.d
initd_SCRIPTS = etc/init.d/chainwatch
systemdunitdir = $(prefix)/lib/systemd/system
systemdunit_DATA = etc/chainwatch.service
EXTRA_DIST += etc/init.d/chainwatch.in etc/chainwatch.service.in
CLEANFILES += etc/init.d/chainwatch etc/chainwatch.service

etc/init.d/chainwatch: $(srcdir)/etc/init.d/chainwatch.in paths.stamp
	$(AM_V_GEN)$(MKDIR_P) etc/init.d && \
	$(edit) $(srcdir)/etc/init.d/chainwatch.in >$@ && chmod +x $@
etc/chainwatch.service: $(srcdir)/etc/chainwatch.service.in paths.stamp
	$(AM_V_GEN)$(MKDIR_P) etc && $(edit) $(srcdir)/etc/chainwatch.service.in >$@

# The configuration directory and the store's directory; an existing
# chainwatch.conf is never overwritten.
install-data-local:
	$(MKDIR_P) $(DESTDIR)$(sysconfdir)/chainwatch
	$(MKDIR_P) $(DESTDIR)$(localstatedir)/lib/chainwatch
	$(MKDIR_P) $(DESTDIR)$(runstatedir)
	if [ ! -f $(DESTDIR)$(sysconfdir)/chainwatch/chainwatch.conf ]; then \
		$(INSTALL_DATA) $(srcdir)/etc/chainwatch.conf.sample \
		    $(DESTDIR)$(sysconfdir)/chainwatch/chainwatch.conf; \
	fi

# The configuration goes only if it is still the untouched sample.
uninstall-local:
	if cmp -s $(srcdir)/etc/chainwatch.conf.sample \
	    $(DESTDIR)$(sysconfdir)/chainwatch/chainwatch.conf; then \
		rm -f $(DESTDIR)$(sysconfdir)/chainwatch/chainwatch.conf; \
	fi

# Prometheus alert rules and a Grafana dashboard, to copy or point at:
# see chainwatch-metrics(8).
dist_pkgdata_DATA = etc/prometheus/chainwatch.rules.yml \
	etc/grafana/chainwatch.json \
	etc/openapi.json
EXTRA_DIST += etc/prometheus/chainwatch.rules.test.yml
