#!/usr/bin/env bash
# make bench-thp: is thp_storm's fault latency steadier than a
# thpscale-style storm timed the usual way?
# Alternates, in one invocation, BENCH_ROUNDS (10) rounds of
#   mmbench run thp_storm -p threads=1 -p size_mb=1024 -i 1 -w 1
#   tools/bench/ref_thpscale 1 1024 25 DIR 1 1   (1 warm-up, 1 measured)
# (the order swapped every other round; 1024 MiB is the quick suite's
# size), and prints each side's mean, CoV and minimum detectable change at
# 10 iterations of fault_both_mean (tools/bench/lib.sh states the formula),
# their CoV ratio and the load average. Also shown, as context: the CoV of
# thp_storm's fault_both_mean_excl_runq (the fault times less the time the
# thread waited on a runqueue inside them), the storms the host guard
# retried, and the CoV of 1 GiB zeroed by the kernel (dd from /dev/zero)
# timed once per round: the machine's own memory speed in this invocation
# (tools/bench/lib.sh bench_floor_mem).
# Target: mmbench's CoV at most half of the reference's and under 10%.
# Usage: thp_storm-bench.sh [OUT_DIR]   Exit: 0 met, 1 missed, 2 could not run.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/bench/lib.sh"
mmbench=${MMBENCH:-$top/bench/mmbench}
ref=$top/tools/bench/ref_thpscale
rounds=${BENCH_ROUNDS:-10}
threads=${BENCH_THREADS:-1} size=${BENCH_SIZE_MB:-1024}
target=${THP_COV_TARGET:-10}
out=${1:-$top/results/bench-thp/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out/data" || exit 2
: >"$out/mmbench.txt"
: >"$out/reference.txt"
: >"$out/mmbench_excl_runq.txt"
: >"$out/floor_mem.txt"


run_mm() {
	local r=$1
	if ! "$mmbench" run thp_storm -p threads="$threads" -p size_mb="$size" \
		-p dir="$out/data" -i 1 -w 1 -o "$out/mm.$r" >/dev/null 2>"$out/mm.$r.err"; then
		echo "bench-thp: mmbench failed in round $r: $(tail -2 "$out/mm.$r.err")" >&2
		return 1
	fi
	bench_value "$out/mm.$r/results.csv" fault_both_mean >>"$out/mmbench.txt"
	bench_value "$out/mm.$r/results.csv" fault_both_mean_excl_runq >>"$out/mmbench_excl_runq.txt"
}

run_ref() {
	local r=$1 line
	if ! line=$("$ref" "$threads" "$size" 25 "$out/data" 1 1 2>"$out/ref.$r.err"); then
		echo "bench-thp: reference failed in round $r: $(cat "$out/ref.$r.err")" >&2
		return 1
	fi
	echo "$line" >"$out/ref.$r.txt"
	sed -n 's/.* fault_both_mean=\([0-9.e+-]*\).*/\1/p' <<<"$line" >>"$out/reference.txt"
}

echo "bench-thp: $rounds rounds of mmbench thp_storm (threads=$threads size_mb=$size, -i 1 -w 1) and ref_thpscale, alternating; load average $(bench_loadavg)"
for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) = 1 ]; then
		run_mm "$r" && run_ref "$r" || exit 2
	else
		run_ref "$r" && run_mm "$r" || exit 2
	fi
	bench_floor_mem "$out/floor_mem.txt" || exit 2
	printf 'round %2d: mmbench %s us (guard retries %s, runq wait %s us), reference %s us (load %s)\n' "$r" \
		"$(tail -1 "$out/mmbench.txt")" \
		"$(bench_value "$out/mm.$r/results.csv" storm_guard_retries)" \
		"$(bench_value "$out/mm.$r/results.csv" fault_runq_wait_mean)" \
		"$(tail -1 "$out/reference.txt")" "$(bench_loadavg)"
done
read -r n m sd cov mdc < <(bench_stats "$out/mmbench_excl_runq.txt")
echo "context: thp_storm fault_both_mean_excl_runq mean ${m} us, CoV ${cov}%, MDC@10 ${mdc}% (n=$n)"
bench_floor_report "$out/floor_mem.txt" "1 GiB zeroed by the kernel (dd from /dev/zero, 64 MiB buffer)"
bench_verdict bench-thp "$out/mmbench.txt" "$out/reference.txt" "$target"
rc=$?
echo "bench-thp: per-round values and run directories in $out"
exit $rc
