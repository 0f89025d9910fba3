#!/usr/bin/env bash
# NUMA migration workloads on this machine: with one node migrate_ad and
# mlock_mix skip with the reason; mlock_mix trigger=compact migrates within
# the node with its mlock checks; --probe input and skips, no tracefs left.
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
# has_memory is a node list ("0", "0-1", "0,2"): count its members.
nodes=$(tr ',' '\n' </sys/devices/system/node/has_memory |
	awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n + 0 }')

# ---- one node: both workloads skip and name the VM lab
if [ "$nodes" = 1 ]; then
	for wl in migrate_ad mlock_mix; do
		"$MMBENCH" run $wl -p size_mb=4 -i 1 -w 0 -o "$t/$wl" >/dev/null 2>"$t/err"
		rc=$?
		[ $rc = 4 ] && grep -q ",skip,.*two NUMA nodes.*this machine has 1.*\./run\.sh --vm" "$t/$wl/cases.csv" &&
			pass "$wl: skips on one node, reason names ./run.sh --vm" ||
			fail "$wl: skip on one node" "rc=$rc $(tail -1 "$t/$wl/cases.csv")"
	done
else
	skip "one-node skips" "this machine has $nodes nodes with memory"
fi

# ---- bad input: named, exit 2, before any case runs
"$MMBENCH" run mlock_mix -p mlock_pct=101 -o "$t/bad" >/dev/null 2>"$t/err"
rc=$?
[ $rc = 2 ] && grep -q "mlock_pct.*101 is outside \[0, 100\]" "$t/err" &&
	pass "mlock_mix: mlock_pct=101 refused (exit 2)" || fail "mlock_pct=101" "rc=$rc $(cat "$t/err")"
"$MMBENCH" run migrate_ad -p method=teleport -o "$t/bad2" >/dev/null 2>"$t/err"
rc=$?
[ $rc = 2 ] && grep -q "method.*teleport.*move_pages|mbind|migrate_pages" "$t/err" &&
	pass "migrate_ad: unknown method refused (exit 2)" || fail "method=teleport" "rc=$rc $(cat "$t/err")"
"$MMBENCH" run mlock_mix -p trigger=compact --probe 'lru_add_drain,no good' -o "$t/bad3" >/dev/null 2>"$t/err"
rc=$?
[ $rc = 2 ] && grep -q "\-\-probe 'lru_add_drain,no good': 'no good' is not a kernel function name" "$t/err" &&
	pass "--probe: a bad function name is refused (exit 2)" || fail "--probe bad name" "rc=$rc $(cat "$t/err")"

if ! [ "$(id -u)" = 0 ]; then
	skip "mlock_mix trigger=compact" "needs root (compact_memory, pagemap PFNs)"
	finish
fi

# ---- compaction on one node: runs, checks hold, knob restored
# Compaction moves only what its scanners meet. Each iteration builds the
# regions afresh between filler pages that are then freed, so they sit in
# partly used pageblocks spread over the zone: every iteration (warm-up
# included) must move region pages and pass. An iteration that moved none
# is retried by the workload and, after 4 attempts, fails the case with the
# reason. On a host whose recent allocations all come from the top of the
# zone (a machine mostly free after other tests), compaction's free scanner
# can settle in the regions' own pageblocks and move none of them; the run
# is then repeated once, and if that fails the same way the checks of its
# values are skipped with the reason (tests/migrate/test_vm.sh runs the same
# in a fresh guest, where it must pass). Any other failure fails.
knob=/proc/sys/vm/compact_unevictable_allowed
orig=$(cat $knob)
compact_run() {
	rm -rf "$t/c"
	echo 0 >$knob
	"$MMBENCH" run mlock_mix -p trigger=compact -p threads=2 -p size_mb=16 -p mlock_pct=0,50 \
		-p rounds=2 -i 2 -w 1 --probe lru_add_drain -o "$t/c" >"$t/out" 2>"$t/err"
	rc=$?
	after=$(cat $knob)
	echo "$orig" >$knob
	# the failed cases' reasons, if every one is the layout's precondition
	layout=$(failed_only_for "$t/c/cases.csv" mlock_mix "compaction moved none of the regions. pages in [0-9]+ attempts")
}
compact_run
[ "$after" = 0 ] && pass "compact_unevictable_allowed restored after the run (was 0, run needs 1)" ||
	fail "knob restore" "compact_unevictable_allowed is $after after the run, was 0"
if [ $rc = 1 ] && [ "$layout" = yes ]; then
	first=$("$MMBENCH" field "$t/c/cases.csv" status reason | awk -F'\t' '$1 != "pass" { print $2; exit }')
	compact_run
	[ "$after" = 0 ] || fail "knob restore (second run)" "compact_unevictable_allowed is $after, was 0"
fi
if [ $rc = 1 ] && [ "$layout" = yes ]; then
	skip "mlock_mix trigger=compact on this host" "in two runs compaction met none of the regions' pages (the zone's free memory layout, not the workload; test_vm.sh covers it in a guest): $first"
else
	[ $rc = 0 ] && [ "$("$MMBENCH" field --where workload=mlock_mix "$t/c/cases.csv" status | grep -cx pass)" = 2 ] &&
		pass "mlock_mix trigger=compact: both cases pass (regions rebuilt in fragmented pageblocks each iteration)" ||
		fail "compact run" "rc=$rc $("$MMBENCH" field "$t/c/cases.csv" status reason | head -2) $(tail -3 "$t/err")"
	for f in results warmup; do
		"$MMBENCH" field --where metric=region_pages_moved "$t/c/$f.csv" iteration value | sed "s/^/$f.csv\t/"
	done | awk -F'\t' '{ n++; if ($3 <= 0) { print $1 " iteration " $2 ": " $3; bad = 1 } }
		END { if (n != 6) { print n " region_pages_moved rows, want 6 (2 cases x (2 + 1 warm-up))"; bad = 1 } exit bad }' >"$t/why" &&
		pass "compact: region pages moved in every iteration, warm-ups included" ||
		fail "compact precondition" "$(head -3 "$t/why")"
	# the completed iterations, counted by their rounds rows: none (no
	# results.csv, no row) is a failure, not a count of 0 every check meets
	done_its=$("$MMBENCH" field --where metric=rounds "$t/c/results.csv" value 2>/dev/null | wc -l)
	[ "$done_its" -gt 0 ] || fail "compact: completed iterations" "no rounds row in $t/c/results.csv: the checks below have nothing to check"
	for m in migrated_pages migrated_pages_per_s thread_pages_per_s_min thread_pages_per_s_max \
		region_pages_moved calls call_latency_p50 call_latency_p99 call_latency_max rounds \
		mlock_checks_passed mlocked_kb vmlck_kb nr_mlock_change unevictable_change_kb \
		own_pages_mlock_lost own_pages_mlocked_evictable own_pages_mlocked_by_mistake \
		migrate_vm_pgmigrate_success migrate_vm_compact_migrate_scanned; do
		n=$("$MMBENCH" field --where metric=$m "$t/c/results.csv" value | wc -l)
		[ "$n" = "$done_its" ] || missing="$missing $m($n)"
	done
	[ "$done_its" -gt 0 ] && [ -z "${missing:-}" ] && pass "compact: every metric present in each of the $done_its completed iterations" ||
		fail "compact: metrics" "rows missing (want $done_its):$missing"
	"$MMBENCH" field "$t/c/results.csv" case iteration metric value | awk -F'\t' '
		{ v[$1 SUBSEP $2, $3] = $4; k[$1 SUBSEP $2] = 1 }
		END {
			for (c in k) {
				pct = c; sub(/.*mlock_pct=/, "", pct); sub(/;.*/, "", pct)
				want = 2 * 16 * 1024 * pct / 100
				if (v[c, "mlocked_kb"] != want || v[c, "vmlck_kb"] != want) {
					print "mlocked " v[c, "mlocked_kb"] " VmLck " v[c, "vmlck_kb"] " want " want; bad = 1 }
				if (v[c, "mlock_checks_passed"] != 2 || v[c, "rounds"] != 2) {
					print "checks " v[c, "mlock_checks_passed"] "/" v[c, "rounds"]; bad = 1 }
				if (v[c, "own_pages_mlock_lost"] + v[c, "own_pages_mlocked_evictable"] + \
				    v[c, "own_pages_mlocked_by_mistake"] != 0) { print "own pages wrong in " c; bad = 1 }
				if (v[c, "calls"] != 4 || v[c, "call_latency_max"] < v[c, "call_latency_p50"]) {
					print "calls " v[c, "calls"]; bad = 1 }
				if (v[c, "migrate_vm_compact_migrate_scanned"] <= 0) { print "compaction scanned nothing"; bad = 1 }
			}
			if (!length(k)) { print "no rows in results.csv"; bad = 1 }
			exit bad
		}' >"$t/why" &&
		pass "compact: VmLck = mlocked share, every round checked, own pages' flags right, compaction ran" ||
		fail "compact values" "$(head -3 "$t/why")"
	# 2 threads x 2 rounds per completed iteration
	[ "$done_its" -gt 0 ] && [ "$("$MMBENCH" field --where class=compact "$t/c/samples.csv" value_ns 2>/dev/null | wc -l)" = $(( done_its * 4 )) ] &&
		pass "compact: one latency sample per compact_memory write" || fail "samples" "$(head -3 "$t/c/samples.csv")"

	# ---- --probe: counted, or skipped with a reason while the run goes on
	why=$(sed -n 's/^note_probe,.*lru_add_drain skipped: //p' "$t/c/meta.csv" | head -1)
	if [ -n "$why" ]; then
		! grep -q ',calls:lru_add_drain,' "$t/c/results.csv" &&
			pass "--probe: skipped with a reason ($why), no calls rows" ||
			fail "--probe skip" "a skip note and calls rows"
	else
		[ "$done_its" -gt 0 ] && [ "$(grep -c ',calls:lru_add_drain,' "$t/c/results.csv")" = "$done_its" ] &&
			pass "--probe: calls:lru_add_drain in every completed iteration" || fail "--probe" "no note, no rows"
	fi
fi
grep -q 'mmbench-tracefs' /proc/mounts && fail "tracefs cleanup" "$(grep mmbench-tracefs /proc/mounts)" ||
	pass "no private tracefs mount left after the run"
ls -d "${TMPDIR:-/tmp}"/mmbench-tracefs.* >/dev/null 2>&1 &&
	fail "tracefs cleanup" "$(ls -d "${TMPDIR:-/tmp}"/mmbench-tracefs.*)" || pass "no private tracefs directory left"

# ---- refusals before any work
"$MMBENCH" run mlock_mix -p trigger=compact -p threads=1 -p size_mb=$(( $(awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo) )) \
	-p mlock_pct=0 -i 1 -w 0 -o "$t/big" >/dev/null 2>&1
[ $? = 1 ] && grep -q 'more than half of MemAvailable' "$t/big/cases.csv" &&
	pass "refuse: regions beyond half of MemAvailable" || fail "refuse size" "$(tail -1 "$t/big/cases.csv")"
finish
