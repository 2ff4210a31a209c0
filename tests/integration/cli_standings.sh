#!/bin/sh
# chainwatch standings: the table and --json of a crafted store, every
# window, --final and --limit, against what python3 computes from the same
# blocks; then the ways a command line can be wrong.
. "$top_srcdir/tests/integration/cli_lib.sh"

DB=$T/chainwatch.db
cli_store "$DB"

# A table for people must fit 80 columns.
narrow() {
	awk 'length($0) > 80 { print; exit 1 }' "$1" ||
	    fail "wider than 80 columns"
}

# The table, exactly: ranked by blocks, then work; the genesis is not
# counted, the block without a miner is "unsealed", on a line of its own,
# in no total, share or hashrate; the fork block is not counted; 80
# columns at most.
# The store's last head is of 2025: its age is days, however many.
cw -d "$DB" standings planck >"$T/out" || fail "standings planck"
cat >"$T/want" <<'EOF_WANT'
planck: all blocks
as of N d ago, best #30, final #27
hashrate 39.6 YH/s (work over 9 d of block times)

# miner             blocks prov final    work share   H/s first last
1 qzjqcX6U...3fA7rK     12    0    12 1.52e31 41.4% 16.1Y     1   27
2 qzkDzQMv...VA7Wqh     11    1    10 1.27e31 37.9% 14.7Y    11   28
3 qzkcNHdM...vf4fHP      6    1     5 7.61e30 20.7% 8.81Y    21   30

3 miners, 29 blocks
unsealed 1: block without a miner in the digest, not counted (#29)
EOF_WANT
sed 's/^as of [0-9][0-9]* d ago,/as of N d ago,/' "$T/out" >"$T/got"
diff -u "$T/want" "$T/got" || fail "standings planck: unexpected table"
narrow "$T/out"
ok "standings table"

# check_json FILE KEY [LIMIT]: FILE is the --json output, KEY the entry of
# expect.json it must equal (rows cut to LIMIT when given).
check_json() {
	python3 - "$1" "$T/expect.json" "$2" "${3:-0}" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))[sys.argv[3]]
limit = int(sys.argv[4])
window, _, final = sys.argv[3].partition(" ")
def check(what, a, b):
    if a != b:
        sys.exit("%s: %r, want %r" % (what, a, b))
check("chain", got["chain"], "planck")
check("window", got["window"], window)
check("final_only", got["final_only"], final == "final")
check("as_of", got["as_of"], "2025-01-02T03:04:05Z")
check("as_of_ms", got["as_of_ms"], 1735787045678)
check("best_number", got["best_number"], 30)
check("final_number", got["final_number"], 27)
check("blocks", got["blocks"], want["blocks"])
check("miners", got["miners"], want["miners"])
check("hashrate_estimator", got["hashrate_estimator"], "work_over_span")
check("span_first_ms", got["span_first_ms"], want["span_first_ms"])
check("span_last_ms", got["span_last_ms"], want["span_last_ms"])
# Blocks without a miner apart, the genesis nowhere: never a miner's row.
check("unsealed", got["unsealed"], want["unsealed"])
for g in got["rows"]:
    if g["account"] is None or g["miner"] in ("unknown", "unsealed"):
        sys.exit("a row that is no miner's: %r" % g)
def close(what, a, b):
    if (a is None) != (b is None) or (a is not None and abs(a / b - 1) > 1e-12):
        sys.exit("%s: hashrate %r, want %r" % (what, a, b))
close("network", got["hashrate"], want["hashrate"])
rows = want["rows"][:limit] if limit else want["rows"]
check("row count", len(got["rows"]), len(rows))
for g, w in zip(got["rows"], rows):
    where = "rank %d" % w["rank"]
    if abs(g.pop("share") - w.pop("share")) > 1e-9:
        sys.exit(where + ": share")
    if abs(g.pop("work_f") / float(w["work"]) - 1) > 1e-15:
        sys.exit(where + ": work_f")
    close(where, g.pop("hashrate"), w.pop("hashrate"))
    check(where, g, w)
PY
}

for w in all 1h 24h 7d; do
	cw -d "$DB" standings planck --window "$w" --json >"$T/j" ||
	    fail "standings --window $w --json"
	check_json "$T/j" "$w" || fail "standings --window $w --json"
	cw -d "$DB" standings planck --json --window "$w" --final >"$T/j" ||
	    fail "standings --window $w --final --json"
	check_json "$T/j" "$w final" ||
	    fail "standings --window $w --final --json"
done
ok "--json for all, 1h, 24h, 7d, with and without --final"

cw -d "$DB" standings --limit 2 --json planck >"$T/j" || fail "--limit 2"
check_json "$T/j" all 2 || fail "standings --limit 2 --json"
cw -d "$DB" standings planck --window 7d --final --limit 1 >"$T/out" ||
    fail "--limit 1"
narrow "$T/out"
grep -q '^1 qzkDzQMv\.\.\.VA7Wqh  *10  *0  *10 1\.14e31 58\.8% 58\.9Y  *11  *20$' \
    "$T/out" ||
    { cat "$T/out"; fail "--window 7d --final --limit 1: row"; }
grep -q '^2 ' "$T/out" && fail "--limit 1 shows a second row"
grep -q '^3 miners, 17 blocks (top 1 shown)$' "$T/out" ||
    { cat "$T/out"; fail "--limit 1: summary"; }
grep -q '^planck: blocks of the last 7d, final only$' "$T/out" ||
    { cat "$T/out"; fail "--window 7d --final: heading"; }
ok "--limit"

# Windows in the table: the last hour has blocks 26 to 30 only.
cw -d "$DB" standings planck --window 1h >"$T/out" || fail "--window 1h"
grep -q '^3 miners, 4 blocks$' "$T/out" ||
    { cat "$T/out"; fail "--window 1h: summary"; }
grep -qx 'unsealed 1: block without a miner in the digest, not counted (#29)' \
    "$T/out" || { cat "$T/out"; fail "--window 1h: unsealed"; }
narrow "$T/out"

# Nine-digit block numbers still fit, and shifting every mined block keeps the
# store consistent.
cp "$DB" "$T/wide.db" || fail "cp"
sqlite3 "$T/wide.db" "UPDATE blocks SET number = number + 987654300
    WHERE number > 0;
    UPDATE standings SET first_number = first_number + 987654300,
    last_number = last_number + 987654300;
    UPDATE chains SET best_number = best_number + 987654300,
    final_number = final_number + 987654300 WHERE name = 'planck'" ||
    fail "sqlite3 wide"
cw -d "$T/wide.db" standings planck >"$T/out" || fail "standings wide"
narrow "$T/out"
grep -q ' 987654301  *987654327$' "$T/out" || { cat "$T/out"; fail "wide"; }
cw -d "$T/wide.db" verify >/dev/null || fail "verify wide"
ok "nine-digit block numbers"

# A chain with nothing stored yet.
cw -d "$DB" standings heisenberg >"$T/out" || fail "standings heisenberg"
printf 'heisenberg: all blocks\nno head stored yet\nno blocks\n' >"$T/want"
diff -u "$T/want" "$T/out" || fail "an empty chain"
cw -d "$DB" standings heisenberg --json >"$T/j" || fail "heisenberg --json"
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["rows"] == [] and j["as_of"] is None and j["blocks"] == 0, j
' "$T/j" || fail "an empty chain, --json"
ok "a chain with no blocks"

# An unknown chain names the known ones.
expect_rc 100 cw -d "$DB" standings plonk >/dev/null 2>"$T/err"
grep -q "^chainwatch: $DB: no chain 'plonk' (known: heisenberg, planck)\$" \
    "$T/err" || { cat "$T/err"; fail "unknown chain: message"; }
ok "an unknown chain"

# The command line.
expect_rc 100 cw -d "$DB" 2>"$T/err"
grep -q '^usage: chainwatch' "$T/err" || fail "no command: no usage"
expect_rc 100 cw -d "$DB" frobnicate 2>"$T/err"
grep -q "unknown command 'frobnicate'" "$T/err" || fail "unknown command"
expect_rc 100 cw -d "$DB" standings 2>"$T/err"
grep -q 'standings: name the chain' "$T/err" || fail "standings without chain"
expect_rc 100 cw -d "$DB" standings planck heisenberg 2>/dev/null
expect_rc 100 cw -d "$DB" standings planck --window 2h 2>"$T/err"
grep -q "^chainwatch: standings: --window '2h': use 1h, 24h, 7d or all\$" \
    "$T/err" || { cat "$T/err"; fail "bad --window: message"; }
for n in 0 -1 x 1x ''; do
	expect_rc 100 cw -d "$DB" standings planck --limit "$n" 2>"$T/err"
	grep -q -- "--limit '$n'" "$T/err" || fail "--limit '$n': message"
done
expect_rc 100 cw -d "$DB" standings planck --frob 2>/dev/null
expect_rc 100 cw -d "$DB" verify planck heisenberg 2>/dev/null
expect_rc 0 cw -h >"$T/out"
grep -q '^usage: chainwatch' "$T/out" || fail "-h: no usage on stdout"
expect_rc 0 cw standings --help >"$T/out"
grep -q '^usage: chainwatch' "$T/out" || fail "standings --help"
ok "usage errors exit 100, -h 0"

# The store named by the configuration, and configurations that fail.
cat >"$T/conf" <<EOF_CONF
[daemon]
database = $DB
control_socket = $T/chainwatchd.sock
metrics_listen = none
[chain planck]
endpoint = a1 http://127.0.0.1:9/ ws://127.0.0.1:9/
EOF_CONF
cw -f "$T/conf" standings planck >"$T/out" || fail "-f: standings"
grep -q '^3 miners, 29 blocks$' "$T/out" || fail "-f: wrong store"
expect_rc 111 cw -f "$T/nothere.conf" standings planck 2>"$T/err"
grep -q "^$T/nothere.conf: cannot open: No such file or directory" \
    "$T/err" || { cat "$T/err"; fail "-f missing: message"; }
grep -q -- '-d database' "$T/err" || fail "-f missing: no hint at -d"
printf '[daemon]\ndatabase = relative.db\n' >"$T/bad.conf"
expect_rc 111 cw -f "$T/bad.conf" standings planck 2>"$T/err"
grep -q "^$T/bad.conf:2: " "$T/err" || { cat "$T/err"; fail "bad conf"; }
ok "-f"

# A window is summed block by block: a block whose work is not a 512-bit
# number (written past the CHECK) is named, and nothing is shown.
cp "$DB" "$T/bad.db"
sqlite3 "$T/bad.db" "PRAGMA ignore_check_constraints = ON;
    UPDATE blocks SET work = x'0102' WHERE number = 28 AND canonical = 1;" ||
    fail "bad work: store"
for w in 1h 7d; do
	expect_rc 111 cw -d "$T/bad.db" standings planck --window "$w" \
	    >"$T/out" 2>"$T/err"
	grep -q "^chainwatch: $T/bad.db: chain planck, block #28: work is not a 64-byte number" \
	    "$T/err" || { cat "$T/err"; fail "bad work, $w: message"; }
	[ ! -s "$T/out" ] || { cat "$T/out"; fail "bad work, $w: a table"; }
done
ok "a block's bad work in a window is named"
