# fuzz/: one libFuzzer target per parser of untrusted input, each calling
# the project's own parsing code (README, "Fuzzing").  ./configure
# --enable-fuzzing (CC=clang) builds them as fuzz/fuzz_NAME; every build
# makes fuzz/replay_NAME, the same target with a plain main() (replay.c),
# so that make check replays each seed corpus (fuzz/corpus/NAME) with gcc.
FUZZ_TARGETS = rpc header_scale header_json ws sub msg conf control devnode \
	metrics
FUZZ_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/fuzz -I$(top_srcdir)/workers \
	-I$(top_srcdir)/supervisor -I$(top_srcdir)/devnode
FUZZ_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS) $(MSGPACK_CFLAGS) \
	$(INIH_CFLAGS) $(SODIUM_CFLAGS) $(XXHASH_CFLAGS) $(MHD_CFLAGS)
FUZZ_CW_LIBS = src/libcw.a $(JANSSON_LIBS) $(MSGPACK_LIBS) $(INIH_LIBS) \
	$(SODIUM_LIBS) $(XXHASH_LIBS)
# The devnode but dev_main.c, which fuzz_devnode.c includes.
FUZZ_DEVNODE_SOURCES = devnode/dev_cache.c devnode/dev_chain.c \
	devnode/dev_chain_side.c devnode/dev_fault.c devnode/dev_http.c \
	devnode/dev_json.c devnode/dev_lie.c devnode/dev_rpc.c \
	devnode/dev_selftest.c devnode/dev_view.c devnode/dev_ws.c
FUZZ_DEVNODE_LIBS = src/libcwhttp.a $(FUZZ_CW_LIBS) $(MHD_LIBS) $(EV_LIBS) \
	$(WSLAY_LIBS) -lpthread
# The metrics server's renderers; fuzz_metrics.c includes mtr_gather.c.
FUZZ_METRICS_SOURCES = metrics/mtr_expo.c metrics/mtr_health.c \
	metrics/mtr_page.c metrics/mtr_api.c
FUZZ_METRICS_LIBS = $(VIEW_LIBS) $(FUZZ_CW_LIBS) $(SQLITE_LIBS) -lm

# The replay drivers, in every build.
check_PROGRAMS += fuzz/replay_rpc fuzz/replay_header_scale \
	fuzz/replay_header_json fuzz/replay_ws fuzz/replay_sub fuzz/replay_msg \
	fuzz/replay_conf fuzz/replay_control fuzz/replay_devnode \
	fuzz/replay_metrics
fuzz_replay_rpc_SOURCES = fuzz/fuzz_rpc.c fuzz/replay.c fuzz/fuzz.h
fuzz_replay_rpc_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_replay_rpc_CFLAGS = $(FUZZ_CFLAGS)
fuzz_replay_rpc_LDADD = $(WRK_IO_LIBS) $(FUZZ_CW_LIBS)
fuzz_replay_header_scale_SOURCES = fuzz/fuzz_header_scale.c \
	fuzz/replay.c fuzz/fuzz.h
fuzz_replay_header_scale_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_replay_header_scale_CFLAGS = $(FUZZ_CFLAGS)
fuzz_replay_header_scale_LDADD = $(FUZZ_CW_LIBS)
fuzz_replay_header_json_SOURCES = fuzz/fuzz_header_json.c fuzz/replay.c \
	fuzz/fuzz.h
fuzz_replay_header_json_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_replay_header_json_CFLAGS = $(FUZZ_CFLAGS)
fuzz_replay_header_json_LDADD = $(FUZZ_CW_LIBS)
fuzz_replay_ws_SOURCES = fuzz/fuzz_ws.c fuzz/replay.c fuzz/fuzz.h
fuzz_replay_ws_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_replay_ws_CFLAGS = $(FUZZ_CFLAGS)
fuzz_replay_ws_LDADD = $(WRK_IO_LIBS) $(FUZZ_CW_LIBS)
fuzz_replay_sub_SOURCES = fuzz/fuzz_sub.c fuzz/replay.c fuzz/fuzz.h
fuzz_replay_sub_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_replay_sub_CFLAGS = $(FUZZ_CFLAGS)
fuzz_replay_sub_LDADD = $(WRK_IO_LIBS) $(FUZZ_CW_LIBS)
fuzz_replay_msg_SOURCES = fuzz/fuzz_msg.c fuzz/replay.c fuzz/fuzz.h
fuzz_replay_msg_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_replay_msg_CFLAGS = $(FUZZ_CFLAGS)
fuzz_replay_msg_LDADD = $(FUZZ_CW_LIBS)
fuzz_replay_conf_SOURCES = fuzz/fuzz_conf.c fuzz/replay.c fuzz/fuzz.h
fuzz_replay_conf_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_replay_conf_CFLAGS = $(FUZZ_CFLAGS)
fuzz_replay_conf_LDADD = $(FUZZ_CW_LIBS)
fuzz_replay_control_SOURCES = fuzz/fuzz_control.c fuzz/replay.c \
	fuzz/fuzz.h supervisor/sup_ctlreq.c supervisor/sup_ctlreq.h
fuzz_replay_control_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_replay_control_CFLAGS = $(FUZZ_CFLAGS)
fuzz_replay_control_LDADD = $(FUZZ_CW_LIBS)
fuzz_replay_devnode_SOURCES = fuzz/fuzz_devnode.c fuzz/replay.c \
	fuzz/fuzz.h $(FUZZ_DEVNODE_SOURCES)
fuzz_replay_devnode_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_replay_devnode_CFLAGS = $(FUZZ_CFLAGS)
fuzz_replay_devnode_LDADD = $(FUZZ_DEVNODE_LIBS)

fuzz_replay_metrics_SOURCES = fuzz/fuzz_metrics.c fuzz/replay.c \
	fuzz/fuzz.h $(FUZZ_METRICS_SOURCES)
fuzz_replay_metrics_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_replay_metrics_CFLAGS = $(FUZZ_CFLAGS) $(SQLITE_CFLAGS)
fuzz_replay_metrics_LDADD = $(FUZZ_METRICS_LIBS)

# The libFuzzer targets, with ./configure --enable-fuzzing only.
if CW_FUZZING
noinst_PROGRAMS += fuzz/fuzz_rpc fuzz/fuzz_header_scale \
	fuzz/fuzz_header_json fuzz/fuzz_ws fuzz/fuzz_sub fuzz/fuzz_msg \
	fuzz/fuzz_conf fuzz/fuzz_control fuzz/fuzz_devnode fuzz/fuzz_metrics
fuzz_fuzz_rpc_SOURCES = fuzz/fuzz_rpc.c fuzz/fuzz.h
fuzz_fuzz_rpc_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_fuzz_rpc_CFLAGS = $(FUZZ_CFLAGS)
fuzz_fuzz_rpc_LDFLAGS = -fsanitize=fuzzer
fuzz_fuzz_rpc_LDADD = $(WRK_IO_LIBS) $(FUZZ_CW_LIBS)
fuzz_fuzz_header_scale_SOURCES = fuzz/fuzz_header_scale.c fuzz/fuzz.h
fuzz_fuzz_header_scale_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_fuzz_header_scale_CFLAGS = $(FUZZ_CFLAGS)
fuzz_fuzz_header_scale_LDFLAGS = -fsanitize=fuzzer
fuzz_fuzz_header_scale_LDADD = $(FUZZ_CW_LIBS)
fuzz_fuzz_header_json_SOURCES = fuzz/fuzz_header_json.c fuzz/fuzz.h
fuzz_fuzz_header_json_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_fuzz_header_json_CFLAGS = $(FUZZ_CFLAGS)
fuzz_fuzz_header_json_LDFLAGS = -fsanitize=fuzzer
fuzz_fuzz_header_json_LDADD = $(FUZZ_CW_LIBS)
fuzz_fuzz_ws_SOURCES = fuzz/fuzz_ws.c fuzz/fuzz.h
fuzz_fuzz_ws_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_fuzz_ws_CFLAGS = $(FUZZ_CFLAGS)
fuzz_fuzz_ws_LDFLAGS = -fsanitize=fuzzer
fuzz_fuzz_ws_LDADD = $(WRK_IO_LIBS) $(FUZZ_CW_LIBS)
fuzz_fuzz_sub_SOURCES = fuzz/fuzz_sub.c fuzz/fuzz.h
fuzz_fuzz_sub_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_fuzz_sub_CFLAGS = $(FUZZ_CFLAGS)
fuzz_fuzz_sub_LDFLAGS = -fsanitize=fuzzer
fuzz_fuzz_sub_LDADD = $(WRK_IO_LIBS) $(FUZZ_CW_LIBS)
fuzz_fuzz_msg_SOURCES = fuzz/fuzz_msg.c fuzz/fuzz.h
fuzz_fuzz_msg_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_fuzz_msg_CFLAGS = $(FUZZ_CFLAGS)
fuzz_fuzz_msg_LDFLAGS = -fsanitize=fuzzer
fuzz_fuzz_msg_LDADD = $(FUZZ_CW_LIBS)
fuzz_fuzz_conf_SOURCES = fuzz/fuzz_conf.c fuzz/fuzz.h
fuzz_fuzz_conf_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_fuzz_conf_CFLAGS = $(FUZZ_CFLAGS)
fuzz_fuzz_conf_LDFLAGS = -fsanitize=fuzzer
fuzz_fuzz_conf_LDADD = $(FUZZ_CW_LIBS)
fuzz_fuzz_control_SOURCES = fuzz/fuzz_control.c fuzz/fuzz.h \
	supervisor/sup_ctlreq.c supervisor/sup_ctlreq.h
fuzz_fuzz_control_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_fuzz_control_CFLAGS = $(FUZZ_CFLAGS)
fuzz_fuzz_control_LDFLAGS = -fsanitize=fuzzer
fuzz_fuzz_control_LDADD = $(FUZZ_CW_LIBS)
fuzz_fuzz_devnode_SOURCES = fuzz/fuzz_devnode.c fuzz/fuzz.h \
	$(FUZZ_DEVNODE_SOURCES)
fuzz_fuzz_devnode_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_fuzz_devnode_CFLAGS = $(FUZZ_CFLAGS)
fuzz_fuzz_devnode_LDFLAGS = -fsanitize=fuzzer
fuzz_fuzz_devnode_LDADD = $(FUZZ_DEVNODE_LIBS)
fuzz_fuzz_metrics_SOURCES = fuzz/fuzz_metrics.c fuzz/fuzz.h \
	$(FUZZ_METRICS_SOURCES)
fuzz_fuzz_metrics_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_fuzz_metrics_CFLAGS = $(FUZZ_CFLAGS) $(SQLITE_CFLAGS)
fuzz_fuzz_metrics_LDFLAGS = -fsanitize=fuzzer
fuzz_fuzz_metrics_LDADD = $(FUZZ_METRICS_LIBS)
endif

# make fuzz-targets: the targets alone (tests/integration/fuzz.sh).
fuzz-targets:
if CW_FUZZING
	$(MAKE) $(AM_MAKEFLAGS) $(FUZZ_TARGETS:%=fuzz/fuzz_%)
else
	@echo "fuzz-targets: configure with CC=clang --enable-fuzzing" >&2; exit 1
endif
# make fuzz: the same, by the name the issue asked for.
fuzz: fuzz-targets
.PHONY: fuzz fuzz-targets

# The seed corpora and dictionaries, and fuzz_mkseed, which wrote the
# packed messages and the SCALE headers among them (make fuzz/fuzz_mkseed).
EXTRA_PROGRAMS = fuzz/fuzz_mkseed
fuzz_fuzz_mkseed_SOURCES = fuzz/fuzz_mkseed.c
fuzz_fuzz_mkseed_CFLAGS = $(FUZZ_CFLAGS)
fuzz_fuzz_mkseed_LDADD = $(FUZZ_CW_LIBS)
CLEANFILES += fuzz/fuzz_mkseed
EXTRA_DIST += fuzz/corpus fuzz/dict fuzz/mkcorpus.py bench/fuzz.sh

FUZZ_TESTS = tests/integration/fuzz_replay.sh tests/integration/fuzz.sh
TESTS += $(FUZZ_TESTS)
EXTRA_DIST += $(FUZZ_TESTS)

# Reproducers that tests/integration/fuzz.sh kept from a failed run.
clean-local: clean-local-fuzz
clean-local-fuzz:
	rm -rf fuzz-findings
.PHONY: clean-local-fuzz
