#!/bin/sh
# bigstore.sh DB N MINERS [SIBLINGS]: a store of N canonical blocks (plus a
# reorged sibling, with its reorgs row, every SIBLINGS heights), 12 s
# apart and ending now, of difficulty 1 000 000 each, mined in turn by
# MINERS accounts, with the miners and standings rows chainwatchd would
# write: made in SQL with the schema of src/schema.c (mkschema, from
# top_builddir), not through chainwatchd.  Hashes are scattered (number i
# is h and i * 2654435761 mod 2^32), as real ones are, so that the table's
# order (by hash) is not the chain's and reading blocks by time costs what
# it would.  For tests of a large store (metrics_large_store.sh) and
# bench/api.sh.
set -eu
DB=$1 N=$2 MINERS=$3 SIBLINGS=${4:-0}
now=$(($(date +%s) * 1000))
DIFF=1000000
SCATTER=2654435761
DIFF_LE=x\'40420f$(printf '%0122d' 0)\'
[ "$SIBLINGS" -gt 0 ] || SIBLINGS=$((N + 1))
"${top_builddir:?}/tests/integration/mkschema" >"$DB.schema"
sqlite3 "$DB" >/dev/null <<SQL
.read $DB.schema
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
    difficulty_f, work, work_f, timestamp, canonical, final,
    first_endpoint_id, first_seen)
    SELECT 1, CAST(printf('h%031d', i * $SCATTER % 4294967296) AS BLOB), i,
    CAST(printf('h%031d', (i - 1) * $SCATTER % 4294967296) AS BLOB),
    CAST(printf('m%031d', (i * 7 + i / 1000) % $MINERS) AS BLOB), $DIFF_LE,
    $DIFF, $DIFF_LE, $DIFF, $now - ($N - i) * 12000, 1, i <= $N - 100, 1, $now FROM n;
WITH RECURSIVE n(i) AS (SELECT $SIBLINGS UNION ALL SELECT i + $SIBLINGS
    FROM n WHERE i + $SIBLINGS <= $N)
INSERT INTO blocks (chain_id, hash, number, parent, miner, difficulty,
    difficulty_f, work, work_f, timestamp, canonical, final,
    first_endpoint_id, first_seen)
    SELECT 1, CAST(printf('r%031d', i * $SCATTER % 4294967296) AS BLOB), i,
    CAST(printf('h%031d', (i - 1) * $SCATTER % 4294967296) AS BLOB),
    CAST(printf('m%031d', (i + 3) % $MINERS) AS BLOB), $DIFF_LE, $DIFF,
    $DIFF_LE, $DIFF,
    $now - ($N - i) * 12000, 0, 0, 1, $now FROM n WHERE i <= $N;
INSERT INTO reorgs (chain_id, at, depth, ancestor_number, old_tip, new_tip,
    endpoint_id)
    SELECT 1, timestamp + 6000, 1, number - 1, hash,
    CAST(printf('h%031d', number * $SCATTER % 4294967296) AS BLOB), 1
    FROM blocks
    WHERE canonical = 0;
INSERT INTO miners (account, ss58)
    SELECT DISTINCT miner, 'miner-' || CAST(miner AS TEXT) FROM blocks;
INSERT INTO standings (chain_id, miner, blocks, final_blocks, work, work_f,
    final_work, first_number, last_number)
    SELECT 1, miner, count(*), sum(final), CAST(count(*) * $DIFF AS TEXT),
    count(*) * $DIFF, CAST(sum(final) * $DIFF AS TEXT), min(number),
    max(number) FROM blocks WHERE canonical = 1 GROUP BY miner;
SQL
rm -f "$DB.schema"
