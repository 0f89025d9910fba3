#!/usr/bin/env bash
# bench-thp: is thp_storm's fault latency repeatable on this machine?
# Runs the thp_storm line(s) of bench/suites/quick with 10 measured
# iterations (1 warm-up), then prints, per thread count, the mean and the
# coefficient of variation over the iterations of fault_both_mean and
# pct_huge (from `mmbench summary`, which reads results.csv with libcsv).
# Target: CoV of fault_both_mean at 1 thread < 5% (THP_COV_TARGET).
# Usage: thp_storm-bench.sh [RUN_DIR]
# Exit: 0 target met, 1 missed, 2 could not run.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
mmbench=${MMBENCH:-$top/bench/mmbench}
target=${THP_COV_TARGET:-5}
out=${1:-$top/results/bench-thp/$(date +%Y%m%d-%H%M%S)}
suite=$(mktemp "${TMPDIR:-/tmp}/bench-thp.XXXXXX")
trap 'rm -f "$suite"' EXIT

grep -E '^thp_storm[[:space:]]' "$top/bench/suites/quick" >"$suite"
if [ ! -s "$suite" ]; then
	echo "bench-thp: bench/suites/quick has no thp_storm line" >&2
	exit 2
fi
echo "bench-thp: $(tr '\n' ' ' <"$suite")with -i 10 -w 1 -> $out"
if ! "$mmbench" suite "$suite" -i 10 -w 1 -o "$out" >/dev/null 2>&1; then
	echo "bench-thp: the run failed; see $out/run.log and $out/cases.csv" >&2
	exit 2
fi
"$mmbench" summary "$out" | awk -v target="$target" '
	$1 == "thp_storm" && ($2 == "fault_both_mean" || $2 == "pct_huge") {
		t = $NF; sub(/.*threads=/, "", t); sub(/;.*/, "", t)
		cov = $5; sub(/%$/, "", cov)
		mean[t, $2] = $3; cv[t, $2] = cov; n[t] = $6; seen[t] = 1
	}
	END {
		printf "%-8s %16s %8s %10s %8s %4s\n", "threads", "fault_both_us",
		       "CoV", "pct_huge", "CoV", "N"
		for (t = 1; t <= 1024; t++) {
			if (!(t in seen))
				continue
			printf "%-8d %16.1f %7.2f%% %10.2f %7.2f%% %4d\n", t,
			       mean[t, "fault_both_mean"], cv[t, "fault_both_mean"],
			       mean[t, "pct_huge"], cv[t, "pct_huge"], n[t]
		}
		if (!((1, "fault_both_mean") in cv)) {
			print "bench-thp: no threads=1 result"; exit 2
		}
		ok = cv[1, "fault_both_mean"] + 0 < target + 0
		printf "bench-thp: CoV of fault_both_mean at 1 thread %.2f%%: %s (target < %s%%)\n",
		       cv[1, "fault_both_mean"], ok ? "met" : "MISSED", target
		exit ok ? 0 : 1
	}'
rc=$?
echo "bench-thp: details (storm_nivcsw, storm_host_reported, storm_time) in $out/results.csv"
exit $rc
