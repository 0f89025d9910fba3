#!/usr/bin/env bash
# A hang, a crash or a kill of one case is a failed case and the run goes
# on; killing the whole run at any moment leaves valid CSV with every
# finished row.
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
valid_csv() {	# every line complete, 11 fields, and libcsv (summary) reads it
	local f=$1
	[ -s "$f" ] && [ "$(tail -c1 "$f" | od -An -c | tr -d ' ')" = '\n' ] &&
		awk -F, 'NF != 11 { bad++ } END { exit bad > 0 }' "$f" &&
		"$MMBENCH" summary "$(dirname "$f")" >/dev/null
}

lines_at_least() { [ "$(cat "$1" 2>/dev/null | wc -l)" -ge "$2" ]; }
# crash_run DIR FILE LINES DELAY ARGS...: run pageout with ARGS into DIR;
# once DIR/FILE has LINES lines, wait DELAY s and SIGKILL mmbench and the
# case's process group at once, as a machine crash would stop them.
crash_run() {
	local d=$1 f=$2 lines=$3 delay=$4 pid child
	shift 4
	"$MMBENCH" run pageout "$@" -w 0 -o "$d" >/dev/null 2>&1 &
	pid=$!
	wait_until 300 lines_at_least "$d/$f" "$lines"
	sleep "$delay"
	child=$(pgrep -P $pid | head -1)
	kill -KILL $pid; [ -n "$child" ] && kill -KILL -- -"$child" 2>/dev/null
	wait $pid 2>/dev/null
}

# Timeout: the first case hangs past --timeout (it would run 10 minutes),
# the second still runs; its 0.2 s of loops have 10 s, so a loaded
# machine does not time it out too.
"$MMBENCH" run pageout -p instances=1 -p size_mb=4 -p duration_s=600,0.2 -i 1 -w 0 \
	--timeout 10 -o "$t/to" >/dev/null 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'duration_s=600;.*,timeout,no result after 10 s' "$t/to/cases.csv" &&
	grep -q 'duration_s=0.2;.*,pass,' "$t/to/cases.csv" &&
	pass "timeout: case recorded as timeout, next case ran" || fail "timeout" "rc=$rc $(cat "$t/to/cases.csv")"

# Crash (SIGSEGV) and kill (SIGKILL, as the OOM killer does) of a case.
# Each case waits at its stop point "locked" (MMBENCH_STOP_AT, once it
# holds the settings lock) for SIGUSR1: the first is sent the signal there,
# the second let go. Events, not a delay, decide when.
stop_pids() { sed -n 's/.*stop point .* reached by pid \([0-9]*\).*/\1/p' "$1"; }
stops_at_least() { [ "$(stop_pids "$1" | wc -l)" -ge "$2" ]; }
for sig in SEGV KILL; do
	MMBENCH_STOP_AT=case/locked "$MMBENCH" run pageout -p instances=1 -p size_mb=4 \
		-p duration_s=30,0.2 -i 1 -w 0 -o "$t/$sig" >/dev/null 2>"$t/$sig.err" &
	pid=$!
	if ! wait_until 300 stops_at_least "$t/$sig.err" 1; then
		kill -KILL $pid; wait $pid 2>/dev/null
		fail "crash SIG$sig" "the first case never reached its stop point: $(tail -2 "$t/$sig.err")"
		continue
	fi
	kill -$sig "$(stop_pids "$t/$sig.err" | sed -n 1p)"
	wait_until 300 stops_at_least "$t/$sig.err" 2 && kill -USR1 "$(stop_pids "$t/$sig.err" | sed -n 2p)"
	wait $pid
	rc=$?
	n=$(kill -l $sig)
	[ $rc -eq 1 ] && grep -q "duration_s=30;.*,fail,killed by signal $n" "$t/$sig/cases.csv" &&
		grep -q 'duration_s=0.2;.*,pass,' "$t/$sig/cases.csv" &&
		pass "crash: SIG$sig of a case is a failed case with the signal; run went on" ||
		fail "crash SIG$sig" "rc=$rc $(cat "$t/$sig/cases.csv")"
done

# Kill the whole run (mmbench and the case, as a machine crash would) while
# the second case runs: started.csv names that case, cases.csv has only the
# first, and the summary reports the unfinished one.
d=$t/died
crash_run "$d" started.csv 3 0.3 -p instances=1 -p size_mb=4 -p duration_s=0.2,30 -i 1
sum=$("$MMBENCH" summary "$d" 2>&1)
if [ "$(tail -n1 "$d/started.csv" | cut -d, -f6)" = "backing=file;dir=;duration_s=30;instances=1;size_mb=4" ] &&
	[[ $(tail -n1 "$d/started.csv" | cut -d, -f7) =~ ^20[0-9-]+T[0-9:]+Z$ ]] &&
	[ "$(awk 'NR > 1' "$d/cases.csv" | wc -l)" = 1 ] &&
	grep -q '^died .*duration_s=30;.*never ended' <<<"$sum" &&
	grep -q '^cases: 1 pass, 0 fail, 0 skip, 0 timeout, 1 unfinished$' <<<"$sum"; then
	pass "killed mid-case: started.csv names the case, summary reports it unfinished"
else
	fail "killed mid-case" "started: $(tr '\n' '|' <"$d/started.csv") summary: $(tr '\n' '|' <<<"$sum")"
fi

# The same directory used again (-o appends): the new case ends, and the
# crashed one is still the one reported.
"$MMBENCH" run pageout -p instances=1 -p size_mb=4 -p duration_s=0.1 -i 1 -w 0 -o "$d" \
	>/dev/null 2>&1
sum=$("$MMBENCH" summary "$d" 2>&1)
grep -q '^died .*duration_s=30;.*never ended' <<<"$sum" &&
	[ "$(grep -c '^died ' <<<"$sum")" = 1 ] &&
	grep -q '^cases: 2 pass, 0 fail, 0 skip, 0 timeout, 1 unfinished$' <<<"$sum" &&
	pass "reused directory: the crashed case stays the unfinished one" ||
	fail "reused directory" "$(tr '\n' '|' <<<"$sum")"

# Every case skipped: no results.csv, and the summary still shows why.
if [ "$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)" = 1 ]; then
	"$MMBENCH" run migrate_ad -i 1 -w 0 -o "$t/skipped" >/dev/null 2>&1
	rc=$?
	sum=$("$MMBENCH" summary "$t/skipped" 2>&1)
	src=$?
	[ $rc = 4 ] && [ $src = 0 ] && [ ! -e "$t/skipped/results.csv" ] &&
		grep -q '^skip    migrate_ad .*needs two NUMA nodes' <<<"$sum" &&
		grep -q '^cases: 0 pass, 0 fail, 1 skip, 0 timeout$' <<<"$sum" &&
		pass "every case skipped: summary without results.csv shows the reasons" ||
		fail "summary of a skipped run" "rc=$rc src=$src $(tr '\n' '|' <<<"$sum")"
else
	skip "summary of a skipped run" "migrate_ad runs on this multi-node machine"
fi

# Kill the whole run at several moments after the first rows: results.csv
# stays valid (the delays are measured from the first row, so a loaded
# machine does not turn the test into a kill before anything was written).
for delay in 0.1 0.7 1.3; do
	d=$t/k$delay
	crash_run "$d" results.csv 2 "$delay" -p instances=1 -p size_mb=2 -p duration_s=0.05 -i 200
	rows=$(( $(wc -l <"$d/results.csv") - 1 ))
	if [ $rows -gt 0 ] && valid_csv "$d/results.csv"; then
		pass "kill after ${delay}s: results.csv valid with $rows finished rows"
	else
		fail "kill after ${delay}s" "rows=$rows; last line: $(tail -1 "$d/results.csv")"
	fi
done
finish
