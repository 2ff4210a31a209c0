# bench/: benchmarks that print their figures (never run by make check).
include bench/codec.mk
include bench/ingest.mk
include bench/backfill.mk
include bench/devnode.mk
include bench/worker.mk
include bench/failover.mk
# bench/lies.sh: what one lying endpoint costs (CPU, queue rows, RSS).
EXTRA_DIST += bench/lies.sh
