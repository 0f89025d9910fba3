#!/usr/bin/env bash
# mmcompare on result directories written here: the email table layout,
# significance markers, orientation of % change, Hmean/Amean, n<3, info
# metrics, pooling per label, meta-fact refusal, --fail-on-regression, the
# CSV and markdown formats, case outcomes, and no "nan" anywhere. The
# layout checks judge times of one run per side, which takes
# --iterations-as-samples (the run as the unit: test_runs.sh); without it
# those times are not judged.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/gen.sh"
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT

if [ ! -x "$MMCOMPARE" ]; then
	fail "mmcompare built" "$MMCOMPARE missing"
	finish
fi

# base: fault latency ~1131 ns, new ~1112 ns (5 iterations each: clear
# difference); a rate that falls; an identical metric; an info counter.
mkrun "$t/base/run1" base
mkrun "$t/new/run1" new
addrows "$t/base/run1" thpscale "size_mb=64;threads=1" fault_both ns lower 1131 1135 1128 1130 1132
addrows "$t/new/run1" thpscale "size_mb=64;threads=1" fault_both ns lower 1112 1110 1115 1113 1111
addrows "$t/base/run1" thpscale "size_mb=64;threads=3" fault_both ns lower 2489 2495 2485 2490 2491
addrows "$t/new/run1" thpscale "size_mb=64;threads=3" fault_both ns lower 2489 2495 2485 2490 2491
addrows "$t/base/run1" thpscale "size_mb=64;threads=1" loops loops/s higher 100 101 99 100 100
addrows "$t/new/run1" thpscale "size_mb=64;threads=1" loops loops/s higher 90 91 89 90 90
addrows "$t/base/run1" thpscale "size_mb=64;threads=1" compact_stall count info 5 6 7
addrows "$t/new/run1" thpscale "size_mb=64;threads=1" compact_stall count info 50 60 70
addrows "$t/base/run1" thpscale "size_mb=64;threads=1" few ns lower 10 11
addrows "$t/new/run1" thpscale "size_mb=64;threads=1" few ns lower 100 101
addrows "$t/base/run1" thpscale "size_mb=64;threads=1" only_base ns lower 1 2 3

out=$("$MMCOMPARE" --all "$t/base/run1" "$t/new/run1" 2>"$t/err")
rc=$?
line=$(grep -E '^Amean +fault_both-1 ' <<<"$out")
check "one run per side: a time is not judged, and the note says how to judge it (got '$line')" \
	eval '[ $rc -eq 0 ] && grep -Eq "^Amean +fault_both-1 +1131\.20 \(   0\.00%\) +1112\.20 \[   1\.68%\]  one run per side: not judged \(--runs N, or --iterations-as-samples\)$" <<<"$line" &&
	! grep -q "iterations-as-samples" "$t/err"'
check "one run per side: the summary counts the times not judged" \
	eval 'tr -s "\n " "  " <<<"$out" | grep -q "other judged metrics 0 better, 0 worse, 0 unchanged, 1 n<3; 3 times not judged (one run per side)"'
out=$("$MMCOMPARE" --all --iterations-as-samples "$t/base/run1" "$t/new/run1" 2>"$t/err")
rc=$?
check "exit 0 on a normal comparison" [ $rc -eq 0 ]
check "--iterations-as-samples: a warning that iterations share the machine's state" \
	grep -q "^mmcompare: warning: --iterations-as-samples: .*share the machine's state" "$t/err"
# Amean  fault_both-1  1131.20 (   0.00%)  1112.20 *   1.68%*
line=$(grep -E '^Amean +fault_both-1 ' <<<"$out")
if grep -Eq '^Amean +fault_both-1 +1131\.20 \(   0\.00%\) +1112\.20 \*   1\.68%\*  iterations$' <<<"$line"; then
	pass "email layout: value ( 0.00%) value *  x.xx%* for a clear improvement"
else
	fail "email layout" "got: '$line'"
fi
line=$(grep -E '^Amean +fault_both-3 ' <<<"$out")
if grep -Eq '\(   0\.00%\)  iterations$' <<<"$line" && ! grep -q '\*' <<<"$line"; then
	pass "identical distributions: parentheses, no asterisks"
else
	fail "identical distributions not marked" "got: '$line'"
fi
line=$(grep -E '^Hmean +loops-1 ' <<<"$out")
if grep -Eq '\* +-10\.00%\*  iterations$' <<<"$line"; then
	pass "higher-better rate: Hmean row, a drop 100 -> 90 is -10.00% and significant"
else
	fail "higher-better orientation / Hmean" "got: '$line'"
fi
check "lower-better latency uses Amean" grep -Eq '^Amean +fault_both-1 ' <<<"$out"
line=$(grep -E '^Amean +compact_stall-1 ' <<<"$out")
if grep -Eq '\[ *900\.00%\] +info: not judged$' <<<"$line"; then
	pass "info metric: raw change in brackets, not judged"
else
	fail "info metric" "got: '$line'"
fi
line=$(grep -E '^Amean +few-1 ' <<<"$out")
if grep -q 'n<3: no significance claimed' <<<"$line" && ! grep -q '\*' <<<"$line"; then
	pass "n=2: a 10x change gets no asterisks and the table says why"
else
	fail "n<3 handling" "got: '$line'"
fi
check "a metric on one side only is reported" \
	grep -Eq '^ +thpscale only_base-1 .*missing in new' <<<"$out"
check "facts that differ are listed (kernel_release)" grep -Eq '^ +kernel_release +base +new' <<<"$out"
check "summary counts" eval 'tr -s "\n " "  " <<<"$out" | grep -q "Verdict: evidence 0 better, 0 worse, 0 unchanged; other judged metrics 1 better, 1 worse, 1 unchanged"'

# --fail-on-regression: loops got worse.
"$MMCOMPARE" --fail-on-regression --iterations-as-samples "$t/base/run1" "$t/new/run1" >/dev/null 2>&1
check "--fail-on-regression exits 3 on a significant regression" [ $? -eq 3 ]
"$MMCOMPARE" --fail-on-regression "$t/base/run1" "$t/new/run1" >/dev/null 2>"$t/err"
check "--fail-on-regression: a time of one run per side is no regression (only the missing line is)" \
	eval '! grep -q "significant regression" "$t/err" && grep -q "judged line(s) of BASE missing" "$t/err"'
mkrun "$t/good/run1" good
addrows "$t/good/run1" thpscale "size_mb=64;threads=1" fault_both ns lower 1000 1001 999 1000 1000
"$MMCOMPARE" --fail-on-regression "$t/base/run1" "$t/good/run1" >/dev/null 2>"$t/err"
rc=$?
check "--fail-on-regression exits 3 when judged lines of BASE are missing on NEW" \
	eval '[ $rc -eq 3 ] && grep -q "judged line(s) of BASE missing on a NEW side" "$t/err"'
addrows "$t/good/run1" thpscale "size_mb=64;threads=3" fault_both ns lower 2489 2495 2485 2490 2491
addrows "$t/good/run1" thpscale "size_mb=64;threads=1" loops loops/s higher 100 101 99 100 100
addrows "$t/good/run1" thpscale "size_mb=64;threads=1" few ns lower 10 11
addrows "$t/good/run1" thpscale "size_mb=64;threads=1" only_base ns lower 1 2 3
"$MMCOMPARE" --fail-on-regression "$t/base/run1" "$t/good/run1" >/dev/null 2>&1
check "--fail-on-regression exits 0 when nothing got worse" [ $? -eq 0 ]

# Pooling: two runs of one label add up; a label directory is expanded.
mkrun "$t/base/run2" base
addrows "$t/base/run2" thpscale "size_mb=64;threads=1" fault_both ns lower 1129 1133 1131
out=$("$MMCOMPARE" --all "$t/base" "$t/new/run1" 2>/dev/null)
check "a label directory pools its runs (n = 5 + 3)" grep -Eq '^N +fault_both-1 +8 +5$' <<<"$out"
out=$("$MMCOMPARE" --all "$t/base/run1" "$t/base/run2/results.csv" "$t/new/run1" 2>/dev/null)
check "runs given separately with one label are pooled" grep -Eq '^N +fault_both-1 +8 +5$' <<<"$out"
"$MMCOMPARE" "$t/base/run1" "$t/base/run2" >/dev/null 2>"$t/err"
rc=$?
check "one label only: exit 2 with a reason" \
	eval '[ $rc -eq 2 ] && grep -q "only one label" "$t/err"'
out=$("$MMCOMPARE" --all --per-arg "$t/base/run1" "$t/base/run2" 2>/dev/null)
check "--per-arg compares runs of one label" grep -Eq '^N +fault_both-1 +5 +3$' <<<"$out"

# Facts that change the answer: refuse unless --force, list them either way.
mkrun "$t/thp/run1" thp thp_enabled=always
addrows "$t/thp/run1" thpscale "size_mb=64;threads=1" fault_both ns lower 900 901 902
"$MMCOMPARE" "$t/base/run1" "$t/thp/run1" >"$t/out" 2>"$t/err"
rc=$?
if [ $rc -eq 2 ] && grep -q 'thp_enabled .*madvise .*always .*changes the answer' "$t/err" &&
	grep -q 'refusing' "$t/err" && [ ! -s "$t/out" ]; then
	pass "THP mode differs: refused (exit 2), the fact listed"
else
	fail "THP refusal" "rc $rc: $(cat "$t/err")"
fi
out=$("$MMCOMPARE" --force "$t/base/run1" "$t/thp/run1" 2>/dev/null)
check "--force compares and still lists the fact" \
	grep -q 'thp_enabled .*changes the answer (--force)' <<<"$out"
for fact in cpus=4 numa_nodes=2 numa_balancing=1 vm=qemu node_mem_mb=0:12000 swap_total_kb=1024; do
	mkrun "$t/f/${fact%%=*}" other "$fact"
	addrows "$t/f/${fact%%=*}" thpscale "size_mb=64;threads=1" fault_both ns lower 1 2 3
	"$MMCOMPARE" "$t/base/run1" "$t/f/${fact%%=*}" >/dev/null 2>&1
	check "refused when $fact differs" [ $? -eq 2 ]
done
mkrun "$t/f/nodes" other node_mem_mb=0:23900 mem_total_kb=123
addrows "$t/f/nodes" thpscale "size_mb=64;threads=1" fault_both ns lower 1 2 3
"$MMCOMPARE" "$t/base/run1" "$t/f/nodes" >"$t/out" 2>&1
rc=$?
check "node sizes within 5% are the same layout (listed, not refused)" \
	eval '[ $rc -eq 0 ] && grep -q "node_mem_mb" "$t/out"'

# The one-screen view keeps the facts table short: the VM lab's timings of
# each run are left out, and past 8 other facts the rest are counted; a
# fact that changes the answer is always shown; --all lists every one.
many=()
for i in 1 2 3 4 5 6 7 8 9 10 11; do many+=("fact_$i=x$i"); done
# timings SECONDS: the lab's timing facts of a run that took about that long
timings() {
	local k
	for k in vm_qemu_start_epoch_s vm_boot_s vm_guest_uptime_at_init_s vm_start_s \
		vm_first_row_s vm_exit_s vm_total_s; do echo "$k=$1.5"; done
}
mkrun "$t/m/b" mb "${many[@]}" $(timings 17)
mkrun "$t/m/n" mn $(timings 19) numa_balancing=1
addrows "$t/m/b" thpscale "size_mb=64;threads=1" fault_both ns lower 1 2 3
addrows "$t/m/n" thpscale "size_mb=64;threads=1" fault_both ns lower 1 2 3
"$MMCOMPARE" --force "$t/m/b" "$t/m/n" >"$t/out" 2>&1
facts=$(sed -n '/^Meta facts that differ/,/^$/p' "$t/out")
# 12 facts besides the timings differ (kernel_release, fact_1..11), and
# numa_balancing changes the answer: it and 8 others shown, 4 + 7 counted
check "one screen: a fact that changes the answer is shown among the facts" \
	grep -Eq '^  numa_balancing .*changes the answer' <<<"$facts"
check "one screen: 9 fact rows, then 'and 11 more (7 of them the VM lab's timings ...)'" \
	eval '[ "$(grep -Ec "^  (fact_|kernel_release|numa_balancing)" <<<"$facts")" -eq 9 ] &&
	grep -q "^  and 11 more (7 of them the VM lab.s timings of each run): --all lists them" <<<"$facts"'
check "one screen: no VM lab timing row" eval '! grep -q "^  vm_" <<<"$facts"'
"$MMCOMPARE" --force --all "$t/m/b" "$t/m/n" >"$t/out" 2>&1
facts=$(sed -n '/^Meta facts that differ/,/^$/p' "$t/out")
check "--all: every differing fact listed (13 + 7 timings), no count line" \
	eval '[ "$(grep -Ec "^  (fact_|kernel_release|numa_balancing|vm_)" <<<"$facts")" -eq 20 ] &&
	! grep -q "^  and " <<<"$facts"'
mkrun "$t/m/t" mb $(timings 17) kernel_release=mn
addrows "$t/m/t" thpscale "size_mb=64;threads=1" fault_both ns lower 1 2 3
mkrun "$t/m/u" mn
addrows "$t/m/u" thpscale "size_mb=64;threads=1" fault_both ns lower 1 2 3
"$MMCOMPARE" "$t/m/t" "$t/m/u" >"$t/out" 2>&1
many=()
for i in 1 2 3 4 5 6 7 8 9 10; do many+=("fact_$i=x$i"); done
mkrun "$t/m/v" mb "${many[@]}" kernel_release=mn
addrows "$t/m/v" thpscale "size_mb=64;threads=1" fault_both ns lower 1 2 3
"$MMCOMPARE" "$t/m/v" "$t/m/u" >"$t/out2" 2>&1
check "one screen: 10 other facts, no timings: 8 shown, 'and 2 more'" \
	eval '[ "$(grep -Ec "^  fact_" "$t/out2")" -eq 8 ] && grep -q "^  and 2 more: --all lists them$" "$t/out2"'
# values cut to fit show where they part, not the same prefix twice
long="suite /etc/mmbench/suite -o /results/run --probe lru_add_drain --meta vm=qemu --meta vm_accel=tcg"
mkrun "$t/m/w" mb "command_line=$long --meta vm_kernel=bullseye --meta vm_entry=pvh --meta x=1"
mkrun "$t/m/x" mn "command_line=$long --meta vm_kernel=bookworm --meta vm_entry=pvh --meta x=1"
addrows "$t/m/w" thpscale "size_mb=64;threads=1" fault_both ns lower 1 2 3
addrows "$t/m/x" thpscale "size_mb=64;threads=1" fault_both ns lower 1 2 3
COLUMNS=80 "$MMCOMPARE" "$t/m/w" "$t/m/x" >"$t/out2" 2>&1
line=$(grep '^  command_line ' "$t/out2")
check "one screen: long values that differ late are cut around the difference (got '$line')" \
	eval 'grep -q "  \.\.\.[^ ]*kernel=bullseye" <<<"$line" && grep -q "  \.\.\.[^ ]*kernel=bookworm" <<<"$line" &&
	[ "${#line}" -le 80 ]'
check "one screen: only timings differ -> one line, no table" \
	grep -q "^Meta facts that differ: 7, only the VM lab's timings of each run (--all lists them)$" "$t/out"

# CSV: one row per line and side, every statistic; verdicts.
"$MMCOMPARE" --csv --iterations-as-samples "$t/base/run1" "$t/new/run1" >"$t/c.csv" 2>/dev/null
check "csv header" grep -q '^workload,case,metric,name,unit,better,side,label,n,mean_type,mean,amean,stddev,cov_pct,min,median,max,mean_ci_low,mean_ci_high,change_pct,diff,diff_ci_low,diff_ci_high,ci_level,t,df,p_value,significant,verdict,role,timed,emulated,exact,p_adjusted,correction,judged,abs_change,claim,min_detectable,runs,decided_by,variance_base,variance_new,mdc_pct,mdc_level,cov_runs_pct,cov_within_pct$' "$t/c.csv"
check "csv: 6 lines x 2 sides + header" [ "$(wc -l <"$t/c.csv")" -eq 13 ]
check "csv: improved latency row (one run a side: decided by the iterations, its MDC)" grep -q '^thpscale,size_mb=64;threads=1,fault_both,fault_both-1,ns,lower,1,new,5,Amean,1112.2,.*,1,better,context,1,0,0,[0-9.e-]*,Benjamini-Hochberg,1,-19,,[0-9.e-]*,1,iterations,iterations,iterations,[0-9.e-]*,[0-9.e-]*,,[0-9.e-]*$' "$t/c.csv"
check "csv: info verdict" grep -q ',compact_stall,.*,1,new,.*,0,info,context,0,0,0,,Benjamini-Hochberg,0,' "$t/c.csv"
check "csv: missing side row" grep -q ',only_base,.*,1,new,0,.*,missing,context,1,0,0,,Benjamini-Hochberg,0,,,,0,,,,,,,$' "$t/c.csv"
"$MMCOMPARE" --csv "$t/base/run1" "$t/new/run1" >"$t/c1.csv" 2>/dev/null
check "csv: one run per side: a time's verdict is one_run, not judged, no p and no MDC" \
	grep -q '^thpscale,size_mb=64;threads=1,fault_both,fault_both-1,ns,lower,1,new,5,Amean,1112.2,.*,0.95,,,,0,one_run,context,1,0,0,,Benjamini-Hochberg,0,-19,,,1,,,,,,,[0-9.e-]*$' "$t/c1.csv"

# Markdown.
"$MMCOMPARE" --markdown --iterations-as-samples "$t/base/run1" "$t/new/run1" >"$t/m.md" 2>/dev/null
check "markdown: meta table, workload marker, bold significant change" \
	eval 'grep -q "^| fact | base | new | changes the answer |" "$t/m.md" &&
	grep -q "^<!-- mmcompare:workload thpscale -->" "$t/m.md" &&
	grep -q "| fault_both-1 | Amean | ns | lower | .* | \*\*+1.68%\*\* |" "$t/m.md"'

# 0,0,0 vs 100,100,100: certain, significant, and no NaN printed anywhere.
mkrun "$t/z0/r" z0
mkrun "$t/z1/r" z1
addrows "$t/z0/r" w "" stall count lower 0 0 0
addrows "$t/z1/r" w "" stall count lower 100 100 100
addrows "$t/z0/r" w "" same count lower 7 7 7
addrows "$t/z1/r" w "" same count lower 7 7 7
all=$("$MMCOMPARE" --all "$t/z0/r" "$t/z1/r"; "$MMCOMPARE" --csv "$t/z0/r" "$t/z1/r"
	"$MMCOMPARE" --markdown "$t/z0/r" "$t/z1/r")
check "zero variance, different means: significant" \
	grep -Eq '^Amean +stall +0\.00 \(   0\.00%\) +100\.00 \* +n/a \*' <<<"$all"
check "zero variance, same means: not significant, p = 1" \
	eval 'grep -Eq "^Amean +same +7.00 \(   0.00%\) +7.00 \(   0.00%\)  exact$" <<<"$all" &&
	grep -Eq "^Pvalue +same +- +1.0000$" <<<"$all"'
check "no nan or inf in any output format" eval '! grep -Eiwq "[-+]?(nan|inf|infinity)" <<<"$all"'

# Case outcomes: a failed case and a skipped one on BASE (cases.csv), a
# case that never ended on NEW (started.csv has one row more than
# cases.csv): listed in the text and markdown, skips counted per side.
mkrun "$t/co/base" base
mkrun "$t/co/new" new
addrows "$t/co/base" w "x=1" m ns lower 1 2 3
addrows "$t/co/new" w "x=1" m ns lower 1 2 3
ch="schema,run_id,label,kernel,workload,case,status,reason,signal,duration_s"
sh="schema,run_id,label,kernel,workload,case,start_time"
printf '%s\n1,base,base,k,w,x=1,pass,,0,1.0\n1,base,base,k,w,x=2,fail,"killed by signal 9 (Killed); OOM kill?",9,2.0\n1,base,base,k,v,y=1,skip,needs two NUMA nodes,0,0.1\n' \
	"$ch" >"$t/co/base/cases.csv"
# NEW's directory was used again after the crash (mmbench -o appends):
# x=3 started and ended later; only x=2 never ended.
printf '%s\n1,new,new,k,w,x=1,pass,,0,1.0\n1,new,new,k,w,x=3,pass,,0,1.0\n' "$ch" \
	>"$t/co/new/cases.csv"
printf '%s\n1,new,new,k,w,x=1,2025-01-01T00:00:00Z\n1,new,new,k,w,x=2,2025-01-01T00:00:09Z\n1,new,new,k,w,x=3,2025-01-02T00:00:00Z\n' \
	"$sh" >"$t/co/new/started.csv"
out=$("$MMCOMPARE" --all "$t/co/base" "$t/co/new" 2>&1)
check "cases: the text lists a failed case with its reason" \
	grep -Eq '^  base +fail +w \[x=2\]: killed by signal 9 \(Killed\); OOM kill\?$' <<<"$out"
check "cases: the text lists the case NEW died in, and only that one" \
	eval 'grep -Eq "^  new +died +w \[x=2\]: started 2025-01-01T00:00:09Z and never ended" <<<"$out" &&
	[ "$(grep -Ec "^  [a-z]+ +died " <<<"$out")" = 1 ]'
check "cases: the summary line counts them" \
	eval 'tr -s "\n " "  " <<<"$out" | grep -q "Verdict: .*; 2 case(s) failed, timed out or died (listed above)\. $"'
check "cases: skips are counted per side" \
	grep -Eq '^  skipped: base 1 \(the reasons are in each run.s cases.csv\)$' <<<"$out"
md=$("$MMCOMPARE" --markdown "$t/co/base" "$t/co/new" 2>&1)
check "cases: the markdown table has the died case" \
	grep -Fq '| new | **died** | w | x=2 | started 2025-01-01T00:00:09Z and never ended' <<<"$md"
"$MMCOMPARE" --fail-on-regression "$t/co/base" "$t/co/new" >/dev/null 2>"$t/err"
rc=$?
check "cases: --fail-on-regression: a case that fails on BASE too is no regression (exit $rc)" \
	test $rc -eq 0
mkrun "$t/co/new2" new
addrows "$t/co/new2" w "x=1" m ns lower 1 2 3
printf '%s\n1,new,new,k,w,x=1,2025-01-01T00:00:00Z\n' "$sh" >"$t/co/new2/started.csv"
"$MMCOMPARE" --fail-on-regression "$t/co/base" "$t/co/new2" >/dev/null 2>"$t/err"
rc=$?
check "cases: --fail-on-regression: a case that died on NEW only exits 3 (got $rc)" \
	eval '[ $rc -eq 3 ] && grep -q "^mmcompare: new: died w \[x=1\]: started" "$t/err"'
out=$("$MMCOMPARE" --all "$t/base/run1" "$t/new/run1" 2>&1)
check "cases: no section when every case passed or no cases.csv exists" \
	eval '! grep -q "Cases that did not pass" <<<"$out"'

# Usage errors.
"$MMCOMPARE" "$t/base/run1" >/dev/null 2>&1
check "one argument: exit 2" [ $? -eq 2 ]
"$MMCOMPARE" --alpha 2 "$t/base/run1" "$t/new/run1" >/dev/null 2>&1
check "--alpha out of range: exit 2" [ $? -eq 2 ]
# --alpha reads decimals only, as the result files' numbers (issue 29)
for a in 0x1p-4 ' 0.05' '0.05 ' inf nan 0x.1 1e-400 '' 5e-2x; do
	"$MMCOMPARE" --alpha "$a" "$t/base/run1" "$t/new/run1" >/dev/null 2>"$t/err"
	rc=$?
	check "--alpha '$a': not a decimal in (0, 1), exit 2 with the value named (rc $rc)" \
		eval '[ $rc -eq 2 ] && grep -Fq -- "--alpha '"'$a'"': want a decimal number between 0 and 1" "$t/err"'
done
"$MMCOMPARE" --alpha 5e-2 "$t/base/run1" "$t/new/run1" >/dev/null 2>&1
check "--alpha 5e-2: a decimal with an exponent is taken" [ $? -eq 0 ]
"$MMCOMPARE" "$t/nonexistent" "$t/new/run1" >/dev/null 2>"$t/err"
rc=$?
check "missing input named in the error" eval '[ $rc -eq 2 ] && grep -q "nonexistent" "$t/err"'
finish
