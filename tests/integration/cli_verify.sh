#!/bin/sh
# chainwatch verify: clean on a consistent store; on copies with one kind
# of inconsistency each (a seal's verdict among them), exit 1 with
# exactly the difference lines; every
# difference reported when there are several; --json.
. "$top_srcdir/tests/integration/cli_lib.sh"

DB=$T/chainwatch.db
cli_store "$DB"

A=x\'$(printf '11%.0s' $(seq 32))\'
B=x\'$(printf '22%.0s' $(seq 32))\'
C=x\'$(printf '33%.0s' $(seq 32))\'

hashof() {
	python3 -c 'import hashlib, sys
print("0x" + hashlib.sha256(sys.argv[1].encode()).hexdigest())' "$1"
}
# expected KEY MINER FIELD: a value from the standings python3 computed.
expected() {
	python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))[sys.argv[2]]["rows"]
print([r for r in rows if r["miner"] == sys.argv[3]][0][sys.argv[4]])' \
	    "$T/expect.json" "$@"
}

# vcase NAME SQL: apply SQL to a copy of the store; verify must exit 1
# and print exactly what is on stdin.
vcase() {
	cp "$DB" "$T/v.db" || fail "cp"
	sqlite3 "$T/v.db" "$2" || fail "$1: sqlite3 $2"
	cat >"$T/want"
	cw -d "$T/v.db" verify >"$T/out"
	_rc=$?
	diff -u "$T/want" "$T/out" || fail "$1: unexpected output"
	[ "$_rc" = 1 ] || fail "$1: exit status $_rc, not 1"
	ok "$1"
}

expect_rc 0 cw -d "$DB" verify >"$T/out"
echo 'verify: 2 chains, 32 blocks, 0 differences' >"$T/want"
diff -u "$T/want" "$T/out" || fail "a consistent store"
expect_rc 0 cw -d "$DB" verify planck >"$T/out"
echo 'verify: 1 chain, 32 blocks, 0 differences' >"$T/want"
diff -u "$T/want" "$T/out" || fail "verify planck"
expect_rc 0 cw -d "$DB" verify heisenberg >"$T/out"
echo 'verify: 1 chain, 0 blocks, 0 differences' >"$T/want"
diff -u "$T/want" "$T/out" || fail "verify heisenberg"
expect_rc 0 cw -d "$DB" verify --json >"$T/j"
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
# No configuration names this store: whether its daemon runs is unknown.
assert j == {"daemon_running": None, "chains": ["heisenberg", "planck"],
             "blocks": 32, "differences": [], "ok": True}, j
' "$T/j" || fail "verify --json on a consistent store"
expect_rc 100 cw -d "$DB" verify plonk 2>"$T/err"
grep -q "no chain 'plonk' (known: heisenberg, planck)" "$T/err" ||
    fail "verify: unknown chain"
ok "a consistent store verifies"

W_A=$(expected all "$SS58_A" work)
W_C=$(expected all "$SS58_C" work)
H15=$(hashof "planck 15")
H14=$(hashof "planck 14")
H29=$(hashof "planck 29")
H30=$(hashof "planck 30")
FORK=$(hashof "fork 30")
ZERO=0x$(printf '00%.0s' $(seq 32))

vcase "blocks" "UPDATE standings SET blocks = blocks + 1 WHERE miner = $A" <<EOF_W
planck: miner $SS58_A: blocks 13 in standings, 12 in blocks
verify: 2 chains, 32 blocks, 1 difference
EOF_W

vcase "final_blocks" "UPDATE standings SET final_blocks = 9 WHERE miner = $B" <<EOF_W
planck: miner $SS58_B: final_blocks 9 in standings, 10 in blocks
verify: 2 chains, 32 blocks, 1 difference
EOF_W

# Off by one in 10^31: a double cannot tell, the exact sum can.
W_A1=$(python3 -c "print($W_A + 1)")
vcase "work, exactly" "UPDATE standings SET work = '$W_A1' WHERE miner = $A" <<EOF_W
planck: miner $SS58_A: work $W_A1 in standings, $W_A in blocks
verify: 2 chains, 32 blocks, 1 difference
EOF_W

vcase "final_work" "UPDATE standings SET final_work = '0' WHERE miner = $C" <<EOF_W
planck: miner $SS58_C: final_work 0 in standings, $(python3 -c "print(5 * 2**100 + 1000003 * sum(range(20, 25)))") in blocks
verify: 2 chains, 32 blocks, 1 difference
EOF_W

vcase "work not a number" "UPDATE standings SET work = '12abc' WHERE miner = $C" <<EOF_W
planck: miner $SS58_C: work '12abc' in standings is not a decimal number
verify: 2 chains, 32 blocks, 1 difference
EOF_W
expect_rc 111 cw -d "$T/v.db" standings planck >/dev/null 2>"$T/err"
grep -q "^chainwatch: $T/v.db: chain planck, miner $SS58_C: work '12abc' in standings is not a decimal number" \
    "$T/err" || { cat "$T/err"; fail "standings on a bad work"; }

WF=$(python3 -c "print('%.17g' % (2 * float($(expected all "$SS58_C" work))))")
WF1=$(python3 -c "print('%.17g' % float($W_C))")
vcase "work_f" "UPDATE standings SET work_f = 2 * work_f WHERE miner = $C" <<EOF_W
planck: miner $SS58_C: work_f $WF in standings, its work is $WF1
verify: 2 chains, 32 blocks, 1 difference
EOF_W

vcase "first and last" "UPDATE standings SET first_number = 2, last_number = NULL WHERE miner = $A" <<EOF_W
planck: miner $SS58_A: first_number 2 in standings, 1 in blocks
planck: miner $SS58_A: last_number none in standings, 27 in blocks
verify: 2 chains, 32 blocks, 2 differences
EOF_W

# The block without a miner counts under x''.
vcase "missing row" "DELETE FROM standings WHERE miner = x''" <<EOF_W
planck: miner unsealed: not in standings, 1 canonical block in blocks
verify: 2 chains, 32 blocks, 1 difference
EOF_W

# The genesis is no miner's block: standings that count it (as stores of
# schema version 4 did, under x'') differ from the blocks.
vcase "genesis counted" "UPDATE standings SET blocks = blocks + 1, final_blocks = final_blocks + 1, first_number = 0 WHERE miner = x''" <<EOF_W
planck: miner unsealed: blocks 2 in standings, 1 in blocks
planck: miner unsealed: final_blocks 1 in standings, 0 in blocks
planck: miner unsealed: first_number 0 in standings, 29 in blocks
verify: 2 chains, 32 blocks, 3 differences
EOF_W

vcase "row without blocks" "INSERT INTO standings VALUES (2, $A, 3, 0, '5', 5.0, '0', 1, 3)" <<EOF_W
heisenberg: miner $SS58_A: blocks 3 in standings, 0 in blocks
heisenberg: miner $SS58_A: work 5 in standings, 0 in blocks
heisenberg: miner $SS58_A: first_number 1 in standings, none in blocks
heisenberg: miner $SS58_A: last_number 3 in standings, none in blocks
verify: 2 chains, 32 blocks, 4 differences
EOF_W

vcase "final, not canonical" "UPDATE blocks SET final = 1 WHERE hash = x'${FORK#0x}'" <<EOF_W
planck: block #30 $FORK: final but not canonical
verify: 2 chains, 32 blocks, 1 difference
EOF_W

vcase "above best" "UPDATE chains SET best_number = 28 WHERE name = 'planck'" <<EOF_W
planck: block #29 $H29: canonical but above best_number 28
planck: block #30 $H30: canonical but above best_number 28
verify: 2 chains, 32 blocks, 2 differences
EOF_W

vcase "no best_number" "UPDATE chains SET best_number = NULL WHERE name = 'planck'; UPDATE blocks SET canonical = 0, final = 0 WHERE number <> 1; UPDATE standings SET blocks = 1, final_blocks = 1, work = '$(python3 -c "print(2**100)")', work_f = $(python3 -c "print(float(2**100))"), final_work = '$(python3 -c "print(2**100)")', last_number = 1 WHERE miner = $A; DELETE FROM standings WHERE miner <> $A" <<EOF_W
planck: block #1 $(hashof "planck 1"): canonical but the chain has no best_number
verify: 2 chains, 32 blocks, 1 difference
EOF_W

vcase "parent" "UPDATE blocks SET parent = zeroblob(32) WHERE number = 15 AND canonical = 1" <<EOF_W
planck: block #15 $H15: parent $ZERO is not the canonical block #14 $H14
verify: 2 chains, 32 blocks, 1 difference
EOF_W

# The seal's verdict against the stored facts: a bound of 1 cannot meet
# #14's difficulty; a block proven without a bound.
D14=$(sqlite3 "$DB" "SELECT hex(difficulty) FROM blocks WHERE number = 14
    AND canonical = 1" | python3 -c 'import sys
print(int.from_bytes(bytes.fromhex(sys.stdin.read().strip()), "little"))')
H16=$(hashof "planck 16")
ONE=x\'01$(printf '00%.0s' $(seq 63))\'
vcase "seal" "UPDATE blocks SET pow_max = $ONE, proven = 1
    WHERE number = 15 AND canonical = 1;
    UPDATE blocks SET proven = 1 WHERE number = 16 AND canonical = 1" <<EOF_W
planck: block #15 $H15: proven is 1, but its seal meets at most 1 and the difficulty at its parent is $D14
planck: block #16 $H16: proven, but no bound of its seal is stored
verify: 2 chains, 32 blocks, 2 differences
EOF_W
# A block's work is its parent's difficulty: #15 credited with its own
# (and its miner's standings with it) is a difference of the block.
W15=$(python3 -c "print(2**100 + 15 * 1000003)")
D15=x\'$(python3 -c "print((2**100 + 15 * 1000003).to_bytes(64, 'little').hex())")\'
vcase "work of a block" "UPDATE blocks SET work = $D15, work_f = $W15.0
    WHERE number = 15 AND canonical = 1;
    UPDATE standings SET work = '$(python3 -c "print($(expected all "$SS58_B" work) + 1000003)")',
    final_work = '$(python3 -c "print($(expected "all final" "$SS58_B" work) + 1000003)")',
    work_f = $(python3 -c "print(float($(expected all "$SS58_B" work) + 1000003))")
    WHERE miner = $B" <<EOF_W
planck: block #15 $H15: work is $W15, but the difficulty at its parent is $D14
verify: 2 chains, 32 blocks, 1 difference
EOF_W
cp "$DB" "$T/s.db"
sqlite3 "$T/s.db" "UPDATE blocks SET pow_max = $ONE, proven = 0
    WHERE number = 15 AND canonical = 1" || fail "sqlite3 seal"
expect_rc 0 cw -d "$T/s.db" verify >/dev/null
ok "a seal recorded as failing is no difference"

# A parent is checked only when the canonical block below is stored:
# without #13 (whose work is unknown, #12's difficulty being so, so the
# standings' work stays), #14 may name any parent.
expect_rc 0 cw -d "$DB" verify >/dev/null
cp "$DB" "$T/gap.db"
sqlite3 "$T/gap.db" "DELETE FROM blocks WHERE number = 13;
    UPDATE blocks SET parent = zeroblob(32) WHERE number = 14;
    UPDATE standings SET blocks = blocks - 1, final_blocks = final_blocks - 1
    WHERE miner = $B" || fail "sqlite3 gap"
expect_rc 0 cw -d "$T/gap.db" verify >"$T/out"
grep -qx 'verify: 2 chains, 31 blocks, 0 differences' "$T/out" ||
    { cat "$T/out"; fail "a gap below a block is not a difference"; }
ok "a gap"

vcase "miner not in miners" "DELETE FROM miners WHERE account = $C" <<EOF_W
planck: miner 0x$(printf '33%.0s' $(seq 32)): in blocks but not in miners (the standings views leave its blocks out)
verify: 2 chains, 32 blocks, 1 difference
EOF_W

# Several at once: every one is reported, in a stable order.
vcase "several" "UPDATE standings SET blocks = 0 WHERE miner = $B;
    UPDATE blocks SET final = 1 WHERE hash = x'${FORK#0x}';
    UPDATE blocks SET parent = zeroblob(32) WHERE number = 15 AND canonical = 1;
    UPDATE standings SET last_number = 31 WHERE miner = $C;
    DELETE FROM standings WHERE miner = x''" <<EOF_W
planck: miner $SS58_B: blocks 0 in standings, 11 in blocks
planck: miner $SS58_C: last_number 31 in standings, 30 in blocks
planck: miner unsealed: not in standings, 1 canonical block in blocks
planck: block #30 $FORK: final but not canonical
planck: block #15 $H15: parent $ZERO is not the canonical block #14 $H14
verify: 2 chains, 32 blocks, 5 differences
EOF_W

expect_rc 1 cw -d "$T/v.db" verify planck --json >"$T/j"
python3 - "$T/j" "$T/out" "$SS58_B" <<'PY' || fail "verify --json"
import json, sys
j = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()[:-1]
assert j["ok"] is False and j["chains"] == ["planck"] and j["blocks"] == 32, j
d = j["differences"]
assert [x["message"] for x in d] == lines, (d, lines)
assert all(x["chain"] == "planck" for x in d)
assert [x["kind"] for x in d] == ["standings", "standings", "missing",
    "final_not_canonical", "parent"], d
assert d[0]["miner"] == sys.argv[3] and d[0]["field"] == "blocks", d[0]
assert d[0]["standings"] == "0" and d[0]["blocks"] == "11", d[0]
assert d[2]["miner"] == "unsealed" and d[2]["standings"] is None, d[2]
assert d[2]["blocks"] == "1", d[2]
assert d[3]["number"] == 30 and d[4]["number"] == 15, d
assert d[4]["parent"] == "0x" + "00" * 32, d[4]
PY
ok "verify --json"
