#!/bin/sh
# chainwatch opens the store read-only: while a writer holds it (WAL), on a
# read-only copy (0444 files in a 0555 directory, with and without the
# -wal and -shm), and refuses what it cannot read, naming what and where.
. "$top_srcdir/tests/integration/cli_lib.sh"

DB=$T/chainwatch.db
cli_store "$DB"

# What cannot be opened: exit 111, and the message names the file.
expect_rc 111 cw -d "$T/nothere.db" verify 2>"$T/err"
grep -qx "chainwatch: $T/nothere.db: cannot open the store: No such file or directory" \
    "$T/err" || { cat "$T/err"; fail "missing file: message"; }
[ -e "$T/nothere.db" ] && fail "a missing store was created"
expect_rc 111 cw -d "$T" verify 2>"$T/err"
grep -q "^chainwatch: $T: cannot open the store: not a regular file" \
    "$T/err" || { cat "$T/err"; fail "a directory: message"; }
echo "not a database" >"$T/text.db"
expect_rc 111 cw -d "$T/text.db" verify 2>"$T/err"
grep -q "^chainwatch: $T/text.db: cannot open the store: " "$T/err" ||
    { cat "$T/err"; fail "a text file: message"; }
ok "missing, a directory, not a database: 111"

# Schema versions: a newer store is refused, an older one is not ready.
V=$("$MKSCHEMA" | sed -n 's/^PRAGMA user_version = \([0-9]*\);$/\1/p')
[ -n "$V" ] || fail "mkschema prints no user_version"
cp "$DB" "$T/new.db"
sqlite3 "$T/new.db" "PRAGMA user_version = $((V + 1))" || fail "sqlite3"
expect_rc 111 cw -d "$T/new.db" standings planck 2>"$T/err"
grep -qx "chainwatch: $T/new.db: schema version $((V + 1)) is newer than this chainwatch knows ($V): upgrade chainwatch" \
    "$T/err" || { cat "$T/err"; fail "newer schema: message"; }
"$MKSCHEMA" 0 | sqlite3 "$T/old.db" || fail "sqlite3"
expect_rc 111 cw -d "$T/old.db" verify 2>"$T/err"
grep -qx "chainwatch: $T/old.db: not migrated yet (schema version 0 of $V; start chainwatchd)" \
    "$T/err" || { cat "$T/err"; fail "older schema: message"; }
ok "schema versions"

# A writer at work: a block committed to the -wal only (no checkpoint)
# is seen, its open write transaction neither blocks nor shows.
python3 - "$DB" "$T/ready" "$T/stop" <<'PY' >"$T/writer.log" 2>&1 &
import os, sqlite3, sys, time
db, ready, stop = sys.argv[1:]
c = sqlite3.connect(db, isolation_level=None)
c.execute("PRAGMA wal_autocheckpoint = 0")
c.execute("BEGIN IMMEDIATE")
c.execute("INSERT INTO blocks (chain_id, hash, number, parent, first_seen) "
          "VALUES (2, zeroblob(32), 0, zeroblob(32), 1)")
c.execute("COMMIT")
c.execute("BEGIN IMMEDIATE")
c.execute("DELETE FROM standings")
open(ready, "w").close()
for _ in range(300):
    if os.path.exists(stop):
        break
    time.sleep(0.1)
c.execute("ROLLBACK")
PY
WRITER=$!
CW_PIDS="$CW_PIDS $WRITER"
wait_for 20 '[ -f "$T/ready" ]' || { cat "$T/writer.log"; fail "writer not ready"; }
[ -s "$DB-wal" ] || fail "the writer's block is not in $DB-wal"
expect_rc 0 cw -d "$DB" verify >"$T/out"
grep -qx 'verify: 2 chains, 33 blocks, 0 differences' "$T/out" ||
    { cat "$T/out"; fail "verify while a writer holds the store"; }
expect_rc 0 cw -d "$DB" standings planck >"$T/out"
grep -qx '3 miners, 29 blocks' "$T/out" || fail "standings while a writer"
ok "while a writer holds the store"

# Copies in a read-only directory, read by a user who cannot write there
# (root can write anywhere: run as nobody when we are root).
if [ "$(id -u)" = 0 ]; then
	chmod 0755 "$T"
	if setpriv --reuid=65534 --regid=65534 --clear-groups \
	    "$CHAINWATCH" -h >/dev/null 2>&1; then
		CW_AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
	else
		echo "note: cannot run as nobody; read-only checks run as root"
	fi
fi
mkdir "$T/live" "$T/clean"
# Taken while the writer runs: with its -wal and -shm.
cp "$DB" "$DB-wal" "$DB-shm" "$T/live/" || fail "cp live"
touch "$T/stop"
wait "$WRITER"
# Taken after a clean close: the main file only, still in WAL mode.
sqlite3 "$DB" "PRAGMA journal_mode" | grep -qx wal || fail "not a WAL store"
[ -e "$DB-wal" ] && fail "$DB-wal left after the last close"
cp "$DB" "$T/clean/" || fail "cp clean"
CW_CLEANUP='chmod -R u+w "$T"'
for d in live clean; do
	chmod 0444 "$T/$d"/*
	chmod 0555 "$T/$d"
done

expect_rc 0 cw -d "$T/live/chainwatch.db" verify >"$T/out"
grep -qx 'verify: 2 chains, 33 blocks, 0 differences' "$T/out" ||
    { cat "$T/out"; fail "read-only copy with its -wal"; }
expect_rc 0 cw -d "$T/clean/chainwatch.db" verify >"$T/out"
grep -qx 'verify: 2 chains, 33 blocks, 0 differences' "$T/out" ||
    { cat "$T/out"; fail "read-only copy of the main file"; }
expect_rc 0 cw -d "$T/clean/chainwatch.db" standings planck --json >"$T/j"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["blocks"] == 29' \
    "$T/j" || fail "standings on a read-only copy"
if [ -n "$CW_AS" ]; then
	[ -z "$(ls "$T/clean" | grep -v '^chainwatch.db$')" ] ||
	    { ls -l "$T/clean"; fail "files made in a read-only directory"; }
	# A file we may not read is refused as such.
	chmod 0755 "$T/clean"
	chmod 0400 "$T/clean/chainwatch.db"
	expect_rc 111 cw -d "$T/clean/chainwatch.db" verify 2>"$T/err"
	grep -qx "chainwatch: $T/clean/chainwatch.db: cannot open the store: Permission denied" \
	    "$T/err" || { cat "$T/err"; fail "unreadable store: message"; }
fi
ok "read-only copies${CW_AS:+ (as nobody)}"
