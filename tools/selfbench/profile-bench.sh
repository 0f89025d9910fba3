#!/usr/bin/env bash
# make bench-profile: what --profile costs the measured phase.
# Alternates, in one invocation, BENCH_ROUNDS (6) rounds of
#   mmbench run pageout -p instances=1 -p size_mb=16 -p duration_s=1 -i 5 -w 1
# in four arms, the order rotated every round: without --profile; with
# --profile at the default 499 Hz; and with --profile and
# --profile=callgraph at ten times that (4999 Hz). Per measured iteration
# it takes the phase's CPU time per loop,
#   cpu_per_loop = (loop_utime + loop_stime) / loops,
# which the other jobs of a shared machine disturb far less than loops/s
# (the instance waits on a runqueue most of the time there). Overhead of an
# arm: mean(arm) / mean(off) - 1, with its 95% interval (Welch).
# The cost of sampling grows with the sample rate (an interrupt, and a
# stack walk with call graphs, per sample): at 4999 Hz it stands out of the
# noise, so the cost at the default rate is also derived from the 4999 Hz
# arm, with its interval. The model: a sample costs c seconds of the
# instance's CPU and samples come at f per second of the time it runs,
# which includes their own cost, so a phase of T seconds takes
# T' = T / (1 - f c). The 4999 Hz arm's overhead v gives f c = 1 - 1/(1+v);
# at 499 Hz, f c is 499/4999 of that and the overhead 1/(1 - f c) - 1.
# (A plain tenth of v overstates it: at 4999 Hz the longer phase holds
# more samples.)
# Verdict on the default: missed when the lower end of either interval
# (direct, or extrapolated) is at or over 5%; met when the extrapolated
# interval ends under 5%; otherwise not resolved at this noise (exit 1).
# The default was 997 Hz until this benchmark put its cost at 8.6%
# (6.7% .. 10.4%) here: a sampling interrupt costs ~86 us on these nested
# virtual machines.
# Also printed: perf record's own CPU time (its process, on the other
# CPU), the raw data per case, and the load average.
# Usage: profile-bench.sh [OUT_DIR]   Exit: 0 met, 1 missed or not resolved, 2 could not run.

# One compound command: bash reads it whole before running it, so editing
# this file cannot derail a run in progress.
{
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/selfbench/lib.sh"
mmbench=${MMBENCH:-$top/bench/mmbench}
rounds=${BENCH_ROUNDS:-6}
size=${BENCH_SIZE_MB:-16} dur=${BENCH_DURATION_S:-1} iters=${BENCH_ITERATIONS:-5}
out=${1:-$top/results/bench-profile/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out/data" || exit 2
arms=(off flat hi hicg)
for a in "${arms[@]}"; do : >"$out/$a.cpu"; done
: >"$out/perf_cpu"
command -v perf >/dev/null || { echo "bench-profile: no perf (tools/deps.sh profile)" >&2; exit 2; }

# per iteration: "cpu_ms_per_loop loop_time_s"
per_iter() {
	"$mmbench" field "$1" iteration metric value |
	awk -F'\t' '{ v[$1, $2] = $3; it[$1] = 1 }
		END { for (i in it) if (v[i, "loops"] > 0)
			printf "%.6f %.6f\n", (v[i, "loop_utime"] + v[i, "loop_stime"]) / v[i, "loops"] / 1e6,
			       v[i, "loop_time"] / 1e9 }'
}

run_arm() {
	local a=$1 r=$2 opt=()
	case $a in
	flat) opt=(--profile) ;;
	hi) opt=(--profile --profile-freq 4999) ;;
	hicg) opt=(--profile=callgraph --profile-freq 4999) ;;
	esac
	if ! "$mmbench" run pageout -p instances=1 -p size_mb="$size" -p duration_s="$dur" \
		-p dir="$out/data" -i "$iters" -w 1 -o "$out/$a.$r" "${opt[@]}" \
		>/dev/null 2>"$out/$a.$r.err"; then
		echo "bench-profile: mmbench ($a) failed in round $r: $(tail -2 "$out/$a.$r.err")" >&2
		return 1
	fi
	per_iter "$out/$a.$r/results.csv" >"$out/$a.$r.iter"
	cut -d' ' -f1 "$out/$a.$r.iter" >>"$out/$a.cpu"
	[ "$a" = off ] && return 0
	if [ "$(grep -c ',ok,' "$out/$a.$r/profile_iterations.csv" 2>/dev/null)" != "$iters" ]; then
		echo "bench-profile: round $r ($a): not every iteration was profiled: $(tail -1 "$out/$a.$r/profile_iterations.csv" 2>/dev/null)" >&2
		return 1
	fi
	# perf's CPU (whole case) and the phases' wall time
	echo "$(sed -n 's/.*perf record used \([0-9.]*\) s of CPU.*/\1/p' "$out/$a.$r/meta.csv") \
$(awk '{ s += $2 } END { print s }' "$out/$a.$r.iter") $a" >>"$out/perf_cpu"
}

echo "bench-profile: $rounds rounds of mmbench pageout (instances=1 size_mb=$size duration_s=$dur, -i $iters -w 1): off, --profile (499 Hz), --profile and --profile=callgraph at 4999 Hz, rotating; load average $(bench_loadavg)"
lsum=0
for r in $(seq 1 "$rounds"); do
	for k in 0 1 2 3; do
		run_arm "${arms[$(((r + k) % 4))]}" "$r" || exit 2
	done
	lsum=$(awk -v a="$lsum" -v b="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN { print a + b }')
	printf 'round %d: CPU ms per loop (mean of %d): off %s, 499 Hz %s, 4999 Hz %s, 4999 Hz callgraph %s (load %s)\n' \
		"$r" "$iters" "$(bench_stats "$out/off.$r.iter" | cut -d' ' -f2)" \
		"$(bench_stats "$out/flat.$r.iter" | cut -d' ' -f2)" "$(bench_stats "$out/hi.$r.iter" | cut -d' ' -f2)" \
		"$(bench_stats "$out/hicg.$r.iter" | cut -d' ' -f2)" "$(bench_loadavg)"
done
raw() { find "$out"/"$1".*/profile -name '*.perf.data' -printf '%s\n' 2>/dev/null |
	awk '{ s += $1; n++ } END { if (n) printf "%.0f KiB", s / n / 1024 }'; }
pcpu() { awk -v a="$1" '$3 == a { c += $1; w += $2 } END { if (w) printf "%.2f", 100 * c / w }' "$out/perf_cpu"; }
# median over the rounds of mean(arm) / mean(off) - 1 in the same round,
# percent: paired by round, and robust to a round the host disturbed
paired() {
	local r
	for r in $(seq 1 "$rounds"); do
		echo "$(bench_stats "$out/$1.$r.iter" | cut -d' ' -f2) $(bench_stats "$out/off.$r.iter" | cut -d' ' -f2)"
	done | awk '$2 > 0 { print 100 * ($1 / $2 - 1) }' | sort -g |
		awk '{ v[++n] = $1 } END { if (n) printf "%.2f", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'
}
awk -v rounds="$rounds" -v lsum="$lsum" -v loadavg="$(bench_loadavg)" \
	-v s0="$(bench_stats "$out/off.cpu")" -v s1="$(bench_stats "$out/flat.cpu")" \
	-v s2="$(bench_stats "$out/hi.cpu")" -v s3="$(bench_stats "$out/hicg.cpu")" \
	-v p1="$(pcpu flat)" -v p2="$(pcpu hi)" -v p3="$(pcpu hicg)" \
	-v r1="$(raw flat)" -v r2="$(raw hi)" -v r3="$(raw hicg)" \
	-v q1="$(paired flat)" -v q2="$(paired hi)" -v q3="$(paired hicg)" '
function tq(df) {	# t(0.975, df), df rounded down
	split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 " \
	      "2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086", t, " ")
	df = int(df)
	return df < 1 ? 12.706 : df <= 20 ? t[df] : df <= 30 ? 2.042 : df <= 60 ? 2.000 : 1.980
}
# overhead of arm a against off (o), percent, and its interval in lo[], hi[]
function over(s, k,    a, d, se, df) {
	split(s, a, " ")
	d = a[2] - o[2]
	se = sqrt(o[3] ^ 2 / o[1] + a[3] ^ 2 / a[1])
	df = se > 0 ? se ^ 4 / ((o[3] ^ 2 / o[1]) ^ 2 / (o[1] - 1) + (a[3] ^ 2 / a[1]) ^ 2 / (a[1] - 1)) : 1
	lo[k] = 100 * (d - tq(df) * se) / o[2]; hi[k] = 100 * (d + tq(df) * se) / o[2]
	m[k] = a[2]; c[k] = a[4]; n[k] = a[1]
	return 100 * d / o[2]
}
# overhead V (percent) at 4999 Hz -> percent at 499 Hz, by the model in the header
function at499(v,    fc) {
	fc = (1 - 1 / (1 + v / 100)) * 499 / 4999
	return fc < 1 ? 100 * (1 / (1 - fc) - 1) : 1e9
}
# microseconds of CPU per sample at overhead V (percent) at 4999 Hz
function persample(v) {
	return 1e6 * (1 - 1 / (1 + v / 100)) / 4999
}
function row(name, k, v, p, r) {
	printf "%-22s %4d %14.3f %6.1f%%  %7.2f%% (%.2f%% .. %.2f%%)   %6s%%   %s\n", name, n[k], m[k], c[k], v, lo[k], hi[k], p, r
}
BEGIN {
	split(s0, o, " ")
	if (o[1] < 2) { print "bench-profile: fewer than 2 values"; exit 2 }
	v1 = over(s1, 1); v2 = over(s2, 2); v3 = over(s3, 3)
	printf "%-22s %4s %14s %7s  %-28s %8s   %s\n", "", "n", "CPU ms/loop", "CoV", "overhead (95% interval)", "perf CPU", "raw data/case"
	printf "%-22s %4d %14.3f %6.1f%%\n", "off", o[1], o[2], o[4]
	row("--profile 499 Hz", 1, v1, p1, r1)
	row("--profile 4999 Hz", 2, v2, p2, r2)
	row("callgraph 4999 Hz", 3, v3, p3, r3)
	printf "at 499 Hz from the 4999 Hz arms (cost per sample, see the header): --profile %.2f%% (%.2f%% .. %.2f%%), callgraph %.2f%% (%.2f%% .. %.2f%%)\n",
	       at499(v2), at499(lo[2]), at499(hi[2]), at499(v3), at499(lo[3]), at499(hi[3])
	printf "cost per sample from the 4999 Hz arms: --profile %.1f us, callgraph %.1f us (CPU of the instance)\n",
	       persample(v2), persample(v3)
	printf "paired by round (median of the rounds%s overhead, context): 499 Hz %.2f%%, 4999 Hz %.2f%% (so %.2f%% at 499 Hz), callgraph 4999 Hz %.2f%% (so %.2f%%)\n",
	       "'"'"'", q1, q2, at499(q2), q3, at499(q3)
	printf "perf CPU: perf record'"'"'s own CPU time over the whole cases per second of measured phase (an upper bound)\n"
	printf "bench-profile: 1-minute load average %.2f over the rounds (now %s)\n", lsum / rounds, loadavg
	# the 4999 Hz arm resolves what the direct one cannot; either one
	# showing the cost at or over the target misses it
	if (lo[1] >= 5 || at499(lo[2]) >= 5) verdict = "MISSED"
	else if (at499(hi[2]) < 5) verdict = "met"
	else verdict = "NOT RESOLVED (the noise is larger than the target)"
	printf "bench-profile: target (--profile at the default 499 Hz costs under 5%% CPU per loop): %s\n", verdict
	exit verdict == "met" ? 0 : 1
}'
exit
}
