# devnode/: chainwatch-devnode, the simulated chain the tests talk to.
bin_PROGRAMS += devnode/chainwatch-devnode
devnode_chainwatch_devnode_SOURCES = \
	devnode/dev.h \
	devnode/dev_cache.c \
	devnode/dev_chain.c devnode/dev_chain.h devnode/dev_chain_int.h \
	devnode/dev_chain_side.c \
	devnode/dev_fault.c devnode/dev_fault.h \
	devnode/dev_http.c devnode/dev_http.h \
	devnode/dev_json.c devnode/dev_json.h \
	devnode/dev_lie.c \
	devnode/dev_main.c \
	devnode/dev_rpc.c devnode/dev_rpc.h \
	devnode/dev_selftest.c \
	devnode/dev_view.c \
	devnode/dev_ws.c devnode/dev_ws.h
devnode_chainwatch_devnode_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) \
	$(MHD_CFLAGS) $(SODIUM_CFLAGS) $(XXHASH_CFLAGS)
devnode_chainwatch_devnode_LDADD = src/libcwhttp.a src/libcw.a $(MHD_LIBS) \
	$(JANSSON_LIBS) $(SODIUM_LIBS) $(XXHASH_LIBS) $(EV_LIBS) $(WSLAY_LIBS) \
	-lpthread
