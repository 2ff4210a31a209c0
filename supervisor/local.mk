# supervisor/: chainwatchd, which runs the workers and owns the store.
# In layers, each file calling only those below it (the order, which
# tests/integration/layers.py checks): chainwatchd.c; control; reload;
# metrics; spawn; dispatch; the scheduler -- reply (answers), tick and
# snapshot; judge (endpoint judging); sched (requests and leases); load
# (the workers' load and route pass) --; primary; health; the chain
# -- chain (what arrives), cross (second reads of a disputed difficulty)
# time (timestamps against their parents') and retarget (difficulties
# against the rule),
# claim, choice (fork choice), final, block and window --; child, endpoint, forks, queue and standing; the pure machines
# and checks (route, lease, breaker, fsm, answer, overdue, fork), the control
# request's parse (ctlreq), chan and backlog; the store's file (opened,
# set up, migrated: store_file); the store; its checkpoints (wal).
sbin_PROGRAMS += supervisor/chainwatchd
supervisor_chainwatchd_SOURCES = \
	supervisor/chainwatchd.c supervisor/chainwatchd.h \
	supervisor/sup_answer.c supervisor/sup_answer.h \
	supervisor/sup_backlog.c supervisor/sup_backlog.h \
	supervisor/sup_block.c supervisor/sup_block.h \
	supervisor/sup_breaker.c supervisor/sup_breaker.h \
	supervisor/sup_chain.c supervisor/sup_chain.h \
	supervisor/sup_chan.c supervisor/sup_chan.h \
	supervisor/sup_child.c supervisor/sup_child.h \
	supervisor/sup_choice.c supervisor/sup_choice.h \
	supervisor/sup_claim.c supervisor/sup_claim.h \
	supervisor/sup_control.c supervisor/sup_control.h \
	supervisor/sup_cross.c supervisor/sup_cross.h \
	supervisor/sup_ctlreq.c supervisor/sup_ctlreq.h \
	supervisor/sup_depth.c supervisor/sup_depth.h \
	supervisor/sup_dispatch.c supervisor/sup_dispatch.h \
	supervisor/sup_endpoint.c supervisor/sup_endpoint.h \
	supervisor/sup_final.c supervisor/sup_final.h \
	supervisor/sup_fork.c supervisor/sup_fork.h \
	supervisor/sup_forks.c supervisor/sup_forks.h \
	supervisor/sup_fsm.c supervisor/sup_fsm.h \
	supervisor/sup_health.c supervisor/sup_health.h \
	supervisor/sup_judge.c supervisor/sup_judge.h \
	supervisor/sup_lease.c supervisor/sup_lease.h \
	supervisor/sup_load.c supervisor/sup_load.h \
	supervisor/sup_metrics.c supervisor/sup_metrics.h \
	supervisor/sup_overdue.c supervisor/sup_overdue.h \
	supervisor/sup_queue.c supervisor/sup_queue.h \
	supervisor/sup_reload.c supervisor/sup_reload.h \
	supervisor/sup_reload_result.c \
	supervisor/sup_reply.c supervisor/sup_reply.h \
	supervisor/sup_retarget.c supervisor/sup_retarget.h \
	supervisor/sup_route.c supervisor/sup_route.h \
	supervisor/sup_sched.c supervisor/sup_sched.h \
	supervisor/sup_sched_int.h \
	supervisor/sup_snapshot.c supervisor/sup_snapshot.h \
	supervisor/sup_spawn.c supervisor/sup_spawn.h \
	supervisor/sup_seal.c supervisor/sup_seal.h \
	supervisor/sup_standing.c supervisor/sup_standing.h \
	supervisor/sup_stats.c supervisor/sup_stats.h \
	supervisor/sup_tick.c supervisor/sup_tick.h \
	supervisor/sup_time.c supervisor/sup_time.h \
	supervisor/sup_window.c supervisor/sup_window.h \
	supervisor/sup_subs.c supervisor/sup_subs.h \
	supervisor/sup_primary.c supervisor/sup_primary.h \
	supervisor/sup_store.c supervisor/sup_store.h \
	supervisor/sup_store_file.c supervisor/sup_store_int.h \
	supervisor/sup_wal.c supervisor/sup_wal.h \
	src/u512_sql.c src/u512_sql.h
# -pthread: the store's checkpoint thread (sup_wal.c).
supervisor_chainwatchd_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS) \
	$(SQLITE_CFLAGS) $(INIH_CFLAGS) $(JANSSON_CFLAGS) -pthread
supervisor_chainwatchd_LDFLAGS = -pthread
supervisor_chainwatchd_LDADD = src/libcw.a $(MSGPACK_LIBS) $(SQLITE_LIBS) \
	$(INIH_LIBS) $(EV_LIBS) $(JANSSON_LIBS) $(SODIUM_LIBS) $(XXHASH_LIBS) \
	$(SECCOMP_LIBS)
