# Shared by the reference benchmarks (pageout-bench.sh, thp_storm-bench.sh,
# precision-bench.sh and profile-bench.sh beside it): statistics of one
# series of values, the machine's own spread, and the side-by-side
# verdict. Sourced, not run.
#
# Minimum detectable change (MDC) at n iterations: the smallest difference
# a two-sided two-sample t-test with equal n and the measured spread finds
# with 80% power at p < 0.05, the project's one MDC formula (bench/results/mdc.h,
# asked of tools/mmcompare/mdc):
#
#     MDC = (t(0.975, 2n - 2) + t(0.8, 2n - 2)) x sd x sqrt(2 / n) / mean
#
# that is (t + t') x CoV x sqrt(2/n). At n = 10: t(0.975, 18) = 2.1009 and
# t(0.8, 18) = 0.8620, so MDC = 1.3251 x CoV. A difference between two
# kernels smaller than the MDC is likely missed with 10 iterations each
# (and iterations of one run share its machine's state: mmcompare judges
# times by the spread between runs).

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bench_mdc=$bench_dir/../mmcompare/mdc

# bench_mdc10 COV: the MDC in % of 10 iterations against 10 like them, for
# a CoV in % (tools/mmcompare/mdc; built with the benchmarks' targets).
bench_mdc10() { "$bench_mdc" 10 "$1"; }

# bench_loadavg: the 1/5/15-minute load average, "1.23 2.34 3.45".
bench_loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# bench_stats FILE: "n mean sd cov_pct mdc10_pct" of the numbers in FILE
# (one per line); sd is the sample standard deviation (n - 1); the MDC at
# 10 iterations from tools/mmcompare/mdc.
bench_stats() {
	local n m sd cov covx mdc
	read -r n m sd cov covx < <(awk '
	NF { v[++n] = $1; s += $1 }
	END {
		if (n < 2) { print n + 0, (n ? s : 0), 0, 0, "-"; exit }
		m = s / n
		for (i = 1; i <= n; i++) q += (v[i] - m) ^ 2
		sd = sqrt(q / (n - 1))
		cov = m != 0 ? 100 * sd / m : 0
		printf "%d %.6g %.6g %.3f %.17g\n", n, m, sd, cov, (cov < 0 ? -cov : cov)
	}' "$1")
	if [ "$covx" = - ]; then	# fewer than 2 values: no spread, no MDC
		echo "$n $m $sd $cov 0"
		return
	fi
	mdc=$(bench_mdc10 "$covx") || return 1
	printf '%s %s %s %s %.3f\n' "$n" "$m" "$sd" "$cov" "$mdc"
}

# bench_value RESULTS_CSV METRIC: METRIC's values in a results.csv, read
# by mmbench's own CSV reader ($mmbench: the mmbench binary).
bench_value() { "$mmbench" field --where metric="$2" "$1" value; }

# The machine's own spread, timed in the same round as the arms, so that
# a target can be read against what the machine allows in that very
# invocation (tools/selfbench/floor.c, built beside this file). Each appends
# N figures of milliseconds to FILE.
# bench_floor_cpu FILE N: a fixed loop of loads, multiplies and stores on
# 256 KiB held in the CPU's caches, no system call: the CPU's speed.
bench_floor_cpu() { "$bench_dir/floor" cpu "$2" >>"$1"; }
# bench_floor_mem FILE N: memset of 1 GiB touched beforehand: the memory's
# write speed, which zeroing a huge page runs at, without page faults or
# memory the host took back.
bench_floor_mem() { "$bench_dir/floor" mem "$2" >>"$1"; }
# bench_floor_thp FILE N: mean microseconds per fault of N storms of 256
# huge page faults, each on memory backed right before and each on other
# physical memory (kept mapped): how much the host's memory differs by
# where a storm lands, with no harness involved.
bench_floor_thp() { "$bench_dir/floor" thp "$2" >>"$1"; }
# bench_floor_io FILE N DIR: N seconds or so of reading a 64 MiB file in
# DIR, its pages dropped before each read (16 reads per figure): the
# disk's read speed, which a pageout loop mostly waits for. Refused (exit
# 1, the reason on stderr) where the file system keeps the pages.
bench_floor_io() { "$bench_dir/floor" io "$2" "$3" >>"$1"; }
# bench_floor_report FILE WHAT [UNIT]: "  context: WHAT, timed N times:
# mean M UNIT (default ms), CoV C%: the machine's own spread".
bench_floor_report() {
	local n m sd cov mdc
	read -r n m sd cov mdc < <(bench_stats "$1")
	echo "  context: $2, timed $n times: mean $m ${3:-ms}, CoV $cov%: the machine's own spread"
}

# bench_floor_context RC FILE ERR WHAT [UNIT]: bench_floor_report of FILE
# when the floor run exited RC 0, else "  context: WHAT: not measured:
# <the floor's last line on ERR>" (a floor the machine refused is said, and
# the benchmark goes on).
bench_floor_context() {
	if [ "$1" = 0 ]; then
		bench_floor_report "$2" "$4" "${5:-ms}"
	else
		echo "  context: $4: not measured: $(tail -n 1 "$3")"
	fi
}

# bench_context_ratio WHAT MM_FILE OTHER_FILE UNIT: "  context: WHAT mean
# M UNIT, CoV C%, MDC@10 D% (n=N); CoV ratio mmbench/it R, mean ratio Q".
bench_context_ratio() {
	local n m sd cov mdc mm_m mm_cov
	read -r n m sd cov mdc < <(bench_stats "$3")
	read -r _ mm_m _ mm_cov _ < <(bench_stats "$2")
	awk -v what="$1" -v unit="$4" -v n="$n" -v m="$m" -v cov="$cov" -v mdc="$mdc" -v mm_m="$mm_m" -v mm_cov="$mm_cov" 'BEGIN {
		printf "  context: %s mean %s %s, CoV %s%%, MDC@10 %s%% (n=%d); CoV ratio mmbench/it %.3f, mean ratio %.4f\n",
		       what, m, unit, cov, mdc, n, (cov > 0 ? mm_cov / cov : 0), (m > 0 ? mm_m / m : 0) }'
}

# bench_verdict NAME MM_FILE REF_FILE MAX_COV_PCT: print both series' mean,
# CoV and MDC, the CoV ratio, and whether mmbench's CoV is at most half of
# the reference's and under MAX_COV_PCT. Exit 0 met, 1 missed, 2 no data.
bench_verdict() {
	local name=$1 mm ref
	mm=$(bench_stats "$2")
	ref=$(bench_stats "$3")
	awk -v name="$name" -v mm="$mm" -v ref="$ref" -v max="$4" -v loadavg="$(bench_loadavg)" '
	BEGIN {
		split(mm, a, " "); split(ref, b, " ")
		if (a[1] < 2 || b[1] < 2) { print name ": fewer than 2 values on a side"; exit 2 }
		printf "%-10s %4s %14s %9s %12s\n", "", "n", "mean", "CoV", "MDC@10"
		printf "%-10s %4d %14.6g %8.2f%% %11.2f%%\n", "mmbench", a[1], a[2], a[4], a[5]
		printf "%-10s %4d %14.6g %8.2f%% %11.2f%%\n", "reference", b[1], b[2], b[4], b[5]
		ratio = b[4] > 0 ? a[4] / b[4] : 0
		printf "%s: CoV ratio mmbench/reference %.3f, mean ratio %.4f; MDC@10 = (t(0.975,18) + t(0.8,18)) x CoV x sqrt(2/10): 80%% power at p < 0.05; load average %s\n",
		       name, ratio, b[2] != 0 ? a[2] / b[2] : 0, loadavg
		ok = b[4] > 0 && a[4] <= b[4] / 2 && a[4] < max
		printf "%s: target (CoV at most half of the reference'"'"'s and under %s%%): %s\n",
		       name, max, ok ? "met" : "MISSED"
		exit ok ? 0 : 1
	}'
}

# bench_pooled_verdict NAME MM_COVS REF_COVS MAX_COV_PCT OUT_DIR: the
# verdict over all rounds. The files hold one CoV per round (each from its
# round's own mean, so a drift of the mean between rounds does not count
# as spread); the pooled CoV is their root mean square, a steadier
# estimate than any one round's (a CoV from 10 values is itself uncertain
# by about a quarter). Prints both pooled CoVs with their MDC@10, the
# ratio, the load average and whether mmbench's pooled CoV is at most half
# of the reference's and under MAX_COV_PCT. Exit 0 met, 1 missed, 2 no
# data.
bench_pooled_verdict() {
	local f
	f=$(bench_mdc10 1) || return 2	# the MDC@10 of a CoV of 1%
	paste "$2" "$3" | awk -v name="$1" -v max="$4" -v out="$5" -v f="$f" -v loadavg="$(bench_loadavg)" '
	NF == 2 { n++; a += $1 * $1; b += $2 * $2 }
	END {
		if (!n) { print name ": no rounds"; exit 2 }
		a = sqrt(a / n); b = sqrt(b / n)
		printf "%s: over %d round(s), pooled CoV (root mean square of the rounds'"'"'): mmbench %.2f%% (MDC@10 %.2f%%), reference %.2f%% (MDC@10 %.2f%%), ratio %.3f; load average %s\n",
		       name, n, a, f * a, b, f * b, (b > 0 ? a / b : 0), loadavg
		ok = b > 0 && a <= b / 2 && a < max
		printf "%s: target (pooled CoV at most half of the reference'"'"'s and under %s%%): %s\n", name, max, ok ? "met" : "MISSED"
		printf "%s: values and run directories in %s\n", name, out
		exit ok ? 0 : 1
	}'
}
