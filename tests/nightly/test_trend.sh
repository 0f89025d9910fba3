#!/usr/bin/env bash
# mmtrend over a synthetic history (two hosts, two cases, regressions
# injected at known nights): gnuplot draws one chart per judged metric with
# a line per host and case and the kernels on the x axis; report.md lists
# the metrics whose latest value is significantly worse, newest first.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
MMTREND=$TOP/tools/mmtrend/mmtrend-san
[ -x "$MMTREND" ] || MMTREND=$TOP/tools/mmtrend/mmtrend
r=$d/res

# night HOST DAY LABEL LOSS_RATE LOSS_TIME: loops_per_s of instances=2
# loses LOSS_RATE %, loop_time of instances=1 grows by LOSS_TIME %.
night() {
	local h=$1 day=$2 label=$3 s=2026110$2-020000
	"$MMSYNTH" -o "$r/$label/$s-$h" --label "$label" --host "$h" --kernel "6.1.0-$day" \
		--stamp "$s" --seed "$day${#h}$((${#label} + 7))" -i 5 \
		--line "pageout instances=1 loops_per_s loops/s higher 100 1" \
		--line "pageout instances=2 loops_per_s loops/s higher $((180 - 180 * $4 / 100)) 1.8" \
		--line "pageout instances=1 loop_time ns lower $((5000 + 50 * $5)) 50" \
		--line "pageout instances=2 loop_time ns lower 9000 90" \
		--line "pageout instances=1 pages_out count info 1000 10" >/dev/null &&
	"$MMHISTORY" append "$r/history.csv" "date=2026-11-0${day}T02:00:00Z" "host=$h" \
		"label=$label" "kernel=6.1.0-$day" "run_dir=$label/$s-$h" status=ok duration_s=60 ||
		fail "night $h $day"
}
for h in hosta hostb; do
	night "$h" 1 base 0 0
	night "$h" 2 base 0 0
	night "$h" 3 nightly 0 0
	night "$h" 4 nightly 0 0
done
night hosta 5 nightly 10 0; night hostb 5 nightly 0 0
night hosta 6 nightly 10 0; night hostb 6 nightly 0 0
night hosta 7 nightly 10 10; night hostb 7 nightly 0 0
night hosta 8 nightly 10 10; night hostb 8 nightly 0 0

"$MMTREND" "$r" --baseline base --min-change 3 >"$d/out" 2>&1
rc=$?
check "mmtrend exits 3: a latest value is significantly worse (got $rc)" test "$rc" -eq 3
o=$r/trends
for m in loops_per_s loop_time; do
	f=$o/pageout-$m.svg
	check "chart of $m exists" test -s "$f"
	check "chart of $m was written by gnuplot" grep -q '<desc>Produced by GNUPLOT' "$f"
	check "chart of $m has its gnuplot script and data" test -s "$o/pageout-$m.gp" -a -s "$o/pageout-$m.dat"
	for s in "hosta instances=1" "hosta instances=2" "hostb instances=1" "hostb instances=2"; do
		check "chart of $m has a line for $s" grep -q ">$s<" "$f"
	done
	check "chart of $m labels the x axis with kernel releases" grep -q '>6.1.0-8 2026-11-08 02:00<' "$f"
done
check "chart of loops_per_s marks runs worse than the baseline" \
	grep -q '>significantly worse than the baseline<' "$o/pageout-loops_per_s.svg"
check "no chart of the info metric pages_out" test ! -e "$o/pageout-pages_out.svg"

rep=$o/report.md
rows=$(grep '^| 2026' "$rep")
check "report lists 2 regressed metrics" test "$(grep -c . <<<"$rows")" -eq 2
check "newest first: loop_time (since night 7) before loops_per_s (since night 5)" \
	grep -q "^| 2026-11-07T02:00:00Z | hosta | pageout | loop_time | instances=1 |" <(sed -n 1p <<<"$rows")
check "then loops_per_s instances=2 since night 5, last good night 4" \
	grep -q "^| 2026-11-05T02:00:00Z | hosta | pageout | loops_per_s | instances=2 | \`nightly/20261105-020000-hosta\` (6.1.0-5) | \`nightly/20261104-020000-hosta\` (6.1.0-4) |" <(sed -n 2p <<<"$rows")
check "hostb is not listed" test -z "$(grep hostb <<<"$rows")"
n=$(grep -c '^hosta,pageout,instances=2,loops_per_s,.*,worse,' "$o/trend.csv")
check "trend.csv marks the 4 regressed runs of hosta worse ($n)" test "$n" -eq 4

"$MMTREND" "$r" --baseline base --min-change 3 --host hostb -o "$d/b" >"$d/out" 2>&1
rc=$?
check "hostb alone: exit 0 (got $rc)" test "$rc" -eq 0
check "hostb alone: report says none" grep -q "^None: no metric's latest value" "$d/b/report.md"
check "hostb alone: no hosta line" test -z "$(grep -l '>hosta ' "$d"/b/*.svg)"

"$MMTREND" "$r" --baseline base --min-change 3 --pool-hosts -o "$d/p" >"$d/out" 2>&1
check "pooled hosts: one line per case" grep -q '>all-hosts instances=2<' "$d/p/pageout-loops_per_s.svg"

# The nightly's way: only lines of exact evidence are judged against the
# baseline (these lines all have a spread: their history judges them).
"$MMTREND" "$r" --baseline base --min-change 3 --exact-only -o "$d/e" >"$d/out" 2>&1
rc=$?
check "--exact-only: nothing with a spread is judged worse (exit $rc)" test "$rc" -eq 0
check "--exact-only: the report says so" grep -q "Only lines of exact evidence" "$d/e/report.md"
check "--exact-only: trend.csv marks no run worse" test -z "$(grep ',worse,' "$d/e/trend.csv")"

PATH=/nonexistent "$MMTREND" "$r" --baseline base -o "$d/nognuplot" >"$d/out" 2>&1
rc=$?
check "without gnuplot: exit 1 (got $rc), no chart claimed" test "$rc" -eq 1 -a ! -e "$d/nognuplot/pageout-loops_per_s.svg"
check "without gnuplot: the report says so" grep -q "^Charts missing: gnuplot" "$d/nognuplot/report.md"

printf 'bad\n' >"$d/h.csv"
"$MMTREND" "$r" --history "$d/h.csv" -o "$d/x" >"$d/out" 2>&1
rc=$?
check "a malformed history: exit 2 (got $rc)" test "$rc" -eq 2
check "a malformed history: the message names the file and line" \
	grep -q "h.csv:1: header: column 1 is 'bad', expected 'schema'" "$d/out"
for v in +3 0x1 ' 3' inf; do
	"$MMTREND" "$r" --baseline base --min-change "$v" -o "$d/bad" >/dev/null 2>"$d/err"
	check "--min-change '$v': exit 2 (decimal numbers only)" \
		test $? -eq 2 -a -n "$(grep -- "--min-change '$v'" "$d/err")"
done
finish
