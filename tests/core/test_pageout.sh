#!/usr/bin/env bash
# End-to-end: pageout on this machine, through the real driver and kernel.
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/data"
run=$t/run
size_mb=32

# fincore samples the files while the loops run, from the run's start to
# its end (however long a loaded machine makes it): pages must really leave
# the page cache (mincore through util-linux, independent of mmbench).
"$MMBENCH" run pageout -p instances=1,2 -p size_mb=$size_mb -p duration_s=1 \
	-p dir="$t/data" -i 2 -w 1 -o "$run" 2>"$t/err" &
mm=$!
# ten minutes: only a guard against a run that hangs (the run's own
# --timeout ends a case long before)
i=0
while kill -0 $mm 2>/dev/null && [ $((i++)) -lt 6000 ]; do
	for f in "$t"/data/mmbench-*.dat; do
		[ -f "$f" ] && fincore -n -b -o RES,SIZE "$f" 2>/dev/null
	done
	sleep 0.1
done >"$t/fincore"
wait $mm
rc=$?
[ $rc -eq 0 ] && pass "pageout: run exits 0" || fail "pageout: run" "rc=$rc $(tail -3 "$t/err")"
res=$run/results.csv
[ "$(head -1 "$res")" = "schema,run_id,label,kernel,workload,case,iteration,metric,value,unit,better" ] &&
	pass "csv: header is schema 1" || fail "csv: header" "$(head -1 "$res")"
awk -F, 'NR > 1 && NF != 11 { bad++ } END { exit bad > 0 }' "$res" &&
	pass "csv: every row has 11 fields" || fail "csv: fields" ""
[ "$(grep -c ',pass,' "$run/cases.csv")" = 2 ] && pass "cases: two cases passed" ||
	fail "cases" "$(cat "$run/cases.csv")"
[ "$("$MMBENCH" field "$res" iteration | sort -u | tr '\n' ' ')" = "0 1 " ] &&
	pass "iterations: measured rows are 0 and 1 only" || fail "iterations" ""
[ "$("$MMBENCH" field --where metric=loops "$run/warmup.csv" value | wc -l)" = 2 ] &&
	pass "warm-ups: reported in warmup.csv, one per case" || fail "warm-ups" ""
grep -q "instances=2;size_mb=$size_mb" "$res" && grep -q "backing=file;dir=$t/data;duration_s=1;instances=1" "$res" &&
	pass "case: canonical key-sorted parameter string" || fail "case string" ""

metric_units "$res" loops:loops:higher loops_per_s:loops/s:higher pages_out_per_s:pages/s:higher \
	instance_loops_min:loops:info instance_loops_max:loops:info minflt:faults:info \
	majflt:faults:info loop_time:ns:info loop_vm_workingset_refault_file:count:info

pages=$(( size_mb * 1024 * 1024 / $(getconf PAGESIZE) ))
# Per case and iteration: loops > 0, and nearly every page of every loop
# was paged out (the kernel may keep a few under writeback or locked).
awk -F, -v pages=$pages '
	NR > 1 { k = $6 SUBSEP $7; v[k, $8] = $9; keys[k] = 1 }
	END {
		for (k in keys) {
			inst = k; sub(/.*instances=/, "", inst); sub(/;.*/, "", inst)
			if (v[k, "loops"] <= 0) { print "no loops in " k; bad = 1 }
			if (v[k, "pages_out"] < 0.9 * v[k, "loops"] * pages) {
				print "pages_out " v[k, "pages_out"] " < 90% of loops x pages in " k; bad = 1 }
			if (v[k, "loop_vm_workingset_refault_file"] <= 0) { print "no refaults in " k; bad = 1 }
			if (v[k, "instance_loops_min"] > v[k, "instance_loops_max"]) { print "min > max"; bad = 1 }
		}
		if (!length(keys)) { print "no rows: nothing to check"; bad = 1 }
		exit bad
	}' "$res" >"$t/why" && pass "plausible: loops > 0, pages out ~ loops x pages, refaults seen" ||
	fail "plausible values" "$(cat "$t/why")"
# The continuous figure: every loop timed, rates from loops over their own
# nanoseconds. With one instance loops_per_s is exactly 1 s over the mean
# loop time (no whole-loop count over a wall-clock second); with two it is
# the sum of the instances' rates, at least twice the slower one's. The
# pages counted by mincore() are the pages the next loop read back:
# workingset_refault_file over the loop (system-wide: other processes can
# only add to it, so at least the pages counted, less 2 %).
awk -F, '
	NR > 1 { k = $6 SUBSEP $7; v[k, $8] = $9; has[k, $8] = 1; keys[k] = 1 }
	END {
		split("loops_per_s loop_time_mean check_pct instance_loops_per_s_min", need, " ")
		for (k in keys) {
			for (i in need) if (!has[k, need[i]]) { print "no " need[i] " in " k; bad = 1 }
			inst = k; sub(/.*instances=/, "", inst); sub(/;.*/, "", inst)
			if (inst == 1) {
				x = v[k, "loops_per_s"] * v[k, "loop_time_mean"] / 1e9
				if (x < 0.999999 || x > 1.000001) { print "loops_per_s x loop_time_mean = " x " s in " k; bad = 1 }
				# refaults of other processes can only add to the
				# system-wide counter: a lower bound, not an equality
				d = v[k, "pages_out"] - v[k, "loop_vm_workingset_refault_file"]
				if (d > 0.02 * v[k, "pages_out"]) {
					print "pages_out " v[k, "pages_out"] " vs workingset_refault_file " v[k, "loop_vm_workingset_refault_file"] " in " k; bad = 1 }
			} else if (v[k, "loops_per_s"] < 2 * v[k, "instance_loops_per_s_min"] * 0.999999) {
				print "loops_per_s " v[k, "loops_per_s"] " below 2 x the slower instance " v[k, "instance_loops_per_s_min"]; bad = 1 }
			if (v[k, "check_pct"] < 0 || v[k, "check_pct"] >= 100) { print "check_pct " v[k, "check_pct"]; bad = 1 }
			if (has[k, "loop_oncpu_pct"] != has[k, "loop_runq_wait_pct"] ||
			    v[k, "loop_oncpu_pct"] + v[k, "loop_runq_wait_pct"] > 100.0001) {
				print "schedstat shares " v[k, "loop_oncpu_pct"] " + " v[k, "loop_runq_wait_pct"] " in " k; bad = 1 }
		}
		if (!length(keys)) { print "no rows: nothing to check"; bad = 1 }
		exit bad
	}' "$res" >"$t/why" &&
	pass "continuous: loops_per_s from timed loops, pages counted = refaults (workingset_refault_file)" ||
	fail "continuous figure" "$(head -3 "$t/why")"
if command -v fincore >/dev/null; then
	awk '$1 < $2 { partial = 1 } END { exit !partial }' "$t/fincore" &&
		pass "page cache: fincore saw the files partly evicted during the run" ||
		fail "page cache" "fincore never saw an evicted page: $(head -3 "$t/fincore")"
else
	skip "page cache: fincore check" "fincore (util-linux) not installed"
fi
ls "$t/data" | grep -q . && fail "cleanup: files removed" "$(ls "$t/data")" ||
	pass "cleanup: instance files removed after the run"

# The reference loop of make bench-pageout (tools/selfbench/ref_pageout): runs
# here, prints one line per window, leaves no file behind.
ref=$TOP/tools/selfbench/ref_pageout
if [ -x "$ref" ]; then
	line=$("$ref" 2 8 0.3 "$t/data" 0.2 2>"$t/err")
	rc=$?
	[ $rc = 0 ] && [[ $line =~ ^ref_pageout\ instances=2\ size_mb=8\ duration_s=0.3\ placement=after\ window=0\ loops=([0-9]+)\ loops_per_s=[0-9.e+]+$ ]] &&
		pass "ref_pageout: runs, prints its line (loops=${BASH_REMATCH[1]})" || fail "ref_pageout" "rc=$rc '$line' $(cat "$t/err")"
	ls "$t/data" | grep -q . && fail "ref_pageout: files removed" "$(ls "$t/data")" ||
		pass "ref_pageout: its files removed"
	# born, 3 windows: one line each, numbered 0-2, from the same run
	"$ref" 2 8 0.2 "$t/data" 0 born 3 >"$t/ref" 2>"$t/err"
	rc=$?
	line=$(sed -n 's/.* placement=born window=\([0-9]*\) loops=[0-9]* loops_per_s=[0-9.e+]*$/\1/p' "$t/ref" | tr '\n' ,)
	[ $rc = 0 ] && [ "$line" = 0,1,2, ] && [ "$(wc -l <"$t/ref")" = 3 ] && ! ls "$t/data" | grep -q . &&
		pass "ref_pageout born (instances born on their CPU), 3 windows: a line per window, no file left" ||
		fail "ref_pageout born" "rc=$rc $(cat "$t/ref" "$t/err") $(ls "$t/data")"
	"$ref" 0 8 1 "$t/data" >/dev/null 2>"$t/err"
	rc=$?
	[ $rc = 2 ] && grep -q '^usage: ref_pageout INSTANCES' "$t/err" && pass "ref_pageout: bad arguments, exit 2 with the usage" ||
		fail "ref_pageout usage" "rc=$rc $(cat "$t/err")"
	"$ref" 2 8 1 "$t/data" 0 after 0 >/dev/null 2>"$t/err"
	rc=$?
	[ $rc = 2 ] && grep -q '^usage: ref_pageout INSTANCES' "$t/err" && pass "ref_pageout: 0 windows, exit 2 with the usage" ||
		fail "ref_pageout windows" "rc=$rc $(cat "$t/err")"
	"$ref" 2 8 1 "$t/data" 0 sideways >/dev/null 2>"$t/err"
	[ $? = 2 ] && grep -q 'after|born' "$t/err" && pass "ref_pageout: an unknown placement, exit 2 with the usage" ||
		fail "ref_pageout placement" "$(cat "$t/err")"
else
	fail "ref_pageout" "not built (make tools/selfbench/ref_pageout)"
fi
for f in meta.csv topology.xml run.log; do
	[ -s "$run/$f" ] && pass "run dir has $f" || fail "run dir: $f" "missing or empty"
done
grep -q '<topology' "$run/topology.xml" && pass "topology.xml is hwloc XML" || fail "topology.xml" ""

# Refusals before any work, with the reason recorded.
"$MMBENCH" run pageout -p size_mb=$(( $(awk '/MemAvailable/ {print int($2/1024)}' /proc/meminfo) )) \
	-p instances=1 -i 1 -w 0 -o "$t/big" >/dev/null 2>"$t/err"
rc=$?
[ $rc -eq 1 ] && grep -q 'more than half of MemAvailable' "$t/big/cases.csv" &&
	pass "refuse: size beyond a safe share of MemAvailable" || fail "refuse: size" "rc=$rc $(cat "$t/err")"
"$MMBENCH" run pageout -p dir=/nonexistent/dir -p size_mb=1 -i 1 -w 0 -o "$t/ro" >/dev/null 2>&1
rc=$?
[ $rc = 1 ] && grep -q "dir '/nonexistent/dir' is not writable: No such file" "$t/ro/cases.csv" && pass "refuse: unwritable dir named (exit 1)" ||
	fail "refuse: dir" "rc=$rc $(cat "$t/ro/cases.csv")"
if [ "$(awk '/SwapTotal/ {print $2}' /proc/meminfo)" = 0 ]; then
	"$MMBENCH" run pageout -p backing=anon -p size_mb=1 -i 1 -w 0 -o "$t/anon" >/dev/null 2>&1
	rc=$?
	[ $rc -eq 4 ] && grep -q ',skip,.*needs swap' "$t/anon/cases.csv" &&
		pass "skip: anon backing without swap, with reason" || fail "skip anon" "rc=$rc"
else
	skip "skip: anon backing without swap" "this machine has swap"
fi

# Precondition: a file on tmpfs without swap is never paged out. The loop
# then measures reads of resident pages and no reclaim: the case fails with
# the reason and emits nothing, instead of passing with pages_out 0.
shm=$(df --output=fstype /dev/shm 2>/dev/null | tail -1)
if [ "$(awk '/SwapTotal/ {print $2}' /proc/meminfo)" = 0 ] && [ "$shm" = tmpfs ] &&
	sd=$(mktemp -d /dev/shm/mmbench-test.XXXXXX); then
	"$MMBENCH" run pageout -p dir="$sd" -p size_mb=4 -p instances=1 -p duration_s=0.2 \
		-i 2 -w 0 -o "$t/shm" >/dev/null 2>"$t/err"
	rc=$?
	rm -rf "$sd"
	[ $rc -eq 1 ] && grep -q ',fail,.*precondition failed in iteration 0: MADV_PAGEOUT paged out none of the 1024 pages.*dir on tmpfs, swap 0 kB' "$t/shm/cases.csv" &&
		pass "precondition: nothing paged out (tmpfs, no swap) fails the case with the reason" ||
		fail "precondition: tmpfs" "rc=$rc $(cat "$t/shm/cases.csv" 2>/dev/null)"
	[ ! -s "$t/shm/results.csv" ] || [ "$(wc -l <"$t/shm/results.csv")" -le 1 ] &&
		pass "precondition: the failed iteration emitted no row" ||
		fail "precondition: rows" "$(head -3 "$t/shm/results.csv")"
else
	skip "precondition: nothing paged out" "needs /dev/shm on tmpfs and no swap"
fi
# And where pageout works, every loop paged out the whole mapping.
"$MMBENCH" field --where metric=pages_out_per_loop_pct "$res" value |
	awk '{ n++; if ($1 < 90) bad = bad " " $1 }
	END { if (bad != "" || n != 4) { print n " rows," bad; exit 1 } }' >"$t/why" &&
	pass "pages_out_per_loop_pct >= 90 in every iteration" || fail "pages_out_per_loop_pct" "$(cat "$t/why")"
finish
