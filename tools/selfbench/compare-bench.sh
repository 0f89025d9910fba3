#!/usr/bin/env bash
# make bench-compare: compare two synthetic result sets of 1,000,000 rows
# each with mmcompare (default text table) and report wall time and peak
# RSS against the targets: under 2 s and under 300 MB on the project's
# 2-CPU machines. Three runs; the report gives the median wall time and the
# largest RSS, plus the CPU time and the load average, because other jobs
# on the machine stretch wall time. Exit 1 when a target is missed.
# Data: $MMBENCH_RESULTS/bench-compare (default results/bench-compare),
# generated once by gen_synth and reused. MMCOMPARE_TIMING=1 makes
# mmcompare say when each phase (read, compare, print) ended.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
mmc=$top/tools/mmcompare
dir=${MMBENCH_RESULTS:-$top/results}/bench-compare
rows=1000000
mkdir -p "$dir" || exit 1

gen() {	# gen NAME LABEL SEED SHIFT_PCT
	local f=$dir/$1/results.csv
	if [ -s "$f" ] && [ "$f" -nt "$mmc/gen_synth" ] &&
		[ "$(wc -l <"$f")" -eq $((rows + 1)) ]; then
		return 0
	fi
	echo "bench-compare: generating $rows rows in $dir/$1"
	"$mmc/gen_synth" "$dir/$1" "$2" "$rows" "$3" "$4" || exit 1
}
gen base synth-base 1 0
gen new synth-new 2 3

walls=() cpus=() phases=() rss=0
for i in 1 2 3; do
	err=$(MMCOMPARE_TIMING=1 "$mmc/runstat" "$mmc/mmcompare" "$dir/base" "$dir/new" 2>&1 \
		>"$dir/compare.txt")
	stats=$(grep '^runstat:' <<<"$err")
	[ -n "$stats" ] || { echo "bench-compare: mmcompare failed" >&2; exit 1; }
	# "read 0.52 compare 0.71 ...": when each phase ended
	phases+=("$(awk '/^mmcompare: timing:/ { printf "%s%s %s", n++ ? ", " : "", $3, $4 }' \
		<<<"$err")")
	read -r _ _ wall _ mb _ code _ user _ sys <<<"$stats"
	[ "$code" = 0 ] || { echo "bench-compare: mmcompare exited $code" >&2; exit 1; }
	walls+=("$wall")
	cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')")
	rss=$(awk -v a="$rss" -v b="$mb" 'BEGIN { print (b > a) ? b : a }')
done
wall=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n 2p)
for i in 0 1 2; do
	[ "${walls[$i]}" = "$wall" ] && { median_phases=${phases[$i]}; break; }
done
lines=$(grep -c '' "$dir/compare.txt")
read -r load1 _ <"/proc/loadavg"
verdict=PASS
awk -v w="$wall" -v r="$rss" 'BEGIN { exit !(w < 2 && r < 300) }' || verdict=FAIL
echo "bench-compare: 2 x $rows rows, $(nproc) CPUs, load average $load1"
echo "  wall s (3 runs): ${walls[*]}; median $wall (target < 2)"
echo "  CPU s (user+sys): ${cpus[*]}"
echo "  median run, s since start at the end of: $median_phases"
echo "  peak RSS: $rss MB (target < 300)"
echo "  text table: $lines lines in $dir/compare.txt"
echo "bench-compare: $verdict"
[ $verdict = PASS ]
