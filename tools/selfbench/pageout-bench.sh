#!/usr/bin/env bash
# make bench-pageout: is mmbench's pageout steadier than the posted loop?
# Runs, in one invocation, BENCH_ROUNDS (3) rounds of three arms, their
# order rotated every round:
#   mmbench run pageout -p instances=2 -p size_mb=64 -p duration_s=1 -i 10 -w 1
#   tools/selfbench/ref_pageout 2 64 1 DIR 1 after 10   (1 s warm-up, 10 windows of 1 s)
#   tools/selfbench/ref_pageout 2 64 1 DIR 1 born 10
# all on files in the same directory on the same file system. Each arm
# gives 10 values of loops/s from one run: mmbench its 10 iterations (the
# CoV `mmbench summary` prints and mmcompare's minimum detectable change
# rests on), the reference its 10 windows (the same processes on the same
# files, whole loops counted per window, as the posted loop counts). Per
# round it prints each side's mean, CoV and minimum detectable change at
# 10 iterations (tools/selfbench/lib.sh states the formula), their CoV ratio,
# the load average and whether that round alone met the target. The
# verdict holds mmbench against the reference as a plain program runs
# (pinned after the fork). The reference born on its CPU runs in mmbench's TLB flush mode
# (page by page, see workloads/pageout.md and ref_pageout.c): mmbench's CoV
# against it is context, since in a guest where each flush traps to the
# hypervisor the mode, not the harness, may set the noise. Also context:
# the CoV of pageout's loops_per_s_excl_runq (the rate with the time the
# instances waited on a runqueue taken out) and of a fixed loop on cached
# memory timed 10 times after the arms, and of 10 samples of reading a
# 64 MiB file from the same directory 16 times, its pages dropped before
# each read (the machine's own spread in that round, CPU and disk,
# tools/selfbench/floor.c). The round means side by side show
# how far runs apart differ. Also context, with more than one instance:
# mmbench with one instance alone on the same files, right after the arms,
# and how far the instances' total rate is from that many times its rate
# (where the host serves the virtual CPUs' traps one at a time, two
# instances together are slower than one alone, and their spread is the
# host's). BENCH_DATA_DIR puts both programs' files
# elsewhere, on a RAM block device for example (zram, brd, formatted
# ext4), to take the disk's read latency out of both.
# Target: mmbench's pooled CoV (the root mean square of its rounds' CoVs,
# tools/selfbench/lib.sh bench_pooled_verdict) at most half of the
# reference's and under 3%.
# Usage: pageout-bench.sh [OUT_DIR]   Exit: 0 met, 1 missed, 2 could not run.

# One compound command: bash reads it whole before running it, so editing
# this file cannot derail a run in progress.
{
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/selfbench/lib.sh"
mmbench=${MMBENCH:-$top/bench/mmbench}
ref=$top/tools/selfbench/ref_pageout
rounds=${BENCH_ROUNDS:-3} iters=${BENCH_ITERATIONS:-10}
inst=${BENCH_INSTANCES:-2} size=${BENCH_SIZE_MB:-64} dur=${BENCH_DURATION_S:-1}
out=${1:-$top/results/bench-pageout/$(date +%Y%m%d-%H%M%S)}
data=${BENCH_DATA_DIR:-$out/data}
mkdir -p "$out" "$data" || exit 2
: >"$out/mmbench_cov.txt"
: >"$out/reference_cov.txt"

# run_mm ROUND [NAME INSTANCES RUN]: mmbench's iterations into
# NAME.ROUND.txt, its run in RUN.ROUND (default: mmbench, the arm's
# instances, mm).
run_mm() {
	local r=$1 name=${2:-mmbench} n=${3:-$inst} run=$out/${4:-mm}.$1
	if ! "$mmbench" run pageout -p instances="$n" -p size_mb="$size" \
		-p duration_s="$dur" -p dir="$data" -i "$iters" -w 1 -o "$run" \
		>/dev/null 2>"$run.err"; then
		echo "bench-pageout: mmbench ($n instances) failed in round $r: $(tail -2 "$run.err")" >&2
		return 1
	fi
	bench_value "$run/results.csv" loops_per_s >"$out/$name.$r.txt"
	bench_value "$run/results.csv" loops_per_s_excl_runq >"$out/${name}_excl_runq.$r.txt"
}

# run_ref ROUND PLACEMENT: the reference's windows into PLACEMENT.ROUND.txt
run_ref() {
	if ! "$ref" "$inst" "$size" "$dur" "$data" 1 "$2" "$iters" >"$out/ref.$1.$2.out" 2>"$out/ref.$1.$2.err"; then
		echo "bench-pageout: reference ($2) failed in round $1: $(cat "$out/ref.$1.$2.err")" >&2
		return 1
	fi
	sed -n 's/.* loops_per_s=\([0-9.e+]*\).*/\1/p' "$out/ref.$1.$2.out" >"$out/$2.$1.txt"
}
run_arm() {
	case $2 in
	mm) run_mm "$1" ;;
	*) run_ref "$1" "$2" ;;
	esac
}

echo "bench-pageout: $rounds rounds of mmbench pageout (instances=$inst size_mb=$size duration_s=$dur, -i $iters -w 1), ref_pageout and ref_pageout born on its CPU ($iters windows of ${dur} s after 1 s), rotating; load average $(bench_loadavg)"
order=(mm after born)
for r in $(seq 1 "$rounds"); do
	k=$(( (r - 1) % 3 ))
	arms=("${order[@]:k}" "${order[@]:0:k}")
	for a in "${arms[@]}"; do
		run_arm "$r" "$a" || exit 2
	done
	if [ "$inst" -gt 1 ]; then
		run_mm "$r" mmbench_one 1 mm_one || exit 2
	fi
	bench_floor_cpu "$out/floor_cpu.$r.txt" "$iters" || exit 2
	bench_floor_io "$out/floor_io.$r.txt" "$iters" "$data" 2>"$out/floor_io.$r.err"
	io_rc=$?
	echo "round $r (order ${arms[*]}; load $(bench_loadavg)):"
	read -r n m sd cov mdc < <(bench_stats "$out/mmbench_excl_runq.$r.txt")
	echo "  context: pageout loops_per_s_excl_runq mean $m loops/s, CoV $cov% (n=$n); runqueue wait $(bench_value "$out/mm.$r/results.csv" loop_runq_wait_pct | awk '{ s += $1 } END { printf "%.2f", NR ? s / NR : 0 }')% of the loops"
	[ "$inst" -gt 1 ] &&
		bench_context_ratio "mmbench pageout with one instance alone (mean ratio: the $inst instances' rate over its, $inst if they did not slow each other)" \
			"$out/mmbench.$r.txt" "$out/mmbench_one.$r.txt" loops/s
	bench_context_ratio "reference born on its CPU (mmbench's flush mode)" "$out/mmbench.$r.txt" "$out/born.$r.txt" loops/s
	bench_floor_report "$out/floor_cpu.$r.txt" "a fixed loop on 256 KiB in the CPU's caches (tools/selfbench/floor cpu)"
	bench_floor_context $io_rc "$out/floor_io.$r.txt" "$out/floor_io.$r.err" \
		"16 reads of a 64 MiB file in the data directory, its pages dropped before each (tools/selfbench/floor io)"
	bench_verdict "bench-pageout round $r" "$out/mmbench.$r.txt" "$out/after.$r.txt" 3 | sed 's/^/  /'
	[ "${PIPESTATUS[0]}" = 2 ] && exit 2
	bench_stats "$out/mmbench.$r.txt" | cut -d' ' -f4 >>"$out/mmbench_cov.txt"
	bench_stats "$out/after.$r.txt" | cut -d' ' -f4 >>"$out/reference_cov.txt"
done
bench_pooled_verdict bench-pageout "$out/mmbench_cov.txt" "$out/reference_cov.txt" 3 "$out"
exit
}
