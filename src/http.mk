# libcwhttp.a: libmicrohttpd glue shared by chainwatch-metrics and
# chainwatch-devnode (src/http_log.h); only they link it and libmicrohttpd.
noinst_LIBRARIES += src/libcwhttp.a
src_libcwhttp_a_SOURCES = src/http_log.c src/http_log.h
src_libcwhttp_a_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS)
