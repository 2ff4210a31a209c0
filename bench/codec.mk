# bench/codec_bench: permutations/s and header hashes/s of the codecs
# (run by hand: bench/codec_bench [N]).
noinst_PROGRAMS += bench/codec_bench
bench_codec_bench_SOURCES = bench/codec_bench.c
bench_codec_bench_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
bench_codec_bench_LDADD = src/libcw.a $(JANSSON_LIBS) $(SODIUM_LIBS) \
	$(XXHASH_LIBS)
