# src/: the code every program shares.
noinst_LIBRARIES += src/libcw.a
src_libcw_a_SOURCES = \
	src/log.c src/log.h \
	src/logflood.c src/logflood.h \
	src/util.c src/util.h \
	src/buf.c src/buf.h \
	src/outcome.c src/outcome.h \
	src/conf.c src/conf.h \
	src/listen_addr.c src/listen_addr.h \
	src/ratelimit.c src/ratelimit.h \
	src/msg.c src/msg.h \
	src/proto.c src/proto.h \
	src/schema.c src/schema.h \
	src/u512.c src/u512.h \
	src/hashrate.c src/hashrate.h \
	src/forks.c src/forks.h \
	src/sha1.c src/sha1.h \
	src/wskey.c src/wskey.h \
	src/sandbox.c src/sandbox.h
src_libcw_a_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS) $(INIH_CFLAGS) \
	$(JANSSON_CFLAGS) $(SODIUM_CFLAGS) $(XXHASH_CFLAGS) \
	$(SECCOMP_CFLAGS)

include src/codec.mk
include src/view.mk
include src/http.mk
