#!/bin/sh
# The store's filesystem fills up while chainwatchd follows two devnodes:
# a small tmpfs in the test's own directory holds the store, and a filler
# file takes its last byte.  First with store_reserve = 0, so that SQLite
# itself finds the disk full in the middle of a transaction (rolled back
# whole, its data fetched again); then with a reserve of 4M and 3 MB left,
# so that no transaction begins.  Each time the daemon must not exit nor
# lose its workers, status must say store-blocked naming the file, and
# once the filler is gone it resumes by itself with nothing lost.  Needs
# root (a mount); skipped otherwise.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: mounting a tmpfs needs root"; exit 77; }
CW=$top_builddir/cli/chainwatch
FS=$T/fs
mkdir "$FS"
mount -n -t tmpfs -o size=24m,mode=0755 tmpfs "$FS" 2>"$T/mount.err" ||
    { echo "SKIP: cannot mount a tmpfs: $(cat "$T/mount.err")"; exit 77; }
CW_CLEANUP='umount -n "$FS" 2>/dev/null || umount -n -l "$FS"'
DB=$FS/chainwatch.db

sqlf() {
	sqlite3 -readonly "$DB" "$1"
}

for n in d1 d2; do
	devnode $n --seed full --block-time 200 --backlog 600 \
	    --reorg-every 25 --reorg-depth 1-5 --miners 4
done
write_conf "$T/chainwatch.conf"
sed -i -e 's/^block_time = .*/block_time = 200ms/' \
    -e "s|^database = .*|database = $DB\nstore_reserve = 0|" "$T/chainwatch.conf"
for n in d1 d2; do
	eval p=\$${n}_port
	echo "endpoint = $n http://127.0.0.1:$p ws://127.0.0.1:$p" >>"$T/chainwatch.conf"
done
start_daemon
wait_for 120 'test "$(sqlf "SELECT count(*) FROM queue")" = 0 && test "$(sqlf "SELECT best_number FROM chains")" -gt 600' ||
    fail "not caught up: $(sqlf 'SELECT * FROM queue_summary')"
before=$(sqlf "SELECT best_number FROM chains")
workers=$(pgrep -P $DAEMON_PID | sort | tr '\n' ' ')
ok "caught up to #$before; workers $workers"

# blocked_round WHAT: status says store-blocked naming $DB, the daemon
# and its workers live through 8 s of it, and it resumes once the filler
# is gone and catches up.
blocked_round() {
	wait_for 90 '"$CW" -d "$DB" -f "$T/chainwatch.conf" status >"$T/status.out" 2>&1; grep -q "store-blocked: disk full on $DB" "$T/status.out"' ||
	    { cat "$T/status.out"; fail "$1: status does not say store-blocked, disk full on $DB"; }
	ok "$1: status: $(head -n 1 "$T/status.out")"
	grep -q "database $DB: .*no new work" "$T/log" ||
	    fail "$1: no log line named the store and its free space"
	sleep 8
	alive $DAEMON_PID || fail "$1: chainwatchd exited with its disk full"
	_now=$(pgrep -P $DAEMON_PID | sort | tr '\n' ' ')
	[ "$_now" = "$workers" ] || fail "$1: workers changed while blocked: $workers -> $_now"
	ok "$1: 8 s blocked, daemon and workers alive"
	rm -f "$FS/filler" "$FS/filler2"
	wait_for 60 '"$CW" -d "$DB" -f "$T/chainwatch.conf" status >"$T/status.out" 2>&1; ! grep -q store-blocked "$T/status.out"' ||
	    fail "$1: still store-blocked with space back: $(cat "$T/status.out")"
	ok "$1: resumed: $(grep 'writable again' "$T/log" | tail -n 1 | sed 's/.*database/database/')"
	_b=$(sqlf "SELECT best_number FROM chains")
	wait_for 90 'test "$(sqlf "SELECT count(*) FROM queue")" = 0 && test "$(sqlf "SELECT best_number FROM chains")" -gt $((_b + 40))' ||
	    fail "$1: not caught up after the disk was freed: best $(sqlf 'SELECT best_number FROM chains'), $(sqlf 'SELECT * FROM queue_summary')"
	ok "$1: following again at #$(sqlf 'SELECT best_number FROM chains')"
}

# 1. No reserve: fill every byte, SQLite finds it full mid-transaction.
dd if=/dev/zero of="$FS/filler" bs=1M >/dev/null 2>&1
dd if=/dev/zero of="$FS/filler2" bs=4k >/dev/null 2>&1
ok "filesystem full: $(df -k "$FS" | awk 'NR==2 {print $4}') kB available"
blocked_round "no reserve"
grep -q "transaction rolled back" "$T/log" ||
    fail "no transaction was rolled back: SQLite never found the disk full"
ok "a transaction cut by the full disk was rolled back whole: $(grep -c 'transaction rolled back' "$T/log") times"

# 2. A reserve of 4M and 3 MB left: no transaction begins.
sed -i 's/^store_reserve = .*/store_reserve = 4M/' "$T/chainwatch.conf"
kill -HUP $DAEMON_PID
wait_for 20 'grep -q "reload" "$T/log"' || fail "no reload"
avail=$(df -k "$FS" | awk 'NR==2 {print $4}')
dd if=/dev/zero of="$FS/filler" bs=1k count=$((avail - 3072)) >/dev/null 2>&1 ||
    fail "could not leave 3 MB free"
rolled=$(grep -c 'transaction rolled back' "$T/log")
blocked_round "4M reserve"
grep -q "less free than the 4.0 MB store_reserve" "$T/log" ||
    fail "the reserve did not block the store"
[ "$(grep -c 'transaction rolled back' "$T/log")" = "$rolled" ] ||
    fail "a transaction was rolled back, though the reserve was not reached"
ok "the reserve blocked the store before SQLite found the disk full"

kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
/usr/bin/python3 "$top_srcdir/tests/integration/store_check.py" \
    "$DB" devchain "$d1_port" --margin 20 --state ||
    fail "the store differs from the devnode's chain"
ok "store equals the devnode's canonical chain"
"$CW" -d "$DB" verify >"$T/verify.out" 2>&1 ||
    { cat "$T/verify.out"; fail "chainwatch verify found differences"; }
ok "chainwatch verify: $(tail -n 1 "$T/verify.out")"
