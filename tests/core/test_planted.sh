#!/usr/bin/env bash
# Names another user could plant do not redirect root's writes. In a new
# PID namespace the case child's pid is small and so predictable: symlinks
# are planted under every name mmbench could pick there, pointing at a
# victim, and the victim must come out untouched.
# - pageout's data files (DIR/mmbench-PID-N.dat): created O_EXCL|O_NOFOLLOW,
#   a planted name makes the case fail ("File exists"), it never follows.
# - the private tracefs mount point (TMPDIR/mmbench-tracefs.PID...): made
#   with mkdtemp and mounted through its own descriptor, never on a planted
#   symlink or directory.
. "$(dirname "$0")/../lib.sh"
if [ "$(id -u)" != 0 ]; then skip "planted names" "not root"; exit 4; fi
if ! unshare -m -p -f --mount-proc true 2>/dev/null; then
	skip "planted names" "no PID/mount namespaces (unshare)"; exit 4
fi
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/data" "$t/tmp" "$t/victimdir"
echo precious >"$t/victim"
for pid in $(seq 1 64); do
	for i in 0 1; do ln -s "$t/victim" "$t/data/mmbench-$pid-$i.dat"; done
	ln -s "$t/victimdir" "$t/tmp/mmbench-tracefs.$pid"
	mkdir "$t/tmp/mmbench-tracefs.$((pid + 100))"	# a planted directory
done
# what was planted, before and after: a check of names never planted
# would pass on nothing
planted() {
	find "$t/data" "$t/tmp" -mindepth 1 -maxdepth 1 \( -type l -printf 'l %f %l\n' \) -o \
		\( -type d -printf 'd %f\n' \) | sort
}
planted >"$t/planted.before"
[ "$(grep -c "^l mmbench-[0-9]*-[01]\.dat $t/victim\$" "$t/planted.before")" = 128 ] &&
	[ "$(grep -c "^l mmbench-tracefs\.[0-9]* $t/victimdir\$" "$t/planted.before")" = 64 ] &&
	[ "$(grep -c '^d mmbench-tracefs\.' "$t/planted.before")" = 64 ] &&
	pass "setup: 128 data file links, 64 mount point links and 64 directories planted" ||
	fail "setup: planted names" "$(sort "$t/planted.before" | cut -c1 | uniq -c | tr '\n' ' ')"

# pageout into a directory full of planted names: refused, victim intact.
unshare -m -p -f --mount-proc "$MMBENCH" run pageout -p instances=2 -p size_mb=1 \
	-p duration_s=0.05 -p dir="$t/data" -i 1 -w 0 -o "$t/r1" >/dev/null 2>"$t/err1"
rc=$?
[ "$(cat "$t/victim")" = precious ] && [ $rc = 1 ] && grep -q 'File exists' "$t/err1" &&
	pass "pageout: a planted data file name fails the case and is not followed" ||
	fail "pageout: planted data file" "rc=$rc victim=$(head -c 40 "$t/victim" | od -An -c | head -1) $(tail -2 "$t/err1")"

# --probe with no tracefs mounted: the private mount point is fresh. The
# mounts are checked inside the namespace, before it goes away.
unshare -m -p -f --mount-proc sh -c '
	umount /sys/kernel/tracing /sys/kernel/debug/tracing 2>/dev/null
	TMPDIR=$1/tmp "$2" run pageout -p instances=1 -p size_mb=1 -p duration_s=0.05 \
		-i 1 -w 0 --probe folio_mark_accessed -o "$1/r2" >/dev/null 2>"$1/err2"
	echo "rc=$?"
	grep " tracefs " /proc/mounts' sh "$t" "$MMBENCH" >"$t/ns.out" 2>&1
if grep -q '^rc=0$' "$t/ns.out" && ! grep -q tracefs "$t/ns.out" && [ -z "$(ls "$t/victimdir")" ] &&
	! grep -q 'cannot mount tracefs' "$t/err2" && grep -q 'probe folio_mark_accessed' "$t/err2"; then
	pass "tracefs: mounted on a fresh directory, not on a planted name, and unmounted"
else
	fail "tracefs: planted mount point" "$(tr '\n' '|' <"$t/ns.out") $(ls "$t/victimdir" | head -3) $(tail -2 "$t/err2")"
fi
planted >"$t/planted.after"
cmp -s "$t/planted.before" "$t/planted.after" && pass "the planted names are all still there, unchanged" ||
	fail "planted names changed" "$(diff "$t/planted.before" "$t/planted.after" | head -3)"
[ "$(ls "$t/tmp" | grep -cv '^mmbench-tracefs\.[0-9]*$')" = 0 ] &&
	pass "tracefs: no mount directory left behind" || fail "tracefs: left behind" "$(ls "$t/tmp" | grep -v '^mmbench-tracefs\.[0-9]*$')"
finish
