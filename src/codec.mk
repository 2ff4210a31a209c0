# The shared codecs: hex, SCALE, Poseidon2, blake2b/twox, headers, accounts,
# and the Quantus proof of work on top of them.
src_libcw_a_SOURCES += \
	src/hex.c src/hex.h \
	src/scale.c src/scale.h \
	src/poseidon2.c src/poseidon2.h \
	src/hash.c src/hash.h \
	src/account.c src/account.h \
	src/header.c src/header.h \
	src/qpow.c src/qpow.h
