#!/usr/bin/env bash
# End-to-end: thp_storm on this machine, through the real driver and kernel.
# Small sizes keep it under a minute; the full-size storm is the reproduce
# suite's job.
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/data"
THP=/sys/kernel/mm/transparent_hugepage
mode=$(sed 's/.*\[\(.*\)\].*/\1/' $THP/enabled 2>/dev/null)
if [ -z "$mode" ] || [ "$mode" = never ]; then
	skip "thp_storm" "THP is '${mode:-absent}' on this kernel"
	exit 4
fi
size_mb=1024
pmd_kb=$(( $(cat $THP/hpage_pmd_size) / 1024 ))
regions=$(( size_mb * 1024 / pmd_kb / 2 ))

# The host guard. Whether free page reporting is active, decided here from
# the same kernel interfaces: the module parameter, then a virtio balloon
# with VIRTIO_BALLOON_F_REPORTING (features bit 5), Hyper-V's balloon, or a
# reported_kib counter above 0.
PR=/sys/module/page_reporting/parameters
reporting=0
if [ -r $PR/page_reporting_order ]; then
	for dev in /sys/bus/virtio/devices/*; do
		[ "$(cat "$dev/device" 2>/dev/null)" = 0x0005 ] &&
			[ "$(cut -c6 "$dev/features" 2>/dev/null)" = 1 ] && reporting=1
	done
	[ -d /sys/module/hv_balloon ] && reporting=1
	[ "$(cat $PR/reported_kib 2>/dev/null || echo 0)" -gt 0 ] && reporting=1
fi
run=$t/run
# A storm the host disturbs is retried by the guard; after 5 disturbed
# attempts the case fails with the reason (steal time, memory taken back).
# That is the host's doing, not the workload's: the run is repeated once,
# and if the host disturbs it again the checks of its values are skipped
# with the guard's reason. Any other failure fails.
main_run() {
	rm -rf "$run"
	"$MMBENCH" run thp_storm -p threads=1,2 -p size_mb=$size_mb -p raw=1 \
		-p dir="$t/data" -i 2 -w 1 -o "$run" 2>"$t/err"
	rc=$?
	disturbed=$(failed_only_for "$run/cases.csv" thp_storm "storm of .* disturbed in [0-9]+ attempts")
}
main_checks() {
	[ $rc -eq 0 ] && pass "run: threads=1,2 exits 0" || fail "run" "rc=$rc $(tail -3 "$t/err")"
	res=$run/results.csv
	[ "$(grep -c ',pass,' "$run/cases.csv")" = 2 ] && pass "cases: both thread counts passed" ||
		fail "cases" "$(cat "$run/cases.csv")"

	# Every metric, for each thread count and iteration; the conditional ones
	# exactly when they are defined.
	"$MMBENCH" field "$res" case iteration metric value | awk -F'\t' -v regions=$regions '
		{ k = $1 SUBSEP $2; v[k, $3] = $4; has[k, $3] = 1; keys[k] = 1 }
		END {
			split("fault_base_count fault_huge_count fault_both_count fault_both_mean " \
			      "fault_both_p50 fault_both_p90 fault_both_p99 fault_both_max pct_huge " \
			      "compact_stall compact_success compact_fail pgmigrate_success " \
			      "pgmigrate_fail compact_isolated compact_migrate_scanned " \
			      "compact_free_scanned thp_fault_alloc thp_fault_fallback " \
			      "compaction_cost storm_time", need, " ")
			split("mean p50 p90 p99 max", stat, " ")
			for (k in keys) {
				n++
				for (i in need) if (!has[k, need[i]]) { print "missing " need[i] " in " k; bad = 1 }
				for (c = 1; c <= 2; c++) {
					cl = c == 1 ? "fault_base" : "fault_huge"
					for (s in stat)
						if (has[k, cl "_" stat[s]] != (v[k, cl "_count"] > 0)) {
							print cl "_" stat[s] " present=" has[k, cl "_" stat[s]] " with count " v[k, cl "_count"]; bad = 1 }
				}
				if (has[k, "compaction_efficiency"] != (v[k, "compact_stall"] > 0)) {
					print "compaction_efficiency defined iff stalls, " k; bad = 1 }
				if (has[k, "scan_efficiency"] != (v[k, "compact_free_scanned"] > 0)) {
					print "scan_efficiency defined iff free pages scanned, " k; bad = 1 }
			}
			if (n != 4) { print n " case/iteration groups, expected 4"; bad = 1 }
			exit bad
		}' >"$t/why" && pass "metrics: all present per thread count and iteration, conditional ones iff defined" ||
		fail "metrics" "$(head -5 "$t/why")"
	"$MMBENCH" field "$res" metric value |
		awk -F'\t' '$2 !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/ { print; bad = 1 } END { exit bad }' >"$t/why" &&
		pass "values: all numeric (no nan/inf)" || fail "values numeric" "$(head -1 "$t/why")"
	# The derived metrics recomputed from the rows and samples.csv they come
	# from (tests/lib.sh): pct_huge, the efficiencies, compaction_cost, and
	# every class's mean, p50, p90, p99 and max.
	thp_storm_recheck "$run" >"$t/why" &&
		pass "recheck: pct_huge, efficiencies, compaction_cost and each class's mean/p50/p90/p99/max agree with the rows and samples.csv" ||
		fail "recheck of the derived metrics" "$(head -5 "$t/why")"
	# ... and the recheck sees a derived value that disagrees, and a
	# sample missing from samples.csv.
	rm -rf "$t/planted" && cp -r "$run" "$t/planted" &&
		sed -i '0,/,pct_huge,/s/,pct_huge,[^,]*,/,pct_huge,12.5,/' "$t/planted/results.csv" &&
		sed -i '$d' "$t/planted/samples.csv"
	thp_storm_recheck "$t/planted" >"$t/why"
	check "recheck names a planted pct_huge of 12.5 and a sample removed from samples.csv" \
		eval 'grep -q "pct_huge = 12.5," "$t/why" && grep -q "samples.csv has" "$t/why"'

	# Plausible values: the kernel's own counters agree with the classes.
	"$MMBENCH" field "$res" case iteration metric value | awk -F'\t' -v regions=$regions '
		{ k = $1 SUBSEP $2; v[k, $3] = $4; has[k, $3] = 1; keys[k] = 1 }
		END {
			split("compact_stall compact_success compact_fail pgmigrate_success " \
			      "pgmigrate_fail compact_isolated compact_migrate_scanned " \
			      "compact_free_scanned thp_fault_alloc thp_fault_fallback compaction_cost", ctr, " ")
			for (k in keys) {
				p = v[k, "pct_huge"]
				if (p < 0 || p > 100) { print "pct_huge " p; bad = 1 }
				if (p <= 0) { print "pct_huge 0 with MADV_HUGEPAGE in " k; bad = 1 }
				if (v[k, "fault_both_count"] != regions) { print "faults " v[k, "fault_both_count"] " != " regions; bad = 1 }
				if (v[k, "fault_base_count"] + v[k, "fault_huge_count"] + v[k, "fault_mthp_count"] != v[k, "fault_both_count"]) {
					print "classes do not add up in " k; bad = 1 }
				if (v[k, "thp_fault_alloc"] < v[k, "fault_huge_count"]) {
					print "thp_fault_alloc " v[k, "thp_fault_alloc"] " < huge faults " v[k, "fault_huge_count"]; bad = 1 }
				for (i in ctr) if (v[k, ctr[i]] < 0) { print ctr[i] " negative"; bad = 1 }
				if (!(v[k, "fault_both_p50"] <= v[k, "fault_both_p90"] && v[k, "fault_both_p90"] <= v[k, "fault_both_p99"] &&
				      v[k, "fault_both_p99"] <= v[k, "fault_both_max"] && v[k, "fault_both_mean"] <= v[k, "fault_both_max"] &&
				      v[k, "fault_both_p50"] > 0)) { print "latency order broken in " k; bad = 1 }
				if (!has[k, "classify_mismatch_smaps"] || v[k, "classify_mismatch_smaps"] != 0) { print "smaps disagrees or no row: " v[k, "classify_mismatch_smaps"]; bad = 1 }
				if (has[k, "classify_mismatch_kpageflags"] && v[k, "classify_mismatch_kpageflags"] != 0) {
					print "kpageflags disagrees: " v[k, "classify_mismatch_kpageflags"]; bad = 1 }
				if (!has[k, "frag_thp_left"] || v[k, "frag_thp_left"] != 0) { print "THPs left in the fragmented memory, or no row: " v[k, "frag_thp_left"]; bad = 1 }
			}
			exit bad
		}' >"$t/why" && pass "values: 0 < pct_huge <= 100, counters >= 0, thp_fault_alloc >= huge faults, classes confirmed" ||
		fail "values" "$(head -5 "$t/why")"
	if [ "$(id -u)" = 0 ]; then
		grep -q ',classify_mismatch_kpageflags,' "$res" && pass "root: classes confirmed by kpageflags" ||
			fail "kpageflags" "no classify_mismatch_kpageflags row as root"
	else
		skip "kpageflags confirmation" "not root"
	fi

	metric_units "$res" fault_both_mean:us:lower fault_both_p99:us:lower fault_huge_max:us:lower \
		fault_both_count:faults:info pct_huge:pct:higher compact_stall:stalls:lower \
		compaction_cost:MiB:lower thp_fault_alloc:faults:info storm_time:ns:info

	# The metric table: evidence with its direction in metrics.csv, evidence
	# first in `mmbench info`; the fragmentation's pressure reported per iteration.
	"$MMBENCH" field "$run/metrics.csv" metric better role timed | awk -F'\t' '
		$1 == "pct_huge" && $2 == "higher" && $3 == "evidence" { a = 1 }
		$1 == "fault_both_mean" && $2 == "lower" && $3 == "evidence" && $4 == 1 { b = 1 }
		$1 == "frag_time" && $3 == "context" { c = 1 }
		END { exit !(a && b && c) }' &&
		pass "metrics.csv: pct_huge (higher), fault_both_mean (lower, timed) evidence; frag_time context" ||
		fail "metrics.csv roles" "$(grep -E 'pct_huge|fault_both_mean|frag_time' "$run/metrics.csv")"
	"$MMBENCH" info thp_storm | awk '/^METRIC/ { t = 1; next } t && NF { print $2; exit }' | grep -qx evidence &&
		"$MMBENCH" info thp_storm | grep -q '^pct_huge  *evidence higher' &&
		pass "info: the metric table, evidence first" || fail "info metric table" "$("$MMBENCH" info thp_storm | tail -5)"
	[ "$(metric_vals "$res" storm_start_free_huge_pct_of_need | wc -l)" = 4 ] &&
		pass "storm_start_free_huge_pct_of_need in every iteration" ||
		fail "pressure metric" "$(metric_vals "$res" storm_start_free_huge_pct_of_need | tr '\n' ' ')"

	# Raw samples: every measured fault once, classes matching the results.
	smp=$run/samples.csv
	[ "$(awk -F, 'NR > 1' "$smp" | wc -l)" = $(( regions * 2 * 2 )) ] &&
		pass "samples: one row per measured fault (no warm-up rows)" ||
		fail "samples" "$(awk -F, 'NR > 1' "$smp" | wc -l) rows, expected $(( regions * 4 ))"
	"$MMBENCH" field --where class=huge "$smp" case iteration |
		awk -F'\t' '{ s[$1 SUBSEP $2]++ } END { for (k in s) print k, s[k] }' | sort >"$t/s1"
	"$MMBENCH" field --where metric=fault_huge_count "$res" case iteration value |
		awk -F'\t' '{ print $1 SUBSEP $2, $3 }' | sort >"$t/s2"
	cmp -s "$t/s1" "$t/s2" && pass "samples: huge rows match fault_huge_count" || fail "samples classes" "$(diff "$t/s1" "$t/s2" | head -3)"
	grep -q 'note_thp_storm_classify,.*mincore' "$run/meta.csv" && pass "meta: classification method noted" ||
		fail "meta" "no note_thp_storm_classify"
	ls "$t/data" | grep -q . && fail "cleanup: refill file removed" "$(ls "$t/data")" ||
		pass "cleanup: refill file removed"

	notes=$(grep -c '^note_thp_storm_guard,' "$run/meta.csv")
	if [ $reporting = 1 ]; then
		[ "$notes" = 2 ] && ! grep '^note_thp_storm_guard,' "$run/meta.csv" | grep -qv 'free page reporting (' &&
			pass "guard: meta.csv says the free page reporting guard ran, per case" ||
			fail "guard note" "$(grep '^note_thp_storm_guard,' "$run/meta.csv")"
		# Per emitted iteration: the guard's rows, no reporting in its window
		# (that is the criterion), its retries the run log's, its PFN check
		# consistent with the huge faults.
		"$MMBENCH" field "$res" case iteration metric value | awk -F'\t' '
			{ k = $1 SUBSEP $2; v[k, $3] = $4; has[k, $3] = 1; keys[k] = 1 }
			END {
				split("storm_guard_retries storm_guard_backed storm_guard_backed_huge_pct storm_guard_back_time storm_steal", need, " ")
				for (k in keys) {
					for (i in need) if (!has[k, need[i]]) { print "no " need[i] " in " k; bad = 1 }
					if (has[k, "storm_guard_reported"] && v[k, "storm_guard_reported"] != 0) {
						print "emitted with " v[k, "storm_guard_reported"] " KiB reported in the window: " k; bad = 1 }
					if (v[k, "storm_guard_backed_huge_pct"] < 0 || v[k, "storm_guard_backed_huge_pct"] > 100) {
						print "backed_huge_pct " v[k, "storm_guard_backed_huge_pct"]; bad = 1 }
					if (has[k, "storm_guard_unbacked_faults"] &&
					    (v[k, "storm_guard_unbacked_faults"] > v[k, "fault_huge_count"] ||
					     v[k, "storm_guard_huge_from_backed_pct"] < 0 || v[k, "storm_guard_huge_from_backed_pct"] > 100)) {
						print "unbacked " v[k, "storm_guard_unbacked_faults"] " of " v[k, "fault_huge_count"] " huge"; bad = 1 }
				}
				exit bad
			}' >"$t/why" && pass "guard: its rows in every iteration, none emitted with memory reported in its window" ||
			fail "guard rows" "$(head -3 "$t/why")"
		# The fill witness (fill=1, the default): every emitted storm with 32 or
		# more huge faults has its mean fill; the measured ones a baseline (the
		# warm-up's storm and those after it: some must have one); none is
		# emitted over it by more than 15%.
		"$MMBENCH" field "$res" case iteration metric value | awk -F'\t' '
			{ k = $1 SUBSEP $2; v[k, $3] = $4; has[k, $3] = 1; keys[k] = 1 }
			END {
				for (k in keys) {
					if (v[k, "fault_huge_count"] >= 32) {
						witnessed++
						if (!has[k, "storm_guard_fill"]) { print "no fill witness in " k; bad = 1 }
					}
					if (!has[k, "storm_guard_fill_base"])
						continue
					based++
					f = v[k, "storm_guard_fill"]; b = v[k, "storm_guard_fill_base"]
					if (f <= 0 || b <= 0 || f > b * 1.15) { print "fill " f " us against a baseline of " b " in " k; bad = 1 }
				}
				if (witnessed > 2 && !based) { print "no storm with a fill baseline"; bad = 1 }
				exit bad
			}' >"$t/why" && pass "guard: fill witness in every storm with 32 or more THPs, baselines, none emitted over 15% above it" ||
			fail "guard fill" "$(head -3 "$t/why")"
		# A storm retried for its fill was over the limit, as the log says.
		sed -n 's/.*storm disturbed: filling its huge pages took [0-9.]* us per THP, \([0-9.]*\)% over .*/\1/p' "$run/run.log" |
			awk '$1 <= 15 { print "retried at " $1 "%"; bad = 1 } END { exit bad }' >"$t/why" &&
			pass "guard: storms retried for their fill were over the limit ($(grep -c 'storm disturbed: filling' "$run/run.log"))" ||
			fail "guard fill retries" "$(cat "$t/why")"
		if [ -r $PR/reported_kib ]; then
			grep -c ',storm_guard_reported,' "$res" | grep -qx 4 && pass "guard: storm_guard_reported in every iteration (reported_kib exists)" ||
				fail "guard reported" "$(grep -c ',storm_guard_reported,' "$res") rows"
		fi
		if [ "$(id -u)" = 0 ]; then
			[ "$(grep -c ',storm_guard_huge_from_backed_pct,' "$res")" = 4 ] &&
				pass "guard: the storm's THPs checked against the backed blocks (root, pagemap)" ||
				fail "guard PFN check" "$(grep -c ',storm_guard_huge_from_backed_pct,' "$res") rows"
		else
			skip "guard: the storm's THPs against the backed blocks" "not root (pagemap's PFNs)"
		fi
		# retries in results.csv = "retry" lines in the log, per case and iteration
		"$MMBENCH" field --where metric=storm_guard_retries "$res" value |
			awk '{ s += $1 } END { print s + 0 }' >"$t/r1"
		grep -c '^thp_storm: iteration [0-9]*: storm disturbed: .*nothing emitted, retry' "$run/run.log" >"$t/r2"
		cmp -s "$t/r1" "$t/r2" && pass "guard: retries recorded ($(cat "$t/r1")) = disturbed storms logged" ||
			fail "guard retries" "results $(cat "$t/r1"), log $(cat "$t/r2")"
	else
		[ "$notes" = 2 ] && ! grep '^note_thp_storm_guard,' "$run/meta.csv" | grep -qv '\]: none (' &&
			! grep -q ',storm_guard_' "$res" &&
			pass "guard: no free page reporting here: none ran, no storm_guard_* rows (nothing changes)" ||
			fail "guard off here" "$(grep '^note_thp_storm_guard,' "$run/meta.csv")"
	fi
	# Runqueue waits inside the timed touches (schedstat), context.
	"$MMBENCH" field "$res" case iteration metric value | awk -F'\t' '
		{ k = $1 SUBSEP $2; v[k, $3] = $4; has[k, $3] = 1; keys[k] = 1 }
		END {
			for (k in keys) {
				if (!has[k, "fault_runq_wait_mean"]) continue
				n++
				d = v[k, "fault_both_mean"] - v[k, "fault_runq_wait_mean"] - v[k, "fault_both_mean_excl_runq"]
				if (d < 0) d = -d
				if (d > 1e-6 * v[k, "fault_both_mean"] || v[k, "fault_runq_wait_mean"] > v[k, "fault_both_mean"] ||
				    v[k, "fault_runq_waited_count"] > v[k, "fault_both_count"]) { print "runq rows disagree in " k; bad = 1 }
			}
			if (n && n != 4) { print n " of 4 iterations with runq rows"; bad = 1 }
			exit bad
		}' >"$t/why" && pass "runq: fault_both_mean_excl_runq = fault_both_mean - fault_runq_wait_mean" ||
		fail "runq rows" "$(head -3 "$t/why")"
}
main_run
if [ $rc = 1 ] && [ "$disturbed" = yes ]; then
	first=$("$MMBENCH" field "$run/cases.csv" status reason | awk -F'\t' '$1 != "pass" { print $2; exit }')
	main_run
fi
if [ $rc = 1 ] && [ "$disturbed" = yes ]; then
	skip "thp_storm end to end (threads=1,2)" "in two runs the host disturbed every attempt of a storm, so the guest kernel could not be measured; the checks of the values are left out: $first"
else
	main_checks
fi

# guard=off: nothing backed, nothing checked, said in meta.csv.
"$MMBENCH" run thp_storm -p threads=1 -p size_mb=256 -p guard=off -p dir="$t/data" \
	-i 1 -w 0 -o "$t/goff" >/dev/null 2>&1
rc=$?
[ $rc = 0 ] && grep -q '^note_thp_storm_guard,.*\]: none (guard=off)' "$t/goff/meta.csv" && ! grep -q ',storm_guard_' "$t/goff/results.csv" &&
	pass "guard=off: none ran, no storm_guard_* rows, meta.csv says so" ||
	fail "guard=off" "rc=$rc $(grep guard "$t/goff/meta.csv") $(tail -1 "$t/goff/cases.csv")"

# A disturbed storm is recorded as such. settle_ms holds the backed memory
# free for 4 s before the storm: the host usually takes memory back in that
# time, and every such attempt must be retried (logged, counted) or, after
# the last retry, fail the case with the reason and no rows. Whether the
# host reported anything is the kernel's counter, not the clock. --profile
# is on: what it sampled in a disturbed storm is discarded
# (mm_measure_discard), so the storm is retried as without it.
if [ $reporting = 1 ] && [ -r $PR/reported_kib ]; then
	"$MMBENCH" run thp_storm -p threads=1 -p size_mb=256 -p settle_ms=4000 -p dir="$t/data" \
		--profile -i 1 -w 0 -o "$t/settle" >/dev/null 2>"$t/err.settle"
	rc=$?
	logged=$(grep -c 'storm disturbed: the host took back [0-9]* KiB (reported_kib)' "$t/settle/run.log" 2>/dev/null)
	# 0 and 1 are the outcomes; any other exit (a crash, a usage error) fails
	if [ $rc != 0 ] && [ $rc != 1 ] || [ -z "$logged" ]; then
		fail "guard disturbed" "exit $rc (expected 0 or 1)$([ -z "$logged" ] && echo ", no run.log"): $(tail -2 "$t/err.settle")"
	elif [ $rc = 1 ]; then
		grep -q ',fail,"storm of iteration 0 disturbed in 6 attempts, the last: the host took back [0-9]* KiB (reported_kib) during the storm' "$t/settle/cases.csv" &&
			[ "$logged" = 5 ] && ! grep -q ',thp_storm,' "$t/settle/results.csv" 2>/dev/null &&
			pass "guard: disturbed in every attempt: 5 retries logged, the case fails with the reason, no rows" ||
			fail "guard disturbed" "rc=$rc logged=$logged $(tail -1 "$t/settle/cases.csv")"
	elif [ $rc = 0 ] && [ "$logged" -gt 0 ]; then
		[ "$(metric_vals "$t/settle/results.csv" storm_guard_retries)" = "$logged" ] &&
			[ "$(metric_vals "$t/settle/results.csv" storm_guard_reported)" = 0 ] &&
			pass "guard: $logged disturbed attempt(s) retried, counted in storm_guard_retries, the emitted one clean" ||
			fail "guard retried" "logged $logged, retries $(metric_vals "$t/settle/results.csv" storm_guard_retries)"
	else
		skip "guard: disturbed storm" "the host reported nothing in 4 s windows (rc=$rc): nothing to record"
	fi
else
	skip "guard: disturbed storm" "no free page reporting counter (reported_kib) on this kernel"
fi

# madvise=0 in madvise mode: the kernel must not give one huge page, so
# the storm measures base-page faults only: a failed precondition. The case
# fails with the reason (THPeligible 0, no large folio) and emits nothing.
# An mTHP size set to always meanwhile (by another run on this machine) would
# give the storm large folios: then the check is not made.
mthp_on() { grep -l '\[always\]' $THP/hugepages-*kB/enabled 2>/dev/null | grep -v "hugepages-${pmd_kb}kB" | tr '\n' ' '; grep -l '\[always\]' $THP/enabled; }
m0=$(mthp_on)
"$MMBENCH_SAN" run thp_storm -p threads=1 -p size_mb=256 -p madvise=0 -p dir="$t/data" \
	-i 1 -w 0 -o "$t/nomadv" >/dev/null 2>"$t/err"
rc=$?
m1=$(mthp_on)
if [ -n "$m0$m1" ]; then
	skip "madvise=0 gives no THP" "mTHP sizes enabled during the run: $m0$m1"
elif [ "$mode" = madvise ]; then
	[ $rc -eq 1 ] && grep -q ',fail,"no huge page possible in the storm of iteration 0: its regions are not THP-eligible (smaps THPeligible 0; THP enabled=madvise, madvise=0) and none of its 64 faults got a large folio' "$t/nomadv/cases.csv" &&
		! grep -q ',thp_storm,' "$t/nomadv/results.csv" 2>/dev/null &&
		pass "madvise=0 in madvise mode: no THP possible, the case fails with the reason and emits nothing (ASan build)" ||
		fail "madvise=0" "rc=$rc $(tail -1 "$t/nomadv/cases.csv") $(tail -2 "$t/err")"
else
	skip "madvise=0 gives no THP" "THP mode is '$mode', not madvise"
fi

# mTHP: enabled for the run, put back after it.
m64=$THP/hugepages-64kB/enabled
if [ "$(id -u)" = 0 ] && [ -w "$m64" ]; then
	before=$(sed 's/.*\[\(.*\)\].*/\1/' "$m64")
	"$MMBENCH_SAN" run thp_storm -p threads=1 -p size_mb=256 -p mthp=64kB -p dir="$t/data" \
		-i 1 -w 0 -o "$t/mthp" >/dev/null 2>"$t/err"
	rc=$?
	after=$(sed 's/.*\[\(.*\)\].*/\1/' "$m64")
	[ $rc -eq 0 ] && grep -q ',mthp_64kB_anon_fault_alloc,' "$t/mthp/results.csv" &&
		grep -q ',fault_mthp_count,' "$t/mthp/results.csv" &&
		pass "mthp=64kB: runs, reports the size's fault counters" || fail "mthp run" "rc=$rc $(tail -2 "$t/err")"
	[ "$before" = "$after" ] && pass "mthp: hugepages-64kB/enabled restored ('$after')" ||
		fail "mthp restore" "was '$before', now '$after'"
	if [ "$before" = never ]; then
		grep -q "^save,$m64,never" "$t/mthp/settings.journal" && grep -q "^done,$m64," "$t/mthp/settings.journal" &&
			pass "mthp: change journalled and restored" || fail "mthp journal" "$(cat "$t/mthp/settings.journal")"
	fi
else
	skip "mthp settings" "needs root and a writable $m64"
fi
"$MMBENCH" run thp_storm -p threads=1 -p size_mb=256 -p mthp=3kB -i 1 -w 0 -o "$t/m3" >/dev/null 2>&1
rc=$?
[ $rc -eq 4 ] && grep -q ',skip,.*no 3kB size' "$t/m3/cases.csv" && pass "mthp: absent size skipped with its reason" ||
	fail "mthp absent size" "rc=$rc $(tail -1 "$t/m3/cases.csv")"
"$MMBENCH" run thp_storm -p threads=1 -p size_mb=256 -p mthp=lots -i 1 -w 0 -o "$t/mbad" >/dev/null 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "parameter 'mthp': 'lots' is not a list of sizes" "$t/mbad/cases.csv" &&
	pass "mthp: malformed value refused, named" || fail "mthp malformed" "rc=$rc $(tail -1 "$t/mbad/cases.csv")"

# Refusals before anything is mapped or written.
avail_mb=$(awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo)
"$MMBENCH" run thp_storm -p threads=1 -p size_mb=$(( avail_mb + 1024 )) -p dir="$t/data" \
	-i 1 -w 0 -o "$t/big" >/dev/null 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "size_mb=$(( avail_mb + 1024 )) is larger than MemAvailable" "$t/big/cases.csv" &&
	[ -z "$(ls "$t/data")" ] && ! grep -q ',frag_time,' "$t/big/results.csv" 2>/dev/null &&
	pass "refuse: size beyond MemAvailable, before mapping or writing anything" ||
	fail "refuse: size" "rc=$rc $(tail -1 "$t/big/cases.csv")"
"$MMBENCH" run thp_storm -p threads=1 -p size_mb=$(( avail_mb * 95 / 100 )) -i 1 -w 0 -o "$t/near" >/dev/null 2>&1
rc=$?
[ $rc = 1 ] && grep -q "more than 90% of MemAvailable" "$t/near/cases.csv" && pass "refuse: above 90% of MemAvailable (no swap, OOM; exit 1)" ||
	fail "refuse: 95%" "rc=$rc $(tail -1 "$t/near/cases.csv")"
"$MMBENCH" run thp_storm -p threads=8 -p size_mb=4 -i 1 -w 0 -o "$t/small" >/dev/null 2>&1
rc=$?
[ $rc = 1 ] && grep -q "8 threads need at least" "$t/small/cases.csv" && pass "refuse: fewer regions than threads, named (exit 1)" ||
	fail "refuse: tiny" "rc=$rc $(tail -1 "$t/small/cases.csv")"
"$MMBENCH" run thp_storm -p threads=1 -p size_mb=64 -p dir=/nonexistent/dir -i 1 -w 0 -o "$t/nodir" >/dev/null 2>&1
rc=$?
[ $rc = 1 ] && grep -q "dir '/nonexistent/dir' is not writable" "$t/nodir/cases.csv" && pass "refuse: unwritable dir named (exit 1)" ||
	fail "refuse: dir" "rc=$rc $(tail -1 "$t/nodir/cases.csv")"
shm=$(awk '$3 == "tmpfs" { print $2 }' /proc/mounts | while read -r d; do [ -w "$d" ] && echo "$d" && break; done)
if [ -n "$shm" ]; then
	"$MMBENCH" run thp_storm -p threads=1 -p size_mb=64 -p dir="$shm" -i 1 -w 0 -o "$t/shm" >/dev/null 2>&1
	rc=$?
	[ $rc = 1 ] && grep -q "dir '$shm' is on tmpfs/ramfs: reading its file allocates no page cache" "$t/shm/cases.csv" &&
		pass "refuse: refill file on tmpfs (no page cache to refill with)" ||
		fail "refuse: tmpfs dir" "rc=$rc $(tail -1 "$t/shm/cases.csv")"
else
	skip "refuse: tmpfs dir" "no writable tmpfs mounted"
fi
finish
