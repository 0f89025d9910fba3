#!/usr/bin/env bash
# make bench-precision: does precision on demand (--precision P) reach a
# precision in less machine time than a fixed iteration count that reaches
# it? For two cases, pageout (1 instance, size_mb=64, duration_s=2) and
# thp_storm (1 thread, size_mb=1024), BENCH_ROUNDS (3) rounds each of:
#   precision arm: mmbench run ... -i 3 -w 1 --precision P --max-iterations M
#   fixed arm:     mmbench run ... -i N -w 1
# P is BENCH_PRECISION (3), M BENCH_MAX_ITERATIONS (30). N is the fixed
# count a lab would have to choose in advance to reach P in every one of
# these runs: the most iterations any precision round needed (so the
# precision rounds run first, then the fixed ones). Per round it prints the
# machine time (the wall time of the mmbench process, warm-up and set-up
# included: what the machine was busy with), the iterations, the precision
# reached (the largest 95% half-width of the judged timed evidence,
# cases.csv) and how the iterations stopped, with the load average
# (uptime); then per case the mean machine time of each arm, their ratio
# (precision / fixed: below 1 is time saved) and how many rounds of each
# arm reached P.
# Then, unless BENCH_VM=0, the counts-only case: mlock_mix (threads=1,
# size_mb=16, rounds=2; it arms its lru_add_drain probe itself) under
# --precision P -i 3 in the VM lab (tools/vm/lab --vm bookworm; its times
# are emulated under TCG, so nothing timed is judged): it must stop at its
# minimum, 3 iterations, with its evidence counts exact (no spread).
# BENCH_CASES (default "pageout thp_storm", "none") picks the host's cases.
# A round whose case failed (thp_storm's guard gives up when the host keeps
# disturbing its storms) is said and left out of the means.
# Usage: precision-bench.sh [OUT_DIR]   Exit: 0 ran (figures printed),
# 2 could not run.

# One compound command: bash reads it whole before running it, so editing
# this file cannot derail a run in progress.
{
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/selfbench/lib.sh"
mmbench=${MMBENCH:-$top/bench/mmbench}
rounds=${BENCH_ROUNDS:-3} prec=${BENCH_PRECISION:-3} maxit=${BENCH_MAX_ITERATIONS:-30}
out=${1:-$top/results/bench-precision/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out" || exit 2

# BENCH_CASES: the host's cases to run (default both; "none": only the lab's)
read -r -a cases <<<"${BENCH_CASES:-pageout thp_storm}"
[ "${cases[*]}" = none ] && cases=()
declare -A params=(
	[pageout]="-p instances=1 -p size_mb=64 -p duration_s=2"
	[thp_storm]="-p threads=1 -p size_mb=1024"
)

uptime_load() { uptime | sed 's/.*load average: //'; }

# arm CASE ARM ROUND ARGS...: one mmbench run; appends "seconds iterations
# precision stopped_by" to OUT/CASE.ARM.txt and prints the round's line.
arm() {
	local c=$1 a=$2 r=$3 d t0 t1 secs it pct stop met rc
	shift 3
	d=$out/$c.$a.$r
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086 # params holds words
	"$mmbench" run "$c" ${params[$c]} -w 1 "$@" -o "$d" >/dev/null 2>"$d.err"
	rc=$?
	t1=$(date +%s.%N)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	{ read -r it; read -r pct; read -r met; read -r stop; } < <("$mmbench" field --lines \
		"$d/cases.csv" iterations precision_pct precision_metric stopped_by 2>/dev/null)
	# A case that failed (thp_storm's guard gives up on a host that keeps
	# disturbing its storms) is said and left out of the means.
	if [ "$rc" != 0 ]; then
		stop=failed
		echo "  $a round $r: failed after ${it:-?} iterations, $secs s: $(grep -v '^mmbench: ' "$d.err" | tail -n 1 | cut -c1-200)"
	fi
	echo "$secs ${it:-0} ${pct:-nan} ${stop:-none}" >>"$out/$c.$a.txt"
	[ "$rc" = 0 ] || return 0
	printf '  %-9s round %d: %6.1f s machine time, %3d iterations, precision %6s%% (%s), %s; load %s\n' \
		"$a" "$r" "$secs" "$it" "${pct:-nan}" "${met:--}" "$stop" "$(uptime_load)"
}

echo "bench-precision: --precision $prec (-i 3, --max-iterations $maxit) against a fixed -i reaching it, $rounds rounds per case; load $(uptime_load)"
for c in "${cases[@]}"; do
	: >"$out/$c.precision.txt"
	: >"$out/$c.fixed.txt"
	echo "$c ${params[$c]}:"
	for r in $(seq 1 "$rounds"); do
		arm "$c" precision "$r" -i 3 --precision "$prec" --max-iterations "$maxit" || exit 2
	done
	n=$(awk '$4 != "failed" && $2 > n { n = $2 } END { print n + 0 }' "$out/$c.precision.txt")
	[ "$n" -gt 0 ] || n=$maxit
	echo "  fixed -i $n: the most iterations a precision round needed"
	for r in $(seq 1 "$rounds"); do
		arm "$c" fixed "$r" -i "$n" || exit 2
	done
	# the means over the rounds that passed, each arm on its own
	awk -v c="$c" -v p="$prec" -v n="$n" '
		FNR == 1 { arm++ }
		$4 == "failed" { fail[arm]++; next }
		{ k[arm]++; t[arm] += $1; it[arm] += $2; ok[arm] += ($3 != "nan" && $3 <= p)
		  lim[arm] += ($4 == "max-iterations" || $4 == "max-time") }
		END {
			ta = k[1] ? t[1] / k[1] : 0; tb = k[2] ? t[2] / k[2] : 0
			ratio = ta > 0 && tb > 0 ? sprintf("%.2f", ta / tb) : "not measured (an arm had no round that passed)"
			printf "%s: machine time per run: --precision %.1f s (%.1f iterations), fixed -i %d %.1f s; ratio precision/fixed %s\n",
			       c, ta, k[1] ? it[1] / k[1] : 0, n, tb, ratio
			printf "%s: reached %s%%: --precision %d of %d rounds (%d stopped by --max-iterations first, %d failed), fixed %d of %d (%d failed)\n",
			       c, p, ok[1], k[1] + fail[1], lim[1], fail[1], ok[2], k[2] + fail[2], fail[2]
		}' "$out/$c.precision.txt" "$out/$c.fixed.txt"
done

if [ "${BENCH_VM:-1}" = 0 ]; then
	echo "counts-only case: not run (BENCH_VM=0)"
	exit 0
fi
echo "mlock_mix -p threads=1 -p size_mb=16 -p rounds=2 -i 3 -w 1" >"$out/mlock.suite"
echo "counts-only case: mlock_mix in the VM lab (bookworm), --precision $prec -i 3; load $(uptime_load)"
t0=$(date +%s.%N)
"$top/tools/vm/lab" --vm bookworm --suite "$out/mlock.suite" --precision "$prec" \
	--label bench-precision-mlock --out "$out/vm" >"$out/vm.out" 2>"$out/vm.err"
rc=$?
t1=$(date +%s.%N)
d=$(sed -n 's/^results: //p' "$out/vm.out" | tail -n 1)
if [ $rc != 0 ] || [ -z "$d" ]; then
	echo "  not measured: the lab exited $rc: $(tail -n 2 "$out/vm.err")"
	exit 0
fi
{ read -r it; read -r stop; } < <("$mmbench" field --lines "$d/cases.csv" iterations stopped_by)
accel=$("$mmbench" field --where key=vm_accel --last "$d/meta.csv" value)
echo "  mlock_mix: $it iterations, stopped_by $stop (vm_accel=$accel); lab $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s"
# Its evidence counts: the spread of each over the iterations (0: exact).
"$mmbench" field "$d/metrics.csv" metric role timed better | awk -F'\t' '$2 == "evidence" && $3 == 0 && $4 != "info" { print $1 }' |
	while read -r m; do
		v=$("$mmbench" field --where metric="$m" "$d/results.csv" value | sort -u | paste -sd' ')
		echo "  evidence $m: values $v ($(wc -w <<<"$v") distinct)"
	done
echo "bench-precision: figures in $out"
exit 0
}
