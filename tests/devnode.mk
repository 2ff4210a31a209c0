# tests for devnode: integration scripts against a real chainwatch-devnode
# (curl for HTTP, /usr/bin/python3 with python3-websockets for WebSocket;
# the WebSocket ones skip with 77 without it).
DEVNODE_TESTS = \
	tests/integration/devnode_selftest.sh \
	tests/integration/devnode_rpc.sh \
	tests/integration/devnode_redundant.sh \
	tests/integration/devnode_reorg.sh \
	tests/integration/devnode_pruning.sh \
	tests/integration/devnode_faults_http.sh \
	tests/integration/devnode_faults_ws.sh \
	tests/integration/devnode_backlog.sh \
	tests/integration/devnode_lies.sh \
	tests/integration/devnode_sigterm_ws.sh
TESTS += $(DEVNODE_TESTS)
EXTRA_DIST += $(DEVNODE_TESTS) \
	tests/integration/devnode_lib.sh \
	tests/integration/devnode_client.py \
	tests/integration/devnode_lies.py \
	tests/integration/devnode_ws_many.py
