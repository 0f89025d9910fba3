#!/usr/bin/env bash
# Numbers finite in results.csv whose statistics overflow a double (means
# near 1e308, a change from 1e-300 to 1e300) are shown as overflowed and
# not judged: never "inf" or "nan" in any output (text, --all, CSV,
# markdown), never "+inf%"; mmplot leaves such lines out of its charts
# (gnuplot cannot scale values near the double range: it failed with "No
# valid points" on 1.4e308) and says so, and gnuplot does not fail; the
# report (compare-report) carries the note. (Issue 29.)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/gen.sh"
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
MMC=$TOP/tests/compare/mmcompare.asan
PLOT=$TOP/tests/compare/mmplot.asan
for b in "$MMC" "$PLOT"; do
	[ -x "$b" ] || { fail "sanitizer build" "$b missing"; finish; }
done

mkrun "$t/a/ra" a
mkrun "$t/b/rb" b
# c holds values near the double's range, each statistic overflows
addrows "$t/a/ra" w "x=1" big count lower 1e308 1.5e308 1.7e308
addrows "$t/b/rb" w "x=1" big count lower -1e308 -1.5e308 -1.7e308
addrows "$t/a/ra" w "x=1" tiny count lower 1e-308 2e-308 3e-308
addrows "$t/b/rb" w "x=1" tiny count lower 1e308 1e308 1.1e308
addrows "$t/a/ra" w "x=1" rate ops/s higher 1e-300 2e-300 3e-300
addrows "$t/b/rb" w "x=1" rate ops/s higher 1e300 1e300 1.1e300
# and lines that plot and judge as usual
for x in 1 2; do
	addrows "$t/a/ra" w "x=$x" ok count lower 10 11 12
	addrows "$t/b/rb" w "x=$x" ok count lower 20 21 22
done

all=$(
	for v in "" --all --csv --markdown; do
		ASAN_OPTIONS=detect_leaks=1 COLUMNS=120 "$MMC" $v "$t/a/ra" "$t/b/rb" 2>>"$t/err"
		echo "rc=$?"
	done
)
check "every format exits 0, no sanitizer report" \
	eval '[ "$(grep -c "^rc=0$" <<<"$all")" = 4 ] && ! grep -Eq "Sanitizer|runtime error" "$t/err"'
check "no inf or nan in any output format" eval '! grep -Eiwq "[-+]?(nan|inf|infinity)" <<<"$all"'
out=$(COLUMNS=120 "$MMC" --all "$t/a/ra" "$t/b/rb" 2>/dev/null)
check "--all: an overflowed change is shown as such, with the reason" \
	grep -Eq '^Amean +big-1 +.* \[overflow\]  overflow: values beyond what a double holds in a statistic, not judged$' <<<"$out"
check "--all: a change 1e-308 -> 1e308 overflowed, not 'n/a' (a base of 0 is not the reason)" \
	grep -Eq '^Amean +tiny-1 +.* \[overflow\]  overflow' <<<"$out"
check "the summary counts the overflowed lines; they are not 'unchanged'" \
	eval 'tr -s "\n " "  " <<<"$out" | grep -q "0 better, 2 worse, 0 unchanged; 3 lines overflowed (not judged)"'
"$MMC" --csv "$t/a/ra" "$t/b/rb" >"$t/c.csv" 2>/dev/null
check "CSV: verdict overflow, judged 0, change and abs_change empty" \
	eval 'awk -F, "\$3 == \"big\" && \$7 == 1" "$t/c.csv" | grep -q ",,,,0,overflow,context,0,0,0,,Benjamini-Hochberg,0,,,"'
out=$(COLUMNS=120 "$MMC" "$t/a/ra" "$t/b/rb" 2>/dev/null)
check "verdict view: the overflowed lines are counted apart" grep -q "3 overflowed (not judged)" <<<"$out"

# mmplot: the lines left out, the rest drawn, gnuplot happy
if command -v gnuplot >/dev/null; then
	ASAN_OPTIONS=detect_leaks=1 "$PLOT" -o "$t/p" "$t/a/ra" "$t/b/rb" >"$t/pout" 2>"$t/perr"
	rc=$?
	check "mmplot: exit 0, gnuplot did not fail, no sanitizer report (rc $rc)" \
		eval '[ $rc -eq 0 ] && ! grep -Eq "Sanitizer|runtime error|failed" "$t/perr" &&
		! grep -qi "error\|no valid" "$t/p/gnuplot.log" 2>/dev/null'
	check "mmplot: the 3 lines are left out and said so (stderr and plots.md)" \
		eval 'grep -q "^mmplot: 3 line(s) left out of the charts: a value beyond +-1e+300" "$t/perr" &&
		grep -q "^3 line(s) left out of the charts" "$t/p/plots.md"'
	check "mmplot: no inf, nan or value beyond 1e300 in the data files" \
		eval '! cat "$t"/p/*.dat | grep -Eiwq "[-+]?(nan|inf)|e\+30[1-9]"'
	check "mmplot: the other lines are drawn" eval 'ls "$t"/p/01-w-bars-1.png "$t"/p/01-w-bars-1.svg >/dev/null'
	# only lines that overflow: nothing to plot, said so (exit 2), no gnuplot run
	mkrun "$t/c/rc" c
	mkrun "$t/d/rd" d
	addrows "$t/c/rc" w "" big count lower 1e308 1.5e308 1.7e308
	addrows "$t/d/rd" w "" big count lower 1.6e308 1.5e308 1.7e308
	"$PLOT" -o "$t/p2" "$t/c/rc" "$t/d/rd" >/dev/null 2>"$t/perr2"
	rc=$?
	check "mmplot: only overflowing lines: exit 2, the reason named" \
		eval '[ $rc -eq 2 ] && grep -q "nothing plottable: 1 line(s) with a value beyond +-1e+300" "$t/perr2"'
	# the report carries the note
	MMBENCH_RESULTS=$t/res "$TOP/tools/compare-report" "$t/a/ra" "$t/b/rb" >"$t/rout" 2>&1
	rc=$?
	rep=$(ls -d "$t"/res/compare-* 2>/dev/null | head -n 1)
	check "compare-report: exit 0, report.md says which lines the charts leave out" \
		eval '[ $rc -eq 0 ] && grep -q "^3 line(s) left out of the charts" "$rep/report.md" &&
		! grep -Eiwq "[-+]?(nan|inf)" "$rep/report.md"'
else
	skip "mmplot overflow" "gnuplot is not installed"
fi

# mmplot --alpha: decimals only, as mmcompare's
for a in 0x1p-4 ' 0.05' inf nan; do
	"$PLOT" -o "$t/pa" --alpha "$a" "$t/a/ra" "$t/b/rb" >/dev/null 2>"$t/err"
	rc=$?
	check "mmplot --alpha '$a': not a decimal in (0, 1), exit 2 (rc $rc)" \
		eval '[ $rc -eq 2 ] && grep -Fq -- "--alpha '"'$a'"': want a decimal number between 0 and 1" "$t/err"'
done
finish
