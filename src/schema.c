/*
 * The store's schema as migrations.  Never edit a migration that has been
 * released: add the next one.  Times are Unix milliseconds; hashes and
 * accounts are 32-byte blobs; a difficulty is the chain's U512, 64 bytes
 * little-endian, exactly as in storage.
 */
#include "config.h"

#include "schema.h"
#include "util.h"

const char *const schema_migrations[] = {
	/* 1: chains, endpoints, blocks, runtime versions, the catch-up
	 * queue, standings, endpoint events, reorgs, and views for people. */
	"CREATE TABLE chains ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  format TEXT NOT NULL CHECK (format IN ('quantus', 'substrate')),"
	"  genesis BLOB CHECK (genesis IS NULL OR length(genesis) = 32),"
	"  block_time INTEGER NOT NULL,"	/* ms */
	"  backfill_from INTEGER NOT NULL DEFAULT 0,"
	"  finality_depth INTEGER NOT NULL,"	/* final = best - depth */
	"  best_number INTEGER,"
	"  best_hash BLOB,"
	"  final_number INTEGER,"
	"  updated_at INTEGER"			/* last head stored */
	");"
	"CREATE TABLE endpoints ("
	"  id INTEGER PRIMARY KEY,"
	"  chain_id INTEGER NOT NULL REFERENCES chains(id),"
	"  name TEXT NOT NULL UNIQUE,"
	"  rpc_url TEXT NOT NULL,"		/* passwords redacted */
	"  ws_url TEXT NOT NULL,"
	"  position INTEGER NOT NULL,"		/* preference order */
	"  configured INTEGER NOT NULL DEFAULT 1,"
	"  genesis BLOB,"
	"  system_chain TEXT,"
	"  spec_name TEXT,"
	"  spec_version INTEGER,"
	"  best_number INTEGER,"		/* last head it delivered */
	"  best_at INTEGER,"
	"  heads_first INTEGER NOT NULL DEFAULT 0," /* heads it brought first */
	"  heads_seen INTEGER NOT NULL DEFAULT 0,"
	"  lag_ms INTEGER,"			/* behind the first, last head */
	"  state TEXT NOT NULL DEFAULT 'unknown',"
	"  state_since INTEGER,"
	"  state_reason TEXT,"
	"  pruning_bound INTEGER,"		/* oldest state it still has */
	"  restarts INTEGER NOT NULL DEFAULT 0"
	");"
	"CREATE TABLE blocks ("
	"  chain_id INTEGER NOT NULL REFERENCES chains(id),"
	"  hash BLOB NOT NULL CHECK (length(hash) = 32),"
	"  number INTEGER NOT NULL,"
	"  parent BLOB NOT NULL CHECK (length(parent) = 32),"
	"  miner BLOB CHECK (miner IS NULL OR length(miner) = 32),"
	"  difficulty BLOB CHECK (difficulty IS NULL OR length(difficulty) = 64),"
	"  difficulty_f REAL,"			/* the same, for sums in views */
	"  timestamp INTEGER,"			/* Timestamp.Now */
	"  canonical INTEGER NOT NULL DEFAULT 0 CHECK (canonical IN (0, 1)),"
	"  final INTEGER NOT NULL DEFAULT 0 CHECK (final IN (0, 1)),"
	"  runtime_updated INTEGER NOT NULL DEFAULT 0,"
	"  first_endpoint_id INTEGER REFERENCES endpoints(id),"
	"  first_seen INTEGER NOT NULL,"
	"  PRIMARY KEY (chain_id, hash)"
	") WITHOUT ROWID;"
	"CREATE UNIQUE INDEX blocks_canonical ON blocks(chain_id, number)"
	"  WHERE canonical = 1;"
	"CREATE INDEX blocks_number ON blocks(chain_id, number);"
	"CREATE INDEX blocks_time ON blocks(chain_id, timestamp)"
	"  WHERE canonical = 1;"
	"CREATE INDEX blocks_miner ON blocks(chain_id, miner, number)"
	"  WHERE canonical = 1;"
	"CREATE TABLE miners ("
	"  account BLOB PRIMARY KEY,"		/* x'' stands for unknown */
	"  ss58 TEXT NOT NULL"
	") WITHOUT ROWID;"
	"INSERT INTO miners VALUES (x'', 'unknown');"
	"CREATE TABLE runtime_versions ("
	"  chain_id INTEGER NOT NULL REFERENCES chains(id),"
	"  spec_version INTEGER NOT NULL,"
	"  spec_name TEXT NOT NULL,"
	"  first_number INTEGER,"		/* first block that carries it */
	"  first_hash BLOB,"
	"  seen_at INTEGER NOT NULL,"
	"  PRIMARY KEY (chain_id, spec_version)"
	");"
	"CREATE TABLE queue ("
	"  id INTEGER PRIMARY KEY,"
	"  chain_id INTEGER NOT NULL REFERENCES chains(id),"
	"  kind TEXT NOT NULL"
	"    CHECK (kind IN ('headers', 'parent', 'state', 'runtime')),"
	"  range_from INTEGER,"	/* headers, state: numbers, inclusive */
	"  range_to INTEGER,"
	"  block_hash BLOB,"	/* parent: this block; runtime: at it */
	"  block_number INTEGER,"
	"  state TEXT NOT NULL DEFAULT 'pending'"
	"    CHECK (state IN ('pending', 'leased')),"
	"  lease_endpoint_id INTEGER REFERENCES endpoints(id),"
	"  lease_deadline INTEGER,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  next_attempt INTEGER NOT NULL DEFAULT 0,"
	"  last_outcome TEXT,"
	"  last_error TEXT,"
	"  last_endpoint_id INTEGER REFERENCES endpoints(id),"
	"  created_at INTEGER NOT NULL,"
	"  CHECK ((kind IN ('headers', 'state')) = (range_from IS NOT NULL AND"
	"    range_to IS NOT NULL AND block_hash IS NULL))"
	");"
	"CREATE UNIQUE INDEX queue_at ON queue(chain_id, kind, block_hash)"
	"  WHERE block_hash IS NOT NULL;"
	"CREATE INDEX queue_due ON queue(chain_id, state, next_attempt);"
	"CREATE TABLE standings ("
	"  chain_id INTEGER NOT NULL REFERENCES chains(id),"
	"  miner BLOB NOT NULL REFERENCES miners(account),"
	"  blocks INTEGER NOT NULL DEFAULT 0,"	/* canonical blocks */
	"  final_blocks INTEGER NOT NULL DEFAULT 0,"
	"  work TEXT NOT NULL DEFAULT '0',"	/* exact sum of difficulty */
	"  work_f REAL NOT NULL DEFAULT 0,"
	"  final_work TEXT NOT NULL DEFAULT '0',"
	"  first_number INTEGER,"
	"  last_number INTEGER,"
	"  PRIMARY KEY (chain_id, miner)"
	") WITHOUT ROWID;"
	"CREATE TABLE reorgs ("
	"  id INTEGER PRIMARY KEY,"
	"  chain_id INTEGER NOT NULL REFERENCES chains(id),"
	"  at INTEGER NOT NULL,"
	"  depth INTEGER NOT NULL,"		/* blocks that left the chain */
	"  ancestor_number INTEGER NOT NULL,"
	"  old_tip BLOB NOT NULL,"
	"  new_tip BLOB NOT NULL,"
	"  endpoint_id INTEGER REFERENCES endpoints(id)"
	");"
	"CREATE TABLE endpoint_events ("
	"  id INTEGER PRIMARY KEY,"
	"  endpoint_id INTEGER NOT NULL REFERENCES endpoints(id),"
	"  at INTEGER NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  detail TEXT"
	");"
	"CREATE INDEX endpoint_events_at ON endpoint_events(endpoint_id, at);"
	/* Views for people at the sqlite3 prompt. */
	"CREATE VIEW standings_all AS"
	"  SELECT c.name AS chain, m.ss58 AS miner, s.blocks,"
	"    s.blocks - s.final_blocks AS provisional, s.final_blocks,"
	"    s.work, s.work_f, s.first_number, s.last_number"
	"  FROM standings s JOIN chains c ON c.id = s.chain_id"
	"  JOIN miners m ON m.account = s.miner WHERE s.blocks > 0;"
	"CREATE VIEW standings_1h AS"
	"  SELECT c.name AS chain, m.ss58 AS miner, count(*) AS blocks,"
	"    sum(b.final = 0) AS provisional, sum(b.final) AS final_blocks,"
	"    total(b.difficulty_f) AS work_f, min(b.number) AS first_number,"
	"    max(b.number) AS last_number"
	"  FROM blocks b JOIN chains c ON c.id = b.chain_id"
	"  JOIN miners m ON m.account = coalesce(b.miner, x'')"
	"  WHERE b.canonical = 1 AND b.timestamp >="
	"    (strftime('%s', 'now') - 3600) * 1000"
	"  GROUP BY b.chain_id, coalesce(b.miner, x'');"
	"CREATE VIEW standings_24h AS"
	"  SELECT c.name AS chain, m.ss58 AS miner, count(*) AS blocks,"
	"    sum(b.final = 0) AS provisional, sum(b.final) AS final_blocks,"
	"    total(b.difficulty_f) AS work_f, min(b.number) AS first_number,"
	"    max(b.number) AS last_number"
	"  FROM blocks b JOIN chains c ON c.id = b.chain_id"
	"  JOIN miners m ON m.account = coalesce(b.miner, x'')"
	"  WHERE b.canonical = 1 AND b.timestamp >="
	"    (strftime('%s', 'now') - 86400) * 1000"
	"  GROUP BY b.chain_id, coalesce(b.miner, x'');"
	"CREATE VIEW standings_7d AS"
	"  SELECT c.name AS chain, m.ss58 AS miner, count(*) AS blocks,"
	"    sum(b.final = 0) AS provisional, sum(b.final) AS final_blocks,"
	"    total(b.difficulty_f) AS work_f, min(b.number) AS first_number,"
	"    max(b.number) AS last_number"
	"  FROM blocks b JOIN chains c ON c.id = b.chain_id"
	"  JOIN miners m ON m.account = coalesce(b.miner, x'')"
	"  WHERE b.canonical = 1 AND b.timestamp >="
	"    (strftime('%s', 'now') - 604800) * 1000"
	"  GROUP BY b.chain_id, coalesce(b.miner, x'');"
	"CREATE VIEW queue_summary AS"
	"  SELECT c.name AS chain, q.kind, q.state, count(*) AS items,"
	"    sum(CASE WHEN q.range_from IS NOT NULL"
	"      THEN q.range_to - q.range_from + 1 ELSE 1 END) AS blocks,"
	"    max(q.attempts) AS max_attempts,"
	"    datetime(min(q.created_at) / 1000, 'unixepoch') AS oldest"
	"  FROM queue q JOIN chains c ON c.id = q.chain_id"
	"  GROUP BY q.chain_id, q.kind, q.state;"
	"CREATE VIEW endpoint_health AS"
	"  SELECT c.name AS chain, e.name AS endpoint, e.state,"
	"    datetime(e.state_since / 1000, 'unixepoch') AS since,"
	"    e.state_reason AS reason, e.best_number,"
	"    c.best_number - e.best_number AS behind, e.lag_ms, e.heads_first,"
	"    e.heads_seen, e.pruning_bound, e.restarts"
	"  FROM endpoints e JOIN chains c ON c.id = e.chain_id"
	"  WHERE e.configured = 1 ORDER BY c.name, e.position;"
	"CREATE VIEW recent_reorgs AS"
	"  SELECT c.name AS chain, datetime(r.at / 1000, 'unixepoch') AS at,"
	"    r.depth, r.ancestor_number, hex(r.old_tip) AS old_tip,"
	"    hex(r.new_tip) AS new_tip, e.name AS seen_by"
	"  FROM reorgs r JOIN chains c ON c.id = r.chain_id"
	"  LEFT JOIN endpoints e ON e.id = r.endpoint_id"
	"  ORDER BY r.at DESC LIMIT 50;",
	/* 2: when a block's state (difficulty, time) was stored, so that
	 * how long state reads wait can be read off the store. */
	"ALTER TABLE blocks ADD COLUMN state_at INTEGER;"
	"CREATE VIEW state_waits AS"
	"  SELECT c.name AS chain, count(*) AS blocks,"
	"    max(b.state_at - b.first_seen) AS max_ms,"
	"    avg(b.state_at - b.first_seen) AS avg_ms"
	"  FROM blocks b JOIN chains c ON c.id = b.chain_id"
	"  WHERE b.canonical = 1 AND b.state_at IS NOT NULL AND"
	"    b.first_seen >= (strftime('%s', 'now') - 3600) * 1000"
	"  GROUP BY b.chain_id;",
	/* 3: forks: the tip each endpoint reported last, and the splits
	 * seen between endpoints (two or more branches at once), each with
	 * its sides: which endpoint was on which branch, how long and how
	 * heavy that branch was above the common ancestor. */
	"ALTER TABLE endpoints ADD COLUMN tip_hash BLOB"
	"  CHECK (tip_hash IS NULL OR length(tip_hash) = 32);"
	"ALTER TABLE endpoints ADD COLUMN tip_number INTEGER;"
	"ALTER TABLE endpoints ADD COLUMN tip_at INTEGER;"
	"CREATE TABLE splits ("
	"  id INTEGER PRIMARY KEY,"
	"  chain_id INTEGER NOT NULL REFERENCES chains(id),"
	"  first_seen INTEGER NOT NULL,"	/* tips first on two branches */
	"  last_seen INTEGER NOT NULL,"		/* last seen so */
	"  ended INTEGER,"			/* NULL while it lasts */
	"  branches INTEGER NOT NULL,"		/* the most seen at once */
	"  ancestor_number INTEGER,"		/* NULL: not known */
	"  ancestor_hash BLOB"
	"    CHECK (ancestor_hash IS NULL OR length(ancestor_hash) = 32)"
	");"
	"CREATE INDEX splits_chain ON splits(chain_id, first_seen);"
	"CREATE TABLE split_sides ("
	"  split_id INTEGER NOT NULL REFERENCES splits(id),"
	"  endpoint_id INTEGER NOT NULL REFERENCES endpoints(id),"
	"  branch INTEGER NOT NULL,"		/* 1 is the longest */
	"  tip_number INTEGER NOT NULL,"	/* its last tip in the split */
	"  tip_hash BLOB NOT NULL CHECK (length(tip_hash) = 32),"
	"  length INTEGER,"			/* blocks above the ancestor */
	"  work TEXT,"				/* their summed difficulty */
	"  work_blocks INTEGER,"		/* how many of them it sums */
	"  PRIMARY KEY (split_id, endpoint_id)"
	") WITHOUT ROWID;"
	"CREATE VIEW recent_splits AS"
	"  SELECT c.name AS chain, s.id AS split,"
	"    datetime(s.first_seen / 1000, 'unixepoch') AS first_seen,"
	"    datetime(s.ended / 1000, 'unixepoch') AS ended,"
	"    (coalesce(s.ended, s.last_seen) - s.first_seen) / 1000 AS seconds,"
	"    s.ancestor_number, hex(s.ancestor_hash) AS ancestor,"
	"    e.name AS endpoint, d.branch, d.tip_number, hex(d.tip_hash) AS tip,"
	"    d.length, d.work, d.work_blocks"
	"  FROM splits s JOIN chains c ON c.id = s.chain_id"
	"  JOIN split_sides d ON d.split_id = s.id"
	"  JOIN endpoints e ON e.id = d.endpoint_id"
	"  WHERE s.id IN (SELECT id FROM splits ORDER BY first_seen DESC"
	"    LIMIT 20)"
	"  ORDER BY s.first_seen DESC, s.id DESC, d.branch, e.position;",
	/* 4: a chain whose every endpoint is slow: why and since when
	 * (NULL when it is not). */
	"ALTER TABLE chains ADD COLUMN slow_reason TEXT;"
	"ALTER TABLE chains ADD COLUMN slow_since INTEGER;",
	/* 5: standings count mined blocks only.  The genesis (#0) is in
	 * none; a block without a miner (x'') is "unsealed", shown apart
	 * and in no view of miners.  The standings rows that counted a
	 * genesis are recounted by schema_fixups[4]. */
	"DROP VIEW standings_all;"
	"DROP VIEW standings_1h;"
	"DROP VIEW standings_24h;"
	"DROP VIEW standings_7d;"
	"CREATE VIEW standings_all AS"
	"  SELECT c.name AS chain, m.ss58 AS miner, s.blocks,"
	"    s.blocks - s.final_blocks AS provisional, s.final_blocks,"
	"    s.work, s.work_f, s.first_number, s.last_number"
	"  FROM standings s JOIN chains c ON c.id = s.chain_id"
	"  JOIN miners m ON m.account = s.miner"
	"  WHERE s.blocks > 0 AND s.miner != x'';"
	"CREATE VIEW standings_1h AS"
	"  SELECT c.name AS chain, m.ss58 AS miner, count(*) AS blocks,"
	"    sum(b.final = 0) AS provisional, sum(b.final) AS final_blocks,"
	"    total(b.difficulty_f) AS work_f, min(b.number) AS first_number,"
	"    max(b.number) AS last_number"
	"  FROM blocks b JOIN chains c ON c.id = b.chain_id"
	"  JOIN miners m ON m.account = b.miner"
	"  WHERE b.canonical = 1 AND b.number > 0 AND b.timestamp >="
	"    (strftime('%s', 'now') - 3600) * 1000"
	"  GROUP BY b.chain_id, b.miner;"
	"CREATE VIEW standings_24h AS"
	"  SELECT c.name AS chain, m.ss58 AS miner, count(*) AS blocks,"
	"    sum(b.final = 0) AS provisional, sum(b.final) AS final_blocks,"
	"    total(b.difficulty_f) AS work_f, min(b.number) AS first_number,"
	"    max(b.number) AS last_number"
	"  FROM blocks b JOIN chains c ON c.id = b.chain_id"
	"  JOIN miners m ON m.account = b.miner"
	"  WHERE b.canonical = 1 AND b.number > 0 AND b.timestamp >="
	"    (strftime('%s', 'now') - 86400) * 1000"
	"  GROUP BY b.chain_id, b.miner;"
	"CREATE VIEW standings_7d AS"
	"  SELECT c.name AS chain, m.ss58 AS miner, count(*) AS blocks,"
	"    sum(b.final = 0) AS provisional, sum(b.final) AS final_blocks,"
	"    total(b.difficulty_f) AS work_f, min(b.number) AS first_number,"
	"    max(b.number) AS last_number"
	"  FROM blocks b JOIN chains c ON c.id = b.chain_id"
	"  JOIN miners m ON m.account = b.miner"
	"  WHERE b.canonical = 1 AND b.number > 0 AND b.timestamp >="
	"    (strftime('%s', 'now') - 604800) * 1000"
	"  GROUP BY b.chain_id, b.miner;"
	"CREATE VIEW standings_unsealed AS"
	"  SELECT c.name AS chain, s.blocks,"
	"    s.blocks - s.final_blocks AS provisional, s.final_blocks,"
	"    s.work, s.work_f, s.first_number, s.last_number"
	"  FROM standings s JOIN chains c ON c.id = s.chain_id"
	"  WHERE s.blocks > 0 AND s.miner = x'';",
	/* 6: the canonical blocks of a time window read from one index
	 * alone, in time order, with all that the standings of a window and
	 * its hashrate read (canonical too: SQLite 3.40 counts a partial
	 * index as covering only with the columns of its WHERE).  It
	 * replaces blocks_time, its first two columns; without it a window
	 * of 7 days read 50 000 blocks of a 1.65 M block store one by one
	 * in the order of their hashes. */
	"CREATE INDEX blocks_window ON blocks(chain_id, timestamp, number,"
	"  miner, final, difficulty, canonical) WHERE canonical = 1;"
	"DROP INDEX blocks_time;",
	/* 7: proof of work: the largest difficulty a quantus block's seal
	 * meets (NULL: no seal, or one of the wrong shape), and whether it
	 * meets the difficulty at its parent (NULL: not known yet, no seal
	 * to check, or stored before version 7) ... */
	"ALTER TABLE blocks ADD COLUMN pow_max BLOB"
	"  CHECK (pow_max IS NULL OR length(pow_max) = 64);"
	"ALTER TABLE blocks ADD COLUMN proven INTEGER"
	"  CHECK (proven IS NULL OR proven IN (0, 1));"
	/* ... and a chain whose every seal fails, for 10 block times,
	 * whichever endpoint served it: why and since when (NULL when
	 * seals pass). */
	"ALTER TABLE chains ADD COLUMN unproven_reason TEXT;"
	"ALTER TABLE chains ADD COLUMN unproven_since INTEGER;",
	/* 8: a block's work is the difficulty it had to meet, the one read
	 * at its parent, as the node counts it (NULL until that is known);
	 * the standings, their views and the window index sum it.  Which
	 * endpoint answered a block's state (difficulty and time), so that
	 * a difficulty found false names its answerer ... */
	"ALTER TABLE blocks ADD COLUMN work BLOB"
	"  CHECK (work IS NULL OR length(work) = 64);"
	"ALTER TABLE blocks ADD COLUMN work_f REAL;"
	"ALTER TABLE blocks ADD COLUMN state_endpoint_id INTEGER"
	"  REFERENCES endpoints(id);"
	/* ... and whether a second endpoint read it: 0 owed (a seal
	 * failed against it), 1 the same, NULL neither. */
	"ALTER TABLE blocks ADD COLUMN cross_read INTEGER"
	"  CHECK (cross_read IS NULL OR cross_read IN (0, 1));"
	"DROP VIEW standings_1h;"
	"DROP VIEW standings_24h;"
	"DROP VIEW standings_7d;"
	"CREATE VIEW standings_1h AS"
	"  SELECT c.name AS chain, m.ss58 AS miner, count(*) AS blocks,"
	"    sum(b.final = 0) AS provisional, sum(b.final) AS final_blocks,"
	"    total(b.work_f) AS work_f, min(b.number) AS first_number,"
	"    max(b.number) AS last_number"
	"  FROM blocks b JOIN chains c ON c.id = b.chain_id"
	"  JOIN miners m ON m.account = b.miner"
	"  WHERE b.canonical = 1 AND b.number > 0 AND b.timestamp >="
	"    (strftime('%s', 'now') - 3600) * 1000"
	"  GROUP BY b.chain_id, b.miner;"
	"CREATE VIEW standings_24h AS"
	"  SELECT c.name AS chain, m.ss58 AS miner, count(*) AS blocks,"
	"    sum(b.final = 0) AS provisional, sum(b.final) AS final_blocks,"
	"    total(b.work_f) AS work_f, min(b.number) AS first_number,"
	"    max(b.number) AS last_number"
	"  FROM blocks b JOIN chains c ON c.id = b.chain_id"
	"  JOIN miners m ON m.account = b.miner"
	"  WHERE b.canonical = 1 AND b.number > 0 AND b.timestamp >="
	"    (strftime('%s', 'now') - 86400) * 1000"
	"  GROUP BY b.chain_id, b.miner;"
	"CREATE VIEW standings_7d AS"
	"  SELECT c.name AS chain, m.ss58 AS miner, count(*) AS blocks,"
	"    sum(b.final = 0) AS provisional, sum(b.final) AS final_blocks,"
	"    total(b.work_f) AS work_f, min(b.number) AS first_number,"
	"    max(b.number) AS last_number"
	"  FROM blocks b JOIN chains c ON c.id = b.chain_id"
	"  JOIN miners m ON m.account = b.miner"
	"  WHERE b.canonical = 1 AND b.number > 0 AND b.timestamp >="
	"    (strftime('%s', 'now') - 604800) * 1000"
	"  GROUP BY b.chain_id, b.miner;"
	"DROP INDEX blocks_window;"
	"CREATE INDEX blocks_window ON blocks(chain_id, timestamp, number,"
	"  miner, final, work, canonical) WHERE canonical = 1;"
	/* The canonical blocks whose seal fails, few, counted by status. */
	"CREATE INDEX blocks_unproven ON blocks(chain_id, canonical, proven)"
	"  WHERE canonical = 1 AND proven = 0;",
	/* 9: blocks whose seal failed, per endpoint that served them
	 * first (counted from the store's blocks when it is migrated) ... */
	"ALTER TABLE endpoints ADD COLUMN seals_failed INTEGER NOT NULL"
	"  DEFAULT 0;"
	"UPDATE endpoints SET seals_failed = f.n FROM (SELECT"
	"  first_endpoint_id AS id, count(*) AS n FROM blocks WHERE proven = 0"
	"  GROUP BY first_endpoint_id) AS f WHERE f.id = endpoints.id;"
	/* ... why a rule of a chain's state is in doubt, and since when:
	 * every endpoint's timestamps ahead of this clock or too soon
	 * after their parents', every endpoint's difficulties off the
	 * retarget rule (NULL while answers are judged by them) ... */
	"ALTER TABLE chains ADD COLUMN rule_doubt TEXT;"
	"ALTER TABLE chains ADD COLUMN rule_doubt_since INTEGER;"
	/* ... and whether its difficulties are recomputed by a retarget
	 * rule, and why not (NULL: no runtime known yet). */
	"ALTER TABLE chains ADD COLUMN retarget TEXT;",
	/* 10: blocks in a table of rowids, in the order they are stored,
	 * found by hash through an index: keyed by hash (WITHOUT ROWID),
	 * each block stored, or its state, finality or place on the chain
	 * written, touched a page of the whole table at random, which a
	 * store larger than the page cache reads from disk and writes to
	 * the WAL again, and the supervisor's time a block grew with the
	 * store.  (The legacy rename: the views name blocks, which does
	 * not exist between the DROP and the RENAME.) */
	"CREATE TABLE blocks_v10 ("
	"  chain_id INTEGER NOT NULL REFERENCES chains(id),"
	"  hash BLOB NOT NULL CHECK (length(hash) = 32),"
	"  number INTEGER NOT NULL,"
	"  parent BLOB NOT NULL CHECK (length(parent) = 32),"
	"  miner BLOB CHECK (miner IS NULL OR length(miner) = 32),"
	"  difficulty BLOB CHECK (difficulty IS NULL OR length(difficulty) = 64),"
	"  difficulty_f REAL,"
	"  timestamp INTEGER,"
	"  canonical INTEGER NOT NULL DEFAULT 0 CHECK (canonical IN (0, 1)),"
	"  final INTEGER NOT NULL DEFAULT 0 CHECK (final IN (0, 1)),"
	"  runtime_updated INTEGER NOT NULL DEFAULT 0,"
	"  first_endpoint_id INTEGER REFERENCES endpoints(id),"
	"  first_seen INTEGER NOT NULL,"
	"  state_at INTEGER,"
	"  pow_max BLOB CHECK (pow_max IS NULL OR length(pow_max) = 64),"
	"  proven INTEGER CHECK (proven IS NULL OR proven IN (0, 1)),"
	"  work BLOB CHECK (work IS NULL OR length(work) = 64),"
	"  work_f REAL,"
	"  state_endpoint_id INTEGER REFERENCES endpoints(id),"
	"  cross_read INTEGER CHECK (cross_read IS NULL OR cross_read IN (0, 1))"
	");"
	"INSERT INTO blocks_v10 (chain_id, hash, number, parent, miner,"
	"  difficulty, difficulty_f, timestamp, canonical, final,"
	"  runtime_updated, first_endpoint_id, first_seen, state_at, pow_max,"
	"  proven, work, work_f, state_endpoint_id, cross_read)"
	"  SELECT chain_id, hash, number, parent, miner, difficulty,"
	"  difficulty_f, timestamp, canonical, final, runtime_updated,"
	"  first_endpoint_id, first_seen, state_at, pow_max, proven, work,"
	"  work_f, state_endpoint_id, cross_read FROM blocks"
	"  ORDER BY chain_id, number;"
	"DROP TABLE blocks;"
	"PRAGMA legacy_alter_table = ON;"
	"ALTER TABLE blocks_v10 RENAME TO blocks;"
	"PRAGMA legacy_alter_table = OFF;"
	"CREATE UNIQUE INDEX blocks_hash ON blocks(chain_id, hash);"
	"CREATE UNIQUE INDEX blocks_canonical ON blocks(chain_id, number)"
	"  WHERE canonical = 1;"
	"CREATE INDEX blocks_number ON blocks(chain_id, number);"
	"CREATE INDEX blocks_miner ON blocks(chain_id, miner, number)"
	"  WHERE canonical = 1;"
	"CREATE INDEX blocks_window ON blocks(chain_id, timestamp, number,"
	"  miner, final, work, canonical) WHERE canonical = 1;"
	"CREATE INDEX blocks_unproven ON blocks(chain_id, canonical, proven)"
	"  WHERE canonical = 1 AND proven = 0;",
};

const size_t schema_version = nitems(schema_migrations);

/*
 * Run by chainwatchd right after the migration of the same index, in its
 * transaction, with u512_sum() (u512_sql.h) at hand: what plain SQL
 * cannot do to the rows of a store that existed before.  A new store has
 * no such rows, so a schema without them (tests' mkschema) is the same.
 */
const char *const schema_fixups[nitems(schema_migrations)] = {
	[4] =
	/* The standings of whoever "mined" a canonical genesis (x'' in
	 * practice), counted again from the blocks without it. */
	"CREATE TEMP TABLE genesis_rows AS"
	"  SELECT DISTINCT chain_id, coalesce(miner, x'') AS miner"
	"  FROM blocks WHERE number = 0 AND canonical = 1;"
	"DELETE FROM standings WHERE EXISTS (SELECT 1 FROM genesis_rows g"
	"  WHERE g.chain_id = standings.chain_id AND"
	"  g.miner = standings.miner);"
	"INSERT INTO standings (chain_id, miner, blocks, final_blocks, work,"
	"  final_work, first_number, last_number)"
	"  SELECT b.chain_id, g.miner, count(*), sum(b.final),"
	"    u512_sum(b.difficulty),"
	"    u512_sum(CASE WHEN b.final = 1 THEN b.difficulty END),"
	"    min(b.number), max(b.number)"
	"  FROM genesis_rows g JOIN blocks b ON b.chain_id = g.chain_id AND"
	"    coalesce(b.miner, x'') = g.miner"
	"  WHERE b.canonical = 1 AND b.number > 0"
	"  GROUP BY b.chain_id, g.miner;"
	"UPDATE standings SET work_f = CAST(work AS REAL) WHERE EXISTS"
	"  (SELECT 1 FROM genesis_rows g WHERE g.chain_id ="
	"  standings.chain_id AND g.miner = standings.miner);"
	"DROP TABLE genesis_rows;",
	[7] =
	/* Each block's work from its parent's difficulty, and every
	 * standing's work counted again from it: the same blocks, each
	 * credited with what it had to meet instead of what its children
	 * must (the counts of blocks do not change). */
	"UPDATE blocks SET (work, work_f) = (SELECT p.difficulty,"
	"  p.difficulty_f FROM blocks p WHERE p.chain_id = blocks.chain_id"
	"  AND p.hash = blocks.parent) WHERE number > 0;"
	"CREATE TEMP TABLE recount AS"
	"  SELECT chain_id, coalesce(miner, x'') AS miner, count(*) AS blocks,"
	"    sum(final) AS final_blocks, u512_sum(work) AS work,"
	"    u512_sum(CASE WHEN final = 1 THEN work END) AS final_work,"
	"    min(number) AS first_number, max(number) AS last_number"
	"  FROM blocks WHERE canonical = 1 AND number > 0 GROUP BY 1, 2;"
	"UPDATE standings SET (work, final_work) = (SELECT"
	"  coalesce(r.work, '0'), coalesce(r.final_work, '0') FROM recount r"
	"  WHERE r.chain_id = standings.chain_id AND r.miner = standings.miner)"
	"  WHERE EXISTS (SELECT 1 FROM recount r WHERE r.chain_id ="
	"  standings.chain_id AND r.miner = standings.miner);"
	"UPDATE standings SET work_f = CAST(work AS REAL);"
	"DROP TABLE recount;",
};
