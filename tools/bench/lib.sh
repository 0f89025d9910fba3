# Shared by the reference benchmarks (tools/bench/*-bench.sh): statistics
# of one series of values and the side-by-side verdict. Sourced, not run.
#
# Minimum detectable change (MDC) at n iterations, 95% confidence, for a
# two-sided two-sample t-test with equal n and the measured spread:
#
#     MDC = t(0.975, 2n - 2) x sd x sqrt(2 / n) / mean
#
# that is t x CoV x sqrt(2/n). At n = 10: t(0.975, 18) = 2.1009, so
# MDC = 0.9396 x CoV. A difference between two kernels smaller than the
# MDC cannot be told from noise with 10 iterations each.

# bench_loadavg: the 1/5/15-minute load average, "1.23 2.34 3.45".
bench_loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# bench_stats FILE: "n mean sd cov_pct mdc10_pct" of the numbers in FILE
# (one per line); sd is the sample standard deviation (n - 1).
bench_stats() {
	awk '
	function tq(df) {	# t(0.975, df)
		split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 " \
		      "2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 " \
		      "2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", t, " ")
		if (df <= 30) return t[df]
		return df <= 40 ? 2.021 : df <= 60 ? 2.000 : df <= 120 ? 1.980 : 1.960
	}
	NF { v[++n] = $1; s += $1 }
	END {
		if (n < 2) { print n, (n ? s : 0), 0, 0, 0; exit }
		m = s / n
		for (i = 1; i <= n; i++) q += (v[i] - m) ^ 2
		sd = sqrt(q / (n - 1))
		cov = m != 0 ? 100 * sd / m : 0
		printf "%d %.6g %.6g %.3f %.3f\n", n, m, sd, cov, tq(18) * cov * sqrt(2 / 10)
	}' "$1"
}

# bench_corr FILE_A FILE_B: Pearson's r of two series measured round by
# round (line i of each from round i), "r n"; "- n" below 3 rounds or
# with a constant series. Near 1: the rounds that were slow for one were
# slow for the other, so the machine, not either program, set the spread.
bench_corr() {
	paste "$1" "$2" | awk 'NF == 2 { x[++n] = $1; y[n] = $2; sx += $1; sy += $2 }
	END {
		if (n < 3) { print "-", n; exit }
		mx = sx / n; my = sy / n
		for (i = 1; i <= n; i++) {
			a += (x[i] - mx) * (y[i] - my); b += (x[i] - mx) ^ 2; c += (y[i] - my) ^ 2
		}
		if (b == 0 || c == 0) print "-", n
		else printf "%.3f %d\n", a / sqrt(b * c), n
	}'
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
		printf "%s: CoV ratio mmbench/reference %.3f, mean ratio %.4f; MDC@10 = t(0.975,18) x CoV x sqrt(2/10); load average %s\n",
		       name, ratio, b[2] != 0 ? a[2] / b[2] : 0, loadavg
		ok = b[4] > 0 && a[4] <= b[4] / 2 && a[4] < max
		printf "%s: target (CoV at most half of the reference'"'"'s and under %s%%): %s\n",
		       name, max, ok ? "met" : "MISSED"
		exit ok ? 0 : 1
	}'
}
