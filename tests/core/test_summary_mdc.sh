#!/usr/bin/env bash
# mmbench summary prints, per judged metric, the minimum detectable change
# (bench/mdc.h): (t(0.975, 2N-2) + t(0.8, 2N-2)) * sd * sqrt(2/N) in % of
# the mean (what a comparison with another run like this one finds with 80%
# power at p < 0.05), "exact" when no iteration differs (N >= 3) and "-"
# with one iteration. Values known here: 10, 12, 14, 16, 18 (mean 14, sd
# sqrt(10)): t(0.975, 8) = 2.306004 and t(0.8, 8) = 0.888890 (mpmath) give
# 3.194894 * 3.162278 * sqrt(0.4) / 14 = 45.64%.
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
finish
