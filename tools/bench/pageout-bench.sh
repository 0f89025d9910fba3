#!/usr/bin/env bash
# make bench-pageout: is mmbench's pageout steadier than the posted loop?
# Alternates, in one invocation, BENCH_ROUNDS (10) rounds of
#   mmbench run pageout -p instances=2 -p size_mb=64 -p duration_s=1 -i 1 -w 1
#   tools/bench/ref_pageout 2 64 1 DIR 1    (1 s warm-up, then 1 s counted)
#   tools/bench/ref_pageout 2 64 1 DIR 1 born
# (the order rotated every round), all on files in the same directory on
# the same file system, and prints each side's mean, CoV and minimum
# detectable change at 10 iterations of loops/s (tools/bench/lib.sh states
# the formula), their CoV ratio and the load average. The verdict holds
# mmbench against the reference as a plain program runs (pinned after the
# fork). The reference born on its CPU runs in mmbench's TLB flush mode
# (page by page, see workloads/pageout.md and ref_pageout.c): mmbench's
# CoV against it is printed as context, since in a guest where each flush
# traps to the hypervisor the mode, not the harness, may set the noise.
# Also context: the CoV of pageout's loops_per_s_excl_runq (the rate with
# the time the instances waited on a runqueue taken out), the share of
# the loops' time spent waiting, the correlation of mmbench's and the
# reference's round values (near 1: the machine's speed moved both), and
# the CoV of a fixed user-space loop timed once per round (the machine's
# own spread in this invocation, tools/bench/lib.sh bench_floor_cpu).
# BENCH_DATA_DIR puts both programs' files elsewhere, on a RAM block
# device for example (zram, brd, formatted ext4), to take the disk's
# read latency out of both.
# Target: mmbench's CoV at most half of the reference's and under 3%.
# Usage: pageout-bench.sh [OUT_DIR]   Exit: 0 met, 1 missed, 2 could not run.

# One compound command: bash reads it whole before running it, so editing
# this file cannot derail a run in progress.
{
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/bench/lib.sh"
mmbench=${MMBENCH:-$top/bench/mmbench}
ref=$top/tools/bench/ref_pageout
rounds=${BENCH_ROUNDS:-10}
inst=${BENCH_INSTANCES:-2} size=${BENCH_SIZE_MB:-64} dur=${BENCH_DURATION_S:-1}
out=${1:-$top/results/bench-pageout/$(date +%Y%m%d-%H%M%S)}
data=${BENCH_DATA_DIR:-$out/data}
mkdir -p "$out" "$data" || exit 2
: >"$out/mmbench.txt"
: >"$out/reference.txt"
: >"$out/reference_born.txt"
: >"$out/mmbench_excl_runq.txt"
: >"$out/floor_cpu.txt"


run_mm() {
	local r=$1
	if ! "$mmbench" run pageout -p instances="$inst" -p size_mb="$size" \
		-p duration_s="$dur" -p dir="$data" -i 1 -w 1 -o "$out/mm.$r" \
		>/dev/null 2>"$out/mm.$r.err"; then
		echo "bench-pageout: mmbench failed in round $r: $(tail -2 "$out/mm.$r.err")" >&2
		return 1
	fi
	bench_value "$out/mm.$r/results.csv" loops_per_s >>"$out/mmbench.txt"
	bench_value "$out/mm.$r/results.csv" loops_per_s_excl_runq >>"$out/mmbench_excl_runq.txt"
}

# run_ref ROUND PLACEMENT FILE
run_ref() {
	local r=$1 line
	if ! line=$("$ref" "$inst" "$size" "$dur" "$data" 1 "$2" 2>"$out/ref.$r.$2.err"); then
		echo "bench-pageout: reference ($2) failed in round $r: $(cat "$out/ref.$r.$2.err")" >&2
		return 1
	fi
	sed -n 's/.* loops_per_s=\([0-9.e+]*\).*/\1/p' <<<"$line" >>"$3"
}
run_arm() {
	case $2 in
	mm) run_mm "$1" ;;
	ref) run_ref "$1" after "$out/reference.txt" ;;
	born) run_ref "$1" born "$out/reference_born.txt" ;;
	esac
}

echo "bench-pageout: $rounds rounds of mmbench pageout (instances=$inst size_mb=$size duration_s=$dur, -i 1 -w 1), ref_pageout and ref_pageout born on its CPU, rotating; load average $(bench_loadavg)"
order=(mm ref born)
for r in $(seq 1 "$rounds"); do
	k=$(( (r - 1) % 3 ))
	for a in "${order[@]:k}" "${order[@]:0:k}"; do
		run_arm "$r" "$a" || exit 2
	done
	bench_floor_cpu "$out/floor_cpu.txt" || exit 2
	printf 'round %2d: mmbench %s loops/s (runqueue wait %s%% of the loops), reference %s loops/s, born on its CPU %s (load %s)\n' "$r" \
		"$(tail -1 "$out/mmbench.txt")" "$(bench_value "$out/mm.$r/results.csv" loop_runq_wait_pct)" \
		"$(tail -1 "$out/reference.txt")" "$(tail -1 "$out/reference_born.txt")" "$(bench_loadavg)"
done
if [ -s "$out/mmbench_excl_runq.txt" ]; then
	read -r n m sd cov mdc < <(bench_stats "$out/mmbench_excl_runq.txt")
	echo "context: pageout loops_per_s_excl_runq mean ${m} loops/s, CoV ${cov}%, MDC@10 ${mdc}% (n=$n)"
fi
read -r n m sd cov mdc < <(bench_stats "$out/reference_born.txt")
read -r _ mm_m _ mm_cov _ < <(bench_stats "$out/mmbench.txt")
awk -v n="$n" -v m="$m" -v cov="$cov" -v mdc="$mdc" -v mm_m="$mm_m" -v mm_cov="$mm_cov" 'BEGIN {
	printf "context: reference born on its CPU (mmbench'"'"'s flush mode) mean %s loops/s, CoV %s%%, MDC@10 %s%% (n=%d); CoV ratio mmbench/born %.3f, mean ratio %.4f\n",
	       m, cov, mdc, n, (cov > 0 ? mm_cov / cov : 0), (m > 0 ? mm_m / m : 0) }'
bench_floor_report "$out/floor_cpu.txt" "a fixed user-space loop (awk, no system call)"
read -r corr n < <(bench_corr "$out/mmbench.txt" "$out/reference.txt")
echo "context: correlation of mmbench's and the reference's round values r=$corr (n=$n): near 1, the machine's speed moved both (the rounds alternate, seconds apart)"
bench_verdict bench-pageout "$out/mmbench.txt" "$out/reference.txt" 3
rc=$?
echo "bench-pageout: per-round values and run directories in $out"
exit $rc
exit
}
