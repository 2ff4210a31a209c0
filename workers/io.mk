# workers/: the worker's network I/O, as a library the worker's main links.
# wrk_http: HTTP over curl multi on libev; wrk_rpc: JSON-RPC and outcome
# classes; wrk_ws: WebSocket client; wrk_sub: head subscriptions.
noinst_LIBRARIES += workers/libwrk.a
workers_libwrk_a_SOURCES = \
	workers/wrk_http.c workers/wrk_http.h \
	workers/wrk_rpc.c workers/wrk_rpc.h \
	workers/wrk_ws.c workers/wrk_ws.h \
	workers/wrk_sub.c workers/wrk_sub.h
workers_libwrk_a_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS)

# What a program linking libwrk.a needs after it (libcw.a for log/util,
# libsodium for libcw.a's base64 in the WebSocket handshake).
WRK_IO_LIBS = workers/libwrk.a src/libcw.a $(CURL_LIBS) $(JANSSON_LIBS) \
	$(WSLAY_LIBS) $(EV_LIBS) $(SODIUM_LIBS)
