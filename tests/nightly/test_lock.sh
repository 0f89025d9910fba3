#!/usr/bin/env bash
# Two overlapping starts: the second exits 75 at once with one line, the
# first finishes normally; a start after it runs.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
export MMBENCH=$FAKE FAKE_LINES="$(fake_lines 0)"
write_conf "$d" <<'EOF2'
trends = no
EOF2

# The first start sleeps 4 s inside its (fake) suite.
FAKE_SLEEP=4 "$NIGHTLY" "$d/n.conf" >"$d/first.out" 2>&1 &
first=$!
for _ in $(seq 100); do
	ls "$d/res/.nightly/pending-$HOST" >/dev/null 2>&1 && break
	sleep 0.1
done
check "first start is running its suite" test -f "$d/res/.nightly/pending-$HOST"
t0=$(date +%s%N)
"$NIGHTLY" "$d/n.conf" >"$d/second.out" 2>&1
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
check "second start exits 75 (got $rc)" test "$rc" -eq 75
check "second start exits at once (${ms} ms)" test "$ms" -lt 3000
check "second start prints one line" test "$(wc -l <"$d/second.out")" -eq 1
check "the line names the lock and the holder" grep -q "another nightly run holds .*nightly.lock (pid $first" "$d/second.out"
check "second start wrote no history row" test ! -s "$d/res/history.csv"
wait "$first"
rc=$?
check "first start finishes normally (exit $rc)" test "$rc" -eq 0
check "one history row, ok" grep -q "valid, 1 rows" <("$MMHISTORY" check "$d/res/history.csv")
# A start after the first gets past the lock (refused, to be quick).
sed -i 's/^need_mem_mb = .*/need_mem_mb = 99999999/' "$d/n.conf"
"$NIGHTLY" "$d/n.conf" >"$d/third.out" 2>&1
rc=$?
check "a start after the first gets the lock (refused on memory: exit $rc)" \
	grep -q "REFUSED" "$d/third.out"
finish
