#!/usr/bin/env bash
# The same data counted twice must not make a change "significant": the
# same results.csv named twice (in any spelling), a copy of a run pooled
# into its own side, a row repeated inside one file, two runs concatenated
# into one file, and two labels in one run with --per-arg are refused
# with exit 2 naming the inputs. Values are decimal only; metric names
# follow the core's rule ([A-Za-z0-9_.:], mthp_64kB_* included).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/gen.sh"
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT

if [ ! -x "$MMCOMPARE" ]; then
	fail "mmcompare built" "$MMCOMPARE missing"
	finish
fi

mkrun "$t/B/b1" B
mkrun "$t/N/n1" N
addrows "$t/B/b1" w "x=1" m ns lower 100 104 98
addrows "$t/N/n1" w "x=1" m ns lower 96 99 94

# refused IN... EXPECT: exit 2 and an error matching EXPECT
refused() {
	local name=$1 expect=$2 rc
	shift 2
	(cd "$t" && "$MMCOMPARE" "$@") >"$t/out" 2>"$t/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -Eq "$expect" "$t/err"; then
		pass "$name"
	else
		fail "$name" "exit $rc, stderr: $(head -c 300 "$t/err")"
	fi
}

(cd "$t" && "$MMCOMPARE" B/b1 N/n1) >/dev/null 2>&1
check "B N compares (exit 0)" [ $? -eq 0 ]
refused "B N N: the same run twice" "N/n1/results.csv and N/n1/results.csv are the same file" B/b1 N/n1 N/n1
refused "a label directory and a run inside it" "are the same file" B N N/n1
refused "./N and N" "are the same file" B/b1 ./N/n1 N/n1
refused "a symlink to a run" "are the same file" B/b1 N/n1 "$(ln -s "$t/N/n1" "$t/alias" && echo alias)"
refused "--per-arg B N N" "are the same file" --per-arg B/b1 N/n1 N/n1
refused "comparing a run with itself" "are the same file" B/b1 B/b1
cp -r "$t/N/n1" "$t/N/n1-copy"
refused "a copy of a run pooled into its side" "hold the same run \(run_id n1\)" B N
rm -rf "$t/N/n1-copy" "$t/alias"

# A row repeated in one file; a whole file concatenated with itself.
mkrun "$t/D/d1" D
addrows "$t/D/d1" w "x=1" m ns lower 96 99 94
tail -n 1 "$t/D/d1/results.csv" >>"$t/D/d1/results.csv"
refused "a row repeated in results.csv" "results.csv:5: the same row as line 4 \(w/m iteration 2\)" B/b1 D/d1
mkrun "$t/D/d2" D
addrows "$t/D/d2" w "x=1" m ns lower 96 99 94
tail -n +2 "$t/D/d2/results.csv" >>"$t/D/d2/results.csv"
refused "a file concatenated with itself" "results.csv:5: the same row as line 2" B/b1 D/d2
mkrun "$t/D/d3" D
addrows "$t/D/d3" w "x=1" m ns lower 96 99 94
tail -n +2 "$t/N/n1/results.csv" | sed 's/,N,/,D,/' >>"$t/D/d3/results.csv"
refused "two runs concatenated into one file" "run_id 'n1' differs from the file's run_id 'd3'" B/b1 D/d3
# A directory reused with mmbench -o: the case again from iteration 0,
# other values: more iterations, accepted.
mkrun "$t/R/r1" R
addrows "$t/R/r1" w "x=1" m ns lower 96 99 94
addrows "$t/R/r1" w "x=1" m ns lower 95 97 93
out=$(cd "$t" && "$MMCOMPARE" --all B/b1 R/r1 2>&1)
check "a rerun into the same directory pools its new iterations (n = 6)" \
	grep -Eq '^N +m +3 +6$' <<<"$out"

# --per-arg used to skip the two-labels-in-one-run check.
mkrun "$t/L/l1" L
addrows "$t/L/l1" w "x=1" m ns lower 96 99 94
sed -i '$s/,L,/,M,/' "$t/L/l1/results.csv"
refused "--per-arg: two labels in one run" "label 'M' differs from the run's label 'L'" --per-arg B/b1 L/l1
refused "two labels in one run" "label 'M' differs from the run's label 'L'" B/b1 L/l1

# Decimal numbers only, the one grammar of the driver and the tools
# (bench/results/numbers.c): no leading '+' (mmbench never writes one).
for v in 0x10 0x1p3 " 5" "5 " inf -nan 1e 1.2.3 +-1 1,5 +3; do
	mkrun "$t/V/v" V
	addrows "$t/V/v" w "x=1" m ns lower 96 99
	echo "1,v,V,k-V,w,\"x=1\",2,m,\"$v\",ns,lower" >>"$t/V/v/results.csv"
	refused "value '$v' refused" "results.csv:4: value '.*' is not a (decimal|finite) number" B/b1 V/v
	rm -rf "$t/V"
done
for v in 1 -2.5 .5 5. 1e3 1.5E-7 1e+3; do
	mkrun "$t/V/v" V
	addrows "$t/V/v" w "x=1" m ns lower 96 99 "$v"
	(cd "$t" && "$MMCOMPARE" B/b1 V/v) >/dev/null 2>&1
	check "value '$v' accepted" [ $? -eq 0 ]
	rm -rf "$t/V"
done

# Metric names: the core writes mthp_64kB_anon_fault_alloc (thp_storm).
mkrun "$t/M1/m" M1
mkrun "$t/M2/m2" M2
addrows "$t/M1/m" w "x=1" mthp_64kB_anon_fault_alloc count info 1 2 3
addrows "$t/M2/m2" w "x=1" mthp_64kB_anon_fault_alloc count info 1 2 3
(cd "$t" && "$MMCOMPARE" M1/m M2/m2) >/dev/null 2>"$t/err"
check "mthp_64kB_anon_fault_alloc is a valid metric name" [ $? -eq 0 ]
for m in 'a-b' 'a b' 'a;b' 'ä' "$(printf 'm%.0s' $(seq 201))"; do
	mkrun "$t/M3/m3" M3
	addrows "$t/M3/m3" w "x=1" "$m" count info 1 2 3
	refused "metric '${m:0:20}' refused" "metric '.*' (has characters outside|is longer than)" M1/m M3/m3
	rm -rf "$t/M3"
done
finish
