#!/usr/bin/env bash
# --runs N (./run.sh, the VM lab) and precision on demand (--precision P,
# --max-iterations, --max-time; mmbench precision):
# - a bad --runs (0, 101, 1x, -1, ...) is refused, exit 2, naming the
#   value, before anything is built or run; so are the precision options'
#   bad values and limits without --precision;
# - ./run.sh --runs 2 makes two run directories under one label;
# - a case that cannot reach P stops at --max-iterations and says so; one
#   with nothing timed to judge (emulated times) stops at its minimum;
#   --max-time stops one and says so;
# - cases.csv's iterations agree with results.csv's rows;
# - with --runs and --precision, ./run.sh adds runs up to --max-runs.
# Outcomes are decided by --max-iterations and --max-runs, never by the
# clock (the --max-time check only asks that it stops and says so).
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
mm=$MMBENCH
echo "pageout -p instances=1 -p size_mb=16 -p duration_s=0.1 -i 2 -w 0" >"$t/tiny.suite"

# ---------------------------------------------------------------- refusals
# refused NAME WANT CMD...: exit 2, stderr matches WANT, nothing under $t/res.
refused() {
	local name=$1 want=$2 out rc
	shift 2
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	[ $rc = 2 ] && grep -qF -- "$want" <<<"$out" && [ ! -e "$t/res" ] &&
		pass "refused: $name" || fail "refused: $name" "rc=$rc out: $(tail -n2 <<<"$out")"
}
for v in 0 101 1x -1 010 '' ' 2' 2.0; do
	refused "run.sh --runs '$v'" "--runs: '$v' is not a number from 1 to 100" \
		"$TOP/run.sh" --suite "$t/tiny.suite" --out "$t/res" --runs "$v"
done
refused "run.sh --runs=0" "--runs: '0'" "$TOP/run.sh" --suite "$t/tiny.suite" --out "$t/res" --runs=0
refused "lab --runs 101" "--runs: '101' is not a number from 1 to 100" \
	"$TOP/tools/vm/lab" --vm bookworm --vm trixie --runs 101 --out "$t/res"
refused "run.sh --vm --runs x" "--runs: 'x'" \
	"$TOP/run.sh" --vm bookworm --runs x --out "$t/res"
refused "--max-runs without --precision" "--max-runs limits --precision P" \
	"$TOP/run.sh" --suite "$t/tiny.suite" --out "$t/res" --runs 2 --max-runs 3
refused "--max-runs below --runs" "--max-runs 2 is below --runs 3" \
	"$TOP/run.sh" --suite "$t/tiny.suite" --out "$t/res" --runs 3 --precision 3 --max-runs 2
for v in 0 101 abc -3 1e3 0x10 '' 3%; do
	refused "run.sh --precision '$v'" "--precision: '$v' is not a percentage" \
		"$TOP/run.sh" --suite "$t/tiny.suite" --out "$t/res" --precision "$v"
	refused "mmbench --precision '$v'" "--precision: '$v' is not a percentage" \
		"$mm" run pageout --precision "$v" --root "$t/res"
done
refused "run.sh --max-iterations without --precision" "--max-iterations limits --precision P" \
	"$TOP/run.sh" --suite "$t/tiny.suite" --out "$t/res" --max-iterations 5
refused "mmbench --max-iterations without --precision" "--max-iterations limits --precision P" \
	"$mm" run pageout --max-iterations 5 --root "$t/res"
refused "mmbench --max-time without --precision" "--max-time limits --precision P" \
	"$mm" suite "$t/tiny.suite" --max-time 5 --root "$t/res"
refused "mmbench --max-time at --timeout" "--max-time 60 is not below --timeout 60" \
	"$mm" run pageout --precision 3 --max-time 60 --timeout 60 --root "$t/res"
refused "mmbench -i above --max-iterations" "--iterations 5 (the minimum) is above --max-iterations 3" \
	"$mm" run pageout --precision 3 -i 5 --max-iterations 3 --root "$t/res"
refused "mmbench precision: no run directory" "usage: mmbench precision" "$mm" precision
refused "mmbench precision: not a directory" "'$t/nope' is not a run directory" \
	"$mm" precision "$t/nope"

out=$("$TOP/tools/vm/lab" --vm bookworm --vm trixie --runs 2 --precision 3 --dry-run 2>&1)
[ $? = 0 ] && grep -qx "runs: 2 (up to 6 until the means of the runs reach --precision 3%)" <<<"$out" &&
	grep -q "mmbench options: --precision 3$" <<<"$out" &&
	pass "lab --runs 2 --precision 3 --dry-run: 2 runs, at most 6, --precision to mmbench" ||
	fail "lab --runs --dry-run" "$out"

# ---------------------------------------------------------------- --runs 2
# consistent DIR: every case's cases.csv iterations equals the iterations
# of its rows in results.csv, and its rows of loops_per_s (one an
# iteration) are that many.
consistent() {
	local dir=$1 w c it n r bad=
	while IFS=$'\t' read -r w c it; do
		n=$("$mm" field --where case="$c" "$dir/results.csv" iteration | sort -u | wc -l)
		r=$("$mm" field --where case="$c" "$dir/results.csv" metric | grep -cx loops_per_s)
		[ "$n" = "$it" ] && [ "$r" = "$it" ] || bad+="$w [$c]: cases.csv $it, results.csv $n iterations, $r rows of loops_per_s; "
	done < <("$mm" field "$dir/cases.csv" workload case iterations)
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}

"$TOP/run.sh" --suite "$t/tiny.suite" --out "$t/r2" --label runs2 --runs 2 >"$t/r2.out" 2>&1
rc=$?
mapfile -t d < <(find "$t/r2/runs2" -mindepth 1 -maxdepth 1 -type d | sort)
ids=$(for x in "${d[@]}"; do "$mm" field --where key=run_id "$x/meta.csv" value; done | sort -u | wc -l)
[ $rc = 0 ] && [ ${#d[@]} = 2 ] && [ "$ids" = 2 ] &&
	[ "$(cat "${d[@]/%//cases.csv}" | grep -c ',pass,')" = 2 ] &&
	grep -q "^run.sh: 2 runs (--runs 2), label runs2:" "$t/r2.out" &&
	pass "run.sh --runs 2: two run directories (two run ids) under one label" ||
	fail "run.sh --runs 2" "rc=$rc dirs=${#d[@]} ids=$ids $(tail -n 5 "$t/r2.out")"
why=$(for x in "${d[@]}"; do consistent "$x"; done)
[ -z "$why" ] && pass "--runs 2: cases.csv iterations agree with results.csv rows" ||
	fail "--runs 2: iterations" "$why"
grep -q "^Between runs" "$t/r2.out" && grep -q "loops_per_s .* 2 " "$t/r2.out" &&
	pass "--runs 2: the runs' means reported between runs (k = 2)" ||
	fail "--runs 2: between runs" "$(sed -n '/^Between/,$p' "$t/r2.out" | head -5)"

# ---------------------------------------------------------------- --precision
small=(-p instances=1 -p size_mb=16 -p duration_s=0.1 -w 0)
"$mm" run pageout "${small[@]}" -i 2 --precision 0.001 --max-iterations 4 -o "$t/p1" \
	>/dev/null 2>"$t/p1.err"
rc=$?
{ read -r it; read -r tgt; read -r pct; read -r met; read -r stop; } < <("$mm" field --lines \
	"$t/p1/cases.csv" iterations precision_target_pct precision_pct precision_metric stopped_by)
[ $rc = 0 ] && [ "$it" = 4 ] && [ "$stop" = max-iterations ] && [ "$tgt" = 0.001 ] &&
	[ -n "$pct" ] && [ -n "$met" ] &&
	grep -q "\] pageout .*: stopped by --max-iterations 4 before --precision 0.001%: reached .* ($met) after 4 iterations" "$t/p1.err" &&
	grep -q "1 stopped by a limit first: pageout .*(--max-iterations)" "$t/p1.err" &&
	pass "--precision out of reach: stops at --max-iterations 4, says so (line, summary, cases.csv)" ||
	fail "--precision max-iterations" "rc=$rc it=$it stop=$stop tgt=$tgt pct=$pct met=$met $(tail -n 3 "$t/p1.err")"
why=$(consistent "$t/p1")
[ -z "$why" ] && pass "--precision: cases.csv iterations agree with results.csv rows" ||
	fail "--precision: iterations" "$why"
"$mm" precision "$t/p1" >"$t/p1.prec" 2>&1
grep -q "max-iterations (a limit before --precision 0.001%)" "$t/p1.prec" &&
	pass "mmbench precision: the limited case flagged" || fail "mmbench precision" "$(cat "$t/p1.prec")"

# Emulated times (a TCG guest says vm_accel=tcg): nothing timed is judged,
# so nothing to wait for: the minimum.
"$mm" run pageout "${small[@]}" -i 2 --precision 3 --meta vm_accel=tcg -o "$t/p2" \
	>/dev/null 2>"$t/p2.err"
rc=$?
IFS=$'\t' read -r it stop < <("$mm" field "$t/p2/cases.csv" iterations stopped_by)
[ $rc = 0 ] && [ "$it" = 2 ] && [ "$stop" = nothing-timed ] &&
	grep -q "no judged timed evidence metric .*stopped at the minimum, 2 iterations" "$t/p2.err" &&
	pass "--precision with only counts judged (emulated times): stops at the minimum" ||
	fail "--precision nothing timed" "rc=$rc it=$it stop=$stop $(tail -n 3 "$t/p2.err")"

# --max-time: it stops and says so (the guard, 1000 iterations, only keeps
# a broken limit from running on; never reached at 0.1 s an iteration).
"$mm" run pageout "${small[@]}" -i 2 --precision 0.001 --max-iterations 1000 --max-time 1 \
	-o "$t/p3" >/dev/null 2>"$t/p3.err"
rc=$?
IFS=$'\t' read -r it stop < <("$mm" field "$t/p3/cases.csv" iterations stopped_by)
[ $rc = 0 ] && [ "$stop" = max-time ] && [ "$it" -lt 1000 ] &&
	grep -q "stopped by --max-time 1 s before --precision 0.001%" "$t/p3.err" &&
	pass "--max-time: stops adding iterations and says so" ||
	fail "--max-time" "rc=$rc it=$it stop=$stop $(tail -n 3 "$t/p3.err")"

# Without --precision: -i iterations, recorded as fixed, precision still said.
"$mm" run pageout "${small[@]}" -i 3 -o "$t/p4" >/dev/null 2>&1
{ read -r it; read -r tgt; read -r pct; read -r stop; } < <("$mm" field --lines \
	"$t/p4/cases.csv" iterations precision_target_pct precision_pct stopped_by)
[ "$it" = 3 ] && [ -z "$tgt" ] && [ -n "$pct" ] && [ "$stop" = fixed ] &&
	pass "no --precision: -i iterations, stopped_by fixed, the precision reached recorded" ||
	fail "fixed" "it=$it tgt=$tgt pct=$pct stop=$stop"

# ---------------------------------------------------------------- runs added
# --runs 2 --precision out of reach: runs added up to --max-runs 3.
"$TOP/run.sh" --suite "$t/tiny.suite" --out "$t/r3" --label runs3 --runs 2 \
	--precision 0.001 --max-iterations 2 --max-runs 3 >"$t/r3.out" 2>&1
rc=$?
n=$(find "$t/r3/runs3" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ $rc = 0 ] && [ "$n" = 3 ] &&
	grep -q "after 2 runs the runs' means are not within --precision 0.001%: one more run (at most 3)" "$t/r3.out" &&
	grep -q "^run.sh: 3 runs (--max-runs 3 before the runs' means reached --precision 0.001%)" "$t/r3.out" &&
	grep -q "above --precision" "$t/r3.out" &&
	pass "--runs 2 --precision: runs added up to --max-runs 3, said so" ||
	fail "--runs --precision" "rc=$rc runs=$n $(grep '^run.sh' "$t/r3.out" | tail -n 3)"
finish
