#!/usr/bin/env bash
# workloads/ADDING.md holds: a copy of the tree, plus the example file and
# the one registry line exactly as that page shows them, builds with no
# other change and runs the new workload (its rows checked). Then, in the
# same copy, a misspelt parameter field does not compile, a default
# outside its range stops mmbench at start-up, naming the row, and an emit
# of a metric in no row of the metric table fails the case, naming it.
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir); trap 'rm -rf "$t"' EXIT
doc=$TOP/workloads/ADDING.md
ex=$TOP/workloads/example/hello_mm.c
src=$t/src

# The page's file (its first ```c block) is the example file, byte for byte.
awk '/^```c$/ { n++; if (n == 1) { on = 1; next } } on && /^```$/ { exit } on' \
	"$doc" >"$t/doc_file.c"
cmp -s "$t/doc_file.c" "$ex" && pass "ADDING.md shows workloads/example/hello_mm.c as it is" ||
	fail "ADDING.md file" "its first c block differs from $ex: $(diff "$t/doc_file.c" "$ex" | head -5)"
# The page's registry line.
line=$(grep -E '^[[:space:]]*X\(hello_mm\)' "$doc")
[ "$(grep -c . <<<"$line")" = 1 ] && pass "ADDING.md shows one registry line" ||
	fail "ADDING.md registry line" "found: '$line'"

# The tree without build products, results or git metadata.
mkdir "$src"
(cd "$TOP" && tar -cf - --exclude=./results --exclude=./.git --exclude='*.o' \
	--exclude='*.d' Makefile bench workloads tools tests) | tar -xf - -C "$src" ||
	{ fail "copy the tree" "tar failed"; finish; }
cp "$t/doc_file.c" "$src/workloads/hello_mm.c"
# The line goes after the last registry line (every line ends in '\').
last=$(grep -nE '^[[:space:]]*X\([a-z0-9_]*\)[[:space:]]*\\$' "$src/workloads/registry.c" | tail -1 | cut -d: -f1)
[ -n "$last" ] || { fail "registry" "no X(name) line in workloads/registry.c"; finish; }
awk -v n="$last" -v add="$line" '{ print } NR == n { print add }' \
	"$TOP/workloads/registry.c" >"$src/workloads/registry.c"
changed=$(cd "$src" && diff -r -q -x '*.o' -x '*.d' "$TOP/workloads" workloads)
[ "$(grep -c . <<<"$changed")" = 2 ] && grep -q 'Only in workloads: hello_mm.c' <<<"$changed" &&
	grep -q 'registry.c differ' <<<"$changed" && pass "the copy differs by one file and the registry" ||
	fail "the copy" "$changed"
[ "$(diff "$TOP/workloads/registry.c" "$src/workloads/registry.c" | grep -c '^[<>]')" = 1 ] &&
	pass "the registry differs by one line" || fail "registry diff" "$(diff "$TOP/workloads/registry.c" "$src/workloads/registry.c")"

# -B: the copy's binaries are older than nothing; build from the sources.
if make -C "$src" -B -j2 bench/mmbench >"$t/build.log" 2>&1; then
	pass "mmbench builds with the new workload and no other change"
else
	fail "build" "$(tail -5 "$t/build.log")"
	finish
fi
mm=$src/bench/mmbench
out=$("$mm" list 2>&1)
grep -q '^hello_mm ' <<<"$out" && pass "list shows hello_mm" || fail "list" "$out"
out=$("$mm" info hello_mm 2>&1)
grep -qE '^size_mb +int +16 +1\.\.1024 ' <<<"$out" && grep -qE '^fault_ns_per_page +evidence +lower' <<<"$out" &&
	pass "info prints hello_mm's parameter and metric tables" || fail "info" "$out"

"$mm" run hello_mm -p size_mb=1,2 -i 2 -w 1 -o "$t/run" >"$t/run.out" 2>&1; rc=$?
[ $rc = 0 ] && pass "run hello_mm exits 0" || fail "run" "rc=$rc: $(tail -5 "$t/run.out")"
rows=$(result_rows "$t/run/results.csv" 2>/dev/null)
for c in size_mb=1 size_mb=2; do
	n=$(awk -F'\t' -v c="$c" '$1 == c && $2 == "fault_ns_per_page" && $3 > 0 && $4 == "lower"' <<<"$rows" | wc -l)
	f=$(awk -F'\t' -v c="$c" '$1 == c && $2 == "faults_per_page" && $3 > 0 && $4 == "info"' <<<"$rows" | wc -l)
	[ "$n" = 2 ] && [ "$f" = 2 ] && pass "results.csv: [$c] 2 iterations of both metrics" ||
		fail "results.csv [$c]" "fault_ns_per_page rows $n, faults_per_page rows $f: $rows"
done
[ "$(grep -c . <<<"$rows")" = 8 ] && pass "results.csv: 8 rows, nothing else" ||
	fail "results.csv rows" "$rows"
[ "$("$MMBENCH" field --where workload=hello_mm "$t/run/warmup.csv" value 2>/dev/null | wc -l)" = 4 ] &&
	pass "warmup.csv: the warm-up rows, apart" || fail "warmup.csv" "$(cat "$t/run/warmup.csv" 2>&1)"
[ "$("$MMBENCH" field --where workload=hello_mm "$t/run/cases.csv" status | grep -cx pass)" = 2 ] &&
	pass "cases.csv: both cases passed" || fail "cases.csv" "$(cat "$t/run/cases.csv")"
grep -q '^1,hello_mm,fault_ns_per_page,ns,lower,evidence,' "$t/run/metrics.csv" &&
	pass "metrics.csv: fault_ns_per_page is evidence, lower" || fail "metrics.csv" "$(cat "$t/run/metrics.csv")"

# A misspelt field does not compile.
sed 's/MM_PINT(struct hello_params, size_mb)/MM_PINT(struct hello_params, size_mbb)/' \
	"$t/doc_file.c" >"$src/workloads/hello_mm.c"
if make -C "$src" -j2 bench/mmbench >"$t/build2.log" 2>&1; then
	fail "misspelt parameter" "built"
else
	grep -q 'size_mbb' "$t/build2.log" && pass "a misspelt parameter field does not compile" ||
		fail "misspelt parameter" "$(tail -5 "$t/build2.log")"
fi
# A default outside its range stops every command at start-up.
sed 's/\.def = "16", \.min = 1,/.def = "0", .min = 1,/' "$t/doc_file.c" >"$src/workloads/hello_mm.c"
if make -C "$src" -j2 bench/mmbench >"$t/build3.log" 2>&1; then
	"$mm" list >"$t/list.out" 2>&1; rc=$?
	[ $rc = 1 ] && grep -q "internal error in a workload table: hello_mm: parameter 'size_mb': 0 is outside \[1, 1024\]" "$t/list.out" &&
		pass "a default outside its range stops mmbench at start-up, naming the row" ||
		fail "bad default" "rc=$rc: $(cat "$t/list.out")"
else
	fail "bad default" "did not build: $(tail -5 "$t/build3.log")"
fi
# An emit of a metric in no row of the metric table fails the case.
sed 's/mm_emit(ctx, "faults_per_page",/mm_emit(ctx, "faults_per_pages",/' "$t/doc_file.c" \
	>"$src/workloads/hello_mm.c"
if make -C "$src" -j2 bench/mmbench >"$t/build4.log" 2>&1; then
	"$mm" run hello_mm -p size_mb=1 -i 1 -w 0 -o "$t/run4" >"$t/run4.out" 2>&1; rc=$?
	[ $rc = 1 ] && "$MMBENCH" field --where workload=hello_mm "$t/run4/cases.csv" status reason |
		awk -F'\t' '$1 == "fail"' |
		grep -q "metric 'faults_per_pages' is in no row of the workload's metric table" &&
		! grep -q faults_per_pages "$t/run4/results.csv" &&
		pass "an emit of a metric in no row of the table fails the case, naming it" ||
		fail "unlisted metric" "rc=$rc: $(tail -3 "$t/run4.out"; cat "$t/run4/cases.csv")"
else
	fail "unlisted metric" "did not build: $(tail -5 "$t/build4.log")"
fi
finish
