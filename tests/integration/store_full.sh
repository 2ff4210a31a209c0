#!/bin/sh
# The store's filesystem fills up while chainwatchd follows two devnodes:
# a small tmpfs in the test's own directory holds the store, and a filler
# file takes its last byte.  The daemon must not exit nor lose its
# workers, status must say store-blocked naming the file, and once the
# filler is gone it resumes by itself with nothing lost.  Needs root (a
# mount); skipped otherwise.
. "$top_srcdir/tests/integration/lib.sh"
[ -x /usr/bin/python3 ] || { echo "SKIP: no python3"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: mounting a tmpfs needs root"; exit 77; }
CW=$top_builddir/cli/chainwatch
FS=$T/fs
mkdir "$FS"
mount -t tmpfs -o size=24m,mode=0755 tmpfs "$FS" 2>"$T/mount.err" ||
    { echo "SKIP: cannot mount a tmpfs: $(cat "$T/mount.err")"; exit 77; }
CW_CLEANUP='umount "$FS" 2>/dev/null || umount -l "$FS"'
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
    -e "s|^database = .*|database = $DB|" "$T/chainwatch.conf"
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

# Fill it: big pieces, then the last bytes.
dd if=/dev/zero of="$FS/filler" bs=1M >/dev/null 2>&1
dd if=/dev/zero of="$FS/filler2" bs=4k >/dev/null 2>&1
ok "filesystem full: $(df -k "$FS" | awk 'NR==2 {print $4}') kB available"
wait_for 30 '"$CW" -d "$DB" -f "$T/chainwatch.conf" status >"$T/status.out" 2>&1; grep -q "store-blocked: disk full on $DB" "$T/status.out"' ||
    { cat "$T/status.out"; fail "status does not say store-blocked, disk full on $DB"; }
ok "status: $(head -n 1 "$T/status.out")"
grep -q "database $DB: .*no new work" "$T/log" || fail "no log line named the store and its free space"

# Blocked for a while: alive, same workers, nothing new leased.
sleep 8
alive $DAEMON_PID || fail "chainwatchd exited with its disk full"
now=$(pgrep -P $DAEMON_PID | sort | tr '\n' ' ')
[ "$now" = "$workers" ] || fail "workers changed while blocked: $workers -> $now"
ok "8 s with a full disk: daemon and workers alive"

rm -f "$FS/filler" "$FS/filler2"
wait_for 60 '"$CW" -d "$DB" -f "$T/chainwatch.conf" status >"$T/status.out" 2>&1; ! grep -q store-blocked "$T/status.out"' ||
    fail "still store-blocked with space back: $(cat "$T/status.out")"
ok "resumed: $(grep 'writable again' "$T/log" | tail -n 1 | sed 's/.*database/database/')"
wait_for 90 'test "$(sqlf "SELECT count(*) FROM queue")" = 0 && test "$(sqlf "SELECT best_number FROM chains")" -gt $((before + 80))' ||
    fail "not caught up after the disk was freed: best $(sqlf 'SELECT best_number FROM chains'), $(sqlf 'SELECT * FROM queue_summary')"
ok "following again at #$(sqlf 'SELECT best_number FROM chains')"

kill -TERM $DAEMON_PID
wait $DAEMON_PID || fail "daemon exited with $?"
/usr/bin/python3 "$top_srcdir/tests/integration/store_check.py" \
    "$DB" devchain "$d1_port" --margin 20 --state ||
    fail "the store differs from the devnode's chain"
ok "store equals the devnode's canonical chain"
"$CW" -d "$DB" verify >"$T/verify.out" 2>&1 ||
    { cat "$T/verify.out"; fail "chainwatch verify found differences"; }
ok "chainwatch verify: $(tail -n 1 "$T/verify.out")"
