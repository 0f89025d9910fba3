#!/usr/bin/env bash
# tools/vm/progress follows a channel that is still being written (the
# guest's mirror file while QEMU runs): every case start must be shown as
# soon as its started.csv record is in the file, not when more output
# pushes it through a buffer. The file here stops growing after the second
# start, as it does while a long case runs; the writer stays alive. Run
# with the machine's awk: Debian's default, mawk, reads pipes in blocks.
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir)
holder=
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	rm -rf "$t"
}
trap cleanup EXIT

printf '%s\r\n' '@@MM plan.csv workload,case' '@@MM plan.csv pageout,a=1' \
	'@@MM plan.csv pageout,a=2' '@@MMVM start' \
	'@@MM started.csv 1,r,l,k,pageout,a=1,2026-01-01T00:00:00Z' \
	'@@MM cases.csv 1,r,l,k,pageout,a=1,pass,,0,1.0' \
	'@@MM started.csv 1,r,l,k,pageout,"a=2",2026-01-01T00:00:01Z' >"$t/mirror"
sleep 3600 &
holder=$!
"$TOP/tools/vm/progress" --pid "$holder" "$t/mirror" 2>"$t/err" &
ppid_=$!
# The limit is a hang guard only: the line is due as soon as the reader
# has read the file.
if wait_until 60 grep -q '^\[2/2.*\] pageout a=2$' "$t/err"; then
	pass "progress: the second case's start is shown while the channel is idle"
else
	fail "progress: second start not shown" "$(tr '\n' '|' <"$t/err")"
fi
kill "$holder" 2>/dev/null
holder=
wait_until 60 eval '! kill -0 $ppid_ 2>/dev/null' &&
	pass "progress: ends when the process it follows is gone" ||
	fail "progress: still running after its process ended" "pid $ppid_"
finish
