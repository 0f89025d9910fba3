#!/usr/bin/env bash
# What mmbench may write, and what meta.csv says about it.
# - --set takes only knobs: a path under /sys or /proc/sys whose real file
#   is on sysfs/procfs. Anything else is a usage error (exit 2, the path
#   named) and is not touched, now or at restore.
# - `mmbench restore` checks the journal: a record naming anything but a
#   knob, a malformed record, a journal that is a symlink or writable by
#   others: named (FILE:LINE), never acted on, exit 2; valid records are
#   still restored.
# - meta.csv describes the run with every --set in effect (a --set the
#   kernel refuses stops the run before any case).
# The knobs used are ones no other test changes (khugepaged, the 16kB
# mTHP size), as other tests may run at the same time.
. "$(dirname "$0")/../lib.sh"
T=/sys/kernel/mm/transparent_hugepage
K=$T/khugepaged
if [ "$(id -u)" != 0 ]; then skip "knobs" "not root"; exit 4; fi
[ -w $K/pages_to_scan ] || { skip "knobs" "no $K/pages_to_scan"; exit 4; }
t=$(tmpdir)
scan0=$(cat $K/pages_to_scan)
m16=$T/hugepages-16kB/enabled
[ -w $m16 ] && m16_0=$(sed 's/.*\[\(.*\)\].*/\1/' $m16)
trap 'echo $scan0 >$K/pages_to_scan; [ -n "$m16_0" ] && echo $m16_0 >$m16; rm -rf "$t"' EXIT
# (timeout: a driver that opened a FIFO for writing would wait forever)
run() { timeout -s KILL 300 "$MMBENCH" run pageout -p instances=1 -p size_mb=2 -p duration_s=0.05 -i 1 -w 0 "$@"; }

# --set on what is not a knob: refused before anything exists.
echo "precious" >"$t/victim"
ln -s "$t/victim" "$t/link"
ln -s $K/pages_to_scan "$t/link-in"
mkfifo "$t/fifo"
before=$(stat -c '%s %Y' "$t/victim")
n=0
# (only files of this test or harmless ones: the old driver wrote them all)
for p in "$t/victim" "$t/link" "$t/link-in" "$t/fifo" /dev/null "/proc/sys/../..$t/victim" \
	/proc/self/oom_score_adj /sys/kernel/mm/ $K/../enabled \
	/sys//kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/nosuch/knob \
	relative/path "/sys/kernel/mm/transparent_hugepage/enabled$(printf '\t')"; do
	n=$((n + 1))
	run --set "$p=1" -o "$t/set$n" >/dev/null 2>"$t/err"
	rc=$?
	if [ $rc = 2 ] && grep -q -- "--set '" "$t/err" && [ ! -e "$t/set$n" ] &&
		[ "$(cat "$t/victim")" = precious ]; then
		pass "--set refused: $p"
	else
		fail "--set $p" "rc=$rc $(cat "$t/err")"
	fi
done
[ "$(stat -c '%s %Y' "$t/victim")" = "$before" ] && pass "--set: the regular file was never written" ||
	fail "--set: regular file" "changed"

# --set on a knob: meta.csv holds the value in effect; restored after.
new=$((scan0 + 8))
args=(--set "$K/pages_to_scan=$new")
want16=""
if [ -n "$m16_0" ]; then
	want16=$([ "$m16_0" = never ] && echo inherit || echo never)
	args+=(--set "$m16=$want16")
fi
run "${args[@]}" -o "$t/meta" >/dev/null 2>"$t/err"
rc=$?
[ $rc = 0 ] && [ "$(meta_get "$t/meta/meta.csv" thp_khugepaged_pages_to_scan)" = "$new" ] &&
	pass "meta.csv: thp_khugepaged_pages_to_scan is the --set value $new (was $scan0)" ||
	fail "meta.csv with --set" "rc=$rc fact=$(meta_get "$t/meta/meta.csv" thp_khugepaged_pages_to_scan) $(tail -2 "$t/err")"
if [ -n "$want16" ]; then
	[ "$(meta_get "$t/meta/meta.csv" mthp_16kB_enabled)" = "$want16" ] &&
		pass "meta.csv: mthp_16kB_enabled is the --set value $want16" ||
		fail "meta.csv mthp with --set" "$(meta_get "$t/meta/meta.csv" mthp_16kB_enabled)"
fi
[ "$(cat $K/pages_to_scan)" = "$scan0" ] && pass "--set: knob restored after the run" ||
	fail "--set restore" "$(cat $K/pages_to_scan)"

# A value the kernel refuses: exit 2 at setup, no case, nothing changed.
run --set "$K/pages_to_scan=$new" --set "$K/pages_to_scan=notanumber" -o "$t/refused" \
	>/dev/null 2>"$t/err"
rc=$?
[ $rc = 2 ] && grep -q "pages_to_scan=notanumber: Invalid argument" "$t/err" &&
	[ ! -e "$t/refused/started.csv" ] && [ "$(cat $K/pages_to_scan)" = "$scan0" ] &&
	pass "--set refused by the kernel: exit 2 before any case, knob unchanged" ||
	fail "--set refused by the kernel" "rc=$rc knob=$(cat $K/pages_to_scan) $(tail -2 "$t/err")"

# Crafted journals. jr DIR LINES...: a run dir whose journal holds LINES.
jr() { mkdir -p "$1"; shift; printf '%s\n' "$@" >"${d:?}/settings.journal"; }
check_journal() {	# NAME WANT_RC PATTERN
	"$MMBENCH" restore "$d" >/dev/null 2>"$t/err"
	local rc=$?
	if [ $rc = "$2" ] && grep -q -- "$3" "$t/err" && [ "$(cat "$t/victim")" = precious ]; then
		pass "journal: $1"
	else
		fail "journal: $1" "rc=$rc $(cat "$t/err")"
	fi
}
d=$t/j1; jr "$d" "save,$t/victim,pwned"
check_journal "a regular file is never written" 2 "settings.journal:1: $t/victim is not a path under /sys"
d=$t/j2; jr "$d" "save,$t/link-in,pwned"
check_journal "a symlink into sysfs from elsewhere is refused" 2 "settings.journal:1: .*link-in is not a path"
d=$t/j3; jr "$d" "save,/proc/self/fd/1,pwned"
check_journal "/proc outside /proc/sys is refused" 2 "settings.journal:1: /proc/self/fd/1 is not a path"
d=$t/j4; jr "$d" "done,$K/pages_to_scan,," "save,$K/pages_to_scan"
check_journal "wrong field counts named by line" 2 "settings.journal:1: 4 fields, expected 3"
grep -q "settings.journal:2: 2 fields, expected 3" "$t/err" && pass "journal: every bad line named" ||
	fail "journal: every bad line named" "$(cat "$t/err")"
d=$t/j5; jr "$d" "grab,$K/pages_to_scan,1"
check_journal "unknown record" 2 "settings.journal:1: unknown record 'grab'"
d=$t/j6; mkdir -p "$d"; printf 'save,%s,%s\0x\n' "$K/pages_to_scan" "$scan0" >"$d/settings.journal"
check_journal "a NUL byte" 2 "settings.journal:1: NUL byte"
d=$t/j7; jr "$d" "save,$K/pages_to_scan,$scan0"; chmod 666 "$d/settings.journal"
check_journal "a journal others may write is not trusted" 2 "not trusted"
d=$t/j8; mkdir -p "$d"; ln -s "$t/j1/settings.journal" "$d/settings.journal"
check_journal "a journal that is a symlink is not read" 2 "Too many levels of symbolic links"
# A valid record among bad ones is still restored.
echo $((scan0 + 16)) >$K/pages_to_scan
d=$t/j9; jr "$d" "save,$t/victim,pwned" "save,$K/pages_to_scan,$scan0"
check_journal "a valid record is restored, the bad one named" 2 "settings.journal:1:"
[ "$(cat $K/pages_to_scan)" = "$scan0" ] && pass "journal: the valid knob was restored" ||
	fail "journal: valid knob" "$(cat $K/pages_to_scan)"
# A torn last record (no newline: a kill mid-write) is not an error.
d=$t/j10; mkdir -p "$d"; printf 'save,%s,%s\nsave,%s/pw' "$K/pages_to_scan" "$scan0" "$t" >"$d/settings.journal"
"$MMBENCH" restore "$d" >/dev/null 2>"$t/err"; rc=$?
[ $rc = 0 ] && pass "journal: a torn last record is left out, exit 0" || fail "journal: torn" "rc=$rc $(cat "$t/err")"
finish
