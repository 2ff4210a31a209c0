# tests for codec: hex/SCALE/twox/blake2b, Poseidon2, accounts, headers,
# checked against the vector files (found through $top_srcdir).
codec_tests = \
	tests/unit/test_codec_scale \
	tests/unit/test_codec_poseidon2 \
	tests/unit/test_codec_poseidon2_portable \
	tests/unit/test_codec_account \
	tests/unit/test_codec_header
check_PROGRAMS += $(codec_tests)
TESTS += $(codec_tests)
EXTRA_DIST += \
	tests/vectors/quantus-poseidon2.md \
	tests/vectors/quantus-constants.json \
	tests/vectors/quantus-vectors.json \
	tests/vectors/substrate-vectors.json \
	tests/vectors/quantus-qpow.md \
	tests/vectors/quantus-qpow-vectors.json

codec_test_cppflags = $(AM_CPPFLAGS) -DCW_TOP_SRCDIR='"$(abs_top_srcdir)"'
codec_test_cflags = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(CMOCKA_CFLAGS)
codec_test_ldadd = src/libcw.a $(JANSSON_LIBS) $(SODIUM_LIBS) \
	$(XXHASH_LIBS) $(CMOCKA_LIBS)
codec_test_vec = tests/unit/test_codec_vec.c tests/unit/test_codec_vec.h

tests_unit_test_codec_scale_SOURCES = tests/unit/test_codec_scale.c \
	$(codec_test_vec)
tests_unit_test_codec_scale_CPPFLAGS = $(codec_test_cppflags)
tests_unit_test_codec_scale_CFLAGS = $(codec_test_cflags)
tests_unit_test_codec_scale_LDADD = $(codec_test_ldadd)

tests_unit_test_codec_poseidon2_SOURCES = tests/unit/test_codec_poseidon2.c \
	$(codec_test_vec)
tests_unit_test_codec_poseidon2_CPPFLAGS = $(codec_test_cppflags)
tests_unit_test_codec_poseidon2_CFLAGS = $(codec_test_cflags)
tests_unit_test_codec_poseidon2_LDADD = $(codec_test_ldadd)

# The same vectors against the C fallback of the x86-64 inline assembly.
tests_unit_test_codec_poseidon2_portable_SOURCES = \
	tests/unit/test_codec_poseidon2.c src/poseidon2.c $(codec_test_vec)
tests_unit_test_codec_poseidon2_portable_CPPFLAGS = $(codec_test_cppflags) \
	-DP2_PORTABLE
tests_unit_test_codec_poseidon2_portable_CFLAGS = $(codec_test_cflags)
tests_unit_test_codec_poseidon2_portable_LDADD = $(JANSSON_LIBS) \
	$(CMOCKA_LIBS)

tests_unit_test_codec_account_SOURCES = tests/unit/test_codec_account.c \
	$(codec_test_vec)
tests_unit_test_codec_account_CPPFLAGS = $(codec_test_cppflags)
tests_unit_test_codec_account_CFLAGS = $(codec_test_cflags)
tests_unit_test_codec_account_LDADD = $(codec_test_ldadd)

tests_unit_test_codec_header_SOURCES = tests/unit/test_codec_header.c \
	$(codec_test_vec)
tests_unit_test_codec_header_CPPFLAGS = $(codec_test_cppflags)
tests_unit_test_codec_header_CFLAGS = $(codec_test_cflags)
tests_unit_test_codec_header_LDADD = $(codec_test_ldadd)

# The Quantus proof of work against quantus-qpow-vectors.json.
check_PROGRAMS += tests/unit/test_qpow
TESTS += tests/unit/test_qpow
tests_unit_test_qpow_SOURCES = tests/unit/test_qpow.c $(codec_test_vec)
tests_unit_test_qpow_CPPFLAGS = $(codec_test_cppflags)
tests_unit_test_qpow_CFLAGS = $(codec_test_cflags)
tests_unit_test_qpow_LDADD = $(codec_test_ldadd)
