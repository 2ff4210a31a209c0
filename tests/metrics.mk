# tests/metrics.mk: chainwatch-metrics alone (a crafted store and a fake
# control socket), then under chainwatchd with devnodes and faults.
METRICS_TESTS = \
	tests/integration/metrics_render.sh \
	tests/integration/metrics.sh \
	tests/integration/metrics_large_store.sh \
	tests/integration/hashrate.sh \
	tests/integration/status_page.sh \
	tests/integration/api.sh
TESTS += $(METRICS_TESTS)
# status_page.sh keeps its screenshots in the build tree, for people.
CLEANFILES += tests/status_page.png tests/status_page_phone.png
EXTRA_DIST += $(METRICS_TESTS) \
	tests/integration/promparse.py \
	tests/integration/bigstore.sh \
	tests/integration/pagecheck.py \
	tests/integration/fake_ctl.py \
	tests/integration/slow_client.py \
	tests/integration/openapi_check.py
# The alert rules (promtool) and the Grafana dashboard against a scrape.
TESTS += tests/integration/alerts.sh
EXTRA_DIST += tests/integration/alerts.sh tests/integration/promnames.py \
	tests/integration/alerts_live.py
