#!/usr/bin/env bash
# mmbench summary prints, per judged metric, the minimum detectable change
# (bench/results/mdc.h): (t(0.975, 2N-2) + t(0.8, 2N-2)) * sd * sqrt(2/N) in % of
# the mean (what a comparison with another run like this one finds with 80%
# power at p < 0.05), "exact" when no iteration differs (N >= 3) and "-"
# with one iteration. Values known here: 10, 12, 14, 16, 18 (mean 14, sd
# sqrt(10)): t(0.975, 8) = 2.306004 and t(0.8, 8) = 0.888890 (mpmath) give
# 3.194894 * 3.162278 * sqrt(0.4) / 14 = 45.64%.
# The spread of large values: 1e9 + 0.1, 0.2, 0.3 (sd 0.1, CoV 1.0e-08%;
# a sum of squares minus N times the squared mean cancels it to rounding
# noise). Values finite in the file whose computation overflows a double
# (1.5e302 and 1.7e302: the variance; -1e308 and 1e308: the mean's running
# update) show "overflow", never inf%; a spread around a mean of 0 has no
# CoV ("-").
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
d=$t/run
mkdir -p "$d"
{
	"$MMBENCH" field --header results.csv
	for v in 10 12 14 16 18; do
		"$MMBENCH" field --csv 1 r l k pageout a=1 $((v / 2 - 5)) spread "$v" ops higher
		"$MMBENCH" field --csv 1 r l k pageout a=1 $((v / 2 - 5)) flat 7 ops lower
	done
	"$MMBENCH" field --csv 1 r l k pageout a=2 0 single 3 ops higher
	"$MMBENCH" field --csv 1 r l k pageout a=2 0 ignored 3 ops info
	i=0
	for v in 1000000000.1 1000000000.2 1000000000.3; do
		"$MMBENCH" field --csv 1 r l k pageout a=3 $((i++)) large "$v" ops higher
	done
	"$MMBENCH" field --csv 1 r l k pageout a=3 0 var_over "15$(printf '%0301d' 0)" ops higher
	"$MMBENCH" field --csv 1 r l k pageout a=3 1 var_over "17$(printf '%0301d' 0)" ops higher
	"$MMBENCH" field --csv 1 r l k pageout a=3 0 mean_over "-1$(printf '%0308d' 0)" ops higher
	"$MMBENCH" field --csv 1 r l k pageout a=3 1 mean_over "1$(printf '%0308d' 0)" ops higher
	"$MMBENCH" field --csv 1 r l k pageout a=3 0 zero_mean -5 ops higher
	"$MMBENCH" field --csv 1 r l k pageout a=3 1 zero_mean 5 ops higher
} >"$d/results.csv"
"$MMBENCH" summary "$d" >"$t/out" 2>"$t/err"
rc=$?
row() { awk -v m="$1" '$2 == m' "$t/out"; }
check "summary exits 0 (rc=$rc: $(head -c 200 "$t/err"))" [ $rc -eq 0 ]
check "header names the MDC column" eval 'head -1 "$t/out" | grep -q " CoV  *MDC  *N  CASE$"'
check "spread: MDC 45.64% ($(row spread))" eval '[ "$(row spread | awk "{print \$6}")" = 45.64% ]'
check "flat: exact ($(row flat))" eval '[ "$(row flat | awk "{print \$6}")" = exact ]'
check "one iteration: - ($(row single))" eval '[ "$(row single | awk "{print \$6}")" = - ]'
check "info metrics are not listed" eval '[ -z "$(row ignored)" ]'
check "the MDC is explained under the table" grep -q '^MDC: the smallest change' "$t/out"
check "1e9 + 0.1, 0.2, 0.3: mean 1e+09, CoV 1.0e-08% ($(row large))" \
	eval '[ "$(row large | awk "{print \$3, \$5}")" = "1e+09 1.0e-08%" ]'
check "1.5e302, 1.7e302: the variance overflows, CoV and MDC say so ($(row var_over))" \
	eval '[ "$(row var_over | awk "{print \$3, \$5, \$6}")" = "1.6e+302 overflow overflow" ]'
check "-1e308, 1e308: the mean overflows, said so ($(row mean_over))" \
	eval '[ "$(row mean_over | awk "{print \$3, \$5, \$6}")" = "overflow overflow overflow" ]'
check "no inf or nan anywhere in the table" eval '! grep -qi "inf\|nan" "$t/out"'
check "overflow explained under the table" grep -q '^overflow: the values are finite but' "$t/out"
check "-5, 5: no CoV around a mean of 0 ($(row zero_mean))" \
	eval '[ "$(row zero_mean | awk "{print \$3, \$5, \$6}")" = "0 - -" ]'
finish
