#!/usr/bin/env bash
# The nightly's verdicts on synthetic result sets generated here: a clean
# night exits 0, a night with an injected regression exits 3 and names the
# metric (in the summary, history.csv and the regressions ledger), and a
# recovered night resolves the regression.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
export MMBENCH=$FAKE

for i in 1 2 3; do
	synth_run "$d/res" base "2026110$i-020000" "$i" >/dev/null || fail synth "mmsynth failed"
done
# Another host's run of the baseline label, 30% slower: hosts are kept
# apart, so it must not enter this host's baseline.
"$MMSYNTH" -o "$d/res/base/20261104-020000-otherhost" --label base --host otherhost \
	--kernel 6.1.0-base --stamp 20261104-020000 --seed 4 -i 5 \
	--line "pageout instances=2 loops_per_s loops/s higher 126 1" >/dev/null
# A run of the baseline label that the history records as failed (killed
# half-way), 30% slower: it must not enter the baseline either.
synth_run "$d/res" base 20261105-020000 5 30 >/dev/null || fail synth "mmsynth failed"
"$MMHISTORY" append "$d/res/history.csv" date=2026-11-05T02:00:00Z "host=$HOST" label=base \
	kernel=6.1.0-base "run_dir=base/20261105-020000-$HOST" status=failed duration_s=9 \
	"reason=killed by SIGTERM during the suite" || fail "setup: the failed run's history row"
# alpha 0.01 and a 3% minimum change: with 1% spread and n = 5 a chance
# "regression" of 3% is a 4.7-sigma event; the seeds are fixed anyway.
write_conf "$d" <<'EOF'
baseline = base
alpha = 0.01
min_change_pct = 3
trends = no
compare_plots = no
on_regression = { echo "exit=$NIGHTLY_EXIT"; cat; } >>notified.txt
EOF

night() { # LOSS SEED
	FAKE_LINES=$(fake_lines "$1") FAKE_SEED=$2 FAKE_KERNEL=6.1.0-$2 \
		"$NIGHTLY" "$d/n.conf" >"$d/out" 2>"$d/err"
}

night 0 11
rc=$?
check "clean night exits 0 (got $rc)" test "$rc" -eq 0
check "clean night: summary says ok" grep -q "^mmbench nightly on $HOST: ok" "$d/out"
check "clean night: judged against 3 baseline runs (not the failed one)" grep -q "vs baseline (label base, 3 run(s) of $HOST): 0 significantly worse" "$d/out"
check "clean night: on_regression not run" test ! -e "$d/notified.txt"

night 10 12
rc=$?
check "regression night exits 3 (got $rc)" test "$rc" -eq 3
check "regression night: summary says REGRESSION" grep -q "^mmbench nightly on $HOST: REGRESSION" "$d/out"
if grep -Eq "WORSE  pageout loops_per_s \[instances=2\]: -(9|10)\.[0-9]+%" "$d/out"; then
	pass "regression night: summary names pageout loops_per_s [instances=2], about -10%"
else
	fail "regression night: summary names the metric" "$(grep -i worse "$d/out" | head -3)"
fi
check "regression night: no other line judged worse" test "$(grep -c '  WORSE ' "$d/out")" -eq 2
check "regression night: ledger says since when" grep -q "pageout loops_per_s \[instances=2\]: worse than base since" "$d/out"
row=$("$MMHISTORY" select "$d/res/history.csv" --last 1 --fields status,kernel,worse_vs_baseline,worse_vs_previous)
check "regression night: history row ok, kernel, worse 1 vs baseline and previous ($row)" \
	test "$row" = "$(printf 'ok\t6.1.0-12\t1\t1')"
check "regression night: on_regression got the summary" \
	grep -q "^mmbench nightly on $HOST: REGRESSION" "$d/notified.txt"
check "regression night: on_regression saw NIGHTLY_EXIT=3" grep -qx "exit=3" "$d/notified.txt"
open=$("$MMHISTORY" ledger-open "$d/res/regressions.csv" --host "$HOST")
check "regression night: ledger holds one open regression" test "$(grep -c . <<<"$open")" -eq 1
run=$(sed -n "s|^run: ok; results ||p" "$d/out")
check "regression night: report and comparisons written" \
	test -s "$run/nightly/report.md" -a -s "$run/nightly/vs-baseline/compare.csv" -a \
	-s "$run/nightly/vs-previous/compare.csv"

night 0 13
rc=$?
check "recovered night exits 0 (got $rc)" test "$rc" -eq 0
check "recovered night: better than the previous run" \
	grep -q "vs previous run .*: 0 significantly worse, 1 significantly better" "$d/out"
open=$("$MMHISTORY" ledger-open "$d/res/regressions.csv" --host "$HOST")
check "recovered night: the regression is resolved" test -z "$open"
check "history.csv valid with 4 rows" grep -q "valid, 4 rows" <("$MMHISTORY" check "$d/res/history.csv")

# A night whose run lacks a judged metric (loop_time) that the baseline
# and the previous run measured: nothing says it is not worse, so the
# night could not be judged (exit 1), naming the metric. An info metric
# (pages_out) missing too is not judged either way.
FAKE_LINES=$(fake_lines 0 | grep -v -e loop_time -e pages_out) FAKE_SEED=14 \
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
FAKE_LINES=$(fake_lines 0 | grep -v loop_time) FAKE_SEED=15 "$NIGHTLY" "$d/n.conf" >"$d/out" 2>"$d/err"
rc=$?
check "a missing metric outside 'judge' is not judged: exit 0 (got $rc)" test "$rc" -eq 0

# The same comparison under a policy judging only other metrics: not worse.
"$MMHISTORY" digest --judge loop_time "$run/nightly/vs-baseline/compare.csv" >/dev/null
rc=$?
check "a regression outside the 'judge' patterns is not judged (digest exit $rc)" test "$rc" -eq 0
"$MMHISTORY" digest --min-change 15 "$run/nightly/vs-baseline/compare.csv" >/dev/null
rc=$?
check "a regression under min_change_pct is not judged (digest exit $rc)" test "$rc" -eq 0
finish
