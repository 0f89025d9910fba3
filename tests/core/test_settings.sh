#!/usr/bin/env bash
# The settings facility on a real sysfs knob (THP defrag): restored at
# normal exit, on SIGINT/SIGTERM/SIGHUP, and after SIGKILL by
# `mmbench restore DIR` from the journal.
. "$(dirname "$0")/../lib.sh"
knob=/sys/kernel/mm/transparent_hugepage/defrag
if [ "$(id -u)" != 0 ]; then skip "settings: restore tests" "not root"; exit 4; fi
if [ ! -w $knob ]; then skip "settings: restore tests" "$knob not writable"; exit 4; fi
cur() { sed 's/.*\[\(.*\)\].*/\1/' $knob; }
orig=$(cur)
t=$(tmpdir)
trap 'echo "$orig" >$knob; rm -rf "$t"' EXIT
# A value different from the current one.
new=always; [ "$orig" = always ] && new=never

# Events with a hang guard (tests/lib.sh wait_until), not a time limit
# that decides: a loaded machine only makes them later.
is_value() { [ "$(cur)" = "$1" ]; }
wait_for() { wait_until 300 is_value "$1"; }	# until the knob reads VALUE
has_case_row() { [ "$(cat "$1/started.csv" 2>/dev/null | wc -l)" -ge 2 ]; }
wait_started() { wait_until 300 has_case_row "$1"; }	# until DIR/started.csv has a case row
no_run_procs() { ! pgrep -f -- "-o $1" >/dev/null; }
long_run() {	# long_run DIR: a run that changes the knob and lasts 60 s; sets $pid
	"$MMBENCH" run pageout -p instances=1 -p size_mb=4 -p duration_s=60 -i 1 -w 0 \
		--set "$knob=$new" -o "$1" >"$1.out" 2>&1 &
	pid=$!
}

# 1. Normal exit.
"$MMBENCH" run pageout -p instances=1 -p size_mb=4 -p duration_s=0.2 -i 1 -w 0 \
	--set "$knob=$new" -o "$t/normal" >/dev/null 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(cur)" = "$orig" ] && grep -q "^save,$knob,$orig" "$t/normal/settings.journal" &&
	pass "restore: normal exit puts $knob back to $orig" ||
	fail "restore: normal exit" "rc=$rc, knob is $(cur)"

# 2. Signals to the driver while a case runs: once the case has started
# (the driver also sets the knob while it writes meta.csv) and set the knob.
for sig in INT TERM HUP; do
	long_run "$t/sig$sig"
	if ! wait_started "$t/sig$sig" || ! wait_for "$new"; then
		fail "restore: SIG$sig" "the run never changed the knob"
		kill -KILL $pid 2>/dev/null; continue
	fi
	kill -$sig $pid
	wait $pid
	rc=$?
	want=$((128 + $(kill -l $sig)))
	if [ "$(cur)" = "$orig" ] && [ $rc -eq $want ]; then
		pass "restore: SIG$sig stops the run (exit $rc = 128+$((want - 128))) and restores $orig"
	else
		fail "restore: SIG$sig" "rc=$rc (want $want), knob is $(cur)"
	fi
	grep -q "interrupted by signal" "$t/sig$sig/cases.csv" &&
		pass "restore: SIG$sig recorded in cases.csv" || fail "cases on SIG$sig" "$(cat "$t/sig$sig/cases.csv" 2>&1)"
	pgrep -f "mmbench run pageout.*$t/sig$sig" >/dev/null &&
		fail "SIG$sig: no process left" "$(pgrep -af "$t/sig$sig")" || pass "SIG$sig: no process left behind"
done

# 3. SIGKILL of the driver and its case: only the journal knows.
long_run "$t/kill"
if wait_started "$t/kill" && wait_for "$new"; then
	child=$(pgrep -P $pid | head -1)
	kill -KILL $pid
	[ -n "$child" ] && kill -KILL -- -"$child" 2>/dev/null
	wait $pid 2>/dev/null
	# nothing of the run is left that could put the knob back
	wait_until 300 no_run_procs "$t/kill" || fail "SIGKILL" "processes of the run left: $(pgrep -af -- "-o $t/kill")"
	[ "$(cur)" = "$new" ] && pass "SIGKILL: knob is left changed ($new), as expected" ||
		fail "SIGKILL: precondition" "knob is $(cur)"
	"$MMBENCH" restore "$t/kill" 2>"$t/restore.err"
	rc=$?
	[ $rc -eq 0 ] && [ "$(cur)" = "$orig" ] &&
		pass "SIGKILL: mmbench restore DIR puts $knob back to $orig" ||
		fail "SIGKILL: restore" "rc=$rc knob=$(cur) $(cat "$t/restore.err")"
	"$MMBENCH" restore "$t/kill" 2>/dev/null && [ "$(cur)" = "$orig" ] &&
		pass "restore: a second restore is harmless" || fail "second restore" ""
else
	fail "SIGKILL" "the run never changed the knob"
	kill -KILL $pid
fi
"$MMBENCH" restore "$t/nonexistent" 2>/dev/null; rc=$?
[ $rc -eq 2 ] && pass "restore: no journal is a usage error" || fail "restore: no journal" "rc=$rc"
finish
