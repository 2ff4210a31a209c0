# tests for the worker's network I/O (workers/libwrk.a): unit tests of the
# pure parts, and integration tests against local python3 servers.
WRK_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/workers
WRK_TEST_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS)

check_PROGRAMS += tests/unit/test_wrk_rpc tests/unit/test_wrk_ws \
	tests/unit/test_wrk_sub
TESTS += tests/unit/test_wrk_rpc tests/unit/test_wrk_ws \
	tests/unit/test_wrk_sub
tests_unit_test_wrk_rpc_SOURCES = tests/unit/test_wrk_rpc.c
tests_unit_test_wrk_rpc_CPPFLAGS = $(WRK_TEST_CPPFLAGS)
tests_unit_test_wrk_rpc_CFLAGS = $(WRK_TEST_CFLAGS)
tests_unit_test_wrk_rpc_LDADD = $(WRK_IO_LIBS) $(CMOCKA_LIBS)
tests_unit_test_wrk_ws_SOURCES = tests/unit/test_wrk_ws.c
tests_unit_test_wrk_ws_CPPFLAGS = $(WRK_TEST_CPPFLAGS)
tests_unit_test_wrk_ws_CFLAGS = $(WRK_TEST_CFLAGS)
tests_unit_test_wrk_ws_LDADD = $(WRK_IO_LIBS) $(CMOCKA_LIBS)
tests_unit_test_wrk_sub_SOURCES = tests/unit/test_wrk_sub.c
tests_unit_test_wrk_sub_CPPFLAGS = $(WRK_TEST_CPPFLAGS)
tests_unit_test_wrk_sub_CFLAGS = $(WRK_TEST_CFLAGS)
tests_unit_test_wrk_sub_LDADD = $(WRK_IO_LIBS) $(CMOCKA_LIBS)

# integration: test programs, python3 servers, and the scripts that run
# them.  The programs share wrk_client.c (through a library, so that each
# needs only its flags), the scripts wrk_lib.sh.
check_LIBRARIES = tests/integration/libwrkclient.a
tests_integration_libwrkclient_a_SOURCES = tests/integration/wrk_client.c \
	tests/integration/wrk_client.h
tests_integration_libwrkclient_a_CPPFLAGS = $(WRK_TEST_CPPFLAGS)
tests_integration_libwrkclient_a_CFLAGS = $(WRK_TEST_CFLAGS)
WRK_CLIENT_LIBS = tests/integration/libwrkclient.a $(WRK_IO_LIBS)

check_PROGRAMS += tests/integration/wrk_http_client \
	tests/integration/wrk_ws_client tests/integration/wrk_sub_client
tests_integration_wrk_http_client_CPPFLAGS = $(WRK_TEST_CPPFLAGS)
tests_integration_wrk_http_client_CFLAGS = $(WRK_TEST_CFLAGS)
tests_integration_wrk_http_client_LDADD = $(WRK_CLIENT_LIBS)
tests_integration_wrk_ws_client_CPPFLAGS = $(WRK_TEST_CPPFLAGS)
tests_integration_wrk_ws_client_CFLAGS = $(WRK_TEST_CFLAGS)
tests_integration_wrk_ws_client_LDADD = $(WRK_CLIENT_LIBS)
tests_integration_wrk_sub_client_CPPFLAGS = $(WRK_TEST_CPPFLAGS)
tests_integration_wrk_sub_client_CFLAGS = $(WRK_TEST_CFLAGS)
tests_integration_wrk_sub_client_LDADD = $(WRK_CLIENT_LIBS)

TESTS += tests/integration/http_faults.sh tests/integration/ws_conformance.sh \
	tests/integration/ws_sub.sh
EXTRA_DIST += tests/integration/wrk_lib.sh \
	tests/integration/http_faults.sh tests/integration/wrk_http_server.py \
	tests/integration/ws_conformance.sh tests/integration/ws_server.py \
	tests/integration/ws_sub.sh

# the same clients against chainwatch-devnode (skipped until it is built)
TESTS += tests/integration/http_devnode.sh tests/integration/ws_devnode.sh
EXTRA_DIST += tests/integration/http_devnode.sh \
	tests/integration/ws_devnode.sh

# The worker itself (chainwatch-worker) against the devnode's faults, and
# with a format that does not fit the node's headers.
TESTS += tests/integration/wrk_faults.sh tests/integration/wrk_format.sh
EXTRA_DIST += tests/integration/wrk_faults.sh tests/integration/wrk_format.sh

# The worker's sandbox: a real daemon's workers run under it, and
# sandbox_probe applies it and tries what it forbids (tests/integration/).
check_PROGRAMS += tests/integration/sandbox_probe
tests_integration_sandbox_probe_SOURCES = tests/integration/sandbox_probe.c \
	workers/wrk_sandbox.c workers/wrk_sandbox.h
tests_integration_sandbox_probe_CPPFLAGS = $(WRK_TEST_CPPFLAGS)
tests_integration_sandbox_probe_CFLAGS = $(WRK_TEST_CFLAGS) $(SECCOMP_CFLAGS)
tests_integration_sandbox_probe_LDADD = src/libcw.a $(MSGPACK_LIBS) \
	$(CURL_LIBS) $(SECCOMP_LIBS)
TESTS += tests/integration/sandbox.sh tests/integration/sandbox_denials.sh \
	tests/integration/sandbox_landlock.sh tests/integration/sandbox_tls.sh \
	tests/integration/sandbox_names.sh
EXTRA_DIST += tests/integration/sandbox.sh tests/integration/tls_proxy.py \
	tests/integration/sandbox_denials.sh \
	tests/integration/sandbox_landlock.sh tests/integration/sandbox_tls.sh \
	tests/integration/sandbox_names.sh tests/integration/sandbox_lib.sh
