#!/usr/bin/env bash
# make bench-runs: does the run as the unit hold on this machine? Three
# labels of the front door, each `./run.sh --runs N` (N = BENCH_RUNS, 3):
#   aa1   the running kernel, nothing beside it
#   aa2   the same again, right after (the A/A)
#   hog   the same, every run beside one CPU-bound busy loop pinned on each
#         CPU (a real, lasting change of what the suite gets of the machine)
# then `./run.sh compare aa1 aa2` and `./run.sh compare aa1 hog`, and per
# comparison: the timed metrics judged, how many came out significant
# (worse or better), and pageout's loops_per_s line per case (change,
# verdict, the variance that decided, p(BH), mdc). Targets: the A/A has 0
# timed metrics significant; the loaded side's pageout loops_per_s is
# worse in at least one pageout case and better in none (two instances'
# runs can spread too much here for 3 runs a side to tell). The load
# average is printed beside each label's runs.
# BENCH_SUITE (quick) picks the suite, BENCH_ITERATIONS (3) its -i. A case
# that failed in a side's runs (exit 1) is said, and the rest compared;
# BENCH_COMPARE_ONLY=1 with OUT_ROOT compares the runs an earlier call
# left there.
# Usage: runs-bench.sh [OUT_ROOT]   Exit: 0 targets met, 1 missed,
# 2 could not run.

# One compound command: bash reads it whole before running it, so editing
# this file cannot derail a run in progress.
{
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/selfbench/lib.sh"
mmbench=${MMBENCH:-$top/bench/mmbench}
runs=${BENCH_RUNS:-3} suite=${BENCH_SUITE:-quick} iters=${BENCH_ITERATIONS:-3}
out=${1:-$top/results/bench-runs/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out" || exit 2
ncpu=$(nproc)
hogs=()

stop_hogs() {
	local p
	for p in "${hogs[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${hogs[@]}"; do wait "$p" 2>/dev/null; done
	hogs=()
}
trap 'stop_hogs; exit 2' INT TERM
trap stop_hogs EXIT

# side LABEL [hog]: ./run.sh --runs N under LABEL; with hog, one busy loop
# pinned on each CPU for the whole of the label's runs.
side() {
	local l=$1 c t0 t1 rc
	if [ "${2:-}" = hog ]; then
		for ((c = 0; c < ncpu; c++)); do
			taskset -c "$c" bash -c 'while :; do :; done' &
			hogs+=($!)
		done
	fi
	echo "$l: ./run.sh --runs $runs --suite $suite --iterations $iters${2:+ (beside $ncpu busy loops)}; load before $(bench_loadavg)"
	t0=$(date +%s)
	"$top/run.sh" --runs "$runs" --suite "$suite" --iterations "$iters" \
		--label "$l" --out "$out" >"$out/$l.log" 2>&1
	rc=$?
	t1=$(date +%s)
	stop_hogs
	echo "  $((t1 - t0)) s, exit $rc; load after $(bench_loadavg)"
	# A case that failed (exit 1: thp_storm's guard gives up when the busy
	# loops keep slowing its fill) is said; the rest is compared.
	[ "$rc" = 0 ] || { echo "  a case failed: $out/$l.log"; grep -E '^mmbench: |: fail' "$out/$l.log" | cut -c1-240 | sed 's/^/    /'; }
	[ "$rc" -le 1 ]
}

# judge BASE NEW: the comparison's timed lines, and pageout's loops_per_s.
# Sets sig (timed metrics significant) and worse_all (1 when every
# pageout case's loops_per_s is worse).
judge() {
	local dir csv
	"$top/run.sh" compare --out "$out" --no-plots "$1" "$2" >"$out/$1-vs-$2.log" 2>&1 ||
		{ echo "  compare $1 $2 failed: $out/$1-vs-$2.log"; return 2; }
	dir=$(ls -d "$out"/compare-"$1"-vs-"$2"-* | tail -n 1)
	csv=$dir/compare.csv
	# rows of the NEW side (side 1) of judged timed lines
	"$mmbench" field --lines "$csv" workload case metric side timed judged significant \
		verdict change_pct decided_by p_adjusted mdc_pct >"$out/$1-vs-$2.rows" || return 2
	awk -v name="$1 vs $2" -v out="$out/$1-vs-$2.sum" '
	{ f[++k] = $0 }
	k == 12 {
		if (f[4] == 1 && f[5] == 1 && f[6] == 1) {
			n++
			if (f[7] == 1) { s++; printf "    significant: %s %s %s: %s %+.1f%%\n", f[1], f[2], f[3], f[8], f[9] }
			if (f[1] == "pageout" && f[3] == "loops_per_s") {
				printf "    pageout %s loops_per_s: %+.1f%%, %s, decided by %s, p(BH) %.3g, mdc %.0f%%\n", f[2], f[9], f[8], f[10], f[11], f[12]
				pn++; if (f[8] == "worse") pw++; if (f[8] == "better") pb++
			}
		}
		k = 0
	}
	END {
		printf "  %s: %d timed metrics judged, %d significant; pageout loops_per_s worse in %d of %d cases, better in %d\n", name, n, s, pw, pn, pb
		print s + 0, pw + 0, pn + 0, pb + 0 > out
	}' "$out/$1-vs-$2.rows"
	echo "  report: $dir"
}

echo "bench-runs: $runs runs a side of the $suite suite (-i $iters), two unloaded labels and one beside busy loops; $ncpu CPUs; load $(bench_loadavg)"
# BENCH_COMPARE_ONLY=1 OUT_ROOT: compare the runs an earlier call left there.
if [ "${BENCH_COMPARE_ONLY:-0}" != 1 ]; then
	side aa1 && side aa2 && side hog hog || exit 2
fi
echo "comparisons (load $(bench_loadavg)):"
judge aa1 aa2 || exit 2
judge aa1 hog || exit 2
read -r aa_sig _ _ <"$out/aa1-vs-aa2.sum"
read -r _ hog_worse hog_n hog_better <"$out/aa1-vs-hog.sum"
rc=0
if [ "$aa_sig" = 0 ]; then echo "A/A: 0 timed metrics significant: met"
else echo "A/A: $aa_sig timed metrics significant: missed"; rc=1; fi
if [ "$hog_worse" -gt 0 ] && [ "$hog_better" = 0 ]; then
	echo "beside busy loops: pageout loops_per_s worse in $hog_worse of $hog_n cases, better in none: met"
else
	echo "beside busy loops: pageout loops_per_s worse in $hog_worse of $hog_n cases, better in $hog_better: missed"; rc=1
fi
echo "results: $out"
exit "$rc"
}
