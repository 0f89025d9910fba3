#!/usr/bin/env bash
# Two overlapping starts: the second exits 75 at once with one line naming
# the holder, the first finishes normally; a start after it runs. The lock
# is a directory only this user can open: a symbolic link, a file (the
# config itself), a directory of another user or one others may open is
# refused without being written; a lock held by another user's process
# fails the night (exit 1, which the systemd unit does not count as a
# success) instead of skipping it with 75.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
d=$(tmpdir)
trap 'kill $holder 2>/dev/null; rm -rf "$d"' EXIT
holder=
export MMBENCH=$FAKE FAKE_LINES="$(fake_lines 0)"
write_conf "$d" <<'EOF2'
trends = no
EOF2

# The first start's (fake) suite runs until the test creates $d/release:
# the second start certainly overlaps it, whatever the machine's load.
FAKE_STARTED=$d/started FAKE_HOLD=$d/release "$NIGHTLY" "$d/n.conf" >"$d/first.out" 2>&1 &
first=$!
started() { [ -e "$d/started" ] || ! kill -0 "$first" 2>/dev/null; }
wait_until 600 started
if [ ! -e "$d/started" ]; then
	fail "first start is running its suite" "$(cat "$d/first.out")"
	finish
fi
check "first start is running its suite" test -f "$d/res/.nightly/pending-$HOST"
t0=$(date +%s%N)
"$NIGHTLY" "$d/n.conf" >"$d/second.out" 2>&1
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
check "second start exits 75 (got $rc, ${ms} ms), without waiting for the first" \
	test "$rc" -eq 75 -a ! -e "$d/release"
check "second start prints one line" test "$(wc -l <"$d/second.out")" -eq 1
check "the line names the lock and the holder" \
	grep -q "another nightly run holds $d/nightly.lock (pid $first ([a-z]* $NIGHTLY $d/n.conf, uid $(id -u), since 20" "$d/second.out"
check "second start wrote no history row" test ! -s "$d/res/history.csv"
check "the lock is a directory of mode 700" test "$(stat -c %a "$d/nightly.lock")" = 700
touch "$d/release"
wait "$first"
rc=$?
check "first start finishes normally (exit $rc)" test "$rc" -eq 0
check "one history row, ok" grep -q "valid, 1 rows" <("$MMHISTORY" check "$d/res/history.csv")
# A start after the first gets past the lock (refused, to be quick).
sed -i 's/^need_mem_mb = .*/need_mem_mb = 99999999/' "$d/n.conf"
"$NIGHTLY" "$d/n.conf" >"$d/third.out" 2>&1
rc=$?
check "a start after the first gets the lock (refused on memory: exit $rc)" \
	test "$rc" -eq 1 -a -n "$(grep REFUSED "$d/third.out")"

# bad_lock NAME WANT-RC WANT-MESSAGE: a start with the lock set up as NAME
# says so, exits WANT-RC, and writes nothing (no history row, the victim
# file unchanged).
echo "precious" >"$d/victim"
bad_lock() {
	local name=$1 want=$2 msg=$3 out rc
	out=$("$NIGHTLY" "$d/n.conf" 2>&1)
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -qF -- "$msg" <<<"$out"; then
		pass "$name: exit $rc, '$out'"
	else
		fail "$name" "exit $rc (want $want), '$out' (want '$msg')"
	fi
	check "$name: the victim file is unchanged" test "$(cat "$d/victim")" = precious
	check "$name: no history row written" grep -q "valid, 2 rows" <("$MMHISTORY" check "$d/res/history.csv")
}
rm -rf "$d/nightly.lock"
ln -s "$d/victim" "$d/nightly.lock"
bad_lock "a planted symlink as the lock" 2 "n.conf:3: lock = 'nightly.lock': $d/nightly.lock: a symbolic link"
rm -f "$d/nightly.lock"
mkdir "$d/elsewhere" && ln -s "$d/elsewhere" "$d/nightly.lock"
bad_lock "a symlink to a directory as the lock" 2 "a symbolic link"
rm -f "$d/nightly.lock"
sed -i 's/^lock = .*/lock = n.conf/' "$d/n.conf"
cp "$d/n.conf" "$d/n.conf.orig"
bad_lock "lock = the config file itself" 2 "n.conf:3: lock = 'n.conf': $d/n.conf: not a directory"
check "lock = the config file: the config is intact" cmp -s "$d/n.conf" "$d/n.conf.orig"
sed -i 's/^lock = .*/lock = victim/' "$d/n.conf"
bad_lock "lock = a regular file" 2 "not a directory"
sed -i 's/^lock = .*/lock = nightly.lock/' "$d/n.conf"
mkdir -m 755 "$d/nightly.lock"
bad_lock "a lock directory others can open" 2 "mode 755: other users can open it"
rmdir "$d/nightly.lock"
sed -i 's/^lock = .*/lock = nosuchdir\/nightly.lock/' "$d/n.conf"
bad_lock "a lock in a directory that does not exist" 2 "its directory $d/nosuchdir does not exist"
sed -i 's/^lock = .*/lock = nightly.lock/' "$d/n.conf"

if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	nob=$(id -u nobody)
	mkdir -m 700 "$d/nightly.lock" && chown nobody "$d/nightly.lock"
	bad_lock "a lock directory another user made first" 2 "owned by uid $nob, not by this user"
	rmdir "$d/nightly.lock"
	# Another user's process holding our lock (its descriptor passed on):
	# that is no nightly of ours, so the night fails instead of exiting 75.
	mkdir -m 700 "$d/nightly.lock"
	( exec 9<"$d/nightly.lock"; flock -n 9 || exit 1
	  exec setpriv --reuid="$nob" --regid="$nob" --clear-groups sleep 1000 ) &
	holder=$!
	is_nobody() { [ "$(stat -c %u "/proc/$holder" 2>/dev/null)" = "$nob" ] || ! kill -0 "$holder"; }
	wait_until 600 is_nobody
	bad_lock "a lock held by another user's process" 1 "is held by a process of another user (pid $holder (sleep 1000, uid $nob"
	kill "$holder"; wait "$holder" 2>/dev/null; holder=
else
	skip "locks of another user" "needs root, user nobody and setpriv"
fi
finish
