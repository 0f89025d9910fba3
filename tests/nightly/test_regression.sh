#!/usr/bin/env bash
# The nightly's verdicts on synthetic result sets generated here. Lines of
# exact evidence (a count without a spread) are judged against the
# baseline and the previous run as they always were: a worse count exits 3,
# is named in the summary, history.csv and the ledger, and a recovered
# night resolves it. Lines with a spread are judged by their history only:
# one bad night is no change point, so it is no alert and no "worse" line.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
export MMBENCH=$FAKE

# fake_lines plus a count without a spread (exact evidence): $2, default 100.
lines() { fake_lines "${1:-0}"; echo "pageout instances=1 pgmajfault count lower ${2:-100} 0"; }
synth() { # ROOT LABEL STAMP SEED
	local l args=()
	while IFS= read -r l; do args+=(--line "$l"); done < <(lines 0)
	"$MMSYNTH" -o "$1/$2/$3-$HOST" --label "$2" --host "$HOST" --kernel 6.1.0-base \
		--stamp "$3" --seed "$4" -i 5 "${args[@]}"
}
for i in 1 2 3; do
	synth "$d/res" base "2026110$i-020000" "$i" >/dev/null || fail synth "mmsynth failed"
done
# Another host's run of the baseline label, 30% slower: hosts are kept
# apart, so it must not enter this host's baseline.
"$MMSYNTH" -o "$d/res/base/20261104-020000-otherhost" --label base --host otherhost \
	--kernel 6.1.0-base --stamp 20261104-020000 --seed 4 -i 5 \
	--line "pageout instances=2 loops_per_s loops/s higher 126 1" >/dev/null
# A run of the baseline label that the history records as failed (killed
# half-way), with other counts: it must not enter the baseline either.
synth_run "$d/res" base 20261105-020000 5 30 >/dev/null || fail synth "mmsynth failed"
"$MMHISTORY" append "$d/res/history.csv" date=2026-11-05T02:00:00Z "host=$HOST" label=base \
	kernel=6.1.0-base "run_dir=base/20261105-020000-$HOST" status=failed duration_s=9 \
	"reason=killed by SIGTERM during the suite" || fail "setup: the failed run's history row"
write_conf "$d" <<'EOF'
baseline = base
alpha = 0.01
min_change_pct = 3
trends = no
compare_plots = no
on_regression = { echo "exit=$NIGHTLY_EXIT"; cat; } >>notified.txt
EOF

night() { # LOSS COUNT SEED
	FAKE_LINES=$(lines "$1" "$2") FAKE_SEED=$3 FAKE_KERNEL=6.1.0-$3 \
		"$NIGHTLY" "$d/n.conf" >"$d/out" 2>"$d/err"
}

night 0 100 11
rc=$?
check "clean night exits 0 (got $rc)" test "$rc" -eq 0
check "clean night: summary says ok" grep -q "^mmbench nightly on $HOST: ok" "$d/out"
check "clean night: judged against 3 baseline runs (not the failed one)" \
	grep -q "vs baseline (label base, 3 run(s) of $HOST): 0 significantly worse, 0 significantly better, 1 same (exact evidence); 3 with a spread (judged by their history)" "$d/out"
check "clean night: on_regression not run" test ! -e "$d/notified.txt"

# 10% less of a rate with a 1% spread: Welch's test on the iterations
# calls that significant, but one night is no change in the history.
night 10 100 12
rc=$?
check "a timed metric 10% worse for one night: exit 0 (got $rc)" test "$rc" -eq 0
check "... no WORSE line" test -z "$(grep -E '^  (WORSE|better) ' "$d/out")"
row=$("$MMHISTORY" select "$d/res/history.csv" --last 1 --fields status,worse_vs_baseline,worse_vs_previous)
check "... history row ok, 0 worse vs baseline and previous ($row)" test "$row" = "$(printf 'ok\t0\t0')"
check "... the history says why: one night is not a change" \
	grep -q "^history of $HOST: 2 run(s) over 2 night(s)" "$d/out"

# A count of 120 where every run counted 100: exact evidence, as before.
night 0 120 13
rc=$?
check "an exact count worse: exits 3 (got $rc)" test "$rc" -eq 3
check "... summary says REGRESSION" grep -q "^mmbench nightly on $HOST: REGRESSION" "$d/out"
check "... names the count against the baseline and the previous run" \
	test "$(grep -c '^  WORSE  pageout pgmajfault \[instances=1\]: -20.00% (Amean 100 -> 120 count, p=0)' "$d/out")" -eq 2
check "... and nothing else" test "$(grep -c '^  WORSE ' "$d/out")" -eq 2
check "... the ledger says since when" \
	grep -q "pageout pgmajfault \[instances=1\]: worse than base since" "$d/out"
row=$("$MMHISTORY" select "$d/res/history.csv" --last 1 --fields status,kernel,worse_vs_baseline,worse_vs_previous)
check "... history row ok, kernel, worse 1 vs baseline and previous ($row)" \
	test "$row" = "$(printf 'ok\t6.1.0-13\t1\t1')"
check "... on_regression got the summary" \
	grep -q "^mmbench nightly on $HOST: REGRESSION" "$d/notified.txt"
check "... on_regression saw NIGHTLY_EXIT=3" grep -qx "exit=3" "$d/notified.txt"
open=$("$MMHISTORY" ledger-open "$d/res/regressions.csv" --host "$HOST")
check "... the ledger holds one open regression" test "$(grep -c . <<<"$open")" -eq 1
run=$(sed -n "s|^run: ok; results ||p" "$d/out")
check "... report, comparisons and the history's changes written" \
	test -s "$run/nightly/report.md" -a -s "$run/nightly/vs-baseline/compare.csv" -a \
	-s "$run/nightly/vs-previous/compare.csv" -a -s "$run/nightly/changes.csv"

night 0 100 14
rc=$?
check "recovered night exits 0 (got $rc)" test "$rc" -eq 0
check "recovered night: better than the previous run" \
	grep -q "vs previous run .*: 0 significantly worse, 1 significantly better" "$d/out"
open=$("$MMHISTORY" ledger-open "$d/res/regressions.csv" --host "$HOST")
check "recovered night: the regression is resolved" test -z "$open"
check "history.csv valid with 5 rows" grep -q "valid, 5 rows" <("$MMHISTORY" check "$d/res/history.csv")

# A night whose run lacks a judged metric (loop_time) that the baseline
# and the previous run measured: nothing says it is not worse, so the
# night could not be judged (exit 1), naming the metric. An info metric
# (pages_out) missing too is not judged either way.
FAKE_LINES=$(lines 0 | grep -v -e loop_time -e pages_out) FAKE_SEED=15 \
	"$NIGHTLY" "$d/n.conf" >"$d/out" 2>"$d/err"
rc=$?
check "a judged metric missing: exit 1 (got $rc)" test "$rc" -eq 1
check "a judged metric missing: summary says FAILED" grep -q "^mmbench nightly on $HOST: FAILED" "$d/out"
check "a judged metric missing: the baseline line counts it" \
	grep -q "^vs baseline (label base, 3 run(s) of $HOST): .*; 1 judged missing from NEW$" "$d/out"
check "a judged metric missing: it is named, the info metric is not" \
	test "$(grep -c '^  MISSING ' "$d/out")" -eq 2 -a -n "$(grep '^  MISSING pageout loop_time \[instances=1\]: ' "$d/out")" \
	-a -z "$(grep 'MISSING.*pages_out' "$d/out")"
row=$("$MMHISTORY" select "$d/res/history.csv" --last 1 --fields status,reason)
check "a judged metric missing: the history names it ($row)" \
	grep -q "^ok	1 judged metric(s) of the baseline missing from this run: pageout loop_time \[instances=1\]; 1 judged metric(s) of the previous run missing" <<<"$row"
sed -i 's/^on_regression = .*/judge = loops_per_s/' "$d/n.conf"
FAKE_LINES=$(lines 0 | grep -v loop_time) FAKE_SEED=16 "$NIGHTLY" "$d/n.conf" >"$d/out" 2>"$d/err"
rc=$?
check "a missing metric outside 'judge' is not judged: exit 0 (got $rc)" test "$rc" -eq 0

# The digest's policy on the comparison of the worse count (digest without
# --exact-only judges every line, as mmcompare does).
cmp=$(ls -d "$d"/res/*/*/nightly/vs-baseline | sed -n 3p)/compare.csv
"$MMHISTORY" digest "$cmp" >/dev/null
rc=$?
check "digest: the worse count is judged worse (exit $rc)" test "$rc" -eq 3
"$MMHISTORY" digest --judge loop_time "$cmp" >/dev/null
rc=$?
check "a regression outside the 'judge' patterns is not judged (digest exit $rc)" test "$rc" -eq 0
"$MMHISTORY" digest --min-change 25 "$cmp" >/dev/null
rc=$?
check "a regression under min_change_pct is not judged (digest exit $rc)" test "$rc" -eq 0
finish
