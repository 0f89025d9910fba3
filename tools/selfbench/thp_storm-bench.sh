#!/usr/bin/env bash
# make bench-thp: is thp_storm's fault latency steadier than a
# thpscale-style storm timed the usual way?
# Runs, in one invocation, BENCH_ROUNDS (3) rounds of
#   mmbench run thp_storm -p threads=1 -p size_mb=1024 -i 10 -w 1
#   tools/selfbench/ref_thpscale 1 1024 25 DIR 1 10   (1 warm-up, 10 measured)
# (the order swapped every other round; 1024 MiB is the quick suite's
# size). Each gives 10 values of fault_both_mean from one run: the CoV
# `mmbench summary` prints and mmcompare's minimum detectable change rests
# on. Per round it prints each side's mean, CoV and minimum detectable
# change at 10 iterations (tools/selfbench/lib.sh states the formula), their
# CoV ratio, the load average and whether that round alone met the
# target. Also shown, as context: the CoV of thp_storm's
# fault_both_mean_excl_runq (the fault times less the time the thread
# waited on a runqueue inside them), the storms the host guard retried,
# the CoV of a memset of 1 GiB already touched, timed 10 times after the
# arms: the machine's own memory speed in that round, without faults or
# memory the host took back, and the CoV of 10 plain storms of 256 huge
# page faults on memory backed right before, each on other physical
# memory, as thp_storm's iterations are: how far the host's memory differs
# by where a storm lands, with no harness involved (tools/selfbench/floor.c).
# Target: mmbench's pooled CoV (the root mean square of its rounds' CoVs,
# tools/selfbench/lib.sh bench_pooled_verdict) at most half of the
# reference's and under 10%.
# Usage: thp_storm-bench.sh [OUT_DIR]   Exit: 0 met, 1 missed, 2 could not run.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/selfbench/lib.sh"
mmbench=${MMBENCH:-$top/bench/mmbench}
ref=$top/tools/selfbench/ref_thpscale
rounds=${BENCH_ROUNDS:-3} iters=${BENCH_ITERATIONS:-10}
threads=${BENCH_THREADS:-1} size=${BENCH_SIZE_MB:-1024}
target=${THP_COV_TARGET:-10}
out=${1:-$top/results/bench-thp/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out/data" || exit 2
: >"$out/mmbench_cov.txt"
: >"$out/reference_cov.txt"

run_mm() {
	local r=$1
	if ! "$mmbench" run thp_storm -p threads="$threads" -p size_mb="$size" \
		-p dir="$out/data" -i "$iters" -w 1 -o "$out/mm.$r" >/dev/null 2>"$out/mm.$r.err"; then
		echo "bench-thp: mmbench failed in round $r: $(tail -2 "$out/mm.$r.err")" >&2
		return 1
	fi
	bench_value "$out/mm.$r/results.csv" fault_both_mean >"$out/mmbench.$r.txt"
	bench_value "$out/mm.$r/results.csv" fault_both_mean_excl_runq >"$out/mmbench_excl_runq.$r.txt"
}

run_ref() {
	local r=$1
	if ! "$ref" "$threads" "$size" 25 "$out/data" 1 "$iters" >"$out/ref.$r.out" 2>"$out/ref.$r.err"; then
		echo "bench-thp: reference failed in round $r: $(cat "$out/ref.$r.err")" >&2
		return 1
	fi
	sed -n 's/.* fault_both_mean=\([0-9.e+-]*\).*/\1/p' "$out/ref.$r.out" >"$out/reference.$r.txt"
}

echo "bench-thp: $rounds rounds of mmbench thp_storm (threads=$threads size_mb=$size, -i $iters -w 1) and ref_thpscale (1 warm-up, $iters measured), alternating; load average $(bench_loadavg)"
for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) = 1 ]; then
		run_mm "$r" && run_ref "$r" || exit 2
	else
		run_ref "$r" && run_mm "$r" || exit 2
	fi
	bench_floor_mem "$out/floor_mem.$r.txt" "$iters" || exit 2
	bench_floor_thp "$out/floor_thp.$r.txt" "$iters" 2>"$out/floor_thp.$r.err"
	thp_rc=$?
	echo "round $r ($([ $((r % 2)) = 1 ] && echo 'mmbench first' || echo 'reference first'); load $(bench_loadavg)):"
	read -r n m sd cov mdc < <(bench_stats "$out/mmbench_excl_runq.$r.txt")
	echo "  context: thp_storm fault_both_mean_excl_runq mean $m us, CoV $cov% (n=$n); storms the host guard retried: $(bench_value "$out/mm.$r/results.csv" storm_guard_retries | awk '{ s += $1 } END { print s + 0 }')"
	bench_floor_report "$out/floor_mem.$r.txt" "memset of 1 GiB already touched (tools/selfbench/floor mem)"
	bench_floor_context $thp_rc "$out/floor_thp.$r.txt" "$out/floor_thp.$r.err" \
		"a storm of 256 huge page faults on memory backed right before, each on other memory (tools/selfbench/floor thp)" "us per fault"
	bench_verdict "bench-thp round $r" "$out/mmbench.$r.txt" "$out/reference.$r.txt" "$target" | sed 's/^/  /'
	[ "${PIPESTATUS[0]}" = 2 ] && exit 2
	bench_stats "$out/mmbench.$r.txt" | cut -d' ' -f4 >>"$out/mmbench_cov.txt"
	bench_stats "$out/reference.$r.txt" | cut -d' ' -f4 >>"$out/reference_cov.txt"
done
bench_pooled_verdict bench-thp "$out/mmbench_cov.txt" "$out/reference_cov.txt" "$target" "$out"
