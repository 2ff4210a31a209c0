# tests/: unit tests (cmocka, one module each) and integration scripts.
UNIT_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(MSGPACK_CFLAGS) $(INIH_CFLAGS)
UNIT_LIBS = src/libcw.a $(CMOCKA_LIBS) $(MSGPACK_LIBS) $(INIH_LIBS)

check_PROGRAMS += tests/unit/test_conf tests/unit/test_conf_keys \
	tests/unit/test_msg tests/unit/test_proto tests/unit/test_fsm \
	tests/unit/test_lease tests/unit/test_chain tests/unit/test_route \
	tests/unit/test_endpoint tests/unit/test_buf tests/unit/test_listen_addr \
	tests/unit/test_ratelimit tests/unit/test_view_fmt tests/unit/test_answer \
	tests/unit/test_backlog tests/unit/test_store tests/unit/test_logflood \
	tests/unit/test_depth tests/unit/test_apicache tests/unit/test_mem
tests_unit_test_conf_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_conf_LDADD = $(UNIT_LIBS)
tests_unit_test_conf_keys_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_conf_keys_LDADD = $(UNIT_LIBS)
tests_unit_test_msg_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_msg_LDADD = $(UNIT_LIBS)
tests_unit_test_proto_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_proto_LDADD = $(UNIT_LIBS)
tests_unit_test_mem_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_mem_LDADD = $(UNIT_LIBS)
tests_unit_test_buf_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_buf_LDADD = $(UNIT_LIBS)
tests_unit_test_listen_addr_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_listen_addr_LDADD = $(UNIT_LIBS)
tests_unit_test_ratelimit_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_ratelimit_LDADD = $(UNIT_LIBS)
tests_unit_test_logflood_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_logflood_LDADD = $(UNIT_LIBS)
tests_unit_test_view_fmt_CFLAGS = $(UNIT_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_test_view_fmt_SOURCES = tests/unit/test_view_fmt.c src/view_fmt.c
tests_unit_test_view_fmt_LDADD = $(UNIT_LIBS) $(JANSSON_LIBS)
# The API's answers kept per request (chainwatch-metrics).
tests_unit_test_apicache_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/metrics
tests_unit_test_apicache_SOURCES = tests/unit/test_apicache.c \
	metrics/mtr_apicache.c
tests_unit_test_apicache_LDADD = $(UNIT_LIBS)
tests_unit_test_fsm_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/supervisor
tests_unit_test_fsm_SOURCES = tests/unit/test_fsm.c supervisor/sup_fsm.c
tests_unit_test_fsm_LDADD = $(UNIT_LIBS)
tests_unit_test_lease_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/supervisor
tests_unit_test_lease_SOURCES = tests/unit/test_lease.c supervisor/sup_lease.c
tests_unit_test_lease_LDADD = $(UNIT_LIBS)
tests_unit_test_route_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/supervisor
tests_unit_test_route_SOURCES = tests/unit/test_route.c supervisor/sup_route.c
tests_unit_test_route_LDADD = $(UNIT_LIBS)
# The adaptive window of an endpoint, on a fake clock.
tests_unit_test_depth_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/supervisor
tests_unit_test_depth_SOURCES = tests/unit/test_depth.c supervisor/sup_depth.c
tests_unit_test_depth_LDADD = $(UNIT_LIBS)
# The availability FSM, and what it shows beside its breaker.
tests_unit_test_endpoint_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/supervisor
tests_unit_test_endpoint_SOURCES = tests/unit/test_endpoint.c \
	supervisor/sup_endpoint.c supervisor/sup_breaker.c
tests_unit_test_endpoint_LDADD = $(UNIT_LIBS)
# The backlog of messages that wait for a blocked store.
tests_unit_test_backlog_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/supervisor
tests_unit_test_backlog_SOURCES = tests/unit/test_backlog.c \
	supervisor/sup_backlog.c
tests_unit_test_backlog_LDADD = $(UNIT_LIBS)
# The store blocked by another connection's lock, and resuming.
tests_unit_test_store_CFLAGS = $(UNIT_CFLAGS) $(SQLITE_CFLAGS) \
	-I$(top_srcdir)/supervisor -pthread
tests_unit_test_store_LDFLAGS = -pthread
tests_unit_test_store_SOURCES = tests/unit/test_store.c \
	supervisor/sup_store.c supervisor/sup_store_file.c supervisor/sup_wal.c src/u512_sql.c
tests_unit_test_store_LDADD = $(UNIT_LIBS) $(SQLITE_LIBS) $(EV_LIBS)
# Answers checked against their requests.
tests_unit_test_answer_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/supervisor
tests_unit_test_answer_SOURCES = tests/unit/test_answer.c \
	supervisor/sup_answer.c
tests_unit_test_answer_LDADD = $(UNIT_LIBS) $(JANSSON_LIBS) $(SODIUM_LIBS) \
	$(XXHASH_LIBS)
# The chain logic against an in-memory SQLite store.
tests_unit_test_chain_CFLAGS = $(UNIT_CFLAGS) $(SQLITE_CFLAGS) \
	-I$(top_srcdir)/supervisor -pthread
tests_unit_test_chain_LDFLAGS = -pthread
tests_unit_test_chain_SOURCES = tests/unit/test_chain.c \
	supervisor/sup_chain.c supervisor/sup_block.c supervisor/sup_choice.c \
	supervisor/sup_cross.c supervisor/sup_fork.c supervisor/sup_time.c \
	supervisor/sup_retarget.c \
	supervisor/sup_claim.c supervisor/sup_final.c supervisor/sup_window.c \
	supervisor/sup_seal.c supervisor/sup_standing.c supervisor/sup_queue.c \
	supervisor/sup_route.c supervisor/sup_store.c supervisor/sup_store_file.c supervisor/sup_wal.c \
	src/u512_sql.c
tests_unit_test_chain_LDADD = $(UNIT_LIBS) $(SQLITE_LIBS) $(EV_LIBS) \
	$(JANSSON_LIBS) $(SODIUM_LIBS) $(XXHASH_LIBS)
# The short soak (issue 28) first: three minutes of one test that the
# others run beside, rather than a tail at the end.
TESTS += tests/integration/soak.sh
EXTRA_DIST += tests/integration/soak.sh
# The soak's judgement of a trend, on made-up series of known truth.
TESTS += tests/integration/soak_judge.sh
EXTRA_DIST += tests/integration/soak_judge.sh
# Overdue endpoints and slow chains on a fake clock.
check_PROGRAMS += tests/unit/test_overdue
TESTS += tests/unit/test_overdue
tests_unit_test_overdue_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/supervisor
tests_unit_test_overdue_SOURCES = tests/unit/test_overdue.c \
	supervisor/sup_overdue.c
tests_unit_test_overdue_LDADD = $(UNIT_LIBS)
# Forks between endpoints over a table of blocks in memory.
check_PROGRAMS += tests/unit/test_forks
tests_unit_test_forks_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_forks_LDADD = $(UNIT_LIBS)
TESTS += tests/unit/test_forks
TESTS += tests/unit/test_conf tests/unit/test_conf_keys \
	tests/unit/test_msg tests/unit/test_proto tests/unit/test_fsm \
	tests/unit/test_lease tests/unit/test_chain tests/unit/test_route \
	tests/unit/test_endpoint tests/unit/test_buf tests/unit/test_listen_addr \
	tests/unit/test_ratelimit tests/unit/test_view_fmt tests/unit/test_answer \
	tests/unit/test_backlog tests/unit/test_store tests/unit/test_logflood \
	tests/unit/test_depth tests/unit/test_apicache tests/unit/test_mem

# chainwatchd -n on tests/conf/*.in, compared with the .ok files.
SUP_TESTS = tests/integration/conf_check.sh \
	tests/integration/sup_workers.sh \
	tests/integration/sup_respawn.sh \
	tests/integration/sup_reload.sh \
	tests/integration/sup_stop.sh \
	tests/integration/sup_badmsg.sh \
	tests/integration/sup_setup.sh \
	tests/integration/initd.sh \
	tests/integration/guard_self.sh \
	tests/integration/man_lint.sh \
	tests/integration/systemd_verify.sh \
	tests/integration/store_follow.sh \
	tests/integration/wrk_trim.sh \
	tests/integration/store_crash.sh \
	tests/integration/store_busy.sh \
	tests/integration/store_wal_hold.sh \
	tests/integration/store_full.sh \
	tests/integration/sigterm.sh \
	tests/integration/trust_reorgs.sh \
	tests/integration/trust_heads.sh \
	tests/integration/trust_sync.sh \
	tests/integration/heads_counted.sh \
	tests/integration/health_breaker.sh \
	tests/integration/health_pruned.sh \
	tests/integration/retry_after.sh \
	tests/integration/batch_limit.sh \
	tests/integration/health_failover.sh \
	tests/integration/wrong_format.sh \
	tests/integration/trust_lies.sh \
	tests/integration/trust_difficulty.sh \
	tests/integration/layers.sh \
	tests/integration/secrets.sh \
	tests/integration/keys.sh \
	tests/integration/keys_breaker.sh
TESTS += $(SUP_TESTS)
# The lock that keeps the tests' "make install" runs apart (install_lib.sh).
CLEANFILES += tests/install.lock
EXTRA_DIST += $(SUP_TESTS) tests/integration/lib.sh \
	tests/integration/install_lib.sh \
	tests/integration/fake_worker.py \
	tests/integration/store_check.py \
	tests/integration/state_check.py \
	tests/integration/layers.py \
	tests/integration/full_listener.py \
	tests/conf/credentials.in tests/conf/credentials.ok \
	tests/conf/empty.in tests/conf/empty.ok \
	tests/conf/environment.in tests/conf/environment.ok \
	tests/conf/errors.in tests/conf/errors.ok \
	tests/conf/good.in tests/conf/good.ok \
	tests/conf/legacy-half.in tests/conf/legacy-half.ok \
	tests/conf/legacy.in tests/conf/legacy.ok

# Plays the supervisor to one real worker, for the worker tests.
check_PROGRAMS += tests/integration/wrk_harness
tests_integration_wrk_harness_CFLAGS = $(UNIT_CFLAGS)
tests_integration_wrk_harness_LDADD = src/libcw.a $(MSGPACK_LIBS) \
	$(JANSSON_LIBS)

include tests/codec.mk
include tests/devnode.mk
include tests/worker.mk
include tests/cli.mk
include tests/breaker.mk
include tests/metrics.mk
include tests/control.mk
include tests/chaos.mk
include tests/forks.mk
include tests/deb.mk
include tests/subscribe.mk

# The guard (tests/integration/guard.sh): what the suite could touch in the
# machine is listed before any test (check_DATA is made before the tests
# start) and again after all of them, by guard_end.guard, whose log waits
# for every other; anything new fails it.  (A .guard, not a .sh: the
# dependency names every .sh test's log, but not its own.)
check_DATA = tests/guard/before
tests/guard/before: FORCE
	@top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' \
	    $(SHELL) $(srcdir)/tests/integration/guard.sh begin
TESTS += tests/integration/guard_end.guard
GUARD_LOG_COMPILER = $(SHELL)
EXTRA_DIST += tests/integration/guard_end.guard tests/integration/guard.sh
tests/integration/guard_end.log: $(TESTS:.sh=.log)
clean-local: clean-guard
clean-guard:
	rm -rf tests/guard
.PHONY: clean-guard
# Fork choice's pure rules: its table row by row, walks over arrays.
check_PROGRAMS += tests/unit/test_fork
tests_unit_test_fork_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/supervisor
tests_unit_test_fork_SOURCES = tests/unit/test_fork.c supervisor/sup_fork.c
tests_unit_test_fork_LDADD = $(UNIT_LIBS)
TESTS += tests/unit/test_fork
