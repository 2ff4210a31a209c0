#!/bin/sh
# bench/api.sh: requests per second and p50/p99 latency of
# chainwatch-metrics' status page and /api/v1/ on a store of Planck's size
# (N blocks, 1.65 M by default, 12 s apart; 20 miners; a reorged sibling
# every 500 heights, with its reorgs row), measured by ab (apache2-utils)
# with C concurrent clients (16), each route with and without
# If-None-Match.  Run from a build directory (or with top_builddir set):
#   sh ../../bench/api.sh            N=200000 REQS=2000 sh ../../bench/api.sh
# The store is made with the schema of src/schema.c (tests' mkschema) and
# filled in SQL, as tests/integration/metrics_large_store.sh does: the
# blocks, miners, standings and reorgs rows chainwatchd would write, not
# through chainwatchd.  Prints one line per route and case.
set -u
b=${top_builddir:-.}
N=${N:-1650000}
C=${C:-16}
REQS=${REQS:-2000}
MINERS=20
METRICS=$b/metrics/chainwatch-metrics
MKSCHEMA=$b/tests/integration/mkschema
for x in "$METRICS" "$MKSCHEMA"; do
	[ -x "$x" ] || { echo "build first: $x" >&2; exit 2; }
done
command -v ab >/dev/null || { echo "ab missing (apt-get install apache2-utils)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "sqlite3 missing" >&2; exit 2; }
T=$(mktemp -d /tmp/bench-api.XXXXXX)
chmod 0711 "$T"
MPID=
trap '[ -n "$MPID" ] && kill "$MPID" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
DB=$T/chainwatch.db
now=$(($(date +%s) * 1000))
DIFF=1000000
DIFF_LE=x\'40420f$(printf '%0122d' 0)\'

t0=$(date +%s)
"$MKSCHEMA" >"$T/schema.sql" || exit 1
sqlite3 "$DB" >/dev/null <<SQL || exit 1
.read $T/schema.sql
PRAGMA journal_mode = WAL;
INSERT INTO chains (id, name, format, block_time, finality_depth,
    best_number, final_number, updated_at)
    VALUES (1, 'planck', 'quantus', 12000, 100, $N, $((N - 100)), $now);
INSERT INTO endpoints (id, chain_id, name, rpc_url, ws_url, position, state,
    state_since, best_number, best_at, lag_ms, heads_seen)
    VALUES (1, 1, 'a1', 'http://a1', 'ws://a1', 0, 'closed', $now, $N,
    $now, 0, $N);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $N)
INSERT INTO blocks (chain_id, hash, number, parent, miner, difficulty,
    difficulty_f, timestamp, canonical, final, first_endpoint_id, first_seen)
    SELECT 1, CAST(printf('h%031d', i) AS BLOB), i,
    CAST(printf('h%031d', i - 1) AS BLOB),
    CAST(printf('m%031d', (i * 7 + i / 1000) % $MINERS) AS BLOB), $DIFF_LE,
    $DIFF, $now - ($N - i) * 12000, 1, i <= $N - 100, 1, $now FROM n;
WITH RECURSIVE n(i) AS (SELECT 500 UNION ALL SELECT i + 500 FROM n
    WHERE i + 500 <= $N)
INSERT INTO blocks (chain_id, hash, number, parent, miner, difficulty,
    difficulty_f, timestamp, canonical, final, first_endpoint_id, first_seen)
    SELECT 1, CAST(printf('r%031d', i) AS BLOB), i,
    CAST(printf('h%031d', i - 1) AS BLOB),
    CAST(printf('m%031d', (i + 3) % $MINERS) AS BLOB), $DIFF_LE, $DIFF,
    $now - ($N - i) * 12000, 0, 0, 1, $now FROM n;
INSERT INTO reorgs (chain_id, at, depth, ancestor_number, old_tip, new_tip,
    endpoint_id)
    SELECT 1, timestamp + 6000, 1, number - 1, hash,
    CAST(printf('h%031d', number) AS BLOB), 1 FROM blocks
    WHERE canonical = 0;
INSERT INTO miners (account, ss58)
    SELECT DISTINCT miner, 'miner-' || CAST(miner AS TEXT) FROM blocks;
INSERT INTO standings (chain_id, miner, blocks, final_blocks, work, work_f,
    final_work, first_number, last_number)
    SELECT 1, miner, count(*), sum(final), CAST(count(*) * $DIFF AS TEXT),
    count(*) * $DIFF, CAST(sum(final) * $DIFF AS TEXT), min(number),
    max(number) FROM blocks WHERE canonical = 1 GROUP BY miner;
ANALYZE;
SQL
chmod 0644 "$DB"*
echo "store: $(sqlite3 -readonly "$DB" 'SELECT count(*) FROM blocks') blocks, $(sqlite3 -readonly "$DB" 'SELECT count(*) FROM reorgs') reorgs, $MINERS miners, $(du -m "$DB" | cut -f1) MB, made in $(($(date +%s) - t0)) s"
MINER=0x$(sqlite3 -readonly "$DB" "SELECT lower(hex(miner)) FROM standings ORDER BY blocks DESC LIMIT 1")

as_user=
[ "$(id -u)" = 0 ] && as_user="-u nobody"
# shellcheck disable=SC2086
"$METRICS" -f -l 127.0.0.1:0 -d "$DB" -s "$T/none.sock" -p "$T/port" \
    -L warn $as_user 2>"$T/metrics.log" &
MPID=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$T/port" ] || { echo "chainwatch-metrics did not start" >&2; cat "$T/metrics.log" >&2; exit 1; }
U=http://127.0.0.1:$(cat "$T/port")

# run NAME PATH [etag]: one ab run; prints NAME, requests/s, p50, p99.
run() {
	if [ $# -gt 2 ]; then
		ab -q -k -n "$REQS" -c "$C" -H "If-None-Match: $3" "$U$2" >"$T/ab" 2>&1
	else
		ab -q -k -n "$REQS" -c "$C" "$U$2" >"$T/ab" 2>&1
	fi
	awk -v name="$1" '
	    /^Requests per second:/ { rps = $4 }
	    /^Non-2xx responses:/ { non2xx = $3 }
	    /^Failed requests:/ { failed = $3 }
	    /^  50%/ { p50 = $2 } /^  99%/ { p99 = $2 }
	    END { printf "%-34s %8.1f req/s  p50 %4d ms  p99 %4d ms  failed %d  non-2xx %d\n",
	        name, rps, p50, p99, failed, non2xx }' "$T/ab"
}
etag() {
	curl -s -o /dev/null -D - "$U$1" | tr -d '\r' |
	    sed -n 's/^[Ee][Tt][Aa][Gg]: //p'
}
echo "ab: $REQS requests, $C concurrent, keep-alive; $(nproc) CPUs"
S=/api/v1/chains/planck/standings?window=all
B=/api/v1/chains/planck/blocks?last=100
M=/api/v1/chains/planck/miners/$MINER
for r in "/ /" "standings?window=all $S" "standings?window=24h /api/v1/chains/planck/standings?window=24h" \
    "blocks?last=100 $B" "miner $M" "reorgs /api/v1/chains/planck/reorgs" \
    "chains /api/v1/chains"; do
	name=${r% *}
	path=${r##* }
	run "$name" "$path"
	case $path in
	/api/*) run "$name (If-None-Match)" "$path" "$(etag "$path")" ;;
	esac
done
