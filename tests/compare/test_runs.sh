#!/usr/bin/env bash
# The run as the unit (issue 27): mmcompare judges a time by the spread
# between runs, not between the iterations of one run, which share the
# machine's state. Synthetic runs with the noise measured on this machine
# (pageout loops_per_s: the runs' means 12.3-15.4 loops/s, 11.4% CoV
# between runs, about 2% within one):
#  - an A/A (3 runs a side from that series, tight iterations) is not
#    significant, while --iterations-as-samples calls it significant (the
#    old flaw, with its warning);
#  - a real step of 20% with that noise, 5 runs a side, is significant;
#  - one run per side: the time is not judged ("not judged (1 run)"), the
#    counts are judged as before (exact; iterations);
#  - 3 runs against 1: the side of one run takes the other's spread;
#  - each judged line says what decided (variance column, CSV decided_by)
#    and its minimum detectable change (mdc, mdc_pct at mdc_level).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/gen.sh"
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
MMC=${MMC:-$TOP/tests/compare/mmcompare.asan}
[ -x "$MMC" ] || MMC=$MMCOMPARE
if [ ! -x "$MMC" ]; then
	fail "mmcompare built" "$MMC missing"
	finish
fi

# addmetrics DIR: pageout's loops_per_s is evidence and timed (metrics.csv)
addmetrics() {
	printf '%s\n%s\n' "schema,workload,metric,unit,better,role,timed,claim" \
		"1,pageout,loops_per_s,loops/s,higher,evidence,1,loops per second" >"$1/metrics.csv"
}

# side DIR LABEL MEAN...: one run per MEAN under DIR/LABEL-rN (the name is
# its run_id), each with three iterations at MEAN x (0.98, 1, 1.02) of
# loops_per_s (2% within a run), a count exact on every iteration (calls,
# 1 per loop on every kernel) and a count with a spread (faults).
side() {
	local dir=$1 label=$2 m r=0 d
	shift 2
	for m; do
		r=$((r + 1))
		d=$dir/$label-r$r
		mkrun "$d" "$label"
		addmetrics "$d"
		addrows "$d" pageout "instances=1" loops_per_s loops/s higher \
			$(awk -v m="$m" 'BEGIN { printf "%.4f %.4f %.4f", m * 0.98, m, m * 1.02 }')
		addrows "$d" pageout "instances=1" calls_per_loop:f calls lower 1 1 1
		addrows "$d" pageout "instances=1" faults count lower 100 102 98
	done
}
csvcol() {	# csvcol FILE METRIC SIDE COLUMN: a column of a compare.csv row, by name
	awk -F, -v m="$2" -v s="$3" -v c="$4" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$3 == m && $7 == s { print $col[c]; exit }' "$1"
}

# ---- A/A: the same machine, the same kernel; the runs landed in its two
# states (low 12.3-12.6, high 15.2-15.4 loops/s) unevenly
side "$t/aa/base" base 12.3 12.4 12.6
side "$t/aa/new" new 15.4 15.2 12.4
out=$(COLUMNS=120 "$MMC" "$t/aa/base" "$t/aa/new" 2>"$t/err")
rc=$?
line=$(grep -E '^ +loops_per_s ' <<<"$out")
check "A/A, 3 runs a side: exit 0, loops_per_s not significant, decided by the runs (got '$line')" \
	eval '[ $rc -eq 0 ] && grep -Eq "^ +loops_per_s +.* +same, mdc [0-9.]+% +runs 3/3 " <<<"$line"'
check "A/A: the method says the variance is between runs, with the runs per side" \
	eval 'tr -s "\n " "  " <<<"$out" | grep -q "Judged: Welch.s t-test, the run as the unit (runs 3 and 3); false discovery rate"'
check "A/A: the intro counts the runs of each side" grep -q '^mmcompare: BASE base (3 runs, 27 rows) vs NEW new (3 runs, 27 rows)' <<<"$out"
check "A/A: no warning without --iterations-as-samples" eval '! grep -q "iterations-as-samples" "$t/err"'
"$MMC" --csv "$t/aa/base" "$t/aa/new" >"$t/aa.csv" 2>/dev/null
check "A/A CSV: runs 3, decided_by runs, variance runs/runs, significant 0" \
	eval '[ "$(csvcol "$t/aa.csv" loops_per_s 1 runs)" = 3 ] && [ "$(csvcol "$t/aa.csv" loops_per_s 0 runs)" = 3 ] &&
	[ "$(csvcol "$t/aa.csv" loops_per_s 1 decided_by)" = runs ] &&
	[ "$(csvcol "$t/aa.csv" loops_per_s 1 variance_base)$(csvcol "$t/aa.csv" loops_per_s 1 variance_new)" = runsruns ] &&
	[ "$(csvcol "$t/aa.csv" loops_per_s 1 significant)" = 0 ]'
cb=$(csvcol "$t/aa.csv" loops_per_s 1 cov_runs_pct) cw=$(csvcol "$t/aa.csv" loops_per_s 1 cov_within_pct)
check "A/A CSV: the spread between runs (CoV $cb%) beside the spread within them ($cw%)" \
	awk "BEGIN { exit !($cb > 9 && $cb < 15 && $cw > 1.5 && $cw < 2.5) }"
mp=$(csvcol "$t/aa.csv" loops_per_s 1 mdc_pct) ml=$(csvcol "$t/aa.csv" loops_per_s 1 mdc_level)
check "A/A CSV: the MDC in % of the base ($mp%) is larger than the change it did not call, at level $ml" \
	awk "BEGIN { exit !($mp > 15 && $ml > 0 && $ml <= 0.05) }"
# the old way: every iteration a sample: the same data "significantly better"
out=$(COLUMNS=120 "$MMC" --iterations-as-samples "$t/aa/base" "$t/aa/new" 2>"$t/err")
line=$(grep -E '^ +loops_per_s ' <<<"$out")
check "A/A with --iterations-as-samples: significant (the flaw the runs fix), decided by iterations (got '$line')" \
	grep -Eq '^ +loops_per_s +.* +better +iters 3/3 ' <<<"$line"
check "--iterations-as-samples: a warning that iterations share the machine's state" \
	grep -q "^mmcompare: warning: --iterations-as-samples: .*share the machine's state" "$t/err"

# ---- a real step: 20% fewer loops on NEW, the same noise, 5 runs a side
side "$t/st/base" base 12.3 15.4 15.2 15.4 12.4
side "$t/st/new" new $(awk 'BEGIN { print 0.8 * 12.4, 0.8 * 12.6, 0.8 * 15.3, 0.8 * 15.2, 0.8 * 12.5 }')
out=$(COLUMNS=120 "$MMC" --fail-on-regression "$t/st/base" "$t/st/new" 2>"$t/err")
rc=$?
line=$(grep -E '^ +loops_per_s ' <<<"$out")
check "a 20% step, 5 runs a side: worse, decided by the runs; --fail-on-regression exits 3 (got '$line', rc $rc)" \
	eval '[ $rc -eq 3 ] && grep -Eq "^ +loops_per_s +.* +-2[0-9]\.[0-9]+% +worse +runs 5/5 " <<<"$line"'

# ---- one run per side: the time is not judged, the counts are
mkdir -p "$t/one/base" "$t/one/new"
cp -r "$t/aa/base/base-r1" "$t/one/base/"
cp -r "$t/aa/new/new-r1" "$t/one/new/"
out=$(COLUMNS=120 "$MMC" "$t/one/base" "$t/one/new" 2>"$t/err")
rc=$?
line=$(grep -E '^ +loops_per_s ' <<<"$out")
check "one run a side: loops_per_s (+25%) not judged (1 run) (got '$line')" \
	eval '[ $rc -eq 0 ] && grep -Eq "^ +loops_per_s +.* +\+2[0-9]\.[0-9]+% +not judged \(1 run\)$" <<<"$line"'
check "one run a side: the method says how to judge times" \
	eval 'tr -s "\n " "  " <<<"$out" | grep -q "Judged: Welch.s t-test, one run per side, so counts by their iterations and times not at all (a run.s iterations share the machine.s state: --runs N, or --iterations-as-samples)"'
check "one run a side: the summary counts the time not judged, the evidence among them" \
	eval 'tr -s "\n " "  " <<<"$out" | grep -q "; 1 times not judged (one run per side, evidence among them)"'
"$MMC" --all "$t/one/base" "$t/one/new" >"$t/all" 2>/dev/null
check "one run a side (--all): the note says why and how, in brackets" \
	grep -Eq '^Hmean +loops_per_s +.* \[ +2[0-9]\.[0-9]+%\]  one run per side: not judged \(--runs N, or --iterations-as-samples\)$' "$t/all"
"$MMC" --csv "$t/one/base" "$t/one/new" >"$t/one.csv" 2>/dev/null
check "one run a side: the exact count is judged as before (exact, p 0 or 1)" \
	eval '[ "$(csvcol "$t/one.csv" calls_per_loop:f 1 decided_by)" = exact ] &&
	[ "$(csvcol "$t/one.csv" calls_per_loop:f 1 verdict)" = same ] &&
	[ "$(csvcol "$t/one.csv" calls_per_loop:f 1 judged)" = 1 ]'
check "one run a side: a count with a spread is judged by its iterations, with its MDC" \
	eval '[ "$(csvcol "$t/one.csv" faults 1 decided_by)" = iterations ] &&
	[ -n "$(csvcol "$t/one.csv" faults 1 mdc_pct)" ] && [ "$(csvcol "$t/one.csv" faults 1 judged)" = 1 ]'
check "one run a side: the time's row says one_run, judged 0, no p, no MDC" \
	eval '[ "$(csvcol "$t/one.csv" loops_per_s 1 verdict)" = one_run ] &&
	[ "$(csvcol "$t/one.csv" loops_per_s 1 judged)" = 0 ] &&
	[ -z "$(csvcol "$t/one.csv" loops_per_s 1 p_value)$(csvcol "$t/one.csv" loops_per_s 1 mdc_pct)" ]'

# ---- 5 runs against 1: the one run borrows BASE's spread of runs (its
# own iterations' s^2/n is smaller), both terms one estimate: df 5 - 1
out=$(COLUMNS=120 "$MMC" "$t/st/base" "$t/one/new" 2>/dev/null)
line=$(grep -E '^ +loops_per_s ' <<<"$out")
check "5 runs vs 1: judged with BASE's spread of runs (runs 5/1), not significant (got '$line')" \
	grep -Eq '^ +loops_per_s +.* +same, mdc [0-9.]+% +runs 5/1 ' <<<"$line"
"$MMC" --csv "$t/st/base" "$t/one/new" >"$t/b.csv" 2>/dev/null
check "5 runs vs 1 CSV: variance_new borrowed, df 4 (BASE's runs, counted once)" \
	eval '[ "$(csvcol "$t/b.csv" loops_per_s 1 variance_new)" = borrowed ] &&
	awk "BEGIN { exit !($(csvcol "$t/b.csv" loops_per_s 1 df) == 4) }"'

# ---- the runs as separate arguments and as --per-arg sides
out=$("$MMC" --all "$t/aa/base/base-r1" "$t/aa/base/base-r2" "$t/aa/base/base-r3/results.csv" \
	"$t/aa/new" 2>/dev/null)
check "runs named one by one pool as the label directory does (Runs 3 3)" \
	grep -Eq '^Runs +loops_per_s +3 +3$' <<<"$out"
out=$("$MMC" --all --per-arg "$t/aa/base" "$t/aa/new/new-r1" 2>/dev/null)
check "--per-arg: a directory of runs is one side of 3 runs, a run one of 1" \
	grep -Eq '^Runs +loops_per_s +3 +1$' <<<"$out"

# ---- markdown: the runs and the MDC in the full table
"$MMC" --markdown "$t/aa/base" "$t/aa/new" >"$t/md" 2>/dev/null
check "markdown: a side's runs next to n, the mdc column, the note says runs" \
	eval 'grep -q "^| loops_per_s | Hmean | loops/s | higher | .*(n=9, 3 runs) | .* | [0-9.]*% | evidence; runs |$" "$t/md"'
finish
