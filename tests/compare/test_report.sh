#!/usr/bin/env bash
# ./run.sh compare BASE NEW (tools/compare-report): the report directory
# results/compare-<base>-vs-<new>-<time>/ with the text table, CSV,
# markdown, plots and report.md, which leads with the verdict: per
# workload its headline table followed by its headline chart, then the
# meta differences, the cases that did not pass, the % change chart, then
# each workload's full table with its plots; links only to files that
# exist.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/gen.sh"
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
report=$TOP/tools/compare-report
entry=$report
grep -q 'compare-report' "$TOP/run.sh" 2>/dev/null && entry="$TOP/run.sh compare"
export MMBENCH_RESULTS=$t/results

# Three runs of each kernel (./run.sh --runs 3): the times are judged with
# the run as the unit; the runs' means differ by a few ns, the kernels by 50.
for side in 6.1.0-base:0 6.1.0-new:-50; do
	label=${side%%:*} d=${side#*:}
	for r in 1 2 3; do
		rd=$t/results/$label/2025010$r-000000-host
		mkrun "$rd" "$label" kernel_cmdline="quiet $label"
		for th in 1 4; do
			addrows "$rd" thpscale "threads=$th" fault_both ns \
				lower $(seq_vals $((1000 * th + d + 3 * (r - 2))) 2 5)
			# the evidence (a --probe count, no metrics.csv): 1 -> 0, exact
			addrows "$rd" thpscale "threads=$th" \
				calls_per_fault:f calls lower $(seq_vals $((d == 0)) 0 5)
		done
		addrows "$rd" pageout "" loops loops/s higher $(seq_vals $((400 + d + r)) 1 5)
	done
done

# The new kernel died in a case (started.csv has it, cases.csv not).
printf 'schema,run_id,label,kernel,workload,case,start_time\n1,r,6.1.0-new,k,thpscale,threads=8,2025-01-01T00:10:00Z\n' \
	>"$t/results/6.1.0-new/20250101-000000-host/started.csv"

$entry 6.1.0-base 6.1.0-new >"$t/out" 2>"$t/err"
rc=$?
check "compare by label under the results root: exit 0" [ $rc -eq 0 ]
dir=$(ls -d "$t"/results/compare-6.1.0-base-vs-6.1.0-new-* 2>/dev/null | head -n 1)
check "directory compare-<base>-vs-<new>-<YYYYmmdd-HHMMSS>" \
	eval '[[ "$dir" =~ /compare-6\.1\.0-base-vs-6\.1\.0-new-[0-9]{8}-[0-9]{6}$ ]]'
check "prints the text table and the report's path" \
	eval 'grep -q "fault_both" "$t/out" && [ "$(tail -n 1 "$t/out")" = "report: $dir/report.md" ]'
check "three runs a side: the times decided by the runs (runs 3/3), their MDC in the CSV" \
	eval 'grep -Eq "^ +fault_both .* better +runs 3/3 " "$t/out" &&
	grep -q "^thpscale,threads=1,fault_both,.*,1,6.1.0-new,.*,3,runs,runs,runs,[0-9.e-]*,[0-9.e-]*,[0-9.e-]*,[0-9.e-]*$" "$dir/compare.csv"'
check "the printed table is compare.txt" \
	eval 'head -n "$(wc -l <"$dir/compare.txt")" "$t/out" | cmp -s - "$dir/compare.txt"'
check "comparison CSV with a row per line and side" \
	eval '[ "$(wc -l <"$dir/compare.csv")" -eq 11 ] && head -n 1 "$dir/compare.csv" | grep -q "^workload,case,metric"'
check "plots were drawn" eval 'ls "$dir"/plots/*.png >/dev/null 2>&1'

md=$dir/report.md
# line of the first line matching ERE $1 (0: none)
at() { grep -n -E -m 1 -- "$1" "$md" | cut -d: -f1 | grep . || echo 0; }
# the text of section KEY: from its marker to the next marker
sect() { awk -v m="<!-- $1 -->" '$0 == m { on = 1; next } on && /^<!-- mm/ { exit } on' "$md"; }
title=$(at '^# mmbench report: 6\.1\.0-base vs 6\.1\.0-new$')
verdict=$(at '^## Verdict')
hl_thp=$(at '^<!-- mmcompare:headline thpscale -->$')
hl_chart=$(at '^!\[thpscale: the evidence\]\(plots/01-thpscale-headline-1\.png\)$')
meta=$(at '^## Meta facts that differ')
cases=$(at '^## Cases that did not pass')
change=$(at '^!\[% change of 6\.1\.0-new vs 6\.1\.0-base')
detail=$(at '^<!-- mmcompare:workload thpscale -->$')
summary=$(at '^<!-- mmcompare:summary -->$')
check "report.md order: title, verdict, headline table+chart, meta, cases, % change, detail, summary" \
	eval '[ "$title" -eq 1 ] && [ "$verdict" -gt 1 ] && [ "$hl_thp" -gt "$verdict" ] &&
	[ "$hl_chart" -gt "$hl_thp" ] && [ "$meta" -gt "$hl_chart" ] && [ "$cases" -gt "$meta" ] &&
	[ "$change" -gt "$cases" ] && [ "$detail" -gt "$change" ] && [ "$summary" -gt "$detail" ]'
check "report.md: the headline table is immediately followed by its headline chart" \
	eval 'sect "mmcompare:headline thpscale" | grep -q "calls.*per.*fault" &&
	sect "mmcompare:headline thpscale" |
	awk "/^\\|/ { t = 1; next } t && NF { print; exit }" | grep -q "^!\[thpscale: the evidence\]"'
check "report.md: the headline chart before any detail table or chart" \
	eval '[ "$(at "^<!-- mmcompare:workload ")" -gt "$hl_chart" ] && [ "$(at "bars-1\.png")" -gt "$hl_chart" ]'
check "report.md: the meta differences" \
	grep -q "^| kernel_cmdline | quiet 6.1.0-base | quiet 6.1.0-new | no |" "$md"
check "report.md: the case the new kernel died in, after the meta facts" \
	eval '[ "$cases" -gt 0 ] && grep -q "^| 6.1.0-new | \*\*died\*\* | thpscale | threads=8 | started 2025-01-01T00:10:00Z" "$md"'
# Each workload's detail section: its table, then its own plots.
check "report.md: thpscale's full table is followed by thpscale's plots" \
	eval 'sect "mmcompare:workload thpscale" | grep -q "^| fault_both-1 |" &&
	sect "mmcompare:workload thpscale" | grep -q "^!\[thpscale: mean per label" &&
	! sect "mmcompare:workload thpscale" | grep -q "pageout-bars"'
check "report.md: pageout's section has pageout's plots" \
	eval 'sect "mmcompare:workload pageout" | grep -q "^!\[pageout: mean per label"'
check "report.md: the % change chart counts the evidence" \
	grep -q '^!\[% change of 6.1.0-new vs 6.1.0-base: 5 metrics (2 evidence)' "$md"
# Every link names a file that exists (parsed here, independently of the tool).
links=$(grep -o '](\([^)]*\))' "$md" | sed 's/^](//; s/)$//' | sort -u)
missing=$(while read -r f; do [ -n "$f" ] && [ ! -s "$dir/$f" ] && echo "$f"; done <<<"$links")
check "report.md links only files that exist ($(wc -l <<<"$links") links)" \
	eval '[ -z "$missing" ] && [ "$(wc -l <<<"$links")" -gt 10 ]'

# Plots impossible: the report says so and still links only what exists.
MMPLOT_GNUPLOT=/nonexistent/gnuplot $report "$t/results/6.1.0-base" "$t/results/6.1.0-new" \
	>"$t/out2" 2>"$t/err2"
rc=$?
dir2=$(ls -td "$t"/results/compare-* | head -n 1)
check "without gnuplot: report written, plots skipped with the reason" \
	eval '[ $rc -eq 0 ] && [ "$dir2" != "$dir" ] &&
	grep -q "^Plots skipped: mmplot: gnuplot not found at /nonexistent/gnuplot" "$dir2/report.md" &&
	! grep -q "](plots/" "$dir2/report.md"'

# A significant regression with --fail-on-regression: report and exit 3.
$report --fail-on-regression 6.1.0-new 6.1.0-base >/dev/null 2>&1
check "--fail-on-regression: exit 3 on a significant regression" [ $? -eq 3 ]

# Facts that change the answer: refused, nothing left behind.
mkrun "$t/results/thp/r" thp thp_enabled=always
addrows "$t/results/thp/r" pageout "" loops loops/s higher 1 2 3
before=$(ls -d "$t"/results/compare-* | wc -l)
$report 6.1.0-base thp >/dev/null 2>"$t/err"
rc=$?
check "THP mode differs: exit 2, the reason shown, no report directory" \
	eval '[ $rc -eq 2 ] && grep -q "thp_enabled" "$t/err" &&
	[ "$(ls -d "$t"/results/compare-* | wc -l)" -eq "$before" ]'
$report 6.1.0-base no-such-label >/dev/null 2>"$t/err"
rc=$?
check "unknown label: exit 2 naming it" eval '[ $rc -eq 2 ] && grep -q "no-such-label" "$t/err"'
finish
