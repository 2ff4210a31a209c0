# bench/: benchmarks that print their figures (never run by make check).
include bench/codec.mk
include bench/ingest.mk
include bench/backfill.mk
include bench/devnode.mk
include bench/worker.mk
include bench/failover.mk
include bench/scale.mk
# bench/chaos.sh: the chaos matrix at 12 s blocks on default settings,
# RUNS times: fault to status, to an open breaker, and to ok again.
EXTRA_DIST += bench/chaos.sh
# bench/lies.sh: what one lying endpoint costs (CPU, queue rows, RSS).
EXTRA_DIST += bench/lies.sh
# bench/ws_rtt.py: one call at a time over the devnode's WebSocket and
# HTTP (TCP_NODELAY shows here).
EXTRA_DIST += bench/ws_rtt.py
# bench/api.sh: the status page and /api/v1/ under ab on a Planck-size store.
EXTRA_DIST += bench/api.sh
# bench/subscribe.sh: subscribe = all against primary (head-to-row
# latency, connections, late and missing heights around a move).
EXTRA_DIST += bench/subscribe.sh
# bench/soak.sh, bench/soak.py: days of faults in an hour (issue 28), with
# a judgement of the store, the bounds and the memory slopes.
EXTRA_DIST += bench/soak.sh bench/soak.py
# bench/store.sh: the store's bytes a block, per table and index, and a
# year of both testnets at that rate.
EXTRA_DIST += bench/store.sh
